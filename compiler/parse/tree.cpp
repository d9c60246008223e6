#include "compiler/parse/tree.hpp"

#include "compiler/parse/control.hpp"
#include "compiler/parse/grammar.hpp"

namespace seam::parse {

namespace {

namespace g = grammar;
namespace pt = tao::pegtl::parse_tree;

// Tokens keep their text; composite expressions with a single child collapse into it.
template <typename Rule>
using Selector = pt::selector<
    Rule,
    pt::store_content::on<
        g::ident, g::symbol, g::qualname, g::string_lit, g::number, g::integer, g::cmpop, g::kw_true,
        g::rule_ref, g::kw_false, g::kw_exe, g::kw_set, g::kw_clear, g::kw_entry, g::kw_return, g::kw_thread,
        g::kw_process, g::paren, g::window, g::call, g::negate, g::negation, g::module_decl, g::use_decl,
        g::library_decl, g::lib_pattern, g::kw_workload, g::scope_decl, g::span_decl, g::point_decl,
        g::alias_decl, g::state_decl, g::transition, g::on_function, g::rule_decl, g::metric_decl,
        g::output_decl, g::route_decl, g::shorthand, g::on_clause, g::where_clause, g::while_clause,
        g::after_clause, g::when_clause, g::alert_clause, g::severity_word, g::with_clause, g::limit_clause,
        g::group_clause, g::probe_uprobe, g::probe_uretprobe, g::probe_usdt, g::probe_tracepoint,
        g::probe_raw_tracepoint, g::probe_kprobe, g::probe_kretprobe, g::probe_fentry, g::probe_fexit,
        g::probe_perf, g::probe_interval, g::probe_bare, g::callsite, g::offset, g::perf_at, g::perf_every,
        g::key, g::pair, g::pair_begin, g::pair_end, g::args, g::results, g::param, g::metric_count,
        g::metric_sum, g::metric_hist, g::by_clause, g::output_stdout, g::output_json, g::output_webhook,
        g::output_format, g::lead_compare, g::enum_decl, g::enum_value, g::enum_value_number, g::indexed,
        g::array_len, g::table, g::computed, g::mul_op, g::add_op, g::shift_op, g::band_op, g::bxor_op,
        g::bor_op, g::membership, g::in_op, g::not_in_op, g::set_literal, g::tags_clause, g::except_clause,
        g::threshold_clause, g::override_toggle, g::override_decl, g::toggle_decl, g::toggle_by_tag,
        g::toggle_by_name, g::list_decl, g::kw_disable, g::kw_enable, g::state_source>,
    pt::fold_one::on<g::compare, g::and_expr, g::or_expr, g::product, g::sum, g::shifted, g::bit_and,
                     g::bit_xor, g::bit_or>>;

}  // namespace

std::unique_ptr<Node> parse_declaration(ParseInput& in) {
  return pt::parse<g::one_decl, Node, Selector, tao::pegtl::nothing, Control>(in);
}

}  // namespace seam::parse
