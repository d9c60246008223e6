// Python frames in alerts: a `pystack` field named by the injected PyStackNamer, and `with
// stack`'s one mixed stack, where each call of the eval loop (_PyEval_EvalFrameDefault) is
// preceded by the Python frames it runs, innermost first. Both print as a traceback on stdout
// and as frames of kind "python" in JSON; the Alertmanager text carries them; grouping tells
// apart two stacks that differ only in a Python line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "runtime/output/alert_builder.hpp"
#include "runtime/output/alert_grouper.hpp"
#include "runtime/output/json_sink.hpp"
#include "runtime/output/stdout_sink.hpp"

namespace seam::runtime {
namespace {

using plan::FieldType;
using plan::FieldUnit;

struct Fixture {
  plan::Rule rule;
  plan::Record record;
  DecodedRecord decoded;

  explicit Fixture(std::vector<std::string> with) {
    rule.id = 1;
    rule.name = "headline";
    for (std::string& w : with) rule.with.push_back({std::move(w), {}});
    record.rule_id = 1;
    plan::Field ustack;
    ustack.name = "ustack";
    ustack.type = FieldType::UStack;
    plan::Field pystack;
    pystack.name = "pystack";
    pystack.type = FieldType::PyStack;
    record.fields = {pystack, ustack};
    plan::resolve_values(rule, &record);
    decoded.rule = &rule;
    decoded.record = &record;
    decoded.pid = 77;
    decoded.fields.push_back({&record.fields[0], {std::string("py"), FieldUnit::None, FieldType::PyStack}});
    decoded.fields.push_back(
        {&record.fields[1], {std::vector<uint64_t>{1, 2, 3, 4, 5, 6}, FieldUnit::None, FieldType::UStack}});
  }
};

// Native frames: the sync, ffi, two eval loops with a C function between, main.
std::vector<StackFrame> native(uint32_t, std::span<const uint64_t> addrs, bool) {
  const char* names[] = {"cudaStreamSynchronize",    "ffi_call", "_PyEval_EvalFrameDefault", "PyObject_Call",
                         "_PyEval_EvalFrameDefault", "main"};
  std::vector<StackFrame> out;
  for (uint64_t a : addrs) out.push_back({a, names[a - 1], 0x10, "/bin/python"});
  return out;
}

StackFrame py(const char* function, int line, bool entry) {
  StackFrame f;
  f.python = true;
  f.addr = 0xc0de;
  f.symbol = function;
  f.file = "/srv/app.py";
  f.module = "app";
  f.line = line;
  f.offset = 24;
  f.entry = entry;
  return f;
}

// inner and middle run in the first eval call (middle is its entry), outer in the second.
int g_inner_line = 11;
void namer(uint32_t pid, std::span<const uint8_t> bytes, AlertStack& out) {
  EXPECT_EQ(pid, 77u);
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "py");
  out.frames = {py("inner", g_inner_line, false), py("Server.middle", 9, true), py("outer", 7, true)};
}

std::vector<std::string> names(const AlertStack& s) {
  std::vector<std::string> out;
  for (const StackFrame& f : s.frames) out.push_back((f.python ? "py:" : "") + f.symbol);
  return out;
}

TEST(OutputPythonStack, MixedStackPlacesEachEvalCallsFramesBeforeIt) {
  Fixture fx({"stack"});
  Alert a = AlertBuilder(native, {}, {}, namer).build(fx.decoded);
  ASSERT_EQ(a.stacks.size(), 1u);  // one stack, in place of ustack and pystack
  EXPECT_EQ(a.stacks[0].name, "stack");
  EXPECT_EQ(names(a.stacks[0]),
            (std::vector<std::string>{"cudaStreamSynchronize", "ffi_call", "py:inner", "py:Server.middle",
                                      "_PyEval_EvalFrameDefault", "PyObject_Call", "py:outer",
                                      "_PyEval_EvalFrameDefault", "main"}));
  std::string text;
  append_alert_text(text, a);
  EXPECT_NE(text.find("    #1 0x2  ffi_call+0x10 (/bin/python)\n"
                      "    #2 File \"/srv/app.py\", line 11, in inner\n"
                      "    #3 File \"/srv/app.py\", line 9, in Server.middle\n"
                      "    #4 0x3  _PyEval_EvalFrameDefault+0x10 (/bin/python)\n"),
            std::string::npos)
      << text;
  std::string json;
  append_alert_json(json, a);
  nlohmann::json j = nlohmann::json::parse(json);
  ASSERT_EQ(j["stack"].size(), 9u);
  EXPECT_EQ(j["stack"][2], (nlohmann::json{{"kind", "python"},
                                           {"addr", "0xc0de"},
                                           {"function", "inner"},
                                           {"symbol", "inner"},
                                           {"offset", 24},
                                           {"module", "app"},
                                           {"file", "/srv/app.py"},
                                           {"line", 11}}));
  EXPECT_EQ(j["stack"][0]["kind"], "native");
  EXPECT_TRUE(j["stack"][0]["file"].is_null());
  EXPECT_TRUE(j["stack"][0]["line"].is_null());
}

TEST(OutputPythonStack, PystackAloneAndLeftoverFramesFollowTheNativeOnes) {
  Fixture fx({"pystack", "ustack"});
  Alert a = AlertBuilder(native, {}, {}, namer).build(fx.decoded);
  ASSERT_EQ(a.stacks.size(), 2u);
  EXPECT_EQ(a.stacks[0].name, "pystack");
  EXPECT_EQ(names(a.stacks[0]), (std::vector<std::string>{"py:inner", "py:Server.middle", "py:outer"}));
  EXPECT_EQ(a.stacks[1].name, "ustack");

  // A native unwind that stops before the eval loops: the Python frames come after it.
  Fixture short_stack({"stack"});
  std::get<std::vector<uint64_t>>(short_stack.decoded.fields[1].value.v) = {1, 2};
  Alert b = AlertBuilder(native, {}, {}, namer).build(short_stack.decoded);
  EXPECT_EQ(names(b.stacks[0]), (std::vector<std::string>{"cudaStreamSynchronize", "ffi_call", "py:inner",
                                                          "py:Server.middle", "py:outer"}));
}

TEST(OutputPythonStack, GroupingTellsPythonLinesApart) {
  Fixture fx({"stack"});
  AlertBuilder builder(native, {}, {}, namer);
  g_inner_line = 11;
  Alert first = builder.build(fx.decoded);
  g_inner_line = 12;
  Alert other = builder.build(fx.decoded);
  g_inner_line = 11;
  Alert same = builder.build(fx.decoded);
  EXPECT_NE(AlertGrouper::key(first), AlertGrouper::key(other));
  EXPECT_EQ(AlertGrouper::key(first), AlertGrouper::key(same));
}

TEST(OutputPythonStack, WithoutANamerThePystackSaysSo) {
  Fixture fx({"pystack"});
  Alert a = AlertBuilder(native).build(fx.decoded);
  ASSERT_EQ(a.stacks.size(), 2u);  // every stack the record carries
  EXPECT_EQ(a.stacks[0].name, "pystack");
  EXPECT_TRUE(a.stacks[0].frames.empty());
  EXPECT_EQ(a.stacks[0].truncated, "no Python frames: nothing names them here");
}

}  // namespace
}  // namespace seam::runtime
