#pragma once
// Printing diagnostics for people (text), for tools (JSON) and for GitHub Actions annotations.
// The formats are documented, with examples, in docs/diagnostics.md; tests pin them byte for byte.
#include <string>

#include <nlohmann/json.hpp>

#include "compiler/diag/diagnostic.hpp"

namespace seam::diag {

// One block per diagnostic, in the order given (call Diagnostics::sort() first):
//   rules/a.seam:3:8: error[E0103]: unknown event 'cuda.stream_synk'
//       3 |     on cuda.stream_synk where duration > 10ms
//         |        ^~~~~~~~~~~~~~~~
//         = hint: did you mean cuda.stream_sync?
// blocks separated by a blank line, then a summary line "N errors, M warnings" (none when clean).
// `color` adds ANSI colours to the severity and the underline.
std::string render_text(const Diagnostics& diags, bool color = false);

// A diagnostic's first line in render_text: "rules/a.seam:3:8: error[E0103]: unknown event ..."
std::string render_headline(const Diagnostic& d);

// {"diagnostics":[{"file","line","column","end_line","end_column","severity","code","name",
//  "message","hints":[...]}],"errors":N,"warnings":M}; positions are null for file-level problems.
nlohmann::json render_json(const Diagnostics& diags);

// One workflow command per diagnostic:
//   ::error file=F,line=L,col=C,endLine=L2,endColumn=C2,title=E0103 unknown-event::message (hint)
std::string render_github(const Diagnostics& diags);

// "error", "warning", "note"
const char* to_string(Severity s);

}  // namespace seam::diag
