#pragma once
// The DT_SONAME of a shared object: the name it was linked as (libcudart.so.12), whatever the
// file is called now. Discovery uses it for files whose path says nothing of what they are: a
// library loaded from a memfd, or from a file renamed or deleted since.
#include <string>

namespace seam::runtime::elf {

// The SONAME of the ELF image open on `fd` ("" when it has none or is not ELF). The
// descriptor stays open and owned by the caller.
std::string read_soname(int fd);

}  // namespace seam::runtime::elf
