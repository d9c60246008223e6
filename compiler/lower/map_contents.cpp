#include "compiler/lower/map_contents.hpp"

#include <map>
#include <string>

namespace seam::lower {

namespace {

// Indices into the set's own arrays (states, correlations, spans, identity tests, libraries)
// are written as what they name: another set of files numbers them differently.
class Describer {
 public:
  explicit Describer(const plan::Program& p) : p_(p) {}

  std::string value(const plan::Value& v) const {
    std::string out = "(" + std::to_string(static_cast<int>(v.kind)) + " " + std::to_string(v.index) + " " +
                      v.name + " " + std::to_string(v.int_value) + " '" + v.str_value + "' " +
                      plan::to_string(v.type) + " " + std::to_string(v.element) + " " + v.op;
    if (v.corr >= 0 && static_cast<size_t>(v.corr) < p_.correlations.size())
      out += " after " + p_.correlations[static_cast<size_t>(v.corr)].event;
    for (const plan::Value& o : v.operands) out += " " + value(o);
    return out + ")";
  }

  std::string cond(const plan::Cond& c) const {
    std::string out = "[" + std::to_string(static_cast<int>(c.op)) + (c.is_signed ? " signed " : " ") +
                      std::to_string(c.within_ns) + " " + value(c.lhs) + " " + value(c.rhs);
    if (c.op == plan::CondOp::StateHeld && c.index >= 0 && static_cast<size_t>(c.index) < p_.states.size())
      out += " state " + p_.states[static_cast<size_t>(c.index)].name;
    else if (c.op == plan::CondOp::IdentityHas && c.index >= 0 &&
             static_cast<size_t>(c.index) < p_.plan.identity_tests.size()) {
      const plan::IdentityTest& t = p_.plan.identity_tests[static_cast<size_t>(c.index)];
      out += " identity " + t.field + (t.prefix ? " prefix " : " = ") + t.value;
    } else {
      out += " " + std::to_string(c.index);
    }
    if (c.span >= 0 && static_cast<size_t>(c.span) < p_.spans.size())
      out += " span " + p_.spans[static_cast<size_t>(c.span)].name;
    for (const plan::Cond& k : c.kids) out += " " + cond(k);
    return out + "]";
  }

  std::string values(const std::vector<plan::Value>& vs) const {
    std::string out;
    for (const plan::Value& v : vs) out += value(v);
    return out;
  }

  // The probe a site is attached to, as it reads there.
  std::string site(const plan::Site& s) const {
    if (s.attachment < 0 || static_cast<size_t>(s.attachment) >= p_.plan.attachments.size()) return "?";
    const plan::Attachment& a = p_.plan.attachments[static_cast<size_t>(s.attachment)];
    std::string out = s.section + " " + s.context_type + " " + plan::to_string(a.kind) + " ";
    if (a.library >= 0 && static_cast<size_t>(a.library) < p_.plan.libraries.size())
      out += p_.plan.libraries[static_cast<size_t>(a.library)].name + ":";
    for (const std::string& sym : a.symbols) out += sym + ",";
    return out + a.category + ":" + a.name + "+" + std::to_string(a.offset);
  }

 private:
  const plan::Program& p_;
};

}  // namespace

void describe_map_contents(plan::Program& program) {
  Describer d(program);
  std::map<std::string, std::string> contents;  // map name -> what it holds
  for (const plan::Span& s : program.spans)
    contents[s.map] = "span " + s.name + (s.task_local ? " task" : "") + (s.save_ip ? " ip" : "") +
                      " thread@" + std::to_string(s.thread_slot) + (s.never ? " never" : "") + " saves " +
                      d.values(s.saves) + " begins when " + d.cond(s.begin_when);
  for (const plan::State& s : program.states)
    if (s.memory_reader < 0)  // a reader's process map is filled by its unit: never kept
      contents[s.map] = "state " + s.name + (s.per_process ? " per process" : " per thread") +
                        (s.task_local ? " task" : "");
  for (const plan::Correlation& c : program.correlations)
    contents[c.map] = "after " + c.event + (c.task_local ? " task" : "") + " saves " + d.values(c.saves);
  // Who writes and reads each: the keys and probes of every span begin and end, and of every
  // state and correlation update.
  for (const plan::Site& site : program.sites)
    for (const plan::Action& a : site.actions) {
      const std::string* map = nullptr;
      switch (a.kind) {
        case plan::ActionKind::SpanBegin:
        case plan::ActionKind::SpanEnd:
          if (a.index >= 0 && static_cast<size_t>(a.index) < program.spans.size())
            map = &program.spans[static_cast<size_t>(a.index)].map;
          break;
        case plan::ActionKind::StateSet:
        case plan::ActionKind::StateClear:
          if (a.index >= 0 && static_cast<size_t>(a.index) < program.states.size())
            map = &program.states[static_cast<size_t>(a.index)].map;
          break;
        case plan::ActionKind::CorrelationMark:
          if (a.index >= 0 && static_cast<size_t>(a.index) < program.correlations.size())
            map = &program.correlations[static_cast<size_t>(a.index)].map;
          break;
        default:
          break;
      }
      if (map && contents.count(*map))
        contents[*map] += "; " + std::to_string(static_cast<int>(a.kind)) + " at " + d.site(site) + " key " +
                          d.value(a.key);
      for (int m : a.marks)  // a span end's correlation marks
        if (m >= 0 && static_cast<size_t>(m) < program.correlations.size())
          if (auto it = contents.find(program.correlations[static_cast<size_t>(m)].map); it != contents.end())
            it->second += "; mark at " + d.site(site);
    }
  for (plan::Map& m : program.plan.maps)
    if (auto it = contents.find(m.name); it != contents.end()) m.contents = it->second;
}

}  // namespace seam::lower
