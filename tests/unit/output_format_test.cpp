// Number, duration, size and time formatting used by messages and sinks.
#include <gtest/gtest.h>

#include "runtime/output/format.hpp"

namespace seam::runtime::format {
namespace {

std::string duration(int64_t ns) {
  std::string s;
  append_duration(s, ns);
  return s;
}
std::string bytes(uint64_t b) {
  std::string s;
  append_bytes(s, b);
  return s;
}
std::string rfc3339(int64_t ns) {
  std::string s;
  append_rfc3339_ms(s, ns);
  return s;
}

TEST(OutputFormat, DurationsAreHumanReadable) {
  EXPECT_EQ(duration(0), "0ns");
  EXPECT_EQ(duration(312), "312ns");
  EXPECT_EQ(duration(999), "999ns");
  EXPECT_EQ(duration(1000), "1.00us");
  EXPECT_EQ(duration(850'000), "850us");
  EXPECT_EQ(duration(12'340), "12.3us");
  EXPECT_EQ(duration(20'100'000), "20.1ms");
  EXPECT_EQ(duration(1'500'000'000), "1.50s");
  EXPECT_EQ(duration(5'400'000'000'000), "5400s");
  EXPECT_EQ(duration(-2'500'000), "-2.50ms");
}

TEST(OutputFormat, DurationsRoundIntoTheNextUnitInsteadOfPrintingFourDigits) {
  EXPECT_EQ(duration(999'600), "1.00ms");
  EXPECT_EQ(duration(99'960), "100us");
  EXPECT_EQ(duration(9'996), "10.0us");
}

TEST(OutputFormat, BytesUseBinaryUnits) {
  EXPECT_EQ(bytes(0), "0B");
  EXPECT_EQ(bytes(512), "512B");
  EXPECT_EQ(bytes(1023), "1023B");
  EXPECT_EQ(bytes(1024), "1.0KiB");
  EXPECT_EQ(bytes(4u << 20), "4.0MiB");
  EXPECT_EQ(bytes(1536ull << 20), "1.5GiB");
  EXPECT_EQ(bytes((1ull << 20) - 1), "1.0MiB");
}

TEST(OutputFormat, Rfc3339WithMilliseconds) {
  EXPECT_EQ(rfc3339(1796022723'123'456'789), "2026-11-30T07:12:03.123Z");
  EXPECT_EQ(rfc3339(951868799'999'999'999), "2000-02-29T23:59:59.999Z");
  EXPECT_EQ(rfc3339(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(rfc3339(-1'000'000'000), "1969-12-31T23:59:59.000Z");
}

TEST(OutputFormat, Integers) {
  std::string s;
  append_hex(s, 0x7f00deadbeef);
  s.push_back(' ');
  append_int(s, -42);
  s.push_back(' ');
  append_uint(s, UINT64_MAX);
  EXPECT_EQ(s, "0x7f00deadbeef -42 18446744073709551615");
}

}  // namespace
}  // namespace seam::runtime::format
