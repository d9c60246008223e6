#pragma once
// POST bodies for a batch of alerts.
// seam's JSON: a JSON array of the objects JsonSink writes one per line.
// Alertmanager v2 (POST /api/v2/alerts): a JSON array of
//   {"labels":{"alertname":RULE,"severity":..,"instance":HOST,"rule_file":..,"pid":..,"comm":..,
//              "cgroup":..,"container_id":..,"container_runtime":..,"pod_uid":..,"pod":..,"namespace":..},
//    "annotations":{"summary":MESSAGE,"description":..,"stack":FIRST FRAMES},
//    "startsAt":T,"endsAt":T+resolve,"generatorURL":..}
// Identity labels appear only when known (Alertmanager treats an empty label as absent anyway).
#include <chrono>
#include <span>
#include <string>

#include "runtime/identity/identity.hpp"
#include "runtime/output/alert.hpp"

namespace seam::runtime {

struct AlertmanagerContext {
  std::string instance;       // the host's name
  std::string generator_url;  // prefix; the rule's file:line is appended
  std::chrono::seconds resolve_timeout{300};
  IdentityLookup identity;  // empty: the cgroup id only
  size_t stack_frames = 8;  // frames kept in the `stack` annotation
};

std::string webhook_json_body(std::span<const Alert> alerts);
std::string alertmanager_body(std::span<const Alert> alerts, const AlertmanagerContext& context);

}  // namespace seam::runtime
