#include "runtime/discover/scan_round.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <optional>
#include <set>
#include <utility>

#include "runtime/discover/ld_cache.hpp"

namespace seam::runtime::discover {

struct RoundListings {
  std::optional<std::vector<pid_t>> pids;
  std::shared_ptr<const std::vector<std::string>> system;
};

namespace {

std::vector<pid_t> list_pids() {
  std::vector<pid_t> pids;
  DIR* d = ::opendir("/proc");
  if (!d) return pids;
  while (const dirent* e = ::readdir(d)) {
    pid_t pid = 0;
    const char* c = e->d_name;
    for (; *c >= '0' && *c <= '9'; ++c) pid = pid * 10 + (*c - '0');
    if (*c == '\0' && c != e->d_name) pids.push_back(pid);
  }
  ::closedir(d);
  return pids;
}

std::shared_ptr<const std::vector<std::string>> list_system() {
  auto paths = std::make_shared<std::vector<std::string>>(read_ld_cache());
  std::set<std::pair<dev_t, ino_t>> listed;
  for (const std::string& dir : standard_library_dirs()) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !listed.insert({st.st_dev, st.st_ino}).second) continue;
    DIR* d = ::opendir(dir.c_str());
    if (!d) continue;
    while (const dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') paths->push_back(dir + "/" + e->d_name);
    ::closedir(d);
  }
  return paths;
}

}  // namespace

ScanRound::ScanRound() = default;
ScanRound::~ScanRound() = default;

std::vector<pid_t> running_pids() {
  RoundListings* current = ThreadRound<RoundListings>::current();
  if (!current) return list_pids();
  if (!current->pids) current->pids = list_pids();
  return *current->pids;
}

std::shared_ptr<const std::vector<std::string>> system_library_candidates() {
  RoundListings* current = ThreadRound<RoundListings>::current();
  if (!current) return list_system();
  if (!current->system) current->system = list_system();
  return current->system;
}

}  // namespace seam::runtime::discover
