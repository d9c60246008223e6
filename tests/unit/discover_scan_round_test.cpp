// One discovery round (runtime/discover/scan_round.hpp): inside it, /proc and the system's library
// folders are listed once and every search sees that listing; outside it, each call lists afresh.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <utility>

#include "runtime/discover/ld_cache.hpp"
#include "runtime/discover/scan_round.hpp"

namespace seam::runtime::discover {
namespace {

bool lists(const std::vector<pid_t>& pids, pid_t pid) {
  return std::find(pids.begin(), pids.end(), pid) != pids.end();
}

// A child that waits for its pipe to close, so that it is listed until the test lets it go.
struct Child {
  int release[2] = {-1, -1};
  pid_t pid = -1;
  Child() {
    EXPECT_EQ(pipe(release), 0);
    pid = fork();
    if (pid == 0) {
      close(release[1]);
      char byte;
      (void)!read(release[0], &byte, 1);
      _exit(0);
    }
    close(release[0]);
  }
  ~Child() {
    close(release[1]);
    waitpid(pid, nullptr, 0);
  }
};

TEST(ScanRound, InARoundProcIsListedOnce) {
  {
    ScanRound round;
    std::vector<pid_t> first = running_pids();
    EXPECT_TRUE(lists(first, getpid()));
    Child child;
    EXPECT_FALSE(lists(running_pids(), child.pid)) << "the round's listing was taken before the child";
    ScanRound nested;  // shares the outer round's listing
    EXPECT_EQ(running_pids(), first);
  }
  Child child;
  EXPECT_TRUE(lists(running_pids(), child.pid)) << "outside a round, /proc is listed again";
}

TEST(ScanRound, InARoundTheSystemFoldersAreListedOnce) {
  {
    ScanRound round;
    EXPECT_EQ(system_library_candidates(), system_library_candidates());
  }
  EXPECT_NE(system_library_candidates(), system_library_candidates());
}

// /lib and /usr/lib are one folder on a merged /usr: its entries are listed under one name only.
TEST(ScanRound, AFolderIsListedUnderOneName) {
  std::map<std::pair<dev_t, ino_t>, std::vector<std::string>> names_of;
  for (const std::string& dir : standard_library_dirs()) {
    struct stat st {};
    if (stat(dir.c_str(), &st) == 0) names_of[{st.st_dev, st.st_ino}].push_back(dir);
  }
  const std::shared_ptr<const std::vector<std::string>> candidates = system_library_candidates();
  const size_t from_cache = read_ld_cache().size();  // the cache's paths come first, as it names them
  ASSERT_GE(candidates->size(), from_cache);
  std::map<std::string, size_t> listed_in;
  for (size_t i = from_cache; i < candidates->size(); ++i)
    ++listed_in[std::filesystem::path((*candidates)[i]).parent_path()];
  EXPECT_FALSE(listed_in.empty()) << "no library folder listed at all";
  for (const auto& [folder, names] : names_of) {
    size_t listed_names = 0;
    for (const std::string& name : names) listed_names += listed_in.count(name);
    EXPECT_LE(listed_names, 1u) << names.front() << " is listed under " << listed_names << " names";
  }
}

}  // namespace
}  // namespace seam::runtime::discover
