#include "runtime/output/value_text.hpp"

#include "runtime/output/format.hpp"

namespace seam::runtime {
namespace {

bool append_enum_name(std::string& out, int64_t v, std::string_view enum_name, const EnumNamer& namer) {
  if (enum_name.empty() || !namer) return false;
  std::optional<std::string_view> name = namer(enum_name, v);
  if (!name) return false;
  out.append(*name);
  return true;
}

}  // namespace

void append_value_text(std::string& out, const Value& value, std::string_view enum_name,
                       const EnumNamer& enum_namer) {
  if (const auto* u = std::get_if<uint64_t>(&value.v)) {
    if (value.type == plan::FieldType::Ptr) return format::append_hex(out, *u);
    if (value.unit == plan::FieldUnit::Ns) return format::append_duration(out, static_cast<int64_t>(*u));
    if (value.unit == plan::FieldUnit::Bytes) return format::append_bytes(out, *u);
    if (append_enum_name(out, static_cast<int64_t>(*u), enum_name, enum_namer)) return;
    return format::append_uint(out, *u);
  }
  if (const auto* i = std::get_if<int64_t>(&value.v)) {
    if (value.unit == plan::FieldUnit::Ns) return format::append_duration(out, *i);
    if (value.unit == plan::FieldUnit::Bytes && *i >= 0)
      return format::append_bytes(out, static_cast<uint64_t>(*i));
    if (append_enum_name(out, *i, enum_name, enum_namer)) return;
    return format::append_int(out, *i);
  }
  if (const auto* b = std::get_if<bool>(&value.v)) return out.append(*b ? "true" : "false"), void();
  if (const auto* s = std::get_if<std::string>(&value.v)) return out.append(*s), void();
  if (const auto* stack = std::get_if<std::vector<uint64_t>>(&value.v)) {
    out.push_back('[');
    format::append_uint(out, stack->size());
    out.append(" frames]");
  }
}

}  // namespace seam::runtime
