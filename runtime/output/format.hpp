#pragma once
// Number and time formatting for alerts, appending to a reused std::string with std::to_chars:
// this runs for every alert written, so no ostreams, no locale, no allocation per call.
#include <cstdint>
#include <string>
#include <string_view>

namespace seam::runtime::format {

void append_uint(std::string& out, uint64_t v);
void append_int(std::string& out, int64_t v);
// "0x7f0012345678"
void append_hex(std::string& out, uint64_t v);
// Three significant digits in the largest unit that keeps the number under 1000:
// "312ns", "850us", "20.1ms", "1.50s" (seconds stay seconds: "5400s").
void append_duration(std::string& out, int64_t ns);
// Binary units with one decimal: "512B", "4.0KiB", "4.0MiB", "1.5GiB".
void append_bytes(std::string& out, uint64_t bytes);
// RFC 3339 UTC with milliseconds (truncated): "2026-11-30T07:12:03.123Z".
void append_rfc3339_ms(std::string& out, int64_t wall_ns);

}  // namespace seam::runtime::format
