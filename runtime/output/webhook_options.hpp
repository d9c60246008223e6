#pragma once
// The webhook output's settings, parsed from its spec:
//   webhook:URL[,format=json|alertmanager][,header=Name:VALUE][,insecure][,spool=DIR]...
// A header VALUE may name environment variables ($TOKEN or ${TOKEN}); they are read once, here,
// and only the unexpanded text (`shown`) is ever printed.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/decode/result.hpp"

namespace seam::runtime {

enum class WebhookFormat { Json, Alertmanager };

struct WebhookHeader {
  std::string name;
  std::string value;  // with environment variables expanded: a secret, never printed
  std::string shown;  // as written in the spec ("Bearer $TOKEN"): safe to print
};

struct WebhookOptions {
  std::string url;
  std::string name;  // the declaring rule file's output name (name=), shown instead of the URL
  WebhookFormat format = WebhookFormat::Json;
  std::vector<WebhookHeader> headers;
  bool insecure = false;  // TLS verification off (warned about at start)

  size_t batch_max = 100;                         // alerts per POST
  std::chrono::milliseconds batch_wait{200};      // how long a batch waits to fill
  std::chrono::milliseconds timeout{5000};        // one POST, connect included
  size_t queue_max = 10000;                       // alerts held in memory
  std::chrono::milliseconds retry_initial{200};   // first backoff; doubles, with jitter
  std::chrono::milliseconds retry_max{30000};     // backoff ceiling
  int attempts_before_spool = 3;                  // failed tries of a batch before it goes to disk
  std::string spool_dir;                          // "" : no spool, a dead endpoint drops from the queue
  uint64_t spool_max_bytes = 64ull << 20;         // bound on the spool's files
  std::chrono::milliseconds drain_timeout{5000};  // at exit: wait this long, then spool the rest

  std::chrono::seconds resolve_timeout{300};  // Alertmanager endsAt = startsAt + this
  std::string generator_url;                  // Alertmanager generatorURL prefix; "" : seam://INSTANCE/
  std::string instance;                       // Alertmanager `instance` label; "" : this host's name

  // Pod names for identity labels: a kubelet-like PodList URL, and headers for it ($VAR expanded).
  std::string pods_url;
  std::vector<WebhookHeader> pods_headers;
};

using GetEnv = std::function<const char*(const char* name)>;

// `spec` is what follows "webhook:". Unknown options, a missing URL, a header whose variable is
// unset, or a number that does not parse are errors (with messages that show no secret).
Result<WebhookOptions> parse_webhook_spec(std::string_view spec, const GetEnv& getenv);

// The URL's scheme and host[:port] only, for messages and labels: user info, path, query and
// fragment may all hold secrets.
std::string redact_url(std::string_view url);
// How messages name the webhook: "NAME (scheme://host)" for a declared output, else scheme://host.
std::string shown_webhook(const WebhookOptions& o);

}  // namespace seam::runtime
