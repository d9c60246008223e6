#pragma once
// The only ways text from a rule file may reach generated C: as a checked identifier or as an
// escaped constant. Everything else the generator writes is its own.
#include <string>
#include <string_view>

namespace seam::codegen {

// [A-Za-z_][A-Za-z0-9_]* and not longer than 128 bytes.
bool is_c_identifier(std::string_view s);
// A C string literal whose every byte outside [A-Za-z0-9 _.:/-] is an octal escape: no quote,
// backslash, newline, `*/`, `#` or `%` can survive as itself.
std::string c_string_literal(std::string_view s);
// Text for inside a generated comment (block or line): every byte outside kCommentPlain becomes
// `\xHH`, so no `*`, line end (`\n`, `\r`), backslash before a line end, `?` of a trigraph,
// control or non-ASCII byte (a bidi control) survives as itself.
std::string comment_text(std::string_view s);
// The bytes comment_text keeps as they are.
inline constexpr std::string_view kCommentPlain =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _.,:;/()[]=+@<>'`-";

}  // namespace seam::codegen
