#include "compiler/parse/characters.hpp"

#include <string>
#include <string_view>

namespace seam::parse {

namespace {

// The UTF-8 encoding's length of a bidirectional control at `at` (0: none), and its name.
size_t bidi_control(std::string_view text, size_t at, std::string* name) {
  struct Control {
    std::string_view bytes, name;
  };
  static constexpr Control kControls[] = {
      {"\xe2\x80\xaa", "U+202A LEFT-TO-RIGHT EMBEDDING"},
      {"\xe2\x80\xab", "U+202B RIGHT-TO-LEFT EMBEDDING"},
      {"\xe2\x80\xac", "U+202C POP DIRECTIONAL FORMATTING"},
      {"\xe2\x80\xad", "U+202D LEFT-TO-RIGHT OVERRIDE"},
      {"\xe2\x80\xae", "U+202E RIGHT-TO-LEFT OVERRIDE"},
      {"\xe2\x81\xa6", "U+2066 LEFT-TO-RIGHT ISOLATE"},
      {"\xe2\x81\xa7", "U+2067 RIGHT-TO-LEFT ISOLATE"},
      {"\xe2\x81\xa8", "U+2068 FIRST STRONG ISOLATE"},
      {"\xe2\x81\xa9", "U+2069 POP DIRECTIONAL ISOLATE"},
      {"\xe2\x80\x8e", "U+200E LEFT-TO-RIGHT MARK"},
      {"\xe2\x80\x8f", "U+200F RIGHT-TO-LEFT MARK"},
      {"\xd8\x9c", "U+061C ARABIC LETTER MARK"},
  };
  for (const Control& c : kControls)
    if (text.substr(at, c.bytes.size()) == c.bytes) {
      *name = std::string(c.name);
      return c.bytes.size();
    }
  return 0;
}

}  // namespace

size_t report_bad_characters(const SourceFile& source, diag::Diagnostics& diags) {
  std::string_view text = source.text();
  size_t start = 0;
  if (text.starts_with("\xef\xbb\xbf")) {
    diags
        .error(diag::Code::BadCharacter, SourceRange{&source, 0, 3},
               "the file starts with a UTF-8 byte-order mark")
        .hints.push_back("save the file as UTF-8 without a BOM");
    start = 3;
  }
  for (size_t i = start; i < text.size(); ++i) {
    std::string name;
    if (text[i] == '\0') {
      diags.error(diag::Code::BadCharacter, SourceRange{&source, i, i + 1}, "NUL byte in the file")
          .hints.push_back("remove it: a rule file is text, and a string cannot hold a NUL either");
    } else if (size_t n = bidi_control(text, i, &name)) {
      diags
          .error(diag::Code::BadCharacter, SourceRange{&source, i, i + n},
                 "bidirectional control " + name + " in the file")
          .hints.push_back("it makes the text display in another order than seam reads it: remove it");
      i += n - 1;
    }
  }
  return start;
}

}  // namespace seam::parse
