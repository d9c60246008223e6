// The hostile corpus: rule text and file paths built to break out of the generated C (`*/`, a
// backslash-newline between `*` and `/`, `\r`, NUL, `#` directives, trigraphs, bidi controls) at
// every place they can reach it: message strings, rule and metric names, probe targets, library
// patterns, module and rule file names and their directories. Each case must either be refused
// with a diagnostic or generate C that keeps the escaping invariant and builds, with clang, into an
// object holding exactly the programs and maps of its plan: nothing a rule wrote became code.
#include <bpf/libbpf.h>
#include <gtest/gtest.h>

#include <set>

#include "compiler/build/build_object.hpp"
#include "compiler/build/kernel_types.hpp"
#include "compiler/codegen/c_escape.hpp"
#include "compiler/codegen/c_invariant.hpp"
#include "support/build_generated.hpp"
#include "support/compile_text.hpp"

namespace seam::test {
namespace {

const std::string kRlo = "\xe2\x80\xae";  // U+202E RIGHT-TO-LEFT OVERRIDE
const std::string kLri = "\xe2\x81\xa6";  // U+2066 LEFT-TO-RIGHT ISOLATE

// Text that, pasted raw into a comment, ends it and defines away every alert.
const std::string kPayload = "*\\\\\\n/ #define seam_submit(r) ?\?/";

std::string module_text() {
  return "module evil\n"
         "# a comment *\\\n# / #include \"/etc/shadow\"\n"
         "library lib = \"libe*/vil" +
         kPayload +
         ".so*\" | exe \"x?\?/#define\"\n"
         "point call = uprobe lib:evil_fn (n: u64)\n"
         "point direct = uprobe \"/opt/a" +
         kPayload +
         "#include \\\"/etc/shadow\\\".so\":evil_fn2\n"
         "span held = uprobe lib:evil_lock .. uprobe lib:evil_unlock\n";
}

std::string rules_text() {
  return "use evil\n"
         "rule call_from_a on evil.call where comm == \"a" +
         kPayload +
         "\" and n > 1\n"
         "    alert warning \"m " +
         kPayload +
         " {n} \\{x\\}\" with pid, comm\n"
         "rule direct_call on evil.direct where comm startswith \"*/\\\\\" alert \"#define x\"\n"
         "rule held_long on evil.held where duration > 1ms alert \"held {duration}\"\n"
         "metric calls_total on evil.call count by comm\n";
}

struct Case {
  std::string name;
  std::string module_dir;  // a folder name: anything but '/' and NUL
  std::string rules_dir;
  std::string rules_extra;  // appended to the rule file
  bool may_refuse = false;  // a diagnostic instead of a program is a right answer too
};

std::vector<Case> corpus() {
  return {
      {"splice", "m*\\\n", "r*\\\n", ""},
      {"star_slash", "d*", "e*", ""},
      {"carriage_return", "x\r#include <shadow>\r#define seam_submit(x)\r", "y\r#if 0\r", ""},
      {"bidi_trigraph", kRlo + "?\?/" + kLri, "?\?=" + kRlo, ""},
      {"comment_open", "/*", "//\\", ""},
      {"nul_in_strings", "n", "o",
       "rule nul_msg on evil.call where comm == \"a*" + std::string(1, '\0') + "/\" alert \"x" +
           std::string(1, '\0') + "*/\"\n",
       true},
      // Bidi controls in the text itself are refused (E0007); in paths they are escaped.
      {"bidi_in_text", "p", "q",
       "rule bidi on evil.call where comm == \"a" + kRlo + "\" alert \"" + kLri + "\"\n", true},
  };
}

std::set<std::string> programs_of(bpf_object* obj) {
  std::set<std::string> names;
  bpf_program* p;
  bpf_object__for_each_program(p, obj) names.insert(bpf_program__name(p));
  return names;
}

// The maps the program declares (not libbpf's .rodata/.bss/.data maps).
std::set<std::string> maps_of(bpf_object* obj) {
  std::set<std::string> names;
  bpf_map* m;
  bpf_object__for_each_map(m, obj) if (!bpf_map__is_internal(m)) names.insert(bpf_map__name(m));
  return names;
}

struct Generated {
  check::Program program;
  plan::Program lowered;
  codegen::Generated generated;
  std::string diagnostics;
};

Generated compile_case(const TempDir& dir, const Case& c) {
  Generated g;
  std::string module = dir.write(c.module_dir + "/evil.seam", module_text());
  std::string rules = dir.write(c.rules_dir + "/rules" + c.rules_dir + ".seam", rules_text() + c.rules_extra);
  check::LoadOptions load;
  load.stdlib_dirs = {std::string(SEAM_SOURCE_DIR) + "/stdlib"};
  g.program = check::load({module, rules}, load);
  if (!g.program.diagnostics.has_errors()) check::check(g.program);
  if (g.program.diagnostics.has_errors()) {
    g.diagnostics = diag::render_text(g.program.diagnostics);
    return g;
  }
  lower::Input input;
  for (const ast::File& f : g.program.modules) input.modules.push_back(&f);
  for (const ast::File& f : g.program.rule_files) input.rule_files.push_back(&f);
  g.lowered = lower::lower(input, {});
  g.generated = codegen::generate(g.lowered, {});
  return g;
}

TEST(HostileCorpus, GeneratedCKeepsTheInvariantAndBuildsIntoExactlyThePlannedObject) {
  bool can_build = can_build_generated();
  if (!can_build && in_ci()) FAIL() << "CI needs clang and " << build::kVmlinuxBtfPath;
  for (const Case& c : corpus()) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    Generated g = compile_case(dir, c);
    if (!g.diagnostics.empty() && g.program.diagnostics.has_errors()) {
      EXPECT_TRUE(c.may_refuse) << g.diagnostics;
      continue;
    }
    const std::string& src = g.generated.c_source;
    EXPECT_EQ(codegen::c_invariant_violation(src), "");
    for (const char* raw : {"#define seam_submit", "#include <", "#include \"/etc", "#if 0", "*/ #", "\r"})
      EXPECT_EQ(src.find(raw), std::string::npos) << "'" << raw << "' reached the C:\n" << src;
    ASSERT_EQ(g.lowered.plan.rules.size(), 3u + (c.rules_extra.empty() ? 0 : 1)) << src;
    if (!can_build) continue;

    build::BuildResult built = build_generated(g.lowered, src);
    ASSERT_TRUE(built.object) << built.object.error() << "\n" << built.clang_stderr << "\n" << src;

    std::set<std::string> programs = {"seam_exec_notice"};
    for (const plan::Attachment& a : g.lowered.plan.attachments) programs.insert(a.program);
    std::set<std::string> maps = {"seam_events", "seam_drops", "seam_live_gen"};
    for (const plan::Span& s : g.lowered.spans) maps.insert(s.map);
    for (const plan::State& s : g.lowered.states) maps.insert(s.map);
    for (const plan::Correlation& k : g.lowered.correlations) maps.insert(k.map);
    for (const plan::Metric& m : g.lowered.plan.metrics) maps.insert(m.map);
    EXPECT_EQ(maps.size(), 5u) << "the corpus declares one span and one metric";

    bpf_object* obj = bpf_object__open_mem(built.object->data(), built.object->size(), nullptr);
    ASSERT_NE(obj, nullptr) << "libbpf cannot open the object";
    EXPECT_EQ(programs_of(obj), programs);
    EXPECT_EQ(maps_of(obj), maps);
    bpf_object__close(obj);
  }
}

TEST(HostileCorpus, CommentTextEscapesEverythingThatCouldEndAComment) {
  EXPECT_EQ(codegen::comment_text("span s in flight, by key"), "span s in flight, by key");
  EXPECT_EQ(codegen::comment_text("*/"), "\\x2a/");
  EXPECT_EQ(codegen::comment_text("*\\\n/"), "\\x2a\\x5c\\x0a/");
  EXPECT_EQ(codegen::comment_text("a\rb?\?/"), "a\\x0db\\x3f\\x3f/");
  EXPECT_EQ(codegen::comment_text(std::string("#\0", 2) + kRlo), "\\x23\\x00\\xe2\\x80\\xae");
}

TEST(HostileCorpus, TheInvariantCatchesWhatEscapingWouldHavePrevented) {
  std::string ok =
      "// Generated by seam from a.seam\n#include \"seam_prelude.h\"\n/* rule 1 */\n"
      "#line 3 \"a\\052b\"\nint x = 1;\n";
  EXPECT_EQ(codegen::c_invariant_violation(ok), "");
  EXPECT_NE(codegen::c_invariant_violation("/* a *\\\n/ b */\n"), "");
  EXPECT_NE(codegen::c_invariant_violation("/* a */ #define x\n"), "");
  EXPECT_NE(codegen::c_invariant_violation("/* a */\n#define x\n"), "");
  EXPECT_NE(codegen::c_invariant_violation("/* a\r#include <x> */\n"), "");
  EXPECT_NE(codegen::c_invariant_violation("// x ?\?/\n"), "");
  EXPECT_NE(codegen::c_invariant_violation("#include \"/etc/shadow\"\n"), "");
  EXPECT_NE(codegen::c_invariant_violation("char *s = \"a\\\"b\";\n"), "");
  EXPECT_NE(codegen::c_invariant_violation("/* " + kRlo + " */\n"), "");
  EXPECT_NE(codegen::c_invariant_violation("#line 3 \"a\" x\n"), "");
}

}  // namespace
}  // namespace seam::test
