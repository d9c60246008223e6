#include "compiler/build/vmlinux_btf.hpp"

#include <bpf/btf.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include "compiler/build/kernel_types.hpp"

namespace seam::build {

Result<std::shared_ptr<const btf>> acquire_vmlinux_btf() {
  static std::mutex mutex;
  static std::weak_ptr<const btf> current;
  // Held while parsing, so a second caller waits for this parse instead of starting its own.
  std::lock_guard lock(mutex);
  if (std::shared_ptr<const btf> alive = current.lock()) return alive;
  btf* b = btf__load_vmlinux_btf();
  if (!b) {
    int err = errno;
    return Error{std::string("cannot load the kernel's BTF (") + kVmlinuxBtfPath + "): " + std::strerror(err),
                 code_of_errno(err)};
  }
  std::shared_ptr<const btf> loaded(b, [](const btf* p) { btf__free(const_cast<btf*>(p)); });
  current = loaded;
  return loaded;
}

}  // namespace seam::build
