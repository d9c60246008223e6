#include "compiler/build/build_object.hpp"

#include <poll.h>
#include <sched.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string_view>

#include "compiler/build/build_dir.hpp"
#include "compiler/build/clang_prestart.hpp"
#include "compiler/build/content_hash.hpp"
#include "compiler/build/embedded.hpp"
#include "compiler/build/kernel_types.hpp"
#include "compiler/build/link_objects.hpp"
#include "compiler/build/object_cache.hpp"
#include "compiler/build/rename_watch.hpp"

namespace seam::build {

namespace {

bool keep_work_dir(const BuildOptions& options) {
  const char* env = std::getenv("SEAM_KEEP_BUILD_DIR");
  return options.keep_work_dir || (env && *env && std::string_view(env) != "0");
}

// Why clang failed, in words an operator can act on.
std::string clang_failure(const ProcessResult& run, const std::string& out, const ProcessLimits& limits,
                          int timeout_ms) {
  bool out_of_memory = out.find("out of memory") != std::string::npos ||
                       out.find("bad_alloc") != std::string::npos ||
                       out.find("Cannot allocate memory") != std::string::npos ||
                       out.find("failed to map segment") != std::string::npos;  // too little to even load
  std::string split = ": the program is too large; spread its rules over more files or events";
  if (run.timed_out) return "clang did not finish within " + std::to_string(timeout_ms) + " ms" + split;
  if (run.exit_code == 128 + SIGXCPU || (run.exit_code == 128 + SIGKILL && limits.cpu_seconds))
    return "clang used up its CPU time limit (" + std::to_string(limits.cpu_seconds) + " s)" + split;
  if (out_of_memory && limits.address_space_bytes)
    return "clang ran out of its memory limit (" + std::to_string(limits.address_space_bytes >> 20) +
           " MiB, $SEAM_CLANG_MEMORY_MB)" + split;
  return run.exit_code > 128 ? "clang crashed (signal " + std::to_string(run.exit_code - 128) + ")"
                             : "clang failed (exit " + std::to_string(run.exit_code) + ")";
}

std::string_view bytes_as_text(std::span<const uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// The parts a build asks for, within 1..kMaxParts (the cache key and the clangs started agree).
int parts_of(const BuildOptions& options) {
  return std::clamp(options.parts, 1, kMaxParts);
}

// The clangs of one build, started and waiting for their main file: one, or one per part.
struct Compilers {
  std::vector<std::unique_ptr<StartedProcess>> running;
  std::vector<std::string> outputs;      // each one's object: the build's own, or the parts'
  std::vector<std::string> link_inputs;  // the outputs, then the objects linked with them
  std::string command;                   // every part's build and the link, to re-run by hand
  int prestarted = 0;                    // of `running`, the clangs started ahead
};

// The build's clangs: those started ahead (as many as it has parts; a surplus one is killed)
// and the rest started now. `linked`: the objects linked after the parts (BuildOptions::link_with).
Compilers start_compilers(const std::string& clang, const BuildOptions& options,
                          const std::filesystem::path& dir,
                          std::vector<std::unique_ptr<StartedProcess>> prestarted,
                          const std::vector<std::string>& linked) {
  Compilers c;
  const int parts = parts_of(options);
  prestarted.resize(std::min(prestarted.size(), static_cast<size_t>(parts)));
  c.prestarted = static_cast<int>(prestarted.size());
  for (int part = 0; part < parts; ++part) {
    std::string out = part_object(dir, part);
    std::vector<std::string> argv = clang_argv(clang, options, dir, out);
    if (static_cast<size_t>(part) < prestarted.size()) {
      c.running.push_back(std::move(prestarted[static_cast<size_t>(part)]));
    } else {
      c.running.push_back(std::make_unique<StartedProcess>(reading_stdin(argv), clang_limits(options)));
    }
    // The same build from the work dir's files, to re-run by hand.
    if (parts > 1) {
      argv.push_back("-DSEAM_PARTS=" + std::to_string(parts));
      argv.push_back("-DSEAM_PART=" + std::to_string(part));
    }
    argv.push_back((dir / options.source_name).string());
    c.command += (c.command.empty() ? "" : " && ") + shell_quote(argv);
    c.outputs.push_back(out);
  }
  c.link_inputs = c.outputs;
  c.link_inputs.insert(c.link_inputs.end(), linked.begin(), linked.end());
  if (c.link_inputs.size() > 1) {
    std::vector<std::string> link = {"bpftool", "gen", "object", linked_object(dir)};
    link.insert(link.end(), c.link_inputs.begin(), c.link_inputs.end());
    c.command += " && " + shell_quote(link);
  }
  return c;
}

// Hands every clang its main file, then waits for all within the build's time: their output
// goes into `r` (an error in code the parts share, which each reports, once). A clang is done
// when its object is renamed into place (it succeeded; it is left to exit on its own) or when its
// output ends (it exited). The first failed run, if any.
std::optional<ProcessResult> finish_compilers(Compilers& compilers, const BuildOptions& options,
                                              const std::filesystem::path& dir, BuildResult& r) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options.timeout_ms);
  const size_t n = compilers.running.size();
  RenameWatch watch(dir.string());  // before any clang has its input
  for (size_t part = 0; part < n; ++part)
    compilers.running[part]->send(
        main_file(options.source_name, static_cast<int>(part), static_cast<int>(n)));
  std::vector<std::optional<ProcessResult>> done(n);
  size_t left = n;
  auto finished = [&](size_t part, ProcessResult run) {
    done[part] = std::move(run);
    if (left-- == n && options.on_first_part) options.on_first_part();  // whichever part it is
  };
  while (left > 0) {
    const auto wait_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now())
            .count();
    if (wait_ms <= 0) break;
    std::vector<pollfd> fds;
    std::vector<size_t> part_of_fd;
    for (size_t part = 0; part < n; ++part)
      if (!done[part]) {
        fds.push_back({compilers.running[part]->output_fd(), POLLIN, 0});
        part_of_fd.push_back(part);
      }
    fds.push_back({watch.fd(), POLLIN, 0});  // -1 when there is no watch: poll skips it
    if (poll(fds.data(), fds.size(), static_cast<int>(wait_ms)) <= 0) continue;
    for (size_t i = 0; i < part_of_fd.size(); ++i) {
      const size_t part = part_of_fd[i];
      if (fds[i].revents && !done[part] && !compilers.running[part]->read_output())
        finished(part, compilers.running[part]->reap());
    }
    if (fds.back().revents)
      for (const std::string& name : watch.renamed())
        for (size_t part = 0; part < n; ++part)
          if (!done[part] && std::filesystem::path(compilers.outputs[part]).filename() == name)
            finished(part, compilers.running[part]->leave_to_exit());
  }
  std::optional<ProcessResult> failed;
  for (size_t part = 0; part < n; ++part) {
    if (!done[part]) {  // past the build's time
      ProcessResult run = compilers.running[part]->finish("", 1);
      run.timed_out = true;
      done[part] = std::move(run);
    }
    ProcessResult& run = *done[part];
    for (ClangError& e : parse_clang_errors(run.output))
      if (std::find(r.errors.begin(), r.errors.end(), e) == r.errors.end()) r.errors.push_back(std::move(e));
    if (r.clang_stderr.find(run.output) == std::string::npos) r.clang_stderr += run.output;
    if (!failed && (run.timed_out || run.exit_code != 0)) failed = std::move(run);
  }
  return failed;
}

// The build, leaving its work dir (if it got that far) to build_object.
BuildResult build_in_work_dir(const std::string& c_source, const BuildOptions& options) {
  BuildResult r;
  std::string clang = find_clang();
  if (clang.empty()) {
    r.object = Error{
        "no clang found ($SEAM_CLANG, clang, clang-14..16 on PATH): install clang to build BPF programs",
        ErrorCode::NotFound};
    return r;
  }
  // The types header is a function of the type names and the running kernel, so the key names
  // those and the header is dumped from BTF only on a miss (a warm start reads no BTF).
  ContentHash key;
  key.add(c_source).add(clang_identity(clang)).add(kernel_btf_identity()).add(options.source_name);
  if (!options.kernel_types_header.empty()) {
    key.add(options.kernel_types_header);
  } else {
    for (const std::string& t : options.kernel_types) key.add(t);
  }
  for (const std::string& f : compile_flags(options)) key.add(f);
  key.add("parts=" + std::to_string(parts_of(options)));
  for (const char* name : embedded_header_names()) key.add(embedded::find(name).value_or(""));
  for (const LinkedObject& o : options.link_with) key.add(o.name).add(bytes_as_text(o.bytes));
  r.cache_key = key.hex();

  // The clangs a run started ahead (clang_prestart.hpp), for this build or, on a hit, for none:
  // then killed here, with their dir.
  ClangPrestart::Taken prestarted;
  if (options.prestarted) prestarted = options.prestarted->take(clang, options);
  ObjectCache cache(options.cache_dir.empty() ? default_cache_dir() : options.cache_dir);
  if (options.use_cache) {
    if (auto hit = cache.load(r.cache_key)) {
      prestarted.clangs.clear();
      remove_dir(prestarted.dir);
      r.from_cache = true;
      r.object = std::move(*hit);
      return r;
    }
  }
  r.work_dir = prestarted.dir.empty() ? make_work_dir() : prestarted.dir;
  if (r.work_dir.empty()) {
    r.object = Error{"cannot create a build directory under $TMPDIR or /tmp"};
    return r;
  }
  std::filesystem::path dir(r.work_dir);
  if (prestarted.dir.empty()) {
    if (Result<void> headers = write_embedded_headers(dir); !headers) {
      r.object = headers.failure();
      return r;
    }
  }
  if (!write_file(dir / options.source_name, c_source)) {
    r.object = Error{"cannot write the program into " + r.work_dir};
    return r;
  }
  if (Result<void> defs = write_helper_defs(dir, c_source); !defs) {
    r.object = defs.failure();
    return r;
  }

  std::vector<std::string> linked;
  for (const LinkedObject& o : options.link_with) {
    linked.push_back((dir / (o.name + ".bpf.o")).string());
    if (!write_file(linked.back(), bytes_as_text(o.bytes))) {
      r.object = Error{"cannot write the program into " + r.work_dir};
      return r;
    }
  }

  // clang starts now (unless it was started ahead) and reads its main file from standard input:
  // one line that includes the program, written once kernel_types.h is there. Its process start
  // runs beside the dump. A program built in parts starts one clang per part, all before the dump.
  Compilers compilers = start_compilers(clang, options, dir, std::move(prestarted.clangs), linked);
  r.prestarted = compilers.prestarted;
  const std::vector<std::string>& link_inputs = compilers.link_inputs;
  std::string object_path = link_inputs.size() > 1 ? linked_object(dir) : link_inputs[0];
  r.command = compilers.command;

  std::string types = options.kernel_types_header;
  if (types.empty()) {
    Result<std::string> header = kernel_types_header(options.kernel_types);
    if (!header) {
      r.object = header.failure();
      return r;
    }
    types = std::move(*header);
  }
  if (!write_file(dir / "kernel_types.h", types)) {
    r.object = Error{"cannot write the program into " + r.work_dir};
    return r;
  }

  auto start = std::chrono::steady_clock::now();
  std::optional<ProcessResult> failed = finish_compilers(compilers, options, dir, r);
  r.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (failed) {
    if (!failed->timed_out && failed->exit_code == 127 && r.clang_stderr.empty()) {
      r.object = Error{"cannot run " + clang};
    } else if (!failed->timed_out && failed->exit_code == 126 && r.clang_stderr.empty()) {
      r.object = Error{"cannot set the resource limits for clang"};
    } else {
      r.object = Error{clang_failure(*failed, r.clang_stderr, clang_limits(options), options.timeout_ms)};
    }
    return r;
  }
  if (link_inputs.size() > 1) {
    if (Result<void> linked = link_bpf_objects(link_inputs, object_path); !linked) {
      r.object = linked.failure();
      return r;
    }
  }
  std::ifstream in(object_path, std::ios::binary);
  std::vector<uint8_t> object((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (object.empty()) {
    r.object = Error{"clang produced no object at " + object_path};
    return r;
  }
  r.object = std::move(object);
  if (options.use_cache) {
    (void)cache.store(r.cache_key, *r.object);  // a read-only cache only costs a rebuild
  }
  return r;
}

}  // namespace

BuildResult build_object(const std::string& c_source, const BuildOptions& options) {
  BuildResult r = build_in_work_dir(c_source, options);
  if (!r.work_dir.empty() && !keep_work_dir(options)) {  // failed or not: nothing is left in $TMPDIR
    remove_dir(r.work_dir);
    r.work_dir.clear();
  }
  return r;
}

int build_parts(size_t source_bytes) {
  if (const char* env = std::getenv("SEAM_BUILD_PARTS"); env && *env) {
    char* end = nullptr;
    long n = std::strtol(env, &end, 10);
    if (end && *end == 0 && n >= 1) return static_cast<int>(std::min<long>(n, kMaxParts));
  }
  if (source_bytes < kPartsFromBytes) return 1;
  cpu_set_t cpus;
  int usable = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
  return std::clamp(usable, 1, kMaxParts);
}

}  // namespace seam::build
