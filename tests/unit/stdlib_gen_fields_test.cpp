// Which argument slots a function's parameters take (x86-64 System V), and their seam types.
#include <gtest/gtest.h>

#include "compiler/stdlib_gen/seam_fields.hpp"

namespace seam::stdlib_gen {
namespace {

CType integer(int size, bool is_signed, const std::string& spelling = "int") {
  CType t;
  t.kind = CTypeKind::Integer;
  t.size = size;
  t.is_signed = is_signed;
  t.spelling = spelling;
  return t;
}

CType pointer() {
  CType t;
  t.kind = CTypeKind::Pointer;
  t.size = 8;
  t.spelling = "void *";
  return t;
}

CType record(int size, std::vector<CLeaf> leaves) {
  CType t;
  t.kind = CTypeKind::Record;
  t.size = size;
  t.spelling = "struct s";
  t.leaves = std::move(leaves);
  return t;
}

// A function returning void, parameters to be added.
CFunction void_function() {
  CFunction f;
  f.result.kind = CTypeKind::Void;
  return f;
}

std::string names_and_types(const SeamFields& fields) {
  std::string out;
  for (const SeamField& f : fields.args) out += (out.empty() ? "" : ", ") + f.name + ": " + f.type;
  return out;
}

TEST(StdlibGenFields, ByteCountsAreNamedLikeThemAndPointerSized) {
  CFunction f = void_function();
  f.params = {{"size", integer(8, false, "size_t"), ""}, {"sizeInBytes", integer(8, false), ""},
              {"count", integer(4, false), ""},          {"width", integer(8, false), ""},
              {"len", integer(8, true, "ssize_t"), ""},  {"nbytes", integer(8, false), ""}};
  EXPECT_EQ(names_and_types(seam_fields_of(f)),
            "size: bytes, size_in_bytes: bytes, count: u32, width: u64, len: i64, nbytes: bytes");
}

TEST(StdlibGenFields, FloatsAndLargeStructsTakeNoSlot) {
  CFunction f = void_function();
  CType dbl;
  dbl.kind = CTypeKind::Float;
  dbl.size = 8;
  dbl.spelling = "double";
  f.params = {{"a", pointer(), ""}, {"scale", dbl, ""}, {"b", integer(4, true), ""}};
  SeamFields fields = seam_fields_of(f);
  EXPECT_EQ(names_and_types(fields), "a: ptr, b: i32");
  ASSERT_EQ(fields.omitted.size(), 1u);
  EXPECT_EQ(fields.omitted[0], "scale (double): passed in an SSE register");
}

TEST(StdlibGenFields, SmallStructsTakeOneSlotPerIntegerHalf) {
  CFunction f = void_function();
  // {float x; float y; int z;}: bytes 0..7 are floats (SSE), bytes 8..11 an int (one register).
  f.params = {{"v", record(12, {{"x", 0, 4, true}, {"y", 4, 4, true}, {"z", 8, 4, false}}), ""},
              {"p", pointer(), ""}};
  EXPECT_EQ(names_and_types(seam_fields_of(f)), "v_z: u32, p: ptr");
}

TEST(StdlibGenFields, StackArgumentsAfterAStructOnTheStackStopTheList) {
  CFunction f = void_function();
  for (int i = 0; i < 5; ++i) f.params.push_back({"a" + std::to_string(i), integer(4, true), ""});
  f.params.push_back({"big", record(32, {{"x", 0, 8, false}}), ""});
  f.params.push_back({"r5", integer(4, true), ""});  // still a register
  f.params.push_back({"s6", integer(4, true), ""});  // on the stack, after big
  SeamFields fields = seam_fields_of(f);
  EXPECT_EQ(names_and_types(fields), "a0: i32, a1: i32, a2: i32, a3: i32, a4: i32, r5: i32");
  ASSERT_EQ(fields.omitted.size(), 2u);
  EXPECT_EQ(fields.omitted[1], "s6 (int) and after: on the stack after a struct passed there");
}

TEST(StdlibGenFields, ArgumentNamesAreUniqueAndNotTheResultsName) {
  CFunction f = void_function();
  f.params = {{"ret", integer(4, true), ""},
              {"a_b", integer(4, true), ""},
              {"aB", integer(4, true), ""},
              {"", integer(4, true), ""}};
  EXPECT_EQ(names_and_types(seam_fields_of(f)), "ret_2: i32, a_b: i32, a_b_2: i32, arg3: i32");
}

TEST(StdlibGenFields, ResultTypes) {
  CFunction f = void_function();
  f.result.kind = CTypeKind::Enum;
  f.result.size = 4;
  f.result.is_signed = false;  // an enum of non-negative values: still a C enum, typed with it
  f.result.enum_name = "err";
  SeamFields fields = seam_fields_of(f);
  ASSERT_TRUE(fields.result.has_value());
  EXPECT_EQ(fields.result->type, "err");
  EXPECT_EQ(fields.result->comment, "");
  EXPECT_EQ(fields.enums, std::vector<std::string>{"err"});
  f.result.enum_name = "state";  // a seam reserved word cannot name the type: an integer, said in the comment
  fields = seam_fields_of(f);
  EXPECT_EQ(fields.result->type, "i32");
  EXPECT_EQ(fields.result->comment, "enum state");
  f.result.kind = CTypeKind::Void;
  EXPECT_FALSE(seam_fields_of(f).result.has_value());
}

}  // namespace
}  // namespace seam::stdlib_gen
