#include "runtime/run/library_hub.hpp"

#include <signal.h>

#include <algorithm>
#include <set>

#include "runtime/discover/scan_round.hpp"
#include "runtime/elf/proc_maps_round.hpp"

namespace seam::runtime {

namespace {

std::string key_of(const std::vector<plan::LibraryPattern>& patterns) {
  std::string key;
  for (const plan::LibraryPattern& p : patterns) key += (p.executable ? "x:" : "f:") + p.glob + "\x1f";
  return key;
}

}  // namespace

int LibraryHub::subscribe(const std::vector<plan::LibraryPattern>& patterns, Deliver deliver_fn) {
  std::string key = key_of(patterns);
  auto [it, fresh] = entries_.try_emplace(key);
  Entry& e = it->second;
  int id = next_id_++;
  keys_[id] = key;
  for (const discover::LibraryFile& f : e.found) deliver_fn(f);
  e.subscribers[id] = std::move(deliver_fn);
  if (fresh) {
    if (patterns_added_) patterns_added_();
    discover::Scope scope;
    scope.pid = pid_;
    scope.include_system_paths = !pid_;
    e.rescanner = std::make_unique<discover::Rescanner>(patterns, scope);
    deliver(e, e.rescanner->scan());
  }
  return id;
}

const std::vector<plan::LibraryPattern>& loader_patterns() {
  static const std::vector<plan::LibraryPattern> kLoaders = {plan::LibraryPattern{false, "ld-*.so*"}};
  return kLoaders;
}

int LibraryHub::subscribe_loaders(Deliver deliver_fn) {
  int id = subscribe(loader_patterns(), std::move(deliver_fn));
  entries_[keys_[id]].counted = false;
  return id;
}

int LibraryHub::watch_processes(const std::vector<plan::LibraryPattern>& patterns,
                                DeliverProcess deliver_fn) {
  int id = next_id_++;
  if (patterns_added_) patterns_added_();
  ProcessWatch& w = watches_[id];
  w.scanner = std::make_unique<discover::LibraryScanner>(patterns);
  w.deliver = std::move(deliver_fn);
  if (pid_)
    scan_watched(w, *pid_, false);
  else
    for (pid_t pid : discover::running_pids()) scan_watched(w, pid, false);
  return id;
}

void LibraryHub::scan_watched(ProcessWatch& w, pid_t pid, bool fresh) {
  bool was = w.delivered.count(pid) != 0;
  if (was && !fresh) return;
  discover::LibrarySet found;
  w.scanner->scan_process(pid, found);
  if (found.files().empty()) {
    w.delivered.erase(pid);
    if (was) w.deliver(pid, {});  // it exec'd into something else
    return;
  }
  w.delivered.insert(pid);
  w.deliver(pid, found.files());
}

void LibraryHub::unsubscribe(int id) {
  watches_.erase(id);
  auto k = keys_.find(id);
  if (k == keys_.end()) return;
  auto e = entries_.find(k->second);
  if (e != entries_.end()) e->second.subscribers.erase(id);  // the entry stays: its files are known
  keys_.erase(k);
}

void LibraryHub::deliver(Entry& e, std::vector<discover::LibraryFile> files) {
  for (discover::LibraryFile& f : files) {
    for (auto& [id, fn] : e.subscribers) fn(f);
    e.found.push_back(std::move(f));
  }
}

void LibraryHub::scan() {
  // Every rescanner and watch lists /proc once and reads each process's maps once.
  discover::ScanRound round;
  // Not the loaders': a loader file is found by the exec of its first process (scan_pid), and a
  // periodic walk of every process for them would double the rescans' cost.
  for (auto& [key, e] : entries_)
    if (!e.subscribers.empty() && e.counted) deliver(e, e.rescanner->scan());
  if (watches_.empty()) return;
  std::vector<pid_t> pids = pid_ ? std::vector<pid_t>{*pid_} : discover::running_pids();
  std::set<pid_t> running(pids.begin(), pids.end());
  for (auto& [id, w] : watches_) {
    std::erase_if(w.delivered, [&](pid_t p) { return !running.count(p); });  // gone: a reused pid is new
    for (pid_t pid : pids) scan_watched(w, pid, false);
  }
}

void LibraryHub::scan_pid(pid_t pid) {
  elf::ProcMapsRound round;
  for (auto& [key, e] : entries_)
    if (!e.subscribers.empty()) deliver(e, e.rescanner->scan_pid(pid));
  if (pid_ && *pid_ != pid) return;
  for (auto& [id, w] : watches_) scan_watched(w, pid, true);
}

std::vector<bool> LibraryHub::loaded(pid_t pid, const std::vector<discover::LoadedName>& names) {
  std::vector<bool> done(names.size(), true);
  for (auto& [key, e] : entries_) {
    if (e.subscribers.empty()) continue;
    discover::Rescanner::Loaded found = e.rescanner->scan_loaded(pid, names);
    for (size_t i = 0; i < names.size(); ++i) done[i] = done[i] && found.done[i];
    deliver(e, std::move(found.files));
  }
  if (pid_ && *pid_ != pid) return done;
  for (auto& watch : watches_) {
    ProcessWatch& w = watch.second;  // not a structured binding: clang 14 cannot capture one
    if (std::any_of(names.begin(), names.end(),
                    [&w](const discover::LoadedName& n) { return w.scanner->wants(n.name); }))
      scan_watched(w, pid, false);
  }
  return done;
}

size_t LibraryHub::processes() const {
  std::set<pid_t> alive;
  for (const auto& [patterns, entry] : entries_)
    if (entry.counted)
      for (const discover::LibraryFile& file : entry.found)
        for (pid_t pid : file.pids)
          if (!alive.count(pid) && ::kill(pid, 0) == 0) alive.insert(pid);
  return alive.size();
}

}  // namespace seam::runtime
