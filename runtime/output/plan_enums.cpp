#include "runtime/output/plan_enums.hpp"

#include <memory>

namespace seam::runtime {

EnumNamer plan_enum_namer(const plan::Plan& plan) {
  if (plan.enums.empty()) return {};
  // The namer owns its copy: the views it returns stay valid as long as any copy of it lives.
  auto tables = std::make_shared<const std::map<std::string, std::map<int64_t, std::string>, std::less<>>>(
      plan.enums.begin(), plan.enums.end());
  return [tables](std::string_view enum_name, int64_t value) -> std::optional<std::string_view> {
    auto table = tables->find(enum_name);
    if (table == tables->end()) return std::nullopt;
    auto name = table->second.find(value);
    if (name == table->second.end()) return std::nullopt;
    return std::string_view(name->second);
  };
}

}  // namespace seam::runtime
