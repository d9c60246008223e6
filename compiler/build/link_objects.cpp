#include "compiler/build/link_objects.hpp"

#include <bpf/libbpf.h>
#include <elf.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

#include "compiler/build/libbpf_messages.hpp"

namespace seam::build {

namespace {

struct LinkerFree {
  void operator()(bpf_linker* l) const { bpf_linker__free(l); }
};

// libbpf 1.1's linker crashes on a file that is not ELF: each input is checked to be a BPF
// object (ELF, 64-bit, EM_BPF) first, so that a broken part is an error and not seam's end.
Result<void> check_bpf_object(const std::string& path) {
  Elf64_Ehdr header{};
  std::ifstream in(path, std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(&header), sizeof header) ||
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_machine != EM_BPF)
    return Error{path + " is not a BPF object"};
  return {};
}

}  // namespace

Result<void> link_bpf_objects(const std::vector<std::string>& inputs, const std::string& output) {
  for (const std::string& in : inputs)
    if (Result<void> checked = check_bpf_object(in); !checked)
      return Error{"cannot link " + output + ": " + checked.error()};
  std::string messages;
  LibbpfMessages capture(&messages);
  auto failed = [&](const std::string& what, int err) -> Result<void> {
    std::string text = what + ": " + std::strerror(err < 0 ? -err : err);
    while (!messages.empty() && messages.back() == '\n') messages.pop_back();
    if (!messages.empty()) text += " (libbpf: " + messages + ")";
    return Error{text};
  };
  Result<void> result;
  std::unique_ptr<bpf_linker, LinkerFree> linker(bpf_linker__new(output.c_str(), nullptr));
  if (!linker) {
    result = failed("cannot start linking " + output, errno);
  } else {
    for (const std::string& in : inputs) {
      if (int err = bpf_linker__add_file(linker.get(), in.c_str(), nullptr); err != 0) {
        result = failed("cannot link " + in + " into " + output, err);
        break;
      }
    }
    if (result) {
      if (int err = bpf_linker__finalize(linker.get()); err != 0)
        result = failed("cannot write " + output, err);
    }
  }
  return result;
}

}  // namespace seam::build
