// User-space cost of naming one alert's Python frames, through the same PyStackNamer the alert
// pipeline calls, against a live Python process: the frames are those seam recorded for it (the
// bench's JSON alert gives each frame's code object and byte offset, from which the record's
// instruction is rebuilt). Names them once with a fresh namer (cold: every code object read
// from /proc/PID/mem), then N times (warm: from the cache). Prints one JSON line: frames, the
// cold naming and the mean of the warm ones, in CPU microseconds of this thread.
//   pyframes_bench PID MINOR N CODE:OFFSET...
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/python/frame_layout.hpp"
#include "runtime/python/stack_namer.hpp"

namespace {

double thread_cpu_us() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: pyframes_bench PID MINOR N CODE:OFFSET...\n");
    return 2;
  }
  pid_t pid = static_cast<pid_t>(std::atoi(argv[1]));
  int minor = std::atoi(argv[2]);
  long n = std::strtol(argv[3], nullptr, 10);
  std::optional<seam::runtime::python::FrameLayout> layout = seam::runtime::python::frame_table_layout(minor);
  if (!layout) {
    std::fprintf(stderr, "pyframes_bench: no table layout for 3.%d\n", minor);
    return 2;
  }
  // The record's bytes: count, status, then {code, instruction} per frame (plan::FieldType::PyStack).
  std::vector<uint64_t> record = {0, 0};
  for (int i = 4; i < argc; ++i) {
    uint64_t code = std::strtoull(argv[i], nullptr, 0);
    const char* colon = std::strchr(argv[i], ':');
    int64_t offset = colon ? std::strtoll(colon + 1, nullptr, 0) : 0;
    uint64_t instr = layout->instr_is_int
                         ? static_cast<uint64_t>(layout->code.lasti_in_bytes ? offset : offset / 2)
                         : code + layout->code.code_adaptive + static_cast<uint64_t>(offset);
    record.push_back(code);
    record.push_back(instr);
  }
  record[0] = (record.size() - 2) / 2;
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(record.data()), record.size() * 8);
  auto namer = std::make_shared<seam::runtime::python::FrameNamer>();
  namer->add_process(pid, *layout);
  seam::runtime::PyStackNamer name = seam::runtime::python::py_stack_namer(namer);
  seam::runtime::AlertStack stack;
  double t0 = thread_cpu_us();
  name(static_cast<uint32_t>(pid), bytes, stack);
  double cold = thread_cpu_us() - t0;
  size_t named = 0;
  for (const seam::runtime::StackFrame& f : stack.frames) named += f.line > 0;
  double t1 = thread_cpu_us();
  for (long i = 0; i < n; ++i) {
    stack.frames.clear();
    name(static_cast<uint32_t>(pid), bytes, stack);
  }
  double warm = (thread_cpu_us() - t1) / static_cast<double>(n);
  std::printf(
      "{\"frames\": %zu, \"named_with_line\": %zu, \"cold_us\": %.1f, \"warm_us\": %.2f, \"n\": %ld}\n",
      stack.frames.size(), named, cold, warm, n);
  return 0;
}
