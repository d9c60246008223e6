// LibraryHub: rule units that use the same library share one scan, and a unit that starts later
// (a reload) is handed the files found before it.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "runtime/run/library_hub.hpp"

namespace seam::runtime {
namespace {

TEST(LibraryHub, SubscribersOfTheSamePatternsShareFilesOldAndNew) {
  void* lib = dlopen(SEAM_FIXTURE_DIR "/libcudart.so.12", RTLD_NOW);
  ASSERT_NE(lib, nullptr) << dlerror();
  LibraryHub hub(getpid());
  std::vector<plan::LibraryPattern> cudart{{false, "libcudart.so*"}};
  std::vector<std::string> first, second, other;
  int id = hub.subscribe(cudart, [&](const discover::LibraryFile& f) { first.push_back(f.display_path); });
  ASSERT_EQ(first.size(), 1u);
  EXPECT_NE(first[0].find("libcudart.so.12"), std::string::npos) << first[0];
  // A later subscriber gets what was found, without a scan of its own finding it again.
  hub.subscribe(cudart, [&](const discover::LibraryFile& f) { second.push_back(f.display_path); });
  EXPECT_EQ(second, first);
  hub.scan();
  hub.scan_pid(getpid());
  EXPECT_EQ(first.size(), 1u);  // a file is delivered once
  EXPECT_EQ(second.size(), 1u);
  hub.unsubscribe(id);
  hub.subscribe({{false, "libnothing.so*"}},
                [&](const discover::LibraryFile& f) { other.push_back(f.display_path); });
  EXPECT_TRUE(other.empty());
  dlclose(lib);
}

// The loader hook's names: a file in a folder never scanned reaches the subscribers even when
// its process has gone; the loaders' own subscription counts no process; new patterns say so.
TEST(LibraryHub, LoadedNamesReachSubscribersAndNewPatternsAreAnnounced) {
  std::string folder = "/tmp/seam-hub-test-" + std::to_string(getpid());
  std::string copy = folder + "/libcudart.so.12";
  ASSERT_EQ(system(("mkdir -p " + folder + " && cp " SEAM_FIXTURE_DIR "/libcudart.so.12 " + copy).c_str()),
            0);
  LibraryHub hub(std::nullopt);
  int announced = 0;
  hub.on_patterns_added([&] { ++announced; });
  std::vector<std::string> files;
  hub.subscribe({{false, "libcudart.so*"}},
                [&](const discover::LibraryFile& f) { files.push_back(f.display_path); });
  EXPECT_EQ(announced, 1);
  hub.subscribe({{false, "libcudart.so*"}}, [](const discover::LibraryFile&) {});
  EXPECT_EQ(announced, 1) << "the same patterns again are not new";
  size_t before = files.size();
  pid_t gone = 999999999;  // above pid_max: no such process
  std::vector<bool> done = hub.loaded(gone, {{copy, false}, {"/lib/x86_64-linux-gnu/libm.so.6", false}});
  EXPECT_EQ(done, (std::vector<bool>{false, true})) << "its process gone: asked again next time";
  ASSERT_EQ(files.size(), before + 1);
  EXPECT_EQ(files.back(), copy);
  hub.loaded(gone, {{copy, false}});
  EXPECT_EQ(files.size(), before + 1) << "a file is delivered once";

  size_t processes = hub.processes();
  std::vector<std::string> loaders;
  hub.subscribe_loaders([&](const discover::LibraryFile& f) { loaders.push_back(f.display_path); });
  EXPECT_FALSE(loaders.empty()) << "no ld-*.so* found on this system";
  EXPECT_EQ(hub.processes(), processes) << "the loaders' processes are every process: not counted";
  ASSERT_EQ(system(("rm -rf " + folder).c_str()), 0);
}

}  // namespace
}  // namespace seam::runtime
