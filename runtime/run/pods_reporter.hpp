#pragma once
// `seam run --pods URL`: pod names for alerts come from a kubelet-like PodList endpoint. Its
// failures never stop seam (alerts keep their pod UID); they are reported once as a
// "pods-unavailable" notice, and once more as "pods-available" when a later fetch succeeds.
#include <memory>
#include <optional>
#include <string>

#include "runtime/identity/pod_directory.hpp"
#include "runtime/output/alert.hpp"

namespace seam::runtime {

class PodsReporter {
 public:
  PodsReporter(std::shared_ptr<PodDirectory> pods, std::string shown_url)
      : pods_(std::move(pods)), shown_url_(std::move(shown_url)) {}

  // A notice when the directory's state changed since the last call; the session calls it once a second.
  std::optional<Notice> check();

 private:
  std::shared_ptr<PodDirectory> pods_;
  std::string shown_url_;
  bool failing_ = false;
};

}  // namespace seam::runtime
