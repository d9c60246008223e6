#include "runtime/python/gil_reader.hpp"

#include <bpf/bpf.h>

#include <array>

#include "runtime/python/cpython_layout.hpp"
#include "runtime/python/frame_layout.hpp"
#include "runtime/python/interpreter_finder.hpp"
#include "runtime/python/process_memory.hpp"

namespace seam::runtime::python {

namespace {

std::string version_name(const Interpreter& in) {
  return in.major ? "CPython " + std::to_string(in.major) + "." + std::to_string(in.minor)
                  : "CPython (version unknown)";
}

}  // namespace

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
  elf::Result<Interpreter> found = find_interpreter(pid, files);
  if (!found) return unreadable("runs no interpreter seam can read (" + found.error() + ")");
  const Interpreter& in = *found;
  std::optional<GilLayout> layout;
  std::optional<FrameLayout> frames;
  std::string why;
  if (in.major == 3 && in.minor >= 13) {
    std::array<uint8_t, kDebugOffsetsFrameBytes> bytes{};
    if (!read_process_memory(pid, in.runtime, bytes))
      why = "its memory cannot be read";
    else if ((layout = debug_offsets_layout(bytes, &why)))
      frames = debug_offsets_frame_layout(bytes, &why);
  } else if (in.major == 3) {
    layout = table_layout(in.minor);
    frames = frame_table_layout(in.minor);
    if (!layout || !frames) why = "seam reads CPython 3.8 to 3.13";
  } else {
    why = "its version cannot be told (no Py_Version, and the file's name says none)";
  }
  if (!layout || !frames)
    return unreadable("runs " + version_name(in) + " (" + in.path + "), which seam cannot read: " + why);
  plan::CpythonProcess value = process_value(*layout, in.runtime);
  add_frames(value, *frames);
  uint32_t key = static_cast<uint32_t>(pid);
  if (bpf_map_update_elem(map_fd_, &key, &value, BPF_ANY) != 0)
    return unreadable("runs " + version_name(in) + " (" + in.path + "), but the map " + reader_.map +
                      " is full");
  known_[pid] = in.path + "@" + std::to_string(in.runtime);
  if (namer_) namer_->add_process(pid, *frames);
  if (known_[pid] == before) return;  // the same interpreter, seen again
  notice_(Notice{plan::Severity::Info,
                 notice_id(NoticeKind::Interpreter),
                 reader_.state + ": reading " + (frames_only() ? "the Python frames" : "the GIL") + " of " +
                     version_name(in) + " (" + in.path + ") in pid " + std::to_string(pid) + " from memory",
                 {},
                 0});
}

}  // namespace seam::runtime::python
