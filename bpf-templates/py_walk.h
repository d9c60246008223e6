/* The pystack walk (fill_pystack.c.tmpl, py_stack.h): the current thread's Python frames, innermost first.
 * The thread's PyThreadState is the thread-specific value of the interpreter's autoTSSkey, which
 * glibc keeps in the thread's struct pthread (the fs base points at it); its first frame is
 * tstate->frame (3.8 to 3.10), tstate->cframe->current_frame (3.11, 3.12) or
 * tstate->current_frame (3.13); then each frame's caller. The walk runs in bpf_loop, so the
 * verifier checks one step instead of every frame count. Each step is one read of the frame's
 * bytes (into a per-CPU buffer) and writes the frame found straight into the record: no copy of
 * a fixed-size frame array at the end, so a short stack costs only its own frames. The count of
 * frames kept lives in the per-CPU buffer, not on the stack: the verifier checks a bpf_loop
 * callback as a loop until its states repeat, and a count it knows exactly (0, 1, 2...) never
 * repeats, so it walked every count: 115,000 instructions for a 64-frame walk, most of a bundle's
 * start. Read back from a map, the count is a bounded unknown and one pass is enough. Included
 * after py_gil.h, by py_stack.h (inline: SEAM_PREBUILT_LINKAGE, seam_prelude.h) or by the object seam builds
 * once at its own build (cli/prebuild/), whose walk the programs then call. */
#pragma once

#define SEAM_PY_FRAME_READ 128 /* bytes of one frame read at once: every offset used is below */
#define SEAM_PY_NO_CFRAME 0xffffffff
#define SEAM_PY_ENTRY_BIT (1ULL << 63) /* plan::kPyEntryBit */

/* Per CPU (a program runs on one CPU at a time): the bytes of the frame being read, then the
 * count of frames kept. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8[SEAM_PY_FRAME_READ + 8]);
} seam_py_scratch SEC(".maps") SEAM_SHARED;

struct seam_py_walk {
	struct seam_py_proc *pp;
	__u8 *fb;    /* the per-CPU frame bytes */
	__u64 *kept; /* the per-CPU count of frames kept (after the frame bytes) */
	__u64 *out;  /* the record's frames: {code, instruction} pairs */
	__u64 frame;
	__u64 max;   /* the record's frames (a constant the verifier bounds `out` with) */
	__u32 size;  /* bytes read per frame */
	__u32 status;
};

/* 0 and *frame set (0 when the thread runs no Python code); else the record's status. */
static __always_inline int seam_py_first_frame(const struct seam_py_proc *p, __u64 fsbase, __u64 *frame)
{
	__u32 key = 0;
	if (!p->tss_key || bpf_probe_read_user(&key, sizeof(key), (void *)(p->runtime + p->tss_key)) || key >= 32)
		return 2; /* PyStackStatus::NoThread */
	__u64 tstate = 0;
	if (bpf_probe_read_user(&tstate, sizeof(tstate), (void *)(fsbase + p->tss_base + key * 16 + 8)) || !tstate)
		return 2;
	*frame = 0;
	if (bpf_probe_read_user(frame, sizeof(*frame), (void *)(tstate + p->tstate_frame)))
		return 4; /* PyStackStatus::ReadFailed */
	if (p->cframe_frame != SEAM_PY_NO_CFRAME && *frame &&
	    bpf_probe_read_user(frame, sizeof(*frame), (void *)(*frame + p->cframe_frame)))
		return 4;
	return 0;
}

/* The u64 at an 8-aligned offset of a frame's bytes (offsets come from the process map). */
static __always_inline __u64 seam_py_word(const __u8 *fb, __u32 off)
{
	return *(const __u64 *)(fb + (off & (SEAM_PY_FRAME_READ - 8)));
}

/* The byte at an offset of a frame's bytes; 0 when the offset is 0 (the process has no such field). */
static __always_inline __u8 seam_py_byte(const __u8 *fb, __u32 off)
{
	if (!off)
		return 0;
	return (__u8)(seam_py_word(fb, off & ~7u) >> ((off & 7) * 8));
}

/* One frame: keep it unless it is a C-stack shim (owner 3, 3.12+), then go to its caller. */
static long seam_py_step(__u64 index, void *arg)
{
	struct seam_py_walk *w = arg;
	struct seam_py_proc *pp = w->pp;
	__u8 *fb = w->fb;
	__u64 n = *w->kept;
	if (!w->frame)
		return 1;
	if (n >= w->max) {
		w->status = 3; /* PyStackStatus::Truncated */
		return 1;
	}
	__u32 size = w->size;
	if (size < 8 || size > SEAM_PY_FRAME_READ || bpf_probe_read_user(fb, size, (const void *)w->frame)) {
		w->status = 4; /* PyStackStatus::ReadFailed */
		return 1;
	}
	__u64 code = seam_py_word(fb, pp->frame_code);
	if (seam_py_byte(fb, pp->frame_owner) == 3) {
		if (n > 0) /* the frame before is its eval call's first */
			w->out[2 * (n - 1)] |= SEAM_PY_ENTRY_BIT;
	} else if (code) {
		__u64 instr = seam_py_word(fb, pp->frame_instr);
		w->out[2 * n] = code | (seam_py_byte(fb, pp->frame_entry) ? SEAM_PY_ENTRY_BIT : 0);
		w->out[2 * n + 1] = pp->instr_is_int ? (__u64)(__s64)(__s32)instr : instr;
		*w->kept = n + 1;
	}
	w->frame = seam_py_word(fb, pp->frame_back);
	return 0;
}

/* Walks at most `max` frames into `out` (the record's PyStack field: count, status, frames), from
 * the thread's fs base. Returns 0. */
SEAM_PREBUILT_LINKAGE int seam_py_walk_frames(void *procs, __u32 tgid, __u64 fsbase, __u64 *out, __u64 max)
{
	struct seam_py_walk w = {};
	out[0] = 0;
	out[1] = 1; /* PyStackStatus::NotRead */
	w.pp = bpf_map_lookup_elem(procs, &tgid);
	if (!w.pp)
		return 0;
	__u32 zero = 0;
	w.fb = bpf_map_lookup_elem(&seam_py_scratch, &zero);
	if (!w.fb)
		return 0;
	w.kept = (__u64 *)(w.fb + SEAM_PY_FRAME_READ);
	*w.kept = 0;
	w.status = seam_py_first_frame(w.pp, fsbase, &w.frame);
	w.out = &out[2];
	w.max = max;
	w.size = w.pp->frame_read;
	if (w.status == 0)
		bpf_loop(max + 16, seam_py_step, &w, 0); /* + room for the shims skipped */
	if (w.status == 0 && w.frame)
		w.status = 3; /* more frames than the loop went through */
	out[1] = w.status;
	out[0] = *w.kept;
	return 0;
}
