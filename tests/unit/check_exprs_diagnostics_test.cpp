// Diagnostics of arithmetic, array elements, tables, computed fields and fd_is, with the exact
// text `seam lint` prints (docs/diagnostics.md: E0307, E0308, and E0301..E0303 for operands).
#include <gtest/gtest.h>

#include "unit/check_support.hpp"

namespace {

using seam::test::lint_files;

TEST(CheckExprDiagnostics, BadIndexPastTheEndE0307) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use syscalls
rule r
    on syscalls.any where args[6] == 0
    alert "x"
)"}}),
            R"(rules/a.seam:3:32: error[E0307]: index 6 is past the end of 'args' (6 elements)
    3 |     on syscalls.any where args[6] == 0
      |                                ^
      = hint: indexes run from 0 to 5

1 error, 0 warnings
)");
}

TEST(CheckExprDiagnostics, BadIndexArrayWithoutIndexE0307) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use syscalls
rule r
    on syscalls.any where args == 0
    alert "x"
)"}}),
            R"(rules/a.seam:3:27: error[E0307]: 'args' is an array of 6: read one element
    3 |     on syscalls.any where args == 0
      |                           ^~~~
      = hint: e.g. `args[0]`

1 error, 0 warnings
)");
}

TEST(CheckExprDiagnostics, BadIndexOnAScalarE0307) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use syscalls
rule r
    on syscalls.any where id[1] == 0
    alert "x"
)"}}),
            R"(rules/a.seam:3:30: error[E0307]: 'id' is not an array
    3 |     on syscalls.any where id[1] == 0
      |                              ^
      = hint: write `id` without an index

1 error, 0 warnings
)");
}

TEST(CheckExprDiagnostics, BadOperandShiftE0308) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use nvidia
rule r
    on nvidia.ioctl_call where cmd >> 64 == 0
    alert "x"
)"}}),
            R"(rules/a.seam:3:39: error[E0308]: a shift by 64 bits
    3 |     on nvidia.ioctl_call where cmd >> 64 == 0
      |                                       ^~
      = hint: values are 64 bits: shift by 0 to 63

1 error, 0 warnings
)");
}

TEST(CheckExprDiagnostics, BadOperandDivisionByZeroE0308) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use nvidia
rule r
    on nvidia.ioctl_call where cmd / 0 == 0
    alert "x"
)"}}),
            R"(rules/a.seam:3:38: error[E0308]: `/` by zero
    3 |     on nvidia.ioctl_call where cmd / 0 == 0
      |                                      ^

1 error, 0 warnings
)");
}

TEST(CheckExprDiagnostics, BadOperandFdIsPatternE0308) {
  EXPECT_EQ(
      lint_files({{"rules/a.seam", R"(use nvidia
rule r
    on nvidia.ioctl_call where fd_is(fd, "nv*dia")
    alert "x"
)"}}),
      R"(rules/a.seam:3:42: error[E0308]: `fd_is` matches a name of 1 to 32 bytes, with `*` only at the end
    3 |     on nvidia.ioctl_call where fd_is(fd, "nv*dia")
      |                                          ^~~~~~~~

1 error, 0 warnings
)");
}

TEST(CheckExprDiagnostics, ArithmeticUnitsE0301) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc where size * duration > 0B
    alert "x"
)"}}),
            R"(rules/a.seam:3:26: error[E0301]: cannot multiply a byte count by a duration
    3 |     on cuda.malloc where size * duration > 0B
      |                          ^~~~~~~~~~~~~~~

1 error, 0 warnings
)");
}

TEST(CheckExprDiagnostics, BitOperationOnBytesE0301) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc where size & 0xff == 0
    alert "x"
)"}}),
            R"(rules/a.seam:3:26: error[E0301]: `&` takes plain numbers, not a byte count
    3 |     on cuda.malloc where size & 0xff == 0
      |                          ^~~~~~~~~~~

1 error, 0 warnings
)");
}

TEST(CheckExprDiagnostics, ArithmeticOnAStringE0302) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc where comm + 1 == 0
    alert "x"
)"}}),
            R"(rules/a.seam:3:26: error[E0302]: `+` needs numbers, but this is str
    3 |     on cuda.malloc where comm + 1 == 0
      |                          ^~~~

1 error, 0 warnings
)");
}

TEST(CheckExprDiagnostics, ArithmeticMissingUnitE0303) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda
rule r
    on cuda.malloc where size + 1 > 0B
    alert "x"
)"}}),
            R"(rules/a.seam:3:33: error[E0303]: '1' needs a unit: 'size' is a byte count
    3 |     on cuda.malloc where size + 1 > 0B
      |                                 ^
      = hint: write 1KiB

1 error, 0 warnings
)");
}

TEST(CheckExprDiagnostics, ComputedFieldOfTheWrongUnitE0302) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(module m
library c = "libc.so.6"
span s = c:f (a: u64, b: bytes = a * 2)
)"}}),
            R"(rules/a.seam:3:34: error[E0302]: field 'b' is a byte count, but this is u64
    3 | span s = c:f (a: u64, b: bytes = a * 2)
      |                                  ^~~~~

1 error, 0 warnings
)");
}

TEST(CheckExprDiagnostics, TableOfMixedUnitsE0301) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(module m
library c = "libc.so.6"
span s = c:f (a: u64, b: u32 = [1B, 2][a])
)"}}),
            R"(rules/a.seam:3:37: error[E0301]: table entries need one unit, but this is i64
    3 | span s = c:f (a: u64, b: u32 = [1B, 2][a])
      |                                     ^
      = hint: the first entry is a byte count

1 error, 0 warnings
)");
}

TEST(CheckExprDiagnostics, ShippedArithmeticIsClean) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use nccl, nvidia, syscalls
rule a on nccl.all_reduce where bytes > 1GiB and count % 2 == 1 alert "{bytes}"
rule b on nvidia.ioctl_call where cmd_type == 0x46 and fd_is(fd, "nvidia*") alert "x"
rule c on syscalls.any where args[0] - 1 < 10 and -args[1] < 0 alert "x"
)"}}),
            "");
}

}  // namespace
