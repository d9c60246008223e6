#include "runtime/load/feature_cache.hpp"

#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "compiler/build/content_hash.hpp"
#include "compiler/build/object_cache.hpp"

namespace seam::runtime {

namespace {

constexpr int kFormat = 1;

nlohmann::json to_json(const FeatureStatus& s) {
  return {{"available", s.available}, {"reason", s.reason}};
}

bool from_json(const nlohmann::json& j, FeatureStatus& s) {
  if (!j.is_object() || !j.contains("available") || !j["available"].is_boolean()) return false;
  s.available = j["available"].get<bool>();
  s.reason = j.value("reason", "");
  return true;
}

}  // namespace

std::string boot_cache_path(const std::string& dir, const std::string& name) {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string boot_id;
  if (!(in >> boot_id) || boot_id.empty()) return {};
  utsname u{};
  uname(&u);
  std::string key = build::ContentHash()
                        .add(boot_id)
                        .add(u.release)
                        .add(u.version)
                        .add(std::to_string(geteuid()))
                        .add(std::to_string(kFormat))
                        .hex();
  return dir + "/" + name + "-" + key.substr(0, 32) + ".json";
}

std::optional<nlohmann::json> read_boot_cache(const std::string& path) {
  if (path.empty()) return std::nullopt;
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
    return std::nullopt;
  std::ifstream in(path);
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("format", 0) != kFormat) return std::nullopt;
  return j;
}

bool write_boot_cache(const std::string& path, const nlohmann::json& value) {
  if (path.empty()) return false;
  nlohmann::json j = value;
  j["format"] = kFormat;
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << j.dump() << "\n";
    if (!out.flush()) {
      std::filesystem::remove(tmp, ec);
      return false;
    }
  }
  chmod(tmp.c_str(), 0644);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::filesystem::remove(tmp, ec);
    return false;
  }
  return true;
}

std::string feature_cache_path(const std::string& dir) {
  return boot_cache_path(dir, "features");
}

std::optional<FeatureSet> read_feature_cache(const std::string& path) {
  std::optional<nlohmann::json> j = read_boot_cache(path);
  if (!j || !j->contains("features") || !(*j)["features"].is_object()) return std::nullopt;
  FeatureSet s;
  for (plan::Feature f : FeatureSet::kAll)
    if (!from_json((*j)["features"].value(plan::to_string(f), nlohmann::json()), s.at(f)))
      return std::nullopt;
  if (!from_json(j->value("uprobe_multi", nlohmann::json()), s.uprobe_multi)) return std::nullopt;
  s.from_cache = true;
  return s;
}

bool write_feature_cache(const std::string& path, const FeatureSet& features) {
  nlohmann::json j;
  for (plan::Feature f : FeatureSet::kAll) j["features"][plan::to_string(f)] = to_json(features.at(f));
  j["uprobe_multi"] = to_json(features.uprobe_multi);
  return write_boot_cache(path, j);
}

ProbeAnswer answer_once_per_boot(const char* off_env, const std::string& name,
                                 const std::function<ProbeAnswer()>& probe) {
  if (const char* off = std::getenv(off_env); off && *off && std::string(off) != "0")
    return {false, std::string(off_env) + " is set"};
  std::string path = boot_cache_path(build::default_cache_dir(), name);
  if (std::optional<nlohmann::json> j = read_boot_cache(path);
      j && j->contains("usable") && (*j)["usable"].is_boolean())
    return {(*j)["usable"].get<bool>(), j->value("reason", "")};
  ProbeAnswer probed = probe();
  write_boot_cache(path, {{"usable", probed.usable}, {"reason", probed.reason}});
  return probed;
}

}  // namespace seam::runtime
