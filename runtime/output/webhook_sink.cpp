#include "runtime/output/webhook_sink.hpp"

#include <unistd.h>

#include "runtime/output/delivery_counters.hpp"
#include "runtime/output/webhook_format.hpp"

namespace seam::runtime {
namespace {

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

}  // namespace

std::string alertmanager_endpoint(const std::string& url) {
  size_t scheme = url.find("://");
  size_t path = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (path == std::string::npos) return url + "/api/v2/alerts";
  if (path == url.size() - 1) return url + "api/v2/alerts";
  return url;
}

NoticeCallback stderr_notices() {
  return [](const Notice& n) {
    std::string line = "seam: " + n.message + "\n";
    ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
    (void)ignored;
  };
}

Result<std::unique_ptr<WebhookSink>> WebhookSink::create(WebhookOptions options, NoticeCallback on_notice,
                                                         IdentityLookup identity) {
  BodyMaker make_body;
  if (options.format == WebhookFormat::Alertmanager) {
    options.url = alertmanager_endpoint(options.url);
    AlertmanagerContext context;
    context.instance = options.instance.empty() ? host_name() : options.instance;
    context.generator_url =
        options.generator_url.empty() ? "seam://" + context.instance + "/" : options.generator_url;
    context.resolve_timeout = options.resolve_timeout;
    context.identity = std::move(identity);
    make_body = [context](std::span<const Alert> alerts) { return alertmanager_body(alerts, context); };
  } else {
    make_body = [](std::span<const Alert> alerts) { return webhook_json_body(alerts); };
  }
  auto drain = options.drain_timeout;
  std::string name = "webhook:" + (options.name.empty() ? redact_url(options.url) : options.name);
  auto delivery = WebhookDelivery::start(std::move(options), std::move(make_body), std::move(on_notice));
  if (!delivery) return Error{delivery.error()};
  return std::unique_ptr<WebhookSink>(new WebhookSink(std::move(*delivery), drain, std::move(name)));
}

void WebhookSink::counters(std::vector<metrics::OutputCounter>& out) const {
  append_delivery_counters(name_, delivery_->stats(), out);
}

}  // namespace seam::runtime
