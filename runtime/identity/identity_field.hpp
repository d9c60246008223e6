#pragma once
// The identity names rules test and metrics label (`container == "..."`, `by pod`), as one
// Identity answers them. Outside a container or pod every one is "".
#include <string>
#include <string_view>
#include <vector>

#include "runtime/identity/identity.hpp"

namespace seam::runtime {

// container: the container's name in its pod spec where the kubelet names it (--pods), else the
// container id's first 12 hex digits (as `docker ps` shows it); container_id: all 64; pod: the
// pod's name when seam knows it (--pods), else its UID; namespace: the pod's namespace (from
// --pods). Any other name: "". This is the one value a metric label `by container` shows.
std::string identity_field(const Identity& identity, std::string_view name);

// The values a test of `name` (`container == "x"`, `startswith`) holds on when one of them does:
// for a named container both its name and its short id, so a rule may name either; for every
// other name the one value of identity_field.
std::vector<std::string> identity_test_values(const Identity& identity, std::string_view name);

}  // namespace seam::runtime
