#include "runtime/run/identity_keeper.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <bpf/bpf.h>

#include <deque>

#include "runtime/identity/identity_field.hpp"

namespace seam::runtime {

uint64_t identity_bits(const std::vector<plan::IdentityTest>& tests, const Identity& identity) {
  uint64_t bits = 0;
  for (size_t i = 0; i < tests.size() && i < plan::kMaxIdentityTests; ++i) {
    const plan::IdentityTest& t = tests[i];
    bool holds = false;
    for (const std::string& value : identity_test_values(identity, t.field)) {
      // An empty prefix or value would hold for processes that are in no container at all: they
      // hold only where the name is known, except `== ""` (explicitly "not in a container").
      if (t.prefix ? !value.empty() && value.starts_with(t.value) : value == t.value) holds = true;
    }
    if (holds) bits |= uint64_t{1} << i;
  }
  return bits;
}

IdentityKeeper::IdentityKeeper(std::vector<plan::IdentityTest> tests, int map_fd,
                               std::shared_ptr<CgroupResolver> cgroups)
    : tests_(std::move(tests)), fd_(map_fd), cgroups_(std::move(cgroups)) {}

std::string IdentityKeeper::refresh() {
  auto once = [&](std::string why) {
    if (why == reported_) return std::string();
    reported_ = why;
    return why;
  };
  if (fd_ < 0 || !cgroups_) return once("the identity map is not loaded");
  const std::string& root = cgroups_->root();
  if (root.empty()) return once("there is no cgroup v2 mount (/sys/fs/cgroup or /sys/fs/cgroup/unified)");
  // Breadth-first by d_ino: on the cgroup2 filesystem a directory's inode is the cgroup id.
  std::unordered_map<uint64_t, uint64_t> now;
  std::deque<std::string> pending{""};
  bool full = false;
  struct stat st {};
  if (stat(root.c_str(), &st) == 0)
    if (uint64_t b = identity_bits(tests_, cgroups_->resolve(st.st_ino))) now[st.st_ino] = b;
  for (size_t visited = 0; !pending.empty() && visited < kMaxWalk; ++visited) {
    std::string rel = std::move(pending.front());
    pending.pop_front();
    DIR* dir = opendir((root + rel).c_str());
    if (!dir) continue;  // removed while we walked
    while (dirent* e = readdir(dir)) {
      if (e->d_type != DT_DIR || e->d_name[0] == '.') continue;
      std::string child = rel + "/" + e->d_name;
      if (uint64_t b = identity_bits(tests_, cgroups_->resolve(e->d_ino))) {
        if (now.size() < kMaxCgroups)
          now[e->d_ino] = b;
        else
          full = true;
      }
      pending.push_back(std::move(child));
    }
    closedir(dir);
  }
  for (auto it = bits_.begin(); it != bits_.end();) {
    if (now.count(it->first)) {
      ++it;
      continue;
    }
    uint64_t key = it->first;
    bpf_map_delete_elem(fd_, &key);
    it = bits_.erase(it);
  }
  for (const auto& [cgroup, b] : now) {
    auto held = bits_.find(cgroup);
    if (held != bits_.end() && held->second == b) continue;
    uint64_t key = cgroup, value = b;
    if (bpf_map_update_elem(fd_, &key, &value, BPF_ANY) == 0) bits_[cgroup] = b;
  }
  if (full)
    return once("more than " + std::to_string(kMaxCgroups) +
                " cgroups match a container or pod test; the others hold none");
  reported_.clear();
  return "";
}

}  // namespace seam::runtime
