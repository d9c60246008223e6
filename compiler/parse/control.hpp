#pragma once
// The PEGTL control: a failed must<R> becomes a SyntaxFailure that says what R is ("a name", "'='"),
// taken from R::what. Wrappers (tok<R>, nest<R>) say what their inner rule says.
#include <type_traits>

#include <tao/pegtl.hpp>

#include "compiler/parse/grammar.hpp"
#include "compiler/parse/nesting.hpp"

namespace seam::parse {

template <typename Rule>
struct Expected {
  static constexpr const char* what = Rule::what;
};
template <typename R>
struct Expected<grammar::tok<R>> : Expected<R> {};
template <typename R>
struct Expected<grammar::nest<R>> : Expected<R> {};

template <typename Rule>
struct Control : tao::pegtl::normal<Rule> {
  // Every failed rule puts the input back where it began (PEGTL skips that inside must<> otherwise), so
  // that a failed must<R> reports the position where R should have started.
  template <tao::pegtl::apply_mode A, tao::pegtl::rewind_mode M, template <typename...> class Action,
            template <typename...> class C, typename Input, typename... States>
  static bool match(Input& in, States&&... st) {
    return tao::pegtl::normal<Rule>::template match<A, tao::pegtl::rewind_mode::required, Action, C>(in,
                                                                                                     st...);
  }

  template <typename Input, typename... States>
  [[noreturn]] static void raise(const Input& in, States&&... /*unused*/) {
    throw SyntaxFailure{diag::Code::SyntaxError, in.offset(), Expected<Rule>::what,
                        std::is_same_v<Rule, grammar::close_quote>};
  }
};

}  // namespace seam::parse
