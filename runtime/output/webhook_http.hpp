#pragma once
// One HTTP(S) POST through libcurl, with a timeout, classified for the retry policy.
// Owned and used by the delivery thread only; the connection is reused between posts.
#include <chrono>
#include <string>
#include <vector>

#include "runtime/output/webhook_options.hpp"

struct curl_slist;

namespace seam::runtime {

enum class PostOutcome {
  Delivered,  // 2xx
  Retry,      // connection refused or reset, timeout, 5xx, 429
  Rejected,   // other 4xx (and 3xx): retrying would not help
};

struct PostResult {
  PostOutcome outcome = PostOutcome::Retry;
  long status = 0;     // HTTP status, 0 when no response came
  std::string detail;  // "HTTP 503", "Timeout was reached": no header values in it
};

class WebhookPoster {
 public:
  WebhookPoster(std::string url, const std::vector<WebhookHeader>& headers, bool insecure,
                std::chrono::milliseconds timeout);
  ~WebhookPoster();
  WebhookPoster(const WebhookPoster&) = delete;
  WebhookPoster& operator=(const WebhookPoster&) = delete;

  PostResult post(const std::string& body);

 private:
  std::string url_;
  void* curl_ = nullptr;  // CURL*
  curl_slist* headers_ = nullptr;
  std::string response_;  // discarded, kept for reuse
};

}  // namespace seam::runtime
