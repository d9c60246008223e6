#include "runtime/run/stack_symbolizer.hpp"

#include "runtime/symbolize/symbolizer.hpp"

namespace seam::runtime {

StackSymbolizerAdapter::StackSymbolizerAdapter() : symbolizer_(std::make_shared<symbolize::Symbolizer>()) {}
StackSymbolizerAdapter::~StackSymbolizerAdapter() = default;

void StackSymbolizerAdapter::remember(pid_t pid) { symbolizer_->remember(pid); }

StackSymbolizer StackSymbolizerAdapter::function() {
  std::shared_ptr<symbolize::Symbolizer> s = symbolizer_;
  return [s](uint32_t pid, std::span<const uint64_t> addrs, bool kernel) {
    std::vector<symbolize::Frame> frames =
        kernel ? s->symbolize_kernel(addrs) : s->symbolize(static_cast<pid_t>(pid), addrs);
    std::vector<StackFrame> out;
    out.reserve(frames.size());
    for (symbolize::Frame& f : frames) out.push_back({f.addr, std::move(f.symbol), f.offset, std::move(f.module)});
    return out;
  };
}

}  // namespace seam::runtime
