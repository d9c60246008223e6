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

  // Counts one level for as long as it lives; throws once the limit is passed.
  class Level {
   public:
    explicit Level(ParseInput& in) : in_(in) {
      if (++in_.depth_ > in_.max_nesting_)
        throw SyntaxFailure{diag::Code::NestingTooDeep, in_.offset(),
                            "expression nests deeper than " + std::to_string(in_.max_nesting_) + " levels"};
    }
    ~Level() { --in_.depth_; }
    Level(const Level&) = delete;
    Level& operator=(const Level&) = delete;

   private:
    ParseInput& in_;
  };

 private:
  const char* file_begin_;
  int max_nesting_;
  int depth_ = 0;
};

namespace grammar {

// Matches R one nesting level deeper. Analysis sees it as seq<R>.
template <typename R>
struct nest : tao::pegtl::seq<R> {
  template <tao::pegtl::apply_mode A, tao::pegtl::rewind_mode M, template <typename...> class Action,
            template <typename...> class Control, typename Input, typename... States>
  static bool match(Input& in, States&&... st) {
    ParseInput::Level level(in);
    return Control<R>::template match<A, M, Action, Control>(in, st...);
  }
};

}  // namespace grammar
}  // namespace seam::parse
