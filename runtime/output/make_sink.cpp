#include <string>

#include "runtime/output/json_sink.hpp"
#include "runtime/output/sink.hpp"
#include "runtime/output/stdout_sink.hpp"

namespace seam::runtime {

Result<std::unique_ptr<Sink>> make_sink(std::string_view spec) {
  if (spec == "stdout") return std::unique_ptr<Sink>(new StdoutSink());
  if (spec == "json") return std::unique_ptr<Sink>(new JsonSink());
  constexpr std::string_view kJsonFile = "json:";
  if (spec.substr(0, kJsonFile.size()) == kJsonFile) {
    std::string path(spec.substr(kJsonFile.size()));
    if (path.empty()) return Error{"output 'json:' names no file (expected json:PATH)"};
    return JsonSink::open_file(path);
  }
  return Error{"unknown output '" + std::string(spec) + "' (expected stdout, json or json:PATH)"};
}

}  // namespace seam::runtime
