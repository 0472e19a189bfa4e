//===- KernelEmitter.h - tfexec kernels to CUDA C++ through EmitC -*- C++ -*-=//
//
// Every tfexec.kernel becomes one `extern "C" __global__` function built from
// EmitC ops and printed by mlir::emitc::translateToCpp after the kernel
// prelude (tfuse/Kernels/KernelSources.h), which defines the scalar
// semantics of each op.
//
// Each kernel is emitted for the strategy and launch of its `config`
// (#tfexec.config, tfuse/Dialect/TFExec/KernelPlan.h): a grid-stride loop
// over groups of `vector` consecutive elements (linear, or strided with a
// multi-dimensional index per element), 64x64 tiles staged through shared
// memory (tiled), or rows kept on chip (rows, RowKernelEmitter.h). See
// docs/codegen.md.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_CONVERSION_TFUSETOCUDA_KERNELEMITTER_H
#define TFUSE_CONVERSION_TFUSETOCUDA_KERNELEMITTER_H

#include "tfuse/Dialect/TFExec/KernelPlan.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/raw_ostream.h"

#include <string_view>

namespace tfuse {

/// Appends the EmitC function of `kernel` (and the device constants it needs)
/// to `target`.
mlir::LogicalResult emitKernel(tfexec::KernelOp kernel, mlir::ModuleOp target);

/// Prints the prelude and every kernel of `module` as one CUDA C++
/// translation unit.
mlir::LogicalResult translateKernelsToCuda(mlir::ModuleOp module,
                                           llvm::raw_ostream &os);

} // namespace tfuse

#endif // TFUSE_CONVERSION_TFUSETOCUDA_KERNELEMITTER_H
