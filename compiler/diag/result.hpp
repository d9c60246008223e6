#pragma once
// A value or the reason there is none: the one result type of seam's runtime. Failures a user,
// a file or the kernel can cause (a malformed record, an unknown output spec, an ELF image that
// is not one) are answers, not exceptions; the caller prints the message and carries on.
//
// An error is a message for people and an ErrorCode for code. The message names what failed and
// why; the code says which kind of failure it was, for a caller that acts on the kind (retry,
// skip, report as "unavailable here"). A new code is added here, with the kind of failure it
// names, only when a caller needs to tell it apart; everything else is ErrorCode::Failed.
// Result<void> is a step that has no value: it succeeded or says why not.
#include <cerrno>
#include <string>
#include <utility>
#include <variant>

namespace seam {

enum class ErrorCode {
  Failed,        // no kind a caller acts on (the default)
  InvalidInput,  // what the user gave (a flag, an address, a spec) is malformed
  NotFound,      // a file, process, map or program that is not there (ENOENT, ESRCH)
  Denied,        // the kernel or the file system refused (EPERM, EACCES)
  Unsupported,   // this kernel or build lacks what it needs (EOPNOTSUPP, a missing feature)
};

// The code for an errno value, as the kernel reported it.
inline ErrorCode code_of_errno(int err) {
  switch (err < 0 ? -err : err) {
    case ENOENT:
    case ESRCH:
      return ErrorCode::NotFound;
    case EPERM:
    case EACCES:
      return ErrorCode::Denied;
    case EINVAL:
      return ErrorCode::InvalidInput;
    case EOPNOTSUPP:
    case ENOSYS:
    case 524:  // ENOTSUPP: kernel-internal, but BPF syscalls return it
      return ErrorCode::Unsupported;
    default:
      return ErrorCode::Failed;
  }
}

struct Error {
  std::string message;  // names what failed and why: "/usr/lib/x.so: not an ELF file"
  ErrorCode code = ErrorCode::Failed;
};

template <class T>
class Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit, like std::expected
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const std::string& error() const { return std::get<1>(v_).message; }
  ErrorCode code() const { return std::get<1>(v_).code; }
  // The error itself, to pass up unchanged: `if (!r) return r.failure();`.
  const Error& failure() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// A step with no value: `return {};` when it succeeded, `return Error{...};` when not.
template <>
class Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), failed_(true) {}  // NOLINT: implicit, like std::expected

  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }

  const std::string& error() const { return error_.message; }
  ErrorCode code() const { return error_.code; }
  const Error& failure() const { return error_; }

 private:
  Error error_;
  bool failed_ = false;
};

}  // namespace seam
