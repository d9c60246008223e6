#include "cli/dry_run.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <ostream>
#include <set>

#include "runtime/discover/find_libraries.hpp"
#include "runtime/discover/scan_round.hpp"
#include "runtime/load/tracefs.hpp"

namespace seam::cli {

namespace {

std::string probe_name(const plan::Plan& plan, const plan::Attachment& a) {
  std::string kind = plan::to_string(a.kind);
  switch (a.kind) {
    case plan::AttachKind::Uprobe:
    case plan::AttachKind::Uretprobe: {
      std::string lib = a.library >= 0 ? plan.libraries[a.library].name : "?";
      std::string symbols;
      for (const std::string& s : a.symbols) symbols += (symbols.empty() ? "" : " | ") + s;
      return kind + " " + lib + ":" + symbols;
    }
    case plan::AttachKind::Usdt:
    case plan::AttachKind::Tracepoint:
      return kind + " " + a.category + ":" + a.name;
    default:
      return kind + " " + a.name;
  }
}

std::string pids_text(const std::vector<pid_t>& pids) {
  if (pids.empty()) return "on the system's library paths";
  std::string out = pids.size() == 1 ? "pid " : "pids ";
  for (size_t i = 0; i < pids.size() && i < 8; ++i) out += (i ? ", " : "") + std::to_string(pids[i]);
  if (pids.size() > 8) out += " and " + std::to_string(pids.size() - 8) + " more";
  return out;
}

class Checker {
 public:
  Checker(const plan::Plan& plan, const runtime::FeatureSet& features, int pid)
      : plan_(plan), features_(features), pid_(pid) {}

  ProbeStatus status(const plan::Attachment& a) {
    ProbeStatus s;
    s.what = probe_name(plan_, a);
    if (!features_.available(a.feature)) {
      s.unavailable = features_.reason(a.feature);
      if (s.unavailable.empty())
        s.unavailable = std::string(plan::to_string(a.feature)) + " is not available here";
      return s;
    }
    if (a.kind == plan::AttachKind::Tracepoint) {
      auto root = runtime::ensure_tracefs();
      struct stat st {};
      if (!root)
        s.unavailable = "no tracefs: " + root.error();
      else if (::stat((*root + "/events/" + a.category + "/" + a.name).c_str(), &st) != 0)
        s.unavailable = "this kernel has no tracepoint " + a.category + ":" + a.name;
      return s;
    }
    if ((a.kind == plan::AttachKind::Uprobe || a.kind == plan::AttachKind::Uretprobe ||
         a.kind == plan::AttachKind::Usdt) &&
        a.library >= 0) {
      const plan::Library& lib = plan_.libraries[a.library];
      if (!lib.path.empty()) {
        struct stat st {};
        if (::stat(lib.path.c_str(), &st) != 0)
          s.unavailable = "no file " + lib.path;
        else
          s.files.push_back(lib.path);
        return s;
      }
      for (const runtime::discover::LibraryFile& f : files(a.library))
        s.files.push_back(f.display_path + " (" + pids_text(f.pids) + ")");
      if (s.files.empty()) {
        std::string globs;
        for (const plan::LibraryPattern& p : lib.patterns) globs += (globs.empty() ? "" : " | ") + p.glob;
        s.waits = true;
        s.unavailable =
            "no " + std::string(pid_ > 0 ? "file of pid " + std::to_string(pid_) : "running process's file") +
            " matches " + globs + " (attached when a process maps one)";
      }
    }
    return s;
  }

 private:
  const std::vector<runtime::discover::LibraryFile>& files(int library) {
    auto it = found_.find(library);
    if (it != found_.end()) return it->second;
    runtime::discover::Scope scope;
    if (pid_ > 0) scope.pid = pid_;
    return found_[library] = runtime::discover::find_libraries(plan_.libraries[library].patterns, scope);
  }

  const plan::Plan& plan_;
  const runtime::FeatureSet& features_;
  int pid_;
  std::map<int, std::vector<runtime::discover::LibraryFile>> found_;
};

}  // namespace

std::vector<RuleStatus> dry_run(const plan::Plan& plan, const runtime::FeatureSet& features, int pid) {
  // Each library's search walks /proc and the system's library folders: one listing of each, and
  // one read of each process's maps, serve all of them (the default pack's five libraries read
  // every maps file five times before the round).
  runtime::discover::ScanRound round;
  Checker checker(plan, features, pid);
  std::vector<ProbeStatus> by_attachment;
  for (const plan::Attachment& a : plan.attachments) by_attachment.push_back(checker.status(a));
  std::vector<RuleStatus> out;
  for (const plan::Rule& r : plan.rules) {
    RuleStatus s;
    s.rule = r.name;
    s.origin = r.file + ":" + std::to_string(r.line);
    s.event = r.event;
    for (size_t i = 0; i < plan.attachments.size(); ++i) {
      const plan::Attachment& a = plan.attachments[i];
      if (a.is_fallback || std::find(a.rules.begin(), a.rules.end(), r.id) == a.rules.end()) continue;
      s.probes.push_back(by_attachment[i]);
      s.attaches_now = s.attaches_now || by_attachment[i].unavailable.empty();
    }
    // A windowed rule is evaluated in user space over its metric, whose probes no rule claims.
    if (r.windowed) {
      for (const plan::Window& w : plan.windows)
        if (w.rule_id == r.id)
          s.probes.push_back(ProbeStatus{"metric " + w.metric + " (evaluated in user space)", {}, "", false});
      s.attaches_now = true;
    }
    out.push_back(std::move(s));
  }
  return out;
}

void print_dry_run(const std::vector<RuleStatus>& rules, const std::vector<check::TunedRule>& tuned,
                   std::ostream& out) {
  for (const RuleStatus& r : rules) {
    out << "rule " << r.rule << " (" << r.origin << ")";
    if (!r.event.empty()) out << " on " << r.event;
    out << (r.attaches_now ? "" : ": attaches nothing now") << "\n";
    for (const ProbeStatus& p : r.probes) {
      out << "    " << p.what;
      if (!p.unavailable.empty()) out << ": " << (p.waits ? "waiting: " : "unavailable: ") << p.unavailable;
      out << "\n";
      for (const std::string& f : p.files) out << "        " << f << "\n";
    }
  }
  for (const check::TunedRule& t : tuned)
    if (t.disabled)
      out << "rule " << t.rule << " (" << t.declared_at << "): disabled by " << t.disabled_by << "\n";
}

}  // namespace seam::cli
