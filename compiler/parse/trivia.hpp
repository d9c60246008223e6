#pragma once
// Whitespace and `#` comments: skipping them, and reading the ones that document declarations
// (comment lines right above) and fields (a comment at the end of the field's line).
#include <cstddef>
#include <string>
#include <string_view>

namespace seam::parse {

// The offset of the first character at or after `at` that is neither whitespace nor in a comment.
size_t skip_trivia(std::string_view text, size_t at);

// The comment lines directly above the line holding `at` (no blank line between), without their `#`
// and one following space, joined by '\n'. Empty if there are none.
std::string doc_above(std::string_view text, size_t at);

// The comment that ends the line holding `at`, if it starts at or after `at`; trimmed, without `#`.
std::string trailing_comment(std::string_view text, size_t at);

// Whether `a` and `b` are on the same line.
bool same_line(std::string_view text, size_t a, size_t b);

}  // namespace seam::parse
