// `state NAME per thread = READER of LIBRARY` (a state read from memory, python.gil_held): the
// exact text `seam lint` prints for what is wrong with one (docs/diagnostics.md: E0404).
#include <gtest/gtest.h>

#include "unit/check_support.hpp"

namespace {

using seam::test::lint_files;

TEST(CheckStateReader, UnknownReaderE0404) {
  EXPECT_EQ(
      lint_files({{"rules/a.seam", R"(module py
library lib = "libpy.so"
state busy per thread = cpython_lock of lib
)"}}),
      R"(rules/a.seam:3:25: error[E0404]: state 'busy' is read by 'cpython_lock', which seam does not know
    3 | state busy per thread = cpython_lock of lib
      |                         ^~~~~~~~~~~~
      = hint: the readers are: cpython_gil

1 error, 0 warnings
)");
}

TEST(CheckStateReader, PerProcessAndProbesE0404) {
  EXPECT_EQ(
      lint_files({{"rules/a.seam", R"(module py
library lib = "libpy.so"
state busy per process = cpython_gil of lib
    set on entry of work
)"}}),
      R"(rules/a.seam:3:26: error[E0404]: state 'busy' is read from memory per thread: write `per thread`
    3 | state busy per process = cpython_gil of lib
      |                          ^~~~~~~~~~~

rules/a.seam:4:5: error[E0404]: state 'busy' is read from memory: it has no `set`/`clear` probes
    4 |     set on entry of work
      |     ^~~~~~~~~~~~~~~~~~~~

2 errors, 0 warnings
)");
}

TEST(CheckStateReader, TheStdlibsGilHeldChecks) {
  EXPECT_EQ(lint_files({{"rules/a.seam", R"(use cuda, python
cudaStreamSynchronize > 10ms while gil_held -> alert "held"
)"}}),
            "");
}

}  // namespace
