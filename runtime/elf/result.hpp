#pragma once
// A value or the reason there is none. Files seam reads at run time (ELF images, /proc entries)
// can be missing, truncated or not what their name says; that is an answer, not an exception.
#include <string>
#include <utility>
#include <variant>

namespace seam::runtime::elf {

struct Error {
  std::string message;  // names the file and the reason: "/usr/lib/x.so: not an ELF file"
};

template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit on purpose, like std::expected
  Result(Error error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const std::string& error() const { return std::get<1>(v_).message; }

 private:
  std::variant<T, Error> v_;
};

}  // namespace seam::runtime::elf
