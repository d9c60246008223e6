// Loads bench/baseline/headline.bpf.o with libbpf and attaches it, the way a hand-written tool
// would, then consumes its ring buffer until SIGINT/SIGTERM.
//
//   loader OBJ [--empty] [--perf] --cuda PATH:OFFSET [--take-gil PATH:OFFSET] [--drop-gil PATH:OFFSET]
//
// Offsets are file offsets of the functions (bench/run computes them from the ELF headers).
// --empty attaches only the do-nothing probe at the cuda offset (the floor of a probe hit).
// Links are uprobe_multi links (as seam uses on kernels that have them) unless --perf asks for
// libbpf's perf-event uprobes. Prints "ready N probes" once attached and "stopped ..." at exit.
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BPF_TRACE_UPROBE_MULTI_ATTACH 48 /* enum bpf_attach_type, kernel 6.6+ */
#define BPF_F_UPROBE_MULTI_RETURN_FLAG 1

static volatile sig_atomic_t stop;
static void on_signal(int sig) {
  (void)sig;
  stop = 1;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct target {
  const char* path;
  unsigned long offset;
};

static int parse_target(const char* arg, struct target* t) {
  const char* colon = strrchr(arg, ':');
  if (!colon) return -1;
  t->path = strndup(arg, (size_t)(colon - arg));
  t->offset = strtoul(colon + 1, NULL, 0);
  return 0;
}

// link_create's uprobe_multi attributes (kernel 6.6+); libbpf 1.1 predates them.
struct uprobe_multi_attr {
  uint32_t prog_fd, target_fd, attach_type, flags;
  uint64_t path, offsets, ref_ctr_offsets, cookies;
  uint32_t cnt, multi_flags, pid, padding;
};

static int attach_multi(struct bpf_program* prog, const struct target* t, int retprobe) {
  struct uprobe_multi_attr attr;
  memset(&attr, 0, sizeof(attr));
  unsigned long offset = t->offset;
  attr.prog_fd = (uint32_t)bpf_program__fd(prog);
  attr.attach_type = BPF_TRACE_UPROBE_MULTI_ATTACH;
  attr.path = (uintptr_t)t->path;
  attr.offsets = (uintptr_t)&offset;
  attr.cnt = 1;
  attr.multi_flags = retprobe ? BPF_F_UPROBE_MULTI_RETURN_FLAG : 0;
  long fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
  return fd < 0 ? -errno : (int)fd;
}

struct probe {
  const char* program;
  const struct target* target;
  int retprobe;
};

static int on_event(void* ctx, void* data, size_t size) {
  (void)data;
  (void)size;
  ++*(unsigned long*)ctx;
  return 0;
}

int main(int argc, char** argv) {
  const char* object_path = NULL;
  int empty = 0, perf = 0;
  struct target cuda = {0}, take = {0}, drop = {0};
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--empty"))
      empty = 1;
    else if (!strcmp(argv[i], "--perf"))
      perf = 1;
    else if (!strcmp(argv[i], "--cuda") && i + 1 < argc)
      parse_target(argv[++i], &cuda);
    else if (!strcmp(argv[i], "--take-gil") && i + 1 < argc)
      parse_target(argv[++i], &take);
    else if (!strcmp(argv[i], "--drop-gil") && i + 1 < argc)
      parse_target(argv[++i], &drop);
    else
      object_path = argv[i];
  }
  if (!object_path || !cuda.path) {
    fprintf(
        stderr,
        "usage: loader OBJ [--empty] [--perf] --cuda PATH:OFF [--take-gil PATH:OFF] [--drop-gil PATH:OFF]\n");
    return 2;
  }
  double started = now_ms();
  struct probe probes[4];
  int nprobes = 0;
  if (empty) {
    probes[nprobes++] = (struct probe){"empty_entry", &cuda, 0};
  } else {
    probes[nprobes++] = (struct probe){"sync_entry", &cuda, 0};
    probes[nprobes++] = (struct probe){"sync_return", &cuda, 1};
    if (take.path) probes[nprobes++] = (struct probe){"take_gil_return", &take, 1};
    if (drop.path) probes[nprobes++] = (struct probe){"drop_gil_entry", &drop, 0};
  }

  struct bpf_object* obj = bpf_object__open_file(object_path, NULL);
  if (!obj) {
    fprintf(stderr, "loader: cannot open %s\n", object_path);
    return 1;
  }
  struct bpf_program* prog;
  bpf_object__for_each_program(prog, obj) {
    int wanted = 0;
    for (int i = 0; i < nprobes; ++i) wanted |= !strcmp(bpf_program__name(prog), probes[i].program);
    bpf_program__set_autoload(prog, wanted);
    if (wanted && !perf)
      bpf_program__set_expected_attach_type(prog, (enum bpf_attach_type)BPF_TRACE_UPROBE_MULTI_ATTACH);
  }
  if (bpf_object__load(obj)) {
    fprintf(stderr, "loader: cannot load %s: %s\n", object_path, strerror(errno));
    return 1;
  }
  struct bpf_link* links[4] = {0};
  int link_fds[4] = {-1, -1, -1, -1};
  for (int i = 0; i < nprobes; ++i) {
    prog = bpf_object__find_program_by_name(obj, probes[i].program);
    if (perf) {
      links[i] = bpf_program__attach_uprobe(prog, probes[i].retprobe, -1, probes[i].target->path,
                                            probes[i].target->offset);
      if (!links[i]) {
        fprintf(stderr, "loader: attach %s failed: %s\n", probes[i].program, strerror(errno));
        return 1;
      }
    } else {
      link_fds[i] = attach_multi(prog, probes[i].target, probes[i].retprobe);
      if (link_fds[i] < 0) {
        fprintf(stderr, "loader: attach %s failed: %s\n", probes[i].program, strerror(-link_fds[i]));
        return 1;
      }
    }
  }
  unsigned long records = 0;
  struct ring_buffer* rb = NULL;
  if (!empty)
    rb = ring_buffer__new(bpf_map__fd(bpf_object__find_map_by_name(obj, "events")), on_event, &records, NULL);
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  printf("ready %d probes in %.1f ms\n", nprobes, now_ms() - started);
  fflush(stdout);
  while (!stop) {
    if (rb)
      ring_buffer__poll(rb, 100);
    else
      usleep(100000);
  }
  double detach_start = now_ms();
  for (int i = 0; i < nprobes; ++i) {
    if (links[i]) bpf_link__destroy(links[i]);
    if (link_fds[i] >= 0) close(link_fds[i]);
  }
  if (rb) {
    ring_buffer__consume(rb);
    ring_buffer__free(rb);
  }
  printf("stopped %d probes detached in %.1f ms; %lu records\n", nprobes, now_ms() - detach_start, records);
  bpf_object__close(obj);
  return 0;
}
