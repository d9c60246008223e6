#pragma once
// Helpers for the parser tests: parse a text, print its diagnostics, find declarations by kind.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "compiler/parse/parser.hpp"

namespace seam::parse::test {

struct Parsed {
  std::unique_ptr<SourceFile> source;
  diag::Diagnostics diags;
  ast::File file;

  // "E0001 1:5 expected ..." lines, for readable failures and exact checks.
  std::vector<std::string> messages() const {
    std::vector<std::string> out;
    for (const diag::Diagnostic& d : diags.all()) {
      std::string pos;
      if (d.range.valid()) {
        auto lc = source->line_col(d.range.begin);
        pos = std::to_string(lc.line) + ":" + std::to_string(lc.column) + " ";
      }
      out.push_back(std::string(diag::code_id(d.code)) + " " + pos + d.message);
    }
    return out;
  }
  std::string dump() const {
    std::string s;
    for (const std::string& m : messages()) s += m + "\n";
    return s;
  }
  template <typename T>
  std::vector<const T*> all() const {
    std::vector<const T*> out;
    for (const ast::Decl& d : file.decls)
      if (const T* t = std::get_if<T>(&d)) out.push_back(t);
    return out;
  }
  template <typename T>
  const T& only() const {
    auto v = all<T>();
    EXPECT_EQ(v.size(), 1u) << dump();
    static const T empty{};
    return v.empty() ? empty : *v.front();
  }
  SourceFile::LineCol at(const SourceRange& r) const { return source->line_col(r.begin); }
};

inline std::unique_ptr<Parsed> parse(const std::string& text, const Limits& limits = {}) {
  auto p = std::make_unique<Parsed>();
  p->source = std::make_unique<SourceFile>("test.seam", text);
  p->file = parse_file(*p->source, p->diags, limits);
  return p;
}

}  // namespace seam::parse::test
