/* The Python frames of a record (fill_pystack.c.tmpl): the walk of py_walk.h from the current
 * thread's fs base. Built with -DSEAM_PY_WALK_LINKED (a seam whose build could build it), the walk
 * is not compiled with the program: it is the prebuilt object seam links into it (cli/prebuild/,
 * build::BuildOptions::link_with), about 15 ms less of clang's time in the part that holds it.
 * __hidden: the verifier checks it in its caller's context, as if it were inline. Included after
 * py_gil.h. */
#pragma once

#ifdef SEAM_PY_WALK_LINKED
int seam_py_walk_frames(void *procs, __u32 tgid, __u64 fsbase, __u64 *out, __u64 max) __hidden;
#else
#include "py_walk.h"
#endif

static __always_inline void seam_py_stack(void *procs, __u32 tgid, __u64 *out, __u64 max)
{
	/* A direct (BTF) load of the fs base: cheaper than a bpf_probe_read_kernel call. */
	struct task_struct *task = bpf_get_current_task_btf();
	seam_py_walk_frames(procs, tgid, task->thread.fsbase, out, max);
}
