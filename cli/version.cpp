#include "cli/version.hpp"

#include <bpf/libbpf.h>

#include <filesystem>

#include "compiler/build/clang_runner.hpp"
#include "compiler/bundle/bundle.hpp"
#include "seam_build_info.hpp"
#include "seam_git_revision.hpp"

namespace seam::cli {

std::string engine_version() {
  return std::string("seam ") + SEAM_VERSION + " (git " + SEAM_GIT_REVISION + ")";
}

std::string version_text() {
  std::string text = engine_version() + "\n";
  text += "engine ABI " + std::to_string(bundle::kEngineAbi) + " (runs bundles built for it)\n";
  text += std::string("libbpf ") + SEAM_LIBBPF_BUILD_VERSION + " at build, " + libbpf_version_string() +
          " loaded\n";
  text += std::string("clang at build: ") + SEAM_CLANG_BUILD_VERSION + "\n";
  std::string clang = build::find_clang();
  std::error_code ec;
  std::string shown = "none found (rule files cannot be built here; bundles run)";
  if (!clang.empty()) {
    std::filesystem::path resolved = std::filesystem::canonical(clang, ec);
    shown = ec ? clang : resolved.string();
  }
  text += "clang at run time: " + shown + " (not run)\n";
  return text;
}

}  // namespace seam::cli
