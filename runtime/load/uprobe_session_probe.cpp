#include "runtime/load/uprobe_session_probe.hpp"

#include "runtime/load/features.hpp"
#include "runtime/load/uprobe_multi.hpp"

namespace seam::runtime {

const UprobeSessionSupport& uprobe_session_support() {
  static const UprobeSessionSupport support =
      answer_once_per_boot("SEAM_NO_UPROBE_SESSION", "uprobe-session", [] {
        std::string why = uprobe_multi_link_refusal(kBpfTraceUprobeSession, "uprobe session");
        return UprobeSessionSupport{why.empty(), why};
      });
  return support;
}

}  // namespace seam::runtime
