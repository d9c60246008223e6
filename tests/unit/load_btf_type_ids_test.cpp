// Type ids from raw BTF without libbpf's parse (runtime/load/btf_type_ids.hpp): the same ids as
// libbpf finds in the running kernel's BTF, and refusals of what the walk cannot read.
#include <bpf/btf.h>
#include <gtest/gtest.h>
#include <linux/btf.h>
#include <unistd.h>

#include <cstring>
#include <memory>

#include "compiler/build/btf_types.hpp"
#include "runtime/load/btf_type_ids.hpp"

namespace seam::runtime {
namespace {

// A btf_type's info word: kind and member count (linux/btf.h has only the decoders).
constexpr uint32_t info(uint32_t kind, uint32_t vlen) {
  return (kind << 24) | vlen;
}

// A BTF blob: an int "u32" (id 1), a typedef "word" of it (id 2), a func_proto with one
// parameter (id 3) and a func "work" of that (id 4).
std::string small_btf(uint32_t last_kind = BTF_KIND_FUNC) {
  constexpr char kStrings[] = "\0u32\0word\0work\0x";  // with its final NUL: 17 bytes
  const std::string strings(kStrings, sizeof kStrings);
  std::string types;
  auto put = [&](uint32_t v) { types.append(reinterpret_cast<const char*>(&v), 4); };
  put(1), put(info(BTF_KIND_INT, 0)), put(4), put(32);  // int u32 + its encoding
  put(5), put(info(BTF_KIND_TYPEDEF, 0)), put(1);       // typedef word
  put(0), put(info(BTF_KIND_FUNC_PROTO, 1)), put(1);    // proto (u32)
  put(15), put(1);                                      // its parameter x: u32
  put(10), put(info(last_kind, 0)), put(3);             // func work
  return build::raw_btf(types, strings);
}

TEST(BtfTypeIds, FindsEachNameOfItsKind) {
  auto ids = find_btf_type_ids(small_btf(), {{"word", BTF_KIND_TYPEDEF},
                                             {"work", BTF_KIND_FUNC},
                                             {"u32", BTF_KIND_TYPEDEF},
                                             {"missing", BTF_KIND_FUNC}});
  ASSERT_TRUE(ids);
  EXPECT_EQ(*ids,
            (std::map<BtfName, uint32_t>{{{"word", BTF_KIND_TYPEDEF}, 2}, {{"work", BTF_KIND_FUNC}, 4}}));
}

TEST(BtfTypeIds, RefusesWhatItCannotWalk) {
  EXPECT_FALSE(find_btf_type_ids(small_btf(31), {{"nothing", BTF_KIND_FUNC}})) << "an unknown kind";
  std::string bad = small_btf();
  bad[0] = 0;
  EXPECT_FALSE(find_btf_type_ids(bad, {{"work", BTF_KIND_FUNC}})) << "no magic";
  EXPECT_FALSE(find_btf_type_ids(small_btf().substr(0, 30), {{"work", BTF_KIND_FUNC}})) << "cut short";
}

// The running kernel's BTF: the ids libbpf's full parse finds.
TEST(BtfTypeIds, TheKernelsIdsAreLibbpfs) {
  if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) GTEST_SKIP() << "the kernel has no BTF";
  const std::vector<BtfName> wanted = {{"btf_trace_sched_switch", BTF_KIND_TYPEDEF},
                                       {"do_nanosleep", BTF_KIND_FUNC},
                                       {"task_struct", BTF_KIND_STRUCT}};
  auto ids = find_vmlinux_btf_type_ids(wanted);
  if (!ids) GTEST_SKIP() << "this kernel cannot map its BTF (before 6.16): features parse it instead";
  std::unique_ptr<btf, void (*)(btf*)> parsed(btf__load_vmlinux_btf(), btf__free);
  ASSERT_TRUE(parsed);
  for (const BtfName& w : wanted) {
    int id = btf__find_by_name_kind(parsed.get(), w.first.c_str(), w.second);
    ASSERT_GT(id, 0) << w.first;
    EXPECT_EQ(ids->at(w), static_cast<uint32_t>(id)) << w.first;
  }
}

}  // namespace
}  // namespace seam::runtime
