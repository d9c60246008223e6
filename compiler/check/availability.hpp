#pragma once
// Probes this kernel lacks (a tracepoint it does not have), found before lowering: the checked
// program loses exactly what needs them, and the rest of the file still compiles and runs. An
// event alternative that is missing is dropped (`a | b` keeps `b`); an event with no probe left
// makes the rules and metrics on it (`on` or `after`) unavailable, and the windowed rules on
// those metrics; a state's transition on it is dropped. Lowering skips what is unavailable and
// lists it in the plan (plan::UnavailableRule), whose runtime reports each as a notice.
#include <functional>
#include <optional>
#include <string>

#include "compiler/check/program.hpp"

namespace seam::check {

// Why `probe` cannot attach on this kernel ("this kernel has no tracepoint sched:x"), or nullopt.
using ProbeAvailability = std::function<std::optional<std::string>(const ast::ProbeSpec& probe)>;

// Marks RuleDecl::unavailable / MetricDecl::unavailable in `program`'s rule files. Returns how
// many rules and metrics it marked.
size_t mark_unavailable(Program& program, const ProbeAvailability& missing);

// "tracepoint sched:sched_switch", "kprobe do_sys_openat2": a probe as the notices name it.
std::string probe_text(const ast::ProbeSpec& probe);

}  // namespace seam::check
