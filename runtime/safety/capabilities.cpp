#include "runtime/safety/capabilities.hpp"

#include <dirent.h>
#include <linux/capability.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

namespace seam::runtime {

namespace {

int last_cap() {
  int n = 40;
  std::ifstream in("/proc/sys/kernel/cap_last_cap");
  in >> n;
  return n;
}

// What the capset below sets, for the signal handler (which may not allocate).
__user_cap_data_struct g_data[2] = {};
std::atomic<int> g_done{0}, g_failed{0};

int set_this_thread() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  return static_cast<int>(syscall(SYS_capset, &header, g_data));
}

// Capabilities belong to threads: every other thread is asked, by a signal, to drop its own.
void on_drop_signal(int) {
  int saved = errno;
  if (set_this_thread() != 0) g_failed.fetch_add(1);
  g_done.fetch_add(1);
  errno = saved;
}

std::vector<pid_t> other_threads() {
  std::vector<pid_t> out;
  pid_t self = static_cast<pid_t>(syscall(SYS_gettid));
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d))
      if (e->d_name[0] != '.' && std::atoi(e->d_name) != self) out.push_back(std::atoi(e->d_name));
    closedir(d);
  }
  return out;
}

}  // namespace

uint64_t capabilities_kept() {
  int last = last_cap();
  uint64_t keep = (1ull << CAP_SYS_PTRACE) | (1ull << CAP_DAC_READ_SEARCH) | (1ull << CAP_SYSLOG);
  if (last >= CAP_BPF)
    keep |= (1ull << CAP_BPF) | (1ull << CAP_PERFMON);
  else
    keep |= 1ull << CAP_SYS_ADMIN;
  if (last >= CAP_CHECKPOINT_RESTORE)
    keep |= 1ull << CAP_CHECKPOINT_RESTORE;
  else
    keep |= 1ull << CAP_SYS_ADMIN;
  return keep;
}

std::string capability_names(uint64_t mask) {
  static const char* const kNames[] = {"cap_chown",
                                       "cap_dac_override",
                                       "cap_dac_read_search",
                                       "cap_fowner",
                                       "cap_fsetid",
                                       "cap_kill",
                                       "cap_setgid",
                                       "cap_setuid",
                                       "cap_setpcap",
                                       "cap_linux_immutable",
                                       "cap_net_bind_service",
                                       "cap_net_broadcast",
                                       "cap_net_admin",
                                       "cap_net_raw",
                                       "cap_ipc_lock",
                                       "cap_ipc_owner",
                                       "cap_sys_module",
                                       "cap_sys_rawio",
                                       "cap_sys_chroot",
                                       "cap_sys_ptrace",
                                       "cap_sys_pacct",
                                       "cap_sys_admin",
                                       "cap_sys_boot",
                                       "cap_sys_nice",
                                       "cap_sys_resource",
                                       "cap_sys_time",
                                       "cap_sys_tty_config",
                                       "cap_mknod",
                                       "cap_lease",
                                       "cap_audit_write",
                                       "cap_audit_control",
                                       "cap_setfcap",
                                       "cap_mac_override",
                                       "cap_mac_admin",
                                       "cap_syslog",
                                       "cap_wake_alarm",
                                       "cap_block_suspend",
                                       "cap_audit_read",
                                       "cap_perfmon",
                                       "cap_bpf",
                                       "cap_checkpoint_restore"};
  std::string out;
  for (int i = 0; i < 64; ++i) {
    if (!(mask & (1ull << i))) continue;
    if (!out.empty()) out += ",";
    out += i < static_cast<int>(std::size(kNames)) ? kNames[i] : "cap_" + std::to_string(i);
  }
  return out;
}

Result<void> drop_capabilities() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct current[2] = {};
  if (syscall(SYS_capget, &header, current) != 0)
    return Error{std::string("capget: ") + std::strerror(errno), code_of_errno(errno)};
  uint64_t have = current[0].effective | (static_cast<uint64_t>(current[1].effective) << 32);
  uint64_t keep = capabilities_kept() & have;
  g_data[0].effective = g_data[0].permitted = static_cast<uint32_t>(keep);
  g_data[1].effective = g_data[1].permitted = static_cast<uint32_t>(keep >> 32);
  g_data[0].inheritable = g_data[1].inheritable = 0;

  struct sigaction sa {
  }, old{};
  sa.sa_handler = on_drop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  int sig = SIGRTMIN + 3;
  sigaction(sig, &sa, &old);
  g_done = 0;
  g_failed = 0;
  std::vector<pid_t> threads = other_threads();
  int asked = 0;
  for (pid_t tid : threads)
    if (syscall(SYS_tgkill, getpid(), tid, sig) == 0) ++asked;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (g_done.load() < asked && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  int done = g_done.load();
  sigaction(sig, &old, nullptr);
  if (set_this_thread() != 0)
    return Error{std::string("capset: ") + std::strerror(errno), code_of_errno(errno)};
  if (done < asked) return Error{std::to_string(asked - done) + " threads did not drop their capabilities"};
  if (g_failed.load() > 0)
    return Error{std::to_string(g_failed.load()) + " threads could not drop their capabilities"};
  return {};
}

}  // namespace seam::runtime
