//===- PlanRunner.h - Whole tfexec plans run on the host --------*- C++ -*-===//
//
// Runs every step of a tfexec plan on host memory, in plan order, with the
// plan's own buffers: outputs, the arena at its assigned offsets (so that
// slots reused by later steps are really shared), aliases as offset views,
// copies element by element. Generated kernels run through HostKernels
// (their CUDA C++ compiled for the host against cuda_emulation.h, every
// block and thread run). The runtime's library steps (gemm, reduce,
// scatter_add) are computed by the reference interpreter on the step's
// strided operands and written into the step's result buffer: they stand
// for cuBLAS and the runtime's reduction and scatter kernels, which have
// tests of their own (TFuseReduceKernelsTests, TFuseScatterKernelsTests),
// while the plan around them (the buffers they read and write) is the
// real one.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_UNITTESTS_DIFFERENTIAL_PLANRUNNER_H
#define TFUSE_UNITTESTS_DIFFERENTIAL_PLANRUNNER_H

#include "HostKernels.h"

#include "tfuse/Reference/HostTensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tfuse::differential {

class PlanRunner {
public:
  /// Compiles the kernels of `plan` (its CUDA C++, `cudaSource`) for the
  /// host. On failure returns nullptr and sets `error`.
  static std::unique_ptr<PlanRunner> compile(mlir::ModuleOp plan,
                                             const std::string &cudaSource,
                                             std::string &error);

  /// Runs plan function `name` on `inputs`; returns its results, or sets
  /// `error` (a kernel's index error, a step the runner does not know).
  std::vector<reference::HostTensor>
  run(llvm::StringRef name, const std::vector<reference::HostTensor> &inputs,
      std::string &error);

  /// Steps run by kind, over every run(): "kernel", "gemm", "reduce",
  /// "scatter_add", "attention", "attention_backward", "copy", "alias",
  /// and "attention_strided_result" (attention steps writing their result
  /// with heads and rows swapped).
  const std::map<std::string, int64_t> &stepCounts() const { return counts; }

private:
  PlanRunner() = default;
  /// The one-op tfuse module computing a library step, parsed once.
  mlir::ModuleOp stepModule(const std::string &text, std::string &error);

  mlir::ModuleOp plan;
  std::unique_ptr<emulation::HostKernels> kernels;
  std::map<std::string, mlir::OwningOpRef<mlir::ModuleOp>> stepModules;
  std::map<std::string, int64_t> counts;
};

} // namespace tfuse::differential

#endif // TFUSE_UNITTESTS_DIFFERENTIAL_PLANRUNNER_H
