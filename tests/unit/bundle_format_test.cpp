// compiler/bundle/: what `seam build` writes comes back whole, and anything else is refused
// with a reason: not a bundle, truncated, corrupt, another engine ABI.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <functional>

#include "compiler/bundle/bundle.hpp"

namespace seam::bundle {
namespace {

Bundle sample() {
  Bundle b;
  b.engine_version = "seam 0.1.0 (git test)";
  b.built_on_kernel = "Linux 6.1.0 x86_64";
  b.sources = {{"rules/gil.seam", "00ff"}, {"stdlib/cuda.seam", "11ee"}};
  Variant lru;
  lru.plan.rules.push_back({});
  lru.plan.rules.back().name = "sync_while_gil";
  lru.object = {0x7f, 'E', 'L', 'F', 1, 2, 3};
  lru.plan.outputs.push_back({"ops", plan::OutputKind::Webhook, "https://hook.example/x",
                              plan::WebhookFormat::Alertmanager, "r.seam:1"});
  plan::RouteCondition severe;
  severe.kind = plan::RouteCondition::Kind::Severity;
  severe.compare = plan::Compare::Ge;
  severe.severity = plan::Severity::Error;
  plan::RouteCondition not_sync;
  not_sync.kind = plan::RouteCondition::Kind::Rule;
  not_sync.compare = plan::Compare::Ne;
  not_sync.text = "sync";
  plan::RouteCondition both;
  both.kind = plan::RouteCondition::Kind::And;
  both.operands = {severe, not_sync};
  lru.plan.routes.push_back({both, {"ops"}, "r.seam:2"});
  Variant task = lru;
  task.task_storage = true;
  task.object = {0x7f, 'E', 'L', 'F', 9};
  b.variants = {lru, task};
  return b;
}

// Replaces the header with `edit(header)`, keeping the objects.
std::vector<uint8_t> with_header(const std::vector<uint8_t>& bytes,
                                 const std::function<void(nlohmann::json&)>& edit) {
  uint64_t len = 0;
  for (int i = 0; i < 8; ++i) len |= static_cast<uint64_t>(bytes[8 + i]) << (8 * i);
  nlohmann::json header =
      nlohmann::json::parse(bytes.begin() + 16, bytes.begin() + 16 + static_cast<long>(len));
  edit(header);
  std::string text = header.dump();
  std::vector<uint8_t> out(bytes.begin(), bytes.begin() + 8);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(text.size() >> (8 * i)));
  out.insert(out.end(), text.begin(), text.end());
  out.insert(out.end(), bytes.begin() + 16 + static_cast<long>(len), bytes.end());
  return out;
}

TEST(BundleFormat, RoundTrip) {
  std::vector<uint8_t> bytes = encode(sample());
  ASSERT_EQ(std::memcmp(bytes.data(), "SEAMBNDL", 8), 0);
  Decoded d = decode(bytes);
  ASSERT_TRUE(d.bundle) << d.error;
  EXPECT_EQ(d.bundle->engine_abi, kEngineAbi);
  EXPECT_EQ(d.bundle->engine_version, "seam 0.1.0 (git test)");
  EXPECT_EQ(d.bundle->built_on_kernel, "Linux 6.1.0 x86_64");
  ASSERT_EQ(d.bundle->sources.size(), 2u);
  EXPECT_EQ(d.bundle->sources[1].path, "stdlib/cuda.seam");
  EXPECT_EQ(d.bundle->sources[1].hash, "11ee");
  ASSERT_EQ(d.bundle->variants.size(), 2u);
  EXPECT_FALSE(d.bundle->variants[0].task_storage);
  EXPECT_EQ(d.bundle->variants[0].object, sample().variants[0].object);
  // The rule files' outputs and routes travel in the plan.
  const plan::Plan& p = d.bundle->variants[0].plan;
  ASSERT_EQ(p.outputs.size(), 1u);
  EXPECT_EQ(p.outputs[0].name, "ops");
  EXPECT_EQ(p.outputs[0].kind, plan::OutputKind::Webhook);
  EXPECT_EQ(p.outputs[0].target, "https://hook.example/x");
  EXPECT_EQ(p.outputs[0].format, plan::WebhookFormat::Alertmanager);
  ASSERT_EQ(p.routes.size(), 1u);
  EXPECT_EQ(p.routes[0].outputs, std::vector<std::string>{"ops"});
  EXPECT_EQ(p.routes[0].origin, "r.seam:2");
  const plan::RouteCondition& c = p.routes[0].condition;
  EXPECT_EQ(c.kind, plan::RouteCondition::Kind::And);
  ASSERT_EQ(c.operands.size(), 2u);
  EXPECT_EQ(c.operands[0].kind, plan::RouteCondition::Kind::Severity);
  EXPECT_EQ(c.operands[0].compare, plan::Compare::Ge);
  EXPECT_EQ(c.operands[0].severity, plan::Severity::Error);
  EXPECT_EQ(c.operands[1].kind, plan::RouteCondition::Kind::Rule);
  EXPECT_EQ(c.operands[1].compare, plan::Compare::Ne);
  EXPECT_EQ(c.operands[1].text, "sync");
  EXPECT_TRUE(d.bundle->variants[1].task_storage);
  EXPECT_EQ(d.bundle->variants[1].object, sample().variants[1].object);
  EXPECT_EQ(d.bundle->variants[1].plan.rules.at(0).name, "sync_while_gil");
}

TEST(BundleFormat, PicksTheVariantTheKernelLoads) {
  Bundle b = sample();
  EXPECT_TRUE(pick_variant(b, true)->task_storage);
  EXPECT_FALSE(pick_variant(b, false)->task_storage);
  b.variants.pop_back();  // LRU only: fits both
  EXPECT_FALSE(pick_variant(b, true)->task_storage);
  b.variants[0].task_storage = true;  // task storage only: not where the kernel lacks it
  EXPECT_EQ(pick_variant(b, false), nullptr);
}

TEST(BundleFormat, RefusesWhatIsNotABundle) {
  std::string text = "use cuda\nrule r on cudaMalloc alert \"x\"\n";
  Decoded d = decode(std::vector<uint8_t>(text.begin(), text.end()));
  EXPECT_FALSE(d.bundle);
  EXPECT_EQ(d.error, "not a seam bundle (no SEAMBNDL header)");
}

TEST(BundleFormat, RefusesATruncatedBundle) {
  std::vector<uint8_t> bytes = encode(sample());
  bytes.resize(bytes.size() - 3);  // the last object loses its end
  Decoded d = decode(bytes);
  EXPECT_FALSE(d.bundle);
  EXPECT_EQ(d.error, "truncated bundle (an object lies past the end of the file)");
  bytes.resize(20);
  EXPECT_EQ(decode(bytes).error.rfind("truncated bundle (its header says", 0), 0u) << decode(bytes).error;
}

TEST(BundleFormat, RefusesACorruptObject) {
  std::vector<uint8_t> bytes = encode(sample());
  bytes.back() ^= 0xff;
  Decoded d = decode(bytes);
  EXPECT_FALSE(d.bundle);
  EXPECT_EQ(d.error, "corrupt bundle (an object's content hash does not match its header)");
}

TEST(BundleFormat, RefusesAnotherEngineAbi) {
  std::vector<uint8_t> bytes =
      with_header(encode(sample()), [](nlohmann::json& h) { h["engine_abi"] = kEngineAbi + 1; });
  Decoded d = decode(bytes);
  EXPECT_FALSE(d.bundle);
  EXPECT_EQ(d.error, "incompatible bundle: built by seam 0.1.0 (git test) for engine ABI " +
                         std::to_string(kEngineAbi + 1) + "; this seam runs engine ABI " +
                         std::to_string(kEngineAbi) +
                         " bundles only: rebuild it with this seam's `seam build`");
}

TEST(BundleFormat, IsBundleFilePeeksAtRegularFilesOnly) {
  std::string dir = ::testing::TempDir();
  std::string fifo = dir + "/seam-bundle-test-fifo-" + std::to_string(getpid());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(is_bundle_file(fifo));  // would block in open() if it were read: no writer
  unlink(fifo.c_str());
  std::string file = dir + "/seam-bundle-test-" + std::to_string(getpid()) + ".seamb";
  std::vector<uint8_t> bytes = encode(sample());
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  EXPECT_TRUE(is_bundle_file(file));
  EXPECT_TRUE(read_file(file).bundle);
  unlink(file.c_str());
}

}  // namespace
}  // namespace seam::bundle
