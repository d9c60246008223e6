// The notice kinds are one table (runtime/output/notice_kind.hpp), and docs/outputs.md lists
// every one with the table's own description: a new notice cannot go undocumented.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "runtime/output/notice_kind.hpp"

namespace seam::runtime {
namespace {

std::string notices_section() {
  std::ifstream in(std::string(SEAM_SOURCE_DIR) + "/docs/outputs.md");
  std::stringstream text;
  text << in.rdbuf();
  std::string all = text.str();
  size_t begin = all.find("### Notices\n");
  if (begin == std::string::npos) return {};
  size_t end = all.find("\n#", begin + 1);
  return all.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

TEST(OutputNoticeKind, EveryKindIsDocumentedInOutputsMdWithItsDescription) {
  std::string section = notices_section();
  ASSERT_FALSE(section.empty()) << "docs/outputs.md has no '### Notices' section";
  for (const NoticeKindInfo& k : notice_kinds()) {
    std::string row = std::string("| `") + k.id + "` | " + k.doc + " |\n";
    EXPECT_NE(section.find(row), std::string::npos) << "docs/outputs.md lacks the row\n" << row;
  }
}

TEST(OutputNoticeKind, TheDocumentListsNoKindTheTableLacks) {
  std::set<std::string> ids;
  for (const NoticeKindInfo& k : notice_kinds()) EXPECT_TRUE(ids.insert(k.id).second) << "twice: " << k.id;
  std::istringstream lines(notices_section());
  size_t rows = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    ++rows;
    std::string id = line.substr(3, line.find('`', 3) - 3);
    EXPECT_TRUE(ids.count(id)) << "docs/outputs.md documents '" << id << "', which seam never writes";
  }
  EXPECT_EQ(rows, ids.size());
}

TEST(OutputNoticeKind, IdsAreLowercaseWordsJoinedByHyphens) {
  for (const NoticeKindInfo& k : notice_kinds()) {
    std::string id = k.id;
    EXPECT_FALSE(id.empty());
    for (char c : id) EXPECT_TRUE((c >= 'a' && c <= 'z') || c == '-') << id;
    EXPECT_EQ(notice_id(k.kind), id);
  }
}

}  // namespace
}  // namespace seam::runtime
