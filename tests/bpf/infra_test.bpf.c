// Hand-written BPF program for tests/e2e/bpf_infra_test.cpp: exercises seam_prelude.h and
// seam_record.h (reserve/submit, drop counters) and the loader's feature fallbacks.
#include "seam_prelude.h"

char LICENSE[] SEC("license") = "GPL";

struct call_record {
  struct seam_record_header h;
  __u64 duration_ns;
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 16); /* the plan sets 4096 */
} sync_start SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 1);
} switch_count SEC(".maps");

/* Rule 1: duration of cudaStreamSynchronize, entry + return. */
SEC("uprobe")
int sync_enter(struct pt_regs *ctx) {
  __u32 tid = SEAM_CURRENT_TID();
  __u64 now = bpf_ktime_get_ns();
  bpf_map_update_elem(&sync_start, &tid, &now, BPF_ANY);
  return 0;
}

SEC("uretprobe")
int sync_exit(struct pt_regs *ctx) {
  __u32 tid = SEAM_CURRENT_TID();
  __u64 *start = bpf_map_lookup_elem(&sync_start, &tid);
  if (!start) return 0;
  __u64 duration = bpf_ktime_get_ns() - *start;
  bpf_map_delete_elem(&sync_start, &tid);
  struct call_record *r = seam_reserve(1, sizeof(*r));
  if (!r) return 0;
  r->duration_ns = duration;
  seam_submit(r);
  return 0;
}

/* Rule 2: one record per call with its first argument, for the flood test. */
SEC("uprobe")
int flood_enter(struct pt_regs *ctx) {
  struct call_record *r = seam_reserve(2, sizeof(*r));
  if (!r) return 0;
  r->duration_ns = PT_REGS_PARM1(ctx); /* the `stream` argument: checks pt_regs member names */
  seam_submit(r);
  return 0;
}

/* Rule 3: every exec. */
SEC("tracepoint/sched/sched_process_exec")
int on_exec(void *ctx) {
  struct seam_record_header *h = seam_reserve(3, sizeof(*h));
  if (h) seam_submit(h);
  return 0;
}

/* Rule 4: BTF-typed tracepoint. */
SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next) {
  __u32 key = 0;
  __u64 *n = bpf_map_lookup_elem(&switch_count, &key);
  if (n) __sync_fetch_and_add(n, 1);
  return 0;
}

/* Rule 5: fentry, falling back to a kprobe (neither exists on a kernel without both). */
SEC("fentry/do_nanosleep")
int BPF_PROG(nanosleep_fentry) { return 0; }

SEC("kprobe/do_nanosleep")
int nanosleep_kprobe(struct pt_regs *ctx) { return 0; }

/* Rule 6: fentry, falling back to a tracepoint (always there). */
SEC("fentry/do_nanosleep")
int BPF_PROG(sleep_fentry) { return 0; }

SEC("tracepoint/sched/sched_process_fork")
int fork_tracepoint(void *ctx) { return 0; }

/* Rule 7: raw tracepoint; rule 8: perf event (CPU clock). Both count into counters[]. */
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 2);
} counters SEC(".maps");

static __always_inline void count(__u32 key) {
  __u64 *n = bpf_map_lookup_elem(&counters, &key);
  if (n) __sync_fetch_and_add(n, 1);
}

SEC("raw_tp/sched_switch")
int on_raw_switch(void *ctx) {
  count(0);
  return 0;
}

SEC("perf_event")
int on_tick(void *ctx) {
  count(1);
  return 0;
}
