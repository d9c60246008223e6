#include "compiler/parse/parser.hpp"

#include <cctype>

#include "compiler/parse/builder.hpp"
#include "compiler/parse/characters.hpp"
#include "compiler/parse/grammar.hpp"
#include "compiler/parse/nesting.hpp"
#include "compiler/parse/tree.hpp"
#include "compiler/parse/trivia.hpp"

namespace seam::parse {

namespace {

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

// The token a syntax error points at: a word or number, one character, or nothing at the end.
SourceRange found_range(const SourceFile& source, size_t at) {
  std::string_view text = source.text();
  size_t end = at;
  if (end < text.size() && is_word_char(text[end]) && text[end] != '.') {
    while (end < text.size() && is_word_char(text[end]) && !(text[end] == '.' && text.substr(end, 2) == ".."))
      ++end;
  } else if (end < text.size()) {
    ++end;
  }
  return SourceRange{&source, at, end};
}

std::string describe(const SourceFile& source, const SourceRange& r) {
  if (r.begin >= source.text().size()) return "end of file";
  std::string_view t = r.text();
  if (t == "\n" || t == "\r") return "end of line";
  if (t == "\"") return "a string";
  return "'" + std::string(t) + "'";
}

void report(const SourceFile& source, diag::Diagnostics& diags, const SyntaxFailure& f) {
  if (f.code != diag::Code::SyntaxError) {
    size_t at = skip_trivia(source.text(), f.offset);
    diags.error(f.code, SourceRange{&source, at, std::min(at + 1, source.text().size())}, f.message);
    return;
  }
  size_t at = f.exact ? f.offset : skip_trivia(source.text(), f.offset);
  SourceRange r = found_range(source, at);
  diags.error(diag::Code::SyntaxError, r, "expected " + f.message + ", found " + describe(source, r));
}

bool starts_declaration(std::string_view text, size_t at) {
  tao::pegtl::memory_input<> in(text.data() + at, text.data() + text.size(), "");
  return tao::pegtl::parse<grammar::decl_start>(in);
}

// Where to resume after an error at `error` in the declaration that began at `decl_begin`: the first line
// from the error's line on (and after the declaration's first line) that starts in column 1 with a
// declaration. The end of the text if there is none.
size_t resume_point(std::string_view text, size_t decl_begin, size_t error) {
  size_t line = text.rfind('\n', error == 0 ? 0 : error - 1);
  line = (error == 0 || line == std::string_view::npos) ? 0 : line + 1;
  if (line <= decl_begin) {
    line = text.find('\n', decl_begin);
    if (line == std::string_view::npos) return text.size();
    ++line;
  }
  while (line < text.size()) {
    if (starts_declaration(text, line)) return line;
    line = text.find('\n', line);
    if (line == std::string_view::npos) return text.size();
    ++line;
  }
  return text.size();
}

}  // namespace

ast::File parse_file(const SourceFile& source, diag::Diagnostics& diags, const Limits& limits) {
  ast::File file;
  file.source = &source;
  const std::string& text = source.text();
  if (text.size() > limits.max_file_bytes) {
    diags.file_error(diag::Code::FileTooLarge, source.shown(),
                     "file is " + std::to_string(text.size()) + " bytes; the limit is " +
                         std::to_string(limits.max_file_bytes) + " bytes");
    return file;
  }

  size_t start = report_bad_characters(source, diags);
  Builder builder(source, diags);
  const ast::ModuleDecl* module = nullptr;
  size_t at = skip_trivia(text, start);
  while (at < text.size()) {
    ParseInput in(text.data(), text.data() + at, text.data() + text.size(), source.shown(),
                  limits.max_nesting);
    try {
      std::unique_ptr<Node> tree = parse_declaration(in);
      ast::Decl decl = builder.declaration(*tree->children.front());
      if (auto* m = std::get_if<ast::ModuleDecl>(&decl)) {
        if (module) {
          diags.error(
              diag::Code::ModuleMisplaced, m->name.range,
              "a file declares one module; this one already declared 'module " + module->name.name + "'");
        } else if (!file.decls.empty()) {
          diags.error(diag::Code::ModuleMisplaced, m->name.range,
                      "'module " + m->name.name + "' must be the first declaration of the file");
        } else {
          builder.set_module(m->name.name);
          file.decls.push_back(std::move(decl));
          module = &std::get<ast::ModuleDecl>(file.decls.back());
        }
      } else {
        file.decls.push_back(std::move(decl));
        if (module) module = &std::get<ast::ModuleDecl>(file.decls.front());  // the vector may have moved
      }
      at = in.offset();
    } catch (const SyntaxFailure& failure) {
      report(source, diags, failure);
      at = resume_point(text, at, failure.offset);
    } catch (const tao::pegtl::parse_error& e) {  // not expected: the control raises SyntaxFailure
      diags.error(diag::Code::SyntaxError, found_range(source, at), std::string(e.message()));
      at = resume_point(text, at, at);
    }
    at = skip_trivia(text, at);
  }
  return file;
}

}  // namespace seam::parse
