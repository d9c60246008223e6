// ModuleSymbols: address -> function lookups inside one library, and which alias is printed.
#include <gtest/gtest.h>

#include "runtime/elf/resolve.hpp"
#include "runtime/symbolize/module_symbols.hpp"

namespace seam::runtime::symbolize {
namespace {

const std::string kShapes = std::string(SEAM_FIXTURE_DIR) + "/libelf_shapes.so";

uint64_t address_of(const elf::ElfFile& f, const char* name) {
  std::vector<elf::SymbolHit> hits = elf::resolve(f, name);
  EXPECT_EQ(hits.size(), 1u) << name;
  return hits.empty() ? 0 : hits[0].address;
}

TEST(ModuleSymbols, FindsTheFunctionAroundAnAddress) {
  elf::Result<elf::ElfFile> probe = elf::ElfFile::open(kShapes);
  ASSERT_TRUE(probe.ok()) << probe.error();
  uint64_t lea = address_of(*probe, "shape_lea");
  uint64_t push = address_of(*probe, "shape_push");
  uint64_t local = address_of(*probe, "shape_local");
  elf::Result<elf::ElfFile> file = elf::ElfFile::open(kShapes);
  ASSERT_TRUE(file.ok());
  ModuleSymbols symbols(std::move(file).value());

  auto at_lea = symbols.lookup(lea + 2);
  ASSERT_TRUE(at_lea);
  EXPECT_EQ(at_lea->name, "shape_lea");
  EXPECT_EQ(at_lea->offset, 2u);
  // The global name wins over its weak alias at the same address.
  auto at_push = symbols.lookup(push);
  ASSERT_TRUE(at_push);
  EXPECT_EQ(at_push->name, "shape_push");
  EXPECT_EQ(at_push->offset, 0u);
  // LOCAL functions from .symtab count too.
  ASSERT_TRUE(symbols.lookup(local + 1));
  EXPECT_EQ(symbols.lookup(local + 1)->name, "shape_local");
  // Below the first function, or far past the end of any, there is no name.
  EXPECT_FALSE(symbols.lookup(0x10));
  EXPECT_FALSE(symbols.lookup(0x7fffffff));
  EXPECT_EQ(symbols.build_id(), probe->build_id());
}

}  // namespace
}  // namespace seam::runtime::symbolize
