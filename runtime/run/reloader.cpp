#include "runtime/run/reloader.hpp"

#include <algorithm>

#include "runtime/run/reload_plan.hpp"

namespace seam::runtime {

Reloader::Reloader(std::vector<std::string> rule_paths, std::vector<std::string> not_units, HashFiles hash)
    : rule_paths_(std::move(rule_paths)), not_units_(std::move(not_units)), hash_(std::move(hash)) {
  if (!hash_) hash_ = hash_rule_files;
}

ReloadDecision Reloader::decide(const std::map<std::string, std::string>& running) {
  ReloadDecision out;
  std::map<std::string, std::string> on_disk = hash_(rule_paths_, &out.unlisted);
  keep_unlisted(running, out.unlisted, on_disk);
  for (const std::string& file : not_units_) on_disk.erase(file);
  ReloadPlan plan = plan_reload(running, failed_, on_disk);
  // A file whose text is back to what runs is no longer broken; a gone file is forgotten.
  for (const std::string& path : plan.unchanged)
    if (auto it = running.find(path); it != running.end() && it->second == on_disk[path]) failed_.erase(path);
  std::erase_if(failed_, [&](const auto& entry) { return !on_disk.count(entry.first); });
  out.compile = std::move(plan.compile);
  out.remove = std::move(plan.remove);
  out.unchanged = plan.unchanged.size();
  return out;
}

void Reloader::failed(const std::string& path, const std::string& hash, bool conflict) {
  failed_[path] = hash;
  if (conflict) conflicted_.insert(path);
}

void Reloader::started(const std::string& path) {
  failed_.erase(path);
}

bool Reloader::retry_conflicts() {
  bool again = false;
  for (const std::string& path : conflicted_)
    if (failed_.erase(path)) again = true;
  conflicted_.clear();
  return again;
}

}  // namespace seam::runtime
