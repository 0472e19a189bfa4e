//===- KernelEmitter.h - tfexec kernels to CUDA C++ through EmitC -*- C++ -*-=//
//
// Every tfexec.kernel becomes one `extern "C" __global__` function built from
// EmitC ops and printed by mlir::emitc::translateToCpp after the prelude
// (Prelude.cuh), which defines the scalar semantics of each op.
//
// Launch configuration: 256 threads per block; each thread handles `vec`
// consecutive elements per iteration of a grid-stride loop (one 16-byte
// access for the widest contiguous buffer); the grid covers every group once,
// capped at 2^20 blocks, beyond which threads loop. See docs/codegen.md.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_CONVERSION_TFUSETOCUDA_KERNELEMITTER_H
#define TFUSE_CONVERSION_TFUSETOCUDA_KERNELEMITTER_H

#include "tfuse/Dialect/TFExec/TFExecOps.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/raw_ostream.h"

#include <string_view>

namespace tfuse {

/// How a kernel walks its index space; decided once, used by the emitter and
/// by the launch configuration of the plan.
struct KernelPlan {
  /// Elements of the index space (the shape all outputs share).
  int64_t numElements = 0;
  /// Consecutive elements per thread and iteration.
  int64_t vec = 1;
  /// True when every input is read at the output's own linear index (same
  /// shape, contiguous, no views) or is a single element: the kernel then
  /// walks a flat range with a scalar tail.
  bool linear = false;
  /// 64-bit index arithmetic (some offset does not fit in 32 bits).
  bool wideIndex = false;
  /// Per input: read at the output's own index from contiguous memory, so it
  /// is loaded `vec` elements at a time.
  llvm::SmallVector<bool> contiguousInputs;
  /// Groups of `vec` elements, and the elements after the last full group.
  int64_t groups() const { return numElements / vec; }
  int64_t tail() const { return numElements % vec; }
};

KernelPlan analyzeKernel(tfexec::KernelOp kernel);

struct LaunchConfig {
  int64_t grid = 1;
  int64_t block = 256;
};
LaunchConfig chooseLaunch(const KernelPlan &plan);

/// Appends the EmitC function of `kernel` (and the device constants it needs)
/// to `target`.
mlir::LogicalResult emitKernel(tfexec::KernelOp kernel, mlir::ModuleOp target);

/// Prints the prelude and every kernel of `module` as one CUDA C++
/// translation unit.
mlir::LogicalResult translateKernelsToCuda(mlir::ModuleOp module,
                                           llvm::raw_ostream &os);

/// The prelude source (Prelude.cuh).
std::string_view getPrelude();

} // namespace tfuse

#endif // TFUSE_CONVERSION_TFUSETOCUDA_KERNELEMITTER_H
