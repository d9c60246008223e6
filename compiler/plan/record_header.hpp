#pragma once
// The header every ring record starts with, then the rule's fields (plan::Record). This table is
// the one description of it in C++: the decoder and the session read the header through it, and
// struct seam_record_header in bpf-templates/seam_record.h is checked against it by compiling
// record_header_c_checks() with clang (tests/unit/build_record_header_test.cpp).
#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

namespace seam::plan {

struct HeaderField {
  std::string_view name;  // the member of struct seam_record_header
  uint32_t offset = 0;
  uint32_t size = 0;
  constexpr uint32_t end() const { return offset + size; }
};

namespace record_header {
inline constexpr HeaderField kRuleId{"rule_id", 0, 4};  // the rule's id, the unit's tag in the high bits
inline constexpr HeaderField kSize{"size", 4, 4};       // header + fields, 8-byte aligned
inline constexpr HeaderField kTimeNs{"time_ns", 8, 8};  // bpf_ktime_get_ns(): CLOCK_MONOTONIC
inline constexpr HeaderField kPid{"pid", 16, 4};        // the thread group id
inline constexpr HeaderField kTid{"tid", 20, 4};
inline constexpr HeaderField kCgroup{"cgroup", 24, 8};  // the v2 cgroup id
inline constexpr HeaderField kComm{"comm", 32, 16};     // NUL-padded, not always NUL-terminated
inline constexpr std::array kFields{kRuleId, kSize, kTimeNs, kPid, kTid, kCgroup, kComm};
}  // namespace record_header

inline constexpr uint32_t kRecordHeaderSize = 48;
static_assert(record_header::kComm.end() == kRecordHeaderSize);

// Every rule file's object writes into one ring buffer shared by `seam run` (docs/operations.md):
// the header's rule_id carries the writing unit's tag in its high bits (seam_unit_tag, set at load).
inline constexpr uint32_t kUnitTagShift = 16;
inline constexpr uint32_t kRuleIdMask = (1u << kUnitTagShift) - 1;
inline constexpr uint32_t unit_tag_of(uint32_t raw_rule_id) {
  return raw_rule_id >> kUnitTagShift;
}

// The rule id of the exec notices (bpf-templates/exec_notice.c.tmpl), a header alone that tells
// the runtime a process has exec'd; all ones, so it carries no unit tag and is never a rule's.
inline constexpr uint32_t kExecNoticeRuleId = 0xffffffffu;
static_assert((kExecNoticeRuleId & kRuleIdMask) == kRuleIdMask);
// The rule id of the dynamic loader hook's records (bpf-templates/loader_notice.c.tmpl, written
// with this value by runtime/run/loader_hook.cpp): its tag, 0xffff, is one no unit gets
// (the session hands out 1..0xfffe, runtime/run/session.cpp).
inline constexpr uint32_t kLoaderNoticeRuleId = 0xfffffffeu;
static_assert(unit_tag_of(kLoaderNoticeRuleId) == 0xffffu);

// Reads an integer member of the header; the caller has checked that `record` holds field.end().
template <class T>
T read_header(std::span<const uint8_t> record, HeaderField field) {
  T value{};
  std::memcpy(&value, record.data() + field.offset, sizeof value < field.size ? sizeof value : field.size);
  return value;
}

// C text that fails to compile unless struct seam_record_header (seam_record.h) has this
// table's layout: one _Static_assert a line, for a C file that includes seam_record.h.
std::string record_header_c_checks();

}  // namespace seam::plan
