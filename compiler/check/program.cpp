#include "compiler/check/program.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>

namespace seam::check {

namespace fs = std::filesystem;

namespace {

bool is_seam_file(const fs::path& p) {
  return p.extension() == ".seam";
}

// Files to read for one path: the file itself, or every *.seam below a directory, sorted so that
// output does not depend on directory order. A missing path is returned as is: reading it reports.
std::vector<std::string> collect(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return {path};
  std::vector<std::string> found;
  auto options = fs::directory_options::skip_permission_denied;
  for (auto it = fs::recursive_directory_iterator(path, options, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    std::error_code type_ec;
    if (is_seam_file(it->path()) && !it->is_directory(type_ec)) found.push_back(it->path().string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::string identity(const std::string& path) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(path, ec);
  return ec ? path : canonical.string();
}

// `-`: the rules come on standard input (`echo '...' | seam lint -`), read once.
std::optional<std::string> read_stdin(const LoadOptions& options, diag::Diagnostics& diags) {
  std::string text;
  char buffer[65536];
  for (;;) {
    ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      diags.file_error(diag::Code::UnreadableFile, "-",
                       std::string("cannot read standard input: ") + std::strerror(errno));
      return std::nullopt;
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > options.limits.max_file_bytes) {
      diags.file_error(
          diag::Code::FileTooLarge, "-",
          "standard input is over the limit of " + std::to_string(options.limits.max_file_bytes) + " bytes");
      return std::nullopt;
    }
  }
  return text;
}

std::string module_name(const ast::File& file) {
  const ast::ModuleDecl* m = file.module();
  return m ? m->name.name : std::string();
}

}  // namespace

// The size is checked first so that a huge input is never read into memory.
std::optional<std::string> read_file(const std::string& path, const parse::Limits& limits,
                                     diag::Diagnostics& diags) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    diags.file_error(diag::Code::UnreadableFile, path, std::string("cannot read: ") + std::strerror(errno));
    return std::nullopt;
  }
  struct stat st {};
  std::optional<std::string> text;
  if (::fstat(fd, &st) != 0) {
    diags.file_error(diag::Code::UnreadableFile, path, std::string("cannot read: ") + std::strerror(errno));
  } else if (!S_ISREG(st.st_mode)) {
    diags.file_error(diag::Code::UnreadableFile, path,
                     S_ISDIR(st.st_mode) ? "cannot read: is a directory" : "cannot read: not a regular file");
  } else if (static_cast<uint64_t>(st.st_size) > limits.max_file_bytes) {
    diags.file_error(diag::Code::FileTooLarge, path,
                     "file is " + std::to_string(st.st_size) + " bytes, over the limit of " +
                         std::to_string(limits.max_file_bytes) + " bytes");
  } else {
    std::string buffer(static_cast<size_t>(st.st_size), '\0');
    size_t done = 0;
    while (done < buffer.size()) {
      ssize_t n = ::read(fd, buffer.data() + done, buffer.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        diags.file_error(diag::Code::UnreadableFile, path,
                         std::string("cannot read: ") + std::strerror(errno));
        ::close(fd);
        return std::nullopt;
      }
      if (n == 0) break;
      done += static_cast<size_t>(n);
    }
    buffer.resize(done);
    text = std::move(buffer);
  }
  ::close(fd);
  return text;
}

const ast::File* Program::find_module(std::string_view name) const {
  for (const ast::File& f : modules)
    if (const ast::ModuleDecl* m = f.module(); m && m->name.name == name) return &f;
  return nullptr;
}

StdlibSources read_stdlib(const std::vector<std::string>& dirs, const ReadSource& read) {
  StdlibSources out;
  std::set<std::string> seen;
  for (const std::string& dir : dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    for (const std::string& file : collect(dir)) {
      std::string id = identity(file);
      if (!seen.insert(id).second) continue;
      std::optional<std::string> text = read(file, out.diagnostics);
      if (text) out.files.push_back({std::make_shared<const SourceFile>(file, std::move(*text)), id});
    }
  }
  return out;
}

Program load(const std::vector<std::string>& paths, const LoadOptions& options) {
  Program program;
  std::set<std::string> seen;
  std::set<std::string> user_modules;
  ReadSource read =
      options.read ? options.read : [&options](const std::string& path, diag::Diagnostics& diags) {
        return read_file(path, options.limits, diags);
      };

  auto parse_source = [&](std::shared_ptr<const SourceFile> source) {
    program.sources.push_back(std::move(source));
    return parse::parse_file(*program.sources.back(), program.diagnostics, options.limits);
  };
  auto parse_one = [&](const std::string& path) -> std::optional<ast::File> {
    if (!seen.insert(identity(path)).second) return std::nullopt;
    std::optional<std::string> text =
        path == "-" ? read_stdin(options, program.diagnostics) : read(path, program.diagnostics);
    if (!text) return std::nullopt;
    auto shown = options.shown_names.find(path);
    return parse_source(std::make_shared<const SourceFile>(
        path, std::move(*text), shown == options.shown_names.end() ? std::string() : shown->second));
  };
  // A module the user gave on the command line takes the place of the stdlib's copy; the stdlib
  // holds modules only.
  auto add_stdlib_module = [&](std::optional<ast::File> parsed) {
    if (!parsed || module_name(*parsed).empty() || user_modules.count(module_name(*parsed))) return;
    program.modules.push_back(std::move(*parsed));
  };

  for (const std::string& path : paths) {
    for (const std::string& file : collect(path)) {
      std::optional<ast::File> parsed = parse_one(file);
      if (!parsed) continue;
      if (std::string name = module_name(*parsed); !name.empty()) {
        user_modules.insert(name);
        program.modules.push_back(std::move(*parsed));
      } else {
        program.rule_files.push_back(std::move(*parsed));
      }
    }
  }
  if (options.stdlib) {
    program.diagnostics.append(options.stdlib->diagnostics);
    for (const StdlibSources::File& file : options.stdlib->files)
      if (seen.insert(file.identity).second) add_stdlib_module(parse_source(file.source));
    return program;
  }
  for (const std::string& dir : options.stdlib_dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    for (const std::string& file : collect(dir)) add_stdlib_module(parse_one(file));
  }
  return program;
}

std::vector<std::string> default_stdlib_dirs() {
  if (const char* env = std::getenv("SEAM_STDLIB"); env && *env) return {env};
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path dir = exe.parent_path();
    for (const fs::path& candidate : {dir / ".." / "stdlib", dir / ".." / "share" / "seam" / "stdlib"})
      if (fs::is_directory(candidate, ec)) return {fs::weakly_canonical(candidate, ec).string()};
  }
#ifdef SEAM_SOURCE_DIR
  return {std::string(SEAM_SOURCE_DIR) + "/stdlib"};
#else
  return {};
#endif
}

}  // namespace seam::check
