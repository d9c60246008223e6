// Everything seam ships must load on this kernel: every file of the default pack in rules/ and of
// the opt-in rules in rules-opt-in/, and a rule on every event of every stdlib module, compiles
// and passes the kernel's verifier. A probe kind this kernel lacks is reported as unavailable,
// naming the rule, not as a failure.
#include <gtest/gtest.h>

#include <set>

#include "compiler/check/check.hpp"
#include "compiler/check/program.hpp"
#include "runtime/load/features.hpp"
#include "support/seam_process.hpp"
#include "support/test_support.hpp"

namespace seam::test {
namespace {

// Runs seam on `rules` for a moment; returns its JSON lines after it stopped.
std::vector<nlohmann::json> run_briefly(const TempDir& dir, const std::string& rules) {
  SeamRun seam(dir.path(), {rules, "--duration", "1"});
  EXPECT_TRUE(seam.wait_for_notice("ready", "probes attached", std::chrono::seconds(60)))
      << seam.stderr_text();
  EXPECT_EQ(seam.stop(), 0) << seam.stderr_text();
  std::vector<nlohmann::json> lines = seam.lines();
  for (const nlohmann::json& line : lines) {
    std::string kind = line.value("notice", "");
    EXPECT_NE(kind, "load-failed") << line.dump() << seam.stderr_text();
    EXPECT_NE(kind, "probe-failed") << line.dump();
    if (kind == "probe-unavailable") {
      // Only for a feature the probe says is missing, and the message says which.
      std::string message = line.value("message", "");
      EXPECT_TRUE(message.find("unavailable here") != std::string::npos) << message;
      EXPECT_TRUE(line.contains("rule")) << line.dump();
    }
  }
  return lines;
}

TEST(Pack, EveryShippedRuleFileLoadsAndPassesTheVerifier) {
  SEAM_REQUIRE_ROOT();
  for (const char* pack_dir : {"rules", "rules-opt-in"}) {
    size_t files = 0;
    for (const std::string& file : pack_rule_files(pack_dir)) {
      ++files;
      SCOPED_TRACE(file);
      TempDir dir;
      run_briefly(dir, file);
    }
    EXPECT_GT(files, 0u) << pack_dir;
  }
}

TEST(Pack, ARuleOnEveryStdlibEventLoads) {
  SEAM_REQUIRE_ROOT();
  check::LoadOptions load;
  load.stdlib_dirs = {std::string(SEAM_SOURCE_DIR) + "/stdlib"};
  check::Program stdlib = check::load({}, load);
  ASSERT_FALSE(stdlib.diagnostics.has_errors());
  std::string text;
  std::set<std::string> modules;
  for (const ast::File& m : stdlib.modules) {
    const std::string& module = m.module()->name.name;
    for (const ast::Decl& d : m.decls)
      if (const auto* e = std::get_if<ast::EventDecl>(&d)) {
        modules.insert(module);
        text += "rule every_" + module + "_" + e->name.name + " on " + module + "." + e->name.name +
                " alert info \"seen\"\n";
      }
  }
  ASSERT_FALSE(text.empty());
  std::string uses = "use ";
  for (const std::string& m : modules) uses += (uses.size() > 4 ? ", " : "") + m;
  TempDir dir;
  std::vector<nlohmann::json> lines = run_briefly(dir, dir.write("every_event.seam", uses + "\n" + text));
  // The probe-unavailable reports agree with the feature probe: none on this kernel's kinds.
  const runtime::FeatureSet& features = runtime::probe_features();
  for (const nlohmann::json& line : lines)
    if (line.value("notice", "") == "probe-unavailable") {
      std::string message = line.value("message", "");
      bool explained =
          (!features.available(plan::Feature::Kprobe) && message.find("kprobe") != std::string::npos) ||
          (!features.available(plan::Feature::Fentry) && message.find("fentry") != std::string::npos) ||
          (!features.available(plan::Feature::Fentry) && message.find("fexit") != std::string::npos);
      EXPECT_TRUE(explained) << message;
    }
}

}  // namespace
}  // namespace seam::test
