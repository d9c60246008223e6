#include "runtime/output/webhook_spool.hpp"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <filesystem>

namespace seam::runtime {
namespace {

// "00000000000000000042-17.json": sequence 42, 17 alerts. Fixed width keeps `ls` in order.
std::string file_name(uint64_t seq, uint64_t alerts) {
  char name[64];
  std::snprintf(name, sizeof name, "%020llu-%llu.json", static_cast<unsigned long long>(seq),
                static_cast<unsigned long long>(alerts));
  return name;
}

bool parse_name(const std::string& name, uint64_t& seq, uint64_t& alerts) {
  if (!name.ends_with(".json")) return false;
  size_t dash = name.find('-');
  if (dash == std::string::npos) return false;
  const char* end = name.data() + name.size() - 5;
  auto a = std::from_chars(name.data(), name.data() + dash, seq);
  auto b = std::from_chars(name.data() + dash + 1, end, alerts);
  return a.ec == std::errc() && a.ptr == name.data() + dash && b.ec == std::errc() && b.ptr == end;
}

bool write_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

Result<WebhookSpool> WebhookSpool::open(const std::string& dir, uint64_t max_bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error{"cannot create webhook spool directory '" + dir + "': " + ec.message()};
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace, ec);  // alerts can be sensitive
  WebhookSpool spool;
  spool.dir_ = dir;
  spool.max_bytes_ = max_bytes;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    uint64_t seq = 0, alerts = 0;
    if (name.ends_with(".json.tmp")) {  // a batch whose writing was cut short by a crash
      fs::remove(entry.path(), ec);
      continue;
    }
    if (!entry.is_regular_file() || !parse_name(name, seq, alerts)) continue;
    uint64_t size = entry.file_size(ec);
    if (ec) continue;
    spool.files_[seq] = {entry.path().string(), size, alerts};
    spool.bytes_ += size;
    spool.alerts_ += alerts;
    spool.next_seq_ = std::max(spool.next_seq_, seq + 1);
  }
  if (ec) return Error{"cannot read webhook spool directory '" + dir + "': " + ec.message()};
  return spool;
}

bool WebhookSpool::push(const std::string& body, uint64_t alerts) {
  if (bytes_ + body.size() > max_bytes_) return false;
  uint64_t seq = next_seq_;
  std::string path = dir_ + "/" + file_name(seq, alerts);
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  bool ok = write_all(fd, body);
  ok = ::close(fd) == 0 && ok;
  // Renamed only when complete, so a crash never leaves half a batch under a batch's name.
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return false;
  }
  ++next_seq_;
  files_[seq] = {path, body.size(), alerts};
  bytes_ += body.size();
  alerts_ += alerts;
  return true;
}

std::optional<SpooledBatch> WebhookSpool::front() {
  while (!files_.empty()) {
    auto it = files_.begin();
    int fd = ::open(it->second.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      SpooledBatch batch{it->first, it->second.alerts, {}};
      char buf[65536];
      ssize_t n;
      while ((n = ::read(fd, buf, sizeof buf)) > 0) batch.body.append(buf, static_cast<size_t>(n));
      ::close(fd);
      if (n == 0) return batch;
    }
    lost_alerts_ += it->second.alerts;  // unreadable (removed behind our back): skip, count, go on
    pop_front();
  }
  return std::nullopt;
}

void WebhookSpool::pop_front() {
  if (files_.empty()) return;
  auto it = files_.begin();
  ::unlink(it->second.path.c_str());
  bytes_ -= it->second.bytes;
  alerts_ -= it->second.alerts;
  files_.erase(it);
}

}  // namespace seam::runtime
