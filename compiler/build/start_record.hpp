#pragma once
// Whether a `seam run` will compile, guessed before anything is read. The object cache keeps, for
// each set of rule files a run was started with, what those files and the stdlib's were (size,
// modification time, inode) when a start last built or found their object, with the settings of
// the command line that reach the generated C, seam's own binary and the kernel. A start whose
// files and settings are as recorded will almost surely find its object; any other starts its
// clangs at once (clang_prestart.hpp). Only that guess reads the record: objects are keyed by
// their generated C, and a wrong guess costs one clang started early, or one started late.
#include <string>
#include <vector>

namespace seam::build {

struct StartRecord {
  std::string name;   // the set of files: their paths
  std::string state;  // what they are now
  size_t bytes = 0;   // their size together, from the same look at them
};

// `files`: the rule files of the run, as the compile driver collects them; `modules`: the stdlib
// files they are checked with; `settings`: the command line's part of the C, in any stable text.
StartRecord start_record(const std::vector<std::string>& files, const std::vector<std::string>& modules = {},
                         const std::string& settings = "");

// Whether `cache_dir` holds `record` as it is now (a start with these files found its object).
bool recorded(const std::string& cache_dir, const StartRecord& record);

// Writes `record` into `cache_dir` after a start that was not recorded() found or built its
// object; a cache that cannot be written only loses the guess.
void keep_record(const std::string& cache_dir, const StartRecord& record);

}  // namespace seam::build
