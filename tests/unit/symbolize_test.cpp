// Symbolizer against real child processes (including after they exit and their library file is
// deleted), the build-id cache, the process LRU, and kernel symbols from /proc/kallsyms.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fixtures/child_process.hpp"
#include "runtime/elf/proc_maps.hpp"
#include "runtime/elf/resolve.hpp"
#include "runtime/symbolize/symbolizer.hpp"
#include "support/test_support.hpp"

namespace seam::runtime::symbolize {
namespace {

using namespace std::chrono_literals;
using test::ChildProcess;

const std::string kFakeCudart = std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12";

// The file offset of a function in a library, from runtime/elf (tested against binutils).
uint64_t file_offset_of(const std::string& library, const char* function) {
  elf::Result<elf::ElfFile> f = elf::ElfFile::open(library);
  EXPECT_TRUE(f.ok()) << f.error();
  if (!f) return 0;
  std::vector<elf::SymbolHit> hits = elf::resolve(*f, function);
  EXPECT_EQ(hits.size(), 1u);
  return hits.empty() ? 0 : hits[0].file_offset;
}

// Where `file_offset` of the library at `path` is in process `pid`, from its executable
// mappings (a child also inherits our own read-only mappings of the file); 0 if unmapped.
uint64_t runtime_address(pid_t pid, const std::string& path, uint64_t file_offset) {
  std::string maps = test::read_file("/proc/" + std::to_string(pid) + "/maps");
  uint64_t address = 0;
  elf::for_each_mapping(maps, [&](const elf::MapsEntry& m) {
    if (m.executable && m.path == path && file_offset >= m.offset &&
        file_offset < m.offset + (m.end - m.start)) {
      address = m.start + (file_offset - m.offset);
    }
  });
  return address;
}

ChildProcess child_dlopening(const std::string& path) {
  ChildProcess child = ChildProcess::run([path] { return dlopen(path.c_str(), RTLD_NOW) != nullptr; });
  EXPECT_TRUE(test::wait_until([&] { return child.ready(); }, 10s));
  EXPECT_TRUE(child.succeeded());
  return child;
}

TEST(Symbolizer, NamesAFunctionInAChild) {
  ChildProcess child = child_dlopening(kFakeCudart);
  uint64_t addr =
      runtime_address(child.pid(), kFakeCudart, file_offset_of(kFakeCudart, "cudaStreamSynchronize"));
  ASSERT_NE(addr, 0u);
  Symbolizer symbolizer;
  uint64_t addrs[] = {addr, addr + 5, 0x10};
  std::vector<Frame> frames = symbolizer.symbolize(child.pid(), addrs);
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0].symbol, "cudaStreamSynchronize");
  EXPECT_EQ(frames[0].offset, 0u);
  EXPECT_EQ(frames[0].module, kFakeCudart);
  EXPECT_EQ(frames[1].symbol, "cudaStreamSynchronize");
  EXPECT_EQ(frames[1].offset, 5u);
  EXPECT_EQ(frames[1].addr, addr + 5);
  EXPECT_EQ(frames[2].symbol, "");
  EXPECT_EQ(frames[2].module, kUnknownModule);
  EXPECT_EQ(format_frame(frames[1]), "cudaStreamSynchronize+0x5 (" + kFakeCudart + ")");
  EXPECT_EQ(format_frame(frames[2]), "0x10 ([unknown])");
  EXPECT_TRUE(symbolizer.remembers(child.pid())) << "symbolize took a snapshot";
}

TEST(Symbolizer, NamesSurviveTheProcessAndItsFile) {
  // A private copy, deleted after the child exits: only what remember() kept can answer.
  test::TempDir dir;
  std::string copy = dir.path() + "/libcudart.so.12";
  std::filesystem::copy_file(kFakeCudart, copy);
  ChildProcess child = child_dlopening(copy);
  uint64_t addr = runtime_address(child.pid(), copy, file_offset_of(copy, "cudaStreamSynchronize"));
  ASSERT_NE(addr, 0u);
  pid_t pid = child.pid();
  Symbolizer symbolizer;
  ASSERT_TRUE(symbolizer.remember(pid));
  child.finish();
  std::filesystem::remove(copy);
  ASSERT_FALSE(std::filesystem::exists("/proc/" + std::to_string(pid)));
  uint64_t addrs[] = {addr + 3};
  std::vector<Frame> frames = symbolizer.symbolize(pid, addrs);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].symbol, "cudaStreamSynchronize");
  EXPECT_EQ(frames[0].offset, 3u);
  EXPECT_EQ(frames[0].module, copy);
}

TEST(Symbolizer, RereadsMapsForALibraryLoadedSinceTheSnapshot) {
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  ChildProcess child = ChildProcess::run([&] {
    char c;
    close(go[1]);
    return read(go[0], &c, 1) == 1 && dlopen(kFakeCudart.c_str(), RTLD_NOW) != nullptr;
  });
  close(go[0]);
  Symbolizer symbolizer;
  ASSERT_TRUE(symbolizer.remember(child.pid()));  // before the dlopen
  ASSERT_EQ(write(go[1], "g", 1), 1);
  close(go[1]);
  ASSERT_TRUE(test::wait_until([&] { return child.ready(); }, 10s));
  ASSERT_TRUE(child.succeeded());
  uint64_t addr = runtime_address(child.pid(), kFakeCudart, file_offset_of(kFakeCudart, "cudaFree"));
  ASSERT_NE(addr, 0u);
  uint64_t addrs[] = {addr};
  EXPECT_EQ(symbolizer.symbolize(child.pid(), addrs)[0].symbol, "cudaFree");
}

TEST(Symbolizer, OneTablePerBuildId) {
  test::TempDir dir;
  std::string a = dir.path() + "/a/libcudart.so.12", b = dir.path() + "/b/libcudart.so.12";
  std::filesystem::create_directories(dir.path() + "/a");
  std::filesystem::create_directories(dir.path() + "/b");
  std::filesystem::copy_file(kFakeCudart, a);
  std::filesystem::copy_file(kFakeCudart, b);
  elf::Result<elf::ElfFile> f = elf::ElfFile::open(a);
  ASSERT_TRUE(f.ok());
  if (f->build_id().empty()) GTEST_SKIP() << "the fixture was linked without a build-id";
  ChildProcess first = child_dlopening(a);
  ChildProcess second = child_dlopening(b);
  uint64_t offset = file_offset_of(a, "cudaMalloc");
  uint64_t in_first[] = {runtime_address(first.pid(), a, offset)};
  uint64_t in_second[] = {runtime_address(second.pid(), b, offset)};
  ASSERT_NE(in_first[0], 0u);
  ASSERT_NE(in_second[0], 0u);
  Symbolizer symbolizer;
  size_t before = symbolizer.tables_loaded();
  EXPECT_EQ(symbolizer.symbolize(first.pid(), in_first)[0].symbol, "cudaMalloc");
  size_t after_first = symbolizer.tables_loaded();
  EXPECT_GT(after_first, before);
  Frame second_frame = symbolizer.symbolize(second.pid(), in_second)[0];
  EXPECT_EQ(second_frame.symbol, "cudaMalloc");
  EXPECT_EQ(second_frame.module, b);
  // Same build-id under another inode: the table read for the first process answers.
  EXPECT_EQ(symbolizer.tables_loaded(), after_first);
}

TEST(Symbolizer, KeepsAtMostItsLimitOfProcesses) {
  ChildProcess a = child_dlopening(kFakeCudart), b = child_dlopening(kFakeCudart),
               c = child_dlopening(kFakeCudart);
  Symbolizer symbolizer(2);
  ASSERT_TRUE(symbolizer.remember(a.pid()));
  ASSERT_TRUE(symbolizer.remember(b.pid()));
  uint64_t none[] = {0x10};
  symbolizer.symbolize(a.pid(), none);  // a is now more recent than b
  ASSERT_TRUE(symbolizer.remember(c.pid()));
  EXPECT_EQ(symbolizer.remembered(), 2u);
  EXPECT_TRUE(symbolizer.remembers(a.pid()));
  EXPECT_FALSE(symbolizer.remembers(b.pid()));
  EXPECT_TRUE(symbolizer.remembers(c.pid()));
  symbolizer.forget(c.pid());
  EXPECT_FALSE(symbolizer.remembers(c.pid()));
}

// Any user can start processes that map distinct files (issue 13, item 2): the descriptors held
// for libraries not read yet stay within the bound (the oldest closed, reopened by path when
// needed), and processes that exited are forgotten.
TEST(Symbolizer, OpenFilesStayWithinTheirBoundAndExitedProcessesAreForgotten) {
  test::TempDir dir;
  std::vector<std::string> copies;
  for (int i = 0; i < 5; ++i) {
    copies.push_back(dir.path() + "/libcopy" + std::to_string(i) + ".so");
    std::filesystem::copy_file(kFakeCudart, copies.back());
  }
  SymbolizerLimits limits;
  limits.max_open_files = 2;
  limits.max_tables = 4;
  Symbolizer symbolizer(limits);
  std::vector<pid_t> pids;
  uint64_t first_addr = 0;
  {
    std::vector<ChildProcess> children;
    for (const std::string& copy : copies) {
      children.push_back(child_dlopening(copy));
      ASSERT_TRUE(symbolizer.remember(children.back().pid()));
      EXPECT_LE(symbolizer.open_files(), 2u);
      pids.push_back(children.back().pid());
    }
    first_addr = runtime_address(pids[0], copies[0], file_offset_of(copies[0], "cudaStreamSynchronize"));
    ASSERT_NE(first_addr, 0u);
    uint64_t addrs[] = {first_addr};
    EXPECT_EQ(symbolizer.symbolize(pids[0], addrs)[0].symbol, "cudaStreamSynchronize")
        << "a library whose descriptor was closed for the bound is opened again by path";
    EXPECT_LE(symbolizer.open_files(), 2u);
    EXPECT_TRUE(symbolizer.forget_exited(0, 0).empty()) << "every child is alive";
    // Newest first: each child inherited the write ends of its elders' hold pipes at fork, so an
    // elder sees the end of its pipe only once every younger child has exited.
    while (!children.empty()) children.pop_back();
  }
  EXPECT_TRUE(symbolizer.forget_exited(1000, 5000).empty()) << "gone, but not for long enough";
  std::vector<pid_t> gone = symbolizer.forget_exited(7000, 5000);
  std::sort(gone.begin(), gone.end());
  std::sort(pids.begin(), pids.end());
  EXPECT_EQ(gone, pids);
  EXPECT_EQ(symbolizer.remembered(), 0u);
  EXPECT_EQ(symbolizer.open_files(), 0u);
}

TEST(Symbolizer, GoneProcessGivesUnknownFrames) {
  ChildProcess child = child_dlopening(kFakeCudart);
  pid_t pid = child.pid();
  child.finish();
  Symbolizer symbolizer;
  EXPECT_FALSE(symbolizer.remember(pid));
  uint64_t addrs[] = {0x7f0000001000};
  std::vector<Frame> frames = symbolizer.symbolize(pid, addrs);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].module, kUnknownModule);
  EXPECT_EQ(frames[0].addr, addrs[0]);
}

TEST(KernelSymbols, ParsesKallsymsText) {
  KernelSymbols k(
      "ffffffff81000000 T _text\n"
      "ffffffff81000100 t helper\n"
      "ffffffff81000200 D some_data\n"
      "ffffffff81000300 T schedule\n"
      "ffffffffc0001000 t nv_ioctl\t[nvidia]\n");
  EXPECT_EQ(k.size(), 4u) << "data symbols are left out";
  auto hit = k.lookup(0xffffffff81000305);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->name, "schedule");
  EXPECT_EQ(hit->offset, 5u);
  EXPECT_EQ(hit->module, "");
  EXPECT_EQ(k.lookup(0xffffffff81000250)->name, "helper");
  auto mod = k.lookup(0xffffffffc0001010);
  ASSERT_TRUE(mod);
  EXPECT_EQ(mod->module, "nvidia");
  EXPECT_FALSE(k.lookup(0x1000));
  EXPECT_FALSE(KernelSymbols("0000000000000000 T _text\n").lookup(0x10)) << "hidden addresses";
}

TEST(KernelSymbols, SymbolizesARealKernelAddress) {
  SEAM_REQUIRE_ROOT();
  // A text symbol with an address of its own, read from kallsyms here.
  std::istringstream in(test::read_file("/proc/kallsyms"));
  std::string line, prev_addr, name, addr_text;
  std::vector<std::tuple<uint64_t, std::string>> text;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string addr, type, sym;
    fields >> addr >> type >> sym;
    if (type == "T" || type == "t") text.emplace_back(std::stoull(addr, nullptr, 16), sym);
  }
  if (text.empty() || std::get<0>(text.front()) == 0) GTEST_SKIP() << "kallsyms hides addresses here";
  std::sort(text.begin(), text.end());
  uint64_t target = 0;
  std::string expected;
  for (size_t i = 1; i + 1 < text.size() && !target; ++i) {
    auto [addr, sym] = text[i];
    if (std::get<0>(text[i - 1]) < addr && addr + 2 < std::get<0>(text[i + 1]) && sym == "schedule") {
      target = addr;
      expected = sym;
    }
  }
  for (size_t i = 1; i + 1 < text.size() && !target; ++i) {  // no "schedule": any lone symbol
    if (std::get<0>(text[i - 1]) < std::get<0>(text[i]) &&
        std::get<0>(text[i]) + 2 < std::get<0>(text[i + 1])) {
      target = std::get<0>(text[i]);
      expected = std::get<1>(text[i]);
    }
  }
  ASSERT_NE(target, 0u);
  Symbolizer symbolizer;
  uint64_t addrs[] = {target + 1, 0x10};
  std::vector<Frame> frames = symbolizer.symbolize_kernel(addrs);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].symbol, expected);
  EXPECT_EQ(frames[0].offset, 1u);
  EXPECT_EQ(frames[0].module, "[kernel]");
  EXPECT_EQ(frames[1].module, kUnknownModule);
}

}  // namespace
}  // namespace seam::runtime::symbolize
