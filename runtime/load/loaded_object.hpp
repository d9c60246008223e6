#pragma once
// A compiled BPF object loaded into the kernel for one probe plan: maps sized from the plan,
// programs whose kernel feature is missing left out (or replaced by their fallback), and the
// links that attach programs to their targets. Every failure is a value naming what failed.
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "compiler/diag/result.hpp"
#include "compiler/plan/plan.hpp"
#include "runtime/load/features.hpp"

struct bpf_object;
struct bpf_link;

namespace seam::runtime {

// A plan attachment that will not run on this kernel, and why (reported per rule).
struct Unavailable {
  plan::Attachment attachment;
  std::string reason;
};

// The link's handle for detach(), or why it did not attach ("attach uprobe 'on_sync' to
// /lib/libcudart.so.12+0x1a2b0: ENOENT: ...", coded from the kernel's errno).
using AttachResult = Result<int>;

struct DetachStats {
  size_t links = 0;
  double ms = 0;
};

class LoadedObject;

// `seam run`'s object (every rule file in one, and during a reload the next one beside it) writes
// into one ring buffer the session owns, and shares its scope map.
struct RingShare {
  int ring_fd = -1;       // the shared seam_events map (-1: the object's own ring)
  uint32_t unit_tag = 0;  // the loading unit's tag (plan::unit_tag_of), in every record it writes
  int scope_fd = -1;      // the shared seam_scope map (runtime/run/scope_keeper.hpp; -1: the object's own)
  int scope_any_fd = -1;  // the shared seam_scope_any array beside it (-1: the object's own)
  // The scope bits each scope slot of the object requires (seam_scope_masks; codegen/scope_slots.hpp).
  std::vector<uint64_t> scope_masks;
  // Maps of this object (by name) that use an existing map instead, where its type, sizes and
  // entries are the same: a reloaded object keeps the previous one's metric counters and spans
  // and states in flight (runtime/run/session_reload.cpp).
  std::map<std::string, int> reuse_maps;
  // The run's seam_live_gen map (runtime/run/live_generation.hpp; -1: the object's own, and it
  // always acts) and this object's generation in it: its programs act only while it is live.
  int live_fd = -1;
  uint32_t generation = 0;
};

// The loaded object, or why not; a refused object's error ends with libbpf's messages and the
// verifier log.
using LoadResult = Result<std::unique_ptr<LoadedObject>>;

class LoadedObject {
 public:
  // Opens `object`, sizes maps from `plan`, disables programs whose feature is missing and
  // loads the rest. seam_events gets plan.ringbuf_bytes (a power of two, page multiple),
  // seam_drops one slot per rule id, seam_wakeup_bytes 1/8th of the ring.
  static LoadResult load(std::span<const uint8_t> object, const plan::Plan& plan, const FeatureSet& features,
                         RingShare ring = {});

  ~LoadedObject();
  LoadedObject(const LoadedObject&) = delete;
  LoadedObject& operator=(const LoadedObject&) = delete;

  const std::vector<Unavailable>& unavailable() const { return unavailable_; }
  bool is_loaded(const std::string& program) const;

  // file_offset is an offset in the file (not a virtual address); runtime/elf resolves symbols.
  // Through a uprobe_multi link where the kernel has them (fast detach), else a perf event.
  AttachResult attach_uprobe(const std::string& program, const std::string& binary_path, uint64_t file_offset,
                             bool retprobe, pid_t pid = -1);
  // A USDT probe (provider:name) in `binary_path`, every site of it; libbpf reads the notes,
  // sets up the argument specs bpf_usdt_arg reads and the semaphore. pid -1: every process.
  AttachResult attach_usdt(const std::string& program, const std::string& binary_path,
                           const std::string& provider, const std::string& name, pid_t pid = -1);
  AttachResult attach_tracepoint(const std::string& program, const std::string& category,
                                 const std::string& name);
  AttachResult attach_raw_tracepoint(const std::string& program, const std::string& name);
  AttachResult attach_tp_btf(const std::string& program);  // target from SEC("tp_btf/...")
  AttachResult attach_kprobe(const std::string& program, const std::string& function, bool retprobe);
  AttachResult attach_fentry(const std::string& program);  // target from SEC("fentry/..."), also fexit
  // One perf event per online CPU; frequency != 0 samples at that rate, else every `period`.
  AttachResult attach_perf_event(const std::string& program, uint32_t type, uint64_t config, uint64_t period,
                                 uint64_t frequency);

  bool detach(int link);
  // Destroys every link at once from a few threads: one uprobe link takes ~100 ms to detach.
  // keep_entry_bound: all but the return probes that run only for the calls whose entry they saw
  // (a uretprobe through a perf event, a uprobe session), which a reload keeps a while.
  DetachStats detach_all(bool keep_entry_bound = false);
  // Whether such a return probe is attached.
  bool has_entry_bound_links() const;
  size_t link_count() const;

  int map_fd(const std::string& name) const;  // -1 when there is no such map
  int ringbuf_fd() const { return map_fd(ringbuf_map_); }
  // Failed ring buffer reserves per rule id, summed over CPUs.
  Result<std::vector<uint64_t>> drop_counts() const;
  uint32_t drop_slots() const { return drop_slots_; }

  bpf_object* raw() const { return obj_; }

 private:
  LoadedObject() = default;
  // A libbpf link, or the fd of a link libbpf 1.1 cannot create (uprobe_multi).
  struct Link {
    bpf_link* link = nullptr;
    int fd = -1;
  };
  static void destroy(Link& l);
  AttachResult add_link(std::vector<Link> links, bool entry_bound = false);
  static Error failed(const std::string& what, int err);

  bpf_object* obj_ = nullptr;
  std::vector<Unavailable> unavailable_;
  std::mutex links_mutex_;  // add_link: kernel probes and uprobes attach from two threads at start
  std::vector<std::vector<Link>> links_;           // by handle; empty once detached
  std::vector<bool> entry_bound_;                  // by handle: see detach_all()
  std::set<std::string> uprobe_multi_programs_;    // loaded for uprobe_multi links
  std::set<std::string> uprobe_session_programs_;  // loaded for uprobe session links
  std::string ringbuf_map_, drops_map_;
  uint32_t drop_slots_ = 1;
};

}  // namespace seam::runtime
