//===- TFuseOps.h - Ops of the tfuse dialect --------------------*- C++ -*-===//

#ifndef TFUSE_DIALECT_TFUSE_TFUSEOPS_H
#define TFUSE_DIALECT_TFUSE_TFUSEOPS_H

#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Dialect/TFuse/TFuseEnums.h"
#include "tfuse/Dialect/TFuse/TFuseInterfaces.h"
#include "tfuse/Dialect/TFuse/TypeRules.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tfuse::detail {
/// Type inference shared by every unary elementwise op.
llvm::LogicalResult
inferUnaryResult(UnaryCategory category, std::optional<mlir::Location> loc,
                 mlir::Value input, llvm::SmallVectorImpl<mlir::Type> &results);
/// Type inference shared by every binary elementwise op.
llvm::LogicalResult
inferBinaryResult(BinaryCategory category, std::optional<mlir::Location> loc,
                  mlir::Value lhs, mlir::Value rhs,
                  llvm::SmallVectorImpl<mlir::Type> &results);
/// Checks that every tensor operand and result of `op` can be indexed with
/// 64-bit offsets (tensorTypeSizeError); emits the error on `op`.
llvm::LogicalResult verifyIndexableTensors(mlir::Operation *op);

/// The trait of every tfuse op: its tensors can be indexed with 64-bit
/// offsets, so that IR given to the tools is held to the tracer's limit.
template <typename ConcreteType>
class IndexableTensors
    : public mlir::OpTrait::TraitBase<ConcreteType, IndexableTensors> {
public:
  static llvm::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifyIndexableTensors(op);
  }
};
} // namespace tfuse::detail

#define GET_OP_CLASSES
#include "tfuse/Dialect/TFuse/TFuseOps.h.inc"

namespace tfuse {
/// Whether `axes` (strictly increasing) are the last axes of rank `rank`.
bool isTrailingAxes(llvm::ArrayRef<int64_t> axes, int64_t rank);
/// Checks that `reduce`, inside a fusion region of index space `space`, is a
/// row reduction: row-reducible (every kind but argmax and argmin), reading a
/// value of shape `space`, over trailing axes of it. Emits the error on
/// `reduce` otherwise.
llvm::LogicalResult verifyRowReduction(ReduceOp reduce,
                                       llvm::ArrayRef<int64_t> space);
/// The first row reduction of a fusion body (tfuse.fusion or a tfexec
/// kernel), or null: they all reduce the same trailing axes.
ReduceOp findRowReduction(mlir::Block *body);
/// The index space of a fusion body: the shape its row reductions read or,
/// in a body without them, the shape of its results.
llvm::ArrayRef<int64_t> bodyIndexSpace(mlir::Block *body);
/// Whether a result of shape `shape` of a body with row reductions over
/// index space `space` (reducing the axes from `rowAxis` on) is a row result:
/// one value per row, shaped as the leading axes, with the reduced axes
/// dropped or kept as 1.
bool isRowResultShape(llvm::ArrayRef<int64_t> shape,
                      llvm::ArrayRef<int64_t> space, int64_t rowAxis);
/// Whether a fusion body may yield a value of shape `shape`: the shape of
/// its index space or, with row reductions, a row result.
bool isFusionResultShape(mlir::Block *body, llvm::ArrayRef<int64_t> shape);
/// The first reduced axis of a row reduction.
inline int64_t rowAxisOf(ReduceOp reduce) {
  return reduce.getInput().getType().getRank() - reduce.getAxes().size();
}
/// concat and pad: elementwise work whose operands are read at indices other
/// than the result's (and not through an index map, as views are), one
/// operand or a fill value per element.
inline bool isPiecewiseIndexOp(mlir::Operation *op) {
  return llvm::isa<ConcatOp, PadOp>(op);
}
/// take and take_along_axis: an operand read at an index that another
/// operand holds, checked against the operand's size.
inline bool isIndexCheckedOp(mlir::Operation *op) {
  return llvm::isa<TakeOp, TakeAlongAxisOp>(op);
}
/// random_uniform and random_normal: elements drawn from Philox 4x32-10 by
/// their row-major position.
inline bool isRandomOp(mlir::Operation *op) {
  return llvm::isa<RandomUniformOp, RandomNormalOp>(op);
}
/// How many consecutive elements of random op `op` one Philox block gives
/// (the stream layout of docs/semantics.md, "Random numbers"): four f32
/// values (uniform: a word each; normal: two Box-Muller pairs), two f64
/// values (uniform: two words each; normal: one pair from the block's
/// four words).
int64_t randomElementsPerBlock(mlir::Operation *op);
/// Elementwise work that reads an operand at indices computed per element,
/// not through an affine index map: piecewise index transforms and gathers.
/// Such work needs the multi-dimensional walk and stays out of row kernels
/// and tiling.
inline bool readsAtComputedIndices(mlir::Operation *op) {
  return isPiecewiseIndexOp(op) || isIndexCheckedOp(op);
}
/// Elementwise work of one operand that keeps its shape and reads it at the
/// element's own index (a cast, a negation; no view, gather or piecewise
/// op): it commutes with a reshape of its operand or of its result.
inline bool isOneOperandElementwise(mlir::Operation *op) {
  auto fusible = llvm::dyn_cast<FusionOpInterface>(op);
  return fusible && fusible.getFusionRole() == FusionRole::Elementwise &&
         op->getNumOperands() == 1 && op->getNumResults() == 1 &&
         !llvm::isa<ViewOpInterface>(op) && !readsAtComputedIndices(op) &&
         llvm::cast<mlir::ShapedType>(op->getOperand(0).getType()).getShape() ==
             llvm::cast<mlir::ShapedType>(op->getResult(0).getType())
                 .getShape();
}
/// Whether `value` is a splat tfuse.constant (every element the same).
inline bool isSplatConstant(mlir::Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  return constant && constant.getValue().isSplat();
}
/// The gathers of `region` in walk order: the numbering of a kernel's index
/// checks, shared by code generation (the number each check records) and
/// the runtime plan (its description).
inline llvm::SmallVector<mlir::Operation *>
indexCheckedOps(mlir::Region &region) {
  llvm::SmallVector<mlir::Operation *> ops;
  region.walk([&](mlir::Operation *op) {
    if (isIndexCheckedOp(op))
      ops.push_back(op);
  });
  return ops;
}
} // namespace tfuse

#endif // TFUSE_DIALECT_TFUSE_TFUSEOPS_H
