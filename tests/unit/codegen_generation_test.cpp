// The hand-over of a reload in the generated C (bpf-templates/seam_generation.h): every program
// of an object returns at once unless its generation is the live one, before anything else (the
// scope test, the clock); and each in-flight map's contents (plan::Map::contents) name what it
// holds, the same in another set of files, different when what it holds changes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/compile_text.hpp"

namespace seam::test {
namespace {

constexpr const char* kRead = R"(use syscalls
scope workload
rule slow_read on syscalls.any where id == read and duration > 1ms
    alert info "read {duration}"
)";

constexpr const char* kMalloc = R"(use cuda
rule big on cuda.malloc where size > 100KiB
    alert info "malloc {size}"
)";

// Every program: from its SEC line to its closing brace.
std::vector<std::string> programs(const std::string& c) {
  std::vector<std::string> out;
  for (size_t at = c.find("\nSEC(\""); at != std::string::npos; at = c.find("\nSEC(\"", at + 1))
    out.push_back(c.substr(at, c.find("\n}\n", at) - at));
  return out;
}

const plan::Map* map_for(const plan::Program& p, const std::string& purpose) {
  for (const plan::Map& m : p.plan.maps)
    if (m.purpose == purpose) return &m;
  return nullptr;
}

// sched_switch begins the off-CPU span of the thread that leaves and ends the one of the thread
// that comes back, in one program.
constexpr const char* kOffCpu = R"(use sched
rule long_off on sched.offcpu where duration > 10ms
    alert info "off {duration}"
)";

TEST(CodegenGeneration, EveryProgramTestsTheLiveGenerationFirst) {
  codegen::Options options;
  options.exec_notices = true;
  Compiled c = compile_text(kRead, options);
  ASSERT_EQ(c.diagnostics, "");
  const std::string& src = c.generated.c_source;
  EXPECT_NE(src.find("#include \"seam_generation.h\""), std::string::npos);
  std::vector<std::string> progs = programs(src);
  ASSERT_GE(progs.size(), 5u) << src;  // enter, exit, exec notice, fork, exit of the scope
  size_t ending = 0;
  for (const std::string& p : progs) {
    size_t body = p.find("{\n");
    ASSERT_NE(body, std::string::npos) << p;
    // A program that ends a span reads the generation first too, and goes on when it is not live.
    if (p.find(" ends */") != std::string::npos) {
      ++ending;
      EXPECT_EQ(p.find("\tconst int seam_acts = seam_live();", body), body + 2) << p;
    } else {
      EXPECT_EQ(p.find("\tif (!seam_live())", body), body + 2) << p;
    }
  }
  EXPECT_EQ(ending, 1u) << src;  // the read's exit
}

// The begin stores its generation; the end acts on a span when live, or when its own generation
// began it (the only program that runs at the return of a call that entered before the flip, where
// a return probe runs only for the calls whose entry it saw); whatever else a program that ends a
// span does (here sched_switch's begin) runs only while live.
TEST(CodegenGeneration, ASpansEndActsOnTheSpansItsGenerationBeganAndTheRestOnlyWhileLive) {
  Compiled c = compile_text(kOffCpu, {});
  ASSERT_EQ(c.diagnostics, "");
  const std::string& src = c.generated.c_source;
  std::string both;
  for (const std::string& p : programs(src))
    if (p.find("span sched.offcpu begins") != std::string::npos) both = p;
  ASSERT_FALSE(both.empty()) << src;
  size_t body = both.find("{\n");
  EXPECT_EQ(both.find("\tconst int seam_acts = seam_live();", body), body + 2) << both;
  size_t begins = both.find("/* span sched.offcpu begins */"),
         ends = both.find("/* span sched.offcpu ends */");
  ASSERT_NE(begins, std::string::npos);
  ASSERT_NE(ends, std::string::npos);
  EXPECT_NE(both.find("gen = seam_generation;", begins), std::string::npos) << both;
  EXPECT_NE(both.find("seam_ends(seam_acts, sv->gen)", ends), std::string::npos) << both;
  // The begin sits in the live-only block that comes before it; the end does not.
  size_t gate = both.rfind("if (seam_acts) {", begins);
  ASSERT_NE(gate, std::string::npos) << both;
  EXPECT_EQ(both.rfind("if (seam_acts) {", ends), gate) << "the end is in no live-only block: " << both;
  EXPECT_LT(both.find("\n\t}\n", gate), ends) << both;  // the block closes before the end
  // The span's value holds the generation, and the plan sizes it so.
  const plan::Map* span = map_for(c.lowered, "span sched.offcpu in flight");
  ASSERT_NE(span, nullptr);
  EXPECT_EQ(span->value_size % 8, 0u);
  EXPECT_GE(span->value_size, 24u);  // start, generation, ip, then the saves
  EXPECT_NE(src.find("__u32 gen;"), std::string::npos);
}

constexpr const char* kReadSpan = "span syscalls.any (read) in flight";

TEST(CodegenGeneration, ASpanMapsContentsAreTheSameInAnotherSetAndChangeWithWhatItHolds) {
  Compiled alone = compile_files({{"a.seam", kRead}});
  Compiled with_other = compile_files({{"a.seam", kRead}, {"b.seam", kMalloc}});
  std::string end_text = kRead, begin_text = kRead;
  end_text.replace(end_text.find("1ms"), 3, "2ms");
  begin_text.replace(begin_text.find("duration"), 8, "pid == 1 and duration");
  Compiled end_edited = compile_files({{"a.seam", end_text}});
  Compiled begin_edited = compile_files({{"a.seam", begin_text}});
  for (const Compiled* c : {&alone, &with_other, &end_edited, &begin_edited}) ASSERT_EQ(c->diagnostics, "");
  const plan::Map* a = map_for(alone.lowered, kReadSpan);
  const plan::Map* b = map_for(with_other.lowered, kReadSpan);
  const plan::Map* e = map_for(end_edited.lowered, kReadSpan);
  const plan::Map* f = map_for(begin_edited.lowered, kReadSpan);
  auto purposes = [](const Compiled& c) {
    std::string out;
    for (const plan::Map& m : c.lowered.plan.maps) out += m.name + ": " + m.purpose + "\n";
    return out;
  };
  ASSERT_TRUE(a && b && e && f) << purposes(alone) << purposes(with_other) << purposes(end_edited)
                                << purposes(begin_edited);
  EXPECT_EQ(a->name, b->name);  // named by what it serves (compiler/lower/map_names.hpp)
  EXPECT_NE(a->contents.find("span syscalls.any (read)"), std::string::npos) << a->contents;
  EXPECT_EQ(a->contents, b->contents);  // another file beside it changes nothing it holds
  EXPECT_EQ(a->contents, e->contents);  // a test made at the end: the spans begun are the same
  // A begin-time filter stores other spans: a map begun under the old one is not kept.
  EXPECT_NE(a->contents, f->contents);
  // Through the plan's JSON too (a bundle's plan).
  nlohmann::json j = alone.lowered.plan;
  plan::Plan back = j.get<plan::Plan>();
  bool found = false;
  for (const plan::Map& m : back.maps) found |= m.name == a->name && m.contents == a->contents;
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace seam::test
