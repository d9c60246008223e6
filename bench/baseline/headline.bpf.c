// The headline rule (rules/gil.seam) written by hand: what a careful engineer would load without
// seam. cudaStreamSynchronize entry stores a timestamp per thread; its return computes the
// duration, and when it exceeds 10 ms while the thread holds the GIL (set on return of take_gil,
// cleared on entry of drop_gil) it emits a record with the user stack (10 frames).
// Map kinds match what a hand-written tool uses: plain hashes keyed by thread id. bench/run also
// builds it with -DMAP_KIND=BPF_MAP_TYPE_LRU_HASH to measure that choice, and with -DTASK_STORAGE
// (per-thread values in task-local storage, what seam generates where the kernel has it).
#include <linux/bpf.h>
#include <linux/types.h>

// After the kernel types it needs.
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

#ifndef MAP_KIND
#define MAP_KIND BPF_MAP_TYPE_HASH
#endif
#define THRESHOLD_NS 10000000ULL
#define STACK_FRAMES 10

struct event {
  __u32 pid;
  __u32 tid;
  __u64 duration_ns;
  __u64 nframes;
  __u64 frames[STACK_FRAMES];
};

#ifdef TASK_STORAGE
struct task_struct;
struct span_value {
  __u64 start_ns; /* 0: not in flight */
};
struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, struct span_value);
} sync_start SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, __u8);
} gil_held SEC(".maps");
#else
struct {
  __uint(type, MAP_KIND);
  __uint(max_entries, 16384);
  __type(key, __u32);
  __type(value, __u64);
} sync_start SEC(".maps");

struct {
  __uint(type, MAP_KIND);
  __uint(max_entries, 16384);
  __type(key, __u32);
  __type(value, __u8);
} gil_held SEC(".maps");

#endif

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 1 << 20);
} events SEC(".maps");

#ifdef TASK_STORAGE
SEC("uprobe")
int sync_entry(void* ctx) {
  struct span_value* v = bpf_task_storage_get(&sync_start, bpf_get_current_task_btf(), 0,
                                              BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (v) v->start_ns = bpf_ktime_get_ns();
  return 0;
}

SEC("uretprobe")
int sync_return(void* ctx) {
  struct task_struct* task = bpf_get_current_task_btf();
  struct span_value* v = bpf_task_storage_get(&sync_start, task, 0, 0);
  if (!v || !v->start_ns) return 0;
  __u64 duration = bpf_ktime_get_ns() - v->start_ns;
  v->start_ns = 0;
  __u8* held;
  if (duration <= THRESHOLD_NS || !(held = bpf_task_storage_get(&gil_held, task, 0, 0)) || !*held) return 0;
  __u64 pid_tgid = bpf_get_current_pid_tgid();
  struct event* e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
  if (!e) return 0;
  e->pid = (__u32)(pid_tgid >> 32);
  e->tid = (__u32)pid_tgid;
  e->duration_ns = duration;
  long n = bpf_get_stack(ctx, e->frames, sizeof(e->frames), BPF_F_USER_STACK);
  e->nframes = n > 0 ? (__u64)n / 8 : 0;
  bpf_ringbuf_submit(e, 0);
  return 0;
}

SEC("uretprobe")
int take_gil_return(void* ctx) {
  __u8* held = bpf_task_storage_get(&gil_held, bpf_get_current_task_btf(), 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (held) *held = 1;
  return 0;
}

SEC("uprobe")
int drop_gil_entry(void* ctx) {
  __u8* held = bpf_task_storage_get(&gil_held, bpf_get_current_task_btf(), 0, 0);
  if (held) *held = 0;
  return 0;
}
#else
SEC("uprobe")
int sync_entry(void* ctx) {
  __u32 tid = (__u32)bpf_get_current_pid_tgid();
  __u64 now = bpf_ktime_get_ns();
  bpf_map_update_elem(&sync_start, &tid, &now, BPF_ANY);
  return 0;
}

SEC("uretprobe")
int sync_return(void* ctx) {
  __u64 pid_tgid = bpf_get_current_pid_tgid();
  __u32 tid = (__u32)pid_tgid;
  __u64* start = bpf_map_lookup_elem(&sync_start, &tid);
  if (!start) return 0;
  __u64 duration = bpf_ktime_get_ns() - *start;
  bpf_map_delete_elem(&sync_start, &tid);
  // Same order as the rule's condition: the cheap threshold first, then the state lookup.
  if (duration <= THRESHOLD_NS || !bpf_map_lookup_elem(&gil_held, &tid)) return 0;
  struct event* e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
  if (!e) return 0;
  e->pid = (__u32)(pid_tgid >> 32);
  e->tid = tid;
  e->duration_ns = duration;
  long n = bpf_get_stack(ctx, e->frames, sizeof(e->frames), BPF_F_USER_STACK);
  e->nframes = n > 0 ? (__u64)n / 8 : 0;
  bpf_ringbuf_submit(e, 0);
  return 0;
}

SEC("uretprobe")
int take_gil_return(void* ctx) {
  __u32 tid = (__u32)bpf_get_current_pid_tgid();
  __u8 one = 1;
  bpf_map_update_elem(&gil_held, &tid, &one, BPF_ANY);
  return 0;
}

SEC("uprobe")
int drop_gil_entry(void* ctx) {
  __u32 tid = (__u32)bpf_get_current_pid_tgid();
  bpf_map_delete_elem(&gil_held, &tid);
  return 0;
}

#endif

// The floor: a probe that does nothing, attached alone in "empty" mode.
SEC("uprobe")
int empty_entry(void* ctx) {
  return 0;
}
