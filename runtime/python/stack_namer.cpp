#include "runtime/python/stack_namer.hpp"

namespace seam::runtime::python {

namespace {

// Why a walk shows fewer frames than the thread has (plan::PyStackStatus); "" when complete.
std::string status_text(plan::PyStackStatus s) {
  switch (s) {
    case plan::PyStackStatus::Complete:
      return {};
    case plan::PyStackStatus::NotRead:
      return "no Python frames: the process runs no interpreter seam reads";
    case plan::PyStackStatus::NoThread:
      return "no Python frames: the thread has no Python thread state";
    case plan::PyStackStatus::Truncated:
      return "truncated: more Python frames than the record holds";
    case plan::PyStackStatus::ReadFailed:
      return "truncated: the interpreter's frames could not be read further";
  }
  return "truncated: unknown walk status";
}

}  // namespace

std::string module_of(const std::string& file) {
  size_t slash = file.rfind('/');
  std::string base = slash == std::string::npos ? file : file.substr(slash + 1);
  if (base.size() > 3 && base.compare(base.size() - 3, 3, ".py") == 0) base.resize(base.size() - 3);
  return base;
}

PyStackNamer py_stack_namer(const std::shared_ptr<FrameNamer>& namer) {
  return [namer](uint32_t pid, std::span<const uint8_t> bytes, AlertStack& out) {
    PyStackView view;
    if (!parse_pystack(bytes, view)) {
      out.truncated = "no Python frames: the record's frames are malformed";
      return;
    }
    out.truncated = status_text(view.status);
    if (view.frames.empty()) return;
    if (!namer->knows(static_cast<pid_t>(pid))) {
      out.truncated = "no Python frames: the process's interpreter is no longer known";
      return;
    }
    for (PyFrame& f : namer->name(static_cast<pid_t>(pid), view.frames)) {
      StackFrame s;
      s.python = true;
      s.addr = f.code;
      s.symbol = std::move(f.function);
      s.offset = f.offset < 0 ? 0 : static_cast<uint64_t>(f.offset);
      s.module = module_of(f.file);
      s.file = std::move(f.file);
      s.line = f.line;
      s.entry = f.entry;
      out.frames.push_back(std::move(s));
    }
  };
}

}  // namespace seam::runtime::python
