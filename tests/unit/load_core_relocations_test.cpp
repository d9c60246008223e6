// Which objects make libbpf parse the kernel's BTF at load: those with CO-RE relocations in
// .BTF.ext. Built here with clang from two tiny programs, one reading a kernel struct through
// BPF_CORE_READ's builtin and one not; anything that is not such an ELF object has none.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

#include "runtime/load/core_relocations.hpp"
#include "support/test_support.hpp"

namespace seam::runtime {
namespace {

std::vector<uint8_t> compile(const test::TempDir& dir, const std::string& name, const std::string& source) {
  std::string c = dir.write(name + ".c", source);
  std::string o = dir.path() + "/" + name + ".o";
  std::string cmd = "clang -O2 -g -target bpf -c " + c + " -o " + o + " 2>&1";
  if (std::system(cmd.c_str()) != 0) return {};
  std::ifstream in(o, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST(LoadCoreRelocations, OnlyAnObjectWithCoreRelocationsHasThem) {
  test::TempDir dir;
  std::vector<uint8_t> core =
      compile(dir, "core",
              "struct task { int pid; } __attribute__((preserve_access_index));\n"
              "int f(struct task *t) { return __builtin_preserve_access_index(t->pid); }\n");
  std::vector<uint8_t> plain =
      compile(dir, "plain", "struct task { int pid; };\nint f(struct task *t) { return t->pid; }\n");
  ASSERT_FALSE(core.empty());
  ASSERT_FALSE(plain.empty());
  EXPECT_TRUE(has_core_relocations(core));
  EXPECT_FALSE(has_core_relocations(plain));
  EXPECT_FALSE(has_core_relocations({}));
  std::vector<uint8_t> cut(core.begin(), core.begin() + static_cast<long>(core.size() / 2));
  EXPECT_FALSE(has_core_relocations(cut));  // truncated: no section table, not a crash
}

}  // namespace
}  // namespace seam::runtime
