#include <cstdlib>
#include <string>

#include "runtime/identity/cgroup_resolver.hpp"
#include "runtime/output/json_sink.hpp"
#include "runtime/output/sink.hpp"
#include "runtime/output/stdout_sink.hpp"
#include "runtime/output/webhook_sink.hpp"

namespace seam::runtime {

Result<std::unique_ptr<Sink>> make_sink(std::string_view spec) {
  if (spec == "stdout") return std::unique_ptr<Sink>(new StdoutSink(STDOUT_FILENO, StdoutSink::kNoNotices));
  if (spec == "json") return std::unique_ptr<Sink>(new JsonSink());
  constexpr std::string_view kJsonFile = "json:";
  if (spec.substr(0, kJsonFile.size()) == kJsonFile) {
    std::string path(spec.substr(kJsonFile.size()));
    if (path.empty()) return Error{"output 'json:' names no file (expected json:PATH)"};
    return JsonSink::open_file(path);
  }
  constexpr std::string_view kWebhook = "webhook:";
  if (spec.substr(0, kWebhook.size()) == kWebhook) {
    auto options =
        parse_webhook_spec(spec.substr(kWebhook.size()), [](const char* n) { return std::getenv(n); });
    if (!options) return Error{options.error()};
    return make_webhook_sink(std::move(*options));
  }
  return Error{"unknown output '" + std::string(spec) +
               "' (expected stdout, json, json:PATH or webhook:URL[,option...])"};
}

Result<std::unique_ptr<Sink>> make_webhook_sink(WebhookOptions options) {
  CgroupResolverOptions identity;
  if (!options.pods_url.empty()) {
    PodDirectoryOptions pods;
    pods.url = options.pods_url;
    pods.insecure = options.insecure;
    for (const WebhookHeader& h : options.pods_headers) pods.headers.push_back(h.name + ": " + h.value);
    identity.pods = std::make_shared<PodDirectory>(std::move(pods));
  }
  auto resolver = std::make_shared<CgroupResolver>(std::move(identity));
  auto sink = WebhookSink::create(std::move(options), stderr_notices(),
                                  [resolver](uint64_t id) { return resolver->resolve(id); });
  if (!sink) return Error{sink.error()};
  return std::unique_ptr<Sink>(std::move(*sink));
}

}  // namespace seam::runtime
