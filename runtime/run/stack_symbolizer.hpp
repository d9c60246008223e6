#pragma once
// Connects the output pipeline's StackSymbolizer to runtime/symbolize: user stacks from the
// process's remembered maps (so a process that has exited still gets names), kernel stacks
// from kallsyms.
#include <sys/types.h>

#include <memory>
#include <unordered_set>

#include "runtime/output/alert.hpp"

namespace seam::runtime {

namespace symbolize {
class Symbolizer;
}

class StackSymbolizerAdapter {
 public:
  StackSymbolizerAdapter();
  ~StackSymbolizerAdapter();
  // Snapshot a process's mappings now, while it is alive.
  void remember(pid_t pid);
  // remember() the first time a pid is seen here: the reader calls it for every record, so a
  // process that maps an already-known library, then exits at once, still gets names.
  void remember_once(pid_t pid) {
    if (seen_.insert(pid).second) remember(pid);
  }
  StackSymbolizer function();
  // Forgets processes that exited more than `grace_ms` ago (call about once a second).
  void forget_exited(int64_t now_ms, int64_t grace_ms);
  size_t remembered() const;

 private:
  std::shared_ptr<symbolize::Symbolizer> symbolizer_;
  std::unordered_set<pid_t> seen_;
};

}  // namespace seam::runtime
