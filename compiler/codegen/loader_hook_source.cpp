#include "compiler/codegen/loader_hook_source.hpp"

#include "compiler/codegen/template.hpp"
#include "compiler/plan/record_header.hpp"

namespace seam::codegen {

std::string loader_hook_source() {
  return fragment("loader_notice.c.tmpl", {{"rule_id", std::to_string(plan::kLoaderNoticeRuleId) + "U"}});
}

}  // namespace seam::codegen
