#include "runtime/discover/find_libraries.hpp"

#include "runtime/discover/library_scanner.hpp"
#include "runtime/discover/scan_round.hpp"

namespace seam::runtime::discover {

std::vector<LibraryFile> find_libraries(const std::vector<plan::LibraryPattern>& patterns,
                                        const Scope& scope) {
  LibraryScanner scanner(patterns);
  LibrarySet found;
  if (scope.pid) {
    scanner.scan_process(*scope.pid, found);
  } else {
    for (pid_t pid : running_pids()) scanner.scan_process(pid, found);
  }
  if (scope.include_system_paths) scanner.scan_system(found);
  return found.take();
}

}  // namespace seam::runtime::discover
