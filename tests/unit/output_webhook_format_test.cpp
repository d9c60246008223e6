// Webhook spec parsing and POST bodies: seam's JSON batch and Alertmanager v2's alert shape.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "runtime/output/json_sink.hpp"
#include "runtime/output/webhook_format.hpp"
#include "runtime/output/webhook_options.hpp"
#include "runtime/output/webhook_sink.hpp"

namespace seam::runtime {
namespace {

using namespace std::chrono_literals;

const char* no_env(const char*) {
  return nullptr;
}

Alert sample() {
  Alert a;
  a.time_ns = 1796022723'123'000'000;  // 2026-11-30T...
  a.severity = plan::Severity::Error;
  a.rule = "sync_under_gil";
  a.file = "rules/gil.seam";
  a.line = 12;
  a.message = "stream sync blocked 20.1ms with the GIL held";
  a.pid = 1234;
  a.tid = 1235;
  a.comm = "python3";
  a.cgroup = 77;
  a.fields = {{"duration", {uint64_t{20'100'000}, plan::FieldUnit::Ns, plan::FieldType::U64}, "", "20.1ms"}};
  a.stacks = {{"ustack",
               false,
               {{0x7f00, "cudaStreamSynchronize", 0, "libcudart.so.12"}, {0x5500, "main", 0x34, "python3"}}}};
  return a;
}

TEST(OutputWebhookOptions, ParsesEveryOption) {
  auto getenv = [](const char* n) -> const char* { return std::string(n) == "TOKEN" ? "abc" : nullptr; };
  auto o = parse_webhook_spec(
      "https://am.example:9093,format=alertmanager,header=Authorization:Bearer ${TOKEN},header=X-Team:gpu,"
      "insecure,batch=50,batch_wait=1s,timeout=250ms,queue=99,retry=100ms,retry_max=1m,attempts=4,"
      "spool=/var/spool/seam,spool_bytes=8MiB,drain=3s,resolve=10m,generator=https://g/,instance=node1,"
      "pods=https://127.0.0.1:10250/pods,pods_header=Authorization:Bearer $TOKEN",
      getenv);
  ASSERT_TRUE(o.ok()) << o.error();
  EXPECT_EQ(o->url, "https://am.example:9093");
  EXPECT_EQ(o->format, WebhookFormat::Alertmanager);
  ASSERT_EQ(o->headers.size(), 2u);
  EXPECT_EQ(o->headers[0].name, "Authorization");
  EXPECT_EQ(o->headers[0].value, "Bearer abc");
  EXPECT_EQ(o->headers[0].shown, "Bearer ${TOKEN}");
  EXPECT_EQ(o->headers[1].value, "gpu");
  EXPECT_TRUE(o->insecure);
  EXPECT_EQ(o->batch_max, 50u);
  EXPECT_EQ(o->batch_wait, 1000ms);
  EXPECT_EQ(o->timeout, 250ms);
  EXPECT_EQ(o->queue_max, 99u);
  EXPECT_EQ(o->retry_initial, 100ms);
  EXPECT_EQ(o->retry_max, 60000ms);
  EXPECT_EQ(o->attempts_before_spool, 4);
  EXPECT_EQ(o->spool_dir, "/var/spool/seam");
  EXPECT_EQ(o->spool_max_bytes, 8ull << 20);
  EXPECT_EQ(o->drain_timeout, 3000ms);
  EXPECT_EQ(o->resolve_timeout, 600s);
  EXPECT_EQ(o->generator_url, "https://g/");
  EXPECT_EQ(o->instance, "node1");
  EXPECT_EQ(o->pods_url, "https://127.0.0.1:10250/pods");
  ASSERT_EQ(o->pods_headers.size(), 1u);
  EXPECT_EQ(o->pods_headers[0].value, "Bearer abc");
}

TEST(OutputWebhookOptions, DefaultsAreSafe) {
  auto o = parse_webhook_spec("http://h/x", no_env);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->format, WebhookFormat::Json);
  EXPECT_FALSE(o->insecure);
  EXPECT_TRUE(o->spool_dir.empty());
  EXPECT_EQ(o->drain_timeout, 5000ms);
}

TEST(OutputWebhookOptions, ErrorsSayWhatIsWrongWithoutSecrets) {
  EXPECT_EQ(parse_webhook_spec("", no_env).error(),
            "output 'webhook:' names no URL (expected webhook:URL[,option...])");
  EXPECT_EQ(parse_webhook_spec("ftp://u:pw@h/", no_env).error(),
            "webhook URL 'ftp://h' must start with http:// or https://");
  EXPECT_EQ(parse_webhook_spec("http://h,format=xml", no_env).error(),
            "webhook option 'format': expected json or alertmanager");
  EXPECT_EQ(
      parse_webhook_spec("http://h,header=Authorization:Bearer $NOPE", no_env).error(),
      "webhook option 'header': header 'Bearer $NOPE' needs environment variable $NOPE, which is not set");
  EXPECT_EQ(parse_webhook_spec("http://h,pods=/pods", no_env).error(),
            "webhook option 'pods': expected an http(s) URL");
  EXPECT_EQ(parse_webhook_spec("http://h,timeout=fast", no_env).error(),
            "webhook option 'timeout': expected a duration (250ms, 5s, 5m)");
  EXPECT_NE(parse_webhook_spec("http://h,colour=red", no_env).error().find("unknown webhook option 'colour'"),
            std::string::npos);
  EXPECT_EQ(parse_webhook_spec("http://h,batch=0", no_env).error(),
            "webhook option 'batch': expected a number of alerts > 0");
}

// Chat webhooks keep their secret in the path or query (issue 13, item 8): only the scheme and
// host[:port] are shown, with the declared output's name where there is one.
TEST(OutputWebhookOptions, UrlsAreShownAsSchemeAndHostOnly) {
  EXPECT_EQ(redact_url("https://hooks.slack.com/services/T0/B0/SECRET"), "https://hooks.slack.com");
  EXPECT_EQ(redact_url("https://u:pw@chat.example:8443/hook?token=SECRET#x"), "https://chat.example:8443");
  EXPECT_EQ(redact_url("http://h?token=SECRET"), "http://h");
  EXPECT_EQ(redact_url("http://[::1]:9093"), "http://[::1]:9093");
  auto o = parse_webhook_spec("https://u:pw@hooks.example/T0/SECRET?k=v,name=slack", no_env);
  ASSERT_TRUE(o) << o.error();
  EXPECT_EQ(shown_webhook(*o), "slack (https://hooks.example)");
  auto sink = make_sink("webhook:https://hooks.example/T0/SECRET,name=slack,drain=0ms");
  ASSERT_TRUE(sink) << sink.error();
  EXPECT_EQ((*sink)->name(), "webhook:slack");
}

TEST(OutputWebhookOptions, MakeSinkAcceptsWebhookSpecs) {
  auto ok = make_sink("webhook:http://127.0.0.1:1/x,drain=0ms");
  ASSERT_TRUE(ok.ok()) << ok.error();
  auto bad = make_sink("webhook:");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("names no URL"), std::string::npos);
}

TEST(OutputWebhookFormat, JsonBatchIsAnArrayOfTheJsonSinkObjects) {
  std::vector<Alert> alerts{sample(), sample()};
  alerts[1].pid = 99;
  auto body = nlohmann::json::parse(webhook_json_body(alerts));
  ASSERT_TRUE(body.is_array());
  ASSERT_EQ(body.size(), 2u);
  std::string line;
  append_alert_json(line, alerts[0]);
  EXPECT_EQ(body[0], nlohmann::json::parse(line));
  EXPECT_EQ(body[1]["pid"], 99);
  EXPECT_EQ(nlohmann::json::parse(webhook_json_body({})), nlohmann::json::array());
}

TEST(OutputWebhookFormat, AlertmanagerShape) {
  AlertmanagerContext ctx;
  ctx.instance = "gpu-node-7";
  ctx.generator_url = "seam://gpu-node-7/";
  ctx.resolve_timeout = 5min;
  ctx.identity = [](uint64_t id) {
    Identity i;
    if (id != 77) return i;
    i.cgroup_path = "/kubepods.slice/x";
    i.container_id = std::string(64, 'a');
    i.container_runtime = "containerd";
    i.pod_uid = "0f1e2d3c-0000-1111-2222-333344445555";
    i.pod_name = "trainer-0";
    i.pod_namespace = "ml";
    return i;
  };
  std::vector<Alert> alerts{sample()};
  auto body = nlohmann::json::parse(alertmanager_body(alerts, ctx));
  ASSERT_TRUE(body.is_array());
  ASSERT_EQ(body.size(), 1u);
  const auto& a = body[0];
  EXPECT_EQ(a["labels"], nlohmann::json::parse(R"({
    "alertname":"sync_under_gil","severity":"error","instance":"gpu-node-7","rule_file":"rules/gil.seam",
    "pid":"1234","comm":"python3","cgroup":"/kubepods.slice/x",
    "container_id":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "container_runtime":"containerd","pod_uid":"0f1e2d3c-0000-1111-2222-333344445555",
    "pod":"trainer-0","namespace":"ml"})"));
  EXPECT_EQ(a["annotations"]["summary"], "stream sync blocked 20.1ms with the GIL held");
  EXPECT_EQ(a["annotations"]["description"],
            "rule sync_under_gil (rules/gil.seam:12) matched in pid 1234 (python3): duration=20.1ms");
  EXPECT_EQ(a["annotations"]["stack"],
            "ustack:\n  cudaStreamSynchronize (libcudart.so.12)\n  main+0x34 (python3)");
  EXPECT_EQ(a["startsAt"], "2026-11-30T07:12:03.123Z");
  EXPECT_EQ(a["endsAt"], "2026-11-30T07:17:03.123Z");
  EXPECT_EQ(a["generatorURL"], "seam://gpu-node-7/rules/gil.seam#L12");
  for (const auto& [name, value] : a["labels"].items()) EXPECT_TRUE(value.is_string()) << name;
}

TEST(OutputWebhookFormat, AlertmanagerWithoutIdentityKeepsTheCgroupIdAndOmitsEmptyLabels) {
  AlertmanagerContext ctx;
  ctx.instance = "h";
  std::vector<Alert> alerts{sample()};
  alerts[0].stacks.clear();
  auto a = nlohmann::json::parse(alertmanager_body(alerts, ctx))[0];
  EXPECT_EQ(a["labels"]["cgroup"], "77");
  EXPECT_FALSE(a["labels"].contains("container_id"));
  EXPECT_FALSE(a["labels"].contains("pod"));
  EXPECT_FALSE(a["annotations"].contains("stack"));
}

// `with stack`: the annotation carries the top frames, Python ones as traceback lines where the
// eval loop runs them, then the native ones, cut at ctx.stack_frames with the rest counted.
TEST(OutputWebhookFormat, AlertmanagerStackCarriesTheTopPythonAndNativeFrames) {
  auto py = [](const char* name, const char* file, int line) {
    StackFrame f;
    f.python = true;
    f.symbol = name;
    f.file = file;
    f.line = line;
    return f;
  };
  Alert a = sample();
  a.stacks = {{"stack",
               false,
               {{0x7f00, "cudaStreamSynchronize", 0, "libcudart.so.12"},
                {0x7e10, "ffi_call_unix64", 0x4c, "libffi.so.8"},
                py("Worker.sync", "/srv/app/worker.py", 42),
                py("handle_request", "/srv/app/server.py", 17),
                py("<module>", "/srv/app/server.py", -1),
                {0x5510, "_PyEval_EvalFrameDefault", 0x1d2, "python3.11"},
                {0x5400, "Py_RunMain", 0x9f, "python3.11"},
                {0x7d00, "__libc_start_call_main", 0x7a, "libc.so.6"},
                {0x5300, "_start", 0x21, "python3.11"}}}};
  AlertmanagerContext ctx;
  ctx.stack_frames = 6;
  auto body = nlohmann::json::parse(alertmanager_body(std::vector<Alert>{a}, ctx));
  EXPECT_EQ(body[0]["annotations"]["stack"],
            "stack:\n"
            "  cudaStreamSynchronize (libcudart.so.12)\n"
            "  ffi_call_unix64+0x4c (libffi.so.8)\n"
            "  File \"/srv/app/worker.py\", line 42, in Worker.sync\n"
            "  File \"/srv/app/server.py\", line 17, in handle_request\n"
            "  File \"/srv/app/server.py\", line ?, in <module>\n"
            "  _PyEval_EvalFrameDefault+0x1d2 (python3.11)\n"
            "  ... 3 more");

  // `with pystack` alone, shorter than the cut: every frame, then why the walk stopped.
  a.stacks = {{"pystack",
               false,
               {py("Worker.sync", "/srv/app/worker.py", 42)},
               "truncated: more Python frames than the record holds"}};
  body = nlohmann::json::parse(alertmanager_body(std::vector<Alert>{a}, ctx));
  EXPECT_EQ(body[0]["annotations"]["stack"],
            "pystack:\n  File \"/srv/app/worker.py\", line 42, in Worker.sync\n  [truncated: more Python "
            "frames than the record holds]");
}

TEST(OutputWebhookFormat, AlertmanagerEndpointIsAddedToABareServerUrl) {
  EXPECT_EQ(alertmanager_endpoint("http://am:9093"), "http://am:9093/api/v2/alerts");
  EXPECT_EQ(alertmanager_endpoint("http://am:9093/"), "http://am:9093/api/v2/alerts");
  EXPECT_EQ(alertmanager_endpoint("http://am:9093/custom/path"), "http://am:9093/custom/path");
}

}  // namespace
}  // namespace seam::runtime
