// User stacks from a record's stack copy: the builder hands the parsed copy (registers, frame 0,
// stack bytes) to the injected unwinder and shows what it found; without an unwinder, or when it
// cannot unwind, the frame-pointer stack is used, and stops where its addresses leave mapped
// code. A stack that stops early carries its reason to stdout and JSON, never as a frame.
#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "runtime/output/alert_builder.hpp"
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

  Fixture() {
    rule.id = 1;
    rule.name = "slow_sync";
    rule.with = {{"ustack", {}}};
    record.rule_id = 1;
    plan::Field ustack;
    ustack.name = "ustack";
    ustack.type = FieldType::UStack;
    plan::Field copy;
    copy.name = "ustack_copy";
    copy.type = FieldType::UStackCopy;
    record.fields = {ustack, copy};
    plan::resolve_values(rule, &record);
    decoded.rule = &rule;
    decoded.record = &record;
    decoded.pid = 4242;
    decoded.tid = 4243;
    // The copy as the decoder keeps it: copied, frame0, 8 registers, then the stack bytes.
    std::string bytes(plan::kStackCopyHeader + 16, '\0');
    uint64_t header[2 + plan::kStackCopyRegs] = {16, 0x401000, 0x402abc, 0x7ffc0000, 11, 12, 13, 14, 15, 16};
    std::memcpy(bytes.data(), header, sizeof header);
    bytes[plan::kStackCopyHeader] = 0x5a;
    decoded.fields.push_back(
        {&record.fields[0],
         {std::vector<uint64_t>{0x401000, 0x7ffc0010}, FieldUnit::None, FieldType::UStack}});
    decoded.fields.push_back({&record.fields[1], {bytes, FieldUnit::None, FieldType::UStackCopy}});
  }
};

// One frame per address, named after it; stops at 0x7ffc... addresses (not code).
std::vector<StackFrame> fp_symbolizer(uint32_t, std::span<const uint64_t> addrs, bool kernel) {
  std::vector<StackFrame> out;
  for (uint64_t a : addrs) {
    if (!kernel && a >= 0x7ffc0000) break;
    out.push_back({a, "fn_" + std::to_string(a & 0xfff), 0, "/bin/app"});
  }
  return out;
}

TEST(OutputUnwoundStack, TheUnwinderGetsTheParsedCopyAndItsFramesAreShown) {
  Fixture fx;
  StackCopyView seen;
  uint32_t seen_pid = 0, seen_tid = 0;
  AlertBuilder builder(fp_symbolizer, {},
                       [&](uint32_t pid, uint32_t tid, const StackCopyView& copy, AlertStack& out) {
                         seen = copy;
                         seen_pid = pid, seen_tid = tid;
                         out.frames = {{0x401000, "cudaStreamSynchronize", 0, "/lib/libcudart.so.12"},
                                       {0x402abc, "inner", 0xc, "/bin/app"}};
                         out.truncated = "stack copy ends";
                         return true;
                       });
  Alert a = builder.build(fx.decoded);
  EXPECT_EQ(seen_pid, 4242u);
  EXPECT_EQ(seen_tid, 4243u);
  EXPECT_EQ(seen.frame0, 0x401000u);
  EXPECT_EQ(seen.regs[static_cast<size_t>(plan::StackCopyReg::Ip)], 0x402abcu);
  EXPECT_EQ(seen.regs[static_cast<size_t>(plan::StackCopyReg::Sp)], 0x7ffc0000u);
  EXPECT_EQ(seen.regs[static_cast<size_t>(plan::StackCopyReg::R15)], 16u);
  ASSERT_EQ(seen.stack.size(), 16u);
  ASSERT_EQ(a.stacks.size(), 1u);
  EXPECT_EQ(a.stacks[0].name, "ustack");
  ASSERT_EQ(a.stacks[0].frames.size(), 2u);
  EXPECT_EQ(a.stacks[0].frames[1].symbol, "inner");
  EXPECT_EQ(a.stacks[0].truncated, "stack copy ends");
  EXPECT_TRUE(a.fields.empty());  // the copy itself is never shown

  std::string text;
  append_alert_text(text, a);
  EXPECT_NE(text.find("    #1 0x402abc  inner+0xc (/bin/app)\n    [stack copy ends]\n"), std::string::npos)
      << text;
  std::string json;
  append_alert_json(json, a);
  nlohmann::json j = nlohmann::json::parse(json);
  ASSERT_EQ(j["ustack"].size(), 3u);
  EXPECT_EQ(j["ustack"][1]["kind"], "native");
  EXPECT_EQ(j["ustack"][1]["function"], "inner");
  EXPECT_EQ(j["ustack"][2], (nlohmann::json{{"kind", "truncated"}, {"reason", "stack copy ends"}}));
}

TEST(OutputUnwoundStack, WithoutAnUnwindTheFramePointerStackStopsAtTheFirstNonCodeAddress) {
  Fixture fx;
  AlertBuilder builder(fp_symbolizer, {},
                       [](uint32_t, uint32_t, const StackCopyView&, AlertStack&) { return false; });
  Alert a = builder.build(fx.decoded);
  ASSERT_EQ(a.stacks.size(), 1u);
  ASSERT_EQ(a.stacks[0].frames.size(), 1u);  // 0x7ffc0010 is not shown as a frame
  EXPECT_EQ(a.stacks[0].frames[0].symbol, "fn_0");
  EXPECT_EQ(a.stacks[0].truncated, "truncated: frame pointers lead to 0x7ffc0010, outside mapped code");
  // The next alert built into the same object starts clean.
  AlertBuilder whole(fp_symbolizer);
  std::get<std::vector<uint64_t>>(fx.decoded.fields[0].value.v) = {0x401000, 0x401100};
  whole.build(fx.decoded, 0, a);
  EXPECT_EQ(a.stacks[0].frames.size(), 2u);
  EXPECT_EQ(a.stacks[0].truncated, "");
}

}  // namespace
}  // namespace seam::runtime
