// `with pystack` and `with stack`: the record carries the Python frames (plan::FieldType::PyStack,
// 64 frames) walked from the process map of the python module's reader: the gil_held state's
// when the file tests it, else a reader of its own ("cpython_frames"); `stack` adds the user
// stack and its copy beside them. The walk is py_stack.h's, called with the map and the count.
#include <gtest/gtest.h>

#include "support/compile_text.hpp"

namespace seam::test {
namespace {

const plan::Field* field_named(const plan::Record& r, const std::string& name) {
  for (const plan::Field& f : r.fields)
    if (f.name == name) return &f;
  return nullptr;
}

TEST(CodegenPystack, StackWithGilHeldSharesTheGilReadersMap) {
  Compiled c = compile_text(
      "use cuda, python\ncudaStreamSynchronize > 10ms while gil_held -> alert with stack limit 10 per 1m\n");
  ASSERT_EQ(c.diagnostics, "");
  const plan::Record& r = c.lowered.plan.records.at(0);
  const plan::Field* py = field_named(r, "pystack");
  ASSERT_NE(py, nullptr);
  EXPECT_EQ(py->type, plan::FieldType::PyStack);
  EXPECT_EQ(py->size, plan::kPyStackHeader + 64 * plan::kPyFrameBytes);
  EXPECT_NE(field_named(r, "ustack"), nullptr);
  EXPECT_NE(field_named(r, "ustack_copy"), nullptr);
  ASSERT_EQ(c.lowered.plan.memory_readers.size(), 1u);
  const plan::MemoryReader& reader = c.lowered.plan.memory_readers[0];
  EXPECT_EQ(reader.reader, "cpython_gil");
  const std::string& src = c.generated.c_source;
  EXPECT_NE(src.find("#include \"py_stack.h\""), std::string::npos);
  EXPECT_NE(src.find("seam_py_stack(&" + reader.map + ", tgid, (__u64 *)(rec + " +
                     std::to_string(py->offset) + "), 64);"),
            std::string::npos)
      << src;
}

TEST(CodegenPystack, PystackAloneGetsAFramesReaderOfItsOwn) {
  Compiled c = compile_text(
      "use cuda, python\nrule r on cuda.stream_sync where duration > 10ms alert \"x\" with pystack limit 1 "
      "per 1m\n");
  ASSERT_EQ(c.diagnostics, "");
  ASSERT_EQ(c.lowered.plan.memory_readers.size(), 1u);
  const plan::MemoryReader& reader = c.lowered.plan.memory_readers[0];
  EXPECT_EQ(reader.reader, "cpython_frames");
  EXPECT_EQ(reader.state, "pystack");
  EXPECT_GE(reader.library, 0);
  EXPECT_EQ(c.lowered.plan.libraries.at(static_cast<size_t>(reader.library)).name, "libpython");
  const plan::Record& r = c.lowered.plan.records.at(0);
  EXPECT_NE(field_named(r, "pystack"), nullptr);
  EXPECT_EQ(field_named(r, "ustack"), nullptr);  // pystack alone: no native stack
  EXPECT_NE(c.generated.c_source.find("struct seam_py_proc"), std::string::npos);
  EXPECT_NE(c.generated.c_source.find(reader.map + " SEC(\".maps\")"), std::string::npos);
}

// The ring budget counts the frames: a small ring asked for grows to hold kRingRecords of the
// largest record, the Python frames (and for `with stack` the 8 KiB stack copy) included.
TEST(CodegenPystack, TheRingHoldsSixtyFourRecordsWithTheirFrames) {
  lower::Options small;
  small.ringbuf_bytes = 4096;  // --ringbuf-size 4
  for (const char* items : {"pystack", "stack"}) {
    Compiled c = compile_text(std::string("use cuda, python\nrule r on cuda.stream_sync alert \"x\" with ") +
                                  items + " limit 1 per 1m\n",
                              {}, small);
    ASSERT_EQ(c.diagnostics, "") << items;
    const plan::Record& r = c.lowered.plan.records.at(0);
    const plan::Field* py = field_named(r, "pystack");
    ASSERT_NE(py, nullptr) << items;
    EXPECT_GE(r.size, py->offset + py->size) << items;
    const uint64_t needed = static_cast<uint64_t>(r.size + 8) * lower::kRingRecords;
    EXPECT_GE(c.lowered.plan.ringbuf_bytes, needed) << items;
    EXPECT_LT(c.lowered.plan.ringbuf_bytes / 2, needed) << items;  // the next power of two
  }
}

}  // namespace
}  // namespace seam::test
