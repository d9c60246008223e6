/* Helpers the generated rule code calls: small, always inlined, bounded loops only. */
#pragma once

/* The current task's name equals (or starts with) a constant of `len` bytes (len <= 16). */
static __always_inline int seam_comm_match(const char *lit, int len, int prefix)
{
	char comm[16] = {};
	bpf_get_current_comm(comm, sizeof(comm));
#pragma unroll
	for (int i = 0; i < 16; i++) {
		if (i >= len)
			return prefix || comm[i] == 0;
		if (comm[i] != lit[i])
			return 0;
	}
	return prefix || len >= 16;
}

/* The same test on a saved name (a keyed span's begin thread, 16 bytes). */
static __always_inline int seam_buf_match(const char *buf, const char *lit, int len, int prefix)
{
#pragma unroll
	for (int i = 0; i < 16; i++) {
		if (i >= len)
			return prefix || buf[i] == 0;
		if (buf[i] != lit[i])
			return 0;
	}
	return prefix || len >= 16;
}

static __always_inline int seam_state_held(void *map, __u32 key)
{
	return bpf_map_lookup_elem(map, &key) != 0;
}

/* Uprobe arguments past the sixth live on the user stack, above the return address. */
static __always_inline __u64 seam_stack_arg(struct pt_regs *ctx, int n)
{
	__u64 v = 0;
	bpf_probe_read_user(&v, sizeof(v), (void *)(PT_REGS_SP(ctx) + 8 * (n - 5)));
	return v;
}

/* Histogram bucket of v, log-linear (compiler/plan/hist_layout.hpp, which must agree): bucket i
 * counts lower(i) < v <= upper(i); values up to 64 exactly, then 64 sub-buckets per power of two
 * (each at most 1/64 of its lower bound wide), values above 2^40 in the last bucket. */
#define SEAM_HIST_SUB_BITS 6
#define SEAM_HIST_SUB (1u << SEAM_HIST_SUB_BITS)
#define SEAM_HIST_TOP_BITS 40
#define SEAM_HIST_BUCKETS (SEAM_HIST_SUB + (SEAM_HIST_TOP_BITS - SEAM_HIST_SUB_BITS) * SEAM_HIST_SUB)

/* One step of the binary search for v's top bit, without a branch: s is k when x >> k is not 0
 * (x < 2^(2k) there, so adding 2^k - 1 carries into bit k exactly then), else 0. With branches,
 * each of the six steps split the verifier's paths on a known exponent: 2^6 paths through every
 * histogram's update, most of a metric program's verification. */
#define SEAM_HIST_STEP(x, e, k)                                                  \
	do {                                                                     \
		__u64 seam_s = ((((x) >> (k)) + ((1ULL << (k)) - 1)) >> (k)) * (k); \
		(x) >>= seam_s;                                                  \
		(e) += seam_s;                                                   \
	} while (0)

static __always_inline __u32 seam_hist_bucket(__u64 v)
{
	__u64 u = v ? v - 1 : 0;
	if (u < SEAM_HIST_SUB)
		return (__u32)u;
	__u64 x = u, e = 0;
	SEAM_HIST_STEP(x, e, 32);
	SEAM_HIST_STEP(x, e, 16);
	SEAM_HIST_STEP(x, e, 8);
	SEAM_HIST_STEP(x, e, 4);
	SEAM_HIST_STEP(x, e, 2);
	SEAM_HIST_STEP(x, e, 1);
	if (e >= SEAM_HIST_TOP_BITS)
		return SEAM_HIST_BUCKETS - 1;
	__u64 shift = e - SEAM_HIST_SUB_BITS;
	__u64 i = SEAM_HIST_SUB + shift * SEAM_HIST_SUB + (u >> shift) - SEAM_HIST_SUB;
	return i < SEAM_HIST_BUCKETS ? (__u32)i : SEAM_HIST_BUCKETS - 1;
}

/* Counts v in a histogram's buckets. The compiler knows the bucket is in range and would drop
 * the check the verifier needs: the empty asm hides what it knows. */
#define SEAM_HIST_ADD(buckets, v)                                   \
	do {                                                        \
		__u64 seam_b = seam_hist_bucket(v);                 \
		asm volatile("" : "+r"(seam_b));                     \
		if (seam_b < SEAM_HIST_BUCKETS)                      \
			__sync_fetch_and_add(&(buckets)[seam_b], 1); \
	} while (0)

/* The zero value new metric series start from (too large for the 512-byte BPF stack). */
SEAM_SHARED __u64 seam_metric_zero[2 + SEAM_HIST_BUCKETS];

/* seam's own process, set by the loader: its own syscalls, page faults and switches are not
 * what an operator asked about, and reporting them would feed back into the output. */
SEAM_SHARED const volatile __u64 seam_self_tgid = 0;

/* `seam run --pid` and `-c`: the process, or the cgroup, that programs built for one test against
 * (plan::Plan::target_tgid, target_cgroup), set by the loader. Constants, not text of the C: an
 * object serves a run for any pid and every `-c` command's new cgroup. */
SEAM_SHARED const volatile __u64 seam_target_tgid = 0;
SEAM_SHARED const volatile __u64 seam_target_cgroup = 0;

/* Per-thread values in task-local storage (lower/task_storage.hpp): found from the current
 * task without hashing; CREATE makes a zeroed value on the thread's first use. */
#define SEAM_TASK_GET(map) bpf_task_storage_get(&(map), bpf_get_current_task_btf(), 0, 0)
#define SEAM_TASK_CREATE(map) \
	bpf_task_storage_get(&(map), bpf_get_current_task_btf(), 0, 1 /* BPF_LOCAL_STORAGE_GET_F_CREATE */)

static __always_inline int seam_task_flag(__u8 *flag)
{
	return flag && *flag;
}
