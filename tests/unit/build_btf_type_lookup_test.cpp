// find_kernel_types: the ids of many names from one walk of a BTF, the same as libbpf's per-name
// lookup gives. A small BTF built here pins the rules (kind order, prefixes, anonymous enums); the
// running kernel's BTF checks them against btf__find_by_name_kind on real names.
#include <bpf/btf.h>
#include <gtest/gtest.h>
#include <linux/btf.h>

#include <filesystem>
#include <initializer_list>
#include <memory>

#include "compiler/build/btf_type_lookup.hpp"
#include "compiler/build/kernel_types.hpp"
#include "compiler/build/vmlinux_btf.hpp"

namespace seam::build {
namespace {

struct BtfDeleter {
  void operator()(btf* b) const { btf__free(b); }
};

TEST(BtfTypeLookup, ABareNameTriesStructUnionTypedefEnumInThatOrderWhateverTheirIds) {
  std::unique_ptr<btf, BtfDeleter> b(btf__new_empty());
  ASSERT_NE(b, nullptr);
  const int u32 = btf__add_int(b.get(), "unsigned int", 4, 0);
  const int typedef_x = btf__add_typedef(b.get(), "x", u32);  // a lower id than the struct
  const int struct_x = btf__add_struct(b.get(), "x", 4);
  ASSERT_EQ(btf__add_field(b.get(), "v", u32, 0, 0), 0);
  const int union_y = btf__add_union(b.get(), "y", 4);
  ASSERT_EQ(btf__add_field(b.get(), "v", u32, 0, 0), 0);
  const int typedef_y = btf__add_typedef(b.get(), "y", u32);
  const int anonymous = btf__add_enum(b.get(), nullptr, 4);
  ASSERT_EQ(btf__add_enum_value(b.get(), "SEAM_ONE", 1), 0);
  ASSERT_EQ(btf__add_enum_value(b.get(), "lower_two", 2), 0);
  const int wide = btf__add_enum64(b.get(), "wide", 8, false);
  ASSERT_EQ(btf__add_enum64_value(b.get(), "WIDE_ONE", 1), 0);
  ASSERT_GT(wide, 0);

  std::vector<int> ids = find_kernel_types(
      LibbpfBtfTypes(b.get()), {"x", "struct x", "union x", "y", "union y", "struct y", "SEAM_ONE",
                                "lower_two", "enum wide", "wide", "WIDE_ONE", "missing", "Missing"});
  EXPECT_EQ(ids, (std::vector<int>{struct_x, struct_x, -1, union_y, union_y, -1, anonymous, -1, wide, wide,
                                   -1, -1, -1}));
  EXPECT_LT(typedef_x, struct_x);
  EXPECT_GT(typedef_y, union_y);
}

TEST(BtfTypeLookup, GivesWhatLibbpfsPerNameLookupGivesOnTheKernelsBtf) {
  if (!std::filesystem::exists(kVmlinuxBtfPath))
    GTEST_SKIP() << kVmlinuxBtfPath << " absent (kernel without BTF)";
  Result<std::shared_ptr<const btf>> acquired = acquire_vmlinux_btf();
  ASSERT_TRUE(acquired) << acquired.error();
  const btf* b = acquired->get();
  std::vector<std::string> names;
  for (const char* more :
       {"__u64", "u32", "bool", "__be16", "struct pt_regs", "enum bpf_map_type", "BPF_ANY",
        "BPF_F_USER_STACK", "task_struct", "struct task_struct", "union bpf_attr", "enum bpf_prog_type",
        "trace_event_raw_sched_switch", "pid_t", "BPF_PROG_TYPE_KPROBE", "no_such_type_seam",
        "No_such_enumerator_seam", "struct pid_t"})
    names.emplace_back(more);
  // The reference: libbpf's lookup, one walk per name and kind, as the header dump did before.
  auto reference = [&](const std::string& name) {
    for (auto [prefix, kind] : {std::pair<std::string, int>{"struct ", BTF_KIND_STRUCT},
                                {"union ", BTF_KIND_UNION},
                                {"enum ", BTF_KIND_ENUM}})
      if (name.starts_with(prefix)) {
        int id = btf__find_by_name_kind(b, name.c_str() + prefix.size(), kind);
        if (id < 0 && kind == BTF_KIND_ENUM)
          id = btf__find_by_name_kind(b, name.c_str() + prefix.size(), BTF_KIND_ENUM64);
        return id < 0 ? -1 : id;
      }
    for (int kind : std::initializer_list<int>{BTF_KIND_STRUCT, BTF_KIND_UNION, BTF_KIND_TYPEDEF,
                                               BTF_KIND_ENUM, BTF_KIND_ENUM64})
      if (int id = btf__find_by_name_kind(b, name.c_str(), kind); id > 0) return id;
    if (name[0] < 'A' || name[0] > 'Z') return -1;
    for (unsigned id = 1; id < btf__type_cnt(b); ++id) {
      const btf_type* t = btf__type_by_id(b, id);
      if (!btf_is_enum(t)) continue;
      const struct btf_enum* e = btf_enum(t);
      for (unsigned i = 0; i < btf_vlen(t); ++i)
        if (name == btf__name_by_offset(b, e[i].name_off)) return static_cast<int>(id);
    }
    return -1;
  };
  std::vector<int> ids = find_kernel_types(LibbpfBtfTypes(b), names);
  ASSERT_EQ(ids.size(), names.size());
  int found = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(ids[i], reference(names[i])) << names[i];
    found += ids[i] > 0;
  }
  EXPECT_GE(found, static_cast<int>(names.size()) - 4) << "only the made-up names are missing";
}

}  // namespace
}  // namespace seam::build
