#include "runtime/run/probe_attacher.hpp"

#include "runtime/elf/elf_file.hpp"
#include "runtime/elf/resolve.hpp"
#include "runtime/elf/usdt_notes.hpp"

#include <algorithm>
#include <optional>

namespace seam::runtime {

ProbeAttacher::ProbeAttacher(const plan::Plan& plan, LoadedObject& object, NoticeFn notice)
    : plan_(plan), object_(object), notice_(std::move(notice)) {}

std::string ProbeAttacher::rules_of(const plan::Attachment& a) const {
  std::string names;
  for (uint32_t id : a.rules) {
    if (id >= plan_.rules.size()) continue;
    if (!names.empty()) names += ", ";
    names += plan_.rules[id].name;
  }
  return names;
}

void ProbeAttacher::attached(const plan::Attachment& a) {
  std::lock_guard lock(mutex_);
  ++attached_;
  live_.insert(a.program);
  for (uint32_t id : a.rules) ++per_rule_[id].attached;
}

void ProbeAttacher::report_failure(const plan::Attachment& a, const std::string& what,
                                   const std::string& error) {
  std::lock_guard lock(mutex_);
  ++failed_;
  for (uint32_t id : a.rules) ++per_rule_[id].failed;
  Notice n;
  n.severity = plan::Severity::Error;
  n.kind = notice_id(NoticeKind::ProbeFailed);
  std::string rules = rules_of(a);
  n.message = (rules.empty() ? "" : "rule " + rules + ": ") + what + " (" + a.origin + "): " + error;
  if (!a.rules.empty() && a.rules[0] < plan_.rules.size()) n.rule = plan_.rules[a.rules[0]].name;
  notice_(std::move(n));
}

size_t ProbeAttacher::attach_kernel_probes() {
  size_t count = 0;
  for (const plan::Attachment& a : plan_.attachments) {
    if (!object_.is_loaded(a.program)) continue;
    std::optional<AttachResult> r;  // set by every kernel probe kind below
    std::string what =
        std::string(plan::to_string(a.kind)) + " " + (a.category.empty() ? "" : a.category + ":") + a.name;
    switch (a.kind) {
      case plan::AttachKind::Tracepoint:
        r = object_.attach_tracepoint(a.program, a.category, a.name);
        break;
      case plan::AttachKind::RawTracepoint:
        r = object_.attach_raw_tracepoint(a.program, a.name);
        break;
      case plan::AttachKind::TpBtf:
        r = object_.attach_tp_btf(a.program);
        break;
      case plan::AttachKind::Kprobe:
      case plan::AttachKind::Kretprobe:
        r = object_.attach_kprobe(a.program, a.name, a.kind == plan::AttachKind::Kretprobe);
        break;
      case plan::AttachKind::Fentry:
      case plan::AttachKind::Fexit:
        r = object_.attach_fentry(a.program);
        break;
      case plan::AttachKind::PerfEvent:
        r = object_.attach_perf_event(a.program, static_cast<uint32_t>(a.perf_type), a.perf_config,
                                      a.perf_period, a.perf_frequency);
        break;
      default:
        continue;  // uprobes attach per library file
    }
    if (r->ok()) {
      ++count;
      attached(a);
    } else {
      report_failure(a, what, r->error());
    }
  }
  return count;
}

size_t ProbeAttacher::attach_library_file(int library, const discover::LibraryFile& file) {
  std::vector<const plan::Attachment*> mine;
  for (const plan::Attachment& a : plan_.attachments)
    if (a.library == library && object_.is_loaded(a.program) &&
        (a.kind == plan::AttachKind::Uprobe || a.kind == plan::AttachKind::Uretprobe))
      mine.push_back(&a);
  size_t count = attach_usdt_probes(library, file);
  if (mine.empty()) return report_attached(file, count, {});
  auto elf = elf::ElfFile::open(file.path_for_attach);
  if (!elf) {
    Notice n{plan::Severity::Warning,
             notice_id(NoticeKind::LibraryUnreadable),
             "cannot read " + file.display_path + ": " + elf.error(),
             {},
             0};
    notice_(std::move(n));
    return report_attached(file, count, {});
  }
  std::vector<std::string> slow;
  for (const plan::Attachment* a : mine) {
    for (const std::string& symbol : a->symbols) {
      for (const elf::SymbolHit& hit : elf::resolve(*elf, symbol)) {
        if (hit.ifunc) {  // the resolver runs once at load time; the real code is elsewhere
          report_failure(
              *a, std::string(plan::to_string(a->kind)) + " " + symbol + " in " + file.display_path,
              "it is a GNU indirect function (IFUNC); probe the implementation it selects instead");
          continue;
        }
        uint64_t offset = hit.file_offset + hit.probe_offset_delta + a->offset;
        if (!done_.insert({a->program, file.dev, file.ino, offset}).second) continue;
        bool ret = a->kind == plan::AttachKind::Uretprobe;
        AttachResult r = object_.attach_uprobe(a->program, file.path_for_attach, offset, ret);
        if (!r) {
          report_failure(*a,
                         std::string(plan::to_string(a->kind)) + " " + symbol + " in " + file.display_path,
                         r.error());
          continue;
        }
        ++count;
        attached(*a);
        if (!ret && hit.first == elf::FirstInstruction::SingleStep)
          slow.push_back(hit.names.empty() ? symbol : hit.names[0]);
      }
    }
  }
  return report_attached(file, count, slow);
}

size_t ProbeAttacher::attach_usdt_probes(int library, const discover::LibraryFile& file) {
  std::vector<const plan::Attachment*> usdt;
  for (const plan::Attachment& a : plan_.attachments)
    if (a.library == library && object_.is_loaded(a.program) && a.kind == plan::AttachKind::Usdt)
      usdt.push_back(&a);
  if (usdt.empty()) return 0;
  // Only files whose notes declare the probe: a library pattern also matches files without it.
  auto notes = elf::read_usdt_notes(file.path_for_attach);
  if (!notes) {
    notice_(Notice{plan::Severity::Warning,
                   notice_id(NoticeKind::LibraryUnreadable),
                   "cannot read the USDT notes of " + file.display_path + ": " + notes.error(),
                   {},
                   0});
    return 0;
  }
  size_t count = 0;
  for (const plan::Attachment* a : usdt) {
    bool declared = std::any_of(notes->begin(), notes->end(), [&](const elf::UsdtNote& n) {
      return n.provider == a->category && n.name == a->name;
    });
    if (!declared ||
        !done_.insert({a->program + ":" + a->category + ":" + a->name, file.dev, file.ino, 0}).second)
      continue;
    AttachResult r = object_.attach_usdt(a->program, file.path_for_attach, a->category, a->name);
    if (!r) {
      report_failure(*a, "usdt " + a->category + ":" + a->name + " in " + file.display_path, r.error());
      continue;
    }
    ++count;
    attached(*a);
  }
  return count;
}

size_t ProbeAttacher::report_attached(const discover::LibraryFile& file, size_t count,
                                      const std::vector<std::string>& slow) {
  if (count == 0) return 0;  // e.g. an interpreter binary that links its runtime dynamically
  files_.insert({file.dev, file.ino});
  std::string pids;
  for (size_t i = 0; i < file.pids.size() && i < 5; ++i)
    pids += (i ? "," : " pid ") + std::to_string(file.pids[i]);
  notice_(Notice{
      plan::Severity::Info,
      notice_id(NoticeKind::Attached),
      std::to_string(count) + " probes on " + file.display_path +
          (file.path_for_attach != file.display_path ? " (via " + file.path_for_attach + ")" : "") + pids,
      {},
      count});
  for (const std::string& s : slow)
    notice_(Notice{
        plan::Severity::Warning,
        notice_id(NoticeKind::SlowProbe),
        "uprobe on " + s + " in " + file.display_path +
            " is single-stepped by the kernel (its first instruction cannot be emulated): about 20 us a hit",
        {},
        0});
  return count;
}

}  // namespace seam::runtime
