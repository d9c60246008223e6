#pragma once
// Minimal JSON text building for the hot path. nlohmann::json would allocate a node per key
// and its dump() throws on invalid UTF-8, which comm and str fields can contain; this writes
// straight into the line buffer and replaces invalid UTF-8 with U+FFFD. Tests parse the
// output back with nlohmann::json.
#include <cstdint>
#include <string>
#include <string_view>

namespace seam::runtime::json_text {

// A JSON string literal, quotes included.
void append_string(std::string& out, std::string_view s);
// `"key":` preceded by a comma unless `first`.
void append_key(std::string& out, std::string_view key, bool first = false);
// Text known to need no escaping (the sink's own keys, with their punctuation), in one append.
template <size_t N>
void append_literal(std::string& out, const char (&text)[N]) {
  out.append(text, N - 1);
}

}  // namespace seam::runtime::json_text
