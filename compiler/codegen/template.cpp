#include "compiler/codegen/template.hpp"

#include <stdexcept>

#include "compiler/build/embedded.hpp"
#include "compiler/codegen/c_escape.hpp"

namespace seam::codegen {

namespace {

// Where a `{{name}}` stands in a fragment's own C text.
enum class Context { Code, BlockComment, LineComment, String };

// The context after `text`, starting in `c`. Fragments are seam's own text: no escapes in strings.
Context advance(Context c, std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    std::string_view rest = text.substr(i);
    switch (c) {
      case Context::Code:
        if (rest.starts_with("/*"))
          c = Context::BlockComment, ++i;
        else if (rest.starts_with("//"))
          c = Context::LineComment, ++i;
        else if (rest[0] == '"')
          c = Context::String;
        break;
      case Context::BlockComment:
        if (rest.starts_with("*/")) c = Context::Code, ++i;
        break;
      case Context::LineComment:
        if (rest[0] == '\n') c = Context::Code;
        break;
      case Context::String:
        if (rest[0] == '"') c = Context::Code;
        break;
    }
  }
  return c;
}

// A value inside a comment is escaped; one inside a string must already be plain (section names,
// file names seam chose); code is the generator's own.
std::string placed(Context c, std::string_view name, const std::string& value) {
  if (c == Context::BlockComment || c == Context::LineComment) return comment_text(value);
  if (c == Context::String &&
      value.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:/-") !=
          std::string::npos)
    throw std::logic_error("BPF template value '" + std::string(name) + "' inside a string is not plain");
  return value;
}

}  // namespace

std::string expand(std::string_view fragment, const Vars& vars) {
  std::string out;
  out.reserve(fragment.size() * 2);
  size_t pos = 0;
  Context context = Context::Code;
  while (true) {
    size_t open = fragment.find("{{", pos);
    if (open == std::string_view::npos) break;
    size_t close = fragment.find("}}", open + 2);
    if (close == std::string_view::npos) throw std::logic_error("unterminated {{ in a BPF template");
    std::string_view text = fragment.substr(pos, open - pos);
    out.append(text);
    context = advance(context, text);
    std::string_view name = fragment.substr(open + 2, close - open - 2);
    auto it = vars.find(name);
    if (it == vars.end())
      throw std::logic_error("BPF template asks for unknown value '" + std::string(name) + "'");
    out += placed(context, name, it->second);
    pos = close + 2;
  }
  out.append(fragment.substr(pos));
  return out;
}

std::string fragment(std::string_view name, const Vars& vars) {
  auto text = embedded::find(name);
  if (!text) throw std::logic_error("BPF template '" + std::string(name) + "' is not embedded");
  return expand(*text, vars);
}

}  // namespace seam::codegen
