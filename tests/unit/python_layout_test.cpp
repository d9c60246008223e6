// runtime/python's GIL layouts against the DWARF of the pyenv builds under /root/.pyenv/versions
// (unstripped libpython with debug info): each table entry, and what 3.13's _Py_DebugOffsets
// say, must be the offsets the compiler laid out.
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/elf/elf_file.hpp"
#include "runtime/python/cpython_layout.hpp"
#include "runtime/python/frame_layout.hpp"
#include "runtime/python/interpreter_finder.hpp"

namespace seam::runtime::python {
namespace {

// The debug info of one file: byte offsets of member paths ("ceval.gil.locked") in a struct.
class Dwarf {
 public:
  explicit Dwarf(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ >= 0) dw_ = dwarf_begin(fd_, DWARF_C_READ);
  }
  ~Dwarf() {
    if (dw_) dwarf_end(dw_);
    if (fd_ >= 0) ::close(fd_);
  }
  bool ok() const { return dw_ != nullptr; }

  std::optional<uint64_t> offset_of(const std::string& type, const std::string& path) {
    std::optional<Dwarf_Die> die = find_struct(type);
    if (!die) return std::nullopt;
    uint64_t total = 0;
    std::stringstream parts(path);
    std::string member;
    Dwarf_Die current = *die;
    while (std::getline(parts, member, '.')) {
      std::optional<Dwarf_Die> m = find_member(current, member);
      if (!m) return std::nullopt;
      Dwarf_Attribute attr;
      Dwarf_Word location = 0;
      if (!dwarf_attr(&*m, DW_AT_data_member_location, &attr) || dwarf_formudata(&attr, &location) != 0)
        return std::nullopt;
      total += location;
      Dwarf_Attribute type_attr;
      Dwarf_Die member_type;
      if (!dwarf_attr_integrate(&*m, DW_AT_type, &type_attr) || !dwarf_formref_die(&type_attr, &member_type))
        return std::nullopt;
      if (dwarf_peel_type(&member_type, &current) != 0) return std::nullopt;
    }
    return total;
  }

 private:
  std::optional<Dwarf_Die> find_struct(const std::string& name) {
    Dwarf_Off off = 0, next = 0;
    size_t header = 0;
    while (dwarf_nextcu(dw_, off, &next, &header, nullptr, nullptr, nullptr) == 0) {
      Dwarf_Die cu, child;
      if (dwarf_offdie(dw_, off + header, &cu) && dwarf_child(&cu, &child) == 0) {
        do {
          const char* n = dwarf_diename(&child);
          if (dwarf_tag(&child) == DW_TAG_structure_type && n && name == n && dwarf_haschildren(&child) &&
              !dwarf_hasattr(&child, DW_AT_declaration))
            return child;
          // `typedef struct { ... } PyCodeObject;` (3.8): the typedef's anonymous struct.
          Dwarf_Die target;
          if (dwarf_tag(&child) == DW_TAG_typedef && n && name == n &&
              dwarf_peel_type(&child, &target) == 0 && dwarf_tag(&target) == DW_TAG_structure_type &&
              dwarf_haschildren(&target))
            return target;
        } while (dwarf_siblingof(&child, &child) == 0);
      }
      off = next;
    }
    return std::nullopt;
  }

  static std::optional<Dwarf_Die> find_member(Dwarf_Die& parent, const std::string& name) {
    Dwarf_Die child;
    if (dwarf_child(&parent, &child) != 0) return std::nullopt;
    do {
      const char* n = dwarf_diename(&child);
      if (dwarf_tag(&child) == DW_TAG_member && n && name == n) return child;
    } while (dwarf_siblingof(&child, &child) == 0);
    return std::nullopt;
  }

  int fd_ = -1;
  ::Dwarf* dw_ = nullptr;
};

// The libpython of pyenv's 3.<minor>, or "" when it is not installed.
std::string pyenv_libpython(int minor) {
  std::error_code ec;
  std::string prefix = "3." + std::to_string(minor) + ".";
  for (const auto& e : std::filesystem::directory_iterator("/root/.pyenv/versions", ec)) {
    if (e.path().filename().string().rfind(prefix, 0) != 0) continue;
    std::string lib = e.path().string() + "/lib/libpython3." + std::to_string(minor) + ".so.1.0";
    if (std::filesystem::exists(lib)) return lib;
  }
  return {};
}

// What the table should say, from the DWARF.
GilLayout from_dwarf(Dwarf& d, int minor) {
  GilLayout l;
  l.minor = minor;
  if (minor <= 11) {
    l.locked = static_cast<uint32_t>(d.offset_of("pyruntimestate", "ceval.gil.locked").value_or(0));
    l.holder = static_cast<uint32_t>(d.offset_of("pyruntimestate", "ceval.gil.last_holder").value_or(0));
  } else {
    l.interp_ptr = static_cast<uint32_t>(
        d.offset_of("pyruntimestate", minor >= 13 ? "interpreters.head" : "interpreters.main").value_or(0));
    l.locked = static_cast<uint32_t>(d.offset_of("_is", "_gil.locked").value_or(0));
    l.holder = static_cast<uint32_t>(d.offset_of("_is", "_gil.last_holder").value_or(0));
  }
  l.thread_id = static_cast<uint32_t>(d.offset_of("_ts", "thread_id").value_or(0));
  return l;
}

void expect_same(const GilLayout& got, const GilLayout& want, const std::string& lib) {
  EXPECT_EQ(got.interp_ptr, want.interp_ptr) << lib;
  EXPECT_EQ(got.locked, want.locked) << lib;
  EXPECT_EQ(got.holder, want.holder) << lib;
  EXPECT_EQ(got.thread_id, want.thread_id) << lib;
  EXPECT_NE(want.locked, 0u) << "DWARF of " << lib << " has no GIL";
  EXPECT_NE(want.thread_id, 0u) << "DWARF of " << lib << " has no thread_id";
}

class TableAgainstDwarf : public ::testing::TestWithParam<int> {};

TEST_P(TableAgainstDwarf, OffsetsAreTheCompilers) {
  int minor = GetParam();
  std::string lib = pyenv_libpython(minor);
  if (lib.empty()) GTEST_SKIP() << "Python 3." << minor << " is not installed under /root/.pyenv/versions";
  Dwarf d(lib);
  ASSERT_TRUE(d.ok()) << lib << " has no DWARF";
  std::optional<GilLayout> table = table_layout(minor);
  ASSERT_TRUE(table) << "no table entry for 3." << minor;
  expect_same(*table, from_dwarf(d, minor), lib);
}

INSTANTIATE_TEST_SUITE_P(Pyenv, TableAgainstDwarf, ::testing::Values(8, 9, 10, 11, 12),
                         [](const auto& info) { return "Python3" + std::to_string(info.param); });

// 3.13's layout comes from the _Py_DebugOffsets at the start of _PyRuntime: the file's initial
// _PyRuntime bytes (.data) read by debug_offsets_layout must give what the DWARF says.
TEST(DebugOffsets, Python313MatchesDwarf) {
  std::string lib = pyenv_libpython(13);
  if (lib.empty()) GTEST_SKIP() << "Python 3.13 is not installed under /root/.pyenv/versions";
  elf::Result<elf::ElfFile> file = elf::ElfFile::open(lib);
  ASSERT_TRUE(file) << file.error();
  std::optional<uint64_t> at;
  for (const elf::Symbol& s : file->symbols())
    if (s.defined && elf::strip_version(s.name) == "_PyRuntime") at = file->vaddr_to_offset(s.value);
  ASSERT_TRUE(at) << "no _PyRuntime in " << lib;
  std::vector<uint8_t> bytes(kDebugOffsetsBytes);
  ASSERT_EQ(file->read_bytes(*at, bytes), bytes.size());
  std::string why;
  std::optional<GilLayout> layout = debug_offsets_layout(bytes, &why);
  ASSERT_TRUE(layout) << why;
  Dwarf d(lib);
  ASSERT_TRUE(d.ok());
  expect_same(*layout, from_dwarf(d, 13), lib);
}

// The frame walk's and the code object's offsets (frame_layout.cpp) against the same DWARF.
FrameLayout frames_from_dwarf(Dwarf& d, int minor) {
  auto at = [&](const char* type, const char* path) {
    return static_cast<uint32_t>(d.offset_of(type, path).value_or(0));
  };
  FrameLayout l;
  l.minor = minor;
  l.tss_key = at("pyruntimestate", minor <= 11 ? "gilstate.autoTSSkey._key" : "autoTSSkey._key");
  CodeLayout& c = l.code;
  c.filename = at("PyCodeObject", "co_filename");
  c.name = at("PyCodeObject", "co_name");
  c.firstlineno = at("PyCodeObject", "co_firstlineno");
  if (minor <= 10) {
    l.tstate_frame = at("_ts", "frame");
    l.frame_back = at("_frame", "f_back");
    l.frame_code = at("_frame", "f_code");
    l.frame_instr = at("_frame", "f_lasti");
    c.linetable = at("PyCodeObject", minor == 10 ? "co_linetable" : "co_lnotab");
    return l;
  }
  c.qualname = at("PyCodeObject", "co_qualname");
  c.linetable = at("PyCodeObject", "co_linetable");
  c.code_adaptive = at("PyCodeObject", "co_code_adaptive");
  l.tstate_frame = at("_ts", minor == 13 ? "current_frame" : "cframe");
  if (minor < 13) l.cframe_frame = at("_PyCFrame", "current_frame");
  l.frame_code = at("_PyInterpreterFrame", minor == 13 ? "f_executable" : "f_code");
  l.frame_back = at("_PyInterpreterFrame", "previous");
  l.frame_instr = at("_PyInterpreterFrame", minor == 13 ? "instr_ptr" : "prev_instr");
  l.frame_owner = at("_PyInterpreterFrame", "owner");
  if (minor == 11) l.frame_entry = at("_PyInterpreterFrame", "is_entry");
  return l;
}

void expect_same_frames(const FrameLayout& got, const FrameLayout& want, const std::string& lib) {
  EXPECT_EQ(got.tss_key, want.tss_key) << lib;
  EXPECT_EQ(got.tstate_frame, want.tstate_frame) << lib;
  EXPECT_EQ(got.cframe_frame, want.cframe_frame) << lib;
  EXPECT_EQ(got.frame_back, want.frame_back) << lib;
  EXPECT_EQ(got.frame_code, want.frame_code) << lib;
  EXPECT_EQ(got.frame_instr, want.frame_instr) << lib;
  EXPECT_EQ(got.frame_owner, want.frame_owner) << lib;
  EXPECT_EQ(got.frame_entry, want.frame_entry) << lib;
  EXPECT_EQ(got.code.filename, want.code.filename) << lib;
  EXPECT_EQ(got.code.name, want.code.name) << lib;
  EXPECT_EQ(got.code.qualname, want.code.qualname) << lib;
  EXPECT_EQ(got.code.firstlineno, want.code.firstlineno) << lib;
  EXPECT_EQ(got.code.linetable, want.code.linetable) << lib;
  EXPECT_EQ(got.code.code_adaptive, want.code.code_adaptive) << lib;
  EXPECT_NE(want.tss_key, 0u) << "DWARF of " << lib << " has no autoTSSkey";
  EXPECT_NE(want.frame_back, 0u) << "DWARF of " << lib << " has no frame chain";
  // Every field the kernel reads lies in the bytes it reads of a frame.
  for (uint32_t off : {got.frame_back, got.frame_code, got.frame_instr, got.frame_owner})
    EXPECT_LE((off & ~7u) + 8, got.frame_read) << lib;
}

class FramesAgainstDwarf : public ::testing::TestWithParam<int> {};

TEST_P(FramesAgainstDwarf, OffsetsAreTheCompilers) {
  int minor = GetParam();
  std::string lib = pyenv_libpython(minor);
  if (lib.empty()) GTEST_SKIP() << "Python 3." << minor << " is not installed under /root/.pyenv/versions";
  Dwarf d(lib);
  ASSERT_TRUE(d.ok()) << lib << " has no DWARF";
  std::optional<FrameLayout> table = frame_table_layout(minor);
  ASSERT_TRUE(table) << "no frame table entry for 3." << minor;
  expect_same_frames(*table, frames_from_dwarf(d, minor), lib);
}

INSTANTIATE_TEST_SUITE_P(Pyenv, FramesAgainstDwarf, ::testing::Values(8, 9, 10, 11, 12),
                         [](const auto& info) { return "Python3" + std::to_string(info.param); });

// 3.13's frame and code offsets come from its _Py_DebugOffsets; its TSS key from the table.
TEST(DebugOffsets, Python313FramesMatchDwarf) {
  std::string lib = pyenv_libpython(13);
  if (lib.empty()) GTEST_SKIP() << "Python 3.13 is not installed under /root/.pyenv/versions";
  elf::Result<elf::ElfFile> file = elf::ElfFile::open(lib);
  ASSERT_TRUE(file) << file.error();
  std::optional<uint64_t> at;
  for (const elf::Symbol& s : file->symbols())
    if (s.defined && elf::strip_version(s.name) == "_PyRuntime") at = file->vaddr_to_offset(s.value);
  ASSERT_TRUE(at) << "no _PyRuntime in " << lib;
  std::vector<uint8_t> bytes(kDebugOffsetsFrameBytes);
  ASSERT_EQ(file->read_bytes(*at, bytes), bytes.size());
  std::string why;
  std::optional<FrameLayout> layout = debug_offsets_frame_layout(bytes, &why);
  ASSERT_TRUE(layout) << why;
  Dwarf d(lib);
  ASSERT_TRUE(d.ok());
  expect_same_frames(*layout, frames_from_dwarf(d, 13), lib);
}

TEST(FrameLayout, NoTableEntryOutside38To312) {
  EXPECT_FALSE(frame_table_layout(7));
  EXPECT_FALSE(frame_table_layout(13));  // from its debug offsets
  EXPECT_FALSE(frame_table_layout(14));
  std::vector<uint8_t> zeros(kDebugOffsetsFrameBytes, 0);
  std::string why;
  EXPECT_FALSE(debug_offsets_frame_layout(zeros, &why));
  EXPECT_EQ(why, "its debug offsets leave the frame's or the code object's fields at 0");
}

TEST(DebugOffsets, RefusesWhatItCannotRead) {
  std::vector<uint8_t> bytes(kDebugOffsetsBytes, 0);
  std::string why;
  EXPECT_FALSE(debug_offsets_layout(bytes, &why));
  EXPECT_EQ(why, "its _PyRuntime does not start with the debug offsets' cookie \"xdebugpy\"");
  std::copy(kDebugCookie, kDebugCookie + 8, bytes.begin());
  uint64_t v314 = 0x030e00f0;  // 3.14.0 final
  std::memcpy(bytes.data() + 8, &v314, 8);
  EXPECT_FALSE(debug_offsets_layout(bytes, &why));
  EXPECT_EQ(why,
            "its debug offsets are those of CPython 3.14, whose layout seam does not know (it reads 3.13's)");
  uint64_t v313 = 0x030d00f0, free_threaded = 1;
  std::memcpy(bytes.data() + 8, &v313, 8);
  std::memcpy(bytes.data() + 16, &free_threaded, 8);
  EXPECT_FALSE(debug_offsets_layout(bytes, &why));
  EXPECT_EQ(why, "it is a free-threaded build (no GIL to hold)");
  std::memcpy(bytes.data() + 8, &v314, 8);  // a free-threaded 3.14 is named as free-threaded
  EXPECT_FALSE(debug_offsets_layout(bytes, &why));
  EXPECT_EQ(why, "it is a free-threaded build (no GIL to hold)");
}

TEST(InterpreterFinder, MinorFromFileName) {
  EXPECT_EQ(minor_from_name("/root/.pyenv/versions/3.9.18/lib/libpython3.9.so.1.0"), 9);
  EXPECT_EQ(minor_from_name("/usr/bin/python3.11"), 11);
  EXPECT_EQ(minor_from_name("/usr/lib/libpython3.10d.so"), 10);
  EXPECT_EQ(minor_from_name("/usr/bin/python3"), 0);
  EXPECT_EQ(minor_from_name("/opt/python3.12/bin/ruby"), 0);
}

TEST(InterpreterFinder, ReadsVersionAndRuntimeOfARunningPythonLibrary) {
  // This test process maps no libpython: a clear reason, not an address.
  elf::Result<Interpreter> none = find_interpreter(getpid(), {});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error(), "no interpreter file could be read");
}

}  // namespace
}  // namespace seam::runtime::python
