/* seam: included first by every generated BPF program. kernel_types.h is generated per
 * program from the running kernel's BTF (only the types the program names, and what they
 * depend on). Built with BPF_NO_PRESERVE_ACCESS_INDEX: the object is cached per kernel, so its
 * offsets are exact and CO-RE relocations would only cost a BTF parse at load. The generator emits the
 * LICENSE section itself. */
#pragma once

#include "kernel_types.h"
/* The kernel's own pt_regs member names (di, si, ip, sp), as with a vmlinux.h. */
#ifndef __VMLINUX_H__
#define __VMLINUX_H__
#endif

#include "bpf_helpers.h"
#include "bpf_tracing.h"
#include "bpf_core_read.h"

/* Kernel struct reads (task->files, task->thread.fsbase) at the offsets of kernel_types.h, which a
 * program built by `seam run` has from the running kernel: no CO-RE relocation, so libbpf parses
 * no kernel BTF at load (5.5 MB read, about 11 MB while parsed, for each object that has one). A
 * bundle (`seam build`, -DSEAM_PORTABLE) runs on other kernels and keeps them relocated. */
#ifdef SEAM_PORTABLE
#define SEAM_KERNEL_READ BPF_CORE_READ
#else
#define SEAM_KERNEL_READ BPF_PROBE_READ
#endif

#ifndef NULL
#define NULL ((void *)0)
#endif

typedef _Bool seam_bool;
typedef __u64 seam_ns;

#define SEAM_INLINE static __always_inline

/* seam's fixed functions (seam_record.h, py_gil.h, py_walk.h, stack_copy.h): inline in a
 * program; a __hidden function of its own in the object seam's build makes of each, whose source
 * defines this first (compiler/codegen/prebuilt_bpf.hpp). */
#ifndef SEAM_PREBUILT_LINKAGE
#define SEAM_PREBUILT_LINKAGE SEAM_INLINE
#endif

/* A large program is built as several objects at once, one clang per CPU, and linked into one
 * (compiler/build/build_object.hpp): the build of part i of N gets -DSEAM_PARTS=N -DSEAM_PART=i
 * and keeps the programs k with k % N == i. Every map and global is then defined weak, so that
 * the parts' copies become one at the link. Built whole, nothing changes. */
#ifdef SEAM_PARTS
#define SEAM_SHARED __attribute__((weak))
#define SEAM_IN_PART(k) ((k) % SEAM_PARTS == SEAM_PART)
#else
#define SEAM_SHARED
#define SEAM_IN_PART(k) 1
#endif

/* Reads `sizeof(*dst)` bytes of user memory at `ptr`; zero-fills on failure. */
#define SEAM_READ_USER(dst, ptr)                                         \
  do {                                                                   \
    if (bpf_probe_read_user((dst), sizeof(*(dst)), (const void *)(ptr))) \
      __builtin_memset((dst), 0, sizeof(*(dst)));                        \
  } while (0)

/* Copies a NUL-terminated user string into a char array; empty on failure. */
#define SEAM_READ_USER_STR(dst, ptr)                                              \
  do {                                                                            \
    if (bpf_probe_read_user_str((dst), sizeof(dst), (const void *)(ptr)) < 0) (dst)[0] = 0; \
  } while (0)

#define SEAM_CURRENT_PID() ((__u32)(bpf_get_current_pid_tgid() >> 32))
#define SEAM_CURRENT_TID() ((__u32)bpf_get_current_pid_tgid())

#include "seam_record.h"
