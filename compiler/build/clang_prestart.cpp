#include "compiler/build/clang_prestart.hpp"

#include <algorithm>

#include "compiler/build/build_dir.hpp"

namespace seam::build {

std::shared_ptr<ClangPrestart> ClangPrestart::start(int clangs, const BuildOptions& options) {
  std::string clang = find_clang();
  if (clang.empty()) return nullptr;
  std::shared_ptr<ClangPrestart> p(new ClangPrestart());
  p->dir_ = make_work_dir();
  if (p->dir_.empty()) return nullptr;
  if (!write_embedded_headers(p->dir_)) return nullptr;  // the destructor removes the dir
  p->clang_ = clang;
  p->flags_ = compile_flags(options);
  p->limits_ = clang_limits(options);
  for (int k = 0; k < std::clamp(clangs, 1, kMaxParts); ++k)
    p->clangs_.push_back(std::make_unique<StartedProcess>(
        reading_stdin(clang_argv(clang, options, p->dir_, part_object(p->dir_, k))), p->limits_));
  return p;
}

ClangPrestart::~ClangPrestart() {
  clangs_.clear();  // killed and reaped before their dir goes
  if (!taken_) remove_dir(dir_);
}

ClangPrestart::Taken ClangPrestart::take(const std::string& clang, const BuildOptions& options) {
  if (taken_) return {};
  taken_ = true;
  ProcessLimits limits = clang_limits(options);
  if (clang == clang_ && compile_flags(options) == flags_ &&
      limits.address_space_bytes == limits_.address_space_bytes && limits.cpu_seconds == limits_.cpu_seconds)
    return {std::move(clangs_), dir_};
  clangs_.clear();
  remove_dir(dir_);
  return {};
}

int prestart_clangs(size_t rule_bytes) {
  constexpr size_t kCPerRuleByte = 5;  // the pair: 1.5 KB of rules, 6.9 KB of C; comments count too
  return build_parts(rule_bytes * kCPerRuleByte);
}

}  // namespace seam::build
