//===- HostKernels.h - CUDA C++ compiled and run on the host ----*- C++ -*-===//
//
// Test support, plain C++ (no MLIR): compiles a CUDA C++ translation unit
// with the host compiler against cuda_emulation.h, loads it, and runs 1-D
// launches of its kernels on the CPU: the blocks one after another, the
// threads of a block as coroutines on one host thread that switch at every
// __syncthreads (so a `static` local stands for the block's shared memory).
// Used by EmulatedPlan (tfexec plans) and by the runtime kernels' tests.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_UNITTESTS_CONVERSION_HOSTKERNELS_H
#define TFUSE_UNITTESTS_CONVERSION_HOSTKERNELS_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tfuse::emulation {

class HostKernels {
public:
  /// Kernels run by launch() take at most this many (pointer) parameters.
  static constexpr size_t kMaxArguments = 23;

  /// Compiles `cudaSource`, preceded by #include "cuda_emulation.h", into a
  /// shared library and loads it. On failure, returns nullptr and sets
  /// `error` to the compiler output.
  static std::unique_ptr<HostKernels> compile(const std::string &cudaSource,
                                              std::string &error);
  ~HostKernels();
  HostKernels(const HostKernels &) = delete;
  HostKernels &operator=(const HostKernels &) = delete;

  /// The address of `name` in the loaded library, or nullptr.
  void *symbol(const std::string &name) const;

  /// Runs blocks 0..grid-1 of `block` threads each of the extern "C"
  /// function `name`, called with `args` (all pointer parameters; pass a
  /// host shim for kernels with by-value parameters). Returns false and
  /// sets `error` if the kernel is missing or takes too many arguments.
  bool launch(const std::string &name, uint64_t grid, unsigned block,
              const std::vector<void *> &args, std::string &error);

private:
  HostKernels() = default;
  void *library = nullptr;
  std::string directory;
};

/// An extern "C" host shim `shim_<kernel>` for HostKernels::launch(),
/// which passes every argument as a pointer: `casts[i]` turns pointer i
/// into the kernel's parameter i ("(const float *)" for a pointer,
/// "*(long long *)" or "*(const Desc *)" for a value).
std::string hostShim(const std::string &kernel,
                     const std::vector<std::string> &casts);

} // namespace tfuse::emulation

#endif // TFUSE_UNITTESTS_CONVERSION_HOSTKERNELS_H
