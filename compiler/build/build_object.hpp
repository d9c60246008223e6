#pragma once
// Builds generated BPF C into an object with the clang binary at run time: the source, the
// embedded headers and a kernel_types.h from the running kernel's BTF go into a private work
// directory; clang runs in a child process; errors come back as values. Objects are cached.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compiler/build/clang_runner.hpp"
#include "compiler/diag/result.hpp"

namespace seam::build {

class ClangPrestart;

// A BPF object built once with seam (cli/prebuild/) that a program calls into: linked after the
// program's parts, its hidden functions become the program's subprograms (py_stack.h).
struct LinkedObject {
  std::string name;  // the file it is in the work dir: <name>.bpf.o
  std::span<const uint8_t> bytes;
};

struct BuildOptions {
  // Kernel types the program names (besides kBaseKernelTypes); dumped from the kernel's BTF.
  std::vector<std::string> kernel_types = {"pt_regs"};
  // When set, used as kernel_types.h instead of dumping kernel_types (tests, benchmarks).
  std::string kernel_types_header;
  // The name the source gets in the work dir (and in clang's messages without #line).
  std::string source_name = "seam_program.bpf.c";
  std::vector<std::string> extra_flags;
  // Linked into the object after its parts (empty: none); their bytes are in the cache key.
  std::vector<LinkedObject> link_with;
  // Built as this many objects at once, one clang each, linked into one (link_objects.hpp); the
  // generated C marks the programs each part keeps (SEAM_IN_PART, seam_prelude.h). 1: one clang,
  // one object. Rule builds take it from build_parts().
  int parts = 1;
  bool use_cache = true;
  std::string cache_dir;  // empty: default_cache_dir()
  int timeout_ms = 120000;
  // clang's own limits (setrlimit in the child): a program too large to compile fails with a
  // clear error instead of taking the host's memory. $SEAM_CLANG_MEMORY_MB overrides the first.
  uint64_t memory_limit_bytes = uint64_t{4} << 30;
  uint64_t cpu_limit_s = 120;
  // Keep the work dir (sources, headers, object) after the build, failed or not, so that
  // BuildResult::command can be re-run by hand; $SEAM_KEEP_BUILD_DIR=1 does the same. Otherwise
  // it is removed whatever happened.
  bool keep_work_dir = false;
  // clangs started ahead of the program (clang_prestart.hpp), taken over when their flags are
  // this build's and it misses the cache; otherwise killed. Null: the build starts its own.
  std::shared_ptr<ClangPrestart> prestarted;
  // Called once, when the first of the parts' clangs to finish is done, before the others finish
  // and the parts are linked; never on a cache hit: `seam run` then attaches the loader
  // hook, whose first uprobe waits out an RCU grace period beside the rest of the build
  // (runtime/run/start_ahead.hpp).
  std::function<void()> on_first_part;
};

// A build's report: the object or why there is none, and what a failed build leaves to show (the
// command, clang's output and its errors, the kept work dir).
struct BuildResult {
  // The object's bytes, or what went wrong: "clang failed (exit 1)" (its diagnostics in `errors`),
  // no clang (ErrorCode::NotFound), no BTF, a crash, a limit.
  Result<std::vector<uint8_t>> object = Error{"not built"};
  // The clang command line that builds the object from the work dir's files, re-runnable from any
  // directory (seam's own run gives clang the same program through standard input, to start it early).
  std::string command;
  std::string clang_stderr;  // clang's output (stdout and stderr)
  std::vector<ClangError> errors;
  std::string cache_key;
  std::string work_dir;  // empty once removed (always, unless keep_work_dir)
  bool from_cache = false;
  double compile_ms = 0;  // clang's wall time once its input was ready; 0 on a cache hit
  int prestarted = 0;     // clangs of BuildOptions::prestarted this build ran
};

BuildResult build_object(const std::string& c_source, const BuildOptions& options);

// The parts a program of `source_bytes` bytes of C is built in: 1 below kPartsFromBytes, else one
// per CPU this process may run on, at most kMaxParts. $SEAM_BUILD_PARTS, when set, is taken as it
// is (benchmarks, tests). Below the size, a second clang's start and the link cost about what the
// halved compile saves, with the clangs started ahead of the program (clang_prestart.hpp; cold
// starts on two cores, docs/BENCHMARK.md "Clang started first", "Stop 36": measured again once
// seam's fixed functions came prebuilt and the C per rule shrank).
inline constexpr size_t kPartsFromBytes = size_t{6} * 1024;
inline constexpr int kMaxParts = 4;
int build_parts(size_t source_bytes);

}  // namespace seam::build
