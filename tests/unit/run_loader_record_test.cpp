// The loader hook's record (bpf-templates/loader_notice.c.tmpl): the header, a count, the bits
// of names cut short, and up to eight 256-byte names.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "runtime/run/loader_record.hpp"

namespace seam::runtime {
namespace {

std::vector<uint8_t> record(const std::vector<std::string>& names, uint32_t truncated = 0) {
  std::vector<uint8_t> bytes(plan::kRecordHeaderSize + 8 + 8 * 256, 0);
  uint32_t rule = kLoaderNoticeRuleId, pid = 4242, count = static_cast<uint32_t>(names.size());
  uint64_t cgroup = 77;
  std::memcpy(bytes.data() + plan::record_header::kRuleId.offset, &rule, 4);
  std::memcpy(bytes.data() + plan::record_header::kPid.offset, &pid, 4);
  std::memcpy(bytes.data() + plan::record_header::kCgroup.offset, &cgroup, 8);
  std::memcpy(bytes.data() + plan::kRecordHeaderSize, &count, 4);
  std::memcpy(bytes.data() + plan::kRecordHeaderSize + 4, &truncated, 4);
  for (size_t i = 0; i < names.size(); ++i)
    std::memcpy(bytes.data() + plan::kRecordHeaderSize + 8 + i * 256, names[i].data(),
                std::min<size_t>(names[i].size(), 256));
  return bytes;
}

TEST(LoaderRecord, NamesPidAndCgroupComeOut) {
  std::vector<uint8_t> bytes = record({"/opt/new/libcudart.so.12", "linux-vdso.so.1"}, 0b10);
  std::optional<LoaderRecord> r = parse_loader_record(bytes);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->pid, 4242);
  EXPECT_EQ(r->cgroup, 77u);
  ASSERT_EQ(r->names.size(), 2u);
  EXPECT_EQ(r->names[0].name, "/opt/new/libcudart.so.12");
  EXPECT_FALSE(r->names[0].truncated);
  EXPECT_EQ(r->names[1].name, "linux-vdso.so.1");
  EXPECT_TRUE(r->names[1].truncated);
}

TEST(LoaderRecord, ANameFillingItsWholeBufferIsCut) {
  std::optional<LoaderRecord> r = parse_loader_record(record({std::string(256, 'a')}));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->names.size(), 1u);
  EXPECT_EQ(r->names[0].name.size(), 256u);
  EXPECT_TRUE(r->names[0].truncated);
}

TEST(LoaderRecord, OtherBytesAreRefused) {
  std::vector<uint8_t> bytes = record({"/x.so"});
  EXPECT_FALSE(parse_loader_record(std::span(bytes).first(bytes.size() - 1)));
  uint32_t count = 9;
  std::vector<uint8_t> too_many = bytes;
  std::memcpy(too_many.data() + plan::kRecordHeaderSize, &count, 4);
  EXPECT_FALSE(parse_loader_record(too_many));
  uint32_t exec_notice = plan::kExecNoticeRuleId;
  std::memcpy(bytes.data(), &exec_notice, 4);
  EXPECT_FALSE(parse_loader_record(bytes));
}

}  // namespace
}  // namespace seam::runtime
