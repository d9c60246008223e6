// The tight loop: calls FUNCTION(0) from LIBRARY N times and prints the mean ns per call.
//
//   caller LIBRARY FUNCTION N [--wait]
//
// Prints both CPU time of the calling thread (user + system, so it includes the kernel's probe
// handling) and wall time: on a shared, loaded machine wall time also counts the time the thread
// waited for a CPU, so CPU time is the figure to compare.
//
// With --wait it loads the library, prints "ready" and waits for a line on stdin before the
// timed loop, so a tracer can find the mapped library and attach first. A short warm-up runs
// before the clock starts (the first hits of a probe also install it in this process).
// CALLER_STACK_KIB=K puts K KiB of the stack above the loop (a deep application's stack), so
// that a tracer copying the stack's top copies all it asks for.
#define _GNU_SOURCE
#include <alloca.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int (*sync_fn)(void*);

static double now_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static __attribute__((noinline)) void timed_loop(sync_fn fn, long n, size_t pad_bytes) {
  volatile char* pad = pad_bytes ? alloca(pad_bytes) : NULL;
  if (pad) memset((char*)pad, 0, pad_bytes);
  long warmup = n / 100 + 1;
  for (long i = 0; i < warmup; ++i) fn(NULL);
  double wall_start = now_ns(CLOCK_MONOTONIC), cpu_start = now_ns(CLOCK_THREAD_CPUTIME_ID);
  for (long i = 0; i < n; ++i) fn(NULL);
  double cpu = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu_start, wall = now_ns(CLOCK_MONOTONIC) - wall_start;
  printf("cpu %.2f wall %.2f ns/call over %ld calls\n", cpu / (double)n, wall / (double)n, n);
  if (pad) pad[0] = 1;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: caller LIBRARY FUNCTION N [--wait]\n");
    return 2;
  }
  void* lib = dlopen(argv[1], RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "caller: %s\n", dlerror());
    return 1;
  }
  sync_fn fn = (sync_fn)dlsym(lib, argv[2]);
  if (!fn) {
    fprintf(stderr, "caller: no %s in %s\n", argv[2], argv[1]);
    return 1;
  }
  long n = strtol(argv[3], NULL, 10);
  if (argc > 4 && !strcmp(argv[4], "--wait")) {
    printf("ready\n");
    fflush(stdout);
    char line[64];
    if (!fgets(line, sizeof(line), stdin)) return 0;
  }
  const char* kib = getenv("CALLER_STACK_KIB");
  timed_loop(fn, n, kib ? (size_t)strtoul(kib, NULL, 10) * 1024 : 0);
  return 0;
}
