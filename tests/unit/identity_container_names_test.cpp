// Container names from the kubelet's pod list: status.containerStatuses (and the init and
// ephemeral lists) name each container id; `container` is that name where the kubelet gives it,
// else the short id, and a test of `container` holds on either.
#include <gtest/gtest.h>

#include <mutex>

#include "runtime/identity/identity_field.hpp"
#include "runtime/identity/pod_directory.hpp"
#include "unit/output_webhook_http_server.hpp"

namespace seam::runtime {
namespace {

using namespace std::chrono_literals;

const std::string kUid = "7a6b5c4d-3e2f-1a0b-9c8d-7e6f5a4b3c2d";
const std::string kApp = "a1" + std::string(62, 'a');
const std::string kSidecar = "b2" + std::string(62, 'b');

std::string pod_with(const std::string& statuses) {
  return R"({"kind":"PodList","items":[{"metadata":{"uid":")" + kUid +
         R"(","name":"llm-0","namespace":"inference"},"status":{)" + statuses + "}}]}";
}

TEST(IdentityContainerNames, PodListNamesContainersByTheirIdWithoutTheRuntimeScheme) {
  auto pods = parse_pod_list(pod_with(
      R"("containerStatuses":[{"name":"app","containerID":"containerd://)" + kApp +
      R"("},{"name":"sidecar","containerID":"cri-o://)" + kSidecar +
      R"("},{"name":"waiting","state":{"waiting":{}}}],"initContainerStatuses":[{"name":"init","containerID":"docker://)" +
      std::string(64, 'c') + R"("}],"ephemeralContainerStatuses":[{"name":"debug","containerID":")" +
      std::string(64, 'd') + R"("}])"));
  ASSERT_TRUE(pods.ok()) << pods.error();
  const PodInfo& pod = pods->at(kUid);
  EXPECT_EQ(pod.name, "llm-0");
  ASSERT_EQ(pod.containers.size(), 4u) << "a container not started yet has no id and is left out";
  EXPECT_EQ(pod.containers.at(kApp), "app");
  EXPECT_EQ(pod.containers.at(kSidecar), "sidecar");
  EXPECT_EQ(pod.containers.at(std::string(64, 'c')), "init");
  EXPECT_EQ(pod.containers.at(std::string(64, 'd')), "debug");
  auto bare = parse_pod_list(pod_with(R"("phase":"Pending")"));
  ASSERT_TRUE(bare.ok());
  EXPECT_TRUE(bare->at(kUid).containers.empty());
}

TEST(IdentityContainerNames, ContainerIsTheNameWhereKnownAndATestHoldsOnNameOrShortId) {
  Identity id;
  id.container_id = kSidecar;
  EXPECT_EQ(identity_field(id, "container"), kSidecar.substr(0, 12));
  EXPECT_EQ(identity_test_values(id, "container"), std::vector<std::string>{kSidecar.substr(0, 12)});
  id.container_name = "sidecar";
  EXPECT_EQ(identity_field(id, "container"), "sidecar");
  EXPECT_EQ(identity_field(id, "container_id"), kSidecar);
  EXPECT_EQ(identity_test_values(id, "container"),
            (std::vector<std::string>{"sidecar", kSidecar.substr(0, 12)}));
  EXPECT_EQ(identity_test_values(id, "container_id"), std::vector<std::string>{kSidecar});
  EXPECT_EQ(identity_field(Identity{}, "container"), "");
}

TEST(IdentityContainerNames, AContainerTheListLacksRefetchesOnceUntilTheNextRefresh) {
  std::mutex mu;
  std::string body =
      pod_with(R"("containerStatuses":[{"name":"app","containerID":"containerd://)" + kApp + R"("}])");
  test::TestHttpServer kubelet([&](const test::HttpRequest&) {
    std::lock_guard lock(mu);
    return test::HttpReply{200, body, false};
  });
  PodDirectoryOptions o;
  o.url = kubelet.url("/pods");
  o.min_refetch = 0ms;
  PodDirectory pods(o);
  ASSERT_TRUE(pods.lookup(kUid, kApp).has_value()) << pods.last_error();
  EXPECT_EQ(pods.fetches(), 1u);
  EXPECT_EQ(pods.lookup(kUid, kApp)->containers.at(kApp), "app");
  EXPECT_EQ(pods.fetches(), 1u);  // known: cached
  {
    std::lock_guard lock(mu);
    body = pod_with(R"("containerStatuses":[{"name":"app","containerID":"containerd://)" + kApp +
                    R"("},{"name":"sidecar","containerID":"containerd://)" + kSidecar + R"("}])");
  }
  auto late = pods.lookup(kUid, kSidecar);  // started since: refetched
  ASSERT_TRUE(late.has_value());
  EXPECT_EQ(late->containers.at(kSidecar), "sidecar");
  EXPECT_EQ(pods.fetches(), 2u);
  const std::string pause(64, 'e');  // a pod's sandbox: never in the list
  EXPECT_FALSE(pods.lookup(kUid, pause)->containers.count(pause));
  EXPECT_EQ(pods.fetches(), 3u);
  pods.lookup(kUid, pause);
  pods.lookup(kUid, pause);
  EXPECT_EQ(pods.fetches(), 3u) << "one refetch per unknown container, not one per rescan";
}

}  // namespace
}  // namespace seam::runtime
