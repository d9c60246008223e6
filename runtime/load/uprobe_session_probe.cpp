#include "runtime/load/uprobe_session_probe.hpp"

#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "compiler/build/object_cache.hpp"
#include "runtime/load/feature_cache.hpp"
#include "runtime/load/uprobe_multi.hpp"

namespace seam::runtime {

namespace {

std::string errno_text(int err) {
  const char* name = strerrorname_np(err);
  return std::string(name ? name : "errno " + std::to_string(err)) + ": " + std::strerror(err);
}

UprobeSessionSupport probe() {
  // r0 = 0; exit: at the entry, "run me at the return too".
  const bpf_insn insns[] = {
      {BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0},
      {BPF_JMP | BPF_EXIT, 0, 0, 0, 0},
  };
  LIBBPF_OPTS(bpf_prog_load_opts, opts,
              .expected_attach_type = static_cast<bpf_attach_type>(kBpfTraceUprobeSession));
  int prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "seam_probe", "GPL", insns, 2, &opts);
  if (prog < 0) return {false, "uprobe session: program load refused (" + errno_text(errno) + ")"};
  char path[] = "/tmp/seam-uprobe-session-XXXXXX";
  int file = mkstemp(path);
  if (file < 0) {
    int err = errno;
    close(prog);
    return {false, "uprobe session: cannot create a probe target file: " + errno_text(err)};
  }
  const char zeros[64] = {};
  bool wrote = write(file, zeros, sizeof zeros) == static_cast<ssize_t>(sizeof zeros);
  close(file);
  int link = wrote ? create_uprobe_multi_link(prog, path, 0, false, -1, kBpfTraceUprobeSession) : -EIO;
  unlink(path);
  close(prog);
  if (link < 0) return {false, "uprobe session: link_create: " + errno_text(-link)};
  close(link);  // nobody maps the file: nothing was ever patched
  return {true, {}};
}

}  // namespace

const UprobeSessionSupport& uprobe_session_support() {
  static const UprobeSessionSupport support = [] {
    if (const char* off = std::getenv("SEAM_NO_UPROBE_SESSION"); off && *off && std::string(off) != "0")
      return UprobeSessionSupport{false, "SEAM_NO_UPROBE_SESSION is set"};
    std::string path = boot_cache_path(build::default_cache_dir(), "uprobe-session");
    if (std::optional<nlohmann::json> j = read_boot_cache(path);
        j && j->contains("usable") && (*j)["usable"].is_boolean())
      return UprobeSessionSupport{(*j)["usable"].get<bool>(), j->value("reason", "")};
    UprobeSessionSupport probed = probe();
    write_boot_cache(path, {{"usable", probed.usable}, {"reason", probed.reason}});
    return probed;
  }();
  return support;
}

}  // namespace seam::runtime
