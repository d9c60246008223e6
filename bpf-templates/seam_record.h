/* seam: the record every rule emits starts with this header, followed by the rule's fields
 * (their layout is in the probe plan). The user-space side reads the header through the table
 * in compiler/plan/record_header.hpp, which a unit test compiles against this struct
 * (tests/unit/build_record_header_test.cpp): change both together. Also the ring buffer, the
 * per-rule drop counters and the reserve/submit pair every program uses. */
#pragma once

struct seam_record_header {
  __u32 rule_id;
  __u32 size; /* header + fields, 8-byte aligned */
  __u64 time_ns; /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
  __u32 pid;     /* tgid */
  __u32 tid;
  __u64 cgroup;
  char comm[16];
};

/* Sizes are placeholders: the loader sets seam_events to plan.ringbuf_bytes and seam_drops to
 * the number of rules before loading. */
struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 4096);
} seam_events SEC(".maps") SEAM_SHARED;

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 1);
} seam_drops SEC(".maps") SEAM_SHARED;

/* Unread bytes in the ring above which a submit wakes the reader; below it records are
 * submitted without a wakeup and the reader's timed consume picks them up (a wakeup per
 * record costs ~4x the per-event time). Set by the loader; 0 means 1/8th of the ring. */
SEAM_SHARED const volatile __u64 seam_wakeup_bytes = 0;
/* The loading rule unit's tag, already shifted (plan::kUnitTagShift): every rule file's object
 * writes into one shared ring, and the reader hands each record to the unit that wrote it. */
SEAM_SHARED const volatile __u64 seam_unit_tag = 0;

static __always_inline void seam_count_drop(__u32 rule_id) {
  __u64 *n = bpf_map_lookup_elem(&seam_drops, &rule_id);
  if (n) *n += 1; /* per-CPU slot: no atomics needed */
}

/* seam_reserve and seam_submit are in every program that emits. Built with
 * -DSEAM_RECORD_LINKED (a seam whose build could build them), they are the prebuilt object seam
 * links into the program (compiler/codegen/prebuilt_bpf.hpp), not compiled with it: inline, LLVM
 * optimized them again in every caller (docs/BENCHMARK.md, "Stop 37"). __hidden: the verifier
 * checks them in their caller's context, as if inline, and the reserved record's reference
 * passes back to the caller. */
#ifdef SEAM_RECORD_LINKED
void *seam_reserve(__u32 rule_id, __u32 size) __hidden;
void seam_submit(void *rec) __hidden;
#else
/* Reserves a record of `size` bytes (header included) and fills the header; NULL when the
 * ring is full (counted in seam_drops[rule_id]). */
SEAM_PREBUILT_LINKAGE void *seam_reserve(__u32 rule_id, __u32 size)
{
  struct seam_record_header *h = bpf_ringbuf_reserve(&seam_events, size, 0);
  if (!h) {
    seam_count_drop(rule_id);
    return NULL;
  }
  __u64 pid_tgid = bpf_get_current_pid_tgid();
  h->rule_id = rule_id | (__u32)seam_unit_tag;
  h->size = size;
  h->time_ns = bpf_ktime_get_ns();
  h->pid = (__u32)(pid_tgid >> 32);
  h->tid = (__u32)pid_tgid;
  h->cgroup = bpf_get_current_cgroup_id();
  bpf_get_current_comm(h->comm, sizeof(h->comm));
  return h;
}

SEAM_PREBUILT_LINKAGE void seam_submit(void *rec)
{
  __u64 threshold = seam_wakeup_bytes;
  if (threshold == 0) threshold = bpf_ringbuf_query(&seam_events, BPF_RB_RING_SIZE) / 8;
  __u64 unread = bpf_ringbuf_query(&seam_events, BPF_RB_AVAIL_DATA);
  bpf_ringbuf_submit(rec, unread >= threshold ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
}
#endif

static __always_inline void seam_discard(void *rec) { bpf_ringbuf_discard(rec, BPF_RB_NO_WAKEUP); }
