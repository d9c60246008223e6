#pragma once
// The feature probes (features.hpp, task_storage_probe.hpp) load and attach small programs on
// every start; their answer only changes with the kernel. So it is kept in the cache folder per
// boot: the key is the boot id (/proc/sys/kernel/random/boot_id, new at every boot), the kernel
// release and build, and the effective uid (an unprivileged run sees less). A file that is not
// ours, or that others may write, is ignored.
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

std::string feature_cache_path(const std::string& dir);  // boot_cache_path(dir, "features")
std::optional<FeatureSet> read_feature_cache(const std::string& path);
bool write_feature_cache(const std::string& path, const FeatureSet& features);

}  // namespace seam::runtime
