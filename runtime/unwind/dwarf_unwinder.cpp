#include "runtime/unwind/dwarf_unwinder.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <elfutils/libdwfl.h>

#include <algorithm>

#include "runtime/elf/proc_maps.hpp"

namespace seam::runtime::unwind {

namespace {

struct Mapping {
  uint64_t start = 0, end = 0;
  bool executable = false;
};

// libdwfl asks for a module's ELF through a plain function: what it needs to know (whose
// process, which cache) is set around every call into libdwfl on this thread.
thread_local ElfCache* t_elves = nullptr;
thread_local pid_t t_pid = 0;

struct CallScope {
  CallScope(ElfCache* elves, pid_t pid) { t_elves = elves, t_pid = pid; }
  ~CallScope() { t_elves = nullptr; }
};

int find_elf(Dwfl_Module*, void**, const char* name, Dwarf_Addr, char** file_name, Elf** elfp) {
  if (!t_elves || !name) return -1;
  Elf* elf = t_elves->acquire(t_pid, name);
  if (!elf) return -1;
  *elfp = elf;  // libdwfl owns this reference and elf_end()s it with the Dwfl
  if (file_name) *file_name = strdup(name);
  return -1;
}

// Separate debug files are not looked for: .eh_frame is in the binary itself.
int no_debuginfo(Dwfl_Module*, void**, const char*, Dwarf_Addr, const char*, const char*, GElf_Word, char**) {
  return -1;
}

const Dwfl_Callbacks kDwflCallbacks = {find_elf, no_debuginfo, nullptr, nullptr};

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string_view base_name(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

struct DwarfUnwinder::Process {
  pid_t pid = 0;
  std::string maps;
  std::vector<Mapping> mappings;  // sorted by start
  Dwfl* dwfl = nullptr;
  bool dwfl_tried = false;
  uint64_t last_use = 0;
  // The unwind in progress (libdwfl's callbacks get this Process as their argument).
  const StackSnapshot* snapshot = nullptr;
  uint64_t stack_lo = 0, stack_hi = 0;  // the stack, from sp up
  bool copy_ended = false;              // a read of that mapping fell outside the copy

  ~Process() {
    if (dwfl) dwfl_end(dwfl);
  }

  const Mapping* find(uint64_t addr) const {
    auto it = std::upper_bound(mappings.begin(), mappings.end(), addr,
                               [](uint64_t a, const Mapping& m) { return a < m.start; });
    if (it == mappings.begin()) return nullptr;
    const Mapping& m = *(it - 1);
    return addr < m.end ? &m : nullptr;
  }
  bool is_code(uint64_t addr) const {
    const Mapping* m = find(addr);
    return m && m->executable;
  }
};

namespace {

using Process = DwarfUnwinder::Process;

// The thread is always the one the record was taken on: its state is the snapshot.
pid_t next_thread(Dwfl*, void*, void**) {
  return 0;
}

bool get_thread(Dwfl*, pid_t, void* dwfl_arg, void** thread_arg) {
  *thread_arg = dwfl_arg;
  return true;
}

// Non-stack memory (rare in x86-64 CFI) comes from the file the address is mapped from.
bool read_from_file(Dwfl* dwfl, Dwarf_Addr addr, Dwarf_Word* out) {
  Dwfl_Module* mod = dwfl_addrmodule(dwfl, addr);
  Dwarf_Addr bias = 0;
  Elf* elf = mod ? dwfl_module_getelf(mod, &bias) : nullptr;
  size_t phnum = 0;
  if (!elf || elf_getphdrnum(elf, &phnum) != 0) return false;
  const uint64_t vaddr = addr - bias;
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (!gelf_getphdr(elf, static_cast<int>(i), &ph) || ph.p_type != PT_LOAD) continue;
    if (vaddr < ph.p_vaddr || vaddr + 8 > ph.p_vaddr + ph.p_filesz) continue;
    size_t size = 0;
    const char* file = elf_rawfile(elf, &size);
    const uint64_t at = ph.p_offset + (vaddr - ph.p_vaddr);
    if (!file || at + 8 > size) return false;
    std::memcpy(out, file + at, 8);
    return true;
  }
  return false;
}

bool memory_read(Dwfl* dwfl, Dwarf_Addr addr, Dwarf_Word* out, void* arg) {
  auto* p = static_cast<Process*>(arg);
  const StackSnapshot& s = *p->snapshot;
  const uint64_t sp = s.regs.sp;
  if (addr >= sp && addr - sp + 8 <= s.stack.size()) {
    std::memcpy(out, s.stack.data() + (addr - sp), 8);
    return true;
  }
  if (addr >= p->stack_lo && addr < p->stack_hi) {  // the stack, but not what was copied
    p->copy_ended = true;
    return false;
  }
  return read_from_file(dwfl, addr, out);
}

// x86-64 DWARF register numbers: rbx 3, rbp 6, rsp 7, r12-r15 12-15; the pc apart.
bool set_initial_registers(Dwfl_Thread* thread, void* arg) {
  const Registers& r = static_cast<Process*>(arg)->snapshot->regs;
  const Dwarf_Word bx = r.bx, bp_sp[2] = {r.bp, r.sp}, high[4] = {r.r12, r.r13, r.r14, r.r15};
  if (!dwfl_thread_state_registers(thread, 3, 1, &bx) || !dwfl_thread_state_registers(thread, 6, 2, bp_sp) ||
      !dwfl_thread_state_registers(thread, 12, 4, high))
    return false;
  dwfl_thread_state_register_pc(thread, r.ip);
  return true;
}

const Dwfl_Thread_Callbacks kThreadCallbacks = {next_thread,           get_thread, memory_read,
                                                set_initial_registers, nullptr,    nullptr};

bool covers(Dwarf_CFI* cfi, Dwarf_Addr bias, uint64_t pc) {
  Dwarf_Frame* frame = nullptr;
  if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame) != 0) return false;
  std::free(frame);
  return true;
}

// .eh_frame first (every binary's), then .debug_frame.
bool has_cfi(Dwfl_Module* mod, uint64_t pc) {
  Dwarf_Addr bias = 0;
  Dwarf_CFI* eh = dwfl_module_eh_cfi(mod, &bias);
  if (covers(eh, bias, pc)) return true;
  Dwarf_CFI* debug = dwfl_module_dwarf_cfi(mod, &bias);
  return covers(debug, bias, pc);
}

struct Walk {
  Process* process;
  Dwfl* dwfl;
  size_t max_frames;
  Unwound out;
};

int on_frame(Dwfl_Frame* state, void* arg) {
  auto* w = static_cast<Walk*>(arg);
  Dwarf_Addr pc = 0;
  bool activation = false;
  if (!dwfl_frame_pc(state, &pc, &activation) || pc == 0) return DWARF_CB_ABORT;  // the chain's end
  const bool is_return = !activation || (w->out.frames.empty() && w->process->snapshot->ip_is_return);
  const uint64_t call = is_return ? pc - 1 : pc;
  if (!w->process->is_code(call)) {  // never shown as a frame: a stack address, a corrupt slot
    w->out.truncated = "truncated: unwinding reached " + hex(pc) + ", outside mapped code";
    return DWARF_CB_ABORT;
  }
  w->out.frames.push_back({pc, is_return});
  if (w->out.frames.size() >= w->max_frames) {
    w->out.truncated = "truncated: " + std::to_string(w->max_frames) + " frames";
    return DWARF_CB_ABORT;
  }
  // Its caller is found with call-frame information only: libdwfl's frame-pointer guess for
  // code without any is not known to be right, so the stack says where it stops instead.
  Dwfl_Module* mod = dwfl_addrmodule(w->dwfl, call);
  if (!mod || !has_cfi(mod, call)) {
    const char* name =
        mod ? dwfl_module_info(mod, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr) : nullptr;
    w->out.truncated =
        "truncated: no CFI for " + std::string(name ? base_name(name) : std::string_view(hex(pc)));
    return DWARF_CB_ABORT;
  }
  return DWARF_CB_OK;
}

}  // namespace

DwarfUnwinder::DwarfUnwinder(size_t max_processes, size_t max_frames)
    : max_processes_(max_processes ? max_processes : 1), max_frames_(max_frames ? max_frames : 1) {}

DwarfUnwinder::~DwarfUnwinder() {
  processes_.clear();  // every Dwfl ends (releasing its ELF references) before the cache
}

bool DwarfUnwinder::remember(pid_t pid) {
  std::optional<std::string_view> maps = elf::read_file_view(elf::proc_path(pid, "maps").c_str(), maps_buf_);
  // An exiting process (a zombie) still has a maps file, empty: keep what was seen alive.
  if (!maps || (maps->empty() && processes_.count(pid))) return false;
  remember_maps(pid, std::string(*maps));
  return true;
}

void DwarfUnwinder::remember_maps(pid_t pid, std::string maps) {
  auto p = std::make_unique<Process>();
  p->pid = pid;
  p->maps = std::move(maps);
  elf::for_each_mapping(p->maps, [&](const elf::MapsEntry& m) {
    p->mappings.push_back({m.start, m.end, m.executable});
  });
  std::sort(p->mappings.begin(), p->mappings.end(),
            [](const Mapping& a, const Mapping& b) { return a.start < b.start; });
  p->last_use = ++clock_;
  processes_[pid] = std::move(p);
  evict_if_full();
}

void DwarfUnwinder::forget(pid_t pid) {
  processes_.erase(pid);
}

void DwarfUnwinder::evict_if_full() {
  while (processes_.size() > max_processes_) {
    auto oldest = std::min_element(processes_.begin(), processes_.end(), [](const auto& a, const auto& b) {
      return a.second->last_use < b.second->last_use;
    });
    processes_.erase(oldest);
  }
}

DwarfUnwinder::Process* DwarfUnwinder::process(pid_t pid) {
  auto it = processes_.find(pid);
  if (it == processes_.end()) {
    if (!remember(pid)) return nullptr;
    it = processes_.find(pid);
  }
  it->second->last_use = ++clock_;
  return it->second.get();
}

bool DwarfUnwinder::is_code(pid_t pid, uint64_t addr) {
  Process* p = process(pid);
  return p && p->is_code(addr);
}

std::optional<Unwound> DwarfUnwinder::unwind(pid_t pid, pid_t tid, const StackSnapshot& snapshot) {
  Process* p = process(pid);
  if (!p) return std::nullopt;
  const uint64_t ip = snapshot.ip_is_return ? snapshot.regs.ip - 1 : snapshot.regs.ip;
  if (!p->is_code(ip) && remember(pid)) p = process(pid);  // a library mapped since the snapshot
  CallScope scope(&elves_, pid);
  if (!p->dwfl && !p->dwfl_tried) {
    p->dwfl_tried = true;
    Dwfl* dwfl = dwfl_begin(&kDwflCallbacks);
    FILE* text = p->maps.empty() ? nullptr : fmemopen(p->maps.data(), p->maps.size(), "r");
    bool ok = dwfl && text;
    if (ok) {
      dwfl_report_begin(dwfl);
      ok = dwfl_linux_proc_maps_report(dwfl, text) == 0;
      ok = dwfl_report_end(dwfl, nullptr, nullptr) == 0 && ok;
    }
    if (text) std::fclose(text);
    ok = ok && dwfl_attach_state(dwfl, nullptr, pid, &kThreadCallbacks, p);
    if (ok) {
      p->dwfl = dwfl;
    } else if (dwfl) {
      dwfl_end(dwfl);
    }
  }
  Unwound out;
  if (!p->dwfl) {
    out.truncated = "truncated: no unwind information for the process";
    return out;
  }
  p->snapshot = &snapshot;
  p->copy_ended = false;
  // The stack: from sp to the end of the mapping that holds it, or of the first one above it
  // (a main thread's stack grows down past where the remembered maps saw it start).
  p->stack_lo = snapshot.regs.sp;
  p->stack_hi = snapshot.regs.sp + snapshot.stack.size();
  auto above = std::upper_bound(p->mappings.begin(), p->mappings.end(), snapshot.regs.sp,
                                [](uint64_t a, const Mapping& m) { return a < m.end; });
  if (above != p->mappings.end()) p->stack_hi = std::max(p->stack_hi, above->end);
  Walk walk{p, p->dwfl, max_frames_, {}};
  int rc = dwfl_getthread_frames(p->dwfl, tid > 0 ? tid : pid, on_frame, &walk);
  // A read of the stack past the copy ends the walk, whether libdwfl calls it an error or the
  // end of the chain (a return address it could not read is "undefined" to it).
  if (walk.out.truncated.empty() && p->copy_ended) walk.out.truncated = "stack copy ends";
  if (walk.out.truncated.empty() && rc == -1)
    walk.out.truncated = "truncated: " + std::string(dwfl_errmsg(-1));
  p->snapshot = nullptr;
  return std::move(walk.out);
}

}  // namespace seam::runtime::unwind
