#pragma once
// Literal values as written in the source: numbers with units, integers, strings with escapes, and alert
// messages with `{name}` holes. Pure functions over token text; problems come back as messages that the
// builder turns into diagnostics (E0005 invalid-literal, E0001 for a broken message hole).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ast/ast.hpp"

namespace seam::parse {

struct NumberValue {
  int64_t value = 0;  // normalised: nanoseconds for durations, bytes for sizes
  ast::Unit unit = ast::Unit::None;
  std::string suffix;  // as written
  std::string error;   // empty when valid
};
// `10ms`, `1.5KiB`, `0x10`, `42`.
NumberValue parse_number(std::string_view text);

struct IntegerValue {
  uint64_t value = 0;
  std::string error;
};
// `10`, `0x10` (no unit, no fraction).
IntegerValue parse_integer(std::string_view text);

struct StringValue {
  std::string value;
  std::string error;        // an invalid escape
  size_t error_offset = 0;  // of the backslash, relative to the token start
};
// `text` is the whole token, quotes included.
StringValue parse_string(std::string_view text);

// One piece of an alert message; offsets are relative to the token start (quotes included).
struct MessagePiece {
  bool is_hole = false;
  std::string text;  // unescaped literal text, or the hole's name
  size_t begin = 0, end = 0;
};
struct MessageValue {
  std::vector<MessagePiece> pieces;
  std::string error;  // E0001: unclosed or malformed hole; E0005: invalid escape
  bool error_is_escape = false;
  size_t error_begin = 0, error_end = 0;
};
MessageValue parse_message(std::string_view text);

}  // namespace seam::parse
