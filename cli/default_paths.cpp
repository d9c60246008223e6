#include "cli/default_paths.hpp"

#include <filesystem>

namespace seam::cli {

std::string default_rules_dir() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  for (const std::filesystem::path& p :
       {exe.parent_path() / "../rules", exe.parent_path() / "../share/seam/rules",
        std::filesystem::path("rules")})
    if (std::filesystem::is_directory(p, ec)) return std::filesystem::weakly_canonical(p, ec).string();
#ifdef SEAM_SOURCE_RULES
  return SEAM_SOURCE_RULES;
#else
  return "rules";
#endif
}

}  // namespace seam::cli
