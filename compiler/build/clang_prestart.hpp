#pragma once
// clang started before its program exists. A `seam run` that will probably compile (start_record.hpp)
// starts its clangs first thing, so that their process start (about 40 ms here: loading and
// relocating LLVM) runs beside reading, checking and generating the rules instead of after them.
// build_object takes them over (BuildOptions::prestarted); a cache hit, a build with other flags,
// or a run that stops before building kills them unused and removes their directory.
#include <memory>
#include <string>
#include <vector>

#include "compiler/build/build_object.hpp"
#include "compiler/build/clang_runner.hpp"

namespace seam::build {

class ClangPrestart {
 public:
  // `clangs` clangs (1..kMaxParts) for a build with `options`' flags and limits, in a new work
  // dir holding the embedded headers; null when there is no clang or the dir cannot be made (the
  // build then starts its own).
  static std::shared_ptr<ClangPrestart> start(int clangs, const BuildOptions& options);
  ~ClangPrestart();
  ClangPrestart(const ClangPrestart&) = delete;
  ClangPrestart& operator=(const ClangPrestart&) = delete;

  // The clangs and their dir, taken over by a build with `clang` and `options`: clang k writes
  // part_object(dir, k), and the dir is the build's from then on. Clangs for other flags or
  // limits are killed, and their dir removed: the build gets none.
  struct Taken {
    std::vector<std::unique_ptr<StartedProcess>> clangs;
    std::string dir;
  };
  Taken take(const std::string& clang, const BuildOptions& options);

 private:
  ClangPrestart() = default;
  std::string clang_;
  std::vector<std::string> flags_;
  ProcessLimits limits_;
  std::string dir_;
  bool taken_ = false;
  std::vector<std::unique_ptr<StartedProcess>> clangs_;
};

// How many clangs to start for rule files of `rule_bytes` bytes, before their C is generated:
// build_parts() of an estimate of that C (the default pack's rule files make 4.8 times their
// size in C, the gil+malloc pair 4.6 times, a small file up to 8.5 times: comments count as rule
// bytes). A wrong guess starts or stops one clang at build time.
int prestart_clangs(size_t rule_bytes);

}  // namespace seam::build
