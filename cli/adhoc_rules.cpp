#include "cli/adhoc_rules.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "compiler/check/program.hpp"

namespace seam::cli {

namespace {

std::set<std::string> words_of(const std::string& text) {
  std::set<std::string> words;
  std::string word;
  bool in_string = false;
  for (size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ' ';
    if (c == '"' && (i == 0 || text[i - 1] != '\\')) in_string = !in_string;
    if (!in_string && (std::isalnum(static_cast<unsigned char>(c)) || c == '_')) {
      word += c;
      continue;
    }
    if (!word.empty()) words.insert(word);
    word.clear();
  }
  return words;
}

bool has_use(const std::string& text) {
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    std::string line = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    size_t first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line.compare(first, 4, "use ") == 0) return true;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return false;
}

}  // namespace

std::vector<std::string> modules_named_by(const std::string& text,
                                          const std::vector<std::string>& stdlib_dirs) {
  check::LoadOptions load;
  load.stdlib_dirs = stdlib_dirs;
  check::Program stdlib = check::load({}, load);
  std::set<std::string> words = words_of(text);
  std::vector<std::string> out;
  for (const ast::File& f : stdlib.modules) {
    const ast::ModuleDecl* m = f.module();
    if (!m) continue;
    bool named = words.count(m->name.name) && text.find(m->name.name + ".") != std::string::npos;
    for (const ast::Decl& d : f.decls) {
      if (const auto* e = std::get_if<ast::EventDecl>(&d)) named = named || words.count(e->name.name);
      if (const auto* a = std::get_if<ast::AliasDecl>(&d)) named = named || words.count(a->name.name);
      if (const auto* s = std::get_if<ast::StateDecl>(&d)) named = named || words.count(s->name.name);
    }
    if (named) out.push_back(m->name.name);
  }
  return out;
}

Result<std::string> AdhocRules::add(const std::string& name, std::string text,
                                    const std::vector<std::string>& stdlib_dirs) {
  if (dir_.empty()) {
    std::string pattern = (std::filesystem::temp_directory_path() / "seam-adhoc-XXXXXX").string();
    if (!mkdtemp(pattern.data())) {
      return Error{std::string("cannot create a directory for the rule text: ") + std::strerror(errno)};
    }
    dir_ = pattern;
  }
  if (!has_use(text)) {
    std::vector<std::string> modules = modules_named_by(text, stdlib_dirs);
    if (!modules.empty()) {
      // After the text, so that its line numbers (and shorthand rule names) stay as typed.
      std::string use = "\nuse ";
      for (size_t i = 0; i < modules.size(); ++i) use += (i ? ", " : "") + modules[i];
      text += use + "\n";
    }
  }
  std::string path = dir_ + "/" + name + ".seam";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || ::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    Error error{"cannot write " + path + ": " + std::strerror(errno)};
    if (fd >= 0) ::close(fd);
    return error;
  }
  ::close(fd);
  files_.push_back(path);
  shown_[path] = "<" + name + ">";
  return path;
}

AdhocRules::~AdhocRules() {
  for (const std::string& f : files_) ::unlink(f.c_str());
  if (!dir_.empty()) ::rmdir(dir_.c_str());
}

}  // namespace seam::cli
