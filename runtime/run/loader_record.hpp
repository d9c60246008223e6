#pragma once
// A dynamic loader notice as it comes out of the ring (bpf-templates/loader_notice.c.tmpl,
// struct seam_loader_record): the header, then the names of objects the process has just loaded
// that seam has not marked seen for its cgroup.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "compiler/plan/record_header.hpp"

namespace seam::runtime {

// The rule id of the loader's notices, next to plan::kExecNoticeRuleId (record_header.hpp): its
// tag, 0xffff, is one no unit gets (UnitContext::new_tag hands out 1..0xfffe).
inline constexpr uint32_t kLoaderNoticeRuleId = 0xfffffffeu;
static_assert(plan::unit_tag_of(kLoaderNoticeRuleId) == 0xffffu);

struct LoaderName {
  std::string_view name;   // as the loader holds it: a path, or a bare name (linux-vdso.so.1)
  bool truncated = false;  // cut at the record's 255 bytes: not the whole path
};

struct LoaderRecord {
  pid_t pid = 0;
  uint64_t cgroup = 0;
  std::vector<LoaderName> names;  // views into the record's bytes
};

// nullopt for bytes that are not a whole loader record.
std::optional<LoaderRecord> parse_loader_record(std::span<const uint8_t> bytes);

}  // namespace seam::runtime
