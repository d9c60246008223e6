// The raw forms of tracepoints (compiler/lower/raw_tracepoint_forms.hpp) against the running
// kernel: each tracepoint's prototype (its BTF typedef btf_trace_NAME: a pointer to a function
// whose first argument is the tracepoint's data) has the arguments the form reads, and its tracefs
// format has the fields the form gives. A kernel that changed one fails here, not in an alert.
#include <bpf/btf.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "compiler/lower/raw_tracepoint_forms.hpp"
#include "runtime/load/tracefs.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

struct BtfDeleter {
  void operator()(btf* b) const { btf__free(b); }
};

// A type as BTF names it in C ("long unsigned int", "struct pt_regs *", "gfp_t").
std::string type_name(const btf* b, __u32 id) {
  const btf_type* t = btf__type_by_id(b, id);
  while (t && (btf_is_const(t) || btf_is_volatile(t) || btf_is_restrict(t))) t = btf__type_by_id(b, t->type);
  if (!t) return "?";
  if (btf_is_ptr(t)) return type_name(b, t->type) + " *";
  std::string name = btf__name_by_offset(b, t->name_off);
  if (btf_is_struct(t)) return "struct " + name;
  if (btf_is_union(t)) return "union " + name;
  return name;
}

TEST(RawTracepointForms, MatchTheRunningKernelsPrototypesAndFormats) {
  SEAM_REQUIRE_ROOT();
  std::unique_ptr<btf, BtfDeleter> vmlinux(btf__load_vmlinux_btf());
  ASSERT_TRUE(vmlinux) << "no kernel BTF";
  Result<std::string> tracefs = runtime::ensure_tracefs();
  ASSERT_TRUE(tracefs) << tracefs.error();
  for (const lower::RawTracepointForm& form : lower::raw_tracepoint_forms()) {
    std::string name(form.name), where = std::string(form.category) + ":" + name;
    std::string format =
        read_file(*tracefs + "/events/" + std::string(form.category) + "/" + name + "/format");
    ASSERT_FALSE(format.empty()) << where << ": no tracefs format";
    for (const auto& [field, c] : form.fields)
      EXPECT_NE(format.find(" " + std::string(field) + ";"), std::string::npos)
          << where << " has no field " << field;
    int id = btf__find_by_name_kind(vmlinux.get(), ("btf_trace_" + name).c_str(), BTF_KIND_TYPEDEF);
    ASSERT_GT(id, 0) << where << ": no btf_trace_" << name << " in the kernel's BTF";
    const btf_type* ptr = btf__type_by_id(vmlinux.get(), btf__type_by_id(vmlinux.get(), id)->type);
    ASSERT_TRUE(ptr && btf_is_ptr(ptr)) << where;
    const btf_type* proto = btf__type_by_id(vmlinux.get(), ptr->type);
    ASSERT_TRUE(proto && btf_is_func_proto(proto)) << where;
    ASSERT_EQ(btf_vlen(proto), form.arguments.size() + 1)
        << where << ": the data pointer, then the arguments";
    const btf_param* params = btf_params(proto);
    for (size_t i = 0; i < form.arguments.size(); ++i)
      EXPECT_EQ(type_name(vmlinux.get(), params[i + 1].type), form.arguments[i])
          << where << " argument " << i;
  }
}

}  // namespace
}  // namespace seam::test
