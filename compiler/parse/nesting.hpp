#pragma once
// The parser's input (a PEGTL memory_input that also knows where the file text starts and how deep the
// expression being parsed nests), the one exception the grammar throws, and the nest<R> rule that stops
// runaway nesting (`((((...` or `not not not ...`) with E0003 long before the stack runs out.
#include <cstddef>
#include <string>

#include <tao/pegtl.hpp>

#include "compiler/diag/codes.hpp"

namespace seam::parse {

// Thrown from inside the grammar; parse_file turns it into a diagnostic and recovers.
struct SyntaxFailure {
  diag::Code code;
  size_t offset;        // byte offset into the file text
  std::string message;  // for E0001: what was expected ("a name"); otherwise the full message
  bool exact = false;   // E0001 at `offset` itself, not at the next token (an unterminated string)
};

class ParseInput : public tao::pegtl::memory_input<> {
 public:
  ParseInput(const char* file_begin, const char* from, const char* end, const std::string& path,
             int max_nesting)
      : memory_input(from, end, path), file_begin_(file_begin), max_nesting_(max_nesting) {}

  size_t offset() const { return static_cast<size_t>(current() - file_begin_); }
  size_t offset_of(const char* p) const { return static_cast<size_t>(p - file_begin_); }

  // Counts levels for as long as it lives (nest<R>: parentheses, `not`, `-`). The whole expression
  // is level 0, so `max_nesting` parentheses are accepted and one more is not. Throws once the
  // limit would be passed.
  class Levels {
   public:
    explicit Levels(ParseInput& in, int initial = 0) : in_(in) {
      for (int i = 0; i < initial; ++i) add();
    }
    ~Levels() { in_.depth_ -= count_; }
    Levels(const Levels&) = delete;
    Levels& operator=(const Levels&) = delete;
    void add() {
      if (in_.depth_ > in_.max_nesting_)  // depth_ 1 is the expression itself
        throw SyntaxFailure{diag::Code::NestingTooDeep, in_.offset(),
                            "expression nests deeper than " + std::to_string(in_.max_nesting_) + " levels"};
      ++in_.depth_;
      ++count_;
    }

   private:
    ParseInput& in_;
    int count_ = 0;
  };

  // Counts the operands after the first of `a or b or ...` chains (the AST is a left-deep tree, so
  // later passes recurse once per operand), across every chain the expression is inside. A flat
  // chain is not nesting, but it is bounded too: at most kMaxChainOperands in all.
  static constexpr int kMaxChainOperands = 1024;
  class Operands {
   public:
    explicit Operands(ParseInput& in) : in_(in) {}
    ~Operands() { in_.operands_ -= count_; }
    Operands(const Operands&) = delete;
    Operands& operator=(const Operands&) = delete;
    void add() {
      if (in_.operands_ + 1 >= kMaxChainOperands)
        throw SyntaxFailure{diag::Code::NestingTooDeep, in_.offset(),
                            "expression has more than " + std::to_string(kMaxChainOperands) +
                                " operands in its chains of `and`, `or` and operators"};
      ++in_.operands_;
      ++count_;
    }

   private:
    ParseInput& in_;
    int count_ = 0;
  };

 private:
  const char* file_begin_;
  int max_nesting_;
  int depth_ = 0;
  int operands_ = 0;
};

// PEGTL rules, lower_case as in PEGTL itself.
// NOLINTBEGIN(readability-identifier-naming)
namespace grammar {

// Matches R one nesting level deeper. Analysis sees it as seq<R>.
template <typename R>
struct nest : tao::pegtl::seq<R> {
  template <tao::pegtl::apply_mode A, tao::pegtl::rewind_mode M, template <typename...> class Action,
            template <typename...> class Control, typename Input, typename... States>
  static bool match(Input& in, States&&... st) {
    ParseInput::Levels level(in, 1);
    return Control<R>::template match<A, M, Action, Control>(in, st...);
  }
};

// `Operand { Op Operand }`, counting its operands (ParseInput::Operands). Analysis sees it as
// seq<Operand, star<Op, must<Operand>>>.
template <typename Op, typename Operand>
struct chain : tao::pegtl::seq<Operand, tao::pegtl::star<Op, tao::pegtl::must<Operand>>> {
  template <tao::pegtl::apply_mode A, tao::pegtl::rewind_mode M, template <typename...> class Action,
            template <typename...> class Control, typename Input, typename... States>
  static bool match(Input& in, States&&... st) {
    if (!Control<Operand>::template match<A, M, Action, Control>(in, st...)) return false;
    ParseInput::Operands operands(in);
    while (Control<Op>::template match<A, tao::pegtl::rewind_mode::required, Action, Control>(in, st...)) {
      operands.add();
      if (!Control<tao::pegtl::must<Operand>>::template match<A, M, Action, Control>(in, st...)) return false;
    }
    return true;
  }
};

}  // namespace grammar
// NOLINTEND(readability-identifier-naming)
}  // namespace seam::parse
