#include "compiler/build/vmlinux_btf.hpp"

#include <bpf/btf.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include "compiler/build/kernel_types.hpp"

namespace seam::build {

namespace {

// One mutex for the parse and the keeping: a keeper that goes while another thread parses
// cannot leave that parse kept.
struct Shared {
  std::mutex mutex;
  std::weak_ptr<const btf> current;
  std::shared_ptr<const btf> kept;  // set only while keepers > 0
  int keepers = 0;
};

Shared& shared() {
  static Shared s;
  return s;
}

}  // namespace

Result<std::shared_ptr<const btf>> acquire_vmlinux_btf() {
  Shared& s = shared();
  // Held while parsing, so a second caller waits for this parse instead of starting its own.
  std::lock_guard lock(s.mutex);
  if (std::shared_ptr<const btf> alive = s.current.lock()) {
    if (s.keepers > 0) s.kept = alive;
    return alive;
  }
  btf* b = btf__load_vmlinux_btf();
  if (!b) {
    int err = errno;
    return Error{std::string("cannot load the kernel's BTF (") + kVmlinuxBtfPath + "): " + std::strerror(err),
                 code_of_errno(err)};
  }
  std::shared_ptr<const btf> loaded(b, [](const btf* p) { btf__free(const_cast<btf*>(p)); });
  s.current = loaded;
  if (s.keepers > 0) s.kept = loaded;
  return loaded;
}

KeepVmlinuxBtf::KeepVmlinuxBtf() {
  Shared& s = shared();
  std::lock_guard lock(s.mutex);
  ++s.keepers;
}

KeepVmlinuxBtf::~KeepVmlinuxBtf() {
  std::shared_ptr<const btf> last;  // freed (if this was the last use) after the lock is let go
  Shared& s = shared();
  std::lock_guard lock(s.mutex);
  if (--s.keepers == 0) last = std::move(s.kept);
}

bool vmlinux_btf_kept() {
  Shared& s = shared();
  std::lock_guard lock(s.mutex);
  return s.kept != nullptr;
}

}  // namespace seam::build
