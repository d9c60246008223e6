#pragma once
// Connects the output pipeline's StackSymbolizer to runtime/symbolize: user stacks from the
// process's remembered maps (so a process that has exited still gets names), kernel stacks
// from kallsyms.
#include <memory>

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
  StackSymbolizer function();

 private:
  std::shared_ptr<symbolize::Symbolizer> symbolizer_;
};

}  // namespace seam::runtime
