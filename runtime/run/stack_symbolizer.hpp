#pragma once
// Connects the output pipeline's StackSymbolizer to runtime/symbolize: user stacks from the
// process's remembered maps (so a process that has exited still gets names), kernel stacks
// from kallsyms. And its StackUnwinder to runtime/unwind: user stacks from a record's stack
// copy, unwound with call-frame information, then named by the same symbolizer.
#include <sys/types.h>

#include <memory>
#include <unordered_set>

#include "runtime/output/alert.hpp"

namespace seam::runtime {

namespace symbolize {
class Symbolizer;
}
namespace unwind {
class DwarfUnwinder;
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
  // Frame-pointer stacks: one frame per address, up to the first that is not in mapped code
  // (a stack address, where the chain of frame pointers broke), which ends the stack.
  StackSymbolizer function();
  // Forgets processes that exited more than `grace_ms` ago (call about once a second).
  void forget_exited(int64_t now_ms, int64_t grace_ms);
  size_t remembered() const;
  StackUnwinder unwinder();

 private:
  std::shared_ptr<symbolize::Symbolizer> symbolizer_;
  std::shared_ptr<unwind::DwarfUnwinder> unwinder_;
  std::unordered_set<pid_t> seen_;
};

}  // namespace seam::runtime
