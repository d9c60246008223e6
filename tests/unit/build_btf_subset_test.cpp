// btf_subset and MappedBtfTypes: the types header dumped from a small copy of what it needs, read
// from the mapped file, is the header libbpf's btf_dump writes from the whole parsed BTF. A small
// BTF built here pins the rule (what is copied whole, what by name only); the running kernel's
// BTF checks it on real types, down to the text.
#include <bpf/btf.h>
#include <gtest/gtest.h>
#include <linux/btf.h>

#include <cstdarg>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "compiler/build/btf_subset.hpp"
#include "compiler/build/btf_types.hpp"
#include "compiler/build/kernel_types.hpp"
#include "compiler/build/vmlinux_btf.hpp"

namespace seam::build {
namespace {

#define SKIP_WITHOUT_BTF()                       \
  if (!std::filesystem::exists(kVmlinuxBtfPath)) \
  GTEST_SKIP() << kVmlinuxBtfPath << " absent (kernel without BTF)"

void append(void* ctx, const char* fmt, va_list args) {
  char buf[4096];
  std::vsnprintf(buf, sizeof buf, fmt, args);
  *static_cast<std::string*>(ctx) += buf;
}

// btf_dump's C for `ids` of `b`, one after the other.
std::string dump_of(const btf* b, const std::vector<int>& ids) {
  std::string out;
  btf_dump* d = btf_dump__new(b, append, &out, nullptr);
  for (int id : ids) EXPECT_EQ(btf_dump__dump_type(d, static_cast<__u32>(id)), 0) << id;
  btf_dump__free(d);
  return out;
}

// The raw bytes of a BTF built with libbpf's writer.
std::string raw_of(const btf* b) {
  __u32 size = 0;
  const void* raw = btf__raw_data(b, &size);
  return std::string(static_cast<const char*>(raw), size);
}

TEST(BtfSubset, CopiesWhatIsDefinedAndNamesWhatIsOnlyPointedTo) {
  std::unique_ptr<btf, FreeBtf> b(btf__new_empty());
  ASSERT_NE(b, nullptr);
  const int i32 = btf__add_int(b.get(), "int", 4, BTF_INT_SIGNED);
  const int unused = btf__add_struct(b.get(), "unused", 4);
  ASSERT_EQ(btf__add_field(b.get(), "u", i32, 0, 0), 0);
  const int inner = btf__add_struct(b.get(), "inner", 4);  // embedded: defined
  ASSERT_EQ(btf__add_field(b.get(), "x", i32, 0, 0), 0);
  const int deep = btf__add_struct(b.get(), "deep", 4);  // only in what is pointed to: left out
  ASSERT_EQ(btf__add_field(b.get(), "d", i32, 0, 0), 0);
  const int pointee = btf__add_struct(b.get(), "pointee", 8);  // only pointed to: named
  ASSERT_EQ(btf__add_field(b.get(), "in", deep, 0, 0), 0);
  ASSERT_EQ(btf__add_field(b.get(), "y", i32, 32, 0), 0);
  const int anonymous = btf__add_struct(b.get(), nullptr, 4);  // pointed to, but defined inline
  ASSERT_EQ(btf__add_field(b.get(), "z", i32, 0, 0), 0);
  const int element = btf__add_union(b.get(), "element", 4);  // in an array behind a pointer
  ASSERT_EQ(btf__add_field(b.get(), "e", i32, 0, 0), 0);
  const int pointee_t = btf__add_typedef(b.get(), "pointee_t", pointee);
  const int color = btf__add_enum(b.get(), "color", 4);
  ASSERT_EQ(btf__add_enum_value(b.get(), "RED", 1), 0);
  const int pointee_ptr = btf__add_ptr(b.get(), pointee);
  const int callback = btf__add_func_proto(b.get(), i32);  // its parameter, pointee *, is added to it
  ASSERT_EQ(btf__add_func_param(b.get(), "arg", pointee_ptr), 0);
  const int elements = btf__add_array(b.get(), i32, element, 2);
  // A struct's fields are added right after it: its pointer types come first.
  const int pointee_t_ptr = btf__add_ptr(b.get(), pointee_t);
  const int anonymous_ptr = btf__add_ptr(b.get(), anonymous);
  const int elements_ptr = btf__add_ptr(b.get(), elements);
  const int callback_ptr = btf__add_ptr(b.get(), callback);
  const int outer = btf__add_struct(b.get(), "outer", 56);
  ASSERT_EQ(btf__add_field(b.get(), "in", inner, 0, 0), 0);
  ASSERT_EQ(btf__add_field(b.get(), "p", pointee_ptr, 64, 0), 0);
  ASSERT_EQ(btf__add_field(b.get(), "pt", pointee_t_ptr, 128, 0), 0);
  ASSERT_EQ(btf__add_field(b.get(), "anon", anonymous_ptr, 192, 0), 0);
  ASSERT_EQ(btf__add_field(b.get(), "elems", elements_ptr, 256, 0), 0);
  ASSERT_EQ(btf__add_field(b.get(), "cb", callback_ptr, 320, 0), 0);
  ASSERT_EQ(btf__add_field(b.get(), "c", color, 384, 0), 0);
  ASSERT_EQ(btf__add_field(b.get(), "bits", i32, 416, 3), 0);
  ASSERT_GT(unused, 0);

  Result<std::unique_ptr<MappedBtfTypes>> types = MappedBtfTypes::from_bytes(raw_of(b.get()));
  ASSERT_TRUE(types) << types.error();
  Result<BtfSubset> subset = btf_subset(**types, {outer});
  ASSERT_TRUE(subset) << subset.error();
  const btf* s = subset->types.get();
  auto kind_of = [&](const char* name, int kind) { return btf__find_by_name_kind(s, name, kind); };
  EXPECT_LT(kind_of("unused", BTF_KIND_STRUCT), 0) << "a type nothing reaches is left out";
  EXPECT_LT(kind_of("deep", BTF_KIND_STRUCT), 0) << "a member of a struct that is only named";
  for (const char* defined : {"inner", "outer"})
    EXPECT_GT(btf_vlen(btf__type_by_id(s, kind_of(defined, BTF_KIND_STRUCT))), 0u) << defined;
  EXPECT_GT(btf_vlen(btf__type_by_id(s, kind_of("element", BTF_KIND_UNION))), 0u) << "an array's element";
  const btf_type* named = btf__type_by_id(s, kind_of("pointee", BTF_KIND_STRUCT));
  ASSERT_NE(named, nullptr);
  EXPECT_EQ(btf_vlen(named), 0u) << "only pointed to: its name, not its members";
  EXPECT_EQ(named->size, 8u);
  EXPECT_EQ(subset->named_only, 1);
  EXPECT_EQ(subset->roots, std::vector<int>{kind_of("outer", BTF_KIND_STRUCT)});

  const std::string whole = dump_of(b.get(), {outer});
  EXPECT_NE(whole.find("struct pointee;"), std::string::npos) << whole;
  EXPECT_NE(whole.find("int bits: 3;"), std::string::npos) << whole;
  EXPECT_EQ(dump_of(s, subset->roots), whole);
  // A subset holds what its own roots need: for the typedef itself, the struct it names.
  Result<BtfSubset> typedef_subset = btf_subset(**types, {pointee_t});
  ASSERT_TRUE(typedef_subset) << typedef_subset.error();
  EXPECT_EQ(typedef_subset->named_only, 0);
  EXPECT_GT(btf__find_by_name_kind(typedef_subset->types.get(), "deep", BTF_KIND_STRUCT), 0);
  EXPECT_EQ(dump_of(typedef_subset->types.get(), typedef_subset->roots), dump_of(b.get(), {pointee_t}));
}

TEST(BtfSubset, RefusesIdsPastTheTypesAndBtfThatIsNotBtf) {
  std::unique_ptr<btf, FreeBtf> b(btf__new_empty());
  const int i32 = btf__add_int(b.get(), "int", 4, BTF_INT_SIGNED);
  Result<std::unique_ptr<MappedBtfTypes>> types = MappedBtfTypes::from_bytes(raw_of(b.get()));
  ASSERT_TRUE(types) << types.error();
  EXPECT_EQ((*types)->count(), 2u);
  EXPECT_STREQ((*types)->name((*types)->type(static_cast<uint32_t>(i32))->name_off), "int");
  Result<BtfSubset> past = btf_subset(**types, {i32 + 1});
  ASSERT_FALSE(past);
  EXPECT_EQ(past.error(), "type id 2 is not in this BTF");
  Result<std::unique_ptr<MappedBtfTypes>> text = MappedBtfTypes::from_bytes(std::string(64, 'x'));
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error(), "not BTF of this machine's byte order");
  std::string cut = raw_of(b.get());
  cut.resize(cut.size() - 3);
  EXPECT_FALSE(MappedBtfTypes::from_bytes(cut));
}

// The kernel's BTF, parsed by libbpf: the reference the mapped file and the subset are held to.
std::shared_ptr<const btf> parsed_kernel_btf() {
  Result<std::shared_ptr<const btf>> acquired = acquire_vmlinux_btf();
  EXPECT_TRUE(acquired) << acquired.error();
  return acquired ? *acquired : nullptr;
}

TEST(BtfSubset, TheMappedKernelBtfHoldsWhatLibbpfsParseHolds) {
  SKIP_WITHOUT_BTF();
  Result<std::unique_ptr<MappedBtfTypes>> mapped = MappedBtfTypes::map_file(kVmlinuxBtfPath);
  if (!mapped && mapped.code() == ErrorCode::Unsupported)
    GTEST_SKIP() << "this kernel cannot map its BTF (before 6.16): " << mapped.error();
  ASSERT_TRUE(mapped) << mapped.error();
  std::shared_ptr<const btf> parsed = parsed_kernel_btf();
  ASSERT_NE(parsed, nullptr);
  LibbpfBtfTypes reference(parsed.get());
  ASSERT_EQ((*mapped)->count(), reference.count());
  for (uint32_t id = 1; id < reference.count(); id += 97) {
    const btf_type* a = (*mapped)->type(id);
    const btf_type* b = reference.type(id);
    ASSERT_EQ(a->info, b->info) << id;
    ASSERT_EQ(a->size, b->size) << id;
    ASSERT_STREQ((*mapped)->name(a->name_off), reference.name(b->name_off)) << id;
  }
}

// The header's text, from the subset of the mapped BTF, is the text btf_dump writes from the whole
// parse: for each set of types the stdlib's programs name, and for the kernel's every type.
TEST(BtfSubset, KernelTypesHeadersAreTheTextTheWholeParseGives) {
  SKIP_WITHOUT_BTF();
  std::shared_ptr<const btf> parsed = parsed_kernel_btf();
  ASSERT_NE(parsed, nullptr);
  const LibbpfBtfTypes whole(parsed.get());
  const std::vector<std::vector<std::string>> sets = {
      {},
      {"pt_regs"},
      {"task_struct"},
      {"struct trace_event_raw_sched_switch", "trace_event_raw_sched_wakeup"},
      {"trace_event_raw_page_fault_user", "trace_event_raw_mm_vmscan_direct_reclaim_begin",
       "trace_event_raw_mm_vmscan_direct_reclaim_end", "trace_event_raw_sys_enter",
       "trace_event_raw_sys_exit"},
      {"sock", "file", "mm_struct", "bpf_raw_tracepoint_args", "union bpf_attr"},
  };
  for (const std::vector<std::string>& names : sets) {
    Result<HeaderRoots> roots = header_roots(whole, names);
    ASSERT_TRUE(roots) << roots.error();
    Result<std::string> expected = dump_header(parsed.get(), *roots);
    ASSERT_TRUE(expected) << expected.error();
    Result<std::string> header = kernel_types_header(names);
    ASSERT_TRUE(header) << header.error();
    EXPECT_EQ(*header, *expected) << "types: " << testing::PrintToString(names);
  }
  // Every type a header can hold, as roots: each kind copied whole.
  std::vector<int> all;
  for (uint32_t id = 1; id < whole.count(); ++id) {
    const uint32_t kind = btf_kind(whole.type(id));
    if (kind != BTF_KIND_FUNC && kind != BTF_KIND_VAR && kind != BTF_KIND_DATASEC &&
        kind != BTF_KIND_DECL_TAG)
      all.push_back(static_cast<int>(id));
  }
  Result<BtfSubset> subset = btf_subset(whole, all);
  ASSERT_TRUE(subset) << subset.error();
  EXPECT_EQ(subset->named_only, 0);
  EXPECT_EQ(dump_of(subset->types.get(), subset->roots), dump_of(parsed.get(), all));
}

}  // namespace
}  // namespace seam::build
