// stdlib/syscalls.seam: the x86-64 syscall enum (370 names) on `any` and `enter`, and the named
// per-syscall spans, checked through the stdlib module as a rule uses them.
#include <gtest/gtest.h>

#include "unit/check_support.hpp"

namespace {

using seam::test::check_files;
using seam::test::lint_files;

TEST(CheckSyscalls, ASyscallNameComparedWithIdBecomesItsNumber) {
  seam::check::Program p = check_files({{"rules/a.seam", R"(use syscalls
rule r on syscalls.any where id == futex or id != set_mempolicy_home_node alert "{id}"
)"}});
  ASSERT_EQ(p.diagnostics.error_count(), 0u);
  const auto& rule = std::get<seam::ast::RuleDecl>(p.rule_files[0].decls[1]);
  const auto& either = std::get<seam::ast::Binary>(rule.where->node);
  EXPECT_EQ(std::get<seam::ast::IntLit>(std::get<seam::ast::Binary>(either.lhs->node).rhs->node).value, 202);
  EXPECT_EQ(std::get<seam::ast::IntLit>(std::get<seam::ast::Binary>(either.rhs->node).rhs->node).value, 450);
}

TEST(CheckSyscalls, UnknownSyscallNameE0112) {
  std::string out = lint_files({{"rules/a.seam", R"(use syscalls
rule r
    on syscalls.enter where id == futx
    alert "x"
)"}});
  EXPECT_EQ(out.substr(0, out.find("      = hint: syscall values:")),
            R"(rules/a.seam:3:35: error[E0112]: 'futx' is not a value of enum syscall
    3 |     on syscalls.enter where id == futx
      |                                   ^~~~
      = hint: did you mean futex?
)");
  EXPECT_NE(out.find("1 error, 0 warnings"), std::string::npos) << out;
}

TEST(CheckSyscalls, NamedSpansHaveTheKernelsArgumentNames) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use syscalls
rule f on syscalls.futex where op & 0x7f == 0 and duration > 1ms alert "{uaddr} {val} {ret}"
rule i on syscalls.ioctl where fd == 3 alert "{cmd} {arg}"
rule m on syscalls.mmap where len > 1MiB and fd == -1 alert "{addr} {prot} {flags} {off}"
rule u on syscalls.munmap where len > 0B alert "{addr}"
rule r on syscalls.read where count > 0B alert "{fd} {buf} {ret}"
rule p on syscalls.pread64 where pos > 0 alert "{fd} {buf} {count}"
rule s on syscalls.sendto where len > 0B alert "{fd} {buff} {flags}"
rule v on syscalls.recvfrom where size > 0B alert "{fd} {ubuf} {flags}"
)"}}),
            "");  // no diagnostics
}

}  // namespace
