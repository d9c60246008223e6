#pragma once
// Tracepoints of an event class (sched_wakeup, page_fault_user, mm_vmscan_direct_reclaim_begin)
// have no `struct trace_event_raw_<event>` in the kernel's BTF: the class's struct
// (trace_event_raw_sched_wakeup_template, trace_event_raw_x86_exceptions) holds their fields.
// BTF does not say which class an event belongs to, so the event's tracefs `format` file does:
// the class struct is the one whose members have the event's field names at the event's offsets.
#include <string>
#include <vector>

#include "compiler/build/btf_types.hpp"
#include "compiler/diag/result.hpp"

namespace seam::build {

struct TracepointField {
  std::string name;  // as BTF names the member: `args`, `__data_loc_name` for dynamic fields
  unsigned offset = 0;
  unsigned size = 0;   // bytes, the whole array's for an array
  unsigned count = 0;  // elements of an array field (`args[6]`: 6), 0 for a scalar
  bool is_signed = false;
};

// The fields of the event's tracefs format text (common_* fields left out).
std::vector<TracepointField> parse_tracepoint_format(const std::string& format_text);

// The event's format file under the mounted tracefs (events/*/EVENT/format); empty when absent.
std::string tracepoint_format_path(const std::string& event);

// The BTF type id of the struct that lays out `event`'s record, or why none does.
Result<int> find_tracepoint_class(const BtfTypes& types, const std::string& event);

// The per-syscall tracepoints (syscalls:sys_enter_futex) share struct syscall_trace_enter
// {nr; args[6]}, whose members are not the names their format files give the arguments (uaddr,
// op, val). For an event no trace_event_raw_* struct lays out, this writes
// `struct trace_event_raw_<event>` from its format file: each field an integer of its size at its
// offset, padding between. An error when the format file cannot be read.
// The struct is not the kernel's, so it must be compiled without preserve_access_index.
Result<std::string> tracepoint_struct_from_format(const std::string& event);

// The same, from format text already read (for tests).
std::string tracepoint_struct_from_fields(const std::string& event,
                                          const std::vector<TracepointField>& fields);

}  // namespace seam::build
