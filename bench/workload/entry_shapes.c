// Three functions that return 0 at once and differ only in their first instruction, which
// decides what a uprobe hit on them costs (x86-64):
//   sync_push : push %rbp         emulated by the kernel (like the real libcudart.so.13)
//   sync_nop5 : 0f 1f 44 00 00    a 5-byte nop, in entry_nop5.c
//   sync_lea  : lea (%rdi),%rax   neither emulated nor optimisable: single-stepped out of line
// bench/run links both files into one library and prints each function's first bytes.

__asm__(
    ".text\n"
    ".globl sync_push\n"
    ".type sync_push, @function\n"
    "sync_push:\n"
    "  push %rbp\n"
    "  mov %rsp, %rbp\n"
    "  xor %eax, %eax\n"
    "  pop %rbp\n"
    "  ret\n"
    ".size sync_push, .-sync_push\n"
    ".globl sync_lea\n"
    ".type sync_lea, @function\n"
    "sync_lea:\n"
    "  lea (%rdi), %rax\n"
    "  xor %eax, %eax\n"
    "  ret\n"
    ".size sync_lea, .-sync_lea\n");
