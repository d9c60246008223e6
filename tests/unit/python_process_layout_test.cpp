// What seam refuses to read, told from the interpreter file itself: a free-threaded build (its
// name's `t` ABI suffix, or a symbol only Py_GIL_DISABLED builds define) and a version it has no
// layout for. The fixtures (tests/fixtures/fake_libpython.c) are loaded into this test process,
// which process_layout then reads as it reads a Python process: the refusal names the version and
// the file, and no layout is returned.
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

#include "runtime/python/free_threaded.hpp"
#include "runtime/python/process_layout.hpp"

namespace seam::runtime::python {
namespace {

TEST(FreeThreaded, TheAbiSuffixInTheFileName) {
  EXPECT_TRUE(free_threaded_name("/usr/lib/x86_64-linux-gnu/libpython3.13t.so.1.0"));
  EXPECT_TRUE(free_threaded_name("libpython3.13t.so"));
  EXPECT_TRUE(free_threaded_name("/usr/bin/python3.13t"));
  EXPECT_TRUE(free_threaded_name("/usr/lib/libpython3.14td.so.1.0"));  // a debug build of one
  EXPECT_FALSE(free_threaded_name("/usr/lib/libpython3.13.so.1.0"));
  EXPECT_FALSE(free_threaded_name("/usr/bin/python3.11"));
  EXPECT_FALSE(free_threaded_name("/usr/bin/python3.13-config"));
  EXPECT_FALSE(free_threaded_name("/opt/python3.13t/bin/python3.13"));  // the folder says nothing
  EXPECT_FALSE(free_threaded_name("/usr/bin/python3.13tools"));
}

TEST(FreeThreaded, TheSymbolsOnlyGilDisabledBuildsDefine) {
  EXPECT_TRUE(free_threaded_symbol("_Py_MergeZeroLocalRefcount"));
  EXPECT_TRUE(free_threaded_symbol("_Py_DecRefShared"));
  EXPECT_FALSE(free_threaded_symbol("_Py_Dealloc"));
  EXPECT_FALSE(free_threaded_symbol("_PyRuntime"));
}

// The fixture library in fixtures/DIR, loaded into this process, as discovery would list it.
discover::LibraryFile loaded(const std::string& dir, const std::string& name) {
  std::string path = std::string(SEAM_FIXTURE_DIR) + "/" + dir + "/" + name;
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(handle, nullptr) << dlerror();
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  discover::LibraryFile f;
  f.path_for_attach = path;
  f.display_path = path;
  f.dev = st.st_dev;
  f.ino = st.st_ino;
  f.pids = {getpid()};
  return f;
}

TEST(ProcessLayout, AFreeThreadedBuildIsNamedByItsSuffix) {
  discover::LibraryFile f = loaded("ft", "libpython3.13t.so.1.0");
  elf::Result<ProcessLayout> layout = process_layout(getpid(), {f});
  ASSERT_FALSE(layout);
  EXPECT_EQ(layout.error(),
            "runs CPython 3.13t (" + f.display_path +
                "), which seam cannot read: it is a free-threaded build (its name carries the "
                "free-threaded ABI suffix 't'), whose frames and thread states seam does not "
                "read, and which has no GIL to hold");
}

TEST(ProcessLayout, AFreeThreadedBuildIsNamedByItsSymbolsUnderAnyName) {
  discover::LibraryFile f = loaded("ft-marker", "libpython3.13.so.1.0");
  elf::Result<ProcessLayout> layout = process_layout(getpid(), {f});
  ASSERT_FALSE(layout);
  EXPECT_EQ(layout.error(),
            "runs CPython 3.13t (" + f.display_path +
                "), which seam cannot read: it is a free-threaded build (it defines "
                "_Py_MergeZeroLocalRefcount, which only free-threaded builds have), whose frames "
                "and thread states seam does not read, and which has no GIL to hold");
}

TEST(ProcessLayout, AVersionWithoutALayoutIsNamed) {
  discover::LibraryFile f = loaded("py314", "libpython3.14.so.1.0");
  elf::Result<ProcessLayout> layout = process_layout(getpid(), {f});
  ASSERT_FALSE(layout);
  EXPECT_EQ(layout.error(),
            "runs CPython 3.14 (" + f.display_path +
                "), which seam cannot read: its debug offsets are those of CPython 3.14, whose "
                "layout seam does not know (it reads 3.13's)");
}

TEST(ProcessLayout, NoInterpreterFileSaysSo) {
  elf::Result<ProcessLayout> layout = process_layout(getpid(), {});
  ASSERT_FALSE(layout);
  EXPECT_EQ(layout.error(), "runs no interpreter seam can read (no interpreter file could be read)");
}

}  // namespace
}  // namespace seam::runtime::python
