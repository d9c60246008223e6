// The stdout and JSON sinks, written to temporary files and read back: exact text for stdout,
// the JSON shape parsed back with nlohmann, file appending, flushing, and make_sink specs.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "runtime/output/json_sink.hpp"
#include "runtime/output/stdout_sink.hpp"
#include "support/test_support.hpp"

namespace seam::runtime {
namespace {

using plan::FieldType;
using plan::FieldUnit;

Alert sample_alert() {
  Alert a;
  a.time_ns = 1796022723'123'456'789;
  a.severity = plan::Severity::Warning;
  a.rule = "sync_under_gil";
  a.file = "rules/gil.seam";
  a.line = 12;
  a.message = "stream sync blocked 20.1ms with the GIL held";
  a.pid = 1234;
  a.tid = 1234;
  a.comm = "python3";
  a.cgroup = 4242;
  a.fields = {
      {"duration", {uint64_t{20'100'000}, FieldUnit::Ns, FieldType::U64}, "", ""},
      {"size", {uint64_t{4096}, FieldUnit::Bytes, FieldType::U64}, "", ""},
      {"stream", {uint64_t{0x10}, FieldUnit::None, FieldType::Ptr}, "", ""},
      {"ret", {int64_t{-2}, FieldUnit::None, FieldType::I32}, "", ""},
      {"ok", {true, FieldUnit::None, FieldType::Bool}, "", ""},
      {"note", {std::string("two words"), FieldUnit::None, FieldType::Str}, "", ""},
      {"err", {int64_t{2}, FieldUnit::None, FieldType::I32}, "cudaError", "cudaErrorMemoryAllocation"}};
  a.stacks = {{"ustack",
               false,
               {{0x7f3a2c01d2a0, "cudaStreamSynchronize", 0, "libcudart.so.12"},
                {0x55aa00001234, "main", 0x34, "python3.11"},
                {0x7f0000000001, "", 0, "[unknown]"}}}};
  return a;
}

// An fd on a fresh file in a temp dir, closed at the end of the test.
struct TempFile {
  test::TempDir dir;
  std::string path = dir.path() + "/out";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ~TempFile() { ::close(fd); }
  std::string text() const { return test::read_file(path); }
};

TEST(OutputStdoutSink, WritesTheExactLineAndStack) {
  TempFile out, err;
  {
    StdoutSink sink(out.fd, err.fd);
    sink.write(sample_alert());
    EXPECT_EQ(out.text(), "");  // buffered until flushed
    sink.flush();
  }
  EXPECT_EQ(out.text(),
            "2026-11-30T07:12:03.123Z warning sync_under_gil: stream sync blocked 20.1ms with the GIL held"
            "  pid=1234 tid=1234 comm=python3 duration=20.1ms size=4.0KiB stream=0x10 ret=-2 ok=true"
            " note=\"two words\" err=cudaErrorMemoryAllocation\n"
            "    #0 0x7f3a2c01d2a0  cudaStreamSynchronize+0x0 (libcudart.so.12)\n"
            "    #1 0x55aa00001234  main+0x34 (python3.11)\n"
            "    #2 0x7f0000000001  ?? ([unknown])\n");
  EXPECT_EQ(err.text(), "");
}

TEST(OutputStdoutSink, SuppressedCountAndSeveralStacks) {
  Alert a = sample_alert();
  a.fields.clear();
  a.suppressed = 7;
  a.stacks.push_back({"kstack", true, {{0xffffffff81000010, "schedule", 0x10, "kernel"}}});
  std::string text;
  append_alert_text(text, a);
  EXPECT_EQ(text,
            "2026-11-30T07:12:03.123Z warning sync_under_gil: stream sync blocked 20.1ms with the GIL held"
            "  pid=1234 tid=1234 comm=python3 (7 similar suppressed)\n"
            "  ustack:\n"
            "    #0 0x7f3a2c01d2a0  cudaStreamSynchronize+0x0 (libcudart.so.12)\n"
            "    #1 0x55aa00001234  main+0x34 (python3.11)\n"
            "    #2 0x7f0000000001  ?? ([unknown])\n"
            "  kstack:\n"
            "    #0 0xffffffff81000010  schedule+0x10 (kernel)\n");
}

TEST(OutputStdoutSink, NoticesGoToTheNoticeFdAfterPendingAlerts) {
  TempFile out, err;
  StdoutSink sink(out.fd, err.fd);
  sink.write(sample_alert());
  sink.write_notice(
      {plan::Severity::Warning, "drops", "12 records dropped (ring buffer full)", "sync_under_gil", 12});
  sink.write_notice({plan::Severity::Info, "attached", "attached 3 probes", std::nullopt, 0});
  sink.write_notice({plan::Severity::Warning, "drops", "rule r2: 5 records dropped", "r2", 5});  // named once
  EXPECT_NE(out.text(), "");  // the alert was flushed before the notice
  EXPECT_EQ(err.text(),
            "seam: warning: rule sync_under_gil: 12 records dropped (ring buffer full)\n"
            "seam: info: attached 3 probes\n"
            "seam: warning: rule r2: 5 records dropped\n");
}

TEST(OutputJsonSink, AlertShapeParsesBack) {
  TempFile out;
  JsonSink sink(out.fd);
  sink.write(sample_alert());
  sink.flush();
  std::string text = out.text();
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find('\n'), text.size() - 1);  // one line
  auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["time"], "2026-11-30T07:12:03.123Z");
  EXPECT_EQ(j["schema"], 1);
  EXPECT_EQ(j["time_ns"], "1796022723123456789");  // a string: JSON numbers lose digits past 2^53
  EXPECT_TRUE(j["hostname"].is_string());
  EXPECT_EQ(j["severity"], "warning");
  EXPECT_EQ(j["rule"], "sync_under_gil");
  EXPECT_EQ(j["file"], "rules/gil.seam");
  EXPECT_EQ(j["line"], 12);
  EXPECT_EQ(j["message"], "stream sync blocked 20.1ms with the GIL held");
  EXPECT_EQ(j["pid"], 1234);
  EXPECT_EQ(j["tid"], 1234);
  EXPECT_EQ(j["comm"], "python3");
  EXPECT_EQ(j["cgroup"], 4242);
  EXPECT_EQ(j["suppressed"], 0);
  nlohmann::json fields = {{"duration", 20'100'000},  // named as in the rule; units in the schema
                           {"size", 4096},
                           {"stream", "0x10"},
                           {"ret", -2},
                           {"ok", true},
                           {"note", "two words"},
                           {"err", "cudaErrorMemoryAllocation"}};  // an enum value by its name
  EXPECT_EQ(j["fields"], fields);
  ASSERT_EQ(j["ustack"].size(), 3u);
  EXPECT_EQ(j["ustack"][0], (nlohmann::json{{"kind", "native"},
                                            {"addr", "0x7f3a2c01d2a0"},
                                            {"function", "cudaStreamSynchronize"},
                                            {"symbol", "cudaStreamSynchronize"},
                                            {"offset", 0},
                                            {"module", "libcudart.so.12"},
                                            {"file", nullptr},
                                            {"line", nullptr}}));
  EXPECT_EQ(j["ustack"][1]["offset"], 0x34);
  EXPECT_FALSE(j.contains("kstack"));
}

TEST(OutputJsonSink, FieldNamesAreTheRulesAndStringsAreEscaped) {
  Alert a = sample_alert();
  a.fields = {{"wait_ns", {uint64_t{5}, FieldUnit::Ns, FieldType::U64}, "", ""}};
  a.comm = std::string("a\"b\\c\n\x01\xff", 8);  // quote, backslash, control, invalid UTF-8
  a.message = "caf\xc3\xa9 \xe2\x82\xac";        // valid UTF-8 passes through
  std::string text;
  append_alert_json(text, a);
  auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["fields"], (nlohmann::json{{"wait_ns", 5}}));
  EXPECT_EQ(j["comm"], "a\"b\\c\n\x01\xef\xbf\xbd");
  EXPECT_EQ(j["message"], "caf\xc3\xa9 \xe2\x82\xac");
}

TEST(OutputJsonSink, NoticeShape) {
  std::string text;
  append_notice_json(text, {plan::Severity::Warning, "drops", "12 records dropped", "r1", 12});
  append_notice_json(text, {plan::Severity::Info, "attached", "ok", std::nullopt, 0});
  std::istringstream lines(text);
  std::string line;
  // Every notice has the schema version and the host; the rest is the notice's own.
  auto parse = [](const std::string& text) {
    nlohmann::json j = nlohmann::json::parse(text);
    EXPECT_EQ(j["schema"], 1);
    EXPECT_TRUE(j["hostname"].is_string());
    j.erase("schema");
    j.erase("hostname");
    return j;
  };
  std::getline(lines, line);
  EXPECT_EQ(parse(line), (nlohmann::json{{"notice", "drops"},
                                         {"severity", "warning"},
                                         {"message", "12 records dropped"},
                                         {"rule", "r1"},
                                         {"count", 12}}));
  std::getline(lines, line);
  EXPECT_EQ(parse(line), (nlohmann::json{{"notice", "attached"}, {"severity", "info"}, {"message", "ok"}}));
}

TEST(OutputJsonSink, FileSinkAppendsAndFlushes) {
  test::TempDir dir;
  std::string path = dir.write("alerts.jsonl", "{\"earlier\":true}\n");
  auto sink = make_sink("json:" + path);
  ASSERT_TRUE(sink.ok()) << sink.error();
  (*sink)->write(sample_alert());
  (*sink)->write(sample_alert());
  EXPECT_EQ(test::read_file(path), "{\"earlier\":true}\n");  // not yet: flushed per batch
  (*sink)->flush();
  std::istringstream lines(test::read_file(path));
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    auto j = nlohmann::json::parse(line);
    if (n++ > 0) {
      EXPECT_EQ(j["rule"], "sync_under_gil");
    }
  }
  EXPECT_EQ(n, 3);
  (*sink)->write_notice({plan::Severity::Info, "attached", "bye", std::nullopt, 0});
  sink->reset();  // destruction flushes too
  EXPECT_NE(test::read_file(path).find("\"bye\""), std::string::npos);
}

TEST(OutputMakeSink, ParsesSpecsAndNamesBadOnes) {
  EXPECT_TRUE(make_sink("stdout").ok());
  EXPECT_TRUE(make_sink("json").ok());
  auto bad = make_sink("syslog");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("'syslog'"), std::string::npos) << bad.error();
  auto empty = make_sink("json:");
  ASSERT_FALSE(empty.ok());
  auto unopenable = make_sink("json:/nonexistent-dir/x.jsonl");
  ASSERT_FALSE(unopenable.ok());
  EXPECT_NE(unopenable.error().find("/nonexistent-dir/x.jsonl"), std::string::npos) << unopenable.error();
}

}  // namespace
}  // namespace seam::runtime
