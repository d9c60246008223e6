// The names of the maps a reload matches (compiler/lower/map_names.hpp): derived from what each
// map serves, so that an edit to one rule file leaves every other file's span, state, `after` and
// metric maps with the same names (and a reload keeps them); distinct for distinct things.
#include <gtest/gtest.h>

#include <map>

#include "compiler/lower/map_names.hpp"
#include "support/compile_text.hpp"

namespace seam::test {
namespace {

constexpr const char* kA = R"(use syscalls
rule idle on syscalls.any where id == getppid
    alert info "idle"
)";

// kA and rules on other events, whose maps come first in the set's order.
constexpr const char* kAGrown = R"(use syscalls, cuda, usdt
rule idle on syscalls.any where id == getppid
    alert info "idle"
rule slow_pid on syscalls.any where id == getpid and duration > 1ms
    alert info "getpid {duration}"
rule sync_in_request on cuda.device_sync while usdt.in_request
    alert info "sync"
metric frees on cuda.free after usdt.request_start within 1m count by pid
span mine = tracepoint sched:sched_waking .. tracepoint sched:sched_switch
rule mine_slow on mine where duration > 1ms
    alert info "mine"
)";

constexpr const char* kB = R"(use syscalls, cuda, usdt
rule slow_read on syscalls.any where id == read and duration > 1ms
    alert info "read {duration}"
rule sync on cuda.stream_sync where duration > 10ms while usdt.in_request
    alert info "sync {duration}"
rule after_start on cuda.malloc after usdt.request_start within 1s
    alert info "malloc in a request"
metric launches on cuda.launch after usdt.request_start within 1m count by pid
span mine = tracepoint sched:sched_waking .. tracepoint sched:sched_switch
rule b_mine on mine where duration > 2ms
    alert info "b mine"
)";

// Map name -> its contents (or purpose, for a map with no contents).
std::map<std::string, std::string> maps_of(const Compiled& c) {
  std::map<std::string, std::string> out;
  for (const plan::Map& m : c.lowered.plan.maps) out[m.name] = m.contents.empty() ? m.purpose : m.contents;
  return out;
}

const plan::Map* map_for(const Compiled& c, const std::string& purpose) {
  for (const plan::Map& m : c.lowered.plan.maps)
    if (m.purpose == purpose) return &m;
  return nullptr;
}

bool is_c_identifier(const std::string& s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  return true;
}

TEST(CodegenMapNames, ALaterFileKeepsItsMapNamesWhenAnEarlierFileGainsRules) {
  TempDir dir;
  Compiled before = compile_files_in(dir, {{"a.seam", kA}, {"b.seam", kB}});
  Compiled after = compile_files_in(dir, {{"a.seam", kAGrown}, {"b.seam", kB}});
  ASSERT_EQ(before.diagnostics, "");
  ASSERT_EQ(after.diagnostics, "");
  // b.seam's in-flight maps: its read span, the stream_sync span, the state, the `after` mark.
  for (const char* purpose :
       {"span syscalls.any (read) in flight", "span cuda.stream_sync in flight", "state usdt.in_request",
        "last usdt.request_start per thread", "span mine in flight"}) {
    const plan::Map* was = map_for(before, purpose);
    ASSERT_NE(was, nullptr) << purpose;
    bool found = false;
    for (const plan::Map& m : after.lowered.plan.maps)
      if (m.name == was->name) {
        found = true;
        EXPECT_EQ(m.purpose, was->purpose);
        // What it holds is unchanged too, but for the `after` mark and the state, which a.seam's
        // new rules now also read (so the same map, its contents grown with another reader).
        if (std::string(purpose).rfind("span", 0) == 0) {
          EXPECT_EQ(m.contents, was->contents) << purpose;
        }
      }
    EXPECT_TRUE(found) << purpose << " was " << was->name << ", not in the grown set";
  }
  // The metric's map too.
  std::map<std::string, std::string> metric_maps;
  for (const plan::Metric& m : before.lowered.plan.metrics) metric_maps[m.name] = m.map;
  for (const plan::Metric& m : after.lowered.plan.metrics)
    if (metric_maps.count(m.name)) {
      EXPECT_EQ(m.map, metric_maps[m.name]) << m.name;
    }
  EXPECT_EQ(metric_maps.count("launches"), 1u);
  // The grown file's new maps came first in the set's order (they did renumber positions).
  size_t a_map = after.lowered.plan.maps.size(), b_map = 0;
  for (size_t i = 0; i < after.lowered.plan.maps.size(); ++i) {
    const std::string& p = after.lowered.plan.maps[i].purpose;
    if (p == "span syscalls.any (getpid) in flight") a_map = i;
    if (p == "span syscalls.any (read) in flight") b_map = i;
  }
  EXPECT_LT(a_map, b_map);
  for (const Compiled* c : {&before, &after})
    for (const plan::Map& m : c->lowered.plan.maps) {
      EXPECT_LE(m.name.size(), lower::kMapNameMax) << m.name;
      EXPECT_TRUE(is_c_identifier(m.name)) << m.name;
    }
}

TEST(CodegenMapNames, TwoFilesDeclaringOneSpanNameGetTwoMaps) {
  Compiled c = compile_files({{"a.seam", kAGrown}, {"b.seam", kB}});
  ASSERT_EQ(c.diagnostics, "");
  std::vector<std::string> mine;
  for (const plan::Span& s : c.lowered.spans)
    if (s.name == "mine") mine.push_back(s.map);
  ASSERT_EQ(mine.size(), 2u);
  EXPECT_NE(mine[0], mine[1]);
  EXPECT_EQ(maps_of(c).size(), c.lowered.plan.maps.size()) << "two maps share a name";
}

TEST(CodegenMapNames, ACollisionIsDisambiguatedNeverShared) {
  // Find two identities whose first candidates are one name (28 bits: a few ten thousands tries).
  std::map<std::string, std::string> seen;
  std::string first, second;
  for (int i = 0; second.empty(); ++i) {
    std::string identity = "module m span" + std::to_string(i);
    auto [it, inserted] = seen.emplace(lower::map_name_candidate(lower::kSpanMap, "x", identity), identity);
    if (!inserted) {
      first = it->second;
      second = identity;
    }
    ASSERT_LT(i, 1000000);
  }
  lower::MapNamer namer;
  std::string a = namer.name(lower::kSpanMap, "x", first);
  std::string b = namer.name(lower::kSpanMap, "x", second);
  EXPECT_EQ(a, lower::map_name_candidate(lower::kSpanMap, "x", first));  // the first keeps its name
  EXPECT_NE(a, b);
  EXPECT_LE(b.size(), lower::kMapNameMax);
  EXPECT_EQ(namer.name(lower::kSpanMap, "x", second), b);  // the same identity, the same name
  EXPECT_EQ(namer.name(lower::kSpanMap, "x", first), a);
}

}  // namespace
}  // namespace seam::test
