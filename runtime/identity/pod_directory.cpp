#include "runtime/identity/pod_directory.hpp"

#include <curl/curl.h>

#include <nlohmann/json.hpp>

namespace seam::runtime {
namespace {

size_t append_body(char* data, size_t size, size_t count, void* user) {
  auto* out = static_cast<std::string*>(user);
  if (out->size() > (64u << 20)) return 0;  // a pod list is not this big: abort the transfer
  out->append(data, size * count);
  return size * count;
}

Result<std::string> http_get(const PodDirectoryOptions& o) {
  CURL* c = curl_easy_init();
  if (!c) return Error{"libcurl could not start"};
  std::string body;
  curl_slist* headers = nullptr;
  for (const std::string& h : o.headers) headers = curl_slist_append(headers, h.c_str());
  curl_easy_setopt(c, CURLOPT_URL, o.url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(o.timeout.count()));
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, o.insecure ? 0L : 1L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, o.insecure ? 0L : 2L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
  CURLcode code = curl_easy_perform(c);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(c);
  if (code != CURLE_OK) return Error{std::string("pod list: ") + curl_easy_strerror(code)};
  if (status != 200) return Error{"pod list: HTTP " + std::to_string(status)};
  return body;
}

// "containerd://<id>", "cri-o://<id>", "docker://<id>" -> "<id>".
std::string without_scheme(const std::string& container_id) {
  size_t scheme = container_id.find("://");
  return scheme == std::string::npos ? container_id : container_id.substr(scheme + 3);
}

void add_container_names(const nlohmann::json& status, std::unordered_map<std::string, std::string>& out) {
  for (const char* key : {"containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"}) {
    auto list = status.find(key);
    if (list == status.end() || !list->is_array()) continue;
    for (const auto& c : *list) {
      if (!c.is_object()) continue;
      auto name = c.find("name");
      auto id = c.find("containerID");
      if (name == c.end() || !name->is_string() || id == c.end() || !id->is_string()) continue;
      std::string bare = without_scheme(id->get<std::string>());
      if (!bare.empty()) out[bare] = name->get<std::string>();
    }
  }
}

}  // namespace

Result<PodMap> parse_pod_list(std::string_view text) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return Error{"pod list: not a JSON object"};
  auto items = doc.find("items");
  if (items == doc.end() || !items->is_array()) return Error{"pod list: no \"items\" array"};
  PodMap pods;
  for (const auto& item : *items) {
    if (!item.is_object()) continue;
    auto meta = item.find("metadata");
    if (meta == item.end() || !meta->is_object()) continue;
    auto text_of = [&](const char* key) {
      auto it = meta->find(key);
      return it != meta->end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    std::string uid = text_of("uid");
    if (uid.empty()) continue;
    PodInfo& pod = pods[uid] = {text_of("name"), text_of("namespace"), {}};
    if (auto status = item.find("status"); status != item.end() && status->is_object())
      add_container_names(*status, pod.containers);
  }
  return pods;
}

void PodDirectory::fetch_locked() {
  ++fetches_;
  fetched_ = true;
  last_fetch_ = std::chrono::steady_clock::now();
  auto body = http_get(options_);
  if (!body) {
    last_error_ = body.error();
    return;
  }
  auto pods = parse_pod_list(*body);
  if (!pods) {
    last_error_ = pods.error();
    return;
  }
  pods_ = std::move(*pods);
  last_error_.clear();
}

std::optional<PodInfo> PodDirectory::lookup(const std::string& pod_uid, const std::string& container_id) {
  // Held across the fetch on purpose: concurrent misses wait for one fetch, not start many.
  std::lock_guard lock(mu_);
  auto age = std::chrono::steady_clock::now() - last_fetch_;
  bool refreshed = !fetched_ || age >= options_.refresh;
  if (refreshed) fetch_locked();
  auto it = pods_.find(pod_uid);
  if (refreshed) refetched_for_.clear();
  // A container the list lacks refetches once: a pod's sandbox ("pause") container is never in
  // it, and the walk asks about every cgroup every rescan.
  bool unknown_pod = it == pods_.end();
  bool unknown_container = !unknown_pod && !container_id.empty() &&
                           !it->second.containers.count(container_id) && !refetched_for_.count(container_id);
  if ((unknown_pod || unknown_container) && !refreshed && age >= options_.min_refetch) {
    if (unknown_container) refetched_for_.insert(container_id);
    fetch_locked();
    it = pods_.find(pod_uid);
  }
  if (it == pods_.end()) return std::nullopt;
  return it->second;
}

uint64_t PodDirectory::fetches() const {
  std::lock_guard lock(mu_);
  return fetches_;
}

std::string PodDirectory::last_error() const {
  std::lock_guard lock(mu_);
  return last_error_;
}

}  // namespace seam::runtime
