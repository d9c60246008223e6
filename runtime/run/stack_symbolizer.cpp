#include "runtime/run/stack_symbolizer.hpp"

#include "runtime/symbolize/symbolizer.hpp"

namespace seam::runtime {

StackSymbolizerAdapter::StackSymbolizerAdapter() : symbolizer_(std::make_shared<symbolize::Symbolizer>()) {}
StackSymbolizerAdapter::~StackSymbolizerAdapter() = default;

void StackSymbolizerAdapter::remember(pid_t pid) {
  symbolizer_->remember(pid);
}

void StackSymbolizerAdapter::forget_exited(int64_t now_ms, int64_t grace_ms) {
  for (pid_t pid : symbolizer_->forget_exited(now_ms, grace_ms)) seen_.erase(pid);
  // A pid seen but never snapshotted (gone before its maps could be read) is not kept either.
  if (seen_.size() > 2 * symbolizer_->remembered() + 1024) {
    std::erase_if(seen_, [this](pid_t pid) { return !symbolizer_->remembers(pid); });
  }
}

size_t StackSymbolizerAdapter::remembered() const {
  return symbolizer_->remembered();
}

StackSymbolizer StackSymbolizerAdapter::function() {
  std::shared_ptr<symbolize::Symbolizer> s = symbolizer_;
  return [s](uint32_t pid, std::span<const uint64_t> addrs, bool kernel) {
    std::vector<symbolize::Frame> frames =
        kernel ? s->symbolize_kernel(addrs) : s->symbolize(static_cast<pid_t>(pid), addrs);
    std::vector<StackFrame> out;
    out.reserve(frames.size());
    for (symbolize::Frame& f : frames)
      out.push_back({f.addr, std::move(f.symbol), f.offset, std::move(f.module)});
    return out;
  };
}

}  // namespace seam::runtime
