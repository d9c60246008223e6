#include "runtime/run/reload_plan.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include "compiler/build/content_hash.hpp"

namespace seam::runtime {

namespace fs = std::filesystem;

namespace {

// What names the same file whatever the spelling (`rules/./a.seam`, a symlink): its real path;
// for a missing file, the normalised absolute path.
std::string identity(const std::string& path) {
  std::error_code ec;
  fs::path real = fs::canonical(path, ec);
  if (ec) real = fs::absolute(path, ec).lexically_normal();
  return real.string();
}

}  // namespace

std::vector<std::string> rule_files(const std::vector<std::string>& paths,
                                    std::vector<std::string>* unlisted) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& file) {
    if (seen.insert(identity(file)).second) out.push_back(file);  // the first spelling wins
  };
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
      add(path);  // a missing file is compiled anyway: reading it reports the error
      continue;
    }
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::end(it); it.increment(ec)) {
      std::error_code type_ec;
      if (it->path().extension() == ".seam" && !it->is_directory(type_ec))
        found.push_back(it->path().string());
    }
    if (ec && unlisted) unlisted->push_back(path);
    std::sort(found.begin(), found.end());
    for (const std::string& file : found) add(file);
  }
  return out;
}

std::map<std::string, std::string> hash_rule_files(const std::vector<std::string>& paths,
                                                   std::vector<std::string>* unlisted) {
  std::map<std::string, std::string> out;
  for (const std::string& file : rule_files(paths, unlisted)) out[file] = build::hash_file(file);
  return out;
}

void keep_unlisted(const std::map<std::string, std::string>& running,
                   const std::vector<std::string>& unlisted, std::map<std::string, std::string>& on_disk) {
  for (const auto& [path, hash] : running) {
    if (on_disk.count(path)) continue;
    for (const std::string& dir : unlisted) {
      std::string prefix = dir.ends_with('/') ? dir : dir + "/";
      if (path.rfind(prefix, 0) == 0) on_disk[path] = hash;
    }
  }
}

ReloadPlan plan_reload(const std::map<std::string, std::string>& running,
                       const std::map<std::string, std::string>& failed,
                       const std::map<std::string, std::string>& on_disk) {
  ReloadPlan plan;
  for (const auto& [path, hash] : on_disk) {
    auto run = running.find(path);
    auto bad = failed.find(path);
    bool same_as_running = run != running.end() && run->second == hash;
    bool same_as_failed = bad != failed.end() && bad->second == hash;
    if (same_as_running || same_as_failed)
      plan.unchanged.push_back(path);
    else
      plan.compile.push_back(path);
  }
  for (const auto& [path, hash] : running)
    if (!on_disk.count(path)) plan.remove.push_back(path);
  return plan;
}

void Debouncer::event(int64_t now_ms) {
  if (first_ < 0) first_ = now_ms;
  last_ = now_ms;
}

bool Debouncer::due(int64_t now_ms) {
  if (first_ < 0) return false;
  if (now_ms - last_ < quiet_ms_ && now_ms - first_ < max_ms_) return false;
  first_ = last_ = -1;
  return true;
}

}  // namespace seam::runtime
