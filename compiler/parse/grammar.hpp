#pragma once
// The seam grammar as PEGTL rules (docs/language.md has it in EBNF). Conventions:
//  - tok<R> skips whitespace and `#` comments, then matches R; so a token's own node starts exactly at
//    its first character, and line breaks mean nothing.
//  - must<R> commits: once a declaration or clause keyword matched, a missing part is a syntax error
//    "expected <R::what>" (control.hpp) instead of a silent backtrack.
//  - Rules used inside at<>/not_at<> lookaheads are never stored in the parse tree (PEGTL would keep the
//    nodes a successful lookahead built), hence the separate *_ahead rules.
//  - nest<R> counts expression depth in the input and stops with E0003 before the stack can overflow.
#include <tao/pegtl.hpp>

#include "compiler/parse/nesting.hpp"

namespace seam::parse::grammar {

using namespace tao::pegtl;

// Rules are lower_case structs, as in PEGTL itself (seq, sor, must...), not CamelCase classes.
// NOLINTBEGIN(readability-identifier-naming)

// ---------------------------------------------------------------- whitespace and comments
struct comment : seq<one<'#'>, until<eolf>> {};
struct skip : star<sor<space, comment>> {};
template <typename R>
struct tok : seq<skip, R> {};

// ---------------------------------------------------------------- words
// Reserved words can never be identifiers.
struct reserved : sor<TAO_PEGTL_KEYWORD("module"), TAO_PEGTL_KEYWORD("use"), TAO_PEGTL_KEYWORD("library"),
                      TAO_PEGTL_KEYWORD("span"), TAO_PEGTL_KEYWORD("point"), TAO_PEGTL_KEYWORD("alias"),
                      TAO_PEGTL_KEYWORD("state"), TAO_PEGTL_KEYWORD("rule"), TAO_PEGTL_KEYWORD("metric"),
                      TAO_PEGTL_KEYWORD("output"), TAO_PEGTL_KEYWORD("route"), TAO_PEGTL_KEYWORD("on"),
                      TAO_PEGTL_KEYWORD("where"), TAO_PEGTL_KEYWORD("while"), TAO_PEGTL_KEYWORD("after"),
                      TAO_PEGTL_KEYWORD("within"), TAO_PEGTL_KEYWORD("alert"), TAO_PEGTL_KEYWORD("with"),
                      TAO_PEGTL_KEYWORD("limit"), TAO_PEGTL_KEYWORD("when"), TAO_PEGTL_KEYWORD("per"),
                      TAO_PEGTL_KEYWORD("set"), TAO_PEGTL_KEYWORD("clear"), TAO_PEGTL_KEYWORD("key"),
                      TAO_PEGTL_KEYWORD("exe"), TAO_PEGTL_KEYWORD("and"), TAO_PEGTL_KEYWORD("or"),
                      TAO_PEGTL_KEYWORD("not"), TAO_PEGTL_KEYWORD("true"), TAO_PEGTL_KEYWORD("false"),
                      TAO_PEGTL_KEYWORD("startswith"), TAO_PEGTL_KEYWORD("group")> {};

#define SEAM_WORD(name, text)                         \
  struct name : TAO_PEGTL_KEYWORD(text) {             \
    static constexpr const char* what = "'" text "'"; \
  }
SEAM_WORD(kw_module, "module");
SEAM_WORD(kw_use, "use");
SEAM_WORD(kw_library, "library");
SEAM_WORD(kw_span, "span");
SEAM_WORD(kw_point, "point");
SEAM_WORD(kw_alias, "alias");
SEAM_WORD(kw_state, "state");
SEAM_WORD(kw_rule, "rule");
SEAM_WORD(kw_metric, "metric");
SEAM_WORD(kw_output, "output");
SEAM_WORD(kw_route, "route");
SEAM_WORD(kw_on, "on");
SEAM_WORD(kw_where, "where");
SEAM_WORD(kw_while, "while");
SEAM_WORD(kw_after, "after");
SEAM_WORD(kw_within, "within");
SEAM_WORD(kw_alert, "alert");
SEAM_WORD(kw_with, "with");
SEAM_WORD(kw_limit, "limit");
SEAM_WORD(kw_group, "group");
SEAM_WORD(kw_when, "when");
SEAM_WORD(kw_per, "per");
SEAM_WORD(kw_set, "set");
SEAM_WORD(kw_clear, "clear");
SEAM_WORD(kw_key, "key");
SEAM_WORD(kw_exe, "exe");
SEAM_WORD(kw_and, "and");
SEAM_WORD(kw_or, "or");
SEAM_WORD(kw_not, "not");
SEAM_WORD(kw_true, "true");
SEAM_WORD(kw_false, "false");
// Contextual words: keywords only where they appear below, identifiers elsewhere.
SEAM_WORD(kw_entry, "entry");
SEAM_WORD(kw_return, "return");
SEAM_WORD(kw_of, "of");
SEAM_WORD(kw_thread, "thread");
SEAM_WORD(kw_process, "process");
SEAM_WORD(kw_count, "count");
SEAM_WORD(kw_sum, "sum");
SEAM_WORD(kw_scope, "scope");
SEAM_WORD(kw_workload, "workload");
SEAM_WORD(kw_hist, "hist");
SEAM_WORD(kw_by, "by");
SEAM_WORD(kw_stdout, "stdout");
SEAM_WORD(kw_json, "json");
SEAM_WORD(kw_webhook, "webhook");
SEAM_WORD(kw_format, "format");
SEAM_WORD(kw_over, "over");
SEAM_WORD(kw_at, "at");
SEAM_WORD(kw_every, "every");
SEAM_WORD(kw_hz, "hz");
SEAM_WORD(kw_uprobe, "uprobe");
SEAM_WORD(kw_uretprobe, "uretprobe");
SEAM_WORD(kw_usdt, "usdt");
SEAM_WORD(kw_tracepoint, "tracepoint");
SEAM_WORD(kw_raw_tracepoint, "raw_tracepoint");
SEAM_WORD(kw_kprobe, "kprobe");
SEAM_WORD(kw_kretprobe, "kretprobe");
SEAM_WORD(kw_fentry, "fentry");
SEAM_WORD(kw_fexit, "fexit");
SEAM_WORD(kw_perf, "perf");
SEAM_WORD(kw_interval, "interval");
SEAM_WORD(kw_enum, "enum");
// Tuning and sets (contextual too): see the tuning section below.
SEAM_WORD(kw_override, "override");
SEAM_WORD(kw_disable, "disable");
SEAM_WORD(kw_enable, "enable");
SEAM_WORD(kw_tag, "tag");
SEAM_WORD(kw_tags, "tags");
SEAM_WORD(kw_threshold, "threshold");
SEAM_WORD(kw_except, "except");
SEAM_WORD(kw_list, "list");
SEAM_WORD(kw_in, "in");
#undef SEAM_WORD

#define SEAM_PUNCT(name, text, ...)           \
  struct name : __VA_ARGS__ {                 \
    static constexpr const char* what = text; \
  }
SEAM_PUNCT(equals, "'='", one<'='>);
SEAM_PUNCT(colon, "':'", one<':'>);
SEAM_PUNCT(comma, "','", one<','>);
SEAM_PUNCT(bar, "'|'", one<'|'>);
SEAM_PUNCT(lparen, "'('", one<'('>);
SEAM_PUNCT(rparen, "')'", one<')'>);
SEAM_PUNCT(arrow, "'->'", TAO_PEGTL_STRING("->"));
SEAM_PUNCT(dotdot, "'..'", TAO_PEGTL_STRING(".."));
SEAM_PUNCT(plus_sign, "'+'", one<'+'>);
SEAM_PUNCT(minus_sign, "'-'", seq<one<'-'>, not_at<one<'>'>>>);
SEAM_PUNCT(close_quote, "'\"' to close the string", one<'"'>);
#undef SEAM_PUNCT

// ---------------------------------------------------------------- tokens
struct ident : seq<not_at<reserved>, identifier> {
  static constexpr const char* what = "a name";
};
// C function names: any identifier, reserved words included (they only follow ':' or a probe word).
struct symbol : identifier {
  static constexpr const char* what = "a function name";
};
struct qualname : seq<ident, star<one<'.'>, ident>> {
  static constexpr const char* what = "an event name";
};

struct escape : seq<one<'\\'>, not_one<'\n', '\r'>> {};
struct string_char : not_one<'"', '\\', '\n', '\r'> {};
struct string_lit : seq<one<'"'>, star<sor<escape, string_char>>, must<close_quote>> {
  static constexpr const char* what = "a string";
};

struct hex_digits : seq<one<'0'>, one<'x', 'X'>, plus<xdigit>> {};
struct dec_digits : seq<plus<digit>, opt<one<'.'>, plus<digit>>> {};
// Digits and everything glued to them: `10ms`, `1.5KiB`, `0x10`; the suffix is checked when building.
struct number : seq<sor<hex_digits, dec_digits>, star<identifier_other>> {
  static constexpr const char* what = "a number";
};
struct integer : sor<hex_digits, plus<digit>> {
  static constexpr const char* what = "an integer";
};

struct cmpop : sor<TAO_PEGTL_STRING("=="), TAO_PEGTL_STRING("!="), TAO_PEGTL_STRING("<="),
                   TAO_PEGTL_STRING(">="), one<'<'>, one<'>'>, TAO_PEGTL_KEYWORD("startswith")> {};

// ---------------------------------------------------------------- expressions
struct expr;
struct paren : seq<one<'('>, expr, must<tok<rparen>>> {};
struct window : seq<tok<kw_over>, must<tok<number>>> {};
// `p99(x)`: the '(' follows the name directly, so that a span key `key pid` followed by a field list
// `(a: i32)` on the next line is not a call.
struct call : seq<ident, one<'('>, opt<expr, star<tok<comma>, must<expr>>>, must<tok<rparen>>, opt<window>> {
};
// `rule` is reserved, but a route condition tests it (`route rule == "gil" -> ops`): in an expression it
// is a name, unless a name follows (`rule x` starts a declaration, even after a dangling `where`).
struct rule_ref : seq<kw_rule, not_at<skip, not_at<reserved>, identifier>> {};
// `args[1]`: an element of an array field; the index is a constant, '[' follows the name directly.
struct rbracket : one<']'> {
  static constexpr const char* what = "']'";
};
struct lbracket : one<'['> {
  static constexpr const char* what = "'['";
};
struct indexed : seq<qualname, one<'['>, must<tok<integer>>, must<tok<rbracket>>> {};
// `[1B, 2B, 4B][datatype]`: a constant table looked up at a computed index.
struct table : seq<one<'['>, must<tok<number>>, star<tok<comma>, must<tok<number>>>, must<tok<rbracket>>,
                   must<lbracket>, must<expr>, must<tok<rbracket>>> {};
struct primary : sor<paren, number, string_lit, kw_true, kw_false, call, indexed, qualname, rule_ref, table> {
};
struct unary;
struct negate : seq<tok<minus_sign>, must<nest<unary>>> {};
struct unary : sor<negate, tok<primary>> {
  static constexpr const char* what = "an expression";
};
// Arithmetic, tightest first: * / %, + -, << >>, &, ^, |, all tighter than comparisons (unlike C,
// where `x & 0xff == 1` would compare first). `-` is not the start of `->`; `|` not of `||`.
struct mul_op : sor<one<'*'>, one<'/'>, one<'%'>> {};
struct add_op : sor<one<'+'>, minus_sign> {};
struct shift_op : sor<TAO_PEGTL_STRING("<<"), TAO_PEGTL_STRING(">>")> {};
struct band_op : seq<one<'&'>, not_at<one<'&'>>> {};
struct bxor_op : one<'^'> {};
struct bor_op : seq<one<'|'>, not_at<one<'|'>>> {};
struct product : chain<tok<mul_op>, unary> {
  static constexpr const char* what = "an expression";
};
struct sum : chain<tok<add_op>, product> {
  static constexpr const char* what = "an expression";
};
struct shifted : chain<tok<shift_op>, sum> {
  static constexpr const char* what = "an expression";
};
struct bit_and : chain<tok<band_op>, shifted> {
  static constexpr const char* what = "an expression";
};
struct bit_xor : chain<tok<bxor_op>, bit_and> {
  static constexpr const char* what = "an expression";
};
struct bit_or : chain<tok<bor_op>, bit_xor> {
  static constexpr const char* what = "an expression";
};
// `id in (futex, poll)`, `id not in waiting`: a set of constants, written out or a named list.
struct set_item : sor<number, string_lit, qualname> {
  static constexpr const char* what = "a number, string or name";
};
struct set_literal
    : seq<tok<lparen>, must<tok<set_item>>, star<tok<comma>, must<tok<set_item>>>, must<tok<rparen>>> {
  static constexpr const char* what = "'(' and a list of values";
};
struct set_body : sor<set_literal, tok<ident>> {
  static constexpr const char* what = "'(' and a list of values, or a list's name";
};
struct in_op : tok<kw_in> {};
struct not_in_op : seq<tok<kw_not>, tok<kw_in>> {};
struct membership : seq<sor<not_in_op, in_op>, must<set_body>> {};
struct compare : seq<bit_or, opt<sor<membership, seq<tok<cmpop>, must<bit_or>>>>> {};
struct not_expr;
struct negation : seq<tok<kw_not>, must<nest<not_expr>>> {};
struct not_expr : sor<negation, compare> {
  static constexpr const char* what = "an expression";
};
struct and_expr : chain<tok<kw_and>, not_expr> {
  static constexpr const char* what = "an expression";
};
struct or_expr : chain<tok<kw_or>, and_expr> {};
struct expr : nest<or_expr> {
  static constexpr const char* what = "an expression";
};
struct duration : tok<number> {
  static constexpr const char* what = "a duration";
};

// ---------------------------------------------------------------- probes
struct libref : sor<ident, string_lit> {
  static constexpr const char* what = "a library name or a quoted path";
};
struct offset : seq<tok<plus_sign>, must<tok<integer>>> {};
// After a probe word, a ':' means the word was a library name (`uprobe:sym` is `lib:sym`).
template <typename Word>
struct probe_word : seq<tok<Word>, not_at<tok<one<':'>>>> {};

struct probe_uprobe
    : seq<probe_word<kw_uprobe>, must<tok<libref>>, must<tok<colon>>, must<tok<symbol>>, opt<offset>> {};
struct probe_uretprobe
    : seq<probe_word<kw_uretprobe>, must<tok<libref>>, must<tok<colon>>, must<tok<symbol>>> {};
struct probe_usdt : seq<probe_word<kw_usdt>, must<tok<libref>>, must<tok<colon>>, must<tok<ident>>,
                        must<tok<colon>>, must<tok<ident>>> {};
struct probe_tracepoint
    : seq<probe_word<kw_tracepoint>, must<tok<ident>>, must<tok<colon>>, must<tok<ident>>> {};
struct probe_raw_tracepoint : seq<probe_word<kw_raw_tracepoint>, must<tok<ident>>> {};
struct probe_kprobe : seq<probe_word<kw_kprobe>, must<tok<symbol>>, opt<offset>> {};
struct probe_kretprobe : seq<probe_word<kw_kretprobe>, must<tok<symbol>>> {};
struct probe_fentry : seq<probe_word<kw_fentry>, must<tok<symbol>>> {};
struct probe_fexit : seq<probe_word<kw_fexit>, must<tok<symbol>>> {};
struct perf_at : seq<tok<kw_at>, must<tok<integer>>, must<tok<kw_hz>>> {};
struct perf_every : seq<tok<kw_every>, must<tok<integer>>> {};
struct perf_rate : sor<perf_at, perf_every> {
  static constexpr const char* what = "'at N hz' or 'every N'";
};
struct probe_perf : seq<probe_word<kw_perf>, must<tok<ident>>, must<perf_rate>> {};
struct probe_interval : seq<probe_word<kw_interval>, must<duration>> {};
// `lib:symbol[+off]`: a uprobe in a point or a pair, a whole call in a span.
struct probe_bare : seq<tok<libref>, tok<colon>, must<tok<symbol>>, opt<offset>> {};
struct probe
    : sor<probe_uprobe, probe_uretprobe, probe_usdt, probe_tracepoint, probe_raw_tracepoint, probe_kprobe,
          probe_kretprobe, probe_fentry, probe_fexit, probe_perf, probe_interval, probe_bare> {
  static constexpr const char* what = "a probe";
};

// ---------------------------------------------------------------- declarations
struct ident_list : seq<must<tok<ident>>, star<tok<comma>, must<tok<ident>>>> {};

struct module_decl : seq<tok<kw_module>, must<tok<ident>>> {};
struct use_decl : seq<tok<kw_use>, ident_list> {};

struct lib_pattern : seq<opt<tok<kw_exe>>, must<tok<string_lit>>> {
  static constexpr const char* what = "a quoted library pattern";
};
// `workload` after the patterns: a process that maps this library is an inference workload
// (the processes `scope workload` rules are about).
struct library_decl : seq<tok<kw_library>, must<tok<ident>>, must<tok<equals>>, must<lib_pattern>,
                          star<tok<bar>, must<lib_pattern>>, opt<tok<kw_workload>>> {};
// `scope workload`, `scope host`, `scope cgroup "/path"`, `scope comm "python*"`: the processes
// a rule file's rules are about (the checker validates the selector, so that a wrong one gets a
// coded diagnostic with its position rather than a syntax error).
struct scope_decl : seq<tok<kw_scope>, must<tok<ident>>, opt<tok<string_lit>>> {};

// `args: u64[6]`: an array field of a tracepoint, read element by element (`args[1]`).
struct array_len : seq<tok<one<'['>>, must<tok<integer>>, must<tok<rbracket>>> {};
// `bytes: bytes = count * [...][datatype]`: a field computed from the others.
struct computed : seq<tok<equals>, must<expr>> {};
struct param : seq<tok<ident>, must<tok<colon>>, must<tok<ident>>, opt<array_len>, opt<computed>> {
  static constexpr const char* what = "a field 'name: type'";
};
struct param_list : seq<tok<lparen>, opt<param, star<tok<comma>, must<param>>>, must<tok<rparen>>> {
  static constexpr const char* what = "'(' and a field list";
};
struct args : param_list {};
struct results : seq<tok<arrow>, must<param_list>> {};
struct fields : seq<opt<args>, opt<results>> {};

struct key : seq<tok<kw_key>, must<expr>> {};
// Alternatives for the begin share its key: `tracepoint a | tracepoint b key pid` (a key after
// each would read `pid | tracepoint` as one expression).
struct pair_begin : seq<probe, star<tok<bar>, must<probe>>, opt<key>> {};
struct pair_end : seq<probe, opt<key>> {
  static constexpr const char* what = "a probe";
};
struct pair : seq<pair_begin, tok<dotdot>, must<pair_end>> {};
struct callsite : probe_bare {
  static constexpr const char* what = "a call 'library:function'";
};
struct callsites : seq<callsite, star<tok<bar>, must<callsite>>> {};
struct span_body : sor<pair, callsites> {
  static constexpr const char* what = "a call 'library:function' or a pair 'begin .. end'";
};
struct span_decl : seq<tok<kw_span>, must<tok<ident>>, must<tok<equals>>, must<span_body>, fields> {};
struct point_decl : seq<tok<kw_point>, must<tok<ident>>, must<tok<equals>>, must<probe>,
                        star<tok<bar>, must<probe>>, opt<args>> {};

struct alias_decl : seq<tok<kw_alias>, must<tok<ident>>, must<tok<equals>>, must<tok<qualname>>> {};

// `enum cudaMemcpyKind (cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1)`: named values of
// an integer field (`kind: cudaMemcpyKind`). `enum` is a keyword only at the start of a declaration.
struct enum_value_number : seq<opt<one<'-'>>, integer> {
  static constexpr const char* what = "an integer";
};
struct enum_value : seq<tok<symbol>, must<tok<equals>>, must<tok<enum_value_number>>> {
  static constexpr const char* what = "a value 'NAME = INTEGER'";
};
struct enum_decl : seq<tok<kw_enum>, tok<ident>, must<tok<lparen>>, must<enum_value>,
                       star<tok<comma>, must<enum_value>>, must<tok<rparen>>> {};

struct scope : sor<kw_thread, kw_process> {
  static constexpr const char* what = "'thread' or 'process'";
};
// A bare function name is a plain (non-reserved) name, so that it cannot swallow the next declaration.
struct function_ref : sor<seq<tok<libref>, tok<colon>, must<tok<symbol>>>, tok<ident>> {
  static constexpr const char* what = "a function";
};
struct on_function : seq<tok<sor<kw_entry, kw_return>>, tok<kw_of>, must<function_ref>> {};
struct transition_target : sor<on_function, tok<qualname>> {
  static constexpr const char* what = "'entry of F', 'return of F' or an event name";
};
struct transition : seq<tok<sor<kw_set, kw_clear>>, must<tok<kw_on>>, must<transition_target>> {};
// `= cpython_gil of libpython`: the state is read from the process's memory where it is tested
// (a reader the compiler knows), not kept by set/clear probes.
struct state_source : seq<tok<equals>, must<tok<ident>>, must<tok<kw_of>>, must<tok<ident>>> {};
struct state_decl : seq<tok<kw_state>, must<tok<ident>>, must<tok<kw_per>>, must<tok<scope>>,
                        opt<state_source>, star<transition>> {};

// A shorthand rule starts with an event name followed by one of these; an `alert` severity word
// must not swallow the first name of such a line.
struct shorthand_ahead
    : seq<star<one<'.'>, identifier>, skip,
          sor<TAO_PEGTL_STRING("=="), TAO_PEGTL_STRING("!="), one<'<'>, one<'>'>, TAO_PEGTL_STRING("->"),
              TAO_PEGTL_KEYWORD("startswith"), TAO_PEGTL_KEYWORD("where"), TAO_PEGTL_KEYWORD("while"),
              TAO_PEGTL_KEYWORD("after")>> {};

struct on_clause : seq<tok<kw_on>, must<tok<qualname>>> {};
struct where_clause : seq<tok<kw_where>, must<expr>> {};
struct while_clause : seq<tok<kw_while>, must<expr>> {};
struct after_clause : seq<tok<kw_after>, must<tok<qualname>>, must<tok<kw_within>>, must<expr>> {};
struct when_clause : seq<tok<kw_when>, must<expr>> {};
struct severity_word : seq<ident, not_at<shorthand_ahead>> {};
struct alert_clause : seq<tok<kw_alert>, opt<tok<severity_word>>, opt<tok<string_lit>>> {
  static constexpr const char* what = "'alert'";
};
struct with_clause : seq<tok<kw_with>, ident_list> {};
// `limit N per D [per process]`: the optional scope names what the count is kept for.
struct limit_scope : seq<tok<kw_per>, must<tok<ident>>> {};
struct limit_clause
    : seq<tok<kw_limit>, must<tok<integer>>, must<tok<kw_per>>, must<duration>, opt<limit_scope>> {};
// `group within 10s`: identical alerts (same rule, process and stack) in the window become one.
struct group_clause : seq<tok<kw_group>, must<tok<kw_within>>, must<duration>> {};
// `tags syscalls, noisy` and `except comm == "batchjob"` (an exception: the rule holds only when it
// does not). Neither word may start a shorthand line that follows the rule.
struct tags_clause : seq<tok<kw_tags>, not_at<shorthand_ahead>, ident_list> {};
struct except_clause : seq<tok<kw_except>, not_at<shorthand_ahead>, must<expr>> {};
struct clause : sor<on_clause, where_clause, while_clause, after_clause, when_clause, alert_clause,
                    with_clause, limit_clause, group_clause, tags_clause, except_clause> {};
struct rule_decl : seq<tok<kw_rule>, must<tok<ident>>, star<clause>> {};

struct metric_count : tok<kw_count> {};
struct metric_sum : seq<tok<kw_sum>, must<expr>> {};
struct metric_hist : seq<tok<kw_hist>, must<expr>> {};
struct metric_kind : sor<metric_count, metric_sum, metric_hist> {
  static constexpr const char* what = "'count', 'sum EXPR' or 'hist EXPR'";
};
// Labels: names, or `EVENT.field` of the metric's `after` event (`by usdt.request_start.id`).
struct by_clause : seq<tok<kw_by>, must<tok<qualname>>, star<tok<comma>, must<tok<qualname>>>> {};
// `where`, `while` and `after` in any order (each at most once: the builder reports a repeat).
struct metric_condition : sor<where_clause, while_clause, after_clause> {};
struct metric_decl : seq<tok<kw_metric>, must<tok<ident>>, must<tok<kw_on>>, must<tok<qualname>>,
                         star<metric_condition>, must<metric_kind>, opt<by_clause>> {};

struct output_stdout : tok<kw_stdout> {};
struct output_json : seq<tok<kw_json>, must<tok<string_lit>>> {};
struct output_format : seq<tok<kw_format>, must<tok<ident>>> {};
struct output_webhook : seq<tok<kw_webhook>, must<tok<string_lit>>, opt<output_format>> {};
struct output_target : sor<output_stdout, output_json, output_webhook> {
  static constexpr const char* what = "'stdout', 'json PATH' or 'webhook URL'";
};
struct output_decl : seq<tok<kw_output>, must<tok<ident>>, must<tok<equals>>, must<output_target>> {};

struct route_decl : seq<tok<kw_route>, must<expr>, must<tok<arrow>>, ident_list> {};

// ---------------------------------------------------------------- tuning
// `override rule NAME` and clauses that change a rule declared elsewhere; `disable rule a, b`,
// `enable tag t`; `list NAME = (...)`. Their words are keywords only at these places.
struct threshold_clause : seq<tok<kw_threshold>, must<tok<number>>> {};
struct override_toggle : seq<tok<sor<kw_disable, kw_enable>>, not_at<skip, sor<kw_tag, kw_rule>>> {};
struct override_clause : sor<threshold_clause, where_clause, except_clause, alert_clause, limit_clause,
                             tags_clause, override_toggle> {};
struct override_decl : seq<tok<kw_override>, tok<kw_rule>, must<tok<ident>>, star<override_clause>> {};
struct toggle_by_tag : seq<tok<kw_tag>, ident_list> {};
struct toggle_by_name : seq<tok<kw_rule>, ident_list> {};
struct toggle_target : sor<toggle_by_tag, toggle_by_name> {
  static constexpr const char* what = "'rule NAME' or 'tag NAME'";
};
struct toggle_decl
    : seq<tok<sor<kw_disable, kw_enable>>, at<skip, sor<kw_tag, kw_rule>>, must<toggle_target>> {};
struct list_decl : seq<tok<kw_list>, tok<ident>, tok<equals>, must<set_literal>> {};

// `cudaStreamSynchronize > 10ms while gil_held -> alert with ustack`
struct lead_compare : seq<tok<cmpop>, must<expr>> {};
struct shorthand_clause : sor<where_clause, while_clause, after_clause> {};
struct shorthand
    : seq<tok<qualname>, at<shorthand_ahead>, opt<lead_compare>, star<shorthand_clause>, must<tok<arrow>>,
          must<alert_clause>, opt<with_clause>, opt<limit_clause>, opt<group_clause>> {};

struct decl : sor<module_decl, use_decl, library_decl, scope_decl, span_decl, point_decl, alias_decl,
                  state_decl, rule_decl, metric_decl, output_decl, route_decl, enum_decl, override_decl,
                  toggle_decl, list_decl, shorthand> {
  static constexpr const char* what = "a declaration";
};

// What starts a declaration at the beginning of a line: where parse_file resumes after an error.
struct decl_start
    : sor<kw_module, kw_use, kw_library, seq<kw_scope, tok<ident>>, kw_span, kw_point, kw_alias, kw_state,
          kw_rule, kw_metric, kw_output, kw_route, seq<kw_enum, tok<ident>, tok<lparen>>,
          seq<kw_override, tok<kw_rule>>, seq<sor<kw_disable, kw_enable>, skip, sor<kw_tag, kw_rule>>,
          seq<kw_list, tok<ident>, tok<equals>>, seq<ident, shorthand_ahead>> {};

// What parse_file runs, one declaration at a time (so that it can recover between them).
struct one_decl : must<decl> {};
// The whole language, for analyze() and the documentation.
struct file : seq<star<decl>, skip, eof> {};
// NOLINTEND(readability-identifier-naming)

}  // namespace seam::parse::grammar
