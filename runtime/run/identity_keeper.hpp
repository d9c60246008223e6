#pragma once
// Fills a rule file's identity map (plan::IdentityTest, bpf-templates/seam_identity.h): for every
// cgroup under the cgroup v2 mount, the bits of the file's tests (`container == "..."`, `pod
// startswith "..."`) that hold for the cgroup's identity, as the CgroupResolver tells it. Only
// cgroups where some test holds get an entry. refresh() walks the tree again (the session's
// rescan, every 500 ms): a container started since the last walk holds none of its tests until
// the next one.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/plan/plan.hpp"
#include "runtime/identity/cgroup_resolver.hpp"

namespace seam::runtime {

// The bits of `tests` that hold for `identity`.
uint64_t identity_bits(const std::vector<plan::IdentityTest>& tests, const Identity& identity);

class IdentityKeeper {
 public:
  static constexpr size_t kMaxCgroups = 16384;  // the map's max_entries (seam_identity.h)
  static constexpr size_t kMaxWalk = 200'000;   // directories visited per walk

  IdentityKeeper(std::vector<plan::IdentityTest> tests, int map_fd, std::shared_ptr<CgroupResolver> cgroups);

  // Walks the cgroup tree and updates the map. Returns "" or why the tests cannot hold (no cgroup
  // v2 mount, no map, more cgroups than the map holds), each reason once.
  std::string refresh();
  size_t size() const { return bits_.size(); }

 private:
  std::vector<plan::IdentityTest> tests_;
  int fd_ = -1;
  std::shared_ptr<CgroupResolver> cgroups_;
  std::unordered_map<uint64_t, uint64_t> bits_;  // what the map holds: cgroup id -> bits
  std::string reported_;
};

}  // namespace seam::runtime
