/* The user stack copy of a record (plan::FieldType::UStackCopy, fill_stack_copy.c.tmpl): the
 * bytes copied, frame 0 (the probed function's entry for a span's end, else 0), the user
 * registers in plan::StackCopyReg order, then the stack from sp up, in page-sized reads that end
 * at the stack's top (runtime/unwind/ reads it). `chunks` pages at most (a constant of the call:
 * the verifier follows the loop that many times). Built with -DSEAM_STACK_COPY_LINKED (a seam
 * whose build could build it), the copy is the prebuilt object seam links into the program
 * (compiler/codegen/prebuilt_bpf.hpp), not compiled with it; __hidden: the verifier checks it in
 * its caller's context, as if it were inline. */
#pragma once

#define SEAM_STACK_COPY_CHUNK 4096   /* plan::kStackCopyChunk: a read never crosses the stack's top */
#define SEAM_STACK_COPY_MAX_CHUNKS 16 /* --ustack-copy 64 (KiB) */

#ifdef SEAM_STACK_COPY_LINKED
int seam_stack_copy(struct pt_regs *ctx, __u64 *sc, __u64 frame0, __u64 chunks) __hidden;
#else
SEAM_PREBUILT_LINKAGE int seam_stack_copy(struct pt_regs *ctx, __u64 *sc, __u64 frame0, __u64 chunks)
{
	__u64 sp = ctx->sp, copied = 0;
	char *stack = (char *)&sc[10];
	sc[1] = frame0;
	sc[2] = ctx->ip;
	sc[3] = sp;
	sc[4] = ctx->bp;
	sc[5] = ctx->bx;
	sc[6] = ctx->r12;
	sc[7] = ctx->r13;
	sc[8] = ctx->r14;
	sc[9] = ctx->r15;
	for (__u32 i = 0; i < SEAM_STACK_COPY_MAX_CHUNKS; i++) {
		if (i >= chunks)
			break;
		__u64 at = (__u64)i * SEAM_STACK_COPY_CHUNK;
		if (bpf_probe_read_user(stack + at, SEAM_STACK_COPY_CHUNK, (const void *)(sp + at)) == 0) {
			copied += SEAM_STACK_COPY_CHUNK;
			continue;
		}
		/* The stack's top is in this piece: read up to the page boundary, = chunk - offset in the
		 * page, written so the verifier sees 1 <= n <= chunk. */
		__u64 n = (~(sp + at) & (SEAM_STACK_COPY_CHUNK - 1)) + 1;
		if (n < SEAM_STACK_COPY_CHUNK && bpf_probe_read_user(stack + at, n, (const void *)(sp + at)) == 0)
			copied += n;
		break;
	}
	sc[0] = copied;
	return 0;
}
#endif
