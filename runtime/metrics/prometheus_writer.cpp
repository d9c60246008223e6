#include "runtime/metrics/prometheus_writer.hpp"

#include <charconv>
#include <cmath>

namespace seam::runtime::metrics {

std::string escape_label_value(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string escape_help(const std::string& help) {
  std::string out;
  for (char c : help) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string format_number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return ec == std::errc() ? std::string(buf, end) : "NaN";
}

void PrometheusWriter::family(const std::string& name, const std::string& type, const std::string& help) {
  text_ += "# HELP " + name + " " + escape_help(help) + "\n";
  text_ += "# TYPE " + name + " " + type + "\n";
}

void PrometheusWriter::sample(const std::string& name, const Labels& labels, uint64_t value) {
  sample_text(name, labels, std::to_string(value));
}

void PrometheusWriter::sample(const std::string& name, const Labels& labels, double value) {
  sample_text(name, labels, format_number(value));
}

void PrometheusWriter::sample_text(const std::string& name, const Labels& labels, const std::string& value) {
  text_ += name;
  if (!labels.empty()) {
    text_ += '{';
    for (size_t i = 0; i < labels.size(); ++i) {
      if (i) text_ += ',';
      text_ += labels[i].first + "=\"" + escape_label_value(labels[i].second) + "\"";
    }
    text_ += '}';
  }
  text_ += ' ' + value + '\n';
}

}  // namespace seam::runtime::metrics
