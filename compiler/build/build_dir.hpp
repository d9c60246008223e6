#pragma once
// A build's private work directory and the clang command lines that build in it: what
// build_object and the clangs a run starts ahead of its program (clang_prestart.hpp) share.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/build/build_object.hpp"

namespace seam::build {

// The headers every generated program may include, embedded in seam (part of the cache key).
const std::vector<const char*>& embedded_header_names();

// A new private directory under $TMPDIR (or /tmp); empty when none can be made.
std::string make_work_dir();

bool write_file(const std::filesystem::path& path, std::string_view text);

// Removes `dir` and all in it, if it is not empty; errors are ignored (a leftover temp dir).
void remove_dir(const std::string& dir);

inline constexpr const char* kHelperDefs = "bpf_helper_defs.h";

// The embedded headers but kHelperDefs, written into `dir` as clang includes them; the error
// names what failed. A clang started ahead has them before the program is known.
Result<void> write_embedded_headers(const std::filesystem::path& dir);
// kHelperDefs for the program `c_source`: only the helpers it or a header names
// (helper_defs.hpp). Written with the program, before any clang reads its main file.
Result<void> write_helper_defs(const std::filesystem::path& dir, std::string_view c_source);

// The flags a build compiles with, no path among them (part of the cache key).
std::vector<std::string> compile_flags(const BuildOptions& options);

// clang's limits for a build: $SEAM_CLANG_MEMORY_MB over the options' memory limit.
ProcessLimits clang_limits(const BuildOptions& options);

// Where part `part` of a build in `dir` writes its object, and where the parts are linked.
std::string part_object(const std::filesystem::path& dir, int part);
std::string linked_object(const std::filesystem::path& dir);

// clang's command line for a build in `dir` into `object`, without its input: the command printed
// to re-run by hand adds the source file; a clang started before the program is written reads it
// from standard input (reading_stdin()), one main file naming it (main_file()).
std::vector<std::string> clang_argv(const std::string& clang, const BuildOptions& options,
                                    const std::filesystem::path& dir, const std::string& object);
std::vector<std::string> reading_stdin(std::vector<std::string> argv);

// What part `part` of `parts` reads from standard input: the part it builds (SEAM_IN_PART,
// seam_prelude.h), then the program. On the command line instead, the clangs could not be started
// before the program's size decides how many parts it has.
std::string main_file(const std::string& source_name, int part, int parts);

}  // namespace seam::build
