#include "compiler/stdlib_gen/stdlib_gen.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <set>

#include "compiler/stdlib_gen/header_reader.hpp"
#include "compiler/stdlib_gen/module_writer.hpp"
#include "compiler/stdlib_gen/naming.hpp"

namespace seam::stdlib_gen {

namespace {

bool is_identifier(const std::string& s) {
  return !s.empty() && seam_identifier(s) == s;
}

std::string file_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string directory_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

std::string default_module_name(const std::string& header) {
  std::string stem = file_name(header);
  size_t dot = stem.find('.');
  if (dot != std::string::npos) stem.resize(dot);
  return seam_identifier(snake_case(stem));
}

bool matches_any(const std::vector<std::string>& globs, const std::string& name) {
  for (const std::string& g : globs)
    if (glob_matches(g, name)) return true;
  return false;
}

std::string span_name_of(const std::string& function, const std::string& prefix) {
  std::string rest =
      function.compare(0, prefix.size(), prefix) == 0 ? function.substr(prefix.size()) : function;
  std::string name = snake_case(rest);
  return seam_identifier(name.empty() ? snake_case(function) : name);
}

std::string joined(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : separator) + p;
  return out;
}

// The span for one function; its name is made unique by the caller.
GeneratedSpan span_for(const CFunction& f, const std::string& prefix,
                       const std::vector<std::string>& variant_names) {
  GeneratedSpan span;
  span.function = f.name;
  if (f.is_static) {
    span.skip_reason = "static in the header, so the library has no symbol to probe";
    return span;
  }
  span.doc = f.doc;
  if (!span.doc.empty() && std::string(".!?:").find(span.doc.back()) == std::string::npos) span.doc += ".";
  for (const std::string& name : variant_names)
    if (name != f.name &&
        std::find(span.alternatives.begin(), span.alternatives.end(), name) == span.alternatives.end())
      span.alternatives.push_back(name);
  span.fields = seam_fields_of(f);
  span.span_name = span_name_of(f.name, prefix);
  return span;
}

nlohmann::json sidecar_of(const std::vector<CEnum>& enums) {
  nlohmann::json out = nlohmann::json::object();
  for (const CEnum& e : enums) {
    nlohmann::json values = nlohmann::json::object();
    for (const auto& [name, value] : e.values) {
      std::string key = std::to_string(value);
      if (!values.contains(key)) values[key] = name;
    }
    out[e.name] = std::move(values);
  }
  return out;
}

}  // namespace

Result<LibrarySpec> parse_library_spec(const std::string& spec) {
  size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    return Error{"--library takes ALIAS=PATTERN (cudart=libcudart.so*), not '" + spec + "'",
                 ErrorCode::InvalidInput};
  LibrarySpec out{spec.substr(0, eq), spec.substr(eq + 1)};
  if (!is_identifier(out.alias))
    return Error{
        "--library: '" + out.alias + "' is not a seam name (letters, digits, '_'; not a reserved word)",
        ErrorCode::InvalidInput};
  return out;
}

GenResult generate(const GenOptions& options) {
  GenResult result;
  struct stat st {};
  if (::stat(options.header.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    result.status = GenStatus::BadInput;
    result.errors.push_back(options.header + ": no such header file");
    return result;
  }
  std::string module_name =
      options.module_name.empty() ? default_module_name(options.header) : options.module_name;
  if (!is_identifier(module_name) || !is_identifier(options.library_alias)) {
    result.status = GenStatus::BadInput;
    result.errors.push_back("'" + (is_identifier(module_name) ? options.library_alias : module_name) +
                            "' is not a seam name (letters, digits, '_'; not a reserved word)");
    return result;
  }

  // The header's own directory is searched for <...> includes too, as SDK headers expect.
  std::vector<std::string> clang_args = options.clang_args;
  clang_args.push_back("-I" + directory_of(options.header));
  HeaderRead read = read_header(options.header, clang_args);
  if (!read.errors.empty()) {
    result.status = GenStatus::HeaderErrors;
    result.errors = read.errors;
    return result;
  }
  std::map<std::string, std::vector<std::string>> variants;  // location -> names declared there
  for (const std::string& define : options.variant_defines) {
    std::vector<std::string> args = clang_args;
    args.push_back("-D" + define);
    HeaderRead variant = read_header(options.header, args);
    if (!variant.errors.empty()) {
      result.status = GenStatus::HeaderErrors;
      result.errors = variant.errors;
      return result;
    }
    for (const CFunction& f : variant.header.functions) variants[f.location].push_back(f.name);
  }

  std::vector<const CFunction*> chosen;
  std::vector<std::string> names;
  for (const CFunction& f : read.header.functions) {
    if (!matches_any(options.function_globs, f.name)) continue;
    chosen.push_back(&f);
    if (!f.is_static) names.push_back(f.name);
  }
  if (chosen.empty()) {
    result.status = GenStatus::NoMatch;
    result.errors.push_back(options.header + ": no function matches " + joined(options.function_globs, " "));
    return result;
  }

  ModuleParts parts;
  parts.module_name = module_name;
  parts.source = file_name(options.header) + " (functions " + joined(options.function_globs, ", ") + ")";
  parts.library_alias = options.library_alias;
  parts.library_pattern = options.library_pattern;
  std::string prefix = options.strip_prefix ? *options.strip_prefix : common_lowercase_prefix(names);

  std::set<std::string> span_names, enum_names;
  for (const CFunction* f : chosen) {
    GeneratedSpan span = span_for(*f, prefix, variants[f->location]);
    std::string base = span.span_name;
    for (int n = 2; !base.empty() && !span_names.insert(span.span_name).second; ++n)
      span.span_name = base + "_" + std::to_string(n);
    for (const std::string& e : span.fields.enums)
      if (enum_names.insert(e).second) parts.enums.push_back(read.header.enums.at(e));
    parts.spans.push_back(std::move(span));
  }
  result.module_text = write_module(parts);
  result.enums = sidecar_of(parts.enums);
  return result;
}

}  // namespace seam::stdlib_gen
