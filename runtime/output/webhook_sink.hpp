#pragma once
// The webhook output: alerts POSTed as seam's JSON or to Alertmanager's v2 API. write() only
// queues (see WebhookDelivery), so a slow or dead endpoint never slows the pipeline or the other
// sinks. Notices from the pipeline are not sent (a webhook carries alerts); the sink's own
// notices (endpoint down, drops) go to the callback, from the delivery thread.
#include <memory>

#include "runtime/identity/identity.hpp"
#include "runtime/output/sink.hpp"
#include "runtime/output/webhook_delivery.hpp"
#include "runtime/output/webhook_options.hpp"

namespace seam::runtime {

class WebhookSink : public Sink {
 public:
  // `identity` labels Alertmanager alerts with container and pod (called on the delivery thread).
  static Result<std::unique_ptr<WebhookSink>> create(WebhookOptions options, NoticeCallback on_notice,
                                                     IdentityLookup identity = {});

  void write(const Alert& alert) override { delivery_->enqueue(alert); }
  void write_notice(const Notice&) override {}
  // Called per batch of records: sends what is queued without waiting for the batch to fill.
  // The bounded wait for delivery happens at destruction (exit), or in finish().
  void flush() override { delivery_->send_now(); }
  void finish() { delivery_->finish(options_timeout_); }

  DeliveryStats stats() const { return delivery_->stats(); }
  // As seam_output_*{output="webhook:URL"} (the URL without credentials).
  void counters(std::vector<metrics::OutputCounter>& out) const override;
  std::string name() const override { return name_; }
  bool queues_itself() const override { return true; }

 private:
  WebhookSink(std::unique_ptr<WebhookDelivery> delivery, std::chrono::milliseconds drain, std::string name)
      : delivery_(std::move(delivery)), options_timeout_(drain), name_(std::move(name)) {}
  std::unique_ptr<WebhookDelivery> delivery_;
  std::chrono::milliseconds options_timeout_;
  std::string name_;
};

// Alertmanager's alerts endpoint for a URL given as just the server ("http://am:9093"); any URL
// with a path is kept as it is.
std::string alertmanager_endpoint(const std::string& url);

// A notice callback that writes "seam: webhook: MESSAGE" lines to stderr, one write() each.
NoticeCallback stderr_notices();

}  // namespace seam::runtime
