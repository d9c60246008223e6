/* seam: uprobe sessions (kernel 6.13+). seam_session_is_return() is true in the program's run at
 * the function's return. It is the kfunc bpf_session_is_return(), called here as helper 24149
 * (plan::kSessionIsReturnPlaceholder, an id no kernel has): the loader rewrites each such call into
 * the kfunc's call (runtime/load/session_kfunc.hpp). As an extern __ksym, libbpf 1.1 would parse
 * the kernel's whole BTF at every load to find the kfunc's id. */
#pragma once

static long (*const seam_session_is_return_call)(void) = (void *)24149;

static __always_inline _Bool seam_session_is_return(void) {
  return (__u8)seam_session_is_return_call();
}
