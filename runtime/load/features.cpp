#include "runtime/load/features.hpp"

#include <bpf/bpf.h>
#include <fcntl.h>
#include <linux/btf.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "compiler/build/object_cache.hpp"
#include "runtime/load/btf_type_ids.hpp"
#include "runtime/load/feature_cache.hpp"
#include "runtime/load/tracefs.hpp"
#include "runtime/load/uprobe_multi.hpp"

namespace seam::runtime {

namespace {

using plan::Feature;

// Closing an attached probe is what is slow (a uprobe ~100 ms, a tracepoint perf event
// ~50 ms: the kernel waits for RCU grace periods), so probes hand their descriptors to a
// background thread instead of closing them on the caller's time.
std::mutex graveyard_mutex;
std::vector<int> graveyard;

void close_later(int fd) {
  std::lock_guard lock(graveyard_mutex);
  graveyard.push_back(fd);
}

void close_graveyard_in_background() {
  std::vector<int> fds;
  {
    std::lock_guard lock(graveyard_mutex);
    fds.swap(graveyard);
  }
  if (fds.empty()) return;
  std::thread([fds] {
    for (int fd : fds) close(fd);
  }).detach();
}

// An owned file descriptor, closed in the background.
struct Fd {
  int fd = -1;
  explicit Fd(int f = -1) : fd(f) {}
  ~Fd() {
    if (fd >= 0) close_later(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  bool ok() const { return fd >= 0; }
};

std::string errno_text(int err) {
  const char* name = strerrorname_np(err);
  return std::string(name ? name : "errno " + std::to_string(err)) + ": " + std::strerror(err);
}

// r0 = 0; exit
int load_trivial(bpf_prog_type type, const bpf_prog_load_opts* opts = nullptr) {
  const bpf_insn insns[] = {
      {BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0},
      {BPF_JMP | BPF_EXIT, 0, 0, 0, 0},
  };
  return bpf_prog_load(type, "seam_probe", "GPL", insns, 2, opts);
}

int perf_event_open(perf_event_attr* attr, pid_t pid, int cpu) {
  return static_cast<int>(syscall(__NR_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC));
}

// The dynamic PMU type of "kprobe" or "uprobe", or -errno.
int pmu_type(const char* pmu) {
  std::ifstream in(std::string("/sys/bus/event_source/devices/") + pmu + "/type");
  int type = -1;
  if (!(in >> type)) return -ENOENT;
  return type;
}

// A small file of our own that nobody maps, to put uprobes on: nothing is ever patched.
std::string make_probe_file() {
  char path[] = "/tmp/seam-uprobe-probe-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return {};
  const char zeros[64] = {};
  bool wrote = write(fd, zeros, sizeof zeros) == static_cast<ssize_t>(sizeof zeros);
  close(fd);
  if (!wrote) {
    unlink(path);
    return {};
  }
  return path;
}

// Attaches prog_fd to a perf event; returns "" or the reason.
std::string attach_to_perf_event(perf_event_attr& attr, pid_t pid, int cpu, int prog_fd,
                                 const std::string& what) {
  Fd pe(perf_event_open(&attr, pid, cpu));
  if (!pe.ok()) return "perf_event_open " + what + ": " + errno_text(errno);
  if (ioctl(pe.fd, PERF_EVENT_IOC_SET_BPF, prog_fd) != 0)
    return "attaching to " + what + ": " + errno_text(errno);
  return {};
}

FeatureStatus ok() {
  return {true, {}};
}
FeatureStatus missing(Feature f, const std::string& why) {
  return {false, std::string(plan::to_string(f)) + ": " + why};
}

FeatureStatus probe_kprobe_like(Feature f, bpf_prog_type type, const char* pmu, bool user) {
  Fd prog(load_trivial(type));
  if (!prog.ok()) return missing(f, "program load refused (" + errno_text(errno) + ")");
  int pmu_id = pmu_type(pmu);
  if (pmu_id < 0) {
    std::string what = user ? "uprobe" : "kprobe";
    return missing(f, "this kernel has no " + what + " support (perf_event_open " + what +
                          " PMU: " + errno_text(-pmu_id) + ")");
  }
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = static_cast<__u32>(pmu_id);
  std::string target;
  std::string file;
  if (user) {
    file = make_probe_file();
    if (file.empty())
      return missing(f, std::string("cannot create a probe target file: ") + errno_text(errno));
    attr.config1 = reinterpret_cast<uintptr_t>(file.c_str());  // uprobe_path
    attr.config2 = 0;                                          // offset
    target = "uprobe on " + file;
  } else {
    target = "kprobe do_nanosleep";
    attr.config1 = reinterpret_cast<uintptr_t>("do_nanosleep");
  }
  std::string err = attach_to_perf_event(attr, user ? 0 : -1, user ? -1 : 0, prog.fd, target);
  if (!file.empty()) unlink(file.c_str());
  return err.empty() ? ok() : missing(f, err);
}

FeatureStatus probe_uprobe_multi() {
  std::string why = uprobe_multi_link_refusal(kBpfTraceUprobeMulti, "uprobe_multi");
  return why.empty() ? ok() : FeatureStatus{false, why, 0};
}

FeatureStatus probe_tracepoint() {
  auto tracefs = ensure_tracefs();
  if (!tracefs) return missing(Feature::Tracepoint, tracefs.error());
  const std::string& root = *tracefs;
  Fd prog(load_trivial(BPF_PROG_TYPE_TRACEPOINT));
  if (!prog.ok()) return missing(Feature::Tracepoint, "program load refused (" + errno_text(errno) + ")");
  std::ifstream in(root + "/events/sched/sched_process_exec/id");
  long long id = -1;
  if (!(in >> id))
    return missing(Feature::Tracepoint, "no tracepoint id for sched:sched_process_exec under " + root);
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_TRACEPOINT;
  attr.config = static_cast<__u64>(id);
  std::string err = attach_to_perf_event(attr, -1, 0, prog.fd, "tracepoint sched:sched_process_exec");
  return err.empty() ? ok() : missing(Feature::Tracepoint, err);
}

FeatureStatus probe_raw_tracepoint() {
  Fd prog(load_trivial(BPF_PROG_TYPE_RAW_TRACEPOINT));
  if (!prog.ok()) return missing(Feature::RawTracepoint, "program load refused (" + errno_text(errno) + ")");
  Fd link(bpf_raw_tracepoint_open("sched_switch", prog.fd));
  if (!link.ok())
    return missing(Feature::RawTracepoint, "raw_tracepoint_open sched_switch: " + errno_text(errno));
  return ok();
}

// BTF-typed programs: tp_btf (attach to sched_switch) and fentry (a kernel function), tried on
// these types.
BtfName btf_program_target(Feature f) {
  return f == Feature::TpBtf ? BtfName{"btf_trace_sched_switch", BTF_KIND_TYPEDEF}
                             : BtfName{"do_nanosleep", BTF_KIND_FUNC};
}

// Their ids in the kernel's BTF (btf_type_ids.hpp); nullopt when the kernel has no BTF.
std::optional<std::map<BtfName, uint32_t>> btf_program_targets() {
  return kernel_btf_type_ids({btf_program_target(Feature::TpBtf), btf_program_target(Feature::Fentry)});
}

FeatureStatus probe_btf_program(Feature f, const std::optional<std::map<BtfName, uint32_t>>& targets) {
  if (!targets) return missing(f, "the kernel has no BTF (/sys/kernel/btf/vmlinux)");
  bool tp = f == Feature::TpBtf;
  const BtfName target_name = btf_program_target(f);
  const char* target = target_name.first.c_str();
  auto found = targets->find(target_name);
  if (found == targets->end()) return missing(f, std::string("no BTF entry for ") + target);
  const uint32_t id = found->second;
  LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = tp ? BPF_TRACE_RAW_TP : BPF_TRACE_FENTRY,
              .attach_btf_id = id);
  Fd prog(load_trivial(BPF_PROG_TYPE_TRACING, &opts));
  if (!prog.ok()) return missing(f, "program load refused (" + errno_text(errno) + ")");
  Fd link(bpf_raw_tracepoint_open(nullptr, prog.fd));
  if (!link.ok()) return missing(f, std::string("attach to ") + target + ": " + errno_text(errno));
  return ok();
}

FeatureStatus probe_perf_event() {
  Fd prog(load_trivial(BPF_PROG_TYPE_PERF_EVENT));
  if (!prog.ok()) return missing(Feature::PerfEvent, "program load refused (" + errno_text(errno) + ")");
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.sample_period = 1ull << 40;  // never fires in practice
  attr.disabled = 1;
  std::string err = attach_to_perf_event(attr, -1, 0, prog.fd, "software cpu-clock event");
  return err.empty() ? ok() : missing(Feature::PerfEvent, err);
}

}  // namespace

FeatureSet probe_features_uncached() {
  auto start = std::chrono::steady_clock::now();
  FeatureSet s;
  std::optional<std::map<BtfName, uint32_t>> btf_targets = btf_program_targets();
  s.btf_load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  auto timed = [&](Feature f, auto&& probe) {
    auto t0 = std::chrono::steady_clock::now();
    s.at(f) = probe();
    s.at(f).probe_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  {
    auto t0 = std::chrono::steady_clock::now();
    s.uprobe_multi = probe_uprobe_multi();
    s.uprobe_multi.probe_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  // A uprobe_multi link registers a uprobe on a file, as a perf-event uprobe does; with the uprobe
  // PMU there too, the perf_event_open probe (a trace event created and torn down: 35-50 ms of a
  // cold start on a loaded host, the slowest probe, which the first load waited for) adds nothing.
  if (s.uprobe_multi.available && pmu_type("uprobe") >= 0)
    timed(Feature::Uprobe, [] { return ok(); });
  else
    timed(Feature::Uprobe,
          [] { return probe_kprobe_like(Feature::Uprobe, BPF_PROG_TYPE_KPROBE, "uprobe", true); });
  s.at(Feature::Usdt) = s.at(Feature::Uprobe);
  if (!s.available(Feature::Usdt))
    s.at(Feature::Usdt).reason = "usdt (uprobe-based): " + s.reason(Feature::Uprobe);
  timed(Feature::Kprobe,
        [] { return probe_kprobe_like(Feature::Kprobe, BPF_PROG_TYPE_KPROBE, "kprobe", false); });
  timed(Feature::Tracepoint, probe_tracepoint);
  timed(Feature::RawTracepoint, probe_raw_tracepoint);
  timed(Feature::TpBtf, [&] { return probe_btf_program(Feature::TpBtf, btf_targets); });
  timed(Feature::Fentry, [&] { return probe_btf_program(Feature::Fentry, btf_targets); });
  timed(Feature::PerfEvent, probe_perf_event);
  close_graveyard_in_background();
  s.probe_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return s;
}

namespace {

// SEAM_NO_UPROBE_MULTI=1: uprobes through perf events, as on kernels before 6.6 (to test that
// path, or to go around a kernel whose uprobe_multi links misbehave). Applied after the boot
// cache, which keeps what the kernel has.
FeatureSet with_overrides(FeatureSet s) {
  if (const char* off = std::getenv("SEAM_NO_UPROBE_MULTI"); off && *off && std::string_view(off) != "0")
    s.uprobe_multi = FeatureStatus{false, "SEAM_NO_UPROBE_MULTI is set", 0};
  return s;
}

}  // namespace

const FeatureSet& probe_features() {
  static const FeatureSet features = [] {
    std::string path = feature_cache_path(build::default_cache_dir());
    if (std::optional<FeatureSet> cached = read_feature_cache(path)) {
      (void)ensure_tracefs();  // what probing the tracepoint would have done
      return with_overrides(*cached);
    }
    FeatureSet probed = probe_features_uncached();
    write_feature_cache(path, probed);  // best effort: the next start probes again if it fails
    return with_overrides(probed);
  }();
  return features;
}

std::string uprobe_multi_link_refusal(int attach_type, const std::string& what) {
  LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = static_cast<bpf_attach_type>(attach_type));
  Fd prog(load_trivial(BPF_PROG_TYPE_KPROBE, &opts));
  if (!prog.ok()) return what + ": program load refused (" + errno_text(errno) + ")";
  std::string file = make_probe_file();
  if (file.empty()) return what + ": cannot create a probe target file: " + errno_text(errno);
  int link = create_uprobe_multi_link(prog.fd, file, 0, false, -1, attach_type);
  unlink(file.c_str());
  if (link < 0) return what + ": link_create: " + errno_text(-link);
  Fd owned(link);  // nobody maps the file: nothing was ever patched
  return {};
}

}  // namespace seam::runtime
