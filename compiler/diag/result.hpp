#pragma once
// A value or the reason there is none: the one result type of seam's runtime. Failures a user,
// a file or the kernel can cause (a malformed record, an unknown output spec, an ELF image that
// is not one) are answers, not exceptions; the caller prints the message and carries on.
#include <string>
#include <utility>
#include <variant>

namespace seam {

struct Error {
  std::string message;  // names what failed and why: "/usr/lib/x.so: not an ELF file"
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

 private:
  std::variant<T, Error> v_;
};

}  // namespace seam
