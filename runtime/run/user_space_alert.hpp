#pragma once
// Alerts made in user space rather than from a kernel record: spans still in flight past a
// bound (`pending > 60s`) and windowed rules over metrics. Rendered like decoded ones.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "compiler/plan/plan.hpp"
#include "runtime/output/alert.hpp"

namespace seam::runtime {

struct UserSpaceValue {
  std::string name;
  double value = 0;
  plan::FieldUnit unit = plan::FieldUnit::None;
};

// Fills `out` for `rule`: wall-clock time now, the message with every hole naming one of
// `values` (or pid, tid, comm) filled in, and the values as fields.
void make_user_space_alert(const plan::Rule& rule, uint32_t pid, uint32_t tid, const std::string& comm,
                           const std::vector<UserSpaceValue>& values,
                           const std::vector<std::pair<std::string, std::string>>& labels, Alert& out);

// The task's name and process id from /proc, for a thread id seen in a map key.
std::pair<uint32_t, std::string> task_identity(uint32_t tid);

}  // namespace seam::runtime
