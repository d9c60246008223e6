/* seam: tests of a process's identity (`container == "..."`, `pod startswith "..."`,
 * compiler/plan/plan.hpp, IdentityTest). The kernel knows a task's cgroup id only; seam's
 * runtime walks the cgroup v2 tree, resolves each cgroup's container and pod, and sets bit i
 * of the cgroup's value when test i holds there (runtime/run/identity_keeper.hpp). A cgroup
 * not in the map holds no test. */
#pragma once

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u64);
	__type(value, __u64);
	__uint(max_entries, 16384);
} seam_identity SEC(".maps") SEAM_SHARED;

static __always_inline int seam_identity_has(__u64 cgroup, __u32 bit)
{
	__u64 *bits = bpf_map_lookup_elem(&seam_identity, &cgroup);
	return bits && ((*bits >> bit) & 1);
}
