// resolve(): names, versions, globs, aliases, fragments, and entry classification, on fixtures
// whose bytes are known and on the real CUDA/NCCL/Python libraries when they are installed.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <sstream>

#include "runtime/elf/resolve.hpp"
#include "support/test_support.hpp"

namespace seam::runtime::elf {
namespace {

const std::string kFixtures = SEAM_FIXTURE_DIR;

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

ElfFile open_or_die(const std::string& path) {
  Result<ElfFile> f = ElfFile::open(path);
  EXPECT_TRUE(f.ok()) << f.error();
  return std::move(f).value();
}

bool has_name(const SymbolHit& hit, std::string_view name) {
  return std::find(hit.names.begin(), hit.names.end(), name) != hit.names.end();
}

// The address `nm` gives a dynamic symbol, and its file offset from `readelf -l`'s PT_LOADs.
struct ToolAnswer {
  uint64_t address = 0;
  uint64_t file_offset = 0;
};

ToolAnswer ask_binutils(const std::string& path, const std::string& symbol) {
  ToolAnswer answer;
  test::CommandResult nm = test::run_command({"nm", "-D", "--defined-only", path});
  std::istringstream lines(nm.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string addr, type, name;
    fields >> addr >> type >> name;
    if (name == symbol) answer.address = std::stoull(addr, nullptr, 16);
  }
  test::CommandResult phdrs = test::run_command({"readelf", "-lW", path});
  std::istringstream rows(phdrs.out);
  for (std::string row; std::getline(rows, row);) {
    std::istringstream fields(row);
    std::string type, offset, vaddr, paddr, filesz;
    fields >> type >> offset >> vaddr >> paddr >> filesz;
    if (type != "LOAD") continue;
    uint64_t off = std::stoull(offset, nullptr, 16), va = std::stoull(vaddr, nullptr, 16),
             size = std::stoull(filesz, nullptr, 16);
    if (answer.address >= va && answer.address < va + size) answer.file_offset = answer.address - va + off;
  }
  return answer;
}

TEST(Resolve, FixtureSymbolMatchesBinutils) {
  std::string path = kFixtures + "/libcudart.so.12";
  ElfFile f = open_or_die(path);
  std::vector<SymbolHit> hits = resolve(f, "cudaStreamSynchronize");
  ASSERT_EQ(hits.size(), 1u);
  ToolAnswer expected = ask_binutils(path, "cudaStreamSynchronize");
  ASSERT_NE(expected.address, 0u);
  EXPECT_EQ(hits[0].address, expected.address);
  EXPECT_EQ(hits[0].file_offset, expected.file_offset);
  EXPECT_GT(hits[0].size, 0u);
  EXPECT_EQ(hits[0].names, std::vector<std::string>{"cudaStreamSynchronize"});
  // Built with frame pointers: the function opens with push %rbp.
  EXPECT_EQ(hits[0].first, FirstInstruction::Push);
  EXPECT_EQ(hits[0].probe_offset_delta, 0u);
}

TEST(Resolve, UnknownNameGivesNoHit) {
  ElfFile f = open_or_die(kFixtures + "/libcudart.so.12");
  EXPECT_TRUE(resolve(f, "cudaNoSuchFunction").empty());
  EXPECT_TRUE(resolve(f, "cudaStreamSync").empty()) << "a plain name is not a prefix";
}

TEST(Resolve, Endbr64MovesTheProbeFourBytes) {
  ElfFile f = open_or_die(kFixtures + "/libfake_cudart_cet.so");
  std::vector<SymbolHit> hits = resolve(f, "cudaStreamSynchronize");
  ASSERT_EQ(hits.size(), 1u);
  uint8_t code[4];
  ASSERT_EQ(f.read_bytes(hits[0].file_offset, code), 4u);
  EXPECT_EQ(code[0], 0xf3);
  EXPECT_EQ(code[3], 0xfa);
  EXPECT_EQ(hits[0].probe_offset_delta, 4u);
  EXPECT_EQ(hits[0].first, FirstInstruction::Push);
}

class Shapes : public ::testing::Test {
 protected:
  ElfFile f = open_or_die(kFixtures + "/libelf_shapes.so");
  SymbolHit one(std::string_view name) {
    std::vector<SymbolHit> hits = resolve(f, name);
    EXPECT_EQ(hits.size(), 1u) << name;
    return hits.empty() ? SymbolHit{} : hits[0];
  }
};

TEST_F(Shapes, ClassifiesEachEntryKind) {
  EXPECT_EQ(one("shape_push").first, FirstInstruction::Push);
  EXPECT_EQ(one("shape_push_r12").first, FirstInstruction::Push);
  EXPECT_EQ(one("shape_nop5").first, FirstInstruction::Nop5);
  EXPECT_EQ(one("shape_lea").first, FirstInstruction::SingleStep);
  SymbolHit endbr_push = one("shape_endbr_push");
  EXPECT_EQ(endbr_push.first, FirstInstruction::Push);
  EXPECT_EQ(endbr_push.probe_offset_delta, 4u);
  SymbolHit endbr_sub = one("shape_endbr_sub");
  EXPECT_EQ(endbr_sub.first, FirstInstruction::SingleStep);
  EXPECT_EQ(endbr_sub.probe_offset_delta, 4u);
  EXPECT_EQ(one("shape_lea").probe_offset_delta, 0u);
}

TEST_F(Shapes, GlobNeverMatchesColdFragment) {
  // The fragment exists (so the test can fail) ...
  std::vector<SymbolHit> exact = resolve(f, "shape_push.cold.1");
  ASSERT_EQ(exact.size(), 1u);
  // ... but no glob picks it up.
  for (std::string_view glob : {"shape_push*", "shape_*", "*"}) {
    for (const SymbolHit& hit : resolve(f, glob)) {
      EXPECT_NE(hit.address, exact[0].address) << glob;
      for (const std::string& name : hit.names) EXPECT_EQ(name.find(".cold"), std::string::npos) << glob;
    }
  }
}

TEST_F(Shapes, GlobMatchesManyFunctions) {
  std::vector<SymbolHit> hits = resolve(f, "shape_endbr_*");
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_TRUE(has_name(hits[0], "shape_endbr_push") || has_name(hits[1], "shape_endbr_push"));
  EXPECT_TRUE(has_name(hits[0], "shape_endbr_sub") || has_name(hits[1], "shape_endbr_sub"));
  EXPECT_LT(hits[0].address, hits[1].address);
}

TEST_F(Shapes, WeakAliasSharesOneHit) {
  SymbolHit by_name = one("shape_push");
  SymbolHit by_alias = one("shape_push_alias");
  EXPECT_EQ(by_name.address, by_alias.address);
  EXPECT_TRUE(has_name(by_name, "shape_push_alias"));
  EXPECT_EQ(by_alias.names.front(), "shape_push_alias") << "the matched name comes first";
  // A glob that matches both names still gives one hit at that address.
  std::vector<SymbolHit> hits = resolve(f, "shape_push*");
  EXPECT_EQ(std::count_if(hits.begin(), hits.end(),
                          [&](const SymbolHit& h) { return h.address == by_name.address; }),
            1);
}

TEST_F(Shapes, VersionedNamesResolveToTheSameHit) {
  SymbolHit plain = one("shape_nop5");
  SymbolHit versioned = one("shape_nop5@@SHAPES_1.0");
  SymbolHit single_at = one("shape_nop5@SHAPES_1.0");
  EXPECT_EQ(plain.address, versioned.address);
  EXPECT_EQ(plain.file_offset, versioned.file_offset);
  EXPECT_EQ(plain.address, single_at.address);
  EXPECT_TRUE(resolve(f, "shape_nop5@@SHAPES_2.0").empty());
}

TEST_F(Shapes, LocalFunctionFromSymtabResolves) {
  SymbolHit local = one("shape_local");
  EXPECT_NE(local.address, 0u);
  EXPECT_EQ(local.first, FirstInstruction::Push);
}

TEST_F(Shapes, IfuncIsFlagged) {
  EXPECT_TRUE(one("shape_ifunc").ifunc);
  EXPECT_FALSE(one("shape_push").ifunc);
}

TEST(Glob, MatchesShellStyle) {
  EXPECT_TRUE(glob_match("cudaMemcpy*", "cudaMemcpy"));
  EXPECT_TRUE(glob_match("cudaMemcpy*", "cudaMemcpyAsync"));
  EXPECT_FALSE(glob_match("cudaMemcpy*", "cudaMalloc"));
  EXPECT_TRUE(glob_match("*Sync*", "cudaStreamSynchronize"));
  EXPECT_TRUE(glob_match("lib?uda*", "libcudart.so.12"));
  EXPECT_TRUE(glob_match("python3.[0-9]*", "python3.11"));
  EXPECT_FALSE(glob_match("python3.[!1]*", "python3.11"));
  EXPECT_FALSE(glob_match("a*b", "aXbY"));
  EXPECT_TRUE(glob_match("a*b*c", "a_b_b_c"));
  EXPECT_TRUE(glob_match("", ""));
  EXPECT_FALSE(glob_match("", "x"));
}

TEST(Glob, CompilerFragments) {
  for (const char* name : {"ncclAllReduce.cold.11", "foo.cold", "foo.part.0", "foo.isra.0", "foo.constprop.3",
                           "foo.lto_priv.0", "foo.constprop.0.isra.0"}) {
    EXPECT_TRUE(is_compiler_fragment(name)) << name;
  }
  for (const char* name : {"ncclAllReduce", "_ZN3foo4coldEv", "cold", "foo.coldish"}) {
    EXPECT_FALSE(is_compiler_fragment(name)) << name;
  }
}

TEST(RealLibraries, CudartVersionedAndPlainAgree) {
  const std::string path = "/usr/local/cuda/lib/libcudart.so.13";
  if (!exists(path)) GTEST_SKIP() << path << " is not installed";
  ElfFile f = open_or_die(path);
  std::vector<SymbolHit> plain = resolve(f, "cudaStreamSynchronize");
  std::vector<SymbolHit> versioned = resolve(f, "cudaStreamSynchronize@@libcudart.so.13");
  ASSERT_EQ(plain.size(), 1u);
  ASSERT_EQ(versioned.size(), 1u);
  EXPECT_EQ(plain[0].address, versioned[0].address);
  EXPECT_EQ(plain[0].file_offset, versioned[0].file_offset);
  EXPECT_EQ(plain[0].first, FirstInstruction::Push);
  EXPECT_FALSE(resolve(f, "cudaMemcpy*").empty());
}

TEST(RealLibraries, NcclAliasesAreOneHitAndGlobSkipsCold) {
  const std::string path = "/usr/local/cuda/lib/libnccl.so.2";
  if (!exists(path)) GTEST_SKIP() << path << " is not installed";
  ElfFile f = open_or_die(path);
  std::vector<SymbolHit> hits = resolve(f, "ncclAllReduce");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_TRUE(has_name(hits[0], "ncclAllReduce"));
  EXPECT_TRUE(has_name(hits[0], "pncclAllReduce"));
  std::vector<SymbolHit> p = resolve(f, "pncclAllReduce");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].address, hits[0].address);
  std::vector<SymbolHit> globbed = resolve(f, "ncclAllReduce*");
  ASSERT_FALSE(globbed.empty());
  for (const SymbolHit& hit : globbed) {
    for (const std::string& name : hit.names) EXPECT_FALSE(is_compiler_fragment(name)) << name;
  }
}

TEST(RealLibraries, PythonGilFunctionsAreLocalInSymtab) {
  const std::string path = "/root/.pyenv/versions/3.11.7/lib/libpython3.11.so.1.0";
  if (!exists(path)) GTEST_SKIP() << path << " is not installed";
  ElfFile f = open_or_die(path);
  for (const char* name : {"take_gil", "drop_gil"}) {
    std::vector<SymbolHit> hits = resolve(f, name);
    ASSERT_EQ(hits.size(), 1u) << name;
    EXPECT_GT(hits[0].file_offset, 0u);
    EXPECT_NE(hits[0].first, FirstInstruction::Unknown);
  }
}

}  // namespace
}  // namespace seam::runtime::elf
