#include "cli/stdlib_doc.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "compiler/check/check.hpp"
#include "compiler/diag/render.hpp"

namespace seam::cli {

namespace {

// A doc comment as markdown: comment lines joined into one paragraph, blank lines kept.
std::string paragraph(const std::string& doc) {
  std::string out;
  std::istringstream lines(doc);
  std::string line;
  bool start = true;
  while (std::getline(lines, line)) {
    size_t b = line.find_first_not_of(" \t");
    if (b == std::string::npos) {
      if (!out.empty() && out.back() != '\n') out += "\n\n";
      start = true;
      continue;
    }
    out += (start ? "" : " ") + line.substr(b);
    start = false;
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::string library_ref(const ast::ProbeSpec& p) {
  return p.library_is_path ? "\"" + p.library.name + "\"" : p.library.name;
}

std::string probe_text(const ast::ProbeSpec& p) {
  std::string off = p.offset ? "+" + std::to_string(p.offset) : "";
  switch (p.kind) {
    case ast::ProbeKind::Call:
      return library_ref(p) + ":" + p.symbol + off;
    case ast::ProbeKind::Uprobe:
      return "uprobe " + library_ref(p) + ":" + p.symbol + off;
    case ast::ProbeKind::Uretprobe:
      return "uretprobe " + library_ref(p) + ":" + p.symbol;
    case ast::ProbeKind::Usdt:
      return "usdt " + library_ref(p) + ":" + p.category + ":" + p.name;
    case ast::ProbeKind::Tracepoint:
      return "tracepoint " + p.category + ":" + p.name;
    case ast::ProbeKind::RawTracepoint:
      return "raw_tracepoint " + p.symbol;
    case ast::ProbeKind::Kprobe:
      return "kprobe " + p.symbol + off;
    case ast::ProbeKind::Kretprobe:
      return "kretprobe " + p.symbol;
    case ast::ProbeKind::Fentry:
      return "fentry " + p.symbol;
    case ast::ProbeKind::Fexit:
      return "fexit " + p.symbol;
    case ast::ProbeKind::Perf:
      return "perf " + p.symbol +
             (p.frequency ? " at " + std::to_string(p.frequency) + " hz"
                          : " every " + std::to_string(p.period));
    case ast::ProbeKind::Interval:
      return "interval " + std::to_string(p.interval_ns) + "ns";
  }
  return "?";
}

std::string with_key(const ast::ProbeSpec& p) {
  std::string text = "`" + probe_text(p) + "`";
  if (p.key) text += " key `" + std::string(p.key->range.text()) + "`";
  return text;
}

std::string probes(const ast::EventDecl& e) {
  std::string out;
  for (size_t i = 0; i < e.begin.size(); ++i) out += (i ? " or " : "") + with_key(e.begin[i]);
  if (!e.end.empty()) {
    out += " .. ";
    for (size_t i = 0; i < e.end.size(); ++i) out += (i ? " or " : "") + with_key(e.end[i]);
  }
  return out;
}

std::string unit_of(const ast::TypeName& t) {
  if (t.type.unit == ast::Unit::Bytes) return "bytes";
  if (t.type.unit == ast::Unit::Duration) return "ns";
  return "";
}

// Pipes would end a table cell.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

// "result: 0 or an error" for a result, the doc comment alone for an argument.
std::string field_note(const ast::FieldDecl& f) {
  std::string doc = paragraph(f.doc);
  if (f.computed) doc = "`= " + std::string(f.computed->range.text()) + "`" + (doc.empty() ? "" : ": " + doc);
  if (!f.is_result) return doc;
  return doc.empty() ? "result" : "result: " + doc;
}

void event_section(std::ostringstream& out, const std::string& module, const ast::EventDecl& e,
                   const std::vector<std::string>& aliases) {
  out << "### " << module << "." << e.name.name << " (" << (e.is_span ? "span" : "point") << ")\n\n";
  if (!e.doc.empty()) out << paragraph(e.doc) << "\n\n";
  out << "Probes: " << probes(e) << "\n\n";
  if (!aliases.empty()) {
    out << "Aliases:";
    for (const std::string& a : aliases) out << " `" << module << "." << a << "`";
    out << "\n\n";
  }
  out << "| field | type | unit | |\n|---|---|---|---|\n";
  for (const ast::FieldDecl& f : e.fields)
    out << "| `" << f.name.name << "` | " << f.type.name.name
        << (f.type.array_len ? "[" + std::to_string(f.type.array_len) + "]" : "") << " | " << unit_of(f.type)
        << " | " << cell(field_note(f)) << " |\n";
  if (e.is_span) out << "| `duration` | duration | ns | end minus begin |\n";
  out << "\n";
}

std::string transition_text(const ast::StateTransition& t) {
  std::string what = t.sets ? "set" : "clear";
  if (t.when == ast::StateWhen::Event) return what + " on " + t.event.str();
  std::string fn =
      t.probe.library.name.empty() ? t.probe.symbol : library_ref(t.probe) + ":" + t.probe.symbol;
  return what + " on " + (t.when == ast::StateWhen::Entry ? "entry" : "return") + " of " + fn;
}

}  // namespace

std::string stdlib_markdown(const std::vector<const ast::File*>& files) {
  std::vector<const ast::File*> modules;
  for (const ast::File* f : files)
    if (f->module()) modules.push_back(f);
  std::sort(modules.begin(), modules.end(), [](const ast::File* a, const ast::File* b) {
    return a->module()->name.name < b->module()->name.name;
  });
  std::ostringstream out;
  out << "# The seam standard library\n\n"
      << "Generated by `seam stdlib doc` from `stdlib/*.seam`: edit the modules' comments, then run\n"
      << "`seam stdlib doc > docs/stdlib.md` (a unit test fails when this file is stale).\n\n"
      << "Fields are read where the probe fires: arguments at a call's entry (or a pair's begin),\n"
      << "results at its return (or a pair's end). `bytes` are byte counts and `duration` is in\n"
      << "nanoseconds; every span also has `duration`, and every event the builtins `pid`, `tid`,\n"
      << "`comm`, `cgroup`, `uid`, `cpu` and `time`.\n\n";
  for (const ast::File* m : modules)
    out << "- [" << m->module()->name.name << "](#" << m->module()->name.name << ")\n";
  out << "\n";
  for (const ast::File* m : modules) {
    const std::string& name = m->module()->name.name;
    out << "## " << name << "\n\n";
    if (!m->module()->doc.empty()) out << paragraph(m->module()->doc) << "\n\n";
    std::map<std::string, std::vector<std::string>> aliases;  // target -> alias names
    for (const ast::Decl& d : m->decls)
      if (const auto* a = std::get_if<ast::AliasDecl>(&d)) aliases[a->target.str()].push_back(a->name.name);
    for (const ast::Decl& d : m->decls) {
      if (const auto* lib = std::get_if<ast::LibraryDecl>(&d)) {
        out << "Library `" << lib->name.name << "`:";
        for (size_t i = 0; i < lib->patterns.size(); ++i)
          out << (i ? " or" : "") << (lib->patterns[i].executable ? " the executable" : "") << " `"
              << lib->patterns[i].glob << "`";
        out << (lib->doc.empty() ? "" : ". " + paragraph(lib->doc)) << "\n\n";
      } else if (const auto* e = std::get_if<ast::EventDecl>(&d)) {
        event_section(out, name, *e, aliases[e->name.name]);
      } else if (const auto* s = std::get_if<ast::StateDecl>(&d)) {
        out << "### " << name << "." << s->name.name << " (state per "
            << (s->scope == ast::StateScope::Thread ? "thread" : "process") << ")\n\n";
        if (!s->doc.empty()) out << paragraph(s->doc) << "\n\n";
        if (!s->reader.name.empty())
          out << "- read from memory: " << s->reader.name << " of " << s->reader_library.name << "\n";
        for (const ast::StateTransition& t : s->transitions) out << "- " << transition_text(t) << "\n";
        out << "\n";
      } else if (const auto* en = std::get_if<ast::EnumDecl>(&d)) {
        out << "### " << name << "." << en->name.name << " (enum)\n\n";
        if (!en->doc.empty()) out << paragraph(en->doc) << "\n\n";
        out << "Values:";
        for (size_t i = 0; i < en->values.size(); ++i)
          out << (i ? ", `" : " `") << en->values[i].name << "` " << en->values[i].value;
        out << "\n\n";
      }
    }
  }
  std::string text = out.str();
  while (text.size() > 1 && text[text.size() - 1] == '\n' && text[text.size() - 2] == '\n') text.pop_back();
  return text;
}

Result<std::string> stdlib_markdown_from(const std::vector<std::string>& dirs) {
  check::LoadOptions load;
  load.stdlib_dirs = dirs.empty() ? check::default_stdlib_dirs() : dirs;
  check::Program program = check::load({}, load);
  check::check(program);
  if (program.diagnostics.has_errors()) return Error{diag::render_text(program.diagnostics, false)};
  std::vector<const ast::File*> modules;
  for (const ast::File& f : program.modules) modules.push_back(&f);
  return stdlib_markdown(modules);
}

}  // namespace seam::cli
