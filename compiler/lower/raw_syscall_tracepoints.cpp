#include "compiler/lower/raw_syscall_tracepoints.hpp"

#include <string>

namespace seam::lower {

bool use_raw_syscall_tracepoints(const Options& options) {
  return !options.has_feature || options.has_feature(plan::Feature::RawTracepoint);
}

bool wants_tracepoint_fallback(const Options& options) {
  return !options.has_feature;
}

void make_raw_tracepoint_site(plan::Attachment& a, plan::Site& site) {
  a.kind = plan::AttachKind::RawTracepoint;
  a.feature = plan::Feature::RawTracepoint;
  site.section = "raw_tracepoint/" + a.name;
  site.context_type = "struct bpf_raw_tracepoint_args";
}

void add_tracepoint_fallbacks(plan::Program& program, const std::vector<int>& sites) {
  for (int index : sites) {
    plan::Site fallback = program.sites.at(static_cast<size_t>(index));
    plan::Attachment& raw = program.plan.attachments.at(static_cast<size_t>(fallback.attachment));
    plan::Attachment a = raw;
    a.kind = plan::AttachKind::Tracepoint;
    a.feature = plan::Feature::Tracepoint;
    a.program = "site" + std::to_string(program.sites.size());
    a.is_fallback = true;
    a.fallback.clear();
    raw.fallback = a.program;
    fallback.section = "tracepoint/" + a.category + "/" + a.name;
    fallback.context_type = "struct trace_event_raw_" + a.name;
    program.kernel_types.push_back(fallback.context_type.substr(7));
    fallback.attachment = static_cast<int>(program.plan.attachments.size());
    program.plan.attachments.push_back(std::move(a));
    program.sites.push_back(std::move(fallback));
  }
}

}  // namespace seam::lower
