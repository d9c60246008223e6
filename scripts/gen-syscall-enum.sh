#!/usr/bin/env bash
# Writes the x86-64 syscall number-to-name table as a seam enum (`enum syscall (read = 0, ...)`),
# with its doc comment, from the kernel's UAPI header. stdlib/syscalls.seam holds its output
# verbatim; to regenerate, replace the enum there (its comment line through the closing `)`) with
#   scripts/gen-syscall-enum.sh [/usr/include/x86_64-linux-gnu/asm/unistd_64.h]
# and run `seam stdlib doc > docs/stdlib.md`. On the header it was made from (Debian 12's
# linux-libc-dev 6.1), the output appears verbatim in stdlib/syscalls.seam.
set -euo pipefail
header=${1:-/usr/include/x86_64-linux-gnu/asm/unistd_64.h}
echo "# syscall: the x86-64 system call numbers, printed by name (written by scripts/gen-syscall-enum.sh"
echo "# from the kernel's asm/unistd_64.h; regenerate rather than edit)."
echo "enum syscall ("
awk '$1 == "#define" && $2 ~ /^__NR_/ && $3 ~ /^[0-9]+$/ { sub(/^__NR_/, "", $2); print $2, $3 }' "$header" |
  sort -k2,2n |
  awk '{ line[NR] = "    " $1 " = " $2 } END { for (i = 1; i <= NR; i++) print line[i] (i < NR ? "," : ")") }'
