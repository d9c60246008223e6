// PendingScanner across a reload (runtime/run/session_reload.cpp): the in-flight map is kept, so
// the next unit's scanner takes over what the old one reported (by rule name: the rule ids of the
// two sets differ) and a span hanging across the reload is reported once, not once per object.
#include <gtest/gtest.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "runtime/run/pending_scanner.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

using runtime::Alert;
using runtime::PendingScanner;

plan::Plan pending_plan(uint32_t rule_id) {
  plan::Plan p;
  p.rules.resize(rule_id + 1);
  for (uint32_t i = 0; i <= rule_id; ++i) {
    p.rules[i].id = i;
    p.rules[i].name = "other" + std::to_string(i);
  }
  p.rules[rule_id].name = "hung";
  p.rules[rule_id].pending_ns = 1'000'000'000;
  p.rules[rule_id].pending_map = "inflight0";
  p.maps.push_back({"inflight0", plan::MapType::LruHash, 4, 16, 64, "span x in flight", "span x"});
  return p;
}

TEST(PendingHandover, ASpanReportedByTheOldScannerIsNotReportedByTheNextOne) {
  SEAM_REQUIRE_ROOT();
  int fd = bpf_map_create(BPF_MAP_TYPE_LRU_HASH, "inflight0", 4, 16, 64, nullptr);
  ASSERT_GE(fd, 0);
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t value[2] = {static_cast<uint64_t>(ts.tv_sec - 5) * 1000000000ull, 0};  // began 5 s ago
  uint32_t tid = static_cast<uint32_t>(getpid());
  ASSERT_EQ(bpf_map_update_elem(fd, &tid, value, BPF_ANY), 0);
  auto map_fd = [fd](const std::string& name) { return name == "inflight0" ? fd : -1; };

  plan::Plan old_plan = pending_plan(0), next_plan = pending_plan(3);  // the rule renumbered
  PendingScanner old_scanner(old_plan, map_fd), next_scanner(next_plan, map_fd), fresh(next_plan, map_fd);
  std::vector<uint32_t> old_alerts, next_alerts, fresh_alerts;
  old_scanner.scan([&](uint32_t id, Alert&) { old_alerts.push_back(id); });
  EXPECT_EQ(old_alerts, std::vector<uint32_t>{0});
  next_scanner.already_reported(old_scanner.reported_by_name());
  next_scanner.scan([&](uint32_t id, Alert&) { next_alerts.push_back(id); });
  EXPECT_TRUE(next_alerts.empty());
  // Without the hand-over the next scanner would report it again: the test can fail.
  fresh.scan([&](uint32_t id, Alert&) { fresh_alerts.push_back(id); });
  EXPECT_EQ(fresh_alerts, std::vector<uint32_t>{3});
  close(fd);
}

}  // namespace
}  // namespace seam::test
