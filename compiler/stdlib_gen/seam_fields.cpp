#include "compiler/stdlib_gen/seam_fields.hpp"

#include <algorithm>
#include <set>

#include "compiler/stdlib_gen/naming.hpp"

namespace seam::stdlib_gen {

namespace {

constexpr int kArgumentRegisters = 6;

std::string integer_type(int size, bool is_signed) {
  switch (size) {
    case 1:
      return is_signed ? "i8" : "u8";
    case 2:
      return is_signed ? "i16" : "u16";
    case 4:
      return is_signed ? "i32" : "u32";
    case 8:
      return is_signed ? "i64" : "u64";
    default:
      return "";
  }
}

std::string join_comment(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return a + ". " + b;
}

// The seam type of a scalar (one register), or "" when it is not one.
std::string scalar_type(const CType& type, const std::string& snake_name) {
  switch (type.kind) {
    case CTypeKind::Pointer:
      return "ptr";
    case CTypeKind::Bool:
      return "bool";
    // A C enum without a declared type is int or unsigned int, as the compiler picks: typed with
    // the enum (the module declares it; seam reads it as i32, prints it by name). A declared type
    // of another size keeps that size and signedness.
    case CTypeKind::Enum:
      if (type.size == 4 && seam_identifier(type.enum_name) == type.enum_name) return type.enum_name;
      return integer_type(type.size, type.size == 4 || type.is_signed);
    case CTypeKind::Integer:
      if (type.size == 8 && !type.is_signed && looks_like_byte_count(snake_name)) return "bytes";
      return integer_type(type.size, type.is_signed);
    default:
      return "";
  }
}

// The part of a record's name for one 8-byte half: its fields' names run together when they are
// short (x, y -> "xy"), else joined with '_'.
std::string half_name(const std::vector<const CLeaf*>& leaves) {
  bool short_names = true;
  for (const CLeaf* leaf : leaves) short_names = short_names && leaf->name.size() == 1;
  std::string out;
  for (const CLeaf* leaf : leaves) {
    if (!out.empty() && !short_names) out += "_";
    out += leaf->name;
  }
  return snake_case(seam_identifier(out));
}

// Hands out argument slots: the six integer registers, then the stack slots after the return
// address (seam reads argument N >= 6 from the stack).
class Assigner {
 public:
  explicit Assigner(SeamFields& out) : out_(out) {}

  void add(SeamField field) {
    std::string name = field.name;
    for (int n = 2; !names_.insert(field.name).second; ++n) field.name = name + "_" + std::to_string(n);
    out_.args.push_back(std::move(field));
    ++slots_;
  }

  int registers_left() const { return std::max(0, kArgumentRegisters - slots_); }
  bool on_stack() const { return slots_ >= kArgumentRegisters; }

  // A struct passed on the stack moves every stack argument after it: those cannot be numbered.
  bool stack_shifted = false;

 private:
  SeamFields& out_;
  int slots_ = 0;
  std::set<std::string> names_ = {"ret"};  // the result's name: an argument called ret becomes ret_2
};

std::string describe(const CParam& p, const std::string& name) {
  return name + " (" + p.type.spelling + ")";
}

}  // namespace

bool looks_like_byte_count(const std::string& snake_name) {
  static const std::set<std::string> words = {"size", "count", "bytes", "len", "length", "nbytes"};
  size_t cut = snake_name.rfind('_');
  std::string last = cut == std::string::npos ? snake_name : snake_name.substr(cut + 1);
  return words.count(last) > 0 || words.count(snake_name) > 0;
}

SeamFields seam_fields_of(const CFunction& function) {
  SeamFields out;
  Assigner registers(out);
  auto note_enum = [&](const CType& t) {
    if (t.kind == CTypeKind::Enum) out.enums.push_back(t.enum_name);
    bool typed = t.kind == CTypeKind::Enum && t.size == 4 && seam_identifier(t.enum_name) == t.enum_name;
    return t.kind == CTypeKind::Enum && !typed ? "enum " + t.enum_name : std::string();
  };

  const CType& result = function.result;
  if (result.kind == CTypeKind::Record && result.size > 16) {
    registers.add(
        {"result", "ptr", "hidden argument: where the returned " + result.spelling + " is written"});
    out.result = SeamField{"ret", "ptr", "the same address"};
  } else if (result.kind != CTypeKind::Void) {
    std::string type = scalar_type(result, "ret");
    if (!type.empty())
      out.result = SeamField{"ret", type, note_enum(result)};
    else
      out.omitted.push_back("the result (" + result.spelling + "): not in the integer result register");
  }

  for (size_t i = 0; i < function.params.size(); ++i) {
    const CParam& p = function.params[i];
    std::string name = p.name.empty() ? "arg" + std::to_string(i) : snake_case(p.name);
    name = seam_identifier(name.empty() ? "arg" + std::to_string(i) : name);
    if (registers.on_stack() && registers.stack_shifted) {
      out.omitted.push_back(describe(p, name) + " and after: on the stack after a struct passed there");
      break;
    }
    std::string type = scalar_type(p.type, name);
    if (!type.empty()) {
      registers.add({name, type, join_comment(note_enum(p.type), p.doc)});
      continue;
    }
    if (p.type.kind == CTypeKind::Float) {
      out.omitted.push_back(describe(p, name) + ": passed in an SSE register");
      continue;
    }
    if (p.type.kind == CTypeKind::Record && p.type.size > 16) {
      out.omitted.push_back(describe(p, name) + ": a struct over 16 bytes, passed on the stack");
      registers.stack_shifted = true;
      continue;
    }
    if (p.type.kind == CTypeKind::Record && p.type.size > 0) {
      // Each 8-byte half with an integer field takes an integer register; on the stack, each takes
      // a slot.
      std::vector<std::vector<const CLeaf*>> halves(p.type.size > 8 ? 2 : 1);
      std::vector<bool> integer_half(halves.size(), false);
      for (const CLeaf& leaf : p.type.leaves) {
        size_t h = leaf.offset >= 8 ? 1 : 0;
        halves[h].push_back(&leaf);
        if (!leaf.is_float) integer_half[h] = true;
      }
      int needed = static_cast<int>(std::count(integer_half.begin(), integer_half.end(), true));
      if (needed == 0 && !registers.on_stack()) {
        out.omitted.push_back(describe(p, name) + ": floating-point fields, passed in SSE registers");
        continue;
      }
      bool fits = needed <= registers.registers_left() ||
                  (registers.on_stack() && needed == static_cast<int>(halves.size()));
      if (!fits) {
        out.omitted.push_back(describe(p, name) +
                              " and after: a struct that does not fit the registers left");
        break;
      }
      for (size_t h = 0; h < halves.size(); ++h) {
        if (!integer_half[h]) continue;
        int bytes = h == 0 ? std::min(p.type.size, 8) : p.type.size - 8;
        std::string half_type = integer_type(bytes <= 4 ? (bytes <= 2 ? (bytes <= 1 ? 1 : 2) : 4) : 8, false);
        std::string comment = p.type.spelling + " by value, bytes " + std::to_string(h * 8) + ".." +
                              std::to_string(h * 8 + static_cast<size_t>(bytes) - 1);
        registers.add(
            {name + "_" + half_name(halves[h]), half_type, join_comment(comment, h == 0 ? p.doc : "")});
      }
      continue;
    }
    out.omitted.push_back(describe(p, name) +
                          " and after: a type this generator does not place in registers");
    break;
  }
  if (function.is_variadic) out.omitted.push_back("the variadic arguments (...)");
  return out;
}

}  // namespace seam::stdlib_gen
