// The BPF infrastructure on the real kernel: build a hand-written program (tests/bpf) with
// clang at run time, load it for a plan, attach uprobes to the fixture libcudart.so.12,
// tracepoints and tp_btf, read records from the ring buffer, count drops, detach fast.
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <sstream>
#include <thread>

#include "compiler/build/build_object.hpp"
#include "runtime/load/features.hpp"
#include "runtime/load/loaded_object.hpp"
#include "runtime/run/event_reader.hpp"
#include "support/test_support.hpp"

namespace seam::runtime {
namespace {

using plan::AttachKind;
using plan::Feature;

const std::string kCudart = std::string(SEAM_FIXTURE_DIR) + "/libcudart.so.12";

struct CallRecord {
  uint32_t rule_id, size;
  uint64_t time_ns;
  uint32_t pid, tid;
  uint64_t cgroup;
  char comm[16];
  uint64_t duration_ns;
};
static_assert(sizeof(CallRecord) == plan::kRecordHeaderSize + 8);

const std::vector<uint8_t>& infra_object() {
  static const std::vector<uint8_t> object = [] {
    build::BuildOptions options;
    options.use_cache = false;
    options.kernel_types = {"task_struct"};
    build::BuildResult r = build::build_object(
        test::read_file(std::string(SEAM_SOURCE_DIR) + "/tests/bpf/infra_test.bpf.c"), options);
    EXPECT_TRUE(r.object) << r.object.error() << "\n" << r.clang_stderr << "\n" << r.command;
    return r.object ? *r.object : std::vector<uint8_t>{};
  }();
  return object;
}

plan::Attachment attachment(std::string program, AttachKind kind, Feature feature, uint32_t rule) {
  plan::Attachment a;
  a.program = std::move(program);
  a.kind = kind;
  a.feature = feature;
  a.rules = {rule};
  return a;
}

plan::Plan infra_plan(uint32_t ringbuf_bytes = 1u << 20) {
  plan::Plan p;
  p.ringbuf_bytes = ringbuf_bytes;
  p.attachments.push_back(attachment("sync_enter", AttachKind::Uprobe, Feature::Uprobe, 1));
  p.attachments.push_back(attachment("sync_exit", AttachKind::Uretprobe, Feature::Uprobe, 1));
  p.attachments.push_back(attachment("flood_enter", AttachKind::Uprobe, Feature::Uprobe, 2));
  p.attachments.push_back(attachment("on_exec", AttachKind::Tracepoint, Feature::Tracepoint, 3));
  p.attachments.push_back(attachment("on_switch", AttachKind::TpBtf, Feature::TpBtf, 4));
  p.attachments.push_back(attachment("nanosleep_fentry", AttachKind::Fentry, Feature::Fentry, 5));
  p.attachments.back().fallback = "nanosleep_kprobe";
  p.attachments.push_back(attachment("nanosleep_kprobe", AttachKind::Kprobe, Feature::Kprobe, 5));
  p.attachments.back().is_fallback = true;
  p.attachments.push_back(attachment("sleep_fentry", AttachKind::Fentry, Feature::Fentry, 6));
  p.attachments.back().fallback = "fork_tracepoint";
  p.attachments.push_back(attachment("fork_tracepoint", AttachKind::Tracepoint, Feature::Tracepoint, 6));
  p.attachments.back().is_fallback = true;
  p.attachments.push_back(attachment("on_raw_switch", AttachKind::RawTracepoint, Feature::RawTracepoint, 7));
  p.attachments.push_back(attachment("on_tick", AttachKind::PerfEvent, Feature::PerfEvent, 8));
  p.maps.emplace_back();
  p.maps.back().name = "sync_start";
  p.maps.back().max_entries = 4096;
  for (uint32_t id = 1; id <= 8; ++id) {
    p.rules.emplace_back();
    p.rules.back().id = id;
  }
  return p;
}

// uprobe_multi false: uprobes through perf events even where the kernel has uprobe_multi links.
std::unique_ptr<LoadedObject> load(const plan::Plan& p, bool uprobe_multi = true) {
  if (infra_object().empty()) return nullptr;
  FeatureSet features = probe_features();
  if (!uprobe_multi) features.uprobe_multi.available = false;
  LoadResult r = LoadedObject::load(infra_object(), p, features);
  EXPECT_TRUE(r) << r.error();
  return r ? std::move(*r) : nullptr;
}

// The file offset of a dynamic symbol: its address translated through the PT_LOAD segments.
uint64_t symbol_file_offset(const std::string& path, const std::string& symbol) {
  test::CommandResult syms = test::run_command({"readelf", "-W", "--dyn-syms", path});
  uint64_t vaddr = 0;
  std::istringstream lines(syms.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream f(line);
    std::string num, value, size, type, bind, vis, ndx, name;
    if (f >> num >> value >> size >> type >> bind >> vis >> ndx >> name && name == symbol && type == "FUNC")
      vaddr = std::stoull(value, nullptr, 16);
  }
  test::CommandResult phdrs = test::run_command({"readelf", "-W", "-l", path});
  std::istringstream segs(phdrs.out);
  for (std::string line; std::getline(segs, line);) {
    std::istringstream f(line);
    std::string kind, offset, va, pa, filesz, memsz;
    if (!(f >> kind >> offset >> va >> pa >> filesz >> memsz) || kind != "LOAD") continue;
    uint64_t off = std::stoull(offset, nullptr, 16), start = std::stoull(va, nullptr, 16);
    if (vaddr >= start && vaddr < start + std::stoull(filesz, nullptr, 16)) return vaddr - start + off;
  }
  ADD_FAILURE() << "no file offset for " << symbol << " in " << path;
  return 0;
}

// A child that execs argv only when released, so that probes can be attached to its pid first.
class GatedChild {
 public:
  explicit GatedChild(const std::vector<std::string>& argv) {
    int gate[2];
    EXPECT_EQ(pipe(gate), 0);
    pid_ = fork();
    if (pid_ == 0) {
      close(gate[1]);
      char c;
      if (read(gate[0], &c, 1) != 1) _exit(126);
      std::vector<char*> args;
      for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execvp(args[0], args.data());
      _exit(127);
    }
    close(gate[0]);
    gate_ = gate[1];
  }
  ~GatedChild() {
    if (gate_ >= 0) close(gate_);
    if (!exited_) wait_exit();
  }
  pid_t pid() const { return pid_; }
  void release() {
    EXPECT_EQ(write(gate_, "g", 1), 1);
    close(gate_);
    gate_ = -1;
  }
  // True once it has exited (reaped); non-blocking.
  bool exited() {
    if (!exited_ && waitpid(pid_, &status_, WNOHANG) == pid_) exited_ = true;
    return exited_;
  }
  int wait_exit() {
    if (!exited_) waitpid(pid_, &status_, 0);
    exited_ = true;
    return WIFEXITED(status_) ? WEXITSTATUS(status_) : 128 + WTERMSIG(status_);
  }
  int exit_code() const { return WIFEXITED(status_) ? WEXITSTATUS(status_) : 128 + WTERMSIG(status_); }

 private:
  pid_t pid_ = -1;
  int gate_ = -1;
  int status_ = 0;
  bool exited_ = false;
};

std::vector<std::string> python_calls(int calls, int sleep_us) {
  return {"python3", "-c",
          "import ctypes,sys; l=ctypes.CDLL(sys.argv[1]); f=l.cudaStreamSynchronize; a=ctypes.c_void_p(" +
              std::to_string(sleep_us) + ")\nfor _ in range(" + std::to_string(calls) + "): f(a)",
          kCudart};
}

TEST(BpfInfra, LoadsWithFallbacksAndReportsUnavailablePrograms) {
  SEAM_REQUIRE_ROOT();
  auto obj = load(infra_plan());
  ASSERT_TRUE(obj);
  const FeatureSet& f = probe_features();
  EXPECT_TRUE(obj->is_loaded("sync_enter"));
  EXPECT_FALSE(obj->is_loaded("nanosleep_kprobe") && f.available(Feature::Fentry))
      << "fallback loaded needlessly";
  EXPECT_EQ(obj->is_loaded("sleep_fentry"), f.available(Feature::Fentry));
  EXPECT_EQ(obj->is_loaded("fork_tracepoint"), !f.available(Feature::Fentry));
  bool nanosleep_runs = f.available(Feature::Fentry) || f.available(Feature::Kprobe);
  ASSERT_EQ(obj->unavailable().size(), nanosleep_runs ? 0u : 1u);
  if (!nanosleep_runs) {
    const Unavailable& u = obj->unavailable()[0];
    EXPECT_EQ(u.attachment.program, "nanosleep_fentry");
    EXPECT_NE(u.reason.find("fentry"), std::string::npos) << u.reason;
    EXPECT_NE(u.reason.find("kprobe"), std::string::npos) << u.reason;
    std::printf("unavailable: %s: %s\n", u.attachment.program.c_str(), u.reason.c_str());
  }
  AttachResult bad = obj->attach_uprobe("sync_enter", "/nonexistent/libx.so", 0x1000, false);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("sync_enter"), std::string::npos) << bad.error();
  EXPECT_NE(bad.error().find("/nonexistent/libx.so"), std::string::npos) << bad.error();
  EXPECT_EQ(bad.code(), ErrorCode::NotFound) << bad.error();
  EXPECT_EQ(obj->drop_slots(), 9u);
  auto drops = obj->drop_counts();
  ASSERT_TRUE(drops) << drops.error();
  EXPECT_EQ(drops->size(), 9u);
}

TEST(BpfInfra, LoaderSetsTheWakeupThresholdInRodata) {
  SEAM_REQUIRE_ROOT();
  auto obj = load(infra_plan(1u << 16));
  ASSERT_TRUE(obj);
  bpf_map* map;
  std::vector<uint8_t> rodata;
  bpf_object__for_each_map(map, obj->raw()) {
    std::string name = bpf_map__name(map);
    if (name.size() >= 7 && name.substr(name.size() - 7) == ".rodata") {
      rodata.resize(bpf_map__value_size(map));
      uint32_t key = 0;
      ASSERT_EQ(bpf_map_lookup_elem(bpf_map__fd(map), &key, rodata.data()), 0);
    }
  }
  ASSERT_GE(rodata.size(), sizeof(uint64_t)) << "no .rodata (seam_wakeup_bytes) in the object";
  uint64_t threshold = 0;
  std::memcpy(&threshold, rodata.data(), sizeof threshold);  // the only const volatile global
  EXPECT_EQ(threshold, (1u << 16) / 8);
}

TEST(BpfInfra, RejectsARingBufferThatIsNotAPowerOfTwo) {
  SEAM_REQUIRE_ROOT();
  LoadResult r = LoadedObject::load(infra_object(), infra_plan(5000), probe_features());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("power of two"), std::string::npos) << r.error();
  EXPECT_EQ(r.code(), ErrorCode::InvalidInput);
}

void expect_every_call_recorded(bool uprobe_multi) {
  auto obj = load(infra_plan(), uprobe_multi);
  ASSERT_TRUE(obj);
  uint64_t offset = symbol_file_offset(kCudart, "cudaStreamSynchronize");
  const int kCalls = 5;
  GatedChild child(python_calls(kCalls, 1000));
  for (bool ret : {false, true}) {
    AttachResult r = obj->attach_uprobe(ret ? "sync_exit" : "sync_enter", kCudart, offset, ret, child.pid());
    ASSERT_TRUE(r) << r.error();
  }
  AttachResult args = obj->attach_uprobe("flood_enter", kCudart, offset, false, child.pid());
  ASSERT_TRUE(args) << args.error();
  EventReader reader(obj->ringbuf_fd());
  ASSERT_TRUE(reader.ok()) << reader.error();
  std::vector<CallRecord> records;
  uint64_t max_latency_ns = 0;  // submit (no wakeup: the ring is far below its threshold) to delivery
  auto collect = [&](std::span<const uint8_t> bytes) {
    ASSERT_EQ(bytes.size(), sizeof(CallRecord));
    CallRecord r;
    std::memcpy(&r, bytes.data(), sizeof r);
    records.push_back(r);
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    max_latency_ns =
        std::max<uint64_t>(max_latency_ns, now.tv_sec * 1'000'000'000ull + now.tv_nsec - r.time_ns);
  };
  child.release();
  EXPECT_TRUE(test::wait_until(
      [&] {
        reader.poll(collect, 10);
        return records.size() >= 2 * kCalls && child.exited();
      },
      std::chrono::seconds(20)));
  EXPECT_EQ(child.wait_exit(), 0);
  reader.poll(collect, 50);  // nothing more may come
  ASSERT_EQ(records.size(), static_cast<size_t>(2 * kCalls));
  size_t durations = 0;
  for (const CallRecord& r : records) {
    EXPECT_EQ(r.size, sizeof(CallRecord));
    EXPECT_EQ(r.pid, static_cast<uint32_t>(child.pid()));
    EXPECT_STRNE(r.comm, "");
    if (r.rule_id == 1) {
      ++durations;
      EXPECT_GE(r.duration_ns, 1'000'000u) << "each call sleeps 1 ms";
    } else {
      EXPECT_EQ(r.rule_id, 2u);
      EXPECT_EQ(r.duration_ns, 1000u) << "PT_REGS_PARM1 must read the first argument";
    }
  }
  EXPECT_EQ(durations, static_cast<size_t>(kCalls));
  EXPECT_EQ(reader.delivered(), static_cast<uint64_t>(2 * kCalls));
  EXPECT_LT(max_latency_ns, 1'000'000'000u) << "the timed consume must deliver records that woke nobody";
  std::printf("[bench] %s: max record delivery latency %.1f ms\n",
              uprobe_multi ? "uprobe_multi" : "perf uprobe", max_latency_ns / 1e6);
}

TEST(BpfInfra, UprobeAndUretprobeRecordEveryCall) {
  SEAM_REQUIRE_ROOT();
  if (!probe_features().uprobe_multi.available)
    std::printf("%s\n", probe_features().uprobe_multi.reason.c_str());
  expect_every_call_recorded(true);
}

TEST(BpfInfra, UprobeAndUretprobeThroughPerfEventsRecordEveryCall) {
  SEAM_REQUIRE_ROOT();
  expect_every_call_recorded(false);
}

TEST(BpfInfra, FloodOfATinyRingCountsDropsAndNeverHangs) {
  SEAM_REQUIRE_ROOT();
  auto obj = load(infra_plan(4096));
  ASSERT_TRUE(obj);
  const int kCalls = 100000;
  GatedChild child(python_calls(kCalls, 0));
  AttachResult r = obj->attach_uprobe(
      "flood_enter", kCudart, symbol_file_offset(kCudart, "cudaStreamSynchronize"), false, child.pid());
  ASSERT_TRUE(r) << r.error();
  EventReader reader(obj->ringbuf_fd());
  ASSERT_TRUE(reader.ok()) << reader.error();
  auto start = std::chrono::steady_clock::now();
  child.release();
  ASSERT_TRUE(test::wait_until([&] { return child.exited(); }, std::chrono::seconds(60)));  // no consumption
  EXPECT_EQ(child.exit_code(), 0);
  double flood_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  uint64_t delivered = 0;
  auto count = [&](std::span<const uint8_t> bytes) {
    CallRecord rec;
    std::memcpy(&rec, bytes.data(), sizeof rec);
    delivered += rec.rule_id == 2;
  };
  while (reader.poll(count, 20) > 0) {
  }
  auto drops = obj->drop_counts();
  ASSERT_TRUE(drops) << drops.error();
  const std::vector<uint64_t>& per_rule = *drops;
  ASSERT_EQ(per_rule.size(), 9u);
  for (size_t id = 0; id < per_rule.size(); ++id)
    EXPECT_EQ(per_rule[id] > 0, id == 2) << "rule " << id << " dropped " << per_rule[id];
  EXPECT_EQ(delivered + per_rule[2], static_cast<uint64_t>(kCalls));
  std::printf("[bench] flood: %d calls in %.0f ms, %llu delivered, %llu dropped\n", kCalls, flood_ms,
              static_cast<unsigned long long>(delivered), static_cast<unsigned long long>(per_rule[2]));
}

TEST(BpfInfra, TracepointSeesAChildsExec) {
  SEAM_REQUIRE_ROOT();
  auto obj = load(infra_plan());
  ASSERT_TRUE(obj);
  AttachResult r = obj->attach_tracepoint("on_exec", "sched", "sched_process_exec");
  ASSERT_TRUE(r) << r.error();
  EventReader reader(obj->ringbuf_fd());
  GatedChild child({"/bin/true"});
  child.release();
  bool seen = false;
  std::string comm;
  EXPECT_TRUE(test::wait_until(
      [&] {
        reader.poll(
            [&](std::span<const uint8_t> bytes) {
              CallRecord rec{};
              std::memcpy(&rec, bytes.data(), plan::kRecordHeaderSize);
              if (rec.rule_id == 3 && rec.pid == static_cast<uint32_t>(child.pid())) {
                seen = true;
                comm = rec.comm;
              }
            },
            10);
        return seen;
      },
      std::chrono::seconds(10)));
  EXPECT_EQ(comm, "true");
}

TEST(BpfInfra, TpBtfOnSchedSwitchFires) {
  SEAM_REQUIRE_ROOT();
  if (!probe_features().available(Feature::TpBtf)) GTEST_SKIP() << probe_features().reason(Feature::TpBtf);
  auto obj = load(infra_plan());
  ASSERT_TRUE(obj);
  AttachResult r = obj->attach_tp_btf("on_switch");
  ASSERT_TRUE(r) << r.error();
  int fd = obj->map_fd("switch_count");
  ASSERT_GE(fd, 0);
  uint32_t key = 0;
  uint64_t switches = 0;
  EXPECT_TRUE(test::wait_until(
      [&] {
        std::this_thread::yield();
        return bpf_map_lookup_elem(fd, &key, &switches) == 0 && switches > 0;
      },
      std::chrono::seconds(5)));
}

uint64_t counter(const LoadedObject& obj, uint32_t key) {
  uint64_t value = 0;
  bpf_map_lookup_elem(obj.map_fd("counters"), &key, &value);
  return value;
}

TEST(BpfInfra, RawTracepointFires) {
  SEAM_REQUIRE_ROOT();
  auto obj = load(infra_plan());
  ASSERT_TRUE(obj);
  AttachResult r = obj->attach_raw_tracepoint("on_raw_switch", "sched_switch");
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(test::wait_until([&] { return counter(*obj, 0) > 0; }, std::chrono::seconds(5)));
  EXPECT_TRUE(obj->detach(*r));
}

TEST(BpfInfra, PerfEventOnEveryCpuFires) {
  SEAM_REQUIRE_ROOT();
  if (!probe_features().available(Feature::PerfEvent))
    GTEST_SKIP() << probe_features().reason(Feature::PerfEvent);
  auto obj = load(infra_plan());
  ASSERT_TRUE(obj);
  AttachResult r = obj->attach_perf_event("on_tick", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0, 1000);
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(test::wait_until(
      [&] {
        auto busy_until =
            std::chrono::steady_clock::now() + std::chrono::milliseconds(5);  // keep a CPU running
        while (std::chrono::steady_clock::now() < busy_until) {
        }
        return counter(*obj, 1) > 0;
      },
      std::chrono::seconds(5)));
  AttachResult bad = obj->attach_perf_event("on_tick", 12345, 0, 1, 0);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find("on_tick"), std::string::npos) << bad.error();
}

TEST(BpfInfra, DetachAllIsConcurrentAndComplete) {
  SEAM_REQUIRE_ROOT();
  auto obj = load(infra_plan());
  ASSERT_TRUE(obj);
  uint64_t offset = symbol_file_offset(kCudart, "cudaStreamSynchronize");
  const int kLinks = 40;
  for (int i = 0; i < kLinks; ++i) {
    AttachResult r = obj->attach_uprobe("flood_enter", kCudart, offset, false);
    ASSERT_TRUE(r) << r.error();
  }
  EXPECT_EQ(obj->link_count(), static_cast<size_t>(kLinks));
  // One link detached alone, for comparison.
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(obj->detach(0));
  double one_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_FALSE(obj->detach(0));
  DetachStats stats = obj->detach_all();
  EXPECT_EQ(stats.links, static_cast<size_t>(kLinks - 1));
  EXPECT_EQ(obj->link_count(), 0u);
  std::printf("[bench] detach: one uprobe link %.0f ms; detach_all of %zu uprobe links %.0f ms\n", one_ms,
              stats.links, stats.ms);
  // Nothing fires any more: a call through the library produces no record.
  EventReader reader(obj->ringbuf_fd());
  GatedChild child(python_calls(3, 0));
  child.release();
  EXPECT_EQ(child.wait_exit(), 0);
  EXPECT_EQ(reader.poll([](std::span<const uint8_t>) {}, 50), 0);
}

TEST(BpfInfra, StopWakesABlockedPoll) {
  SEAM_REQUIRE_ROOT();
  auto obj = load(infra_plan());
  ASSERT_TRUE(obj);
  EventReader reader(obj->ringbuf_fd());
  auto start = std::chrono::steady_clock::now();
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    reader.stop();
  });
  int n = reader.poll([](std::span<const uint8_t>) {}, 10000);
  stopper.join();
  double waited = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(n, 0);
  EXPECT_LT(waited, 2000);
  EXPECT_TRUE(reader.stopped());
  EXPECT_EQ(reader.poll([](std::span<const uint8_t>) {}, 10000), 0);  // returns at once once stopped
}

}  // namespace
}  // namespace seam::runtime
