#pragma once
// `output` and `route` declarations of the rule files become sinks: an output named by a route
// receives the alerts its routes select; an output no route names receives every alert.
#include <memory>
#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/check/program.hpp"
#include "runtime/output/sink.hpp"

namespace seam::cli {

// Opens every declared output; false (with the reason on `err`, naming file and line) when one
// cannot be opened.
// The declared outputs and the routes that name them, as data (a bundle carries them):
// [{"name", "spec" (as --output takes it), "origin" ("file:line"), "routes": [condition...]}].
nlohmann::json declared_outputs(const check::Program& program);

// Opens the outputs of declared_outputs(); false (with the reason on `err`) when one cannot be.
bool open_outputs(const nlohmann::json& outputs, std::vector<std::unique_ptr<runtime::Sink>>& sinks,
                  std::ostream& err);

bool declared_sinks(const check::Program& program, std::vector<std::unique_ptr<runtime::Sink>>& sinks,
                    std::ostream& err);

}  // namespace seam::cli
