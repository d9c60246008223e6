#pragma once
// `seam run --pods URL [--pods-token-file FILE] [--pods-insecure]`: where alerts' pod name and
// namespace come from (the kubelet's /pods, or the API server's pod list for this node).
#include <functional>
#include <memory>
#include <string>

#include "runtime/decode/result.hpp"
#include "runtime/identity/pod_directory.hpp"

namespace seam::cli {

struct PodsFlags {
  std::string url;         // "" : no pod names, only the UID from the cgroup path
  std::string token_file;  // a bearer token, read at start (a service account's token)
  bool insecure = false;   // TLS verification off (kubelets' self-signed certificates)
};

// The directory for the flags (nullptr without --pods), or why they are wrong: a URL that is not
// http(s), an unreadable or empty token file. Without a token file, $SEAM_PODS_TOKEN is the token
// when set.
runtime::Result<std::shared_ptr<runtime::PodDirectory>> pod_directory(
    const PodsFlags& flags, const std::function<const char*(const char*)>& getenv);

}  // namespace seam::cli
