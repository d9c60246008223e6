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

// The loader's notices carry plan::kLoaderNoticeRuleId (record_header.hpp, with the other
// reserved ids).
using plan::kLoaderNoticeRuleId;

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
