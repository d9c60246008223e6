#include "runtime/python/frame_namer.hpp"

#include <cstdio>
#include <cstring>

#include "runtime/python/line_table.hpp"
#include "runtime/python/object_reader.hpp"

namespace seam::runtime::python {

namespace {

// Code objects kept per process at most: a program that makes code at run time (exec, lambdas
// in a loop) must not grow seam without bound; past it, the oldest process's are dropped first.
constexpr size_t kMaxCodes = 1 << 16;

// The instruction's byte offset from the first code unit, as PyCode_Addr2Line takes it.
int64_t byte_offset(const FrameLayout& l, const PyFrameRef& f) {
  if (l.instr_is_int) {
    auto lasti = static_cast<int64_t>(f.instr);
    return l.code.lasti_in_bytes || lasti < 0 ? lasti : lasti * 2;
  }
  return static_cast<int64_t>(f.instr - (f.code + l.code.code_adaptive));
}

}  // namespace

bool parse_pystack(std::span<const uint8_t> bytes, PyStackView& out) {
  if (bytes.size() < plan::kPyStackHeader) return false;
  uint64_t count = 0, status = 0;
  std::memcpy(&count, bytes.data(), 8);
  std::memcpy(&status, bytes.data() + 8, 8);
  count = std::min<uint64_t>(count, (bytes.size() - plan::kPyStackHeader) / plan::kPyFrameBytes);
  out.status = static_cast<plan::PyStackStatus>(status);
  out.frames.resize(count);
  for (uint64_t i = 0; i < count; ++i) {
    const uint8_t* p = bytes.data() + plan::kPyStackHeader + i * plan::kPyFrameBytes;
    std::memcpy(&out.frames[i].code, p, 8);
    std::memcpy(&out.frames[i].instr, p + 8, 8);
  }
  return true;
}

void FrameNamer::add_process(pid_t pid, const FrameLayout& layout) {
  std::lock_guard<std::mutex> lock(mu_);
  processes_[pid] = layout;
}

void FrameNamer::forget_process(pid_t pid) {
  std::lock_guard<std::mutex> lock(mu_);
  processes_.erase(pid);
  codes_.erase(codes_.lower_bound({pid, 0}), codes_.lower_bound({pid + 1, 0}));
}

bool FrameNamer::knows(pid_t pid) const {
  std::lock_guard<std::mutex> lock(mu_);
  return processes_.count(pid) != 0;
}

const FrameNamer::Code& FrameNamer::code_of(pid_t pid, const FrameLayout& l, uint64_t address) {
  auto key = std::make_pair(pid, address);
  if (auto it = codes_.find(key); it != codes_.end() && it->second.read) return it->second;
  if (codes_.size() >= kMaxCodes) codes_.erase(codes_.begin());
  Code& c = codes_[key];
  const CodeLayout& cl = l.code;
  std::optional<uint64_t> name = read_u64(pid, address + (cl.qualname ? cl.qualname : cl.name));
  std::optional<uint64_t> file = read_u64(pid, address + cl.filename);
  std::optional<uint64_t> table = read_u64(pid, address + cl.linetable);
  std::optional<int32_t> first = read_i32(pid, address + cl.firstlineno);
  std::optional<std::string> function = name ? read_str(pid, *name, cl) : std::nullopt;
  std::optional<std::string> path = file ? read_str(pid, *file, cl) : std::nullopt;
  std::optional<std::vector<uint8_t>> lines = table ? read_bytes_object(pid, *table) : std::nullopt;
  if (!function || !path || !lines || !first) return c;  // not read: tried again next time
  c.read = true;
  c.function = std::move(*function);
  c.file = std::move(*path);
  c.first_line = *first;
  c.line_table = std::move(*lines);
  return c;
}

std::vector<PyFrame> FrameNamer::name(pid_t pid, std::span<const PyFrameRef> frames) {
  std::lock_guard<std::mutex> lock(mu_);
  auto p = processes_.find(pid);
  if (p == processes_.end()) return {};
  const FrameLayout& l = p->second;
  std::vector<PyFrame> out;
  out.reserve(frames.size());
  for (PyFrameRef f : frames) {
    PyFrame named;
    named.entry = (f.code & plan::kPyEntryBit) != 0 || l.instr_is_int;  // 3.8 to 3.10: a call per frame
    f.code &= ~plan::kPyEntryBit;
    named.code = f.code;
    named.offset = byte_offset(l, f);
    const Code& c = code_of(pid, l, f.code);
    if (c.read) {
      named.function = c.function;
      named.file = c.file;
      named.line = line_for_offset(l.code.format, c.line_table, c.first_line, named.offset);
    } else {
      char text[64];
      std::snprintf(text, sizeof text, "<code object 0x%llx not readable>",
                    static_cast<unsigned long long>(f.code));
      named.function = text;
    }
    out.push_back(std::move(named));
  }
  return out;
}

}  // namespace seam::runtime::python
