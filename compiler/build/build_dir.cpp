#include "compiler/build/build_dir.hpp"

#include <cstdlib>
#include <fstream>

#include "compiler/build/embedded.hpp"
#include "compiler/build/helper_defs.hpp"

namespace seam::build {

namespace {

// libbpf's usdt.bpf.h includes <linux/errno.h> (whose <asm/errno.h> lives in the host's
// multiarch folder, which `clang -target bpf` does not search) and <bpf/...> headers: it gets
// the three errno values it uses, and the embedded copies of the others.
std::string bpf_side_header(const char* name, std::string_view content) {
  std::string text(content);
  if (std::string_view(name) != "usdt.bpf.h") return text;
  auto replace = [&text](std::string_view from, std::string_view to) {
    if (size_t at = text.find(from); at != std::string::npos) text.replace(at, from.size(), to);
  };
  replace("#include <linux/errno.h>",
          "#ifndef ENOENT\n#define ENOENT 2\n#endif\n#ifndef ESRCH\n#define ESRCH 3\n#endif\n"
          "#ifndef EINVAL\n#define EINVAL 22\n#endif");
  replace("#include <bpf/bpf_helpers.h>", "#include \"bpf_helpers.h\"");
  replace("#include <bpf/bpf_tracing.h>", "#include \"bpf_tracing.h\"");
  return text;
}

}  // namespace

const std::vector<const char*>& embedded_header_names() {
  static const std::vector<const char*> names = {
      "seam_prelude.h",  "seam_record.h", "bpf_helpers.h",   "bpf_helper_defs.h", "bpf_tracing.h",
      "bpf_core_read.h", "bpf_endian.h",  "seam_rules.h",    "usdt.bpf.h",        "seam_fd.h",
      "seam_scope.h",    "py_gil.h",      "seam_identity.h", "py_stack.h",        "seam_generation.h",
      "seam_session.h",  "py_walk.h",     "stack_copy.h"};
  return names;
}

std::string make_work_dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/seam-build-XXXXXX";
  return mkdtemp(tmpl.data()) ? tmpl : std::string();
}

bool write_file(const std::filesystem::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  return static_cast<bool>(out.flush());
}

void remove_dir(const std::string& dir) {
  std::error_code ec;
  if (!dir.empty()) std::filesystem::remove_all(dir, ec);
}

Result<void> write_embedded_headers(const std::filesystem::path& dir) {
  for (const char* name : embedded_header_names()) {
    if (std::string_view(name) == kHelperDefs) continue;  // write_helper_defs(), with the program
    auto content = embedded::find(name);
    if (!content) return Error{std::string("embedded header missing from this build: ") + name};
    if (!write_file(dir / name, bpf_side_header(name, *content)))
      return Error{"cannot write the program into " + dir.string()};
  }
  return {};
}

Result<void> write_helper_defs(const std::filesystem::path& dir, std::string_view c_source) {
  std::vector<std::string_view> uses = {c_source};
  for (const char* name : embedded_header_names())
    if (std::string_view(name) != kHelperDefs) uses.push_back(embedded::find(name).value_or(""));
  auto defs = embedded::find(kHelperDefs);
  if (!defs) return Error{std::string("embedded header missing from this build: ") + kHelperDefs};
  if (!write_file(dir / kHelperDefs, helper_defs_used_by(*defs, uses)))
    return Error{"cannot write the program into " + dir.string()};
  return {};
}

std::vector<std::string> compile_flags(const BuildOptions& options) {
  // kernel_types.h is dumped from the running kernel and the cache key names that kernel, so
  // field offsets are exact: CO-RE relocations would only make libbpf parse the kernel's BTF
  // again at every load (25-50 ms of each start).
  std::vector<std::string> flags = {"-target", "bpf", "-O2", "-g", "-D__TARGET_ARCH_x86",
                                    "-DBPF_NO_PRESERVE_ACCESS_INDEX",
                                    // a chain of 1024 operands (docs/language.md, "Limits") nests as deep
                                    "-fbracket-depth=2048",
                                    // C89's implicit declaration would build a call to no helper
                                    // (a declaration write_helper_defs() left out) that only the
                                    // load refuses
                                    "-Werror=implicit-function-declaration"};
  flags.insert(flags.end(), options.extra_flags.begin(), options.extra_flags.end());
  return flags;
}

ProcessLimits clang_limits(const BuildOptions& options) {
  uint64_t memory = options.memory_limit_bytes;
  if (const char* env = std::getenv("SEAM_CLANG_MEMORY_MB"); env && *env) {
    char* end = nullptr;
    unsigned long long mb = std::strtoull(env, &end, 10);
    if (end && *end == 0) memory = static_cast<uint64_t>(mb) << 20;
  }
  return ProcessLimits{memory, options.cpu_limit_s};
}

std::string part_object(const std::filesystem::path& dir, int part) {
  return (dir / ("seam_part" + std::to_string(part) + ".bpf.o")).string();
}

std::string linked_object(const std::filesystem::path& dir) {
  return (dir / "seam_program.bpf.o").string();
}

std::vector<std::string> clang_argv(const std::string& clang, const BuildOptions& options,
                                    const std::filesystem::path& dir, const std::string& object) {
  std::vector<std::string> argv = {clang};
  for (const std::string& f : compile_flags(options)) argv.push_back(f);
  // A crashing clang would otherwise leave a reproducer (source and script) in /tmp.
  for (const std::string& f : {std::string("-fno-crash-diagnostics"), "-I" + dir.string(), std::string("-c"),
                               std::string("-o"), object})
    argv.push_back(f);
  return argv;
}

std::vector<std::string> reading_stdin(std::vector<std::string> argv) {
  argv.insert(argv.end(), {"-x", "c", "-"});
  return argv;
}

std::string main_file(const std::string& source_name, int part, int parts) {
  std::string text;
  if (parts > 1)
    text =
        "#define SEAM_PARTS " + std::to_string(parts) + "\n#define SEAM_PART " + std::to_string(part) + "\n";
  return text + "#include \"" + source_name + "\"\n";
}

}  // namespace seam::build
