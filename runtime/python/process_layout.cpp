#include "runtime/python/process_layout.hpp"

#include <array>
#include <optional>

#include "runtime/python/process_memory.hpp"

namespace seam::runtime::python {

std::string version_name(const Interpreter& in) {
  if (!in.major) return "CPython (version unknown)";
  return "CPython " + std::to_string(in.major) + "." + std::to_string(in.minor) +
         (in.free_threaded.empty() ? "" : "t");
}

elf::Result<ProcessLayout> process_layout(pid_t pid, const std::vector<discover::LibraryFile>& files) {
  elf::Result<Interpreter> found = find_interpreter(pid, files);
  if (!found) return elf::Error{"runs no interpreter seam can read (" + found.error() + ")"};
  const Interpreter& in = *found;
  std::optional<GilLayout> layout;
  std::optional<FrameLayout> frames;
  std::string why;
  if (!in.free_threaded.empty()) {
    // Before any memory is read: a free-threaded build's objects and frames are not laid out as
    // the GIL build's of the same version.
    why = "it is a free-threaded build (" + in.free_threaded + "), whose frames and thread states seam " +
          "does not read, and which has no GIL to hold";
  } else if (in.major == 3 && in.minor >= 13) {
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
    return elf::Error{"runs " + version_name(in) + " (" + in.path + "), which seam cannot read: " + why};
  return ProcessLayout{in, *layout, *frames};
}

}  // namespace seam::runtime::python
