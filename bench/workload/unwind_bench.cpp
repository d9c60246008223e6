// User-space cost of a `ustack` from a stack copy: unwinding with call-frame information and
// naming the frames, through the same StackUnwinder the alert pipeline calls. It records its
// own stack (DEPTH recursive calls built without frame pointers, then libc's qsort calling back
// into it, as an interpreter's C stack calls through a library), then unwinds that one record
// N times. Prints one JSON line: frames, the first (cold) unwind and the mean of the rest, in
// CPU microseconds of this thread.
//   unwind_bench [N] [DEPTH]
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <cstdlib>

#include "runtime/run/stack_symbolizer.hpp"
#include "support/stack_capture.hpp"

namespace {

seam::test::StackCapture g_capture;
int g_depth = 0;

int compare_and_capture(const void* a, const void* b) {
  static bool done = false;
  if (!done) {
    done = true;
    seam::test::capture_stack(&g_capture);
  }
  return *static_cast<const int*>(a) - *static_cast<const int*>(b);
}

__attribute__((noinline)) int recurse(int n) {
  if (n == 0) {
    int v[2] = {2, 1};
    qsort(v, 2, sizeof v[0], compare_and_capture);
    return v[0];
  }
  int r = recurse(n - 1);
  __asm__ volatile("" ::: "memory");  // no tail calls: every level keeps its frame
  return r + 1;
}

double thread_cpu_us() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

}  // namespace

int main(int argc, char** argv) {
  long n = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 2000;
  g_depth = argc > 2 ? std::atoi(argv[2]) : 16;
  recurse(g_depth);
  seam::runtime::StackSymbolizerAdapter adapter;
  adapter.remember(getpid());
  seam::runtime::StackUnwinder unwind = adapter.unwinder();
  seam::runtime::StackCopyView view;
  const seam::runtime::unwind::Registers& r = g_capture.regs;
  uint64_t regs[] = {r.ip, r.sp, r.bp, r.bx, r.r12, r.r13, r.r14, r.r15};
  std::copy(std::begin(regs), std::end(regs), view.regs);
  view.stack = g_capture.stack;
  auto pid = static_cast<uint32_t>(getpid()), tid = static_cast<uint32_t>(syscall(SYS_gettid));
  seam::runtime::AlertStack stack;
  // CPU time of this thread: on a shared machine wall time also counts waiting for a CPU.
  double t0 = thread_cpu_us();
  if (!unwind(pid, tid, view, stack)) return 1;
  double t1 = thread_cpu_us();
  for (long i = 0; i < n; ++i) unwind(pid, tid, view, stack);
  double t2 = thread_cpu_us();
  double cold_us = t1 - t0;
  double warm_us = (t2 - t1) / static_cast<double>(n);
  std::printf(
      "{\"frames\":%zu,\"copied_bytes\":%zu,\"truncated\":\"%s\",\"cold_us\":%.1f,\"warm_us\":%.2f,\"n\":%ld}"
      "\n",
      stack.frames.size(), g_capture.stack.size(), stack.truncated.c_str(), cold_us, warm_us, n);
  return 0;
}
