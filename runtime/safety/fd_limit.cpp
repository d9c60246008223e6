#include "runtime/safety/fd_limit.hpp"

#include <sys/resource.h>

namespace seam::runtime {

uint64_t raise_fd_limit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return 0;
  if (lim.rlim_cur < lim.rlim_max) {
    rlimit raised = lim;
    raised.rlim_cur = lim.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) return raised.rlim_cur;
  }
  return lim.rlim_cur;
}

}  // namespace seam::runtime
