#include "runtime/load/loaded_object.hpp"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string_view>
#include <thread>

#include "compiler/build/libbpf_messages.hpp"
#include "compiler/plan/sites.hpp"
#include "runtime/load/core_relocations.hpp"
#include "runtime/load/map_access.hpp"
#include "runtime/load/session_kfunc.hpp"
#include "runtime/load/tracefs.hpp"
#include "runtime/load/uprobe_multi.hpp"

namespace seam::runtime {

namespace {

std::string errno_text(int err) {
  const char* name = strerrorname_np(err);
  return std::string(name ? name : "errno " + std::to_string(err)) + ": " + std::strerror(err);
}

// Sets a `const volatile` global of the object (in .rodata) of exactly value_size bytes before
// load. False if absent.
bool set_rodata(bpf_object* obj, const char* var_name, const void* value, size_t value_size) {
  btf* b = bpf_object__btf(obj);
  if (!b) return false;
  bpf_map* map;
  bpf_object__for_each_map(map, obj) {
    std::string name = bpf_map__name(map);
    if (!bpf_map__is_internal(map) || name.size() < 7 || name.compare(name.size() - 7, 7, ".rodata") != 0)
      continue;
    int sec_id = btf__find_by_name_kind(b, ".rodata", BTF_KIND_DATASEC);
    if (sec_id <= 0) return false;
    const btf_type* sec = btf__type_by_id(b, static_cast<__u32>(sec_id));
    const btf_var_secinfo* vars = btf_var_secinfos(sec);
    for (unsigned i = 0; i < btf_vlen(sec); ++i) {
      const btf_type* var = btf__type_by_id(b, vars[i].type);
      if (std::strcmp(btf__name_by_offset(b, var->name_off), var_name) != 0 || vars[i].size != value_size)
        continue;
      size_t size = 0;
      const void* initial = bpf_map__initial_value(map, &size);
      if (!initial || vars[i].offset + value_size > size) return false;
      std::vector<uint8_t> data(static_cast<const uint8_t*>(initial),
                                static_cast<const uint8_t*>(initial) + size);
      std::memcpy(data.data() + vars[i].offset, value, value_size);
      return bpf_map__set_initial_value(map, data.data(), size) == 0;
    }
    return false;
  }
  return false;
}

bool set_rodata_u64(bpf_object* obj, const char* var_name, uint64_t value) {
  return set_rodata(obj, var_name, &value, sizeof value);
}

// Whether the existing map `fd` has the type, key and value sizes and entries `map` declares.
bool same_shape(const bpf_map* map, int fd) {
  bpf_map_info info{};
  uint32_t len = sizeof info;
  return bpf_obj_get_info_by_fd(fd, &info, &len) == 0 && info.type == bpf_map__type(map) &&
         info.key_size == bpf_map__key_size(map) && info.value_size == bpf_map__value_size(map) &&
         info.max_entries == bpf_map__max_entries(map);
}

bool is_ring_size(uint32_t bytes) {
  long page = sysconf(_SC_PAGESIZE);
  return bytes >= static_cast<uint32_t>(page) && (bytes & (bytes - 1)) == 0;
}

// Decides which programs load: each plan attachment whose feature is here, else the first
// fallback in its chain that is; fallbacks load only when used.
void choose_programs(bpf_object* obj, const plan::Plan& plan, const FeatureSet& features,
                     std::vector<Unavailable>* unavailable) {
  std::map<std::string, const plan::Attachment*> by_program;
  for (const plan::Attachment& a : plan.attachments) by_program.emplace(a.program, &a);
  std::set<std::string> wanted;
  for (const plan::Attachment& a : plan.attachments) {
    if (a.is_fallback) continue;
    const plan::Attachment* current = &a;
    std::string reasons;
    std::set<std::string> seen;
    while (current && !features.available(current->feature)) {
      reasons += (reasons.empty() ? "" : "; then ") + features.reason(current->feature);
      seen.insert(current->program);
      if (current->fallback.empty()) {
        current = nullptr;
      } else if (auto it = by_program.find(current->fallback);
                 it == by_program.end() || seen.count(it->first)) {
        reasons += "; fallback '" + current->fallback + "' is not in the plan";
        current = nullptr;
      } else {
        current = it->second;
      }
    }
    if (current)
      wanted.insert(current->program);
    else
      unavailable->push_back({a, reasons});
  }
  bpf_program* prog;
  bpf_object__for_each_program(prog, obj) {
    if (by_program.count(bpf_program__name(prog)))
      bpf_program__set_autoload(prog, wanted.count(bpf_program__name(prog)) > 0);
  }
}

}  // namespace

LoadResult LoadedObject::load(std::span<const uint8_t> object, const plan::Plan& plan,
                              const FeatureSet& features, RingShare ring_share) {
  if (!is_ring_size(plan.ringbuf_bytes))
    return Error{"ring buffer size " + std::to_string(plan.ringbuf_bytes) +
                     " bytes: must be a power of two and at least one page",
                 ErrorCode::InvalidInput};
  std::string log;                      // libbpf's messages, kept for the error of a failed load
  build::LibbpfMessages capture(&log);  // libbpf's messages go into the result
  auto fail = [&log](std::string message, int err = 0) {
    return Error{std::move(message) + (log.empty() ? "" : "\n" + log), code_of_errno(err)};
  };
  // Left uninitialised: the kernel writes it only for a refused program, so its 4 MiB stay
  // untouched (not resident) on every load that succeeds; objects load in parallel at start.
  constexpr size_t kLogBytes = 1 << 22;
  std::unique_ptr<char[]> verifier_log(new char[kLogBytes]);
  verifier_log[0] = 0;
  LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = "seam", .kernel_log_buf = verifier_log.get(),
              .kernel_log_size = kLogBytes);
  std::unique_ptr<LoadedObject> self(new LoadedObject());
  self->ringbuf_map_ = plan.ringbuf_map;
  self->drops_map_ = plan.drops_map;
  self->obj_ = bpf_object__open_mem(object.data(), object.size(), &opts);
  if (!self->obj_) return fail("cannot open the BPF object: " + errno_text(errno), errno);
  for (const plan::Map& m : plan.maps) {
    bpf_map* map = bpf_object__find_map_by_name(self->obj_, m.name.c_str());
    if (!map) return fail("the plan names map '" + m.name + "' but the object has none");
    if (m.max_entries) bpf_map__set_max_entries(map, m.max_entries);
  }
  for (const plan::Rule& rule : plan.rules) self->drop_slots_ = std::max(self->drop_slots_, rule.id + 1);
  if (bpf_map* ring = bpf_object__find_map_by_name(self->obj_, plan.ringbuf_map.c_str())) {
    bpf_map__set_max_entries(ring, plan.ringbuf_bytes);
    if (ring_share.ring_fd >= 0 && bpf_map__reuse_fd(ring, ring_share.ring_fd) != 0)
      return fail("cannot share the ring buffer: " + errno_text(errno), errno);
  }
  for (const auto& [name, fd] : {std::pair<const char*, int>{"seam_scope", ring_share.scope_fd},
                                 std::pair<const char*, int>{"seam_scope_any", ring_share.scope_any_fd}})
    if (bpf_map* scope = bpf_object__find_map_by_name(self->obj_, name);
        scope && fd >= 0 && bpf_map__reuse_fd(scope, fd) != 0)
      return fail(std::string("cannot share the scope map ") + name + ": " + errno_text(errno), errno);
  for (const auto& [name, fd] : ring_share.reuse_maps) {
    bpf_map* map = bpf_object__find_map_by_name(self->obj_, name.c_str());
    if (!map || !same_shape(map, fd)) continue;  // a fresh map rather than one the programs misread
    if (bpf_map__reuse_fd(map, fd) != 0)
      return fail("cannot keep map " + name + " across the reload: " + errno_text(errno), errno);
  }
  if (bpf_map* live = bpf_object__find_map_by_name(self->obj_, "seam_live_gen");
      live && ring_share.live_fd >= 0) {
    if (bpf_map__reuse_fd(live, ring_share.live_fd) != 0)
      return fail("cannot share the live generation map: " + errno_text(errno), errno);
    set_rodata(self->obj_, "seam_generation", &ring_share.generation, sizeof ring_share.generation);
  }
  if (!ring_share.scope_masks.empty())  // absent in host-wide objects
    set_rodata(self->obj_, "seam_scope_masks", ring_share.scope_masks.data(),
               ring_share.scope_masks.size() * sizeof(uint64_t));
  set_rodata_u64(self->obj_, "seam_unit_tag",
                 static_cast<uint64_t>(ring_share.unit_tag) << plan::kUnitTagShift);
  if (bpf_map* drops = bpf_object__find_map_by_name(self->obj_, plan.drops_map.c_str()))
    bpf_map__set_max_entries(drops, self->drop_slots_);
  set_rodata_u64(self->obj_, "seam_wakeup_bytes", plan.ringbuf_bytes / 8);
  set_rodata_u64(self->obj_, "seam_self_tgid", static_cast<uint64_t>(getpid()));  // absent in test objects
  // Programs built for a target test against these: left at 0, they would match nothing.
  if ((plan.target_tgid && !set_rodata_u64(self->obj_, "seam_target_tgid", plan.target_tgid)) ||
      (plan.target_cgroup && !set_rodata_u64(self->obj_, "seam_target_cgroup", plan.target_cgroup)))
    return fail("the object has no seam_target_tgid or seam_target_cgroup for the plan's target");
  choose_programs(self->obj_, plan, features, &self->unavailable_);
  // Uprobe session programs (generated only where the kernel has them, uprobe_session_probe.hpp):
  // a section libbpf 1.1 does not know, so it leaves the type to us.
  bpf_program* session;
  bpf_object__for_each_program(session, self->obj_) {
    if (std::string_view(bpf_program__section_name(session)) != plan::kUprobeSessionSection) continue;
    bpf_program__set_type(session, BPF_PROG_TYPE_KPROBE);
    bpf_program__set_expected_attach_type(session, static_cast<bpf_attach_type>(kBpfTraceUprobeSession));
    self->uprobe_session_programs_.insert(bpf_program__name(session));
    if (std::string why = resolve_session_is_return(session); !why.empty()) return fail(why);
  }
  if (features.uprobe_multi.available) {
    for (const plan::Attachment& a : plan.attachments) {
      if (a.kind != plan::AttachKind::Uprobe && a.kind != plan::AttachKind::Uretprobe) continue;
      if (self->uprobe_session_programs_.count(a.program)) continue;
      bpf_program* prog = bpf_object__find_program_by_name(self->obj_, a.program.c_str());
      if (!prog) continue;
      bpf_program__set_expected_attach_type(prog, static_cast<bpf_attach_type>(kBpfTraceUprobeMulti));
      self->uprobe_multi_programs_.insert(a.program);
    }
  }

  std::unique_lock<std::mutex> one_kernel_btf(kernel_btf_load_mutex(), std::defer_lock);
  if (has_core_relocations(object)) one_kernel_btf.lock();
  int err = bpf_object__load(self->obj_);
  if (one_kernel_btf.owns_lock()) one_kernel_btf.unlock();
  if (err != 0) {
    verifier_log[kLogBytes - 1] = 0;
    if (verifier_log[0]) log += std::string("\nverifier log:\n") + verifier_log.get();
    return fail("the kernel refused the BPF object: " + errno_text(-err), -err);
  }
  return LoadResult(std::move(self));
}

LoadedObject::~LoadedObject() {
  detach_all();
  bpf_object__close(obj_);
}

bool LoadedObject::is_loaded(const std::string& program) const {
  bpf_program* p = bpf_object__find_program_by_name(obj_, program.c_str());
  return p && bpf_program__fd(p) >= 0;
}

Error LoadedObject::failed(const std::string& what, int err) {
  return Error{what + ": " + errno_text(err), code_of_errno(err)};
}

void LoadedObject::destroy(Link& l) {
  if (l.link) bpf_link__destroy(l.link);
  if (l.fd >= 0) close(l.fd);
  l = Link{};
}

AttachResult LoadedObject::add_link(std::vector<Link> links, bool entry_bound) {
  std::lock_guard lock(links_mutex_);
  int link = static_cast<int>(links_.size());
  links_.push_back(std::move(links));
  entry_bound_.push_back(entry_bound);
  return link;
}

#define SEAM_FIND_PROGRAM(prog, program, what)                                                        \
  bpf_program* prog = bpf_object__find_program_by_name(obj_, (program).c_str());                      \
  if (!(prog) || bpf_program__fd(prog) < 0)                                                           \
    return Error{                                                                                     \
        (what) + ": program '" + (program) + "' is " + ((prog) ? "not loaded" : "not in the object"), \
        ErrorCode::NotFound};

AttachResult LoadedObject::attach_uprobe(const std::string& program, const std::string& binary_path,
                                         uint64_t file_offset, bool retprobe, pid_t pid) {
  char offset[32];
  std::snprintf(offset, sizeof offset, "+0x%llx", static_cast<unsigned long long>(file_offset));
  std::string what = std::string("attach ") + (retprobe ? "uretprobe" : "uprobe") + " '" + program + "' to " +
                     binary_path + offset + (pid >= 0 ? " pid " + std::to_string(pid) : "");
  SEAM_FIND_PROGRAM(prog, program, what);
  build::LibbpfMessages quiet(nullptr);  // the error value says it all
  if (uprobe_session_programs_.count(program)) {
    int fd = create_uprobe_multi_link(bpf_program__fd(prog), binary_path, file_offset, false, pid,
                                      kBpfTraceUprobeSession);
    if (fd < 0) return failed(what + " (uprobe session)", -fd);
    return add_link({Link{nullptr, fd}}, true);  // its return runs for the entries it saw
  }
  if (uprobe_multi_programs_.count(program)) {
    int fd = create_uprobe_multi_link(bpf_program__fd(prog), binary_path, file_offset, retprobe, pid);
    if (fd < 0) return failed(what, -fd);
    return add_link({Link{nullptr, fd}});
  }
  LIBBPF_OPTS(bpf_uprobe_opts, opts, .retprobe = retprobe);
  bpf_link* link = bpf_program__attach_uprobe_opts(prog, pid, binary_path.c_str(), file_offset, &opts);
  if (!link) return failed(what, errno);
  return add_link({Link{link, -1}}, retprobe);  // a perf-event uretprobe: the same
}

AttachResult LoadedObject::attach_usdt(const std::string& program, const std::string& binary_path,
                                       const std::string& provider, const std::string& name, pid_t pid) {
  std::string what = "attach usdt '" + program + "' to " + binary_path + ":" + provider + ":" + name +
                     (pid >= 0 ? " pid " + std::to_string(pid) : "");
  SEAM_FIND_PROGRAM(prog, program, what);
  build::LibbpfMessages quiet(nullptr);  // the error value says it all
  bpf_link* link =
      bpf_program__attach_usdt(prog, pid, binary_path.c_str(), provider.c_str(), name.c_str(), nullptr);
  if (!link) return failed(what, errno);
  return add_link({Link{link, -1}});
}

AttachResult LoadedObject::attach_tracepoint(const std::string& program, const std::string& category,
                                             const std::string& name) {
  std::string what = "attach tracepoint '" + program + "' to " + category + ":" + name;
  SEAM_FIND_PROGRAM(prog, program, what);
  build::LibbpfMessages quiet(nullptr);  // the error value says it all
  if (auto tracefs = ensure_tracefs(); !tracefs) return Error{what + ": " + tracefs.error(), tracefs.code()};
  bpf_link* link = bpf_program__attach_tracepoint(prog, category.c_str(), name.c_str());
  if (!link) return failed(what, errno);
  return add_link({Link{link, -1}});
}

AttachResult LoadedObject::attach_raw_tracepoint(const std::string& program, const std::string& name) {
  std::string what = "attach raw_tracepoint '" + program + "' to " + name;
  SEAM_FIND_PROGRAM(prog, program, what);
  build::LibbpfMessages quiet(nullptr);  // the error value says it all
  bpf_link* link = bpf_program__attach_raw_tracepoint(prog, name.c_str());
  if (!link) return failed(what, errno);
  return add_link({Link{link, -1}});
}

AttachResult LoadedObject::attach_tp_btf(const std::string& program) {
  std::string what = "attach tp_btf '" + program + "'";
  SEAM_FIND_PROGRAM(prog, program, what);
  build::LibbpfMessages quiet(nullptr);  // the error value says it all
  bpf_link* link = bpf_program__attach_trace(prog);
  if (!link) return failed(what, errno);
  return add_link({Link{link, -1}});
}

AttachResult LoadedObject::attach_kprobe(const std::string& program, const std::string& function,
                                         bool retprobe) {
  std::string what =
      std::string("attach ") + (retprobe ? "kretprobe" : "kprobe") + " '" + program + "' to " + function;
  SEAM_FIND_PROGRAM(prog, program, what);
  build::LibbpfMessages quiet(nullptr);  // the error value says it all
  bpf_link* link = bpf_program__attach_kprobe(prog, retprobe, function.c_str());
  if (!link) return failed(what, errno);
  return add_link({Link{link, -1}});
}

AttachResult LoadedObject::attach_fentry(const std::string& program) {
  std::string what = "attach fentry/fexit '" + program + "'";
  SEAM_FIND_PROGRAM(prog, program, what);
  build::LibbpfMessages quiet(nullptr);  // the error value says it all
  bpf_link* link = bpf_program__attach_trace(prog);
  if (!link) return failed(what, errno);
  return add_link({Link{link, -1}});
}

AttachResult LoadedObject::attach_perf_event(const std::string& program, uint32_t type, uint64_t config,
                                             uint64_t period, uint64_t frequency) {
  std::string what = "attach perf_event '" + program + "' to type " + std::to_string(type) + " config " +
                     std::to_string(config);
  SEAM_FIND_PROGRAM(prog, program, what);
  build::LibbpfMessages quiet(nullptr);  // the error value says it all
  std::vector<Link> links;
  auto undo = [&links] {
    for (Link& l : links) destroy(l);
  };
  for (int cpu : online_cpus()) {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = type;
    attr.config = config;
    if (frequency) {
      attr.freq = 1;
      attr.sample_freq = frequency;
    } else {
      attr.sample_period = period ? period : 1;
    }
    int fd = static_cast<int>(syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC));
    if (fd < 0) {
      int err = errno;
      undo();
      return failed(what + " on cpu " + std::to_string(cpu), err);
    }
    bpf_link* link = bpf_program__attach_perf_event(prog, fd);  // the link owns fd from here
    if (!link) {
      int err = errno;
      close(fd);
      undo();
      return failed(what + " on cpu " + std::to_string(cpu), err);
    }
    links.push_back(Link{link, -1});
  }
  return add_link(std::move(links));
}

bool LoadedObject::detach(int link) {
  if (link < 0 || static_cast<size_t>(link) >= links_.size() || links_[link].empty()) return false;
  for (Link& l : links_[link]) destroy(l);
  links_[link].clear();
  return true;
}

bool LoadedObject::has_entry_bound_links() const {
  for (size_t i = 0; i < links_.size(); ++i)
    if (entry_bound_[i] && !links_[i].empty()) return true;
  return false;
}

DetachStats LoadedObject::detach_all(bool keep_entry_bound) {
  auto start = std::chrono::steady_clock::now();
  std::vector<Link> all;
  for (size_t i = 0; i < links_.size(); ++i) {
    if (keep_entry_bound && entry_bound_[i]) continue;
    all.insert(all.end(), links_[i].begin(), links_[i].end());
    links_[i].clear();
  }
  DetachStats stats;
  stats.links = all.size();
  if (all.empty()) return stats;
  // Each destroy mostly waits in the kernel (RCU grace periods), so many run at once.
  size_t workers = std::min<size_t>(all.size(), 16);
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (size_t i = 0; i < workers; ++i)
    pool.emplace_back([&] {
      for (size_t j; (j = next.fetch_add(1)) < all.size();) destroy(all[j]);
    });
  for (std::thread& t : pool) t.join();
  stats.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

size_t LoadedObject::link_count() const {
  size_t n = 0;
  for (const auto& group : links_) n += group.empty() ? 0 : 1;
  return n;
}

int LoadedObject::map_fd(const std::string& name) const {
  return bpf_object__find_map_fd_by_name(obj_, name.c_str());
}

Result<std::vector<uint64_t>> LoadedObject::drop_counts() const {
  int fd = map_fd(drops_map_);
  if (fd < 0) return Error{"the object has no drop counter map '" + drops_map_ + "'"};
  return read_percpu_u64_sums(fd, drop_slots_);
}

}  // namespace seam::runtime
