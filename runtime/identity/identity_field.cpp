#include "runtime/identity/identity_field.hpp"

namespace seam::runtime {

std::string identity_field(const Identity& identity, std::string_view name) {
  if (name == "container")
    return identity.container_name.empty() ? identity.container_id.substr(0, 12) : identity.container_name;
  if (name == "container_id") return identity.container_id;
  if (name == "pod") return identity.pod_name.empty() ? identity.pod_uid : identity.pod_name;
  if (name == "namespace") return identity.pod_namespace;
  return "";
}

std::vector<std::string> identity_test_values(const Identity& identity, std::string_view name) {
  if (name == "container" && !identity.container_name.empty())
    return {identity.container_name, identity.container_id.substr(0, 12)};
  return {identity_field(identity, name)};
}

}  // namespace seam::runtime
