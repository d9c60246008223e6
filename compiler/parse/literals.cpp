#include "compiler/parse/literals.hpp"

#include <cctype>

namespace seam::parse {

namespace {

__extension__ typedef unsigned __int128 U128;

constexpr U128 kMaxValue = static_cast<U128>(INT64_MAX);

struct UnitInfo {
  std::string_view suffix;
  ast::Unit unit;
  uint64_t scale;
  std::string_view base;  // the base unit's name, for messages
};

constexpr UnitInfo kUnits[] = {
    {"", ast::Unit::None, 1, ""},
    {"ns", ast::Unit::Duration, 1, "nanoseconds"},
    {"us", ast::Unit::Duration, 1'000, "nanoseconds"},
    {"ms", ast::Unit::Duration, 1'000'000, "nanoseconds"},
    {"s", ast::Unit::Duration, 1'000'000'000, "nanoseconds"},
    {"m", ast::Unit::Duration, 60'000'000'000, "nanoseconds"},
    {"h", ast::Unit::Duration, 3'600'000'000'000, "nanoseconds"},
    {"B", ast::Unit::Bytes, 1, "bytes"},
    {"KiB", ast::Unit::Bytes, uint64_t{1} << 10, "bytes"},
    {"MiB", ast::Unit::Bytes, uint64_t{1} << 20, "bytes"},
    {"GiB", ast::Unit::Bytes, uint64_t{1} << 30, "bytes"},
    {"TiB", ast::Unit::Bytes, uint64_t{1} << 40, "bytes"},
    {"KB", ast::Unit::Bytes, 1'000, "bytes"},
    {"MB", ast::Unit::Bytes, 1'000'000, "bytes"},
    {"GB", ast::Unit::Bytes, 1'000'000'000, "bytes"},
};

const UnitInfo* find_unit(std::string_view suffix) {
  for (const UnitInfo& u : kUnits)
    if (u.suffix == suffix) return &u;
  return nullptr;
}

bool is_hex(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}
bool is_dec(char c) {
  return c >= '0' && c <= '9';
}
int hex_value(char c) {
  if (is_dec(c)) return c - '0';
  return std::tolower(static_cast<unsigned char>(c)) - 'a' + 10;
}

// Accumulates digits into a 128-bit value, saturating above the int64 range.
U128 accumulate(std::string_view digits, unsigned base) {
  U128 v = 0;
  for (char c : digits) {
    v = v * base + static_cast<unsigned>(hex_value(c));
    if (v > kMaxValue) return kMaxValue + 1;
  }
  return v;
}

std::string too_large(std::string_view text) {
  return "number '" + std::string(text) +
         "' is too large (the limit is 9223372036854775807 in the base unit)";
}

}  // namespace

NumberValue parse_number(std::string_view text) {
  NumberValue out;
  size_t i = 0;
  bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X') && is_hex(text[2]);
  std::string_view whole, fraction;
  if (hex) {
    i = 2;
    while (i < text.size() && is_hex(text[i])) ++i;
    whole = text.substr(2, i - 2);
  } else {
    while (i < text.size() && is_dec(text[i])) ++i;
    whole = text.substr(0, i);
    if (i + 1 < text.size() && text[i] == '.' && is_dec(text[i + 1])) {
      size_t f = ++i;
      while (i < text.size() && is_dec(text[i])) ++i;
      fraction = text.substr(f, i - f);
    }
  }
  out.suffix = std::string(text.substr(i));
  const UnitInfo* unit = find_unit(out.suffix);
  if (!unit) {
    out.error = "unknown unit '" + out.suffix + "' in '" + std::string(text) +
                "'; write one of ns us ms s m h (time) or B KiB MiB GiB TiB KB MB GB (size)";
    return out;
  }
  out.unit = unit->unit;

  U128 value = accumulate(whole, hex ? 16 : 10);
  if (value > kMaxValue) {
    out.error = too_large(text);
    return out;
  }
  value *= unit->scale;
  while (!fraction.empty() && fraction.back() == '0') fraction.remove_suffix(1);
  if (!fraction.empty()) {
    // 1.5ms = 1500000ns: the fraction times the scale must come out whole.
    std::string what = unit->base.empty() ? "a whole number" : "a whole number of " + std::string(unit->base);
    if (fraction.size() > 18) {
      out.error = "'" + std::string(text) + "' is not " + what;
      return out;
    }
    U128 numerator = accumulate(fraction, 10) * unit->scale;
    U128 denominator = 1;
    for (size_t k = 0; k < fraction.size(); ++k) denominator *= 10;
    if (numerator % denominator != 0) {
      out.error = "'" + std::string(text) + "' is not " + what;
      return out;
    }
    value += numerator / denominator;
  }
  if (value > kMaxValue) {
    out.error = too_large(text);
    return out;
  }
  out.value = static_cast<int64_t>(value);
  return out;
}

IntegerValue parse_integer(std::string_view text) {
  IntegerValue out;
  bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  U128 value = 0;
  for (char c : hex ? text.substr(2) : text) {
    value = value * (hex ? 16 : 10) + static_cast<unsigned>(hex_value(c));
    if (value > kMaxValue) {
      out.error = "integer '" + std::string(text) + "' is too large (the limit is 9223372036854775807)";
      return out;
    }
  }
  out.value = static_cast<uint64_t>(value);
  return out;
}

namespace {

// The character an escape stands for, or 0 when the escape is not valid.
char unescape(char c) {
  switch (c) {
    case '"':
      return '"';
    case '\\':
      return '\\';
    case 'n':
      return '\n';
    case 't':
      return '\t';
    case '{':
      return '{';
    case '}':
      return '}';
    default:
      return 0;
  }
}

std::string bad_escape(char c) {
  return std::string("invalid escape '\\") + c + "' in string; valid escapes are \\\" \\\\ \\n \\t \\{ \\}";
}

bool is_name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// `a`, `cuda.malloc.size`: identifiers joined by single dots.
bool is_dotted_name(std::string_view s) {
  bool at_start = true;
  for (char c : s) {
    if (at_start) {
      if (!is_name_start(c)) return false;
      at_start = false;
    } else if (c == '.') {
      at_start = true;
    } else if (!is_name_char(c)) {
      return false;
    }
  }
  return !at_start;
}

}  // namespace

StringValue parse_string(std::string_view text) {
  StringValue out;
  size_t end = text.size() - 1;  // the closing quote
  for (size_t i = 1; i < end; ++i) {
    if (text[i] != '\\') {
      out.value += text[i];
      continue;
    }
    char c = unescape(text[i + 1]);
    if (c == 0 && out.error.empty()) {
      out.error = bad_escape(text[i + 1]);
      out.error_offset = i;
    }
    out.value += c ? c : text[i + 1];
    ++i;
  }
  return out;
}

MessageValue parse_message(std::string_view text) {
  MessageValue out;
  size_t end = text.size() - 1;
  MessagePiece literal;
  auto flush = [&](size_t at) {
    if (!literal.text.empty()) {
      literal.end = at;
      out.pieces.push_back(literal);
    }
    literal = MessagePiece{};
    literal.begin = at;
  };
  literal.begin = 1;
  for (size_t i = 1; i < end; ++i) {
    char c = text[i];
    if (c == '\\') {
      char u = unescape(text[i + 1]);
      if (u == 0 && out.error.empty()) {
        out.error = bad_escape(text[i + 1]);
        out.error_is_escape = true;
        out.error_begin = i;
        out.error_end = i + 2;
      }
      literal.text += u ? u : text[i + 1];
      ++i;
      continue;
    }
    if (c != '{') {
      literal.text += c;
      continue;
    }
    size_t close = text.find('}', i + 1);
    if (close == std::string_view::npos || close >= end) {
      if (out.error.empty()) {
        out.error = "unclosed '{' in message; write '\\{' for a literal brace";
        out.error_begin = i;
        out.error_end = i + 1;
      }
      return out;
    }
    std::string_view name = text.substr(i + 1, close - i - 1);
    if (!is_dotted_name(name) && out.error.empty()) {
      out.error = "expected a field name inside '{...}', found '" + std::string(name) + "'";
      out.error_begin = i;
      out.error_end = close + 1;
    }
    flush(i);
    out.pieces.push_back(MessagePiece{true, std::string(name), i + 1, close});
    i = close;
    literal.begin = close + 1;
  }
  flush(end);
  return out;
}

}  // namespace seam::parse
