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
std::vector<TracepointField> struct_fields(const BtfTypes& types, const btf_type* t) {
  std::vector<TracepointField> fields;
  const btf_member* m = btf_members(t);
  for (unsigned i = 0; i < btf_vlen(t); ++i) {
    const char* member = types.name(m[i].name_off);
    std::string name = member ? member : "";
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
    unsigned count = 0;
    if (size_t bracket = decl.find('[');
        bracket != std::string::npos && decl.find(' ', bracket) == std::string::npos) {
      count = static_cast<unsigned>(std::strtoul(decl.c_str() + bracket + 1, nullptr, 10));
      decl.erase(bracket);  // `args[6]`, `comm[16]`
    }
    size_t space = decl.find_last_of(" \t*");
    std::string name = space == std::string::npos ? decl : decl.substr(space + 1);
    if (name.rfind("common_", 0) == 0 || name.empty()) continue;
    if (decl.find("__data_loc") != std::string::npos) name = "__data_loc_" + name;
    if (decl.find("__rel_loc") != std::string::npos) name = "__rel_loc_" + name;
    TracepointField f{name, static_cast<unsigned>(std::strtoul(line.c_str() + off + 7, nullptr, 10))};
    if (size_t size = line.find("size:"); size != std::string::npos)
      f.size = static_cast<unsigned>(std::strtoul(line.c_str() + size + 5, nullptr, 10));
    if (size_t sign = line.find("signed:"); sign != std::string::npos) f.is_signed = line[sign + 7] == '1';
    f.count = count;
    fields.push_back(std::move(f));
  }
  return fields;
}

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The C integer type of `bytes` bytes (0 when no integer is that wide).
const char* int_type(unsigned bytes, bool is_signed) {
  switch (bytes) {
    case 1:
      return is_signed ? "signed char" : "unsigned char";
    case 2:
      return is_signed ? "short" : "unsigned short";
    case 4:
      return is_signed ? "int" : "unsigned int";
    case 8:
      return is_signed ? "long long" : "unsigned long long";
    default:
      return nullptr;
  }
}

}  // namespace

std::string tracepoint_struct_from_fields(const std::string& event,
                                          const std::vector<TracepointField>& fields) {
  std::vector<TracepointField> sorted = fields;
  std::sort(sorted.begin(), sorted.end(),
            [](const TracepointField& a, const TracepointField& b) { return a.offset < b.offset; });
  std::string out = "struct " + std::string(kRawPrefix) + event + " {\n";
  unsigned at = 0;
  for (const TracepointField& f : sorted) {
    if (f.offset < at) continue;  // overlapping: not a layout C can write; the field is left out
    if (f.offset > at)            // the common header (type, flags, preempt count, pid) and any holes
      out += "\tunsigned char __pad_" + std::to_string(at) + "[" + std::to_string(f.offset - at) + "];\n";
    unsigned element = f.count ? f.size / f.count : f.size;
    const char* type = int_type(element, f.is_signed);
    if (type && f.count)
      out += "\t" + std::string(type) + " " + f.name + "[" + std::to_string(f.count) + "];\n";
    else if (type)
      out += "\t" + std::string(type) + " " + f.name + ";\n";
    else
      out += "\tunsigned char " + f.name + "[" + std::to_string(f.size) + "];\n";
    at = f.offset + f.size;
  }
  return out + "};\n";
}

Result<std::string> tracepoint_struct_from_format(const std::string& event) {
  std::string path = tracepoint_format_path(event);
  if (path.empty())
    return Error{"tracepoint '" + event + "' has no struct " + kRawPrefix + event +
                     " in this kernel's BTF, and its tracefs format file cannot be read",
                 ErrorCode::NotFound};
  return tracepoint_struct_from_fields(event, parse_tracepoint_format(read_file(path)));
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

Result<int> find_tracepoint_class(const BtfTypes& types, const std::string& event) {
  std::string path = tracepoint_format_path(event);
  if (path.empty())
    return Error{
        "tracepoint '" + event + "' has no struct " + kRawPrefix + event +
            " in this kernel's BTF, and its tracefs format file (to find its event class) cannot be read",
        ErrorCode::NotFound};
  std::ifstream in(path);
  std::vector<TracepointField> want = parse_tracepoint_format(
      std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
  const uint32_t n = types.count();
  for (uint32_t id = 1; id < n; ++id) {
    const btf_type* t = types.type(id);
    if (!btf_is_struct(t)) continue;
    const char* name = types.name(t->name_off);
    if (!name || std::string_view(name).rfind(kRawPrefix, 0) != 0) continue;
    if (same_fields(struct_fields(types, t), want)) return static_cast<int>(id);
  }
  return Error{"no " + std::string(kRawPrefix) + "* struct in this kernel's BTF lays out tracepoint '" +
                   event + "' (" + path + ")",
               ErrorCode::NotFound};
}

}  // namespace seam::build
