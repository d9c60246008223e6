#pragma once
// The identity names rules test and metrics label (`container == "..."`, `by pod`), as one
// Identity answers them. Outside a container or pod every one is "".
#include <string>
#include <string_view>

#include "runtime/identity/identity.hpp"

namespace seam::runtime {

// container: the container id's first 12 hex digits (as stdout alerts and `docker ps` show it);
// container_id: all 64; pod: the pod's name when seam knows it (--pods), else its UID;
// namespace: the pod's namespace (from --pods). Any other name: "".
std::string identity_field(const Identity& identity, std::string_view name);

}  // namespace seam::runtime
