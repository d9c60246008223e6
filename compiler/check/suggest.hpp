#pragma once
// "Did you mean ...?": the closest known name by edit distance, for unknown-name diagnostics.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace seam::check {

size_t edit_distance(std::string_view a, std::string_view b);

struct Candidate {
  std::string compare;  // what the user's text is compared with: "stream_sync"
  std::string display;  // what the hint shows: "cuda.stream_sync"
};

// The closest candidate within a distance of about a third of the name's length, ties broken by
// the order given; nullopt when nothing is close enough to be a plausible typo.
std::optional<std::string> closest(std::string_view typed, const std::vector<Candidate>& candidates);
std::optional<std::string> closest(std::string_view typed, const std::vector<std::string>& names);

// "a, b, c"
std::string join(const std::vector<std::string>& items, std::string_view separator = ", ");

}  // namespace seam::check
