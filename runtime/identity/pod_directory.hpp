#pragma once
// Pod names and namespaces by pod UID, and the names of their containers by container id, from a
// kubelet-like endpoint: `GET URL` answering a PodList ({"items":[{"metadata":{"uid":..,"name":..,
// "namespace":..},"status":{"containerStatuses":[{"name":..,"containerID":"containerd://<64hex>"}]}}]}),
// e.g. the kubelet's
// http://127.0.0.1:10255/pods or https://NODE:10250/pods with a bearer token. Cached; refetched
// when older than `refresh`, or on an unknown UID or container id once `min_refetch` has passed (a
// pod or a container that just started). A failed fetch keeps the last good list. Thread-safe.
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "runtime/decode/result.hpp"

namespace seam::runtime {

struct PodInfo {
  std::string name;
  std::string namespace_;
  // Container id (the 64 hex digits, without the "containerd://" scheme) -> the container's name
  // in the pod spec, from status.containerStatuses, initContainerStatuses and
  // ephemeralContainerStatuses (a container not started yet has no id there).
  std::unordered_map<std::string, std::string> containers;
};

using PodMap = std::unordered_map<std::string, PodInfo>;  // by UID

// Parses a PodList; items without a uid are skipped.
Result<PodMap> parse_pod_list(std::string_view json);

struct PodDirectoryOptions {
  std::string url;
  std::vector<std::string> headers;  // "Authorization: Bearer ..." (secrets: never printed)
  bool insecure = false;             // TLS verification off (kubelets often have self-signed certs)
  std::chrono::milliseconds timeout{2000};
  std::chrono::milliseconds refresh{60'000};
  std::chrono::milliseconds min_refetch{5'000};
};

class PodDirectory {
 public:
  explicit PodDirectory(PodDirectoryOptions options) : options_(std::move(options)) {}

  // `container_id` (optional): a pod known but without this container (one that just started)
  // refetches too, like an unknown pod, but once per container id until the next refresh.
  std::optional<PodInfo> lookup(const std::string& pod_uid, const std::string& container_id = "");
  uint64_t fetches() const;
  std::string last_error() const;  // "" after a good fetch

 private:
  void fetch_locked();

  PodDirectoryOptions options_;
  mutable std::mutex mu_;
  PodMap pods_;
  std::unordered_set<std::string>
      refetched_for_;  // container ids a refetch was made for, since the last refresh
  bool fetched_ = false;
  std::chrono::steady_clock::time_point last_fetch_{};
  uint64_t fetches_ = 0;
  std::string last_error_;
};

}  // namespace seam::runtime
