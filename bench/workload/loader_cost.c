// The dynamic loader hook's host cost (bench/harness/loaderhook.py): what a dlopen/dlclose pair
// and an exec of a small dynamic program cost, with or without seam running:
//   loader_cost N LIBRARY PROGRAM
// prints "dlopen_ns X exec_us Y": CPU time per dlopen+dlclose of LIBRARY (ld.so calls
// _dl_debug_state four times a pair), and wall time per fork+exec+wait of PROGRAM (N/10 times).
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: loader_cost N LIBRARY PROGRAM\n");
    return 2;
  }
  long n = strtol(argv[1], NULL, 10);
  double t0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
  for (long i = 0; i < n; i++) {
    void* h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      fprintf(stderr, "dlopen %s: %s\n", argv[2], dlerror());
      return 3;
    }
    dlclose(h);
  }
  double t1 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
  long execs = n / 10 > 0 ? n / 10 : 1;
  double w0 = now_ns(CLOCK_MONOTONIC);
  for (long i = 0; i < execs; i++) {
    pid_t pid = fork();
    if (pid == 0) {
      execl(argv[3], argv[3], (char*)NULL);
      _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
      return 4;
  }
  double w1 = now_ns(CLOCK_MONOTONIC);
  printf("dlopen_ns %.1f exec_us %.1f\n", (t1 - t0) / n, (w1 - w0) / execs / 1000.0);
  return 0;
}
