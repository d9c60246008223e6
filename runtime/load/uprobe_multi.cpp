#include "runtime/load/uprobe_multi.hpp"

#include <linux/bpf.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace seam::runtime {

namespace {

// union bpf_attr's link_create member as of kernel 6.6, up to the uprobe_multi fields.
struct LinkCreateUprobeMultiAttr {
  uint32_t prog_fd;
  uint32_t target_fd;
  uint32_t attach_type;
  uint32_t flags;
  uint64_t path;
  uint64_t offsets;
  uint64_t ref_ctr_offsets;
  uint64_t cookies;
  uint32_t cnt;
  uint32_t multi_flags;  // BPF_F_UPROBE_MULTI_RETURN
  uint32_t pid;
  uint32_t padding;
};
static_assert(sizeof(LinkCreateUprobeMultiAttr) == 64);

constexpr uint32_t kUprobeMultiReturn = 1;  // BPF_F_UPROBE_MULTI_RETURN

}  // namespace

int create_uprobe_multi_link(int prog_fd, const std::string& path, uint64_t file_offset, bool retprobe,
                             pid_t pid, int attach_type) {
  unsigned long offset = file_offset;
  LinkCreateUprobeMultiAttr attr{};
  attr.prog_fd = static_cast<uint32_t>(prog_fd);
  attr.attach_type = static_cast<uint32_t>(attach_type);
  attr.path = reinterpret_cast<uintptr_t>(path.c_str());
  attr.offsets = reinterpret_cast<uintptr_t>(&offset);
  attr.cnt = 1;
  attr.multi_flags = retprobe ? kUprobeMultiReturn : 0;
  attr.pid = pid > 0 ? static_cast<uint32_t>(pid) : 0;
  long fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof attr);
  return fd < 0 ? -errno : static_cast<int>(fd);
}

}  // namespace seam::runtime
