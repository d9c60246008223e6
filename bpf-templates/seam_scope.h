/* seam: the processes a scoped rule file's programs run for (compiler/plan/plan.hpp, Scope).
 * seam_scope maps a tgid to the scope bits it holds; `seam run` creates the map once, keeps it
 * (runtime/run/scope_keeper.hpp: workload libraries mapped, cgroup subtree, comm) and every
 * object reuses it. Children get their parent's bits at fork; exited threads leave it. */
#pragma once

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 16384);
} seam_scope SEC(".maps") SEAM_SHARED;
