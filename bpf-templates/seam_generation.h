/* seam: which generation of the run's object acts (runtime/run/live_generation.hpp). A reload
 * loads and attaches the next object while the running one still acts, then `seam run` writes
 * the new object's generation into seam_live_gen (one write), then detaches the old one: at every
 * instant exactly one attached generation acts, so a call is seen once (only a probe hit whose two
 * objects' programs run on either side of the write, tens of ns apart, can be seen twice or not).
 * Every object of a run shares the map by fd; an object loaded alone (its own map, 0) acts. */
#pragma once

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u32);
  __uint(max_entries, 1);
} seam_live_gen SEC(".maps") SEAM_SHARED;

/* This object's generation, set by the loader (0 unless it shares seam_live_gen). */
SEAM_SHARED const volatile __u32 seam_generation = 0;

static __always_inline int seam_live(void) {
  __u32 zero = 0;
  __u32 *live = bpf_map_lookup_elem(&seam_live_gen, &zero);
  return live && *live == seam_generation;
}

/* Whether a span's end acts on a span begun under generation `began` (the begin stores it): the
 * live generation ends every span; another ends only those its own generation began. A return
 * probe may be the only program that runs at a call's return (through a perf event or a uprobe
 * session, only the probes attached at the call's entry run), so the old object still ends the
 * calls it saw begin, after the write and until it is detached. The end clears the span, so of
 * two programs that run for one hit the first ends it and the second finds nothing. */
static __always_inline int seam_ends(int live, __u32 began) {
  return live || began == seam_generation;
}
