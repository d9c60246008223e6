#pragma once
// The on-disk spool: one file per batch (the POST body, ready to resend), named by sequence
// number so that a directory listing is the delivery order, bounded by total bytes. Survives a
// restart: a new spool on the same directory continues after the highest sequence found.
// Used by the delivery thread only.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "runtime/decode/result.hpp"

namespace seam::runtime {

struct SpooledBatch {
  uint64_t seq = 0;
  uint64_t alerts = 0;
  std::string body;
};

class WebhookSpool {
 public:
  // Creates `dir` (0700) if missing and indexes the batches already there.
  static Result<WebhookSpool> open(const std::string& dir, uint64_t max_bytes);

  // False when the batch would push the spool past its bound (nothing is written then), or
  // when writing failed.
  bool push(const std::string& body, uint64_t alerts);
  // The oldest batch, read from disk; nullopt when empty.
  std::optional<SpooledBatch> front();
  // Removes the oldest batch (after it was delivered or rejected).
  void pop_front();

  bool empty() const { return files_.empty(); }
  uint64_t bytes() const { return bytes_; }
  uint64_t batches() const { return files_.size(); }
  uint64_t alerts() const { return alerts_; }
  const std::string& dir() const { return dir_; }
  // Alerts in batch files that front() could not read back and skipped.
  uint64_t lost_alerts() const { return lost_alerts_; }

 private:
  struct Entry {
    std::string path;
    uint64_t bytes = 0;
    uint64_t alerts = 0;
  };
  std::string dir_;
  uint64_t max_bytes_ = 0;
  uint64_t bytes_ = 0;
  uint64_t alerts_ = 0;
  uint64_t lost_alerts_ = 0;
  uint64_t next_seq_ = 1;
  std::map<uint64_t, Entry> files_;  // by sequence number
};

}  // namespace seam::runtime
