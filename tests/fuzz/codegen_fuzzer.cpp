// libFuzzer harness for the whole compiler front end: bytes in as a rule file (beside the shipped
// stdlib), then check, lower and generate. Never a crash, a hang or an exception out; whatever the
// text, the generated C keeps the escaping invariant (compiler/codegen/c_invariant.hpp: nothing a
// rule wrote becomes code, a comment end or a directive). No clang: the invariant is checked on
// the text.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "compiler/check/check.hpp"
#include "compiler/check/program.hpp"
#include "compiler/codegen/c_invariant.hpp"
#include "compiler/codegen/generate.hpp"
#include "compiler/lower/lower.hpp"

namespace {

// One file rewritten for every input: check::load reads rule files from disk.
const std::string& input_path() {
  static const std::string path = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string p =
        std::string(tmp && *tmp ? tmp : "/tmp") + "/seam-fuzz-" + std::to_string(getpid()) + ".seam";
    return p;
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FILE* f = std::fopen(input_path().c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);

  seam::check::LoadOptions load;
  load.stdlib_dirs = {SEAM_FUZZ_STDLIB_DIR};
  load.limits.max_file_bytes = 64 * 1024;
  seam::check::Program program = seam::check::load({input_path()}, load);
  if (!program.diagnostics.has_errors()) seam::check::check(program);
  if (program.diagnostics.has_errors()) return 0;

  seam::lower::Input input;
  for (const auto& file : program.modules) input.modules.push_back(&file);
  for (const auto& file : program.rule_files) input.rule_files.push_back(&file);
  // A checked program must lower and generate; generate() itself throws when the C breaks the
  // invariant, and libFuzzer reports the uncaught exception as a crash with the input.
  seam::plan::Program lowered = seam::lower::lower(input);
  seam::codegen::Generated generated = seam::codegen::generate(lowered);
  if (!seam::codegen::c_invariant_violation(generated.c_source).empty()) std::abort();
  return 0;
}
