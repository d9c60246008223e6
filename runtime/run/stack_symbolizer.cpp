#include "runtime/run/stack_symbolizer.hpp"

#include "runtime/symbolize/symbolizer.hpp"
#include "runtime/unwind/dwarf_unwinder.hpp"

namespace seam::runtime {

namespace {

StackFrame to_stack_frame(symbolize::Frame& f) {
  return {f.addr, std::move(f.symbol), f.offset, std::move(f.module)};
}

}  // namespace

StackSymbolizerAdapter::StackSymbolizerAdapter()
    : symbolizer_(std::make_shared<symbolize::Symbolizer>()),
      unwinder_(std::make_shared<unwind::DwarfUnwinder>()) {}
StackSymbolizerAdapter::~StackSymbolizerAdapter() = default;

void StackSymbolizerAdapter::remember(pid_t pid) {
  symbolizer_->remember(pid);
  unwinder_->remember(pid);
}

void StackSymbolizerAdapter::forget_exited(int64_t now_ms, int64_t grace_ms) {
  for (pid_t pid : symbolizer_->forget_exited(now_ms, grace_ms)) {
    seen_.erase(pid);
    unwinder_->forget(pid);
  }
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
  std::shared_ptr<unwind::DwarfUnwinder> u = unwinder_;
  return [s, u](uint32_t pid, std::span<const uint64_t> addrs, bool kernel) {
    if (!kernel) {
      size_t code = 0;
      while (code < addrs.size() && u->is_code(static_cast<pid_t>(pid), addrs[code])) ++code;
      if (code > 0 || addrs.empty()) addrs = addrs.first(code);  // no maps at all: name what there is
    }
    std::vector<symbolize::Frame> frames =
        kernel ? s->symbolize_kernel(addrs) : s->symbolize(static_cast<pid_t>(pid), addrs);
    std::vector<StackFrame> out;
    out.reserve(frames.size());
    for (symbolize::Frame& f : frames) out.push_back(to_stack_frame(f));
    return out;
  };
}

StackUnwinder StackSymbolizerAdapter::unwinder() {
  std::shared_ptr<symbolize::Symbolizer> s = symbolizer_;
  std::shared_ptr<unwind::DwarfUnwinder> u = unwinder_;
  return [s, u](uint32_t pid, uint32_t tid, const StackCopyView& copy, AlertStack& out) {
    using plan::StackCopyReg;
    auto reg = [&](StackCopyReg r) { return copy.regs[static_cast<size_t>(r)]; };
    unwind::StackSnapshot snapshot;
    snapshot.regs = {reg(StackCopyReg::Ip),  reg(StackCopyReg::Sp),  reg(StackCopyReg::Bp),
                     reg(StackCopyReg::Bx),  reg(StackCopyReg::R12), reg(StackCopyReg::R13),
                     reg(StackCopyReg::R14), reg(StackCopyReg::R15)};
    snapshot.stack = copy.stack;
    snapshot.ip_is_return = copy.frame0 != 0;  // the registers of the probed function's return
    std::optional<unwind::Unwound> unwound =
        u->unwind(static_cast<pid_t>(pid), static_cast<pid_t>(tid), snapshot);
    if (!unwound || unwound->frames.empty()) return false;
    // Return addresses are named by the call before them (the next function may start there).
    std::vector<uint64_t> lookup;
    lookup.reserve(unwound->frames.size() + 1);
    if (copy.frame0) lookup.push_back(copy.frame0);
    for (const unwind::UnwoundFrame& f : unwound->frames) lookup.push_back(f.is_return ? f.pc - 1 : f.pc);
    std::vector<symbolize::Frame> named = s->symbolize(static_cast<pid_t>(pid), lookup);
    out.frames.clear();
    out.frames.reserve(named.size());
    for (size_t i = 0; i < named.size(); ++i) {
      StackFrame frame = to_stack_frame(named[i]);
      size_t k = i - (copy.frame0 ? 1 : 0);
      if (i >= (copy.frame0 ? 1u : 0u) && unwound->frames[k].is_return) {
        frame.addr = unwound->frames[k].pc;
        frame.offset += 1;
      }
      out.frames.push_back(std::move(frame));
    }
    out.truncated = std::move(unwound->truncated);
    return true;
  };
}

}  // namespace seam::runtime
