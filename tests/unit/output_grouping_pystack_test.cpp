// `group within` groups by the whole stack, Python frames included: records whose Python frames
// differ (another code object, another instruction) are separate groups, and what a record's
// PyStack field holds past its frame count (the kernel writes only the frames it found; the rest
// of the ring slot is whatever an earlier record left there) does not split a group.
#include <gtest/gtest.h>

#include <cstring>

#include "runtime/decode/decoder.hpp"
#include "runtime/output/alert_grouper.hpp"

namespace seam::runtime {
namespace {

constexpr uint32_t kFrames = 4;
constexpr uint32_t kPyOffset = 48;
constexpr uint32_t kSize = kPyOffset + plan::kPyStackHeader + kFrames * plan::kPyFrameBytes;

plan::Plan pystack_plan() {
  plan::Plan p;
  plan::Rule r;
  r.id = 0;
  r.name = "sync";
  r.file = "rules/g.seam";
  r.line = 2;
  p.rules.push_back(r);
  plan::Record rec;
  rec.rule_id = 0;
  plan::Field py;
  py.name = "pystack";
  py.type = plan::FieldType::PyStack;
  py.offset = kPyOffset;
  py.size = plan::kPyStackHeader + kFrames * plan::kPyFrameBytes;
  rec.fields = {py};
  rec.size = kSize;
  p.records.push_back(rec);
  plan::resolve_values(p);
  return p;
}

// A record of pid 100 whose walk found `frames` ({code, instruction} pairs); `stale` fills the
// slots past them.
std::vector<uint8_t> record(const std::vector<std::pair<uint64_t, uint64_t>>& frames, uint64_t stale) {
  std::vector<uint8_t> b(kSize, 0);
  auto put = [&](size_t at, auto v) { std::memcpy(b.data() + at, &v, sizeof v); };
  put(0, uint32_t{0});
  put(4, kSize);
  put(16, uint32_t{100});
  put(20, uint32_t{101});
  put(kPyOffset, uint64_t{frames.size()});
  put(kPyOffset + 8, uint64_t{0});  // PyStackStatus::Complete
  for (uint32_t k = 0; k < kFrames; ++k) {
    size_t at = kPyOffset + plan::kPyStackHeader + k * plan::kPyFrameBytes;
    put(at, k < frames.size() ? frames[k].first : stale);
    put(at + 8, k < frames.size() ? frames[k].second : stale);
  }
  return b;
}

uint64_t key_of(const plan::Plan& plan, const std::vector<uint8_t>& bytes) {
  auto decoded = decode_record(plan, bytes);
  EXPECT_TRUE(decoded) << decoded.error();
  return decoded ? AlertGrouper::key(*decoded) : 0;
}

TEST(OutputGroupingPystack, GroupsByThePythonFramesAndOnlyThem) {
  plan::Plan plan = pystack_plan();
  const std::vector<std::pair<uint64_t, uint64_t>> path = {{0x7f10, 0x7f10 + 200}, {0x7f20, 0x7f20 + 120}};
  uint64_t key = key_of(plan, record(path, 0));
  EXPECT_EQ(key_of(plan, record(path, 0xdeadbeef)), key) << "the slots past the count are not the stack";
  EXPECT_NE(key_of(plan, record({{0x7f10, 0x7f10 + 200}, {0x7f30, 0x7f30 + 120}}, 0)), key)
      << "another caller";
  EXPECT_NE(key_of(plan, record({{0x7f10, 0x7f10 + 210}, {0x7f20, 0x7f20 + 120}}, 0)), key)
      << "the same function at another instruction";
  EXPECT_NE(key_of(plan, record({{0x7f10, 0x7f10 + 200}}, 0)), key) << "a shorter stack";
}

}  // namespace
}  // namespace seam::runtime
