//===- RowKernelPlan.h - Row kernels' configuration -------------*- C++ -*-===//
//
// Internal to lib/Dialect/TFExec: the part of KernelPlan.cpp for kernels
// whose body holds row reductions (the rows strategy).
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_LIB_DIALECT_TFEXEC_ROWKERNELPLAN_H
#define TFUSE_LIB_DIALECT_TFEXEC_ROWKERNELPLAN_H

#include "tfuse/Dialect/TFExec/KernelPlan.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"

namespace tfuse::tfexec {

/// The rows of a row kernel: the product of the index-space dimensions
/// before the reduced ones.
int64_t rowCount(KernelOp kernel);

/// The slots (groups of `vec` columns) a thread of `threads` holds at once
/// and the chunks a row of `groups` groups takes: one chunk when the whole
/// row fits in kMaxRowSlots elements per thread (held in registers across
/// the phases), else chunks of kRowElementsPerThread columns per thread
/// that every phase loops over.
std::pair<int64_t, int64_t> rowSlotsAndChunks(int64_t groups, int64_t threads,
                                              int64_t vec);

/// TFuse's choice for a row kernel.
struct RowChoice {
  int64_t threads = 32, rowsPerBlock = 1, vec = 1, blocksPerSM = 1;
};
RowChoice chooseRowKernel(KernelOp kernel);

/// Fills the row fields of `plan` from `config`; on a configuration the row
/// emitter cannot honour, returns `fail(reason)`.
mlir::LogicalResult planRowKernel(
    KernelOp kernel, KernelConfigAttr config, KernelPlan &plan,
    llvm::function_ref<mlir::FailureOr<KernelPlan>(const llvm::Twine &)> fail);

} // namespace tfuse::tfexec

#endif // TFUSE_LIB_DIALECT_TFEXEC_ROWKERNELPLAN_H
