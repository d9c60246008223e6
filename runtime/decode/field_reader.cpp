#include "runtime/decode/field_reader.hpp"

#include <algorithm>
#include <cstring>

namespace seam::runtime {
namespace {

uint32_t type_width(plan::FieldType type) {
  switch (type) {
    case plan::FieldType::U8:
    case plan::FieldType::I8:
    case plan::FieldType::Bool:
      return 1;
    case plan::FieldType::U16:
    case plan::FieldType::I16:
      return 2;
    case plan::FieldType::U32:
    case plan::FieldType::I32:
      return 4;
    default:
      return 8;
  }
}

bool is_plain_width(uint32_t size) {
  return size == 1 || size == 2 || size == 4 || size == 8;
}

uint64_t load_unsigned(const uint8_t* p, uint32_t width) {
  switch (width) {
    case 1:
      return *p;
    case 2: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    default: {
      uint64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
  }
}

int64_t sign_extend(uint64_t v, uint32_t width) {
  if (width >= 8) return static_cast<int64_t>(v);
  const unsigned shift = 64 - width * 8;
  return static_cast<int64_t>(v << shift) >> shift;
}

// Sets the variant to alternative T without discarding an existing T's buffer.
template <class T>
T& emplace_keep(Value& out) {
  if (T* held = std::get_if<T>(&out.v)) return *held;
  return out.v.template emplace<T>();
}

void read_stack(const plan::Field& field, const uint8_t* p, Value& out) {
  auto& ips = emplace_keep<std::vector<uint64_t>>(out);
  ips.clear();
  if (field.size < 8) return;
  const uint64_t capacity = (field.size - 8) / 8;
  const uint64_t count = std::min(load_unsigned(p, 8), capacity);  // the count may exceed the array
  ips.resize(count);
  if (count > 0) std::memcpy(ips.data(), p + 8, count * 8);
}

// The copy travels as bytes: its header, then only the stack bytes the program copied.
void read_stack_copy(const plan::Field& field, const uint8_t* p, Value& out) {
  auto& bytes = emplace_keep<std::string>(out);
  bytes.clear();
  if (field.size < plan::kStackCopyHeader) return;
  const uint64_t copied = std::min<uint64_t>(load_unsigned(p, 8), field.size - plan::kStackCopyHeader);
  bytes.assign(reinterpret_cast<const char*>(p), plan::kStackCopyHeader + copied);
}

// The Python frames travel as bytes: count, status, then only the frames the walk recorded.
void read_pystack(const plan::Field& field, const uint8_t* p, Value& out) {
  auto& bytes = emplace_keep<std::string>(out);
  bytes.clear();
  if (field.size < plan::kPyStackHeader) return;
  const uint64_t count =
      std::min<uint64_t>(load_unsigned(p, 8), (field.size - plan::kPyStackHeader) / plan::kPyFrameBytes);
  bytes.assign(reinterpret_cast<const char*>(p), plan::kPyStackHeader + count * plan::kPyFrameBytes);
}

}  // namespace

uint32_t field_read_size(const plan::Field& field) {
  switch (field.type) {
    case plan::FieldType::Str:
      return field.size;
    case plan::FieldType::UStack:
    case plan::FieldType::KStack:
      return std::max<uint32_t>(field.size, 8);
    case plan::FieldType::UStackCopy:
    case plan::FieldType::PyStack:
      return field.size;
    default:
      return is_plain_width(field.size) ? field.size : type_width(field.type);
  }
}

void read_field(const plan::Field& field, const uint8_t* record, Value& out) {
  out.type = field.type;
  out.unit = field.unit;
  const uint8_t* p = record + field.offset;
  const uint32_t width = field_read_size(field);
  switch (field.type) {
    case plan::FieldType::U8:
    case plan::FieldType::U16:
    case plan::FieldType::U32:
    case plan::FieldType::U64:
    case plan::FieldType::Ptr:
      out.v = load_unsigned(p, width);
      return;
    case plan::FieldType::I8:
    case plan::FieldType::I16:
    case plan::FieldType::I32:
    case plan::FieldType::I64:
      out.v = sign_extend(load_unsigned(p, width), width);
      return;
    case plan::FieldType::Bool:
      out.v = load_unsigned(p, width) != 0;
      return;
    case plan::FieldType::Str: {
      auto& s = emplace_keep<std::string>(out);
      const void* nul = std::memchr(p, 0, field.size);
      const size_t len = nul ? static_cast<const uint8_t*>(nul) - p : field.size;
      s.assign(reinterpret_cast<const char*>(p), len);
      return;
    }
    case plan::FieldType::UStack:
    case plan::FieldType::KStack:
      read_stack(field, p, out);
      return;
    case plan::FieldType::UStackCopy:
      read_stack_copy(field, p, out);
      return;
    case plan::FieldType::PyStack:
      read_pystack(field, p, out);
      return;
  }
}

}  // namespace seam::runtime
