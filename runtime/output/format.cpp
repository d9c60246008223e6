#include "runtime/output/format.hpp"

#include <charconv>
#include <cstdint>

namespace seam::runtime::format {
namespace {

template <class T>
void append_chars(std::string& out, T v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
}

void append_fixed(std::string& out, double v, int decimals) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  out.append(buf, end);
}

// Two zero-padded digits (or more with width), for dates.
void append_padded(std::string& out, int64_t v, int width) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  for (int n = static_cast<int>(end - buf); n < width; ++n) out.push_back('0');
  out.append(buf, end);
}

// Days since 1970-01-01 to a proleptic Gregorian civil date (era-based arithmetic).
void civil_from_days(int64_t days, int64_t& year, int& month, int& day) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t doe = days - era * 146097;                                    // [0, 146096]
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);                // [0, 365]
  const int64_t mp = (5 * doy + 2) / 153;                                     // [0, 11], March-based
  day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  year = yoe + era * 400 + (month <= 2 ? 1 : 0);
}

void append_date_time(std::string& out, int64_t secs);

int64_t floor_div(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
}

}  // namespace

void append_uint(std::string& out, uint64_t v) {
  append_chars(out, v);
}
void append_int(std::string& out, int64_t v) {
  append_chars(out, v);
}

void append_hex(std::string& out, uint64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, 16);
  out.append("0x");
  out.append(buf, end);
}

void append_duration(std::string& out, int64_t ns) {
  uint64_t magnitude = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  if (ns < 0) out.push_back('-');
  if (magnitude < 1000) {
    append_chars(out, magnitude);
    out.append("ns");
    return;
  }
  static constexpr struct {
    double scale;
    const char* suffix;
  } kUnits[] = {{1e3, "us"}, {1e6, "ms"}, {1e9, "s"}};
  size_t unit = 0;
  double v = static_cast<double>(magnitude) / kUnits[0].scale;
  // 999.5us prints as 1.00ms, not 1000us: move up while the rounded value would reach 1000.
  while (unit + 1 < std::size(kUnits) && v >= 999.5)
    v = static_cast<double>(magnitude) / kUnits[++unit].scale;
  const int decimals = v >= 99.95 ? 0 : v >= 9.995 ? 1 : 2;
  append_fixed(out, v, decimals);
  out.append(kUnits[unit].suffix);
}

void append_bytes(std::string& out, uint64_t bytes) {
  if (bytes < 1024) {
    append_chars(out, bytes);
    out.push_back('B');
    return;
  }
  static constexpr const char* kSuffixes[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  size_t unit = 0;
  double v = static_cast<double>(bytes) / 1024.0;
  while (unit + 1 < std::size(kSuffixes) && v >= 1023.95) {
    v /= 1024.0;
    ++unit;
  }
  append_fixed(out, v, 1);
  out.append(kSuffixes[unit]);
}

void append_rfc3339_ms(std::string& out, int64_t wall_ns) {
  const int64_t ms_total = floor_div(wall_ns, 1'000'000);
  const int64_t secs = floor_div(ms_total, 1000);
  const int64_t ms = ms_total - secs * 1000;
  // Alerts come in bursts within the same second: reuse its "YYYY-MM-DDTHH:MM:SS." text.
  thread_local int64_t cached_secs = INT64_MIN;
  thread_local std::string cached_prefix;
  if (secs != cached_secs) {
    cached_prefix.clear();
    append_date_time(cached_prefix, secs);
    cached_secs = secs;
  }
  out.append(cached_prefix);
  const char digits[3] = {static_cast<char>('0' + ms / 100), static_cast<char>('0' + ms / 10 % 10),
                          static_cast<char>('0' + ms % 10)};
  out.append(digits, 3);
  out.push_back('Z');
}

namespace {

void append_date_time(std::string& out, int64_t secs) {
  const int64_t days = floor_div(secs, 86400);
  const int64_t sod = secs - days * 86400;
  int64_t year;
  int month, day;
  civil_from_days(days, year, month, day);
  append_padded(out, year, 4);
  out.push_back('-');
  append_padded(out, month, 2);
  out.push_back('-');
  append_padded(out, day, 2);
  out.push_back('T');
  append_padded(out, sod / 3600, 2);
  out.push_back(':');
  append_padded(out, sod / 60 % 60, 2);
  out.push_back(':');
  append_padded(out, sod % 60, 2);
  out.push_back('.');
}

}  // namespace

}  // namespace seam::runtime::format
