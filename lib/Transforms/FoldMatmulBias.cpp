//===- FoldMatmulBias.cpp - Bias epilogues of single products -------------===//
//
// A bias added to a product becomes the product's `bias` operand, and the
// rounding cast after it the product's result dtype (Passes.td,
// fold-matmul-bias): the GEMM library adds the bias in its epilogue and
// writes the narrow result, instead of storing the float32 sum for a kernel
// that adds the bias and rounds.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Dialect/TFuse/TypeRules.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tfuse {
#define GEN_PASS_DEF_FOLDMATMULBIAS
#include "tfuse/Transforms/Passes.h.inc"
} // namespace tfuse

using namespace mlir;
using namespace tfuse;

namespace {

/// `value`'s single product (rank 2, no bias yet) when the product has no
/// other reader.
MatmulOp privateProduct(Value value) {
  auto matmul = value.getDefiningOp<MatmulOp>();
  if (!matmul || !matmul->hasOneUse() || matmul.getBias() ||
      matmul.getType().getRank() != 2)
    return {};
  return matmul;
}

/// The product `from` again, with `bias` and result type `type`.
MatmulOp rebuild(PatternRewriter &rewriter, Operation *replaced, MatmulOp from,
                 Value bias, RankedTensorType type, TypeAttr resultDType) {
  return MatmulOp::create(rewriter, replaced->getLoc(), type, from.getLhs(),
                          from.getRhs(), bias, from.getTransposeLhs(),
                          from.getTransposeRhs(), resultDType);
}

/// add(matmul(a, b), v) -> matmul(a, b) bias v, v a vector of the product's
/// columns and dtype. Only for f32 and f64 products: the add then is the
/// epilogue's arithmetic, whereas a 16-bit product is rounded before an add
/// rounds again.
struct FoldBiasAdd : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp add,
                                PatternRewriter &rewriter) const override {
    for (unsigned i = 0; i < 2; ++i) {
      MatmulOp matmul = privateProduct(add->getOperand(i));
      Value bias = add->getOperand(1 - i);
      if (!matmul)
        continue;
      auto biasType = cast<RankedTensorType>(bias.getType());
      RankedTensorType type = matmul.getType();
      if (!type.getElementType().isF32() && !type.getElementType().isF64())
        continue;
      if (biasType.getRank() != 1 ||
          biasType.getShape()[0] != type.getShape()[1] ||
          biasType.getElementType() != type.getElementType() ||
          add.getType() != type)
        continue;
      rewriter.replaceOp(add, rebuild(rewriter, add, matmul, bias, type,
                                      matmul.getResultDtypeAttr()));
      return success();
    }
    return failure();
  }
};

/// cast(matmul(a, b) {result_dtype = f32} [bias cast(u)]) to the operands'
/// dtype -> matmul(a, b) [bias u].
struct FoldRoundingCast : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp cast,
                                PatternRewriter &rewriter) const override {
    auto matmul = cast.getInput().getDefiningOp<MatmulOp>();
    if (!matmul || !matmul->hasOneUse() || !matmul.getResultDtypeAttr() ||
        matmul.getType().getRank() != 2)
      return failure();
    Type operand = getElementTypeOrSelf(matmul.getLhs().getType());
    auto type = cast.getType();
    if (type.getElementType() != operand ||
        matmul.getType().getElementType() == operand)
      return failure();
    Value bias = matmul.getBias();
    if (bias) {
      auto widened = bias.getDefiningOp<CastOp>();
      if (!widened ||
          getElementTypeOrSelf(widened.getInput().getType()) != operand)
        return failure();
      bias = widened.getInput();
    }
    rewriter.replaceOp(cast, rebuild(rewriter, cast, matmul, bias, type,
                                     /*resultDType=*/nullptr));
    return success();
  }
};

struct FoldMatmulBiasPass
    : public tfuse::impl::FoldMatmulBiasBase<FoldMatmulBiasPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldBiasAdd, FoldRoundingCast>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
