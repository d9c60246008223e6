/* seam_py_gil_held: python.gil_held read from the interpreter's memory where a rule tests it,
 * so that no probe sits on the GIL's path (plan::CpythonProcess is the same struct). Included
 * by programs with a `cpython_gil` state; needs task_struct from kernel_types.h. */
#pragma once

struct seam_py_proc {
	__u64 runtime;     /* &_PyRuntime in this process */
	__u32 interp_ptr;  /* 0: the GIL is in _PyRuntime; else where _PyRuntime keeps the main interpreter */
	__u32 locked;      /* the GIL's `locked` (int), from its base */
	__u32 holder;      /* the GIL's `last_holder` (PyThreadState *), from its base */
	__u32 thread_id;   /* PyThreadState.thread_id: pthread_self() of its thread */
	/* Where a pystack walk finds the thread's frames (py_stack.h; plan::CpythonProcess says how) */
	__u32 tss_key;
	__u32 tss_base;
	__u32 tstate_frame;
	__u32 cframe_frame;
	__u32 frame_back;
	__u32 frame_code;
	__u32 frame_instr;
	__u32 frame_owner;
	__u32 frame_read;
	__u32 instr_is_int;
	__u32 frame_entry;
	__u32 pad;
};

/* Reads the process's interpreter GIL: where its state is (`*base`) and its `locked` word. Non-zero
 * when the process is not in the map or a read fails. */
static __always_inline int seam_py_gil_read(void *procs, __u32 tgid, struct seam_py_proc **proc, __u64 *base,
					    int *locked)
{
	struct seam_py_proc *p = bpf_map_lookup_elem(procs, &tgid);
	if (!p)
		return -1;
	*proc = p;
	*base = p->runtime;
	if (p->interp_ptr && (bpf_probe_read_user(base, sizeof(*base), (void *)(p->runtime + p->interp_ptr)) || !*base))
		return -1;
	return bpf_probe_read_user(locked, sizeof(*locked), (void *)(*base + p->locked)) ? -1 : 0;
}

/* The current thread holds its interpreter's GIL: the GIL is locked and its last holder's
 * thread is this one. Three or four reads of user memory, then the thread's fs base at
 * `fsbase_at` (seam_py_gil_held below); any read that fails says "not held". Built with
 * -DSEAM_PY_GIL_LINKED (a seam whose build could build it), it is the prebuilt object seam links
 * into the program (compiler/codegen/prebuilt_bpf.hpp), not compiled with it; __hidden: the
 * verifier checks it in its caller's context, as if it were inline. */
#ifdef SEAM_PY_GIL_LINKED
int seam_py_gil_held_at(void *procs, __u32 tgid, const void *fsbase_at) __hidden;
#else
SEAM_PREBUILT_LINKAGE int seam_py_gil_held_at(void *procs, __u32 tgid, const void *fsbase_at)
{
	struct seam_py_proc *p = 0;
	__u64 base = 0;
	int locked = 0;
	if (seam_py_gil_read(procs, tgid, &p, &base, &locked) || locked != 1)
		return 0;
	__u64 holder = 0, thread_id = 0, fsbase = 0;
	if (bpf_probe_read_user(&holder, sizeof(holder), (void *)(base + p->holder)) || !holder)
		return 0;
	if (bpf_probe_read_user(&thread_id, sizeof(thread_id), (void *)(holder + p->thread_id)))
		return 0;
	/* glibc's and musl's pthread_self() is the thread's TCB, which the fs base points at. */
	if (bpf_probe_read_kernel(&fsbase, sizeof(fsbase), fsbase_at))
		return 0;
	return thread_id != 0 && thread_id == fsbase;
}
#endif

/* Where the kernel keeps the current thread's fs base: at this kernel's offset (kernel_types.h),
 * or relocated to the running kernel's in a bundle (SEAM_PORTABLE), as SEAM_KERNEL_READ reads. */
static __always_inline int seam_py_gil_held(void *procs, __u32 tgid)
{
	struct task_struct *task = bpf_get_current_task_btf();
#ifdef SEAM_PORTABLE
	return seam_py_gil_held_at(procs, tgid, __builtin_preserve_access_index(&task->thread.fsbase));
#else
	return seam_py_gil_held_at(procs, tgid, &task->thread.fsbase);
#endif
}

/* The interpreter's GIL reads free (`locked` is 0): a take_gil entered now will not wait, unless
 * another thread takes the GIL first (compiler/lower/uprobe_session.cpp). 0 when it cannot be
 * read or the process is not in the map: then the caller measures the call as usual. */
static __always_inline int seam_py_gil_free(void *procs, __u32 tgid)
{
	struct seam_py_proc *p = 0;
	__u64 base = 0;
	int locked = 1;
	return !seam_py_gil_read(procs, tgid, &p, &base, &locked) && locked == 0;
}
