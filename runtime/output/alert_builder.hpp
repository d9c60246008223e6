#pragma once
// DecodedRecord → Alert: renders the message, picks the `with` fields, symbolizes stacks.
// build() reuses the Alert's buffers, so the pipeline keeps one Alert and refills it.
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/decode/decoded_record.hpp"
#include "runtime/output/alert.hpp"

namespace seam::runtime {

// Appends the message: literal parts as written; holes print the record's field they were
// resolved to (formatted by unit), else their header value (pid, tid, comm, cgroup or time);
// an unresolved hole prints as "{name}" so the gap is visible.
void render_message(const std::vector<plan::MessagePart>& parts, const DecodedRecord& record,
                    const EnumNamer& enum_namer, std::string& out);

class AlertBuilder {
 public:
  explicit AlertBuilder(StackSymbolizer symbolizer = {}, EnumNamer enum_namer = {},
                        StackUnwinder unwinder = {}, PyStackNamer py_namer = {});

  // Fills `out` from `record` (record.rule must be set). Stacks are symbolized here: call it
  // only for alerts that will be written.
  void build(const DecodedRecord& record, uint64_t suppressed, Alert& out) const;
  Alert build(const DecodedRecord& record, uint64_t suppressed = 0) const;

  const EnumNamer& enum_namer() const { return enum_namer_; }

 private:
  void symbolize(uint32_t pid, const std::vector<uint64_t>& addrs, AlertStack& out) const;
  bool unwind(const DecodedRecord& record, AlertStack& out) const;
  void name_python(const DecodedRecord& record, const std::string& bytes, AlertStack& out) const;

  StackSymbolizer symbolizer_;
  StackUnwinder unwinder_;
  PyStackNamer py_namer_;
  EnumNamer enum_namer_;
};

}  // namespace seam::runtime
