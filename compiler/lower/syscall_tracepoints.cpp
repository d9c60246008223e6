#include "compiler/lower/syscall_tracepoints.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace seam::lower {

namespace {

bool is_tracepoint(const ast::ProbeSpec& p, const char* name) {
  return p.kind == ast::ProbeKind::Tracepoint && p.category == "raw_syscalls" && p.name == name && !p.key;
}

const ast::FieldDecl* id_field(const ast::EventDecl& event) {
  for (const ast::FieldDecl& f : event.fields)
    if (f.name.name == "id" && !f.is_result && !f.computed) return &f;
  return nullptr;
}

bool is_id(const ast::Expr& e, const ast::FieldDecl* id) {
  const auto* ref = std::get_if<ast::NameRef>(&e.node);
  return ref && ref->kind == ast::RefKind::EventField && ref->field == id && ref->index < 0;
}

// The numbers `e` limits `id` to: `id == N` (either way round) or an `or` of such tests (what
// `id in (...)` is parsed into); nullopt for anything else.
std::optional<std::set<int64_t>> id_values(const ast::Expr& e, const ast::FieldDecl* id) {
  const auto* b = std::get_if<ast::Binary>(&e.node);
  if (!b || !b->lhs || !b->rhs) return std::nullopt;
  if (b->op == ast::BinaryOp::Or) {
    std::optional<std::set<int64_t>> l = id_values(*b->lhs, id), r = id_values(*b->rhs, id);
    if (!l || !r) return std::nullopt;
    l->insert(r->begin(), r->end());
    return l;
  }
  if (b->op != ast::BinaryOp::Eq) return std::nullopt;
  const ast::Expr* other = is_id(*b->lhs, id) ? b->rhs.get() : is_id(*b->rhs, id) ? b->lhs.get() : nullptr;
  const auto* lit = other ? std::get_if<ast::IntLit>(&other->node) : nullptr;
  if (!lit) return std::nullopt;
  return std::set<int64_t>{lit->value};
}

void conjuncts(const ast::Expr& e, std::vector<const ast::Expr*>& out) {
  const auto* b = std::get_if<ast::Binary>(&e.node);
  if (b && b->op == ast::BinaryOp::And && b->lhs && b->rhs) {
    conjuncts(*b->lhs, out);
    conjuncts(*b->rhs, out);
    return;
  }
  out.push_back(&e);
}

const ast::EnumDecl* find_enum(const std::vector<const ast::File*>& modules, const std::string& name) {
  for (const ast::File* file : modules)
    for (const ast::Decl& d : file->decls)
      if (const auto* en = std::get_if<ast::EnumDecl>(&d); en && en->name.name == name) return en;
  return nullptr;
}

}  // namespace

bool reads_raw_syscalls(const ast::EventDecl& event) {
  if (event.begin.empty() || !id_field(event)) return false;
  for (const ast::ProbeSpec& p : event.begin)
    if (!is_tracepoint(p, "sys_enter")) return false;
  if (event.is_span && event.end.empty()) return false;
  for (const ast::ProbeSpec& p : event.end)
    if (!is_tracepoint(p, "sys_exit")) return false;
  for (const ast::FieldDecl& f : event.fields) {
    if (f.computed) continue;
    const std::string& n = f.name.name;
    if (f.is_result ? n != "ret" : n != "id" && n != "args") return false;
  }
  return true;
}

std::vector<std::string> named_syscalls(const ast::EventDecl& event, const ast::Expr* where,
                                        const std::vector<const ast::File*>& modules) {
  const ast::FieldDecl* id = id_field(event);
  if (!where || !id || !reads_raw_syscalls(event)) return {};
  std::optional<std::set<int64_t>> limit;  // every conjunct that names syscalls limits it further
  std::vector<const ast::Expr*> parts;
  conjuncts(*where, parts);
  for (const ast::Expr* part : parts) {
    std::optional<std::set<int64_t>> values = id_values(*part, id);
    if (!values) continue;
    if (!limit) {
      limit = std::move(values);
      continue;
    }
    std::erase_if(*limit, [&](int64_t v) { return !values->count(v); });
  }
  if (!limit || limit->empty() || limit->size() > kMaxSyscallTracepoints) return {};
  const ast::EnumDecl* names = find_enum(modules, id->type.type.enum_name);
  if (!names) return {};
  std::vector<std::string> out;
  for (int64_t nr : *limit) {
    auto named = std::find_if(names->values.begin(), names->values.end(),
                              [&](const ast::EnumValue& v) { return v.value == nr; });
    if (named == names->values.end()) return {};  // a number with no name has no tracepoint to name
    out.push_back(named->name);
  }
  return out;
}

}  // namespace seam::lower
