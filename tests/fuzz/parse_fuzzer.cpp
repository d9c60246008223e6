// libFuzzer harness for the parser: any bytes in, never a crash, a hang or an exception out, and every
// diagnostic and AST range stays inside the text.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "compiler/parse/parser.hpp"

namespace {

void check(const seam::SourceRange& r, size_t size) {
  if (r.valid() && (r.begin > r.end || r.end > size)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  seam::SourceFile source("fuzz.seam", std::string(reinterpret_cast<const char*>(data), size));
  seam::diag::Diagnostics diags;
  seam::parse::Limits limits;
  limits.max_file_bytes = 64 * 1024;
  seam::ast::File file = seam::parse::parse_file(source, diags, limits);
  for (const auto& d : diags.all()) check(d.range, size);
  for (const auto& decl : file.decls) {
    if (const auto* rule = std::get_if<seam::ast::RuleDecl>(&decl)) {
      check(rule->range, size);
      if (rule->alert)
        for (const auto& part : rule->alert->message) check(part.range, size);
    } else if (const auto* ev = std::get_if<seam::ast::EventDecl>(&decl)) {
      check(ev->name.range, size);
      for (const auto& p : ev->begin) check(p.range, size);
    }
  }
  return 0;
}
