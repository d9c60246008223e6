#include "runtime/run/loader_hook.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

#include "compiler/build/build_object.hpp"
#include "compiler/codegen/loader_hook_source.hpp"
#include "compiler/plan/record_header.hpp"
#include "runtime/discover/find_libraries.hpp"
#include "runtime/elf/elf_file.hpp"
#include "runtime/elf/resolve.hpp"
#include "runtime/run/loader_record.hpp"
#include "runtime/run/prebuilt_hook.hpp"

namespace seam::runtime {

namespace {

constexpr size_t kNameBytes = 256;  // SEAM_LOADER_NAME in the template

// struct seam_loader_key in bpf-templates/loader_notice.c.tmpl.
struct SeenKey {
  uint64_t cgroup = 0;
  char name[kNameBytes] = {};
};
static_assert(sizeof(SeenKey) == 264);

Error failure(const std::string& what, int err) {
  return Error{what + ": " + std::strerror(err), code_of_errno(err)};
}

}  // namespace

namespace {

build::BuildResult build_hook() {
  if (std::span<const uint8_t> prebuilt = prebuilt_loader_hook(); !prebuilt.empty()) {
    build::BuildResult r;  // seam's build made it (cli/prebuild/): no clang at start
    r.object = std::vector<uint8_t>(prebuilt.begin(), prebuilt.end());
    r.from_cache = true;
    return r;
  }
  // One build at a time: start() called while build_ahead() still compiles waits for it and
  // then finds its object in the cache, instead of running a second clang beside it.
  static std::mutex one_build;
  std::lock_guard lock(one_build);
  build::BuildOptions options;
  options.source_name = codegen::kLoaderHookSourceName;
  return build::build_object(codegen::loader_hook_source(), options);
}

}  // namespace

void LoaderHook::build_ahead() {
  build_hook();  // a failure is reported by start(), which builds again
}

Result<std::unique_ptr<LoaderHook>> LoaderHook::start(int ring_fd, std::optional<pid_t> only) {
  build::BuildResult built = build_hook();
  if (!built.object)
    return Error{"cannot build the loader hook: " + built.object.error(), built.object.code()};
  std::unique_ptr<LoaderHook> hook(new LoaderHook());
  hook->only_ = only;
  LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = "seam_loader");
  hook->obj_ = bpf_object__open_mem(built.object->data(), built.object->size(), &opts);
  if (!hook->obj_) return failure("cannot open the loader hook", errno);
  bpf_map* ring = bpf_object__find_map_by_name(hook->obj_, "seam_events");
  if (!ring || bpf_map__reuse_fd(ring, ring_fd) != 0) return failure("cannot share the ring buffer", errno);
  if (bpf_map* drops = bpf_object__find_map_by_name(hook->obj_, "seam_drops"))
    bpf_map__set_max_entries(drops, 1);  // declared by seam_record.h, unused here
  if (int err = bpf_object__load(hook->obj_); err != 0)
    return failure("the kernel refused the loader hook", -err);
  bpf_program* prog = bpf_object__find_program_by_name(hook->obj_, "seam_loader_notice");
  hook->prog_fd_ = prog ? bpf_program__fd(prog) : -1;
  hook->seen_fd_ = bpf_object__find_map_fd_by_name(hook->obj_, "seam_loader_seen");
  hook->lost_fd_ = bpf_object__find_map_fd_by_name(hook->obj_, "seam_loader_lost");
  if (hook->prog_fd_ < 0 || hook->seen_fd_ < 0 || hook->lost_fd_ < 0)
    return Error{"the loader hook's object lacks its program or maps"};
  return hook;
}

std::future<Result<std::unique_ptr<LoaderHook>>> LoaderHook::start_async(int ring_fd,
                                                                         std::optional<pid_t> only,
                                                                         std::shared_future<bool> attach) {
  // The thread's own copy of the ring's fd: the caller may close its own before the load shares it.
  int ring = fcntl(ring_fd, F_DUPFD_CLOEXEC, 0);
  return std::async(std::launch::async, [ring, only, attach = std::move(attach)] {
    Result<std::unique_ptr<LoaderHook>> hook = start(ring, only);
    if (ring >= 0) close(ring);
    bool go = !attach.valid() || attach.get();
    if (hook && go) (void)(*hook)->attach_start_loaders();  // a failure: follow() tries again, and says why
    return hook;
  });
}

void LoaderHook::follow(LibraryHub& libraries, std::function<void(const std::string&)> warn) {
  libraries_ = &libraries;
  libraries.on_patterns_added([this] { forget_seen(); });
  subscription_ =
      libraries.subscribe_loaders([this, warn = std::move(warn)](const discover::LibraryFile& loader) {
        if (auto r = attach(loader); !r && warn) warn(r.error());
      });
}

std::optional<pid_t> LoaderHook::on_record(std::span<const uint8_t> bytes) {
  std::optional<LoaderRecord> record = parse_loader_record(bytes);
  if (!record || !libraries_) return std::nullopt;
  std::vector<discover::LoadedName> names;
  for (const LoaderName& n : record->names) names.push_back({n.name, n.truncated});
  std::vector<bool> done = libraries_->loaded(record->pid, names);
  for (size_t i = 0; i < names.size(); ++i)
    if (done[i]) mark_seen(record->cgroup, names[i].name);
  return record->pid;
}

LoaderHook::~LoaderHook() {
  if (libraries_) {
    libraries_->unsubscribe(subscription_);
    libraries_->on_patterns_added(nullptr);
  }
  for (bpf_link* link : links_) bpf_link__destroy(link);
  if (obj_) bpf_object__close(obj_);
}

Result<bool> LoaderHook::attach(const discover::LibraryFile& loader) {
  if (!tried_.insert({loader.dev, loader.ino}).second) return false;
  auto file = elf::ElfFile::open(loader.path_for_attach);
  if (!file) return Error{file.error()};
  std::vector<elf::SymbolHit> hook = elf::resolve(*file, "_dl_debug_state");
  uint64_t r_debug = 0;
  for (const elf::Symbol& s : file->symbols())
    if (s.defined && s.value && elf::strip_version(s.name) == "_r_debug") r_debug = s.value;
  if (hook.empty() || r_debug == 0)
    return Error{loader.display_path + ": no _dl_debug_state or _r_debug (not glibc's loader)"};
  // The program finds the process's _r_debug from the probe's address: the same distance as here.
  LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = r_debug - hook[0].address);
  // With --pid only that process: the hook then costs the rest of the host nothing.
  bpf_program* prog = bpf_object__find_program_by_name(obj_, "seam_loader_notice");
  bpf_link* link = bpf_program__attach_uprobe_opts(prog, only_.value_or(-1), loader.path_for_attach.c_str(),
                                                   hook[0].file_offset, &opts);
  if (!link) return failure("attach the loader hook to " + loader.display_path, errno);
  links_.push_back(link);
  return true;
}

Result<bool> LoaderHook::attach_start_loaders() {
  discover::Scope scope;
  scope.pid = getpid();
  scope.include_system_paths = !only_;
  std::vector<discover::LibraryFile> loaders = discover::find_libraries(loader_patterns(), scope);
  if (loaders.empty()) return Error{"no dynamic loader in /proc/self/maps or the system's library folders"};
  bool attached = false;
  std::string why;
  for (const discover::LibraryFile& loader : loaders) {
    Result<bool> r = attach(loader);
    if (r) {
      attached = attached || *r;
    } else {
      tried_.erase({loader.dev, loader.ino});  // follow() tries it again, and says why not
      why = r.error();
    }
  }
  if (!attached && !why.empty()) return Error{why};
  return attached;
}

void LoaderHook::mark_seen(uint64_t cgroup, std::string_view name) {
  SeenKey key;
  key.cgroup = cgroup;
  std::memcpy(key.name, name.data(), std::min(name.size(), kNameBytes - 1));
  uint8_t one = 1;
  if (bpf_map_update_elem(seen_fd_, &key, &one, BPF_ANY) == 0 || errno != E2BIG) return;
  // Full (16,384 names, marks of cgroups long gone among them): start over, as a reload does. The
  // names marked before are sent once more, within the hook's budgets, and marked again.
  forget_seen();
  bpf_map_update_elem(seen_fd_, &key, &one, BPF_ANY);
}

void LoaderHook::forget_seen() {
  // In batches of marks, one system call each (kernel 5.6+): a full map is 16,384 marks. The
  // batch token of a hash map is a bucket index, smaller than a key.
  constexpr uint32_t kBatch = 1024;
  std::vector<SeenKey> keys(kBatch);
  std::vector<uint8_t> values(kBatch);
  SeenKey token, next_token;
  bool first = true;
  for (;;) {
    uint32_t count = kBatch;
    int rc = bpf_map_lookup_and_delete_batch(seen_fd_, first ? nullptr : &token, &next_token, keys.data(),
                                             values.data(), &count, nullptr);
    if (rc == 0) {
      first = false;
      token = next_token;
      continue;
    }
    if (errno == ENOENT) return;  // the walk reached the last bucket: the map is empty
    break;  // batches refused (an older kernel) or a bucket over kBatch keys: one key at a time
  }
  SeenKey key, next;
  // Deleting the key just read restarts the walk at the first key: the map empties either way.
  while (bpf_map_get_next_key(seen_fd_, nullptr, &next) == 0) {
    key = next;
    if (bpf_map_delete_elem(seen_fd_, &key) != 0) break;
  }
}

uint32_t LoaderHook::seen_capacity() const {
  bpf_map_info info{};
  uint32_t len = sizeof info;
  return bpf_obj_get_info_by_fd(seen_fd_, &info, &len) == 0 ? info.max_entries : 0;
}

uint64_t LoaderHook::lost() const {
  uint32_t zero = 0;
  uint64_t n = 0;
  if (bpf_map_lookup_elem(lost_fd_, &zero, &n) != 0) return 0;
  return n;
}

}  // namespace seam::runtime

namespace seam::runtime {

std::optional<std::string> LoaderHook::newly_lost() {
  uint64_t now = lost();
  if (now <= reported_lost_) return std::nullopt;
  uint64_t fresh = now - reported_lost_;
  reported_lost_ = now;
  return "the dynamic loader's hook lost " + std::to_string(fresh) + " notices (" + std::to_string(now) +
         " in all): a full ring or a process past its budget; those libraries are found by scans";
}

}  // namespace seam::runtime
