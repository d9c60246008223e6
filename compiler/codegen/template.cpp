#include "compiler/codegen/template.hpp"

#include <stdexcept>

#include "compiler/build/embedded.hpp"

namespace seam::codegen {

std::string expand(std::string_view fragment, const Vars& vars) {
  std::string out;
  out.reserve(fragment.size() * 2);
  size_t pos = 0;
  while (true) {
    size_t open = fragment.find("{{", pos);
    if (open == std::string_view::npos) break;
    size_t close = fragment.find("}}", open + 2);
    if (close == std::string_view::npos) throw std::logic_error("unterminated {{ in a BPF template");
    out.append(fragment.substr(pos, open - pos));
    std::string_view name = fragment.substr(open + 2, close - open - 2);
    auto it = vars.find(name);
    if (it == vars.end()) throw std::logic_error("BPF template asks for unknown value '" + std::string(name) + "'");
    out += it->second;
    pos = close + 2;
  }
  out.append(fragment.substr(pos));
  return out;
}

std::string fragment(std::string_view name, const Vars& vars) {
  auto text = embedded::find(name);
  if (!text) throw std::logic_error("BPF template '" + std::string(name) + "' is not embedded");
  return expand(*text, vars);
}

}  // namespace seam::codegen
