#include "compiler/lower/raw_tracepoint_forms.hpp"

#include <utility>

namespace seam::lower {

namespace {

using Fields = std::vector<std::pair<std::string_view, std::string_view>>;
using Arguments = std::vector<std::string_view>;

template <typename T>
std::vector<T> with(std::vector<T> list, T more) {
  list.push_back(std::move(more));
  return list;
}

}  // namespace

const std::vector<RawTracepointForm>& raw_tracepoint_forms() {
  static const std::vector<RawTracepointForm> forms = [] {
    // The reclaim pairs share their event classes (mm_vmscan_direct_reclaim_begin_template and
    // _end_template); compaction's end has its begin's arguments and fields, and its status.
    const Arguments reclaim_begin_arguments = {"int", "gfp_t"};
    const Fields reclaim_begin_fields = {{"order", "(int)ctx->args[0]"},
                                         {"gfp_flags", "(unsigned int)ctx->args[1]"}};
    const Arguments reclaim_end_arguments = {"long unsigned int"};
    const Fields reclaim_end_fields = {{"nr_reclaimed", "ctx->args[0]"}};
    const Arguments compaction_arguments = {"struct compact_control *", "long unsigned int",
                                            "long unsigned int", "bool"};
    const Fields compaction_fields = {
        {"zone_start", "ctx->args[1]"},
        {"migrate_pfn", "SEAM_KERNEL_READ((struct compact_control *)ctx->args[0], migrate_pfn)"},
        {"free_pfn", "SEAM_KERNEL_READ((struct compact_control *)ctx->args[0], free_pfn)"},
        {"zone_end", "ctx->args[2]"},
        {"sync", "(_Bool)ctx->args[3]"}};
    return std::vector<RawTracepointForm>{
        {"exceptions",
         "page_fault_user",
         {"long unsigned int", "struct pt_regs *", "long unsigned int"},
         {{"address", "ctx->args[0]"},
          {"ip", "SEAM_KERNEL_READ((struct pt_regs *)ctx->args[1], ip)"},
          {"error_code", "ctx->args[2]"}},
         {"pt_regs"}},
        {"vmscan", "mm_vmscan_direct_reclaim_begin", reclaim_begin_arguments, reclaim_begin_fields, {}},
        {"vmscan", "mm_vmscan_memcg_reclaim_begin", reclaim_begin_arguments, reclaim_begin_fields, {}},
        {"vmscan", "mm_vmscan_direct_reclaim_end", reclaim_end_arguments, reclaim_end_fields, {}},
        {"vmscan", "mm_vmscan_memcg_reclaim_end", reclaim_end_arguments, reclaim_end_fields, {}},
        {"compaction", "mm_compaction_begin", compaction_arguments, compaction_fields, {"compact_control"}},
        {"compaction",
         "mm_compaction_end",
         with(compaction_arguments, std::string_view("int")),
         with(compaction_fields,
              std::pair<std::string_view, std::string_view>("status", "(int)ctx->args[4]")),
         {"compact_control"}},
    };
  }();
  return forms;
}

const RawTracepointForm* raw_tracepoint_form(std::string_view category, std::string_view name) {
  for (const RawTracepointForm& f : raw_tracepoint_forms())
    if (f.category == category && f.name == name) return &f;
  return nullptr;
}

std::optional<std::string> raw_tracepoint_field(std::string_view category, std::string_view name,
                                                std::string_view field) {
  if (const RawTracepointForm* form = raw_tracepoint_form(category, name))
    for (const auto& [f, c] : form->fields)
      if (f == field) return std::string(c);
  return std::nullopt;
}

namespace {

bool has_form(const ast::ProbeSpec& p) {
  return p.kind == ast::ProbeKind::Tracepoint && !p.key && raw_tracepoint_form(p.category, p.name);
}

}  // namespace

bool reads_raw_forms(const ast::EventDecl& event) {
  if (event.begin.empty() || (event.is_span && event.end.empty())) return false;
  for (const auto* probes : {&event.begin, &event.end})
    for (const ast::ProbeSpec& p : *probes)
      if (!has_form(p)) return false;
  for (const ast::FieldDecl& f : event.fields) {
    if (f.computed) continue;
    // A result is read at the end; everything else at the begin (a point's only probes).
    for (const ast::ProbeSpec& p : f.is_result ? event.end : event.begin)
      if (!raw_tracepoint_field(p.category, p.name, f.name.name)) return false;
  }
  return true;
}

}  // namespace seam::lower
