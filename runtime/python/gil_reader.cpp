#include "runtime/python/gil_reader.hpp"

#include <bpf/bpf.h>

#include "runtime/python/process_layout.hpp"

namespace seam::runtime::python {

void GilReader::forget(pid_t pid) {
  if (!known_.erase(pid)) return;
  if (namer_) namer_->forget_process(pid);
  uint32_t key = static_cast<uint32_t>(pid);
  bpf_map_delete_elem(map_fd_, &key);
}

void GilReader::on_process(pid_t pid, const std::vector<discover::LibraryFile>& files) {
  std::string before = known_.count(pid) ? known_[pid] : std::string();
  forget(pid);  // an exec replaced what the map said about this pid
  if (files.empty()) return;
  auto unreadable = [&](const std::string& what) {
    if (!warned_.insert({pid, what}).second) return;  // a process scanned twice after its exec
    notice_(Notice{plan::Severity::Warning,
                   notice_id(NoticeKind::InterpreterUnsupported),
                   reader_.state + " (" + reader_.origin + "): pid " + std::to_string(pid) + " " + what +
                       ": " + consequence(),
                   {},
                   0});
  };
  elf::Result<ProcessLayout> found = process_layout(pid, files);
  if (!found) return unreadable(found.error());
  const Interpreter& in = found->interpreter;
  const FrameLayout& frames = found->frames;
  plan::CpythonProcess value = process_value(found->gil, in.runtime);
  add_frames(value, frames);
  uint32_t key = static_cast<uint32_t>(pid);
  if (bpf_map_update_elem(map_fd_, &key, &value, BPF_ANY) != 0)
    return unreadable("runs " + version_name(in) + " (" + in.path + "), but the map " + reader_.map +
                      " is full");
  known_[pid] = in.path + "@" + std::to_string(in.runtime);
  if (namer_) namer_->add_process(pid, frames);
  if (known_[pid] == before) return;  // the same interpreter, seen again
  notice_(Notice{plan::Severity::Info,
                 notice_id(NoticeKind::Interpreter),
                 reader_.state + ": reading " + (frames_only() ? "the Python frames" : "the GIL") + " of " +
                     version_name(in) + " (" + in.path + ") in pid " + std::to_string(pid) + " from memory",
                 {},
                 0});
}

}  // namespace seam::runtime::python
