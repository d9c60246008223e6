// USDT notes (.note.stapsdt) of the usdt tests' fixture library, built with <sys/sdt.h>.
#include <gtest/gtest.h>

#include "runtime/elf/usdt_notes.hpp"

namespace seam::runtime::elf {
namespace {

TEST(ElfUsdtNotes, ReadsProviderNameArgumentsAndAddressOfEachProbe) {
  auto notes = read_usdt_notes(std::string(SEAM_FIXTURE_DIR) + "/libinference.so");
  ASSERT_TRUE(notes) << notes.error();
  ASSERT_EQ(notes->size(), 3u);
  EXPECT_EQ((*notes)[0].provider, "inference");
  EXPECT_EQ((*notes)[0].name, "inference_start");
  EXPECT_EQ((*notes)[1].name, "inference_end");
  EXPECT_EQ((*notes)[2].name, "request_queued");
  for (const UsdtNote& n : *notes) {
    EXPECT_EQ(n.args.rfind("8@", 0), 0u) << n.args;  // one 8-byte argument: the request id
    EXPECT_NE(n.address, 0u);
    EXPECT_NE(n.semaphore, 0u);  // the fixture declares one for each probe
  }
}

TEST(ElfUsdtNotes, AFileWithoutProbesHasNone) {
  auto notes = read_usdt_notes(std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12");
  ASSERT_TRUE(notes) << notes.error();
  EXPECT_TRUE(notes->empty());
}

TEST(ElfUsdtNotes, AMissingFileIsAnError) {
  auto notes = read_usdt_notes("/nonexistent/libx.so");
  ASSERT_FALSE(notes);
  EXPECT_EQ(notes.error(), "/nonexistent/libx.so: No such file or directory");
}

}  // namespace
}  // namespace seam::runtime::elf
