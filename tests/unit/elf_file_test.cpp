// ElfFile: opening good and bad files, build-id, segments, address translation.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "runtime/elf/elf_file.hpp"
#include "support/test_support.hpp"

namespace seam::runtime::elf {
namespace {

const std::string kFakeCudart = std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12";

TEST(ElfFile, MissingFileIsAnErrorNamingTheFile) {
  Result<ElfFile> f = ElfFile::open("/nonexistent/libnothing.so");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().find("/nonexistent/libnothing.so"), std::string::npos) << f.error();
  EXPECT_NE(f.error().find("cannot open"), std::string::npos) << f.error();
}

TEST(ElfFile, TextFileIsNotAnElfFile) {
  test::TempDir dir;
  std::string path = dir.write("libfake.so", "this is not an ELF image\n");
  Result<ElfFile> f = ElfFile::open(path);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().find(path + ": not an ELF file"), std::string::npos) << f.error();
}

TEST(ElfFile, BuildIdMatchesReadelf) {
  Result<ElfFile> f = ElfFile::open(kFakeCudart);
  ASSERT_TRUE(f.ok()) << f.error();
  test::CommandResult notes = test::run_command({"readelf", "-n", kFakeCudart});
  ASSERT_EQ(notes.exit_code, 0) << notes.err;
  size_t at = notes.out.find("Build ID: ");
  if (at == std::string::npos) {
    EXPECT_EQ(f->build_id(), "");
  } else {
    std::istringstream in(notes.out.substr(at + 10));
    std::string id;
    in >> id;
    EXPECT_EQ(f->build_id(), id);
  }
}

TEST(ElfFile, ReadBuildIdAloneAgreesWithOpen) {
  Result<ElfFile> f = ElfFile::open(kFakeCudart);
  ASSERT_TRUE(f.ok()) << f.error();
  int fd = ::open(kFakeCudart.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(read_build_id(fd), f->build_id());
  EXPECT_EQ(read_build_id(fd), f->build_id()) << "the descriptor stays usable";
  ::close(fd);
  test::TempDir dir;
  std::string text = dir.write("notes.txt", "not ELF");
  fd = ::open(text.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_EQ(read_build_id(fd), "");
  ::close(fd);
  EXPECT_EQ(read_build_id(-1), "");
}

TEST(ElfFile, TranslatesAddressesThroughLoadSegments) {
  Result<ElfFile> f = ElfFile::open(kFakeCudart);
  ASSERT_TRUE(f.ok()) << f.error();
  ASSERT_FALSE(f->segments().empty());
  for (const LoadSegment& s : f->segments()) {
    if (s.filesz == 0) continue;
    EXPECT_EQ(f->vaddr_to_offset(s.vaddr), s.offset);
    EXPECT_EQ(f->vaddr_to_offset(s.vaddr + s.filesz - 1), s.offset + s.filesz - 1);
    EXPECT_EQ(f->offset_to_vaddr(s.offset + 1), s.vaddr + 1);
  }
  EXPECT_EQ(f->vaddr_to_offset(0xffffffffffull), std::nullopt);
}

TEST(ElfFile, ReadsBytesFromTheFileUntilTheDescriptorIsDropped) {
  Result<ElfFile> f = ElfFile::open(kFakeCudart);
  ASSERT_TRUE(f.ok()) << f.error();
  uint8_t magic[4] = {};
  ASSERT_EQ(f->read_bytes(0, magic), 4u);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(magic), 4),
            "\x7f"
            "ELF");
  uint64_t size = std::filesystem::file_size(kFakeCudart);
  uint8_t tail[8];
  EXPECT_EQ(f->read_bytes(size - 3, tail), 3u) << "short at the end of the file";
  EXPECT_EQ(f->read_bytes(size + 100, tail), 0u);
  size_t symbols = f->symbols().size();
  f->drop_descriptor();
  EXPECT_EQ(f->read_bytes(0, magic), 0u);
  EXPECT_EQ(f->symbols().size(), symbols);
  bool found = false;
  for (const Symbol& s : f->symbols()) found = found || s.name == "cudaStreamSynchronize";
  EXPECT_TRUE(found) << "names are still readable from the mapping";
}

TEST(ElfFile, MovedFileKeepsItsSymbolNamesValid) {
  Result<ElfFile> f = ElfFile::open(kFakeCudart);
  ASSERT_TRUE(f.ok()) << f.error();
  ElfFile moved = std::move(f).value();
  bool found = false;
  for (const Symbol& s : moved.symbols()) found = found || s.name == "cudaStreamSynchronize";
  EXPECT_TRUE(found);
}

TEST(ElfFile, StripVersion) {
  EXPECT_EQ(strip_version("cudaStreamSynchronize@@libcudart.so.13"), "cudaStreamSynchronize");
  EXPECT_EQ(strip_version("memcpy@GLIBC_2.2.5"), "memcpy");
  EXPECT_EQ(strip_version("plain"), "plain");
}

}  // namespace
}  // namespace seam::runtime::elf
