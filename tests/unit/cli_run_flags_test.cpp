// `seam run` flags refused before anything is compiled or loaded.
#include <gtest/gtest.h>

#include "support/test_support.hpp"

namespace {

using seam::test::CommandResult;
using seam::test::run_command;

CommandResult run_with_ringbuf(const std::string& kib) {
  return run_command(
      {SEAM_EXE, "run", "--ringbuf-size", kib, std::string(SEAM_SOURCE_DIR) + "/rules/malloc.seam"});
}

TEST(CliRunFlags, RingbufSizesPastTwoGibAreRefusedNotWrappedToZero) {
  for (const char* kib : {"4194304", "2147483648"}) {  // 4 GiB and 2 TiB: 0 bytes once multiplied in 32 bits
    CommandResult r = run_with_ringbuf(kib);
    EXPECT_EQ(r.exit_code, 2) << kib << r.err;
    EXPECT_EQ(r.err,
              std::string("seam run: --ringbuf-size must be a power of two from 4 to 2097152 (KiB: 4 KiB to "
                          "2 GiB), not ") +
                  kib + "\n");
  }
  CommandResult odd = run_with_ringbuf("100");
  EXPECT_EQ(odd.exit_code, 2);
  EXPECT_NE(odd.err.find("power of two"), std::string::npos) << odd.err;
}

}  // namespace
