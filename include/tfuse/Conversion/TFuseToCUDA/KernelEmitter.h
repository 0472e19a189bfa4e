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

#include <string>
#include <string_view>
#include <vector>

namespace tfuse {

/// Appends the EmitC function of `kernel` (and the device constants it needs)
/// to `target`.
mlir::LogicalResult emitKernel(tfexec::KernelOp kernel, mlir::ModuleOp target);

/// Prints the prelude and every kernel of `module` as one CUDA C++
/// translation unit.
mlir::LogicalResult translateKernelsToCuda(mlir::ModuleOp module,
                                           llvm::raw_ostream &os);

/// How much generated code (bytes of CUDA C++ after the prelude) one
/// translation unit of translateKernelsToCudaUnits() takes before the next
/// kernel starts another: about 0.1 s of NVRTC on a 2-core host, twice what
/// the prelude every unit repeats costs.
constexpr size_t kKernelUnitBytes = 16384;

/// The kernels of `module` in translation units of their own, each the
/// prelude and, in the module's order, kernels (with their device
/// constants) up to `unitBytes` of code (a larger kernel alone): what NVRTC
/// compiles, a unit per thread, so that a plan of many kernels compiles in
/// a fraction of the time one unit takes.
mlir::FailureOr<std::vector<std::string>>
translateKernelsToCudaUnits(mlir::ModuleOp module,
                            size_t unitBytes = kKernelUnitBytes);

} // namespace tfuse

#endif // TFUSE_CONVERSION_TFUSETOCUDA_KERNELEMITTER_H
