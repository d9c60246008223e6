// The unwinder on stacks recorded in this process the way the BPF program records them: the
// registers x86-64 call-frame information needs and a copy of the stack from sp up, taken in a
// chain of functions built without frame pointers (this file: -fomit-frame-pointer). Every
// return address expected is taken by the functions themselves (__builtin_return_address).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include <string>
#include <vector>

#include "runtime/unwind/dwarf_unwinder.hpp"
#include "support/stack_capture.hpp"
#include "support/test_support.hpp"

namespace seam::runtime::unwind {
namespace {

using Capture = test::StackCapture;
using test::self_maps;

// Each level appends the address it returns to, after its callee's (innermost first).
__attribute__((noinline)) int level3(Capture* c) {
  int r = test::capture_stack(c);
  c->expected.push_back(reinterpret_cast<uint64_t>(__builtin_return_address(0)));
  return r + 1;
}
__attribute__((noinline)) int level2(Capture* c) {
  int r = level3(c);
  c->expected.push_back(reinterpret_cast<uint64_t>(__builtin_return_address(0)));
  return r + 1;
}
__attribute__((noinline)) int level1(Capture* c) {
  int r = level2(c);
  c->expected.push_back(reinterpret_cast<uint64_t>(__builtin_return_address(0)));
  return r + 1;
}

std::vector<uint64_t> pcs(const Unwound& u) {
  std::vector<uint64_t> out;
  for (const UnwoundFrame& f : u.frames) out.push_back(f.pc);
  return out;
}

pid_t self_tid() {
  return static_cast<pid_t>(syscall(SYS_gettid));
}

TEST(UnwindRecordedStack, FindsEveryFrameOfCodeWithoutFramePointers) {
  Capture c;
  ASSERT_EQ(level1(&c), 4);
  ASSERT_EQ(c.expected.size(), 5u);
  DwarfUnwinder unwinder;
  unwinder.remember_maps(getpid(), self_maps());
  std::optional<Unwound> u = unwinder.unwind(getpid(), self_tid(), {c.regs, c.stack, false});
  ASSERT_TRUE(u);
  ASSERT_GE(u->frames.size(), 5u) << u->truncated;
  std::vector<uint64_t> found = pcs(*u);
  EXPECT_EQ(std::vector<uint64_t>(found.begin(), found.begin() + 5), c.expected);
  EXPECT_FALSE(u->frames[0].is_return);
  for (size_t i = 1; i < u->frames.size(); ++i) EXPECT_TRUE(u->frames[i].is_return) << i;
  // Beyond the test body: gtest, main, libc; every one in mapped code, never a stack address.
  for (const UnwoundFrame& f : u->frames)
    EXPECT_TRUE(unwinder.is_code(getpid(), f.pc - 1)) << std::hex << f.pc;
  // The copy reaches the top of this stack or it does not; either way the stack says so.
  if (c.stack.size() == 8192) {
    EXPECT_TRUE(u->truncated.empty() || u->truncated == "stack copy ends") << u->truncated;
  } else {
    EXPECT_EQ(u->truncated, "") << "the whole stack was copied";
  }
}

TEST(UnwindRecordedStack, AShortCopySaysWhereItEnds) {
  Capture c;
  level1(&c);
  Capture cut = c;
  cut.stack.resize(16);  // not even capture_stack's own frame
  DwarfUnwinder unwinder;
  unwinder.remember_maps(getpid(), self_maps());
  std::optional<Unwound> u = unwinder.unwind(getpid(), self_tid(), {cut.regs, cut.stack, false});
  ASSERT_TRUE(u);
  EXPECT_EQ(u->truncated, "stack copy ends") << u->frames.size() << " frames";
  ASSERT_GE(u->frames.size(), 1u);
  EXPECT_LT(u->frames.size(), 5u);
  for (size_t i = 0; i < u->frames.size(); ++i) EXPECT_EQ(u->frames[i].pc, c.expected[i]) << i;
}

__attribute__((noinline)) int capture_from_callback(void* arg) {
  int r = test::capture_stack(static_cast<Capture*>(arg));
  __asm__ volatile("" ::: "memory");  // not a tail call: this frame stays on the stack
  return r;
}

TEST(UnwindRecordedStack, StopsAtCodeWithoutCallFrameInformation) {
  void* lib = dlopen(SEAM_FIXTURE_DIR "/libunwind_nocfi.so", RTLD_NOW);
  ASSERT_NE(lib, nullptr) << dlerror();
  auto call = reinterpret_cast<int (*)(int (*)(void*), void*)>(dlsym(lib, "nocfi_call"));
  ASSERT_NE(call, nullptr);
  Capture c;
  ASSERT_EQ(call(capture_from_callback, &c), 2);
  DwarfUnwinder unwinder;
  unwinder.remember_maps(getpid(), self_maps());
  std::optional<Unwound> u = unwinder.unwind(getpid(), self_tid(), {c.regs, c.stack, false});
  ASSERT_TRUE(u);
  // capture_stack, capture_from_callback, nocfi_call: its caller is not guessed.
  ASSERT_EQ(u->frames.size(), 3u) << u->truncated;
  EXPECT_EQ(u->frames[0].pc, c.expected[0]);
  EXPECT_EQ(u->frames[1].pc, c.expected[1]);
  EXPECT_EQ(u->truncated, "truncated: no CFI for libunwind_nocfi.so");
}

TEST(UnwindRecordedStack, AnUnknownProcessIsNotUnwound) {
  DwarfUnwinder unwinder;
  Capture c;
  level1(&c);
  EXPECT_FALSE(unwinder.unwind(-5, -5, {c.regs, c.stack, false}));
}

char process_state(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t paren = stat.rfind(')');
  return paren == std::string::npos || paren + 2 >= stat.size() ? '?' : stat[paren + 2];
}

TEST(UnwindRecordedStack, AnExitedProcessKeepsItsRememberedMaps) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  DwarfUnwinder unwinder;
  unwinder.remember_maps(child, self_maps());  // what it had while alive: this process's image
  ASSERT_TRUE(test::wait_until([&] { return process_state(child) == 'Z'; }, std::chrono::seconds(10)));
  EXPECT_FALSE(unwinder.remember(child));  // a zombie's maps are empty: the old ones stay
  EXPECT_TRUE(unwinder.is_code(child, reinterpret_cast<uint64_t>(&level1)));
  waitpid(child, nullptr, 0);
}

}  // namespace
}  // namespace seam::runtime::unwind
