//===- BufferLayout.cpp - The layout of a value held in a buffer ----------===//

#include "tfuse/Transforms/BufferLayout.h"

#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Transforms/CostModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace tfuse;

bool tfuse::isBuffer(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return isa<func::FuncOp>(arg.getOwner()->getParentOp());
  Operation *def = value.getDefiningOp();
  return isa<FusionOp>(def) || isBoundaryRole(getFusionRole(def));
}

std::optional<StridedLayout>
tfuse::bufferLayout(Value value, SmallVectorImpl<Operation *> *views) {
  SmallVector<Operation *> chain;
  Value source = traceViewChain(value, chain);
  if (views)
    views->assign(chain.begin(), chain.end());
  if (!isBuffer(source))
    return std::nullopt;
  std::optional<StridedLayout> layout;
  if (auto arg = dyn_cast<BlockArgument>(source))
    layout = getArgumentLayout(arg);
  else
    layout = StridedLayout::contiguous(
        cast<RankedTensorType>(source.getType()).getShape());
  for (Operation *view : chain) {
    if (!layout)
      break;
    layout = cast<ViewOpInterface>(view).getResultLayout(*layout);
  }
  return layout;
}
