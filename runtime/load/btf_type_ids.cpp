#include "runtime/load/btf_type_ids.hpp"

#include <bpf/btf.h>
#include <fcntl.h>
#include <linux/btf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "compiler/build/btf_types.hpp"
#include "compiler/build/vmlinux_btf.hpp"

namespace seam::runtime {

std::optional<std::map<BtfName, uint32_t>> find_btf_type_ids(std::string_view raw,
                                                             const std::vector<BtfName>& wanted) {
  btf_header h{};
  if (raw.size() < sizeof h) return std::nullopt;
  std::memcpy(&h, raw.data(), sizeof h);
  if (h.magic != BTF_MAGIC || h.hdr_len < sizeof h ||
      uint64_t{h.hdr_len} + h.type_off + h.type_len > raw.size() ||
      uint64_t{h.hdr_len} + h.str_off + h.str_len > raw.size())
    return std::nullopt;
  std::string_view types = raw.substr(h.hdr_len + h.type_off, h.type_len);
  std::string_view strings = raw.substr(h.hdr_len + h.str_off, h.str_len);
  std::map<BtfName, uint32_t> found;
  uint32_t id = 1;  // id 0 is void
  for (size_t at = 0; at < types.size() && found.size() < wanted.size(); ++id) {
    btf_type t{};
    if (types.size() - at < sizeof t) return std::nullopt;
    std::memcpy(&t, types.data() + at, sizeof t);
    const uint32_t kind = BTF_INFO_KIND(t.info);
    const int64_t extra = build::btf_type_extra_bytes(kind, BTF_INFO_VLEN(t.info));
    if (extra < 0) return std::nullopt;
    at += sizeof t + static_cast<size_t>(extra);
    if (t.name_off == 0 || t.name_off >= strings.size()) continue;
    std::string_view name = strings.substr(t.name_off);
    name = name.substr(0, name.find('\0'));
    for (const BtfName& w : wanted)
      if (w.second == kind && w.first == name) found.try_emplace(w, id);
  }
  return found;
}

std::optional<std::map<BtfName, uint32_t>> find_vmlinux_btf_type_ids(const std::vector<BtfName>& wanted) {
  int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  void* map = fstat(fd, &st) == 0 && st.st_size > 0
                  ? mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0)
                  : MAP_FAILED;
  close(fd);
  if (map == MAP_FAILED) return std::nullopt;  // kernels before 6.16 cannot map it: parse instead
  auto ids = find_btf_type_ids(
      std::string_view(static_cast<const char*>(map), static_cast<size_t>(st.st_size)), wanted);
  munmap(map, static_cast<size_t>(st.st_size));
  return ids;
}

std::optional<std::map<BtfName, uint32_t>> kernel_btf_type_ids(const std::vector<BtfName>& wanted) {
  if (std::optional<std::map<BtfName, uint32_t>> ids = find_vmlinux_btf_type_ids(wanted)) return ids;
  Result<std::shared_ptr<const btf>> acquired = build::acquire_vmlinux_btf();
  if (!acquired) return std::nullopt;
  const std::shared_ptr<const btf>& vmlinux = *acquired;
  std::map<BtfName, uint32_t> ids;
  for (const BtfName& w : wanted)
    if (int id = btf__find_by_name_kind(vmlinux.get(), w.first.c_str(), w.second); id > 0)
      ids[w] = static_cast<uint32_t>(id);
  return ids;
}

}  // namespace seam::runtime
