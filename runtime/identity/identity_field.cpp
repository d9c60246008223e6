#include "runtime/identity/identity_field.hpp"

namespace seam::runtime {

std::string identity_field(const Identity& identity, std::string_view name) {
  if (name == "container") return identity.container_id.substr(0, 12);
  if (name == "container_id") return identity.container_id;
  if (name == "pod") return identity.pod_name.empty() ? identity.pod_uid : identity.pod_name;
  if (name == "namespace") return identity.pod_namespace;
  return "";
}

}  // namespace seam::runtime
