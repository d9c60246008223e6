#pragma once
// What this seam is: `seam --version`, and the engine version a bundle records.
#include <string>

namespace seam::cli {

// "seam 0.1.0 (git 8394c38abcde)"
std::string engine_version();

// The whole `seam --version` text: version and revision, engine ABI, the libbpf built against
// and loaded, the clang the build saw and the one `seam run` of rule files would use now (found,
// not run: running clang would cost more than the rest of seam's start).
std::string version_text();

}  // namespace seam::cli
