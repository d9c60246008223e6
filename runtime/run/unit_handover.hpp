#pragma once
// Which rule unit runs, and a reload's hand-over from it to the next one, apart from BPF: the
// compiled build is loaded and its unit started idle (attached, its generation not live yet), it
// takes over the spans the running one reported as pending, one flip of the live generation makes
// it act, and only then is the old one retired. Every failure keeps what ran and is reported
// once: a build or a load that failed (nothing of the new unit is left), a flip that failed (the
// new unit is detached, the old one still acts). Removing every rule file stops the running unit.
// The steps that reach the kernel are injected, so that a test drives each path with fakes; the
// session passes its own (session_reload.cpp). `Unit` is RuleUnit there.
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "compiler/diag/result.hpp"
#include "runtime/run/unit_build.hpp"

namespace seam::runtime {

template <class Unit>
class UnitHandover {
 public:
  struct Steps {
    // Loads the build's object as the next generation and starts its unit: attached, but its
    // programs return at once until the flip. Error: why it could not be loaded or started.
    std::function<Result<std::unique_ptr<Unit>>(std::unique_ptr<UnitBuild>)> start;
    // One write to the live generation: from here only the started unit's programs act.
    std::function<Result<void>()> flip;
    // The running unit is another one, or none: called before the old one is retired.
    std::function<void()> changed;
    // Stops a unit that no longer acts (delivers what it left in the ring) and counts it.
    std::function<void(std::unique_ptr<Unit>)> retire;
    // A reload that did not become the running unit: one line, and the compiler's text when the
    // build itself failed.
    std::function<void(const std::string& message, const std::string& diagnostics)> failed;
  };

  explicit UnitHandover(Steps steps) : steps_(std::move(steps)) {}
  UnitHandover(const UnitHandover&) = delete;
  UnitHandover& operator=(const UnitHandover&) = delete;
  ~UnitHandover() { clear(); }

  // The unit that acts (null: none, every rule file was removed).
  Unit* running() const { return running_.get(); }
  // The unit attached beside it during a hand-over, whose records still reach it: the next one
  // until the flip (or until it is detached after a failed one), then the old one while it is
  // retired. Null between hand-overs.
  Unit* beside() const { return beside_; }

  // The first unit, started and live (session start).
  void run(std::unique_ptr<Unit> unit) { running_ = std::move(unit); }

  // A reload's compiled unit, named `name` in the failures: true when it is the running unit now.
  bool replace(const std::string& name, UnitCompileResult compiled) {
    if (!compiled.build) {
      steps_.failed(compiled.error, compiled.printed);
      return false;
    }
    Result<std::unique_ptr<Unit>> started = steps_.start(std::move(compiled.build));
    if (!started) {
      steps_.failed(name + ": " + started.error(), "");
      return false;
    }
    std::unique_ptr<Unit> next = std::move(*started);
    beside_ = next.get();
    if (running_) next->take_over_pending(*running_);
    if (Result<void> flipped = steps_.flip(); !flipped) {
      steps_.failed(name + ": cannot hand over to the new object: " + flipped.error(), "");
      next.reset();  // detached as it goes; the running one still acts
      beside_ = nullptr;
      return false;
    }
    std::unique_ptr<Unit> old = std::exchange(running_, std::move(next));
    beside_ = old.get();
    steps_.changed();
    if (old) steps_.retire(std::move(old));
    beside_ = nullptr;
    return true;
  }

  // Every rule file is gone: the running unit is retired, and none runs until a file is back.
  void stop() {
    if (!running_) return;
    std::unique_ptr<Unit> old = std::move(running_);
    beside_ = old.get();
    steps_.changed();
    steps_.retire(std::move(old));
    beside_ = nullptr;
  }

  // Destroys the running unit without retiring it (the end of the run, once it is stopped); its
  // last records still reach it.
  void clear() {
    beside_ = running_.get();
    running_.reset();
    beside_ = nullptr;
  }

 private:
  Steps steps_;
  std::unique_ptr<Unit> running_;
  Unit* beside_ = nullptr;
};

}  // namespace seam::runtime
