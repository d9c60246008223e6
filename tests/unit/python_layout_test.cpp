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
