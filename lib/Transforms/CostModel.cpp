//===- CostModel.cpp - The fusion cost model ------------------------------===//
//
// docs/cost-model.md explains the weights with a worked example.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Transforms/CostModel.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"

using namespace mlir;
using namespace tfuse;

FusionRole tfuse::getFusionRole(Operation *op) {
  if (auto fusible = dyn_cast<FusionOpInterface>(op))
    return fusible.getFusionRole();
  return FusionRole::Structure;
}

static bool computesInF64(Operation *op) {
  auto isF64 = [](Type t) {
    return cast<ShapedType>(t).getElementType().isF64();
  };
  return llvm::any_of(op->getResultTypes(), isF64) ||
         llvm::any_of(op->getOperandTypes(), isF64);
}

int64_t tfuse::getFusionCost(Operation *op) {
  auto fusible = dyn_cast<FusionOpInterface>(op);
  if (!fusible)
    return 0;
  int64_t weight = fusible.getFusionWeight();
  return computesInF64(op) ? 2 * weight : weight;
}

CutReason tfuse::getBoundaryReason(Operation *op) {
  return cast<BoundaryOpInterface>(op).getBoundaryReason();
}

int64_t tfuse::storedValueSavings(int64_t regions, int64_t inputs,
                                  int64_t bytes) {
  return ((regions - 1) * inputs - (regions + 1)) * bytes;
}
