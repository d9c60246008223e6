/* seam_fd_name_match: included by programs whose rules use fd_is(), since it needs the kernel's
 * task_struct, files_struct, fdtable, file and dentry types (kernel_types.h has them only then). */
#pragma once

/* The current process's file descriptor `fd` names a file whose last path component equals
 * `lit` (len bytes; with `prefix`, starts with it): task->files->fdt->fd[fd]->f_path.dentry's
 * name (SEAM_KERNEL_READ: relocated in a bundle only, seam_prelude.h). A device node matches by
 * its own name (/dev/nvidiactl: "nvidiactl"). */
static __always_inline int seam_fd_name_match(__u64 fd, const char *lit, int len, int prefix)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct files_struct *files = SEAM_KERNEL_READ(task, files);
	if (!files)
		return 0;
	struct fdtable *fdt = SEAM_KERNEL_READ(files, fdt);
	if (!fdt || fd >= SEAM_KERNEL_READ(fdt, max_fds))
		return 0;
	struct file **fds = SEAM_KERNEL_READ(fdt, fd);
	struct file *file = NULL;
	if (bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]) || !file)
		return 0;
	const unsigned char *name = SEAM_KERNEL_READ(file, f_path.dentry, d_name.name);
	char buf[33] = {};
	if (bpf_probe_read_kernel_str(buf, sizeof(buf), name) < 0)
		return 0;
#pragma unroll
	for (int i = 0; i < 32; i++) {
		if (i >= len)
			return prefix || buf[i] == 0;
		if (buf[i] != lit[i])
			return 0;
	}
	return prefix || buf[32] == 0;
}
