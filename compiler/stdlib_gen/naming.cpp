#include "compiler/stdlib_gen/naming.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace seam::stdlib_gen {

namespace {

bool upper(char c) {
  return std::isupper(static_cast<unsigned char>(c)) != 0;
}
bool lower(char c) {
  return std::islower(static_cast<unsigned char>(c)) != 0;
}
bool digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// True when the digits starting at i are followed by exactly one capital that ends a word: "2D".
bool digits_then_one_capital(const std::string& s, size_t i) {
  size_t j = i;
  while (j < s.size() && digit(s[j])) ++j;
  if (j >= s.size() || !upper(s[j])) return false;
  return j + 1 == s.size() || !lower(s[j + 1]);
}

}  // namespace

std::string snake_case(const std::string& name) {
  std::string out;
  auto boundary = [&] {
    if (!out.empty() && out.back() != '_') out += '_';
  };
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    char prev = i > 0 ? name[i - 1] : '\0';
    char next = i + 1 < name.size() ? name[i + 1] : '\0';
    if (c == '_') {
      boundary();
      continue;
    }
    if (digit(c) && !digit(prev) && digits_then_one_capital(name, i)) {
      boundary();
    } else if (upper(c)) {
      bool after_digit_unit = digit(prev) && i > 0 && digits_then_one_capital(name, [&] {
                                size_t k = i;
                                while (k > 0 && digit(name[k - 1])) --k;
                                return k;
                              }());
      if (after_digit_unit) {
        // the capital of "2D": same word as its digits
      } else if (lower(prev) || digit(prev) || (upper(prev) && lower(next))) {
        boundary();
      }
    }
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

std::string common_lowercase_prefix(const std::vector<std::string>& names) {
  if (names.empty()) return "";
  size_t n = 0;
  const std::string& first = names.front();
  while (n < first.size() && lower(first[n])) ++n;
  for (const std::string& name : names) {
    size_t k = 0;
    while (k < n && k < name.size() && name[k] == first[k]) ++k;
    n = k;
  }
  // Back off until the prefix ends at a word boundary in every name and leaves a letter after it.
  while (n > 0) {
    bool ok = std::all_of(names.begin(), names.end(), [&](const std::string& name) {
      if (name.size() <= n) return false;
      char c = name[n];
      size_t rest = n;
      while (rest < name.size() && name[rest] == '_') ++rest;
      return (upper(c) || c == '_') && rest < name.size() &&
             std::isalpha(static_cast<unsigned char>(name[rest]));
    });
    if (ok) break;
    --n;
  }
  return first.substr(0, n);
}

bool is_seam_reserved(const std::string& word) {
  static const std::array<const char*, 32> reserved = {
      "module", "use",    "library", "span", "point", "alias", "state",      "rule",
      "metric", "output", "route",   "on",   "where", "while", "after",      "within",
      "alert",  "with",   "limit",   "when", "per",   "set",   "clear",      "key",
      "exe",    "and",    "or",      "not",  "true",  "false", "startswith", "group"};
  return std::find_if(reserved.begin(), reserved.end(), [&](const char* r) { return word == r; }) !=
         reserved.end();
}

std::string seam_identifier(const std::string& name) {
  std::string out;
  for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (out.empty() || digit(out[0])) out = "_" + out;
  if (is_seam_reserved(out)) out += "_";
  return out;
}

bool glob_matches(const std::string& glob, const std::string& name) {
  return ::fnmatch(glob.c_str(), name.c_str(), 0) == 0;
}

}  // namespace seam::stdlib_gen
