// The byte seam_scope_any holds for a seam_scope key (runtime/run/scope_keeper.hpp; the BPF side
// is seam_scope_byte_of in bpf-templates/seam_scope.h): 0 for no bits, the bits with kScopeExact
// while all are among the first seven, else 1, which sends the programs to the hash.
#include <gtest/gtest.h>

#include "runtime/run/scope_keeper.hpp"

namespace seam::runtime {
namespace {

TEST(ScopeByte, NoBitsIsOutOfEveryScope) {
  EXPECT_EQ(scope_byte_of(0), 0);
}

TEST(ScopeByte, TheFirstSevenBitsAreHeldInTheByte) {
  EXPECT_EQ(scope_byte_of(1), 0x81);
  EXPECT_EQ(scope_byte_of(0x5), 0x85);
  EXPECT_EQ(scope_byte_of(0x7f), 0xff);
  EXPECT_EQ(scope_byte_of(0x7f) & ~kScopeExact, 0x7f);
}

TEST(ScopeByte, AnyLaterBitSendsTheProgramsToTheHash) {
  EXPECT_EQ(scope_byte_of(0x80), 1);
  EXPECT_EQ(scope_byte_of(0x81), 1);
  EXPECT_EQ(scope_byte_of(uint64_t{1} << 63), 1);
  EXPECT_EQ(scope_byte_of(~uint64_t{0}), 1);
}

}  // namespace
}  // namespace seam::runtime
