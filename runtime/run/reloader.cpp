#include "runtime/run/reloader.hpp"

#include <algorithm>

#include "runtime/run/reload_plan.hpp"

namespace seam::runtime {

Reloader::Reloader(std::vector<std::string> rule_paths, HashFiles hash)
    : rule_paths_(std::move(rule_paths)), hash_(std::move(hash)) {
  if (!hash_) hash_ = hash_rule_files;
}

ReloadDecision Reloader::decide(const std::map<std::string, std::string>& running) {
  ReloadDecision out;
  std::map<std::string, std::string> on_disk = hash_(rule_paths_, &out.unlisted);
  keep_unlisted(running, out.unlisted, on_disk);
  ReloadPlan plan = plan_reload(running, failed_, on_disk);
  // A file whose text is back to what runs is no longer broken; a gone file is forgotten, and
  // a removal that failed is back when the file is.
  for (const std::string& path : plan.unchanged)
    if (auto it = running.find(path); it != running.end() && it->second == on_disk[path]) failed_.erase(path);
  std::erase_if(failed_, [&](const auto& entry) { return !on_disk.count(entry.first); });
  std::erase_if(failed_removals_, [&](const std::string& path) { return on_disk.count(path) > 0; });
  std::erase_if(plan.remove, [&](const std::string& path) { return failed_removals_.count(path) > 0; });
  out.compile = std::move(plan.compile);
  out.remove = std::move(plan.remove);
  out.unchanged = plan.unchanged.size();
  out.files = on_disk.size();
  on_disk_ = std::move(on_disk);
  return out;
}

void Reloader::failed(const ReloadDecision& decision, const std::map<std::string, std::string>& on_disk) {
  for (const std::string& path : decision.compile)
    if (auto it = on_disk.find(path); it != on_disk.end()) failed_[path] = it->second;
  failed_removals_.insert(decision.remove.begin(), decision.remove.end());
}

void Reloader::started() {
  failed_.clear();
  failed_removals_.clear();
}

}  // namespace seam::runtime
