#pragma once
// One discovery round: while a ScanRound lives on a thread, every library search on it lists
// /proc once, reads each process's maps once (elf::ProcMapsRound) and lists the system's library
// folders and /etc/ld.so.cache once. At start the default pack searched for five libraries and
// each search did all three: /usr/lib/x86_64-linux-gnu (about 1,200 entries) was listed twelve
// times (the five libraries and the rescanner, under both /lib and /usr/lib), about 8 ms of a warm
// start's CPU. A round is short (one start, one rescan): what changes during it is found by the
// next rescan, as with the maps. Outside a round each call lists afresh.
#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "runtime/elf/proc_maps_round.hpp"
#include "runtime/elf/thread_round.hpp"

namespace seam::runtime::discover {

struct RoundListings;  // scan_round.cpp

class ScanRound {
 public:
  ScanRound();  // nested rounds share the outermost one's listings
  ~ScanRound();

 private:
  elf::ProcMapsRound maps_;
  ThreadRound<RoundListings> listings_;
};

// The pids in /proc.
std::vector<pid_t> running_pids();

// The paths in /etc/ld.so.cache, then the entries of the standard library folders (ld_cache.hpp)
// but dot files, in that order. A folder that is another one already listed (/lib and /usr/lib on
// a merged /usr) is listed once, under its first name.
std::shared_ptr<const std::vector<std::string>> system_library_candidates();

}  // namespace seam::runtime::discover
