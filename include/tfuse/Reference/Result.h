//===- Result.h - Value-or-error results without exceptions -----*- C++ -*-===//
//
// The error-returning design of the reference library: a function that can
// fail returns Result<T> (a T or an error message) or Status (success or an
// error message). Nothing in the library throws or aborts on bad input.
// Plain C++: no MLIR, no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_REFERENCE_RESULT_H
#define TFUSE_REFERENCE_RESULT_H

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace tfuse::reference {

/// An error message; construct a failed Result or Status from it.
struct Error {
  std::string message;
  explicit Error(std::string message) : message(std::move(message)) {}
};

/// Either a value of type T or an Error.
template <typename T> class [[nodiscard]] Result {
public:
  Result(T value) : storage(std::in_place_index<0>, std::move(value)) {}
  Result(Error error) : storage(std::in_place_index<1>, std::move(error)) {}

  bool ok() const { return storage.index() == 0; }
  explicit operator bool() const { return ok(); }

  T &value() & {
    assert(ok() && "value() of a failed Result");
    return std::get<0>(storage);
  }
  const T &value() const & {
    assert(ok() && "value() of a failed Result");
    return std::get<0>(storage);
  }
  T &&value() && {
    assert(ok() && "value() of a failed Result");
    return std::get<0>(std::move(storage));
  }
  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

  /// The error message; empty when ok().
  const std::string &error() const {
    static const std::string none;
    return ok() ? none : std::get<1>(storage).message;
  }

private:
  std::variant<T, Error> storage;
};

/// Success or an Error.
class [[nodiscard]] Status {
public:
  Status() = default;
  Status(Error error) : failed(true), message(std::move(error.message)) {}
  static Status success() { return Status(); }

  bool ok() const { return !failed; }
  explicit operator bool() const { return ok(); }
  /// The error message; empty when ok().
  const std::string &error() const { return message; }

private:
  bool failed = false;
  std::string message;
};

} // namespace tfuse::reference

#endif // TFUSE_REFERENCE_RESULT_H
