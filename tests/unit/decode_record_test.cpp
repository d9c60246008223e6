// Decoding records built by hand against a hand-made plan: every field type at its offset,
// header fields, stack clamping, and the errors for malformed records.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "runtime/decode/decoder.hpp"

namespace seam::runtime {
namespace {

using plan::FieldType;
using plan::FieldUnit;

constexpr int64_t kOffset = 1'000'000'000'000;  // fixed monotonic→realtime offset

// A record's bytes, written at explicit offsets like the BPF side does.
struct Bytes {
  std::vector<uint8_t> data;
  explicit Bytes(size_t size) : data(size, 0) {}
  template <class T>
  Bytes& put(size_t offset, T value) {
    std::memcpy(data.data() + offset, &value, sizeof value);
    return *this;
  }
  Bytes& put_str(size_t offset, const std::string& s) {
    std::memcpy(data.data() + offset, s.data(), s.size());
    return *this;
  }
  Bytes& header(uint32_t rule_id, uint64_t time_ns, uint32_t pid, uint32_t tid, uint64_t cgroup,
                const std::string& comm) {
    put<uint32_t>(0, rule_id).put<uint32_t>(4, static_cast<uint32_t>(data.size())).put<uint64_t>(8, time_ns);
    put<uint32_t>(16, pid).put<uint32_t>(20, tid).put<uint64_t>(24, cgroup);
    return put_str(32, comm);
  }
};

plan::Field field(std::string name, FieldType type, uint32_t offset, uint32_t size,
                  FieldUnit unit = FieldUnit::None) {
  plan::Field f;
  f.name = std::move(name);
  f.type = type;
  f.unit = unit;
  f.offset = offset;
  f.size = size;
  return f;
}

// Rule 3 has one field of every type; rule 7 exists but emits no record.
plan::Plan every_type_plan() {
  plan::Plan p;
  plan::Rule r;
  r.id = 3;
  r.name = "every_type";
  p.rules.push_back(r);
  r.id = 7;
  r.name = "windowed";
  p.rules.push_back(r);
  plan::Record rec;
  rec.rule_id = 3;
  rec.fields = {
      field("u8", FieldType::U8, 48, 1),
      field("u16", FieldType::U16, 50, 2),
      field("u32", FieldType::U32, 52, 4),
      field("u64", FieldType::U64, 56, 8, FieldUnit::Ns),
      field("i8", FieldType::I8, 64, 1),
      field("i16", FieldType::I16, 66, 2),
      field("i32", FieldType::I32, 68, 4),
      field("i64", FieldType::I64, 72, 8),
      field("ptr", FieldType::Ptr, 80, 8),
      field("flag", FieldType::Bool, 88, 1),
      field("name", FieldType::Str, 89, 7),
      field("full", FieldType::Str, 96, 8, FieldUnit::None),
      field("size", FieldType::U64, 104, 8, FieldUnit::Bytes),
      field("ustack", FieldType::UStack, 112, 8 + 4 * 8),
      field("kstack", FieldType::KStack, 152, 8 + 2 * 8),
  };
  rec.size = 176;
  p.records.push_back(rec);
  return p;
}

Bytes every_type_bytes() {
  Bytes b(176);
  b.header(3, 5'000, 1234, 1235, 0xabcdef, "python3");
  b.put<uint8_t>(48, 200).put<uint16_t>(50, 60000).put<uint32_t>(52, 4'000'000'000u);
  b.put<uint64_t>(56, 20'100'000).put<int8_t>(64, -5).put<int16_t>(66, -300).put<int32_t>(68, -70000);
  b.put<int64_t>(72, -9'000'000'000).put<uint64_t>(80, 0x7f0012345678).put<uint8_t>(88, 1);
  b.put_str(89, "abc").put_str(96, "ABCDEFGH").put<uint64_t>(104, 4u << 20);
  b.put<uint64_t>(112, 3).put<uint64_t>(120, 0x1111).put<uint64_t>(128, 0x2222).put<uint64_t>(136, 0x3333);
  b.put<uint64_t>(144, 0xdead);  // beyond count: not part of the stack
  b.put<uint64_t>(152, 9).put<uint64_t>(160, 0xffffffff81000000).put<uint64_t>(168, 0xffffffff82000000);
  return b;
}

template <class T>
T get(const DecodedRecord& r, const char* name) {
  const DecodedField* f = r.find(name);
  EXPECT_NE(f, nullptr) << name;
  if (!f) return T{};
  EXPECT_TRUE(std::holds_alternative<T>(f->value.v)) << name;
  return std::holds_alternative<T>(f->value.v) ? std::get<T>(f->value.v) : T{};
}

TEST(DecodeRecord, DecodesHeader) {
  plan::Plan p = every_type_plan();
  Bytes b = every_type_bytes();
  auto r = Decoder(p, kOffset).decode(b.data);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->rule, &p.rules[0]);
  EXPECT_EQ(r->record, &p.records[0]);
  EXPECT_EQ(r->rule_id, 3u);
  EXPECT_EQ(r->size, 176u);
  EXPECT_EQ(r->time_ns, 5'000u);
  EXPECT_EQ(r->wall_ns, kOffset + 5'000);
  EXPECT_EQ(r->pid, 1234u);
  EXPECT_EQ(r->tid, 1235u);
  EXPECT_EQ(r->cgroup, 0xabcdefu);
  EXPECT_EQ(r->comm, "python3");
}

TEST(DecodeRecord, DecodesEveryFieldTypeAtItsOffset) {
  plan::Plan p = every_type_plan();
  Bytes b = every_type_bytes();
  auto r = Decoder(p, kOffset).decode(b.data);
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->fields.size(), 15u);
  EXPECT_EQ(r->fields[0].field->name, "u8");  // layout order
  EXPECT_EQ(r->fields[14].field->name, "kstack");
  EXPECT_EQ(get<uint64_t>(*r, "u8"), 200u);
  EXPECT_EQ(get<uint64_t>(*r, "u16"), 60000u);
  EXPECT_EQ(get<uint64_t>(*r, "u32"), 4'000'000'000u);
  EXPECT_EQ(get<uint64_t>(*r, "u64"), 20'100'000u);
  EXPECT_EQ(r->find("u64")->value.unit, FieldUnit::Ns);
  EXPECT_EQ(r->find("u64")->value.type, FieldType::U64);
  EXPECT_EQ(get<int64_t>(*r, "i8"), -5);
  EXPECT_EQ(get<int64_t>(*r, "i16"), -300);
  EXPECT_EQ(get<int64_t>(*r, "i32"), -70000);
  EXPECT_EQ(get<int64_t>(*r, "i64"), -9'000'000'000);
  EXPECT_EQ(get<uint64_t>(*r, "ptr"), 0x7f0012345678u);
  EXPECT_EQ(r->find("ptr")->value.type, FieldType::Ptr);
  EXPECT_TRUE(get<bool>(*r, "flag"));
  EXPECT_EQ(get<std::string>(*r, "name"), "abc");       // NUL-terminated
  EXPECT_EQ(get<std::string>(*r, "full"), "ABCDEFGH");  // fills the array, no NUL
  EXPECT_EQ(get<uint64_t>(*r, "size"), 4u << 20);
  EXPECT_EQ(r->find("size")->value.unit, FieldUnit::Bytes);
  EXPECT_EQ(get<std::vector<uint64_t>>(*r, "ustack"), (std::vector<uint64_t>{0x1111, 0x2222, 0x3333}));
  // count 9 but room for 2: clamped to the array
  EXPECT_EQ(get<std::vector<uint64_t>>(*r, "kstack"),
            (std::vector<uint64_t>{0xffffffff81000000, 0xffffffff82000000}));
  EXPECT_EQ(r->find("missing"), nullptr);
}

TEST(DecodeRecord, DecodeIntoReusesTheRecordAcrossRules) {
  plan::Plan p = every_type_plan();
  Decoder d(p, kOffset);
  DecodedRecord out;
  Bytes b = every_type_bytes();
  ASSERT_FALSE(d.decode_into(b.data, out).has_value());
  b.put<uint64_t>(112, 1).put<uint8_t>(88, 0).put_str(89, std::string("z\0\0", 3));
  ASSERT_FALSE(d.decode_into(b.data, out).has_value());
  EXPECT_EQ(get<std::vector<uint64_t>>(out, "ustack"), (std::vector<uint64_t>{0x1111}));
  EXPECT_FALSE(get<bool>(out, "flag"));
  EXPECT_EQ(get<std::string>(out, "name"), "z");
}

TEST(DecodeRecord, CommFillingAllSixteenBytes) {
  plan::Plan p = every_type_plan();
  Bytes b = every_type_bytes();
  b.put_str(32, "0123456789abcdef");
  auto r = Decoder(p, kOffset).decode(b.data);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->comm, "0123456789abcdef");
}

TEST(DecodeRecord, ShorterThanHeaderIsAnError) {
  plan::Plan p = every_type_plan();
  std::vector<uint8_t> bytes(20, 0);
  auto r = Decoder(p, kOffset).decode(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("20 bytes"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("header"), std::string::npos) << r.error();
}

TEST(DecodeRecord, UnknownRuleIdIsAnError) {
  plan::Plan p = every_type_plan();
  Bytes b = every_type_bytes();
  b.put<uint32_t>(0, 99);
  auto r = Decoder(p, kOffset).decode(b.data);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("unknown rule id 99"), std::string::npos) << r.error();
  b.put<uint32_t>(0, 7);  // a rule, but one that emits no record
  r = Decoder(p, kOffset).decode(b.data);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("unknown rule id 7"), std::string::npos) << r.error();
}

TEST(DecodeRecord, RecordShorterThanItsLayoutIsAnError) {
  plan::Plan p = every_type_plan();
  Bytes b = every_type_bytes();
  b.data.resize(160);
  b.put<uint32_t>(4, 160);
  auto r = Decoder(p, kOffset).decode(b.data);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("'every_type'"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("176-byte layout"), std::string::npos) << r.error();
}

TEST(DecodeRecord, SizeFieldDisagreeingIsAnError) {
  plan::Plan p = every_type_plan();
  Bytes b = every_type_bytes();
  b.put<uint32_t>(4, 184);
  auto r = Decoder(p, kOffset).decode(b.data);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("says it is 184 bytes but 176 arrived"), std::string::npos) << r.error();
}

TEST(DecodeRecord, FieldsBeyondTheDeclaredSizeAreBoundsChecked) {
  // A plan whose record size understates its fields must not read past the bytes.
  plan::Plan p = every_type_plan();
  p.records[0].size = 64;
  Bytes b(64);
  b.header(3, 1, 1, 1, 1, "x");
  auto r = Decoder(p, kOffset).decode(b.data);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("shorter than its 176-byte layout"), std::string::npos) << r.error();
}

// A high rule id, written by a unit whose tag is in the id's high bits (every
// rule file's object shares one ring: plan::kUnitTagShift).
TEST(DecodeRecord, HighRuleIdUnderAUnitTagAndConvenienceFunction) {
  plan::Plan p = every_type_plan();
  p.rules[0].id = 60'000u;
  p.records[0].rule_id = 60'000u;
  Bytes b = every_type_bytes();
  b.put<uint32_t>(0, (7u << plan::kUnitTagShift) | 60'000u);
  auto r = decode_record(p, b.data);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->rule->name, "every_type");
  EXPECT_EQ(plan::unit_tag_of((7u << plan::kUnitTagShift) | 60'000u), 7u);
  EXPECT_EQ(Decoder::peek_rule_id(b.data), 60'000u);
  b.put<uint32_t>(0, plan::kExecNoticeRuleId);  // the exec notice keeps its all-ones id
  EXPECT_EQ(Decoder::peek_rule_id(b.data), 0xffffffffu);
  EXPECT_EQ(Decoder::peek_rule_id(std::span<const uint8_t>(b.data.data(), 3)), std::nullopt);
}

TEST(DecodeRecord, GarbageOfEveryLengthDecodesOrErrorsWithoutReadingPastTheEnd) {
  // Run under valgrind or SEAM_SANITIZE to catch out-of-bounds reads; here: no crash, and
  // exactly the well-sized records with a known rule decode.
  plan::Plan p = every_type_plan();
  Decoder d(p, kOffset);
  DecodedRecord out;
  uint64_t state = 0x9e3779b97f4a7c15;
  auto next = [&] {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return static_cast<uint8_t>(state);
  };
  int decoded = 0;
  for (size_t len = 0; len <= 256; ++len) {
    for (int round = 0; round < 8; ++round) {
      std::vector<uint8_t> bytes(len);
      for (auto& b : bytes) b = next();
      if (len >= 8 && round % 2 == 0) {
        uint32_t id = 3, size = static_cast<uint32_t>(len);
        std::memcpy(bytes.data(), &id, 4);
        std::memcpy(bytes.data() + 4, &size, 4);
      }
      const bool ok = !d.decode_into(bytes, out).has_value();
      EXPECT_EQ(ok, len >= 176 && round % 2 == 0) << "len " << len;
      decoded += ok;
    }
  }
  EXPECT_EQ(decoded, (256 - 176 + 1) * 4);
}

TEST(DecodeRecord, WallClockOffsetIsCloseToTheClocks) {
  plan::Plan p = every_type_plan();
  Decoder d(p);
  timespec mono{}, real{};
  clock_gettime(CLOCK_MONOTONIC, &mono);
  clock_gettime(CLOCK_REALTIME, &real);
  const int64_t expected = (real.tv_sec - mono.tv_sec) * 1'000'000'000LL + (real.tv_nsec - mono.tv_nsec);
  EXPECT_LT(std::llabs(d.clock_offset_ns() - expected), 50'000'000LL);
}

}  // namespace
}  // namespace seam::runtime
