#pragma once
// Names the Python frames a `pystack` walk recorded (plan::FieldType::PyStack): for each code
// object its qualified name (co_qualname, 3.11+; co_name before), its file (co_filename) and
// its line table, read from the process's memory (/proc/PID/mem) and cached per (process, code
// object), so that a process that exits right after its call keeps the names read once; the
// line of each frame then comes from the cached table at the recorded instruction. The
// interpreter reader (gil_reader.hpp) tells it each process's layout; a process it was not
// told about has no frames named (the reader gave a notice instead).
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "runtime/python/frame_layout.hpp"

namespace seam::runtime::python {

struct PyFrameRef {
  uint64_t code = 0;   // the code object's address
  uint64_t instr = 0;  // f_lasti (3.8 to 3.10) or the instruction's address (3.11+)
};

struct PyFrame {
  uint64_t code = 0;
  std::string function;  // "Server.handle_request"; "<code object 0x...>" when unreadable
  std::string file;      // co_filename
  int line = -1;         // -1: the table gives none, or the code object could not be read
  int64_t offset = 0;    // the instruction's byte offset in the code object
  bool entry = false;    // the outermost frame of its call of the eval loop (plan::kPyEntryBit)
};

// The PyStack field's bytes (count, status, frames), as the decoder keeps them.
struct PyStackView {
  plan::PyStackStatus status = plan::PyStackStatus::NotRead;
  std::vector<PyFrameRef> frames;
};
bool parse_pystack(std::span<const uint8_t> bytes, PyStackView& out);

class FrameNamer {
 public:
  void add_process(pid_t pid, const FrameLayout& layout);
  void forget_process(pid_t pid);
  bool knows(pid_t pid) const;
  // Innermost first, one per recorded frame; empty when the process was never added.
  std::vector<PyFrame> name(pid_t pid, std::span<const PyFrameRef> frames);

 private:
  struct Code {
    bool read = false;
    std::string function, file;
    int first_line = 0;
    std::vector<uint8_t> line_table;
  };
  const Code& code_of(pid_t pid, const FrameLayout& layout, uint64_t address);

  mutable std::mutex mu_;
  std::map<pid_t, FrameLayout> processes_;
  std::map<std::pair<pid_t, uint64_t>, Code> codes_;
};

}  // namespace seam::runtime::python
