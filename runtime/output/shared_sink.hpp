#pragma once
// A sink owned elsewhere: `seam run` opens its outputs once and every rule unit's pipeline
// writes to them through one of these, so a unit replaced on reload leaves the outputs open.
// Used from one thread, like every sink.
#include <memory>
#include <utility>

#include "runtime/output/sink.hpp"

namespace seam::runtime {

class SharedSink : public Sink {
 public:
  explicit SharedSink(std::shared_ptr<Sink> target) : target_(std::move(target)) {}
  void write(const Alert& alert) override { target_->write(alert); }
  void write_notice(const Notice& notice) override { target_->write_notice(notice); }
  void flush() override { target_->flush(); }
  void counters(std::vector<metrics::OutputCounter>& out) const override { target_->counters(out); }
  std::string name() const override { return target_->name(); }
  void reopen() override { target_->reopen(); }
  bool ended() const override { return target_->ended(); }
  bool queues_itself() const override { return target_->queues_itself(); }
  bool writes_alerts() const override { return target_->writes_alerts(); }

 private:
  std::shared_ptr<Sink> target_;
};

}  // namespace seam::runtime
