// seam::Result: a value or a coded error; Result<void> for a step with no value.
#include "compiler/diag/result.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>

namespace seam {
namespace {

Result<int> half(int n) {
  if (n % 2) return Error{std::to_string(n) + " is odd", ErrorCode::InvalidInput};
  return n / 2;
}

Result<void> check_even(int n) {
  Result<int> h = half(n);
  if (!h) return h.failure();  // passed up unchanged, code and all
  return {};
}

TEST(Result, HoldsAValueOrACodedError) {
  Result<int> ok = half(8);
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok, 4);
  Result<int> odd = half(7);
  ASSERT_FALSE(odd);
  EXPECT_EQ(odd.error(), "7 is odd");
  EXPECT_EQ(odd.code(), ErrorCode::InvalidInput);
}

TEST(Result, AnErrorWithoutACodeIsFailed) {
  Result<int> r = Error{"no kind"};
  EXPECT_EQ(r.code(), ErrorCode::Failed);
}

TEST(Result, VoidResultSucceedsOrCarriesTheErrorUp) {
  EXPECT_TRUE(check_even(2));
  Result<void> r = check_even(3);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "3 is odd");
  EXPECT_EQ(r.code(), ErrorCode::InvalidInput);
}

TEST(Result, ErrnoValuesMapToTheirKind) {
  EXPECT_EQ(code_of_errno(ENOENT), ErrorCode::NotFound);
  EXPECT_EQ(code_of_errno(-ESRCH), ErrorCode::NotFound);  // libbpf's negative errors too
  EXPECT_EQ(code_of_errno(EPERM), ErrorCode::Denied);
  EXPECT_EQ(code_of_errno(EACCES), ErrorCode::Denied);
  EXPECT_EQ(code_of_errno(EINVAL), ErrorCode::InvalidInput);
  EXPECT_EQ(code_of_errno(EOPNOTSUPP), ErrorCode::Unsupported);
  EXPECT_EQ(code_of_errno(EIO), ErrorCode::Failed);
  EXPECT_EQ(code_of_errno(0), ErrorCode::Failed);
}

}  // namespace
}  // namespace seam
