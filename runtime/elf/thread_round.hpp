#pragma once
// A round: while one lives on a thread, that thread keeps a `State` (what the round has read
// once for all its readers); a round made inside another shares the outer one's, and the state
// goes with the outermost. Used for /proc maps (proc_maps_round.hpp) and for the listings of
// /proc and of the library folders (discover/scan_round.hpp).
#include <memory>

namespace seam::runtime {

template <typename State>
class ThreadRound {
 public:
  ThreadRound() {
    if (slot()) return;
    slot() = std::make_unique<State>();
    outermost_ = true;
  }
  ~ThreadRound() {
    if (outermost_) slot().reset();
  }
  ThreadRound(const ThreadRound&) = delete;
  ThreadRound& operator=(const ThreadRound&) = delete;

  // This thread's round state; nullptr outside a round.
  static State* current() { return slot().get(); }

 private:
  static std::unique_ptr<State>& slot() {
    thread_local std::unique_ptr<State> state;
    return state;
  }
  bool outermost_ = false;
};

}  // namespace seam::runtime
