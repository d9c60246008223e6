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

/* seam_scope_any: one byte per tgid (byte tgid % 8 of entry tgid / 8), non-zero while the tgid
 * may be a key of seam_scope. It is tested before the hash: an array lookup the verifier inlines,
 * so a process outside every scope returns without hashing. `seam run` sizes it from pid_max
 * and writes it through mmap; an object loaded alone has one entry. A tgid past the end is
 * looked up in the hash. Bytes, not bits: a byte store needs no atomic read-modify-write.
 * A byte with SEAM_SCOPE_EXACT set holds the key's bits themselves (all among the first seven,
 * as with up to seven scopes in a run), so a process in scope is answered without the hash too;
 * any other non-zero byte says "look in the hash" (runtime/run/scope_keeper.cpp writes the same). */
#define SEAM_SCOPE_EXACT 0x80

static __always_inline __u8 seam_scope_byte_of(__u64 bits)
{
	return !bits ? 0 : bits < SEAM_SCOPE_EXACT ? (__u8)(SEAM_SCOPE_EXACT | bits) : 1;
}

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 1);
} seam_scope_any SEC(".maps") SEAM_SHARED;

/* The byte of `tgid` in seam_scope_any, or null past its end. */
static __always_inline __u8 *seam_scope_byte(__u32 tgid)
{
	__u32 entry = tgid >> 3;
	__u8 *bytes = bpf_map_lookup_elem(&seam_scope_any, &entry);
	return bytes ? bytes + (tgid & 7) : (__u8 *)0;
}
