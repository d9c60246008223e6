// LibraryHub: rule units that use the same library share one scan, and a unit that starts later
// (a reload) is handed the files found before it.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

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

}  // namespace
}  // namespace seam::runtime
