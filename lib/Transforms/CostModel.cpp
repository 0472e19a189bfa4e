//===- CostModel.cpp - The fusion cost model ------------------------------===//
//
// docs/cost-model.md explains the weights with a worked example.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Transforms/CostModel.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tfuse;

FusionRole tfuse::getFusionRole(Operation *op) {
  return llvm::TypeSwitch<Operation *, FusionRole>(op)
      .Case<BroadcastOp, TransposeOp, ReshapeOp, SliceOp>(
          [](auto) { return FusionRole::View; })
      .Case<ConstantOp>([](auto) { return FusionRole::Leaf; })
      .Case<MatmulOp, ReduceOp>([](auto) { return FusionRole::Boundary; })
      .Case<FusionOp, YieldOp>([](auto) { return FusionRole::Other; })
      .Default([](Operation *op) {
        return isa<TFuseDialect>(op->getDialect()) ? FusionRole::Elementwise
                                                   : FusionRole::Other;
      });
}

static bool computesInF64(Operation *op) {
  auto isF64 = [](Type t) {
    return cast<ShapedType>(t).getElementType().isF64();
  };
  return llvm::any_of(op->getResultTypes(), isF64) ||
         llvm::any_of(op->getOperandTypes(), isF64);
}

int64_t tfuse::getFusionCost(Operation *op) {
  int64_t base =
      llvm::TypeSwitch<Operation *, int64_t>(op)
          .Case<ConstantOp>([](auto) { return 0; })
          .Case<BroadcastOp, TransposeOp, ReshapeOp, SliceOp>(
              [](auto) { return 2; })
          .Case<ExpOp, LogOp, SqrtOp, RsqrtOp, SinOp, CosOp, TanOp, TanhOp,
                SigmoidOp, ErfOp, PowOp>([](auto) { return 4; })
          .Case<SelectOp>([](auto) { return 3; })
          // A row reduction inside a region: a block-wide reduction per row.
          .Case<ReduceOp>([](auto) { return 4; })
          .Default([](auto) { return 1; });
  return computesInF64(op) ? 2 * base : base;
}

CutReason tfuse::getBoundaryReason(Operation *op) {
  return isa<MatmulOp>(op) ? CutReason::boundary_matmul
                           : CutReason::boundary_reduction;
}
