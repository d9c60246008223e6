#include "runtime/python/line_table.hpp"

namespace seam::runtime::python {

namespace {

// 3.8, 3.9 (Objects/lnotab_notes.txt): pairs of (unsigned byte offset delta, signed line delta).
int lnotab_line(std::span<const uint8_t> t, int line, int64_t offset) {
  int64_t addr = 0;
  for (size_t i = 0; i + 1 < t.size(); i += 2) {
    addr += t[i];
    if (addr > offset) break;
    line += static_cast<int8_t>(t[i + 1]);
  }
  return line;
}

// 3.10: pairs of (unsigned byte length of a range, signed line delta; -128: the range has no line).
int linetable_line(std::span<const uint8_t> t, int line, int64_t offset) {
  int64_t start = 0;
  for (size_t i = 0; i + 1 < t.size(); i += 2) {
    int64_t end = start + t[i];
    int8_t delta = static_cast<int8_t>(t[i + 1]);
    int range_line = -1;
    if (delta != -128) range_line = line += delta;
    if (offset >= start && offset < end) return range_line;
    start = end;
  }
  return -1;
}

// 3.11+ (Objects/locations.md): entries of a first byte 1CCCCLLL (code C, L + 1 code units),
// then what the code says: 15 no location; 14 a long form (signed line delta, end line delta,
// column + 1, end column + 1, varints); 13 no columns (signed line delta); 10 to 12 one line,
// delta C - 10, two column bytes; 0 to 9 the same line, one column byte.
class LocationReader {
 public:
  explicit LocationReader(std::span<const uint8_t> t) : t_(t) {}
  bool done() const { return at_ >= t_.size(); }
  uint8_t byte() { return at_ < t_.size() ? t_[at_++] : 0; }
  uint64_t varint() {
    uint8_t b = byte();
    uint64_t v = b & 63;
    for (int shift = 6; (b & 64) && !done() && shift < 64; shift += 6) {
      b = byte();
      v |= static_cast<uint64_t>(b & 63) << shift;
    }
    return v;
  }
  int64_t svarint() {
    uint64_t v = varint();
    return (v & 1) ? -static_cast<int64_t>(v >> 1) : static_cast<int64_t>(v >> 1);
  }
  void skip(size_t n) { at_ += n; }

 private:
  std::span<const uint8_t> t_;
  size_t at_ = 0;
};

int locations_line(std::span<const uint8_t> t, int line, int64_t offset) {
  int64_t unit = offset / 2, start = 0;
  LocationReader r(t);
  while (!r.done()) {
    uint8_t first = r.byte();
    if (!(first & 0x80)) return -1;  // not at an entry's start: a table seam does not understand
    int code = (first >> 3) & 15;
    int64_t length = (first & 7) + 1;
    int entry_line = line;
    if (code == 15) {
      entry_line = -1;
    } else if (code == 14) {
      entry_line = line += static_cast<int>(r.svarint());
      r.varint();
      r.varint();
      r.varint();
    } else if (code == 13) {
      entry_line = line += static_cast<int>(r.svarint());
    } else if (code >= 10) {
      entry_line = line += code - 10;
      r.skip(2);
    } else {
      r.skip(1);
    }
    if (unit >= start && unit < start + length) return entry_line;
    start += length;
  }
  return -1;
}

}  // namespace

int line_for_offset(LineTableFormat format, std::span<const uint8_t> table, int first_line,
                    int64_t byte_offset) {
  if (byte_offset < 0) return first_line;
  switch (format) {
    case LineTableFormat::Lnotab:
      return lnotab_line(table, first_line, byte_offset);
    case LineTableFormat::Linetable:
      return linetable_line(table, first_line, byte_offset);
    case LineTableFormat::Locations:
      return locations_line(table, first_line, byte_offset);
  }
  return -1;
}

}  // namespace seam::runtime::python
