#pragma once
// The seam fields of a C function: what a uprobe can read at entry, and the result register.
// Seam argument N is the Nth integer argument register (x86-64 System V: rdi, rsi, rdx, rcx, r8,
// r9), then the stack slots after the return address (N >= 6). So, on x86-64 only:
//  - integers, enums, bool and pointers take one slot each;
//  - a struct or union of up to 16 bytes takes one slot per 8-byte half with an integer field
//    (a dim3 becomes NAME_xy: u64 and NAME_z: u32); halves made only of floats go in SSE
//    registers and are left out (on the stack, such a struct stops the list);
//  - float and double arguments go in SSE registers, and larger structs on the stack: they take no
//    register, so they are left out and the arguments after them keep their numbers; after a
//    struct on the stack, stack arguments can no longer be numbered and the list stops there;
//  - a struct result larger than 16 bytes is returned through a hidden pointer in the first register.
//  - a type this does not understand (__int128, vectors) stops the list.
// Left-out arguments are listed in `omitted`, with the reason, for the span's comment.
#include <optional>
#include <string>
#include <vector>

#include "compiler/stdlib_gen/c_decls.hpp"

namespace seam::stdlib_gen {

struct SeamField {
  std::string name;     // a seam identifier, snake_case
  std::string type;     // ptr bool i8..i64 u8..u64 bytes
  std::string comment;  // trailing comment: "enum cudaMemcpyKind. Type of transfer"
};

struct SeamFields {
  std::vector<SeamField> args;
  std::optional<SeamField> result;
  std::vector<std::string> omitted;  // "value (double): passed in an SSE register"
  std::vector<std::string> enums;    // enum names the fields use
};

SeamFields seam_fields_of(const CFunction& function);

// Integer parameters of pointer size named like a byte count (size, count, bytes, len, length,
// nbytes, or ending in one of those words: sizeInBytes, byte_count) are `bytes`.
bool looks_like_byte_count(const std::string& snake_name);

}  // namespace seam::stdlib_gen
