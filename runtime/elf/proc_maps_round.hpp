#pragma once
// One read of /proc/PID/maps per process for every reader of a scan round. At start every
// distinct set of library patterns (libcudart, libnccl, libpython, the python executable, libc...),
// the GIL readers' process watch and the scope keeper each walked all of /proc and read every
// process's maps: the default pack read each file about nine times before `ready`, half of a
// bundle's start. While a ProcMapsRound lives on a thread, executable_maps_text() reads a pid's
// maps once and hands the same text to every later caller on that thread; outside a round each
// call reads the file. A round is short (one start, one rescan): a process that maps a library
// during it is found by the next rescan or its exec notice, as before.
#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

#include "runtime/elf/thread_round.hpp"

namespace seam::runtime::elf {

struct RoundTexts;  // proc_maps_round.cpp

class ProcMapsRound {
 public:
  ProcMapsRound();  // nested rounds share the outermost one's texts
  ~ProcMapsRound();

 private:
  ThreadRound<RoundTexts> round_;
};

// The executable mappings' lines of /proc/PID/maps (in a round only those are kept: all that
// discovery and the scope keeper look at; outside one the whole text, read into `storage`).
// nullopt when the process is gone or may not be read. A view into a round's text stays valid
// until the round ends.
std::optional<std::string_view> executable_maps_text(pid_t pid, std::string& storage);

}  // namespace seam::runtime::elf
