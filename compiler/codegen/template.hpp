#pragma once
// Expands the fragments in bpf-templates/ (embedded into seam): every `{{name}}` is replaced by
// the generator's value for it. A fragment asking for a name the generator did not give is a bug
// in seam, not in a rule, so it throws std::logic_error.
#include <map>
#include <string>
#include <string_view>

namespace seam::codegen {

using Vars = std::map<std::string, std::string, std::less<>>;

std::string expand(std::string_view fragment, const Vars& vars);
// The embedded fragment `name` (e.g. "span_begin.c.tmpl") expanded with `vars`.
std::string fragment(std::string_view name, const Vars& vars);

}  // namespace seam::codegen
