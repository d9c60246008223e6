#pragma once
// The shape every generated C file must have, checked on the finished text (by generate(), the
// codegen fuzzer and the hostile-corpus test) so that a path through the generator that forgot to
// escape is caught before clang sees it:
//  - only tab, newline and printable ASCII bytes: no `\r`, NUL, bidi control or other non-ASCII;
//  - no backslash before a line end and no `??` (trigraphs) anywhere;
//  - comments hold no `*` (but the `*/` that ends them) and no backslash but comment_text()'s
//    `\xHH` escapes;
//  - no `#` in code but at the start of a directive line;
//  - string and character literals hold only [A-Za-z0-9 _.:/-] and octal escapes `\ooo`;
//  - preprocessor lines are only `#include "NAME"` of a header embedded in seam, `#line N "..."`,
//    seam's one `#define` (seam_usdt_arg) and `#if SEAM_IN_PART(N)` ... `#endif` around each
//    program (the parts of a parallel build).
#include <string>
#include <string_view>

namespace seam::codegen {

// Empty when `c` keeps every rule above, else what broke and the line where it did.
std::string c_invariant_violation(std::string_view c);

}  // namespace seam::codegen
