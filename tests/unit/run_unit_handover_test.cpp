// A reload's hand-over from the running rule unit to the next one (runtime/run/unit_handover.hpp),
// with the kernel replaced by fakes: a failed build, load or flip keeps the old unit acting and is
// reported once; a flip that failed detaches the new unit; a success retires the old unit only
// after the flip; removing every file stops the unit. Each fake step writes what it did to a log,
// and the test reads the order.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "runtime/run/unit_handover.hpp"

namespace seam::runtime {
namespace {

using Log = std::vector<std::string>;

struct FakeUnit;
using Handover = UnitHandover<FakeUnit>;

// A unit as the hand-over sees it: it can take over pending spans and be detached (destroyed).
struct FakeUnit {
  FakeUnit(std::string n, Log& l, const Handover& h) : name(std::move(n)), log(l), handover(h) {}
  FakeUnit(const FakeUnit&) = delete;
  FakeUnit& operator=(const FakeUnit&) = delete;
  ~FakeUnit() {
    // Detaching drains the ring: its last records must still reach it (the session hands a
    // record to the running unit or to the one beside it).
    bool reachable = handover.running() == this || handover.beside() == this;
    log.push_back(name + " detached" + (reachable ? "" : " (its records lost)"));
  }
  void take_over_pending(const FakeUnit& old) { log.push_back(name + " takes over " + old.name); }

  std::string name;
  Log& log;
  const Handover& handover;
};

struct Fakes {
  Log log;
  Log failures;  // message | diagnostics
  bool load_fails = false, flip_fails = false;
  Handover handover{steps()};

  Handover::Steps steps() {
    Handover::Steps s;
    s.start = [this](std::unique_ptr<UnitBuild> build) -> Result<std::unique_ptr<FakeUnit>> {
      log.push_back("start " + build->path);
      if (load_fails) return Error{"cannot load the BPF program: invalid argument"};
      return std::make_unique<FakeUnit>(build->path, log, handover);
    };
    s.flip = [this]() -> Result<void> {
      if (flip_fails) return Error{"Operation not permitted"};
      log.emplace_back("flip");
      return {};
    };
    s.changed = [this] {
      log.push_back("changed: " + (handover.running() ? handover.running()->name : std::string("none")));
    };
    s.retire = [this](std::unique_ptr<FakeUnit> unit) {
      log.push_back("retire " + unit->name + (handover.beside() == unit.get() ? "" : " (unreachable)"));
    };
    s.failed = [this](const std::string& message, const std::string& diagnostics) {
      failures.push_back(message + " | " + diagnostics);
      log.emplace_back("failed");
    };
    return s;
  }

  void start(const std::string& name) { handover.run(std::make_unique<FakeUnit>(name, log, handover)); }
};

UnitCompileResult built(const std::string& name) {
  UnitCompileResult r;
  r.build = std::make_unique<UnitBuild>();
  r.build->path = name;
  return r;
}

TEST(UnitHandover, ASuccessRetiresTheOldUnitOnlyAfterTheFlip) {
  Fakes f;
  f.start("v1");
  EXPECT_TRUE(f.handover.replace("rules", built("v2")));
  EXPECT_EQ(f.log, (Log{"start v2", "v2 takes over v1", "flip", "changed: v2", "retire v1", "v1 detached"}));
  EXPECT_TRUE(f.failures.empty());
  ASSERT_NE(f.handover.running(), nullptr);
  EXPECT_EQ(f.handover.running()->name, "v2");
  EXPECT_EQ(f.handover.beside(), nullptr);
}

TEST(UnitHandover, AFailedBuildKeepsTheRunningUnitAndIsReportedOnce) {
  Fakes f;
  f.start("v1");
  UnitCompileResult broken;
  broken.error = "rules/a.seam:3: unknown field";
  broken.printed = "rules/a.seam:3:7: error: unknown field\n";
  EXPECT_FALSE(f.handover.replace("rules", std::move(broken)));
  EXPECT_EQ(f.failures, (Log{"rules/a.seam:3: unknown field | rules/a.seam:3:7: error: unknown field\n"}));
  EXPECT_EQ(f.log, (Log{"failed"})) << "nothing is loaded for a build that failed";
  EXPECT_EQ(f.handover.running()->name, "v1");
}

TEST(UnitHandover, AFailedLoadKeepsTheRunningUnitAndIsReportedOnce) {
  Fakes f;
  f.start("v1");
  f.load_fails = true;
  EXPECT_FALSE(f.handover.replace("rules", built("v2")));
  EXPECT_EQ(f.failures, (Log{"rules: cannot load the BPF program: invalid argument | "}));
  EXPECT_EQ(f.log, (Log{"start v2", "failed"})) << "no flip, and the running unit is not retired";
  EXPECT_EQ(f.handover.running()->name, "v1");
  EXPECT_EQ(f.handover.beside(), nullptr);
}

TEST(UnitHandover, AFailedFlipDetachesTheNewUnitAndKeepsTheOld) {
  Fakes f;
  f.start("v1");
  f.flip_fails = true;
  EXPECT_FALSE(f.handover.replace("rules", built("v2")));
  EXPECT_EQ(f.failures, (Log{"rules: cannot hand over to the new object: Operation not permitted | "}));
  // Reported, then detached while its records still reach it; the old one neither changed nor retired.
  EXPECT_EQ(f.log, (Log{"start v2", "v2 takes over v1", "failed", "v2 detached"}));
  EXPECT_EQ(f.handover.running()->name, "v1");
  EXPECT_EQ(f.handover.beside(), nullptr);
  // The next reload that succeeds hands over from v1 as if nothing had happened.
  f.flip_fails = false;
  f.log.clear();
  EXPECT_TRUE(f.handover.replace("rules", built("v3")));
  EXPECT_EQ(f.log, (Log{"start v3", "v3 takes over v1", "flip", "changed: v3", "retire v1", "v1 detached"}));
}

TEST(UnitHandover, RemovingEveryFileStopsTheUnitUntilOneIsBack) {
  Fakes f;
  f.start("v1");
  f.handover.stop();
  EXPECT_EQ(f.log, (Log{"changed: none", "retire v1", "v1 detached"}));
  EXPECT_EQ(f.handover.running(), nullptr);
  f.handover.stop();  // nothing runs: nothing to stop
  EXPECT_EQ(f.log.size(), 3u);
  // A file is back: its unit starts with nothing to take over or retire.
  f.log.clear();
  EXPECT_TRUE(f.handover.replace("rules", built("v2")));
  EXPECT_EQ(f.log, (Log{"start v2", "flip", "changed: v2"}));
  EXPECT_EQ(f.handover.running()->name, "v2");
}

TEST(UnitHandover, TheRunningUnitIsReachableAsItIsDestroyed) {
  Log log;
  {
    Fakes f;
    f.start("v1");
    f.handover.clear();
    log = f.log;
  }
  EXPECT_EQ(log, (Log{"v1 detached"}));
}

}  // namespace
}  // namespace seam::runtime
