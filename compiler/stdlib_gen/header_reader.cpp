#include "compiler/stdlib_gen/header_reader.hpp"

#include <clang-c/Documentation.h>
#include <clang-c/Index.h>

#include <cctype>
#include <set>

namespace seam::stdlib_gen {

namespace {

std::string take(CXString s) {
  const char* c = clang_getCString(s);
  std::string out = c ? c : "";
  clang_disposeString(s);
  return out;
}

std::string collapse_whitespace(const std::string& text) {
  std::string out;
  for (char c : text) {
    bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (space) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

bool is_float_kind(CXTypeKind k) {
  return k == CXType_Float || k == CXType_Double || k == CXType_LongDouble || k == CXType_Half ||
         k == CXType_Float16 || k == CXType_Float128 || k == CXType_BFloat16 || k == CXType_Ibm128;
}

bool is_signed_kind(CXTypeKind k) {
  return k == CXType_Char_S || k == CXType_SChar || k == CXType_Short || k == CXType_Int ||
         k == CXType_Long || k == CXType_LongLong || k == CXType_Int128 || k == CXType_WChar;
}

bool is_integer_kind(CXTypeKind k) {
  return is_signed_kind(k) || k == CXType_Char_U || k == CXType_UChar || k == CXType_UShort ||
         k == CXType_UInt || k == CXType_ULong || k == CXType_ULongLong || k == CXType_UInt128 ||
         k == CXType_Char16 || k == CXType_Char32;
}

// Anonymous enums have no usable tag (libclang spells them "" or "(unnamed enum at ...)").
bool is_plain_identifier(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

void collect_leaves(CXType record, const std::string& prefix, int base_offset, std::vector<CLeaf>& out);

void add_leaf(CXType type, const std::string& name, int offset, std::vector<CLeaf>& out) {
  CXType canonical = clang_getCanonicalType(type);
  if (canonical.kind == CXType_Record) {
    collect_leaves(canonical, name + ".", offset, out);
  } else if (canonical.kind == CXType_ConstantArray) {
    CXType element = clang_getArrayElementType(canonical);
    long long element_size = clang_Type_getSizeOf(element);
    long long count = clang_getArraySize(canonical);
    for (long long i = 0; i < count && element_size > 0; ++i)
      add_leaf(element, name + "[" + std::to_string(i) + "]", offset + static_cast<int>(i * element_size),
               out);
  } else {
    long long size = clang_Type_getSizeOf(canonical);
    out.push_back({name, offset, size > 0 ? static_cast<int>(size) : 0, is_float_kind(canonical.kind)});
  }
}

void collect_leaves(CXType record, const std::string& prefix, int base_offset, std::vector<CLeaf>& out) {
  struct Context {
    std::string prefix;
    int base_offset;
    std::vector<CLeaf>* out;
  } context{prefix, base_offset, &out};
  clang_Type_visitFields(
      record,
      [](CXCursor field, CXClientData data) {
        auto* c = static_cast<Context*>(data);
        long long bits = clang_Cursor_getOffsetOfField(field);
        int offset = c->base_offset + (bits > 0 ? static_cast<int>(bits / 8) : 0);
        add_leaf(clang_getCursorType(field), c->prefix + take(clang_getCursorSpelling(field)), offset,
                 *c->out);
        return CXVisit_Continue;
      },
      &context);
}

class Reader {
 public:
  explicit Reader(CHeader& header) : header_(header) {}

  CType type_of(CXType type) {
    CType out;
    out.spelling = take(clang_getTypeSpelling(type));
    CXType canonical = clang_getCanonicalType(type);
    long long size = clang_Type_getSizeOf(canonical);
    out.size = size > 0 ? static_cast<int>(size) : 0;
    CXTypeKind k = canonical.kind;
    if (k == CXType_Void) {
      out.kind = CTypeKind::Void;
    } else if (k == CXType_Bool) {
      out.kind = CTypeKind::Bool;
    } else if (is_integer_kind(k)) {
      out.kind = CTypeKind::Integer;
      out.is_signed = is_signed_kind(k);
    } else if (k == CXType_Pointer || k == CXType_BlockPointer || k == CXType_ConstantArray ||
               k == CXType_IncompleteArray || k == CXType_VariableArray || k == CXType_DependentSizedArray) {
      out.kind = CTypeKind::Pointer;  // arrays in parameter lists are pointers
      out.size = 8;
    } else if (is_float_kind(k)) {
      out.kind = CTypeKind::Float;
    } else if (k == CXType_Enum) {
      out.kind = CTypeKind::Enum;
      CXCursor decl = clang_getTypeDeclaration(canonical);
      out.is_signed = is_signed_kind(clang_getCanonicalType(clang_getEnumDeclIntegerType(decl)).kind);
      std::string tag = take(clang_getCursorSpelling(decl));
      out.enum_name = is_plain_identifier(tag) ? tag : out.spelling;
      record_enum(decl, out.enum_name);
    } else if (k == CXType_Record) {
      out.kind = CTypeKind::Record;
      collect_leaves(canonical, "", 0, out.leaves);
    }
    return out;
  }

  void add_function(CXCursor cursor) {
    std::string name = take(clang_getCursorSpelling(cursor));
    if (!seen_.insert(name).second) {
      // A redeclaration: keep the first, but take its comment if the first had none.
      for (CFunction& f : header_.functions)
        if (f.name == name && f.doc.empty()) f.doc = brief_of(cursor);
      return;
    }
    CFunction f;
    f.name = name;
    f.doc = brief_of(cursor);
    f.is_static = clang_Cursor_getStorageClass(cursor) == CX_SC_Static;
    CXType type = clang_getCursorType(cursor);
    f.is_variadic = clang_isFunctionTypeVariadic(type) != 0;
    f.location = location_of(cursor);
    f.result = type_of(clang_getResultType(type));
    int n = clang_Cursor_getNumArguments(cursor);
    for (int i = 0; i < n; ++i) {
      CXCursor arg = clang_Cursor_getArgument(cursor, static_cast<unsigned>(i));
      f.params.push_back({take(clang_getCursorSpelling(arg)), type_of(clang_getCursorType(arg)), {}});
    }
    add_param_docs(cursor, f);
    header_.functions.push_back(std::move(f));
  }

 private:
  static std::string location_of(CXCursor cursor) {
    CXFile file;
    unsigned line = 0, column = 0;
    clang_getExpansionLocation(clang_getCursorLocation(cursor), &file, &line, &column, nullptr);
    return (file ? take(clang_getFileName(file)) : std::string()) + ":" + std::to_string(line) + ":" +
           std::to_string(column);
  }

  static std::string brief_of(CXCursor cursor) {
    return collapse_whitespace(take(clang_Cursor_getBriefCommentText(cursor)));
  }

  // Doxygen `\param name text` paragraphs become the parameters' docs.
  static void add_param_docs(CXCursor cursor, CFunction& f) {
    CXComment comment = clang_Cursor_getParsedComment(cursor);
    unsigned n = clang_Comment_getNumChildren(comment);
    for (unsigned i = 0; i < n; ++i) {
      CXComment child = clang_Comment_getChild(comment, i);
      if (clang_Comment_getKind(child) != CXComment_ParamCommand) continue;
      std::string name = take(clang_ParamCommandComment_getParamName(child));
      std::string text = collapse_whitespace(text_of(child));
      while (!text.empty() && (text[0] == '-' || text[0] == ' ')) text.erase(0, 1);
      for (CParam& p : f.params)
        if (p.name == name && p.doc.empty()) p.doc = text;
    }
  }

  static std::string text_of(CXComment comment) {
    std::string out;
    switch (clang_Comment_getKind(comment)) {
      case CXComment_Text:
        return take(clang_TextComment_getText(comment));
      case CXComment_InlineCommand: {
        unsigned args = clang_InlineCommandComment_getNumArgs(comment);
        for (unsigned i = 0; i < args; ++i)
          out += take(clang_InlineCommandComment_getArgText(comment, i)) + " ";
        return out;
      }
      default:
        break;
    }
    unsigned n = clang_Comment_getNumChildren(comment);
    for (unsigned i = 0; i < n; ++i) out += text_of(clang_Comment_getChild(comment, i)) + " ";
    return out;
  }

  void record_enum(CXCursor decl, const std::string& name) {
    if (header_.enums.count(name)) return;
    CEnum e;
    e.name = name;
    clang_visitChildren(
        decl,
        [](CXCursor c, CXCursor, CXClientData data) {
          if (clang_getCursorKind(c) == CXCursor_EnumConstantDecl)
            static_cast<CEnum*>(data)->values.emplace_back(take(clang_getCursorSpelling(c)),
                                                           clang_getEnumConstantDeclValue(c));
          return CXChildVisit_Continue;
        },
        &e);
    header_.enums[name] = std::move(e);
  }

  CHeader& header_;
  std::set<std::string> seen_;
};

CXChildVisitResult visit_top_level(CXCursor cursor, CXCursor, CXClientData data) {
  auto* reader = static_cast<Reader*>(data);
  CXCursorKind kind = clang_getCursorKind(cursor);
  if (kind == CXCursor_FunctionDecl) reader->add_function(cursor);
  if (kind == CXCursor_LinkageSpec) return CXChildVisit_Recurse;  // extern "C" { ... }
  return CXChildVisit_Continue;
}

std::string format_diagnostic(CXDiagnostic d) {
  CXSourceLocation location = clang_getDiagnosticLocation(d);
  CXFile file;
  unsigned line = 0, column = 0;
  clang_getSpellingLocation(location, &file, &line, &column, nullptr);
  std::string where = file ? take(clang_getFileName(file)) : std::string("<command line>");
  if (file) where += ":" + std::to_string(line) + ":" + std::to_string(column);
  return where + ": error: " + take(clang_getDiagnosticSpelling(d));
}

}  // namespace

HeaderRead read_header(const std::string& path, const std::vector<std::string>& clang_args) {
  HeaderRead out;
  std::vector<std::string> args = {"-x", "c", "-std=gnu11", "-fparse-all-comments"};
  args.insert(args.end(), clang_args.begin(), clang_args.end());
  std::vector<const char*> argv;
  argv.reserve(args.size());
  for (const std::string& a : args) argv.push_back(a.c_str());

  CXIndex index = clang_createIndex(0, 0);
  CXTranslationUnit unit = nullptr;
  CXErrorCode code =
      clang_parseTranslationUnit2(index, path.c_str(), argv.data(), static_cast<int>(argv.size()), nullptr, 0,
                                  CXTranslationUnit_SkipFunctionBodies, &unit);
  if (code != CXError_Success || unit == nullptr) {
    out.errors.push_back(path + ": error: libclang could not parse the header (error " +
                         std::to_string(static_cast<int>(code)) + ")");
    clang_disposeIndex(index);
    return out;
  }
  unsigned n = clang_getNumDiagnostics(unit);
  for (unsigned i = 0; i < n; ++i) {
    CXDiagnostic d = clang_getDiagnostic(unit, i);
    if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) out.errors.push_back(format_diagnostic(d));
    clang_disposeDiagnostic(d);
  }
  Reader reader(out.header);
  clang_visitChildren(clang_getTranslationUnitCursor(unit), visit_top_level, &reader);
  clang_disposeTranslationUnit(unit);
  clang_disposeIndex(index);
  return out;
}

}  // namespace seam::stdlib_gen
