#pragma once
// Prometheus text exposition format 0.0.4: families with HELP and TYPE lines, escaped label values
// and numbers that Prometheus parses back exactly.
#include <cstdint>
#include <string>

#include "runtime/metrics/series.hpp"

namespace seam::runtime::metrics {

std::string escape_label_value(const std::string& value);  // \ " and newline
std::string escape_help(const std::string& help);          // \ and newline
std::string format_number(double value);                   // shortest round-trip; +Inf, -Inf, NaN

class PrometheusWriter {
 public:
  // Starts a family: "# HELP name help" and "# TYPE name type" (counter, gauge, histogram, summary).
  void family(const std::string& name, const std::string& type, const std::string& help);
  void sample(const std::string& name, const Labels& labels, uint64_t value);
  void sample(const std::string& name, const Labels& labels, double value);
  const std::string& text() const { return text_; }

 private:
  void sample_text(const std::string& name, const Labels& labels, const std::string& value);
  std::string text_;
};

}  // namespace seam::runtime::metrics
