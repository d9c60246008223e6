#pragma once
// A field value as text, by unit: durations human-readable, bytes in binary units, pointers in
// hex, enums by name when the hook knows them. Used by messages and the stdout sink.
#include <string>
#include <string_view>

#include "runtime/decode/decoded_record.hpp"
#include "runtime/output/alert.hpp"

namespace seam::runtime {

void append_value_text(std::string& out, const Value& value, std::string_view enum_name = {},
                       const EnumNamer& enum_namer = {});

}  // namespace seam::runtime
