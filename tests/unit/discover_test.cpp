// Library discovery against real child processes: a dlopen()ed fixture, a library seen only
// through another root (chroot), inode deduplication, the Rescanner, executables, system paths.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "fixtures/child_process.hpp"
#include "runtime/discover/find_libraries.hpp"
#include "runtime/discover/ld_cache.hpp"
#include "runtime/discover/library_scanner.hpp"
#include "runtime/discover/rescanner.hpp"
#include "support/test_support.hpp"

namespace seam::runtime::discover {
namespace {

using namespace std::chrono_literals;
using test::ChildProcess;

const std::string kFakeCudart = std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12";
const std::vector<plan::LibraryPattern> kCudart = {{false, "libcudart.so*"}};

ChildProcess child_dlopening(const std::string& path) {
  return ChildProcess::run([path] { return dlopen(path.c_str(), RTLD_NOW) != nullptr; });
}

// The child chroots into `root` and then dlopens a path inside it.
ChildProcess child_in_chroot(const std::string& root, const std::string& inner_path) {
  return ChildProcess::run([root, inner_path] {
    return chroot(root.c_str()) == 0 && chdir("/") == 0 && dlopen(inner_path.c_str(), RTLD_NOW) != nullptr;
  });
}

void wait_ready(ChildProcess& child) {
  ASSERT_TRUE(test::wait_until([&] { return child.ready(); }, 10s));
  ASSERT_TRUE(child.succeeded()) << "the child could not load its library";
}

struct stat stat_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st;
}

const LibraryFile* with_inode(const std::vector<LibraryFile>& files, const struct stat& st) {
  for (const LibraryFile& f : files) {
    if (f.dev == st.st_dev && f.ino == st.st_ino) return &f;
  }
  return nullptr;
}

bool has_pid(const LibraryFile& f, pid_t pid) {
  return std::find(f.pids.begin(), f.pids.end(), pid) != f.pids.end();
}

// A root folder with a copy of the fixture at usr/lib/libcudart.so.12 (a new inode).
std::string make_root(const test::TempDir& dir) {
  std::filesystem::create_directories(dir.path() + "/root/usr/lib");
  std::string copy = dir.path() + "/root/usr/lib/libcudart.so.12";
  std::filesystem::copy_file(kFakeCudart, copy);
  return dir.path() + "/root";
}

TEST(FindLibraries, FindsALibraryAChildDlopened) {
  ChildProcess child = child_dlopening(kFakeCudart);
  wait_ready(child);
  std::vector<LibraryFile> files = find_libraries(kCudart, Scope{child.pid(), false});
  ASSERT_EQ(files.size(), 1u);
  struct stat st = stat_of(kFakeCudart);
  EXPECT_EQ(files[0].dev, st.st_dev);
  EXPECT_EQ(files[0].ino, st.st_ino);
  EXPECT_EQ(files[0].pids, std::vector<pid_t>{child.pid()});
  // Same root as ours: the plain path, which outlives the process.
  EXPECT_EQ(stat_of(files[0].path_for_attach).st_ino, st.st_ino);
  EXPECT_EQ(files[0].path_for_attach.rfind("/proc/", 0), std::string::npos) << files[0].path_for_attach;
  EXPECT_EQ(std::filesystem::path(files[0].display_path).filename(), "libcudart.so.12");

  // The whole-system scan finds it too, with this child among its pids.
  std::vector<LibraryFile> all = find_libraries(kCudart, Scope{});
  const LibraryFile* found = with_inode(all, st);
  ASSERT_NE(found, nullptr);
  EXPECT_TRUE(has_pid(*found, child.pid()));
}

// Issue 13, item 11: a library mapped from a file deleted since, or from a path /proc/PID/maps
// cannot print (a newline), is found through /proc/PID/map_files, which opens the mapped inode.
TEST(FindLibraries, ADeletedOrOddlyNamedLibraryIsFoundThroughMapFiles) {
  if (geteuid() != 0) GTEST_SKIP() << "/proc/PID/map_files needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE";
  test::TempDir dir;
  std::string deleted = dir.path() + "/libcudart.so.12";
  std::string odd = dir.path() + "/odd\ndir/libcudart.so.13";  // maps shows the newline as \012
  std::filesystem::create_directories(dir.path() + "/odd\ndir");
  std::filesystem::copy_file(kFakeCudart, deleted);
  std::filesystem::copy_file(kFakeCudart, odd);
  struct stat deleted_st = stat_of(deleted), odd_st = stat_of(odd);
  ChildProcess child = ChildProcess::run([deleted, odd] {
    return dlopen(deleted.c_str(), RTLD_NOW) != nullptr && dlopen(odd.c_str(), RTLD_NOW) != nullptr;
  });
  wait_ready(child);
  ASSERT_EQ(::unlink(deleted.c_str()), 0);
  std::vector<LibraryFile> files = find_libraries(kCudart, Scope{child.pid(), false});
  const LibraryFile* gone = with_inode(files, deleted_st);
  ASSERT_NE(gone, nullptr);
  std::string map_files = "/proc/" + std::to_string(child.pid()) + "/map_files/";
  EXPECT_EQ(gone->path_for_attach.rfind(map_files, 0), 0u) << gone->path_for_attach;
  EXPECT_EQ(gone->display_path, deleted + " (deleted)");
  EXPECT_EQ(test::read_file(gone->path_for_attach).substr(0, 4),
            "\x7f"
            "ELF");
  const LibraryFile* strange = with_inode(files, odd_st);
  ASSERT_NE(strange, nullptr);
  EXPECT_EQ(strange->path_for_attach.rfind(map_files, 0), 0u) << strange->path_for_attach;
}

// A library loaded from a memfd, or from a deleted file, under a name no pattern matches: its
// SONAME says what it is, read through /proc/PID/map_files.
TEST(FindLibraries, AMemfdOrDeletedLibraryWithAnotherNameIsFoundByItsSoname) {
  if (geteuid() != 0) GTEST_SKIP() << "/proc/PID/map_files needs CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE";
  test::TempDir dir;
  std::string renamed = dir.path() + "/blob.bin";
  std::filesystem::copy_file(kFakeCudart, renamed);
  struct stat renamed_st = stat_of(renamed);
  std::string contents = test::read_file(kFakeCudart);
  ChildProcess child = ChildProcess::run([contents, renamed] {
    int fd = memfd_create("weights", 0);
    if (fd < 0 || write(fd, contents.data(), contents.size()) != static_cast<ssize_t>(contents.size()))
      return false;
    std::string via = "/proc/self/fd/" + std::to_string(fd);
    return dlopen(via.c_str(), RTLD_NOW) != nullptr && dlopen(renamed.c_str(), RTLD_NOW) != nullptr;
  });
  wait_ready(child);
  ASSERT_EQ(::unlink(renamed.c_str()), 0);
  std::vector<LibraryFile> files = find_libraries(kCudart, Scope{child.pid(), false});
  const LibraryFile* memfd = nullptr;
  for (const LibraryFile& f : files)
    if (f.display_path == "/memfd:weights (deleted)") memfd = &f;
  ASSERT_NE(memfd, nullptr) << files.size() << " files found";
  EXPECT_EQ(test::read_file(memfd->path_for_attach), contents);
  const LibraryFile* deleted = with_inode(files, renamed_st);
  ASSERT_NE(deleted, nullptr);
  EXPECT_EQ(deleted->display_path, renamed + " (deleted)");
  // Another library's SONAME does not match.
  EXPECT_TRUE(find_libraries({{false, "libnccl.so*"}}, Scope{child.pid(), false}).empty());
}

// What the dynamic loader names for a process that has exited already: a whole absolute path
// to an ELF file is found; a cut path, a descriptor's name or a missing file are not. Every
// wanted name is left for the next process (not done: in a container the path may name another
// file); names no pattern wants are done.
TEST(LibraryScanner, LoadedNamesOfAGoneProcessResolveByPath) {
  test::TempDir dir;
  std::string copy = dir.path() + "/new/libcudart.so.12";
  std::filesystem::create_directories(dir.path() + "/new");
  std::filesystem::copy_file(kFakeCudart, copy);
  pid_t gone = 0;
  {
    ChildProcess child = child_dlopening(kFakeCudart);
    wait_ready(child);
    gone = child.pid();
  }  // reaped: its /proc entries are gone
  LibraryScanner scanner(kCudart);
  std::string missing = dir.path() + "/none/libcudart.so.12";
  std::vector<LoadedName> names = {{copy, false},    {"/usr/lib/x86_64-linux-gnu/libc.so.6", false},
                                   {copy, true},     {"/proc/self/fd/3", false},
                                   {missing, false}, {"libcudart.so.12", false}};
  LibrarySet out;
  std::vector<bool> done = scanner.scan_loaded(gone, names, out);
  EXPECT_EQ(done, (std::vector<bool>{false, true, false, false, false, false}));
  ASSERT_EQ(out.files().size(), 1u);
  EXPECT_EQ(out.files()[0].path_for_attach, copy);
  EXPECT_EQ(out.files()[0].ino, stat_of(copy).st_ino);
  EXPECT_EQ(out.files()[0].pids, std::vector<pid_t>{gone});
}

// An exited process not yet reaped (a zombie) still has its /proc entry, but its maps read
// empty: the named file is taken by path and the name is not done. (Taking the empty maps for a
// look at the process once marked the library seen, and no later process was looked at.)
TEST(LibraryScanner, AZombiesLoadedNamesAreTakenByPathAndNotDone) {
  test::TempDir dir;
  std::string copy = dir.path() + "/libcudart.so.12";
  std::filesystem::copy_file(kFakeCudart, copy);
  pid_t pid = fork();
  if (pid == 0) _exit(dlopen(copy.c_str(), RTLD_NOW) ? 0 : 1);
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(test::wait_until(
      [&] {
        std::string stat = test::read_file("/proc/" + std::to_string(pid) + "/stat");
        size_t paren = stat.rfind(')');
        return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z';
      },
      10s));
  LibraryScanner scanner(kCudart);
  LibrarySet out;
  EXPECT_EQ(scanner.scan_loaded(pid, {{copy, false}}, out), std::vector<bool>{false});
  ASSERT_EQ(out.files().size(), 1u);
  EXPECT_EQ(out.files()[0].path_for_attach, copy);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

// A process still running is looked at through its maps, whatever the names say.
TEST(LibraryScanner, LoadedNamesOfARunningProcessAreItsMappings) {
  test::TempDir dir;
  std::string copy = dir.path() + "/libcudart.so.12";
  std::filesystem::copy_file(kFakeCudart, copy);
  ChildProcess child = child_dlopening(copy);
  wait_ready(child);
  LibraryScanner scanner(kCudart);
  LibrarySet out;
  std::vector<bool> done = scanner.scan_loaded(child.pid(), {{"/proc/self/fd/7", false}}, out);
  EXPECT_EQ(done, std::vector<bool>{false}) << "a descriptor's name is never marked seen";
  ASSERT_EQ(out.files().size(), 1u);
  EXPECT_EQ(out.files()[0].ino, stat_of(copy).st_ino);
  // Its own path, seen in its maps: done.
  LibrarySet again;
  EXPECT_EQ(scanner.scan_loaded(child.pid(), {{copy, false}}, again), std::vector<bool>{true});
  // Nothing wanted: the process is not even looked at.
  LibrarySet none;
  EXPECT_EQ(scanner.scan_loaded(child.pid(), {{"/lib/libc.so.6", false}}, none), std::vector<bool>{true});
  EXPECT_TRUE(none.files().empty());
}

TEST(FindLibraries, PatternThatMatchesNothingFindsNothing) {
  ChildProcess child = child_dlopening(kFakeCudart);
  wait_ready(child);
  EXPECT_TRUE(find_libraries({{false, "libnccl.so*"}}, Scope{child.pid(), false}).empty());
  EXPECT_TRUE(find_libraries({{true, "libcudart.so*"}}, Scope{child.pid(), false}).empty())
      << "an executable pattern does not match libraries";
}

TEST(FindLibraries, LibraryInsideAnotherRootGoesThroughProcRoot) {
  if (!test::is_root()) {
    if (test::in_ci()) FAIL() << "chroot needs root under CI=true";
    GTEST_SKIP() << "chroot needs root";
  }
  test::TempDir dir;
  std::string root = make_root(dir);
  ChildProcess jailed = child_in_chroot(root, "/usr/lib/libcudart.so.12");
  wait_ready(jailed);
  std::vector<LibraryFile> files = find_libraries(kCudart, Scope{jailed.pid(), false});
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].display_path, "/usr/lib/libcudart.so.12");
  EXPECT_EQ(files[0].path_for_attach,
            "/proc/" + std::to_string(jailed.pid()) + "/root/usr/lib/libcudart.so.12");
  struct stat copy = stat_of(root + "/usr/lib/libcudart.so.12");
  EXPECT_EQ(files[0].ino, copy.st_ino);
  EXPECT_NE(files[0].ino, stat_of(kFakeCudart).st_ino);

  // A second process maps the same copy by its full host path: one file, both pids.
  ChildProcess outside = child_dlopening(root + "/usr/lib/libcudart.so.12");
  wait_ready(outside);
  std::vector<LibraryFile> all = find_libraries(kCudart, Scope{});
  const LibraryFile* shared = with_inode(all, copy);
  ASSERT_NE(shared, nullptr);
  EXPECT_TRUE(has_pid(*shared, jailed.pid()));
  EXPECT_TRUE(has_pid(*shared, outside.pid()));
  size_t with_copy_inode = std::count_if(all.begin(), all.end(), [&](const LibraryFile& f) {
    return f.dev == copy.st_dev && f.ino == copy.st_ino;
  });
  EXPECT_EQ(with_copy_inode, 1u);
}

TEST(FindLibraries, LibraryInAnotherMountNamespaceGoesThroughProcRoot) {
  if (!test::is_root()) {
    if (test::in_ci()) FAIL() << "mount namespaces need root under CI=true";
    GTEST_SKIP() << "mount namespaces need root";
  }
  // Like a container: the child mounts a tmpfs that only its mount namespace sees, puts the
  // library there and loads it. From here the folder is empty.
  test::TempDir dir;
  std::string folder = dir.path() + "/private";
  std::filesystem::create_directories(folder);
  std::string inner = folder + "/libcudart.so.12";
  ChildProcess child = ChildProcess::run([&] {
    std::error_code ec;
    return unshare(CLONE_NEWNS) == 0 && mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0 &&
           mount("tmpfs", folder.c_str(), "tmpfs", 0, nullptr) == 0 &&
           std::filesystem::copy_file(kFakeCudart, inner, ec) && dlopen(inner.c_str(), RTLD_NOW) != nullptr;
  });
  wait_ready(child);
  ASSERT_FALSE(std::filesystem::exists(inner)) << "the tmpfs is private to the child";
  std::vector<LibraryFile> files = find_libraries(kCudart, Scope{child.pid(), false});
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].display_path, inner);
  EXPECT_EQ(files[0].path_for_attach, "/proc/" + std::to_string(child.pid()) + "/root" + inner);
  struct stat st = stat_of(files[0].path_for_attach);
  EXPECT_EQ(files[0].ino, st.st_ino);
  EXPECT_EQ(test::read_file(files[0].path_for_attach).substr(0, 4),
            "\x7f"
            "ELF");
}

TEST(Rescanner, ReportsEachLibraryOnce) {
  test::TempDir dir;
  std::string root = make_root(dir);
  std::string copy = root + "/usr/lib/libcudart.so.12";
  // Both files exist before the first scan: it reports what other processes map now (other tests'
  // copies, deleted when they end), and a file created after it could get one of those inode
  // numbers back, which this Rescanner has then seen (it failed so under ctest -j2).
  std::string other = dir.path() + "/other/libcudart.so.12";
  std::filesystem::create_directories(dir.path() + "/other");
  std::filesystem::copy_file(kFakeCudart, other);
  Rescanner rescanner(kCudart, Scope{});
  rescanner.scan();  // whatever other processes map is reported now, not later

  ChildProcess first = child_dlopening(copy);
  wait_ready(first);
  std::vector<LibraryFile> fresh = rescanner.scan();
  struct stat st = stat_of(copy);
  ASSERT_NE(with_inode(fresh, st), nullptr);
  EXPECT_EQ(with_inode(rescanner.scan(), st), nullptr) << "reported again";

  ChildProcess second = child_dlopening(copy);
  wait_ready(second);
  EXPECT_TRUE(rescanner.scan_pid(second.pid()).empty()) << "same inode, another process";
  EXPECT_EQ(with_inode(rescanner.scan(), st), nullptr);

  // A different inode in a new process is news.
  ChildProcess third = child_dlopening(other);
  wait_ready(third);
  std::vector<LibraryFile> news = rescanner.scan_pid(third.pid());
  ASSERT_EQ(news.size(), 1u);
  EXPECT_EQ(news[0].ino, stat_of(other).st_ino);
  EXPECT_EQ(news[0].pids, std::vector<pid_t>{third.pid()});
}

TEST(Rescanner, PidScopeIgnoresOtherProcesses) {
  ChildProcess watched = child_dlopening(kFakeCudart);
  ChildProcess other = child_dlopening(kFakeCudart);
  wait_ready(watched);
  wait_ready(other);
  Rescanner rescanner(kCudart, Scope{watched.pid(), false});
  EXPECT_TRUE(rescanner.scan_pid(other.pid()).empty());
  std::vector<LibraryFile> found = rescanner.scan();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].pids, std::vector<pid_t>{watched.pid()});
}

TEST(FindLibraries, ExecutablePatternMatchesPython) {
  const std::string python = "/root/.pyenv/versions/3.11.7/bin/python3.11";
  struct stat st;
  if (::stat(python.c_str(), &st) != 0) GTEST_SKIP() << python << " is not installed";
  ChildProcess child = ChildProcess::exec({python, "-c", "import sys; sys.stdin.read()"});
  std::vector<LibraryFile> files;
  ASSERT_TRUE(test::wait_until(
      [&] {
        files = find_libraries({{true, "python3*"}}, Scope{child.pid(), false});
        return !files.empty();
      },
      10s));
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].ino, st.st_ino);
  EXPECT_EQ(files[0].display_path, python);
  EXPECT_EQ(files[0].pids, std::vector<pid_t>{child.pid()});
}

TEST(LdCache, ParsesTheSystemCacheLikeLdconfig) {
  std::vector<std::string> paths = read_ld_cache();
  if (paths.empty() && !std::filesystem::exists("/etc/ld.so.cache")) GTEST_SKIP() << "no /etc/ld.so.cache";
  test::CommandResult ldconfig = test::run_command({"ldconfig", "-p"});
  if (ldconfig.exit_code != 0) GTEST_SKIP() << "no ldconfig to compare with";
  // Every "=> /path" ldconfig prints is in our list.
  size_t checked = 0;
  for (size_t at = ldconfig.out.find("=> "); at != std::string::npos; at = ldconfig.out.find("=> ", at + 3)) {
    size_t end = ldconfig.out.find('\n', at);
    std::string path = ldconfig.out.substr(at + 3, end - at - 3);
    EXPECT_NE(std::find(paths.begin(), paths.end(), path), paths.end()) << path;
    ++checked;
  }
  EXPECT_GT(checked, 0u);
  EXPECT_EQ(paths.size(), checked);
}

TEST(LdCache, RejectsBytesThatAreNotACache) {
  EXPECT_TRUE(parse_ld_cache("").empty());
  EXPECT_TRUE(parse_ld_cache("glibc-ld.so.cache1.1").empty()) << "truncated header";
  std::string header = "glibc-ld.so.cache1.1";
  header.resize(48, '\0');
  header[20] = 100;  // 100 entries that are not there
  EXPECT_TRUE(parse_ld_cache(header).empty());
}

TEST(FindLibraries, SystemPathsFindInstalledLibraries) {
  // libc is on every system's library path, mapped or not.
  std::vector<LibraryFile> files = find_libraries({{false, "libc.so.6"}}, Scope{getpid(), true});
  ASSERT_FALSE(files.empty());
  for (const LibraryFile& f : files) {
    EXPECT_EQ(std::filesystem::path(f.display_path).filename(), "libc.so.6");
  }
  // Our own process maps libc: that entry has our pid; files reached only on disk have none.
  bool ours =
      std::any_of(files.begin(), files.end(), [](const LibraryFile& f) { return has_pid(f, getpid()); });
  EXPECT_TRUE(ours);
}

TEST(FindLibraries, SystemPathsSkipFilesThatAreNotElf) {
  // Next to libc.so.6 lie libc.so (a linker script) and libc.a (an archive) when the dev
  // package is installed; only ELF objects can carry uprobes.
  std::vector<LibraryFile> files = find_libraries({{false, "libc.*"}}, Scope{getpid(), true});
  ASSERT_FALSE(files.empty());
  for (const LibraryFile& f : files) {
    std::string head = test::read_file(f.path_for_attach).substr(0, 4);
    EXPECT_EQ(head,
              "\x7f"
              "ELF")
        << f.path_for_attach;
  }
}

}  // namespace
}  // namespace seam::runtime::discover
