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

TEST(CodegenGeneration, EveryProgramTestsTheLiveGenerationFirst) {
  codegen::Options options;
  options.exec_notices = true;
  Compiled c = compile_text(kRead, options);
  ASSERT_EQ(c.diagnostics, "");
  const std::string& src = c.generated.c_source;
  EXPECT_NE(src.find("#include \"seam_generation.h\""), std::string::npos);
  std::vector<std::string> progs = programs(src);
  ASSERT_GE(progs.size(), 5u) << src;  // enter, exit, exec notice, fork, exit of the scope
  for (const std::string& p : progs) {
    size_t body = p.find("{\n");
    ASSERT_NE(body, std::string::npos) << p;
    EXPECT_EQ(p.find("\tif (!seam_live())", body), body + 2) << p;
  }
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
