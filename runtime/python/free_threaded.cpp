#include "runtime/python/free_threaded.hpp"

#include <regex>
#include <string>

namespace seam::runtime::python {

bool free_threaded_name(std::string_view path) {
  static const std::regex kName(R"((?:^|/)(?:lib)?python3\.\d+td?(?:[.-][^/]*)?$)");
  return std::regex_search(std::string(path), kName);
}

bool free_threaded_symbol(std::string_view name) {
  return name == "_Py_MergeZeroLocalRefcount" || name == "_Py_DecRefShared";
}

std::string free_threaded_sign(std::string_view path, std::string_view marker_symbol) {
  if (free_threaded_name(path)) return "its name carries the free-threaded ABI suffix 't'";
  if (!marker_symbol.empty())
    return "it defines " + std::string(marker_symbol) + ", which only free-threaded builds have";
  return {};
}

}  // namespace seam::runtime::python
