// sync_nop5: returns 0 at once and starts with the 5-byte nop `0f 1f 44 00 00`, the one
// instruction the kernel can turn into a call to its uprobe trampoline (faster hits).
// Built by bench/run with gcc -pg -mfentry -mnop-mcount -fno-pie: the mcount call becomes that
// exact nop. (clang's patchable_function_entry(5) emits `0f 1f 44 00 08`, gcc's five 0x90s.)
__attribute__((noinline)) int sync_nop5(void* stream) {
  (void)stream;
  return 0;
}
