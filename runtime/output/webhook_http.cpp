#include "runtime/output/webhook_http.hpp"

#include <curl/curl.h>

#include <mutex>

namespace seam::runtime {
namespace {

size_t keep_response(char* data, size_t size, size_t count, void* user) {
  auto* out = static_cast<std::string*>(user);
  if (out->size() < 4096) out->append(data, size * count);  // only for debugging; bounded
  return size * count;
}

void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace

WebhookPoster::WebhookPoster(std::string url, const std::vector<WebhookHeader>& headers, bool insecure,
                             std::chrono::milliseconds timeout)
    : url_(std::move(url)) {
  init_curl_once();
  CURL* c = curl_easy_init();
  curl_ = c;
  headers_ = curl_slist_append(headers_, "Content-Type: application/json");
  headers_ = curl_slist_append(headers_, "Expect:");  // no 100-continue round trip
  for (const WebhookHeader& h : headers)
    headers_ = curl_slist_append(headers_, (h.name + ": " + h.value).c_str());
  if (!c) return;
  curl_easy_setopt(c, CURLOPT_URL, url_.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers_);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // we are not the main thread: no SIGALRM for DNS timeouts
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(timeout.count()));
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, insecure ? 0L : 1L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, insecure ? 0L : 2L);
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);  // a redirect would resend the secrets elsewhere
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, keep_response);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &response_);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "seam-webhook/0.1");
}

WebhookPoster::~WebhookPoster() {
  if (curl_) curl_easy_cleanup(static_cast<CURL*>(curl_));
  curl_slist_free_all(headers_);
}

PostResult WebhookPoster::post(const std::string& body) {
  PostResult r;
  CURL* c = static_cast<CURL*>(curl_);
  if (!c) {
    r.detail = "libcurl could not start";
    return r;
  }
  response_.clear();
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  CURLcode code = curl_easy_perform(c);
  if (code != CURLE_OK) {
    r.detail = curl_easy_strerror(code);
    // A URL that cannot work never will; everything else (refused, timeout, TLS that an operator
    // may fix) is retried and, if it lasts, spooled.
    bool hopeless = code == CURLE_URL_MALFORMAT || code == CURLE_UNSUPPORTED_PROTOCOL;
    r.outcome = hopeless ? PostOutcome::Rejected : PostOutcome::Retry;
    return r;
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  r.detail = "HTTP " + std::to_string(r.status);
  if (r.status >= 200 && r.status < 300)
    r.outcome = PostOutcome::Delivered;
  else if (r.status >= 500 || r.status == 429 || r.status == 408)
    r.outcome = PostOutcome::Retry;
  else
    r.outcome = PostOutcome::Rejected;
  return r;
}

}  // namespace seam::runtime
