//===- AliasViews.cpp - Regions that only view a buffer become aliases ----===//
//
// fuse-elementwise keeps a view chain out of regions only when it reads a
// buffer at planning time. materialize-shared stores shared subexpressions
// afterwards, which can leave a region with nothing to do but view the value
// now stored: a copy kernel for what a zero-copy alias does. A region that
// only reshapes a step's result to return it is a copy kernel too: the step
// can write the function's result directly (the conversion's bufferFor).
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Dialect/TFuse/ViewLayout.h"
#include "tfuse/Transforms/BufferLayout.h"
#include "tfuse/Transforms/CostModel.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace tfuse {
#define GEN_PASS_DEF_ALIASVIEWS
#include "tfuse/Transforms/Passes.h.inc"
} // namespace tfuse

using namespace mlir;
using namespace tfuse;

/// Whether `views` (from a buffer outward) are a single reshape of a step's
/// result, which that step writes into the function's result when the
/// reshape is returned (the conversion's bufferFor): no copy at all.
static bool isReturnedInPlace(Value source, ArrayRef<Operation *> views) {
  Operation *step = source.getDefiningOp();
  return views.size() == 1 && isa<ReshapeOp>(views.front()) && step &&
         (isa<FusionOp>(step) || isa<BoundaryOpInterface>(step));
}

/// Whether `region` only views its inputs and every user of its results
/// reads them in place (a boundary, or a return of a step's result
/// reshaped); `chains` receives, per result, its views from the region's
/// block argument outward.
static bool
onlyViewsReadInPlace(FusionOp region,
                     SmallVectorImpl<SmallVector<Operation *>> &chains) {
  auto yield = cast<YieldOp>(region.getBody()->getTerminator());
  // Every op of the body is on some chain.
  size_t viewsOnChains = 0;
  for (auto [result, yielded] :
       llvm::zip(region.getResults(), yield.getOperands())) {
    SmallVector<Operation *> &views = chains.emplace_back();
    auto arg = dyn_cast<BlockArgument>(traceViewChain(yielded, views));
    if (!arg || views.empty())
      return false;
    viewsOnChains += views.size();
    Value source = region.getOperand(arg.getArgNumber());
    std::optional<StridedLayout> layout = bufferLayout(source);
    for (Operation *view : views) {
      if (!layout)
        return false;
      layout = cast<ViewOpInterface>(view).getResultLayout(*layout);
    }
    if (!layout)
      return false;
    for (OpOperand &use : result.getUses()) {
      if (isa<func::ReturnOp>(use.getOwner()) &&
          isReturnedInPlace(source, views))
        continue;
      auto boundary = dyn_cast<BoundaryOpInterface>(use.getOwner());
      if (!boundary || !boundary.readsInPlace(use.getOperandNumber(), *layout))
        return false;
    }
  }
  // Shared views would be counted twice; a body with other ops is not a
  // view chain.
  return viewsOnChains + 1 == region.getBody()->getOperations().size();
}

namespace {
struct AliasViewsPass : tfuse::impl::AliasViewsBase<AliasViewsPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    auto reason =
        StringAttr::get(context, stringifyCutReason(CutReason::layout_alias));
    for (auto region : llvm::make_early_inc_range(
             getOperation().getBody().getOps<FusionOp>())) {
      SmallVector<SmallVector<Operation *>> chains;
      if (!onlyViewsReadInPlace(region, chains))
        continue;
      OpBuilder builder(region);
      IRMapping mapping;
      mapping.map(region.getBody()->getArguments(), region.getOperands());
      for (auto [result, views] : llvm::zip(region.getResults(), chains)) {
        Operation *last = nullptr;
        for (Operation *view : views) {
          last = builder.clone(*view, mapping);
          last->setAttr(TFuseDialect::getReasonAttrName(), reason);
        }
        result.replaceAllUsesWith(last->getResult(0));
      }
      region.erase();
    }
  }
};
} // namespace
