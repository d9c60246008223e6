#pragma once
// The feature probes (features.hpp, task_storage_probe.hpp) load and attach small programs on
// every start; their answer only changes with the kernel. So it is kept in the cache folder per
// boot: the key is the boot id (/proc/sys/kernel/random/boot_id, new at every boot), the kernel
// release and build, and the effective uid (an unprivileged run sees less). A file that is not
// ours, or that others may write, is ignored.
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/load/features.hpp"

namespace seam::runtime {

// "<dir>/<name>-<hash of boot id, kernel, euid>.json"; "" when the boot id is unreadable.
std::string boot_cache_path(const std::string& dir, const std::string& name);
std::optional<nlohmann::json> read_boot_cache(const std::string& path);
// Written to a temporary file and renamed into place. False when it cannot be written.
bool write_boot_cache(const std::string& path, const nlohmann::json& value);

// A yes-or-no probe's answer (task_storage_probe.hpp, uprobe_session_probe.hpp).
struct ProbeAnswer {
  bool usable = false;
  std::string reason;  // why not, for people
};
// `off_env` set to anything but "0" says no without probing (tests of the fallback, and ruling a
// feature out); else the boot cache `name` in the object cache's folder answers; else `probe`
// runs and its answer is kept there.
ProbeAnswer answer_once_per_boot(const char* off_env, const std::string& name,
                                 const std::function<ProbeAnswer()>& probe);

std::string feature_cache_path(const std::string& dir);  // boot_cache_path(dir, "features")
std::optional<FeatureSet> read_feature_cache(const std::string& path);
bool write_feature_cache(const std::string& path, const FeatureSet& features);

}  // namespace seam::runtime
