// The host-tax workload (bench/harness/hosttax.py): N getppid() syscalls (no pack rule watches
// getppid), N/10 first touches of fresh anonymous pages, then N/10 one-byte write()s to /dev/null
// (a syscall the pack's syscall_slow names), and prints the CPU time of each, per operation:
//   host_tax N [LIBRARY [write]]    LIBRARY: dlopen it first (the fixture libcudart: an in-scope
//                                   workload; "-": none); write: print "ready", wait for a line on
//                                   stdin (the harness sends it once the tracer has the process in
//                                   scope), then only the N/10 writes (0 for the others), so that
//                                   the programs run once per write can be told apart
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char** argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000000;
  int only_writes = argc > 3 && strcmp(argv[3], "write") == 0;
  if (argc > 2 && strcmp(argv[2], "-") != 0 && !dlopen(argv[2], RTLD_NOW)) {
    fprintf(stderr, "dlopen %s: %s\n", argv[2], dlerror());
    return 2;
  }
  if (only_writes) {
    char line[16];
    printf("ready\n");
    fflush(stdout);
    if (!fgets(line, sizeof line, stdin)) return 5;
  }
  double t0 = cpu_ns();
  for (long i = 0; i < n && !only_writes; i++) (void)getppid();
  double t1 = cpu_ns();
  long pages = n / 10;
  char* mem = mmap(NULL, (size_t)pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return 3;
  double t2 = cpu_ns();
  for (long i = 0; i < pages && !only_writes; i++) mem[i * 4096] = 1;
  double t3 = cpu_ns();
  int null_fd = open("/dev/null", O_WRONLY);
  if (null_fd < 0) return 4;
  for (long i = 0; i < pages; i++) (void)!write(null_fd, "x", 1);
  double t4 = cpu_ns();
  printf("syscall_ns %.1f fault_ns %.1f write_ns %.1f\n", (t1 - t0) / n, (t3 - t2) / pages,
         (t4 - t3) / pages);
  return 0;
}
