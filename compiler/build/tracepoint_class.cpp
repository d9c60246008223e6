#include "compiler/build/tracepoint_class.hpp"

#include <bpf/btf.h>
#include <linux/btf.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace seam::build {

namespace {

constexpr const char* kTracefsRoots[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
constexpr const char* kRawPrefix = "trace_event_raw_";

bool same_fields(std::vector<TracepointField> a, std::vector<TracepointField> b) {
  auto order = [](const TracepointField& x, const TracepointField& y) { return x.name < y.name; };
  std::sort(a.begin(), a.end(), order);
  std::sort(b.begin(), b.end(), order);
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const TracepointField& x, const TracepointField& y) {
                      return x.name == y.name && x.offset == y.offset;
                    });
}

// A trace_event_raw_* struct's own fields: everything but the common header `ent` and the
// flexible `__data` array that dynamic fields point into.
std::vector<TracepointField> struct_fields(const btf* b, const btf_type* t) {
  std::vector<TracepointField> fields;
  const btf_member* m = btf_members(t);
  for (unsigned i = 0; i < btf_vlen(t); ++i) {
    std::string name = btf__name_by_offset(b, m[i].name_off);
    if (name == "ent" || name == "__data") continue;
    fields.push_back({name, btf_member_bit_offset(t, i) / 8});
  }
  return fields;
}

}  // namespace

std::vector<TracepointField> parse_tracepoint_format(const std::string& format_text) {
  std::vector<TracepointField> fields;
  std::istringstream in(format_text);
  for (std::string line; std::getline(in, line);) {
    // "\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;"
    size_t field = line.find("field:"), semi = line.find(';'), off = line.find("offset:");
    if (field == std::string::npos || semi == std::string::npos || off == std::string::npos) continue;
    std::string decl = line.substr(field + 6, semi - field - 6);
    if (size_t bracket = decl.find('[');
        bracket != std::string::npos && decl.find(' ', bracket) == std::string::npos)
      decl.erase(bracket);  // `args[6]`, `comm[16]`
    size_t space = decl.find_last_of(" \t*");
    std::string name = space == std::string::npos ? decl : decl.substr(space + 1);
    if (name.rfind("common_", 0) == 0 || name.empty()) continue;
    if (decl.find("__data_loc") != std::string::npos) name = "__data_loc_" + name;
    if (decl.find("__rel_loc") != std::string::npos) name = "__rel_loc_" + name;
    fields.push_back({name, static_cast<unsigned>(std::strtoul(line.c_str() + off + 7, nullptr, 10))});
  }
  return fields;
}

std::string tracepoint_format_path(const std::string& event) {
  for (const char* root : kTracefsRoots) {
    std::error_code ec;
    std::filesystem::directory_iterator it(std::string(root) + "/events", ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      std::filesystem::path p = it->path() / event / "format";
      if (std::filesystem::exists(p, ec)) return p.string();
    }
  }
  return {};
}

int find_tracepoint_class(const btf* b, const std::string& event, std::string* error) {
  std::string path = tracepoint_format_path(event);
  if (path.empty()) {
    if (error)
      *error = "tracepoint '" + event + "' has no struct " + kRawPrefix + event +
               " in this kernel's BTF, and its tracefs format file (to find its event class) cannot be read";
    return -1;
  }
  std::ifstream in(path);
  std::vector<TracepointField> want = parse_tracepoint_format(
      std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
  unsigned n = btf__type_cnt(b);
  for (unsigned id = 1; id < n; ++id) {
    const btf_type* t = btf__type_by_id(b, id);
    if (!btf_is_struct(t)) continue;
    const char* name = btf__name_by_offset(b, t->name_off);
    if (!name || std::string_view(name).rfind(kRawPrefix, 0) != 0) continue;
    if (same_fields(struct_fields(b, t), want)) return static_cast<int>(id);
  }
  if (error)
    *error = "no " + std::string(kRawPrefix) + "* struct in this kernel's BTF lays out tracepoint '" + event +
             "' (" + path + ")";
  return -1;
}

}  // namespace seam::build
