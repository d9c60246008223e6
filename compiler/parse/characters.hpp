#pragma once
// Bytes a rule file must not hold, found before parsing so that each gets a clear E0007 instead of
// a puzzling syntax error (or none): NUL bytes, Unicode bidirectional controls (which make text
// display in another order than it parses, CVE-2021-42574) and a UTF-8 byte-order mark.
#include <cstddef>

#include "compiler/diag/diagnostic.hpp"
#include "compiler/source/source_file.hpp"

namespace seam::parse {

// Reports each such byte sequence; returns where parsing starts (past a byte-order mark).
size_t report_bad_characters(const SourceFile& source, diag::Diagnostics& diags);

}  // namespace seam::parse
