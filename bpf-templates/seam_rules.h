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
