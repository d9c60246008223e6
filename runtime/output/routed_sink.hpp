#pragma once
// A sink behind a route: alerts reach it only when one of its routes' conditions holds
// (`route severity >= warning -> ops, log`); notices about seam itself always do.
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "runtime/output/sink.hpp"

namespace seam::runtime {

using AlertPredicate = std::function<bool(const Alert&)>;

class RoutedSink : public Sink {
 public:
  RoutedSink(std::unique_ptr<Sink> inner, std::vector<AlertPredicate> routes)
      : inner_(std::move(inner)), routes_(std::move(routes)) {}
  void write(const Alert& alert) override {
    for (const AlertPredicate& route : routes_)
      if (route(alert)) {
        inner_->write(alert);
        return;
      }
  }
  void write_notice(const Notice& notice) override { inner_->write_notice(notice); }
  void flush() override { inner_->flush(); }
  void counters(std::vector<metrics::OutputCounter>& out) const override { inner_->counters(out); }
  std::string name() const override { return inner_->name(); }
  void reopen() override { inner_->reopen(); }
  bool ended() const override { return inner_->ended(); }
  bool queues_itself() const override { return inner_->queues_itself(); }
  bool writes_alerts() const override { return inner_->writes_alerts(); }

 private:
  std::unique_ptr<Sink> inner_;
  std::vector<AlertPredicate> routes_;
};

}  // namespace seam::runtime
