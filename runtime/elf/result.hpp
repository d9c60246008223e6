#pragma once
// Files seam reads at run time (ELF images, /proc entries) can be missing, truncated or not what
// their name says; that is an answer, not an exception: a seam::Result (compiler/diag/result.hpp).
#include "compiler/diag/result.hpp"

namespace seam::runtime::elf {

using seam::Error;
using seam::Result;

}  // namespace seam::runtime::elf
