// A program built in parts (one clang per CPU, linked into one object): the generated C puts each
// program in one part, numbered largest first, and the linked object has what the whole build has.
#include <bpf/libbpf.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include "support/build_generated.hpp"
#include "support/compile_text.hpp"

namespace seam {
namespace {

test::Compiled compile_pack() {
  std::vector<std::pair<std::string, std::string>> files;
  for (const std::string& path : test::pack_rule_files())
    files.emplace_back(std::filesystem::path(path).filename().string(), test::read_file(path));
  return test::compile_files(files);
}

struct Part {
  size_t text_bytes = 0;
  std::vector<std::string> programs;  // the SEC("...") names of the programs it holds
};

// Part number -> what its `#if SEAM_IN_PART(N)` ... `#endif` block holds (its size without #line
// directives), for the blocks that hold programs (the license's is not one); programs outside any
// block go to part -1.
std::map<int, Part> parts_of(const std::string& c) {
  std::map<int, Part> parts;
  std::istringstream in(c);
  std::string line;
  int part = -1;
  Part block;
  std::regex open(R"(^#if SEAM_IN_PART\((\d+)\)$)"), program(R"re(^SEC\("([^"]+)"\)$)re");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, open)) {
      EXPECT_EQ(part, -1) << "nested part at: " << line;
      part = std::stoi(m[1]);
      block = {};
    } else if (line == "#endif" && part >= 0) {
      if (!block.programs.empty()) {
        EXPECT_EQ(parts.count(part), 0u) << "two programs numbered " << part;
        parts[part] = block;
      }
      part = -1;
    } else if (part >= 0) {
      if (!line.starts_with("#line ")) block.text_bytes += line.size() + 1;  // as in_parts sizes them
      if (std::regex_match(line, m, program)) block.programs.push_back(m[1]);
    } else if (std::regex_match(line, m, program)) {
      parts[-1].programs.push_back(m[1]);
    }
  }
  return parts;
}

TEST(CodegenParts, EachProgramOfThePackSitsInOnePartNumberedLargestFirst) {
  test::Compiled pack = compile_pack();
  ASSERT_TRUE(pack.diagnostics.empty()) << pack.diagnostics;
  std::map<int, Part> parts = parts_of(pack.generated.c_source);
  EXPECT_EQ(parts.count(-1), 0u) << "a program outside every part: " << parts[-1].programs.front();
  ASSERT_GT(parts.size(), 10u);
  EXPECT_EQ(parts.rbegin()->first, static_cast<int>(parts.size()) - 1) << "the numbers are 0..N-1";
  size_t previous = SIZE_MAX;
  for (const auto& [k, part] : parts) {
    EXPECT_FALSE(part.programs.empty()) << "part " << k;
    EXPECT_LE(part.text_bytes, previous) << "part " << k << " is larger than the one numbered before it";
    previous = part.text_bytes;
  }
}

std::multiset<std::string> programs_of(bpf_object* obj) {
  std::multiset<std::string> names;
  bpf_program* p = nullptr;
  bpf_object__for_each_program(p, obj)
      names.insert(std::string(bpf_program__section_name(p)) + " " + bpf_program__name(p));
  return names;
}

std::multiset<std::string> maps_of(bpf_object* obj) {
  std::multiset<std::string> names;
  bpf_map* m = nullptr;
  bpf_object__for_each_map(m, obj) {
    // An internal map's name starts with part of the object's name: keep its section only.
    std::string name = bpf_map__name(m);
    names.insert(name.find('.') == std::string::npos ? name : name.substr(name.find('.')));
  }
  return names;
}

TEST(CodegenParts, ThePackBuiltInPartsHasEveryProgramAndMapOnceAsBuiltWhole) {
  if (!test::can_build_generated()) GTEST_SKIP() << "needs clang and " << build::kVmlinuxBtfPath;
  test::Compiled pack = compile_pack();
  ASSERT_TRUE(pack.diagnostics.empty()) << pack.diagnostics;
  std::multiset<std::string> whole_programs, whole_maps;
  for (int parts : {1, 2, 3}) {
    build::BuildOptions options;
    options.kernel_types = pack.lowered.kernel_types;
    options.source_name = codegen::kGeneratedFile;
    options.use_cache = false;
    options.parts = parts;
    build::BuildResult built = build::build_object(pack.generated.c_source, options);
    ASSERT_TRUE(built.object) << parts << " parts: " << built.object.error() << "\n" << built.clang_stderr;
    EXPECT_EQ(built.command.find("bpftool gen object") != std::string::npos, parts > 1) << built.command;
    bpf_object* obj = bpf_object__open_mem(built.object->data(), built.object->size(), nullptr);
    ASSERT_NE(obj, nullptr) << "libbpf cannot open the object of " << parts << " parts";
    if (parts == 1) {
      whole_programs = programs_of(obj);
      whole_maps = maps_of(obj);
      size_t in_c = 0;
      for (const auto& [k, part] : parts_of(pack.generated.c_source)) in_c += part.programs.size();
      EXPECT_EQ(whole_programs.size(), in_c);
    } else {
      EXPECT_EQ(programs_of(obj), whole_programs) << parts << " parts";
      EXPECT_EQ(maps_of(obj), whole_maps) << parts << " parts";
    }
    bpf_object__close(obj);
  }
}

}  // namespace
}  // namespace seam
