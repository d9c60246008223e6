// The hand-written /proc/PID/maps parser: every field, anonymous and deleted mappings, bad lines.
#include <gtest/gtest.h>

#include <unistd.h>

#include <vector>

#include "runtime/elf/proc_maps.hpp"
#include "runtime/elf/proc_maps_round.hpp"

namespace seam::runtime::elf {
namespace {

TEST(ProcMaps, ParsesAFileMapping) {
  MapsEntry e;
  ASSERT_TRUE(parse_maps_line(
      "7f12a000-7f12c000 r-xp 00001000 fe:01 337903                     /usr/lib/libcudart.so.12", e));
  EXPECT_EQ(e.start, 0x7f12a000u);
  EXPECT_EQ(e.end, 0x7f12c000u);
  EXPECT_TRUE(e.readable);
  EXPECT_FALSE(e.writable);
  EXPECT_TRUE(e.executable);
  EXPECT_EQ(e.offset, 0x1000u);
  EXPECT_EQ(e.dev_major, 0xfeu);
  EXPECT_EQ(e.dev_minor, 1u);
  EXPECT_EQ(e.inode, 337903u);
  EXPECT_EQ(e.path, "/usr/lib/libcudart.so.12");
  EXPECT_FALSE(e.deleted);
  EXPECT_TRUE(e.is_file());
}

TEST(ProcMaps, AnonymousAndSpecialMappingsAreNotFiles) {
  MapsEntry e;
  ASSERT_TRUE(parse_maps_line("7f0d47fb3000-7f0d47fb4000 rw-p 00000000 00:00 0 ", e));
  EXPECT_EQ(e.path, "");
  EXPECT_FALSE(e.is_file());
  ASSERT_TRUE(parse_maps_line("7ffd1000-7ffd3000 r-xp 00000000 00:00 0                  [vdso]", e));
  EXPECT_EQ(e.path, "[vdso]");
  EXPECT_TRUE(e.executable);
  EXPECT_FALSE(e.is_file());
}

TEST(ProcMaps, DeletedFileIsMarkedAndItsSuffixStripped) {
  MapsEntry e;
  ASSERT_TRUE(parse_maps_line("1000-2000 r-xp 00000000 08:02 42 /tmp/lib with space.so (deleted)", e));
  EXPECT_TRUE(e.deleted);
  EXPECT_EQ(e.path, "/tmp/lib with space.so");
  EXPECT_FALSE(e.is_file());
}

TEST(ProcMaps, RejectsMalformedLines) {
  MapsEntry e;
  EXPECT_FALSE(parse_maps_line("", e));
  EXPECT_FALSE(parse_maps_line("garbage", e));
  EXPECT_FALSE(parse_maps_line("1000-2000 r-xp", e));
  EXPECT_FALSE(parse_maps_line("1000-2000 r-xp 00000000 08:02 x /lib.so", e));
}

TEST(ProcMaps, ReadsOwnMapsAndFindsOwnExecutableCode) {
  std::string buf;
  ASSERT_TRUE(read_whole_file(proc_path(getpid(), "maps").c_str(), buf));
  auto here = reinterpret_cast<uint64_t>(&parse_maps_line);
  int lines = 0, covering = 0;
  for_each_mapping(buf, [&](const MapsEntry& e) {
    ++lines;
    if (here >= e.start && here < e.end) {
      ++covering;
      EXPECT_TRUE(e.executable);
      EXPECT_TRUE(e.is_file());
    }
  });
  EXPECT_GT(lines, 5);
  EXPECT_EQ(covering, 1);
  // The executable-only walk sees exactly the executable lines.
  std::vector<uint64_t> all_exec, exec_only;
  for_each_mapping(buf, [&](const MapsEntry& e) {
    if (e.executable) all_exec.push_back(e.start);
  });
  for_each_executable_mapping(buf, [&](const MapsEntry& e) { exec_only.push_back(e.start); });
  EXPECT_FALSE(exec_only.empty());
  EXPECT_EQ(exec_only, all_exec);
  std::string storage;
  std::optional<std::string_view> view = read_file_view("/proc/self/cmdline", storage);
  ASSERT_TRUE(view);
  EXPECT_GE(storage.size(), view->size()) << "storage keeps its room";
  EXPECT_FALSE(read_whole_file("/proc/0/maps", buf));
  EXPECT_EQ(proc_path(1234, "root"), "/proc/1234/root");
}

// The one permission filter: executable lines only, whatever else the line holds; a line too short
// to have permissions, or without a space, is skipped; the last line needs no newline.
TEST(ProcMaps, ExecutableLinesAreThoseWithXInThePermissions) {
  const std::string text =
      "00400000-00401000 r--p 00000000 08:01 11 /bin/a\n"
      "00401000-00402000 r-xp 00001000 08:01 11 /bin/a\n"
      "00402000-00403000 rw-p 00000000 00:00 0 [heap]\n"
      "nospace\n"
      "0-1 r-\n"
      "\n"
      "7f00-7f01 --xp 00000000 00:00 0\n"
      "7f01-7f02 rwxp 00000000 08:01 12 /lib/b.so";
  std::vector<std::string> lines;
  for_each_executable_line(text, [&](std::string_view line) { lines.emplace_back(line); });
  EXPECT_EQ(lines, (std::vector<std::string>{"00401000-00402000 r-xp 00001000 08:01 11 /bin/a",
                                             "7f00-7f01 --xp 00000000 00:00 0",
                                             "7f01-7f02 rwxp 00000000 08:01 12 /lib/b.so"}));
  std::vector<std::string> paths;
  for_each_executable_mapping(text, [&](const MapsEntry& e) { paths.emplace_back(e.path); });
  EXPECT_EQ(paths, (std::vector<std::string>{"/bin/a", "", "/lib/b.so"}));
}

// A scan round keeps exactly the executable lines of the process's maps, read once: the second
// call in the round hands back the same text.
TEST(ProcMaps, ARoundKeepsTheExecutableLinesOnce) {
  ProcMapsRound round;
  std::string storage;
  std::optional<std::string_view> kept = executable_maps_text(getpid(), storage);
  ASSERT_TRUE(kept);
  std::string whole;
  ASSERT_TRUE(read_whole_file(proc_path(getpid(), "maps").c_str(), whole));
  std::string expected;
  for_each_executable_line(whole, [&](std::string_view line) {
    expected.append(line);
    expected.push_back('\n');
  });
  EXPECT_FALSE(expected.empty());
  EXPECT_EQ(*kept, expected);
  std::optional<std::string_view> again = executable_maps_text(getpid(), storage);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->data(), kept->data()) << "read once per round";
}

}  // namespace
}  // namespace seam::runtime::elf
