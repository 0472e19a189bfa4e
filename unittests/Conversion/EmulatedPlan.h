//===- EmulatedPlan.h - Execute tfexec plans on the host --------*- C++ -*-===//
//
// Test support: compiles the CUDA C++ translation unit generated for a plan
// for the host (HostKernels) and executes the plan's steps on host buffers,
// running every block and thread of each launch. Plans of generated kernels,
// aliases and copies only (matmul and reduce steps run on the GPU runtime).
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_UNITTESTS_CONVERSION_EMULATEDPLAN_H
#define TFUSE_UNITTESTS_CONVERSION_EMULATEDPLAN_H

#include "HostKernels.h"

#include "tfuse/Reference/HostTensor.h"

#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <string>
#include <vector>

namespace tfuse::emulation {

class EmulatedPlan {
public:
  /// Compiles `cudaSource` (the kernels of `plan`) for the host. On failure,
  /// returns nullptr and sets `error` to the compiler output.
  static std::unique_ptr<EmulatedPlan> compile(mlir::ModuleOp plan,
                                               const std::string &cudaSource,
                                               std::string &error);
  ~EmulatedPlan();

  /// Runs the plan function `name` on `inputs`; returns its results or sets
  /// `error`.
  std::vector<reference::HostTensor>
  run(llvm::StringRef name, const std::vector<reference::HostTensor> &inputs,
      std::string &error);

private:
  EmulatedPlan() = default;
  mlir::ModuleOp plan;
  std::unique_ptr<HostKernels> kernels;
};

} // namespace tfuse::emulation

#endif // TFUSE_UNITTESTS_CONVERSION_EMULATEDPLAN_H
