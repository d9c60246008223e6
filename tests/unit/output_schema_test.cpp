// The JSON alert and notice objects against docs/outputs.md's schema tables: every key seam
// writes is listed there with its JSON type, and every key the table marks "always" is written.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runtime/output/json_sink.hpp"

namespace seam::runtime {
namespace {

using plan::FieldType;
using plan::FieldUnit;

struct SchemaRow {
  std::string type;  // number, string, object, array
  bool always = false;
};

// The rows between <!-- schema:NAME --> and <!-- /schema:NAME -->: key(s) in backquotes, type,
// unit, presence.
std::map<std::string, SchemaRow> schema_table(const std::string& name) {
  std::ifstream in(std::string(SEAM_SOURCE_DIR) + "/docs/outputs.md");
  std::stringstream buf;
  buf << in.rdbuf();
  std::string doc = buf.str();
  size_t begin = doc.find("<!-- schema:" + name + " -->");
  size_t end = doc.find("<!-- /schema:" + name + " -->");
  std::map<std::string, SchemaRow> rows;
  if (begin == std::string::npos || end == std::string::npos) return rows;
  std::istringstream lines(doc.substr(begin, end - begin));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    std::vector<std::string> cells;
    for (size_t at = 1, next; (next = line.find(" |", at)) != std::string::npos; at = next + 2)
      cells.push_back(line.substr(at + 1, next - at - 1));
    if (cells.size() < 4) continue;
    SchemaRow row{cells[1], cells[3] == "always"};
    for (size_t q = cells[0].find('`'); q != std::string::npos; q = cells[0].find('`', q + 1)) {
      size_t close = cells[0].find('`', q + 1);
      if (close == std::string::npos) break;
      rows[cells[0].substr(q + 1, close - q - 1)] = row;
      q = close;
    }
  }
  return rows;
}

std::string json_type(const nlohmann::json& v) {
  if (v.is_number()) return "number";
  if (v.is_string()) return "string";
  if (v.is_object()) return "object";
  if (v.is_array()) return "array";
  if (v.is_boolean()) return "boolean";
  return "null";
}

void check_against(const nlohmann::json& object, const std::map<std::string, SchemaRow>& table) {
  ASSERT_FALSE(table.empty()) << "no schema table in docs/outputs.md";
  for (const auto& [key, value] : object.items()) {
    auto row = table.find(key);
    ASSERT_NE(row, table.end()) << "key '" << key << "' is written but not in docs/outputs.md";
    EXPECT_EQ(row->second.type, json_type(value)) << key;
  }
  for (const auto& [key, row] : table) {
    if (row.always) {
      EXPECT_TRUE(object.contains(key)) << "'" << key << "' is documented as always there";
    }
  }
}

Alert full_alert() {
  Alert a;
  a.time_ns = 1796022723'123'456'789;
  a.rule = "r";
  a.file = "rules/r.seam";
  a.line = 3;
  a.message = "m";
  a.pid = 7;
  a.tid = 8;
  a.comm = "python3";
  a.cgroup = 42;
  a.cgroup_path = "/kubepods/pod1/c1";
  a.container_id = "c1";
  a.container_name = "app";
  a.pod_uid = "u";
  a.pod_name = "p";
  a.pod_namespace = "ns";
  a.fields = {{"duration", {uint64_t{5}, FieldUnit::Ns, FieldType::U64}, "", ""}};
  a.stacks = {{"ustack", false, {{0x10, "f", 0, "lib.so"}}}, {"kstack", true, {{0x20, "k", 4, ""}}}};
  a.count = 2;
  return a;
}

TEST(OutputSchema, AnEventAlertMatchesTheTable) {
  std::string text;
  append_alert_json(text, full_alert());
  check_against(nlohmann::json::parse(text), schema_table("alert"));
}

TEST(OutputSchema, AWindowedAlertMatchesTheTable) {
  Alert a = full_alert();
  a.status = kResolved;
  a.starts_ns = a.time_ns - 60'000'000'000;
  a.has_task = false;
  a.cgroup = 0;
  a.stacks.clear();
  a.count = 0;
  std::string text;
  append_alert_json(text, a);
  nlohmann::json j = nlohmann::json::parse(text);
  check_against(j, schema_table("alert"));
  EXPECT_EQ(j["status"], "resolved");
  EXPECT_FALSE(j.contains("pid"));  // no process: no fake 0
  EXPECT_FALSE(j.contains("comm"));
}

TEST(OutputSchema, NoticesMatchTheTable) {
  std::string text;
  append_notice_json(text, {plan::Severity::Warning, "drops", "12 records dropped", "r1", 12});
  check_against(nlohmann::json::parse(text), schema_table("notice"));
  text.clear();
  append_notice_json(text, {plan::Severity::Info, "attached", "ok", std::nullopt, 0});
  check_against(nlohmann::json::parse(text), schema_table("notice"));
  text.clear();
  append_notice_json(text, {plan::Severity::Warning, "output-drops", "3 lost", std::nullopt, 3, "json:/x"});
  nlohmann::json lost = nlohmann::json::parse(text);
  check_against(lost, schema_table("notice"));
  EXPECT_EQ(lost["output"], "json:/x");
}

}  // namespace
}  // namespace seam::runtime
