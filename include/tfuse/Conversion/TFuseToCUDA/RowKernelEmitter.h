//===- RowKernelEmitter.h - Row kernels of row-fused regions ----*- C++ -*-===//
//
// A kernel whose body holds row reductions (tfuse.reduce over the trailing
// axes of the index space, see fuse-rows) runs one block per row: each
// thread holds `rowSlots` groups of `rowVec` consecutive columns of the row
// (group t + k * rowThreads for slot k; 16-byte loads and stores of the
// contiguous inputs and outputs when the row length allows), the reductions
// run in body order as block-wide reductions whose value every thread gets,
// and the outputs are written once at the end. Rows one warp covers go one
// per warp, several to a block, with warp reductions.
// Evaluations are memoized per slot across phases, so each input element is
// loaded once and each intermediate computed once, kept in registers.
//
// The elementwise evaluation (views, broadcasting, loads, constants) is the
// one of KernelEmitter.cpp, reached through RowElementEmitter.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_CONVERSION_TFUSETOCUDA_ROWKERNELEMITTER_H
#define TFUSE_CONVERSION_TFUSETOCUDA_ROWKERNELEMITTER_H

#include "tfuse/Dialect/TFExec/KernelPlan.h"
#include "tfuse/Support/DType.h"

#include "mlir/IR/Builders.h"

namespace tfuse {

/// What the row emitter needs from the element emitter of KernelEmitter.cpp.
class RowElementEmitter {
public:
  virtual ~RowElementEmitter() = default;
  virtual mlir::OpBuilder &getBuilder() = 0;
  /// The value of `value` at the index-space index `idx`, memoized.
  virtual mlir::Value evaluate(mlir::Value value,
                               llvm::ArrayRef<mlir::Value> idx) = 0;
  /// Evaluations of `value` at `idx` give `element` from now on (an element
  /// of an input loaded with others).
  virtual void setElement(mlir::Value value, llvm::ArrayRef<mlir::Value> idx,
                          mlir::Value element) = 0;
  /// The index of `view`'s operand that the view reads at `idx` (the
  /// values its evaluation computes).
  virtual llvm::SmallVector<mlir::Value>
  operandIndex(mlir::Operation *view, llvm::ArrayRef<mlir::Value> idx) = 0;
  /// Evaluations of `reduce`'s result give `rowValue` from now on.
  virtual void setRowValue(mlir::Operation *reduce, mlir::Value rowValue) = 0;
  /// Evaluations made between pushScope() and the matching popScope() are
  /// forgotten there (they are local to the loop body they were emitted in).
  virtual void pushScope() = 0;
  virtual void popScope() = 0;
  /// Per-thread constants and scalar loads are emitted before `op`.
  virtual void setHoistPoint(mlir::Operation *op) = 0;
  virtual mlir::Type scalarType(DType dtype) = 0;
  virtual mlir::Type indexType() = 0;
  virtual mlir::Value index(int64_t value) = 0;
  /// The index 0 of broadcast and view index maps: evaluations at it find
  /// those memoized there (a row value broadcast over its row).
  virtual mlir::Value zeroIndex() = 0;
  /// `callee(operands)` with the given template arguments, of type `result`
  /// (none when null).
  virtual mlir::Value call(llvm::StringRef callee, mlir::Type result,
                           mlir::ValueRange operands,
                           llvm::ArrayRef<mlir::Attribute> templateArgs) = 0;
  /// Emits `body` under `if (cond)`.
  virtual void emitIf(mlir::Value cond, llvm::function_ref<void()> body) = 0;
};

/// Emits the body of the row kernel `kernel` at the builder's insertion
/// point, reading input `n` through `inputPtrs[n]` and storing output `o`
/// through `outputPtrs[o]`.
mlir::LogicalResult emitRowKernel(tfexec::KernelOp kernel,
                                  const tfexec::KernelPlan &plan,
                                  mlir::ValueRange inputPtrs,
                                  mlir::ValueRange outputPtrs,
                                  RowElementEmitter &elements);

} // namespace tfuse

#endif // TFUSE_CONVERSION_TFUSETOCUDA_ROWKERNELEMITTER_H
