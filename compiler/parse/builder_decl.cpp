// Declarations other than rules: module, use, library, span, point, alias, state, metric, output, route.
#include "compiler/parse/builder.hpp"
#include "compiler/parse/grammar.hpp"
#include "compiler/parse/trivia.hpp"

namespace seam::parse {

namespace g = grammar;

std::string Builder::doc(const Node& decl) const {
  return doc_above(source_.text(), range(decl).begin);
}

ast::Decl Builder::declaration(const Node& n) {
  if (n.is_type<g::module_decl>()) return ast::ModuleDecl{ident(*n.children[0]), doc(n)};
  if (n.is_type<g::use_decl>()) {
    ast::UseDecl use;
    for (const auto& c : n.children) use.modules.push_back(ident(*c));
    use.range = range(n);
    return use;
  }
  if (n.is_type<g::library_decl>()) return library(n);
  if (n.is_type<g::scope_decl>()) return scope(n);
  if (n.is_type<g::span_decl>()) return event(n, true);
  if (n.is_type<g::point_decl>()) return event(n, false);
  if (n.is_type<g::alias_decl>())
    return ast::AliasDecl{ident(*n.children[0]), qualname(*n.children[1]), nullptr, module_};
  if (n.is_type<g::state_decl>()) return state(n);
  if (n.is_type<g::enum_decl>()) return enumeration(n);
  if (n.is_type<g::rule_decl>()) return rule(n);
  if (n.is_type<g::shorthand>()) return shorthand(n);
  if (n.is_type<g::metric_decl>()) return metric(n);
  if (n.is_type<g::output_decl>()) return output(n);
  if (n.is_type<g::override_decl>()) return override_rule(n);
  if (n.is_type<g::toggle_decl>()) return toggle(n);
  if (n.is_type<g::list_decl>()) return list(n);
  return route(n);
}

ast::LibraryDecl Builder::library(const Node& n) {
  ast::LibraryDecl lib;
  lib.name = ident(*n.children[0]);
  for (size_t i = 1; i < n.children.size(); ++i) {
    const Node& p = *n.children[i];
    if (p.is_type<g::kw_workload>()) {
      lib.workload = true;
      continue;
    }
    ast::LibraryPattern pattern;
    pattern.executable = p.children.size() == 2;  // `exe` and the string
    pattern.glob = string_value(*p.children.back());
    pattern.range = range(p);
    lib.patterns.push_back(std::move(pattern));
  }
  lib.doc = doc(n);
  return lib;
}

namespace {

ast::Type type_of(std::string_view name) {
  using ast::Type;
  using ast::TypeKind;
  if (name == "ptr") return Type::of(TypeKind::Ptr);
  if (name == "bool") return Type::of(TypeKind::Bool);
  if (name == "str") return Type::of(TypeKind::Str);
  if (name == "bytes") return Type::integer(64, false, ast::Unit::Bytes);
  if (name == "duration") return Type::integer(64, false, ast::Unit::Duration);
  struct IntName {
    std::string_view name;
    uint8_t bits;
    bool is_signed;
  };
  static constexpr IntName kInts[] = {{"i8", 8, true},    {"i16", 16, true}, {"i32", 32, true},
                                      {"i64", 64, true},  {"u8", 8, false},  {"u16", 16, false},
                                      {"u32", 32, false}, {"u64", 64, false}};
  for (const IntName& i : kInts)
    if (i.name == name) return Type::integer(i.bits, i.is_signed);
  return Type{};
}

}  // namespace

void Builder::fields(const Node& list, bool is_result, std::vector<ast::FieldDecl>& out) {
  int index = 0;
  for (const auto& p : list.children) {
    ast::FieldDecl f;
    f.name = ident(*p->children[0]);
    f.type.name = ident(*p->children[1]);
    f.type.type = type_of(f.type.name.name);
    for (size_t i = 2; i < p->children.size(); ++i) {
      const Node& extra = *p->children[i];
      if (extra.is_type<grammar::array_len>())
        f.type.array_len = static_cast<uint32_t>(integer(*extra.children[0]));
      else  // computed: takes no argument position
        f.computed = std::shared_ptr<ast::Expr>(expr(*extra.children[0]));
    }
    f.index = f.computed ? -1 : index++;
    f.is_result = is_result;
    out.push_back(std::move(f));
  }
}

// A comment at the end of a field's line documents the last field on that line.
void Builder::field_docs(std::vector<ast::FieldDecl>& fields) {
  std::string_view text = source_.text();
  for (size_t i = 0; i < fields.size(); ++i) {
    size_t end = fields[i].type.name.range.end;
    if (i + 1 < fields.size() && same_line(text, end, fields[i + 1].name.range.begin)) continue;
    fields[i].doc = trailing_comment(text, end);
  }
}

ast::EventDecl Builder::event(const Node& n, bool is_span) {
  ast::EventDecl ev;
  ev.is_span = is_span;
  ev.name = ident(*n.children[0]);
  ev.module = module_;
  ev.doc = doc(n);
  for (size_t i = 1; i < n.children.size(); ++i) {
    const Node& c = *n.children[i];
    if (c.is_type<g::pair>()) {
      for (const auto& side : c.children) {
        std::vector<ast::ProbeSpec>& specs = side->is_type<g::pair_begin>() ? ev.begin : ev.end;
        size_t first = specs.size();
        for (const auto& part : side->children) {  // probe { | probe } [key]: the key is every probe's
          if (!part->is_type<g::key>()) {
            specs.push_back(probe(*part, ast::ProbeKind::Uprobe));
            continue;
          }
          for (size_t i = first; i < specs.size(); ++i) specs[i].key = expr(*part->children[0]);
        }
      }
    } else if (c.is_type<g::args>()) {
      fields(c, false, ev.fields);
    } else if (c.is_type<g::results>()) {
      fields(c, true, ev.fields);
    } else {
      ev.begin.push_back(probe(c, is_span ? ast::ProbeKind::Call : ast::ProbeKind::Uprobe));
    }
  }
  field_docs(ev.fields);
  return ev;
}

ast::StateDecl Builder::state(const Node& n) {
  ast::StateDecl st;
  st.name = ident(*n.children[0]);
  st.scope = n.children[1]->is_type<g::kw_thread>() ? ast::StateScope::Thread : ast::StateScope::Process;
  for (size_t i = 2; i < n.children.size(); ++i) {
    const Node& c = *n.children[i];
    if (c.is_type<g::state_source>()) {
      st.reader = ident(*c.children[0]);
      st.reader_library = ident(*c.children[1]);
      continue;
    }
    st.transitions.push_back(transition(c));
  }
  st.doc = doc(n);
  st.module = module_;
  return st;
}

ast::EnumDecl Builder::enumeration(const Node& n) {
  ast::EnumDecl en;
  en.name = ident(*n.children[0]);
  for (size_t i = 1; i < n.children.size(); ++i) {
    const Node& v = *n.children[i];  // enum_value: symbol, enum_value_number (integer inside)
    ast::EnumValue value;
    value.name = v.children[0]->string();
    value.range = range(*v.children[0]);
    const Node& number = *v.children[1];
    uint64_t magnitude = integer(*number.children.back());
    value.value = number.string_view().front() == '-' ? -static_cast<int64_t>(magnitude)
                                                      : static_cast<int64_t>(magnitude);
    en.values.push_back(std::move(value));
  }
  en.doc = doc(n);
  en.module = module_;
  return en;
}

ast::StateTransition Builder::transition(const Node& n) {
  ast::StateTransition t;
  t.sets = n.children[0]->is_type<g::kw_set>();
  t.range = range(n);
  const Node& target = *n.children[1];
  if (target.is_type<g::qualname>()) {
    t.when = ast::StateWhen::Event;
    t.event = qualname(target);
    return t;
  }
  // on_function: entry|return, then [library] symbol
  bool entry = target.children[0]->is_type<g::kw_entry>();
  t.when = entry ? ast::StateWhen::Entry : ast::StateWhen::Return;
  t.probe.kind = entry ? ast::ProbeKind::Uprobe : ast::ProbeKind::Uretprobe;
  const Node& sym = *target.children.back();
  if (target.children.size() == 3) library_ref(*target.children[1], t.probe);
  t.probe.symbol = sym.string();
  t.probe.symbol_range = range(sym);
  t.probe.range = SourceRange::join(range(*target.children[1]), t.probe.symbol_range);
  return t;
}

ast::MetricDecl Builder::metric(const Node& n) {
  ast::MetricDecl m;
  m.name = ident(*n.children[0]);
  m.event = qualname(*n.children[1]);
  m.range = range(n);
  m.doc = doc(n);
  for (size_t i = 2; i < n.children.size(); ++i) {
    const Node& c = *n.children[i];
    bool duplicate = false;
    if (c.is_type<g::where_clause>()) {
      duplicate = m.where != nullptr;
      if (!duplicate) m.where = expr(*c.children[0]);
    } else if (c.is_type<g::while_clause>()) {
      duplicate = m.while_ != nullptr;
      if (!duplicate) m.while_ = expr(*c.children[0]);
    } else if (c.is_type<g::after_clause>()) {
      duplicate = m.after.has_value();
      if (!duplicate)
        m.after = ast::Correlation{qualname(*c.children[0]), nullptr, expr(*c.children[1]), range(c)};
    } else if (c.is_type<g::metric_count>()) {
      m.kind = ast::MetricKind::Count;
    } else if (c.is_type<g::metric_sum>() || c.is_type<g::metric_hist>()) {
      m.kind = c.is_type<g::metric_sum>() ? ast::MetricKind::Sum : ast::MetricKind::Hist;
      m.value = expr(*c.children[0]);
    } else {  // by
      for (const auto& b : c.children) m.by.push_back(ident(*b));
    }
    if (duplicate)
      diags_.error(diag::Code::DuplicateClause, range(c),
                   std::string("duplicate '") +
                       (c.is_type<g::where_clause>()   ? "where"
                        : c.is_type<g::while_clause>() ? "while"
                                                       : "after") +
                       "' clause in metric '" + m.name.name + "'; each clause may appear once");
  }
  return m;
}

ast::OutputDecl Builder::output(const Node& n) {
  ast::OutputDecl out;
  out.name = ident(*n.children[0]);
  out.range = range(n);
  const Node& target = *n.children[1];
  if (target.is_type<g::output_stdout>()) {
    out.kind = ast::OutputKind::Stdout;
    return out;
  }
  out.kind = target.is_type<g::output_json>() ? ast::OutputKind::Json : ast::OutputKind::Webhook;
  out.target = string_value(*target.children[0]);
  out.target_range = range(*target.children[0]);
  if (target.children.size() > 1) out.format = ident(*target.children[1]->children[0]);
  return out;
}

ast::RouteDecl Builder::route(const Node& n) {
  ast::RouteDecl r;
  r.condition = expr(*n.children[0]);
  for (size_t i = 1; i < n.children.size(); ++i) r.outputs.push_back(ident(*n.children[i]));
  r.range = range(n);
  return r;
}

}  // namespace seam::parse
