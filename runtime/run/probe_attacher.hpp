#pragma once
// Attaches a loaded plan's programs: kernel probes once, and uprobes per library file as the
// library finder reports files (an inode-wide uprobe covers every process that maps the file,
// present and future). Every failure becomes a notice naming the rule, probe and reason.
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "compiler/plan/plan.hpp"
#include "runtime/discover/library_file.hpp"
#include "runtime/load/loaded_object.hpp"
#include "runtime/output/alert.hpp"

namespace seam::runtime {

using NoticeFn = std::function<void(Notice)>;

class ProbeAttacher {
 public:
  ProbeAttacher(const plan::Plan& plan, LoadedObject& object, NoticeFn notice);

  // Tracepoints, raw tracepoints, kprobes, fentry, perf events; returns how many attached.
  size_t attach_kernel_probes();
  // Every uprobe program of `library` on `file`; returns how many probes attached.
  size_t attach_library_file(int library, const discover::LibraryFile& file);

  size_t attached() const { return attached_; }
  size_t failed() const { return failed_; }
  // Library files (inodes) with at least one probe attached.
  size_t library_files() const { return files_.size(); }
  struct RuleProbes {
    size_t attached = 0, failed = 0;
  };
  // Probes attached and failed for the rule (a probe shared by rules counts for each).
  RuleProbes of_rule(uint32_t rule_id) const {
    auto it = per_rule_.find(rule_id);
    return it == per_rule_.end() ? RuleProbes{} : it->second;
  }
  // Plan attachments that have at least one live probe (by program name).
  bool is_attached(const std::string& program) const { return live_.count(program) != 0; }

 private:
  std::string rules_of(const plan::Attachment& a) const;
  void attached(const plan::Attachment& a);
  void report_failure(const plan::Attachment& a, const std::string& what, const std::string& error);
  size_t attach_usdt_probes(int library, const discover::LibraryFile& file);
  // The "attached" notice for `count` probes on `file` (none when 0), and slow-probe warnings.
  size_t report_attached(const discover::LibraryFile& file, size_t count,
                         const std::vector<std::string>& slow);

  const plan::Plan& plan_;
  LoadedObject& object_;
  NoticeFn notice_;
  // attach_kernel_probes() may run on a thread of its own beside attach_library_file() (a rule
  // unit's start): the counts both keep. The readers below are called once both are done.
  std::mutex mutex_;
  size_t attached_ = 0, failed_ = 0;
  std::set<std::string> live_;
  std::set<std::pair<dev_t, ino_t>> files_;
  std::map<uint32_t, RuleProbes> per_rule_;
  // (program, dev, ino, offset): attach an address once however many names reach it.
  std::set<std::tuple<std::string, dev_t, ino_t, uint64_t>> done_;
};

}  // namespace seam::runtime
