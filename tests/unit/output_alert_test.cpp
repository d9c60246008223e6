// DecodedRecord → Alert: message holes by unit, header holes, enums, `with` fields, stacks.
#include <gtest/gtest.h>

#include "runtime/output/alert_builder.hpp"

namespace seam::runtime {
namespace {

using plan::FieldType;
using plan::FieldUnit;

plan::Field make_field(std::string name, FieldType type, FieldUnit unit = FieldUnit::None,
                       std::string enum_name = {}) {
  plan::Field f;
  f.name = std::move(name);
  f.type = type;
  f.unit = unit;
  f.enum_name = std::move(enum_name);
  return f;
}

struct Fixture {
  plan::Rule rule;
  plan::Record record;
  DecodedRecord decoded;

  Fixture() {
    rule.id = 1;
    rule.name = "sync_under_gil";
    rule.file = "rules/gil.seam";
    rule.line = 12;
    rule.severity = plan::Severity::Error;
    record.rule_id = 1;
    record.fields = {make_field("duration", FieldType::U64, FieldUnit::Ns),
                     make_field("size", FieldType::U64, FieldUnit::Bytes),
                     make_field("stream", FieldType::Ptr),
                     make_field("ret", FieldType::I32, FieldUnit::None, "cudaError"),
                     make_field("ok", FieldType::Bool),
                     make_field("name", FieldType::Str),
                     make_field("ustack", FieldType::UStack),
                     make_field("kstack", FieldType::KStack)};
    decoded.rule = &rule;
    decoded.record = &record;
    decoded.rule_id = 1;
    decoded.wall_ns = 1796022723'123'000'000;
    decoded.pid = 1234;
    decoded.tid = 1240;
    decoded.cgroup = 77;
    decoded.comm = "python3";
    const Value values[] = {
        {uint64_t{20'100'000}, FieldUnit::Ns, FieldType::U64},
        {uint64_t{4u << 20}, FieldUnit::Bytes, FieldType::U64},
        {uint64_t{0x7f0010}, FieldUnit::None, FieldType::Ptr},
        {int64_t{2}, FieldUnit::None, FieldType::I32},
        {true, FieldUnit::None, FieldType::Bool},
        {std::string("w"), FieldUnit::None, FieldType::Str},
        {std::vector<uint64_t>{0x7f01, 0x7f02}, FieldUnit::None, FieldType::UStack},
        {std::vector<uint64_t>{0xffff01}, FieldUnit::None, FieldType::KStack},
    };
    for (size_t i = 0; i < record.fields.size(); ++i)
      decoded.fields.push_back({&record.fields[i], values[i]});
  }

  void message(std::initializer_list<std::pair<bool, const char*>> parts) {
    rule.message.clear();
    for (auto [is_field, text] : parts) rule.message.push_back({is_field, text, {}});
    plan::resolve_values(rule, &record);
  }
  void with(std::initializer_list<const char*> names) {
    rule.with.clear();
    for (const char* name : names) rule.with.push_back({name, {}});
    plan::resolve_values(rule, &record);
  }
};

std::optional<std::string_view> cuda_errors(std::string_view enum_name, int64_t v) {
  if (enum_name == "cudaError" && v == 2) return "cudaErrorMemoryAllocation";
  return std::nullopt;
}

TEST(OutputAlert, MessageHolesFormatByUnit) {
  Fixture fx;
  fx.message({{false, "blocked "},
              {true, "duration"},
              {false, " for "},
              {true, "size"},
              {false, " on "},
              {true, "stream"},
              {false, " ok="},
              {true, "ok"},
              {false, " "},
              {true, "name"},
              {false, " ret="},
              {true, "ret"}});
  std::string out;
  render_message(fx.rule.message, fx.decoded, {}, out);
  EXPECT_EQ(out, "blocked 20.1ms for 4.0MiB on 0x7f0010 ok=true w ret=2");
}

TEST(OutputAlert, EnumsPrintByNameWhenTheHookKnowsThem) {
  Fixture fx;
  fx.message({{true, "ret"}});
  std::string out;
  render_message(fx.rule.message, fx.decoded, cuda_errors, out);
  EXPECT_EQ(out, "cudaErrorMemoryAllocation");
  std::get<int64_t>(fx.decoded.fields[3].value.v) = 999;
  out.clear();
  render_message(fx.rule.message, fx.decoded, cuda_errors, out);
  EXPECT_EQ(out, "999");
}

TEST(OutputAlert, HeaderHolesAndUnknownHoles) {
  Fixture fx;
  fx.message({{true, "pid"},
              {false, "/"},
              {true, "tid"},
              {false, " "},
              {true, "comm"},
              {false, " "},
              {true, "cgroup"},
              {false, " at "},
              {true, "time"},
              {false, " "},
              {true, "nope"}});
  std::string out;
  render_message(fx.rule.message, fx.decoded, {}, out);
  EXPECT_EQ(out, "1234/1240 python3 77 at 2026-11-30T07:12:03.123Z {nope}");
}

// A process chooses its own name: a newline or an ANSI escape in it must not forge a second
// alert line or recolour the terminal (issue 13, item 12).
TEST(OutputAlert, CommInAMessageHasItsControlBytesReplaced) {
  Fixture fx;
  fx.decoded.comm = "a\nERROR x\x1b[31mz\x7f";
  fx.message({{false, "by "}, {true, "comm"}, {false, "."}});
  std::string out;
  render_message(fx.rule.message, fx.decoded, {}, out);
  EXPECT_EQ(out, "by a?ERROR x?[31mz?.");
}

// The plan resolved each hole to a field index once: printing never looks the name up again.
TEST(OutputAlert, HolesPrintTheFieldTheyWereResolvedTo) {
  Fixture fx;
  fx.message({{true, "size"}, {false, " "}, {true, "pid"}});
  EXPECT_EQ(fx.rule.message[0].ref.field, 1);
  EXPECT_EQ(fx.rule.message[2].ref.header, plan::HeaderValue::Pid);
  fx.rule.message[0].text = "renamed";
  fx.rule.message[2].text = "tid";
  std::string out;
  render_message(fx.rule.message, fx.decoded, {}, out);
  EXPECT_EQ(out, "4.0MiB 1234");
  fx.rule.message[0].ref = {};  // unresolved: the gap shows
  out.clear();
  render_message(fx.rule.message, fx.decoded, {}, out);
  EXPECT_EQ(out, "{renamed} 1234");
}

TEST(OutputAlert, BuildsAlertWithWithFieldsAndSymbolizedStacks) {
  Fixture fx;
  fx.message({{false, "sync "}, {true, "duration"}});
  fx.with({"size", "pid", "ustack", "cgroup", "stream"});
  std::vector<std::pair<uint32_t, bool>> calls;
  AlertBuilder builder([&](uint32_t pid, std::span<const uint64_t> addrs, bool kernel) {
    calls.push_back({pid, kernel});
    std::vector<StackFrame> frames;
    for (uint64_t a : addrs)
      frames.push_back({a, kernel ? "schedule" : "cudaStreamSynchronize", 4, "libcudart.so.12"});
    return frames;
  });
  Alert a = builder.build(fx.decoded, 3);
  EXPECT_EQ(a.time_ns, 1796022723'123'000'000);
  EXPECT_EQ(a.severity, plan::Severity::Error);
  EXPECT_EQ(a.rule, "sync_under_gil");
  EXPECT_EQ(a.file, "rules/gil.seam");
  EXPECT_EQ(a.line, 12u);
  EXPECT_EQ(a.message, "sync 20.1ms");
  EXPECT_EQ(a.pid, 1234u);
  EXPECT_EQ(a.tid, 1240u);
  EXPECT_EQ(a.comm, "python3");
  EXPECT_EQ(a.cgroup, 77u);
  EXPECT_EQ(a.suppressed, 3u);
  // The `with` items first (pid is in the header, ustack is a stack), then every other
  // non-stack value of the record in layout order.
  ASSERT_EQ(a.fields.size(), 7u);
  EXPECT_EQ(a.fields[3].name, "duration");
  EXPECT_EQ(a.fields[4].name, "ret");
  EXPECT_EQ(a.fields[5].name, "ok");
  EXPECT_EQ(a.fields[6].name, "name");
  EXPECT_EQ(a.fields[0].name, "size");
  EXPECT_EQ(a.fields[1].name, "cgroup");
  EXPECT_EQ(std::get<uint64_t>(a.fields[1].value.v), 77u);
  EXPECT_EQ(a.fields[2].name, "stream");
  EXPECT_EQ(a.fields[2].value.type, FieldType::Ptr);
  ASSERT_EQ(a.stacks.size(), 2u);
  EXPECT_EQ(a.stacks[0].name, "ustack");
  EXPECT_FALSE(a.stacks[0].kernel);
  ASSERT_EQ(a.stacks[0].frames.size(), 2u);
  EXPECT_EQ(a.stacks[0].frames[1].addr, 0x7f02u);
  EXPECT_EQ(a.stacks[0].frames[1].symbol, "cudaStreamSynchronize");
  EXPECT_EQ(a.stacks[1].name, "kstack");
  EXPECT_TRUE(a.stacks[1].kernel);
  EXPECT_EQ(a.stacks[1].frames[0].symbol, "schedule");
  EXPECT_EQ(calls, (std::vector<std::pair<uint32_t, bool>>{{1234, false}, {1234, true}}));
}

TEST(OutputAlert, WithFieldsCarryTheirDisplayText) {
  Fixture fx;
  fx.with({"ret", "duration", "stream"});
  Alert a = AlertBuilder({}, cuda_errors).build(fx.decoded);
  ASSERT_EQ(a.fields.size(), 6u);  // the three `with` items lead, the record's other values follow
  EXPECT_EQ(a.fields[0].text, "cudaErrorMemoryAllocation");
  EXPECT_EQ(a.fields[0].enum_name, "cudaError");
  EXPECT_EQ(std::get<int64_t>(a.fields[0].value.v), 2);
  EXPECT_EQ(a.fields[1].text, "20.1ms");
  EXPECT_EQ(a.fields[2].text, "0x7f0010");
}

TEST(OutputAlert, StacksWithoutSymbolizerAreBareAddresses) {
  Fixture fx;
  Alert a = AlertBuilder().build(fx.decoded);
  ASSERT_EQ(a.stacks.size(), 2u);
  ASSERT_EQ(a.stacks[0].frames.size(), 2u);
  EXPECT_EQ(a.stacks[0].frames[0].addr, 0x7f01u);
  EXPECT_EQ(a.stacks[0].frames[0].symbol, "");
}

TEST(OutputAlert, RebuildingReusesTheAlert) {
  Fixture fx;
  fx.with({"size", "name"});
  AlertBuilder builder;
  Alert a;
  builder.build(fx.decoded, 0, a);
  fx.with({"ok"});
  fx.decoded.comm = "other";
  builder.build(fx.decoded, 0, a);
  ASSERT_EQ(a.fields.size(), 6u);  // `ok` first, then the record's other values: no leftovers
  EXPECT_EQ(a.fields[0].name, "ok");
  EXPECT_EQ(a.fields[1].name, "duration");
  EXPECT_EQ(a.comm, "other");
}

}  // namespace
}  // namespace seam::runtime
