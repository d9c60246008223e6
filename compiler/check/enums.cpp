// Enums: `enum cudaMemcpyKind (cudaMemcpyHostToHost = 0, ...)` in a module names the values of
// the fields typed with it (`kind: cudaMemcpyKind`); outputs print those values by name, and a
// rule compares such a field with a value's name (`kind == cudaMemcpyDeviceToHost`), which the
// checker turns into the number.
#include "compiler/check/checker.hpp"
#include "compiler/check/suggest.hpp"

namespace seam::check {

using diag::Code;

void Checker::check_enum(Table& t, const ast::EnumDecl& en) {
  auto [it, inserted] = enums_.emplace(std::make_pair(t.module, en.name.name), &en);
  if (!inserted) {
    diags_.error(Code::DuplicateName, en.name.range, "enum '" + en.name.name + "' is declared twice")
        .hints.push_back(first_declared(it->second->name.range));
  }
  std::map<std::string, const ast::EnumValue*> seen;
  for (const ast::EnumValue& v : en.values) {
    auto [at, fresh] = seen.emplace(v.name, &v);
    if (!fresh)
      diags_
          .error(Code::DuplicateName, v.range,
                 "value '" + v.name + "' of enum " + en.name.name + " is declared twice")
          .hints.push_back(first_declared(at->second->range));
  }
}

const ast::EnumDecl* Checker::find_enum(const std::string& module, const std::string& name) const {
  if (auto it = enums_.find({module, name}); it != enums_.end()) return it->second;
  for (const auto& [key, en] : enums_)  // a field of another module's type: enum names are C names
    if (key.second == name) return en;
  return nullptr;
}

// A one-part name in `where` that is neither a field of the event nor a builtin: perhaps an enum
// value, if the other side of the comparison is an enum-typed field.
bool Checker::is_unknown_bare_name(const ExprContext& ctx, const ast::Expr& e) const {
  const auto* ref = std::get_if<ast::NameRef>(&e.node);
  if (!ref || ref->name.parts.size() != 1 || ctx.place != Place::Where || !ctx.event) return false;
  const std::string& name = ref->name.parts[0].name;
  return !find_field(*ctx.event, name) && !builtin_type(name) && name != "duration" && name != "pending";
}

// Turns the name `e` into the number of that value of the enum `compared_with` is typed with.
// False when `compared_with` has no enum (the name is then checked as any other name).
bool Checker::resolve_enumerator(ast::Expr& e, const ast::Type& compared_with) {
  if (compared_with.enum_name.empty() || compared_with.enum_name == "severity") return false;
  const ast::EnumDecl* en = find_enum("", compared_with.enum_name);
  if (!en) return false;
  std::string name = std::get<ast::NameRef>(e.node).name.str();
  std::vector<std::string> names;
  for (const ast::EnumValue& v : en->values) {
    if (v.name == name) {
      e.node = ast::IntLit{v.value, ast::Unit::None, ""};
      e.type = compared_with;
      return true;
    }
    names.push_back(v.name);
  }
  diag::Diagnostic& d =
      diags_.error(Code::UnknownEnumValue, e.range, "'" + name + "' is not a value of enum " + en->name.name);
  if (auto best = closest(name, names)) d.hints.push_back("did you mean " + *best + "?");
  d.hints.push_back(en->name.name + " values: " + join(names));
  e.type = ast::Type{};
  return true;
}

// Both operands of a comparison: an enum value's name on one side is resolved against the
// other side's type, which is checked first.
void Checker::check_comparison_operands(ExprContext& ctx, ast::Binary& b) {
  if (is_unknown_bare_name(ctx, *b.lhs) && !is_unknown_bare_name(ctx, *b.rhs)) {
    check_expr(ctx, *b.rhs);
    if (!resolve_enumerator(*b.lhs, b.rhs->type)) check_expr(ctx, *b.lhs);
    return;
  }
  check_expr(ctx, *b.lhs);
  if (is_unknown_bare_name(ctx, *b.rhs) && resolve_enumerator(*b.rhs, b.lhs->type)) return;
  check_expr(ctx, *b.rhs);
}

}  // namespace seam::check
