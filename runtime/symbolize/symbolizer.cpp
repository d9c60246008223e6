#include "runtime/symbolize/symbolizer.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>

#include "runtime/elf/proc_maps.hpp"

namespace seam::runtime::symbolize {

// A library as mapped: opened when the snapshot is taken (the descriptor keeps the file
// readable after the process exits or the file is deleted), read when first needed.
struct Symbolizer::Module {
  std::string display_path;
  std::pair<dev_t, ino_t> key;
  int fd = -1;
  bool tried = false;
  std::shared_ptr<const ModuleSymbols> symbols;
  size_t* open_files = nullptr;  // the owner's count of descriptors held
  void close_fd() {
    if (fd < 0) return;
    ::close(fd);
    fd = -1;
    --*open_files;
  }
  ~Module() { close_fd(); }
};

namespace {

// /proc/PID/map_files/<start>-<end> opens exactly the mapped file, whatever the process's
// root or mount namespace, even when deleted. It needs CAP_SYS_ADMIN, so fall back to paths.
int open_mapped_file(pid_t pid, const elf::MapsEntry& m) {
  char range[40];
  char* p = std::to_chars(range, range + 17, m.start, 16).ptr;
  *p++ = '-';
  p = std::to_chars(p, range + sizeof range - 1, m.end, 16).ptr;
  std::string path = elf::proc_path(pid, "map_files/");
  path.append(range, p);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0 || m.deleted) return fd;
  std::string rooted = elf::proc_path(pid, "root");
  rooted.append(m.path);
  for (const std::string& candidate : {rooted, std::string(m.path)}) {
    fd = ::open(candidate.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && ::fstat(fd, &st) == 0 && st.st_ino == m.inode) return fd;
    if (fd >= 0) ::close(fd);
  }
  return -1;
}

// The file at `path` if it is still the inode the mapping had: a descriptor closed to stay
// within the bound is reopened this way (a process that is still there, or a file not replaced).
int reopen_by_path(const std::string& path, std::pair<dev_t, ino_t> key) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat st;
  if (fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == key.first &&
      st.st_ino == key.second)
    return fd;
  if (fd >= 0) ::close(fd);
  return -1;
}

}  // namespace

Symbolizer::Symbolizer(size_t max_processes) : Symbolizer(SymbolizerLimits{max_processes, 64, 256}) {}
Symbolizer::Symbolizer(SymbolizerLimits limits) : limits_(limits) {
  limits_.max_processes = std::max<size_t>(limits_.max_processes, 1);
  limits_.max_open_files = std::max<size_t>(limits_.max_open_files, 1);
}
Symbolizer::~Symbolizer() = default;

bool Symbolizer::remember(pid_t pid) {
  std::optional<std::string_view> maps = elf::read_file_view(elf::proc_path(pid, "maps").c_str(), maps_buf_);
  if (!maps) return false;
  Process fresh;
  elf::for_each_executable_mapping(*maps, [&](const elf::MapsEntry& m) {
    if (m.inode == 0 || m.path.empty() || m.path.front() != '/') return;
    std::pair<dev_t, ino_t> key{makedev(m.dev_major, m.dev_minor), static_cast<ino_t>(m.inode)};
    std::shared_ptr<Module> module = modules_[key].lock();
    if (!module) {
      module = std::make_shared<Module>();
      module->display_path = std::string(m.path);
      module->key = key;
      module->open_files = &open_files_;
      module->fd = open_mapped_file(pid, m);
      hold_open(module);
      modules_[key] = module;
    }
    fresh.mappings.push_back({m.start, m.end, m.offset, std::move(module)});
  });
  // An exiting process (a zombie) still has a maps file, empty: keep what was seen alive.
  if (fresh.mappings.empty() && processes_.count(pid)) return false;
  std::sort(fresh.mappings.begin(), fresh.mappings.end(),
            [](const Mapping& a, const Mapping& b) { return a.start < b.start; });
  fresh.last_use = ++clock_;
  processes_[pid] = std::move(fresh);
  evict_if_full();
  // Drop index entries of modules no snapshot uses any more.
  for (auto it = modules_.begin(); it != modules_.end();)
    it = it->second.expired() ? modules_.erase(it) : ++it;
  return true;
}

void Symbolizer::forget(pid_t pid) {
  processes_.erase(pid);
}

std::vector<pid_t> Symbolizer::forget_exited(int64_t now_ms, int64_t grace_ms) {
  std::vector<pid_t> gone;
  for (auto it = processes_.begin(); it != processes_.end();) {
    Process& p = it->second;
    if (::kill(it->first, 0) == 0 || errno != ESRCH) {
      p.gone_since_ms = -1;
    } else if (p.gone_since_ms < 0) {
      p.gone_since_ms = now_ms;
    } else if (now_ms - p.gone_since_ms >= grace_ms) {
      gone.push_back(it->first);
      it = processes_.erase(it);
      continue;
    }
    ++it;
  }
  for (auto it = modules_.begin(); it != modules_.end();)
    it = it->second.expired() ? modules_.erase(it) : ++it;
  bound_tables();
  return gone;
}

// Counts a freshly opened descriptor and closes the oldest ones over the bound.
void Symbolizer::hold_open(const std::shared_ptr<Module>& m) {
  if (m->fd < 0) return;
  ++open_files_;
  open_order_.push_back(m);
  while (open_files_ > limits_.max_open_files && !open_order_.empty()) {
    std::shared_ptr<Module> oldest = open_order_.front().lock();
    open_order_.pop_front();
    if (oldest) oldest->close_fd();
  }
  // Entries of modules gone or already closed: compact now and then so the queue stays bounded.
  if (open_order_.size() > 4 * limits_.max_open_files) {
    std::erase_if(open_order_, [](const std::weak_ptr<Module>& w) {
      std::shared_ptr<Module> mod = w.lock();
      return !mod || mod->fd < 0;
    });
  }
}

// Tables no module uses any more are cached for a process that maps the library again; only
// `max_tables` of them.
void Symbolizer::bound_tables() {
  auto unused = [](const auto& entry) { return entry.second.use_count() == 1; };
  if (tables_by_build_id_.size() + tables_by_inode_.size() <= limits_.max_tables) return;
  std::erase_if(tables_by_build_id_, unused);
  std::erase_if(tables_by_inode_, unused);
  std::erase_if(tables_by_build_id_, unused);
}

void Symbolizer::evict_if_full() {
  while (processes_.size() > limits_.max_processes) {
    auto oldest = std::min_element(processes_.begin(), processes_.end(), [](const auto& a, const auto& b) {
      return a.second.last_use < b.second.last_use;
    });
    processes_.erase(oldest);
  }
}

Symbolizer::Process* Symbolizer::snapshot(pid_t pid) {
  auto it = processes_.find(pid);
  if (it == processes_.end()) {
    if (!remember(pid)) return nullptr;
    it = processes_.find(pid);
  }
  it->second.last_use = ++clock_;
  return &it->second;
}

const Symbolizer::Mapping* Symbolizer::find_mapping(const Process& p, uint64_t addr) const {
  auto it = std::upper_bound(p.mappings.begin(), p.mappings.end(), addr,
                             [](uint64_t a, const Mapping& m) { return a < m.start; });
  if (it == p.mappings.begin()) return nullptr;
  const Mapping& m = *(it - 1);
  return addr < m.end ? &m : nullptr;
}

const ModuleSymbols* Symbolizer::symbols_of(Module& m) {
  if (m.symbols || m.tried) return m.symbols.get();
  m.tried = true;
  if (m.fd < 0 && (m.fd = reopen_by_path(m.display_path, m.key)) >= 0) ++open_files_;
  std::string build_id = elf::read_build_id(m.fd);
  auto use = [&](std::shared_ptr<const ModuleSymbols> table) {
    m.close_fd();
    m.symbols = std::move(table);
    tables_by_inode_[m.key] = m.symbols;
    return m.symbols.get();
  };
  // An inode number can be reused by a new file (a reinstalled library): trust the inode's
  // table only when the build-ids agree, or when there is nothing to compare.
  auto by_inode = tables_by_inode_.find(m.key);
  if (by_inode != tables_by_inode_.end() &&
      (m.fd < 0 || build_id.empty() || by_inode->second->build_id() == build_id)) {
    return use(by_inode->second);
  }
  // The same library under another inode (another container's copy).
  auto by_id = build_id.empty() ? tables_by_build_id_.end() : tables_by_build_id_.find(build_id);
  if (by_id != tables_by_build_id_.end()) return use(by_id->second);
  if (m.fd < 0) return nullptr;
  elf::Result<elf::ElfFile> file = elf::ElfFile::open_fd(m.fd, m.display_path);
  m.fd = -1;  // owned by the ElfFile now, and closed by it
  --open_files_;
  if (!file) return nullptr;
  auto table = std::make_shared<const ModuleSymbols>(std::move(file).value());
  ++tables_loaded_;
  if (!build_id.empty()) tables_by_build_id_[build_id] = table;
  bound_tables();
  return use(std::move(table));
}

Frame Symbolizer::frame_for(const Mapping& m, uint64_t addr) {
  Frame f;
  f.addr = addr;
  f.module = m.module->display_path;
  uint64_t file_offset = addr - m.start + m.offset;
  f.offset = file_offset;
  const ModuleSymbols* symbols = symbols_of(*m.module);
  if (!symbols) return f;
  std::optional<uint64_t> vaddr = symbols->offset_to_vaddr(file_offset);
  if (!vaddr) return f;
  f.offset = *vaddr;
  if (std::optional<SymbolAt> hit = symbols->lookup(*vaddr)) {
    f.symbol = std::string(hit->name);
    f.offset = hit->offset;
  }
  return f;
}

std::vector<Frame> Symbolizer::symbolize(pid_t pid, std::span<const uint64_t> addrs) {
  std::vector<Frame> frames(addrs.size());
  bool fresh = processes_.count(pid) == 0;
  Process* p = snapshot(pid);
  bool reread = fresh;  // a snapshot taken just now is as new as it gets
  for (size_t i = 0; i < addrs.size(); ++i) {
    frames[i].addr = addrs[i];
    frames[i].module = kUnknownModule;
    if (!p) continue;
    const Mapping* m = find_mapping(*p, addrs[i]);
    if (!m && !reread) {
      reread = true;
      // Keep the old snapshot when the process is gone: the new one could not be better.
      if (remember(pid)) p = snapshot(pid);
      m = p ? find_mapping(*p, addrs[i]) : nullptr;
    }
    if (m) frames[i] = frame_for(*m, addrs[i]);
  }
  return frames;
}

std::vector<Frame> Symbolizer::symbolize_kernel(std::span<const uint64_t> addrs) {
  if (!kernel_) kernel_ = KernelSymbols::load();
  std::vector<Frame> frames(addrs.size());
  for (size_t i = 0; i < addrs.size(); ++i) {
    Frame& f = frames[i];
    f.addr = addrs[i];
    f.module = kUnknownModule;
    if (std::optional<KernelSymbols::Hit> hit = kernel_->lookup(addrs[i])) {
      f.symbol = std::string(hit->name);
      f.offset = hit->offset;
      f.module = hit->module.empty() ? std::string("[kernel]") : "[" + std::string(hit->module) + "]";
    }
  }
  return frames;
}

}  // namespace seam::runtime::symbolize
