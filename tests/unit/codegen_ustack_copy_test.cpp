// `with ustack` on events that run where the user registers are: the record carries a copy of
// the stack's top and the registers (plan::FieldType::UStackCopy), filled by page-sized reads
// that stop at the stack's top; the ring grows to hold such records.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/compile_text.hpp"

namespace seam::test {
namespace {

const plan::Field* field_of_type(const plan::Record& r, plan::FieldType type) {
  for (const plan::Field& f : r.fields)
    if (f.type == type) return &f;
  return nullptr;
}

constexpr const char* kHeadline =
    "use cuda, python\ncudaStreamSynchronize > 10ms while gil_held -> alert with ustack limit 10 per 1m\n";

TEST(CodegenUstackCopy, ASpanOnAFunctionCopiesEightKibAndTheRegistersAtItsReturn) {
  Compiled c = compile_text(kHeadline);
  ASSERT_EQ(c.diagnostics, "");
  const plan::Record& r = c.lowered.plan.records.at(0);
  const plan::Field* copy = field_of_type(r, plan::FieldType::UStackCopy);
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->name, "ustack_copy");
  EXPECT_EQ(copy->size, plan::kStackCopyHeader + 8192);
  EXPECT_EQ(copy->offset % 8, 0u);
  EXPECT_NE(field_of_type(r, plan::FieldType::UStack), nullptr);  // the frame-pointer walk stays
  const std::string& src = c.generated.c_source;
  // Two pages (stack_copy.h: page-sized reads that stop at the stack's top); frame 0 is the
  // function's entry, saved at its call.
  EXPECT_NE(src.find("#include \"stack_copy.h\""), std::string::npos) << src;
  EXPECT_NE(src.find("seam_stack_copy((struct pt_regs *)ctx, (__u64 *)(rec + " +
                     std::to_string(copy->offset) + "), sv->ip, 2);"),
            std::string::npos)
      << src;
  EXPECT_NE(std::find(c.generated.prebuilt_calls.begin(), c.generated.prebuilt_calls.end(), "stack_copy"),
            c.generated.prebuilt_calls.end());
  // The layout document carries it, so the runtime decodes it with the plan alone.
  plan::Plan back = c.generated.layout.get<plan::Plan>();
  EXPECT_NE(field_of_type(back.records.at(0), plan::FieldType::UStackCopy), nullptr);
}

TEST(CodegenUstackCopy, NoCopyWithoutUserRegistersOrWhenTurnedOff) {
  lower::Options off;
  off.ustack_copy_bytes = 0;  // --ustack-copy 0: frame pointers only
  Compiled fp = compile_text(kHeadline, {}, off);
  ASSERT_EQ(fp.diagnostics, "");
  EXPECT_EQ(field_of_type(fp.lowered.plan.records.at(0), plan::FieldType::UStackCopy), nullptr);
  EXPECT_EQ(fp.generated.c_source.find("seam_stack_copy("), std::string::npos);
  // A tracepoint's program has no user registers as its context.
  Compiled tp =
      compile_text("use mem\nrule f on mem.page_fault alert info \"fault\" with ustack limit 1 per 1s\n");
  ASSERT_EQ(tp.diagnostics, "");
  EXPECT_EQ(field_of_type(tp.lowered.plan.records.at(0), plan::FieldType::UStackCopy), nullptr);
  EXPECT_NE(field_of_type(tp.lowered.plan.records.at(0), plan::FieldType::UStack), nullptr);
}

TEST(CodegenUstackCopy, TheRingHoldsSixtyFourOfTheLargestRecords) {
  lower::Options small;
  small.ringbuf_bytes = 4096;  // --ringbuf-size 4
  Compiled c = compile_text(kHeadline, {}, small);
  ASSERT_EQ(c.diagnostics, "");
  uint32_t record = c.lowered.plan.records.at(0).size;
  ASSERT_GT(record, 8192u);
  EXPECT_GE(c.lowered.plan.ringbuf_bytes, (record + 8) * lower::kRingRecords);
  EXPECT_LT(c.lowered.plan.ringbuf_bytes / 2, (record + 8) * lower::kRingRecords);  // the next power of two
  EXPECT_EQ(c.lowered.plan.ringbuf_bytes & (c.lowered.plan.ringbuf_bytes - 1), 0u);
  // A larger ring asked for is kept as it is.
  EXPECT_EQ(compile_text(kHeadline).lowered.plan.ringbuf_bytes, 1u << 22);
}

}  // namespace
}  // namespace seam::test
