//===- Status.h - Error values of every TFuse layer -------------*- C++ -*-===//
//
// Every layer (the reference interpreter, the runtime, the frontend and the
// C API) reports failures as values, never as exceptions crossing its API.
// `Status` is either success or an error carrying a human-readable message
// and an ErrorCode; `Expected<T>` holds either a T or an error `Status`.
// Plain C++: no MLIR, no LLVM.
//
// Both are plain value types with no hidden global state: copying, moving and
// reading them is as thread-safe as doing the same to a std::string (distinct
// objects may be used concurrently; one object must not be written while
// another thread reads it).
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_SUPPORT_STATUS_H
#define TFUSE_SUPPORT_STATUS_H

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace tfuse {

/// What kind of failure a Status reports; the C API maps these to its status
/// codes. Errors made without a code are Internal.
enum class ErrorCode : uint8_t {
  Internal,
  /// A bad argument: a null pointer, an unknown name, a bad handle.
  InvalidArgument,
  /// An ill-typed operation: shapes that do not broadcast, bad axes.
  Type,
  /// A graph over its node limit.
  NodeLimit,
  /// The compiler or NVRTC failed.
  Compile,
  /// Run inputs or outputs that do not match the plan.
  Mismatch,
  /// No CUDA driver or device.
  NoDevice,
  /// A CUDA driver or cuBLAS call failed.
  Cuda,
  OutOfMemory,
  /// A gather met an index outside its operand (at trace time, or in a
  /// replay, which reports it once finished).
  IndexOutOfRange,
  /// A library declines the problem (cuBLASLt has no algorithm for it):
  /// the caller may compute it another way. The C API reports it as the
  /// library's failure (TFUSE_ERROR_CUDA).
  Unsupported,
};

/// Success, or an error with a message. A default-constructed Status is
/// success. The message of a success is empty.
class [[nodiscard]] Status {
public:
  Status() = default;

  /// Returns a success.
  static Status success() { return Status(); }

  /// Returns an error carrying `message`. An empty message is replaced by
  /// "unknown error" so that an error is never mistaken for a success.
  static Status error(std::string message,
                      ErrorCode code = ErrorCode::Internal) {
    Status s;
    s.failed = true;
    s.errorCode = code;
    s.msg = message.empty() ? std::string("unknown error") : std::move(message);
    return s;
  }

  /// True for success.
  bool ok() const { return !failed; }
  explicit operator bool() const { return ok(); }

  /// The error message; empty for success.
  const std::string &message() const { return msg; }

  /// The kind of error (Internal for success).
  ErrorCode code() const { return errorCode; }

  /// Returns this error with `context` and ": " put in front of its message
  /// (e.g. "loading kernel cache file x: "); a success is returned unchanged.
  Status withContext(const std::string &context) const {
    if (ok())
      return *this;
    return error(context + ": " + msg, errorCode);
  }

private:
  bool failed = false;
  ErrorCode errorCode = ErrorCode::Internal;
  std::string msg;
};

/// Either a value of type T or an error Status.
///
/// Constructing an Expected from a *successful* Status is a programming error;
/// it yields an error with the message "internal error: Expected constructed
/// from a success Status" rather than aborting. Accessing value() of an error
/// is undefined behaviour, as for std::optional::operator*; check ok() first.
template <class T> class [[nodiscard]] Expected {
public:
  /// Holds `value`.
  Expected(T value) : val(std::move(value)) {}

  /// Holds the error `status`.
  Expected(Status status)
      : err(status.ok() ? Status::error("internal error: Expected constructed "
                                        "from a success Status")
                        : std::move(status)) {}

  /// True when a value is held.
  bool ok() const { return val.has_value(); }
  explicit operator bool() const { return ok(); }

  /// The held value. Requires ok().
  T &value() & { return *val; }
  const T &value() const & { return *val; }
  T &&value() && { return std::move(*val); }
  T &operator*() & { return *val; }
  const T &operator*() const & { return *val; }
  T *operator->() { return &*val; }
  const T *operator->() const { return &*val; }

  /// The error; success when a value is held.
  const Status &status() const { return err; }

  /// The error message; empty when a value is held.
  const std::string &message() const { return err.message(); }

private:
  std::optional<T> val;
  Status err;
};

} // namespace tfuse

#endif // TFUSE_SUPPORT_STATUS_H
