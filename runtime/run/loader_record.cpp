#include "runtime/run/loader_record.hpp"

#include <cstring>

#include "compiler/plan/record_header.hpp"

namespace seam::runtime {

namespace {
// struct seam_loader_record: the header, count, truncated bits, then the names.
constexpr size_t kNameBytes = 256;
constexpr size_t kNames = 8;
constexpr size_t kCountAt = plan::kRecordHeaderSize;
constexpr size_t kNamesAt = kCountAt + 8;
constexpr size_t kRecordBytes = kNamesAt + kNames * kNameBytes;
}  // namespace

std::optional<LoaderRecord> parse_loader_record(std::span<const uint8_t> bytes) {
  namespace header = plan::record_header;
  if (bytes.size() < kRecordBytes ||
      plan::read_header<uint32_t>(bytes, header::kRuleId) != kLoaderNoticeRuleId)
    return std::nullopt;
  LoaderRecord r;
  r.pid = static_cast<pid_t>(plan::read_header<uint32_t>(bytes, header::kPid));
  r.cgroup = plan::read_header<uint64_t>(bytes, header::kCgroup);
  uint32_t count = 0, truncated = 0;
  std::memcpy(&count, bytes.data() + kCountAt, sizeof count);
  std::memcpy(&truncated, bytes.data() + kCountAt + 4, sizeof truncated);
  if (count > kNames) return std::nullopt;
  for (uint32_t i = 0; i < count; ++i) {
    const char* at = reinterpret_cast<const char*>(bytes.data() + kNamesAt + i * kNameBytes);
    size_t len = strnlen(at, kNameBytes);
    if (len == 0) continue;
    r.names.push_back({std::string_view(at, len), ((truncated >> i) & 1u) != 0 || len == kNameBytes});
  }
  return r;
}

}  // namespace seam::runtime
