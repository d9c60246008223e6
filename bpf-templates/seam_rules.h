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

/* Histogram bucket of v: bucket i counts 2^(i-1) < v <= 2^i (bucket 0: v <= 1), so that each
 * bucket's Prometheus `le` bound is exactly 2^i base units (plan::kHistBuckets == 64). */
static __always_inline __u32 seam_hist_bucket(__u64 v)
{
	if (v <= 1)
		return 0;
	v -= 1;
	__u32 r = 0;
	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) { r += 1; }
	return r + 1 > 63 ? 63 : r + 1;
}

/* The zero value new metric series start from (too large for the 512-byte BPF stack). */
__u64 seam_metric_zero[2 + 64];

/* seam's own process, set by the loader: its own syscalls, page faults and switches are not
 * what an operator asked about, and reporting them would feed back into the output. */
const volatile __u64 seam_self_tgid = 0;

/* Per-thread values in task-local storage (lower/task_storage.hpp): found from the current
 * task without hashing; CREATE makes a zeroed value on the thread's first use. */
#define SEAM_TASK_GET(map) bpf_task_storage_get(&(map), bpf_get_current_task_btf(), 0, 0)
#define SEAM_TASK_CREATE(map) \
	bpf_task_storage_get(&(map), bpf_get_current_task_btf(), 0, 1 /* BPF_LOCAL_STORAGE_GET_F_CREATE */)

static __always_inline int seam_task_flag(__u8 *flag)
{
	return flag && *flag;
}
