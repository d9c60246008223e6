// The bits an identity map entry gets (runtime/run/identity_keeper.hpp): `container` tests hold on
// the container's name from the kubelet and on its short id alike; `!=` is the kernel's negation
// of the `==` bit, so it holds on neither.
#include <gtest/gtest.h>

#include "runtime/run/identity_keeper.hpp"

namespace seam::runtime {
namespace {

plan::IdentityTest test_of(std::string field, std::string value, bool prefix = false) {
  plan::IdentityTest t;
  t.field = std::move(field);
  t.value = std::move(value);
  t.prefix = prefix;
  return t;
}

TEST(RunIdentityBits, ContainerTestsHoldOnTheNameOrTheShortId) {
  const std::string id = "b2" + std::string(62, 'b');
  std::vector<plan::IdentityTest> tests = {
      test_of("container", "sidecar"),    test_of("container", id.substr(0, 12)),
      test_of("container", "side", true), test_of("container", "app"),
      test_of("container", ""),           test_of("container", "", true)};
  Identity sidecar;
  sidecar.container_id = id;
  sidecar.container_name = "sidecar";
  EXPECT_EQ(identity_bits(tests, sidecar), 0b100111u);  // startswith "": any container
  Identity unnamed;                                     // outside Kubernetes, or no --pods: the short id only
  unnamed.container_id = id;
  EXPECT_EQ(identity_bits(tests, unnamed), 0b100010u);
  EXPECT_EQ(identity_bits(tests, Identity{}), 0b010000u) << "only `== \"\"` holds outside a container";
}

}  // namespace
}  // namespace seam::runtime
