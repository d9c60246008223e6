#pragma once
// Rule and stdlib files compile into kernel programs that run as root, so whoever can write one
// can run code in the kernel. A file is refused when a user other than root (or the user running
// seam) could change what it says:
//   - the file (or a directory given as a rules path) is owned by another user, or is writable
//     by everyone, or by a group other than root's;
//   - any directory above it, up to /, is owned by another user, or is writable by everyone or
//     by a non-root group, unless that directory has the sticky bit (like /tmp: others cannot
//     then rename or replace entries they do not own, and the entries below are checked too).
// Symbolic links are followed: both the path as given and the file it resolves to are checked.
#include <optional>
#include <string>

namespace seam::runtime {

// nullopt when the file is safe to load; else the whole message, e.g.
// "refusing rules/x.seam: it is writable by group 'staff' (mode 0664); fix with chmod go-w,
//  or pass --allow-insecure-rules". A file that cannot be examined is refused too.
std::optional<std::string> insecure_reason(const std::string& path);

}  // namespace seam::runtime
