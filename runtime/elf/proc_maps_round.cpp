#include "runtime/elf/proc_maps_round.hpp"

#include <memory>
#include <unordered_map>

#include "runtime/elf/proc_maps.hpp"

namespace seam::runtime::elf {

struct RoundTexts {
  std::unordered_map<pid_t, std::optional<std::string>> by_pid;  // nodes: views stay valid
  std::string buffer;                                            // one read buffer for the round
};

namespace {

// The executable lines, as for_each_executable_mapping keeps them.
std::string executable_lines(std::string_view text) {
  std::string out;
  for_each_executable_line(text, [&](std::string_view line) {
    out.append(line);
    out.push_back('\n');
  });
  return out;
}

}  // namespace

ProcMapsRound::ProcMapsRound() = default;
ProcMapsRound::~ProcMapsRound() = default;

std::optional<std::string_view> executable_maps_text(pid_t pid, std::string& storage) {
  RoundTexts* current = ThreadRound<RoundTexts>::current();
  if (!current) return read_file_view(proc_path(pid, "maps").c_str(), storage);
  auto [it, fresh] = current->by_pid.try_emplace(pid);
  if (fresh) {
    if (std::optional<std::string_view> text =
            read_file_view(proc_path(pid, "maps").c_str(), current->buffer))
      it->second = executable_lines(*text);
  }
  if (!it->second) return std::nullopt;
  return std::string_view(*it->second);
}

}  // namespace seam::runtime::elf
