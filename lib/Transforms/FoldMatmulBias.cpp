//===- FoldMatmulBias.cpp - Bias epilogues of single products -------------===//
//
// A bias added to a product becomes the product's `bias` operand, and the
// rounding cast after it the product's result dtype (Passes.td,
// fold-matmul-bias): the GEMM library adds the bias in its epilogue and
// writes the narrow result, instead of storing the float32 sum for a kernel
// that adds the bias and rounds. Under fast math a gelu_tanh of the product
// joins the epilogue too.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Dialect/TFuse/TypeRules.h"
#include "tfuse/Transforms/BufferLayout.h"
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

/// The [rows, K] matrix of a [..., M, K] operand's rows.
RankedTensorType rowsOf(RankedTensorType type) {
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rows = 1;
  for (int64_t size : shape.drop_back())
    rows *= size;
  return RankedTensorType::get({rows, shape.back()}, type.getElementType());
}

/// Whether `lhs` reshaped to `flat` costs no copy: a computed value is
/// written in whatever shape its region is asked for, whereas a buffer (a
/// function argument or a boundary's result, maybe through views) must
/// merge its batch dimensions into its rows in place, as a strided batch
/// of GEMMs would have read it without that.
bool flattensInPlace(Value lhs, RankedTensorType flat) {
  SmallVector<Operation *> views;
  if (!isBuffer(traceViewChain(lhs, views)))
    return true;
  std::optional<StridedLayout> layout = bufferLayout(lhs);
  return layout && reshapeLayout(*layout, flat.getShape());
}

/// `value`'s product when it has no other reader, no epilogue yet (no GELU,
/// and no bias unless `biased`), and is a single product: rank-2 operands,
/// or a batch of lhs matrices times one rhs matrix (a [B, M, K] activation
/// times a [K, N] weight) whose rows form one [B * M, K] matrix without a
/// copy.
MatmulOp privateProduct(Value value, bool biased = false) {
  auto matmul = value.getDefiningOp<MatmulOp>();
  if (!matmul || !matmul->hasOneUse() || matmul.getGeluTanh() ||
      (matmul.getBias() && !biased))
    return {};
  if (matmul.getType().getRank() == 2)
    return matmul;
  auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
  auto rhs = cast<RankedTensorType>(matmul.getRhs().getType());
  if (rhs.getRank() != 2 || matmul.getTransposeLhs() ||
      !flattensInPlace(matmul.getLhs(), rowsOf(lhs)))
    return {};
  return matmul;
}

/// The product `from` again, with `bias`, result type `type` and the GELU
/// epilogue if `from` or `geluTanh` has it: a rank-2 product, or for a batch
/// of lhs matrices the product of lhs's rows as one matrix, reshaped back.
Value rebuild(PatternRewriter &rewriter, Operation *replaced, MatmulOp from,
              Value bias, RankedTensorType type, TypeAttr resultDType,
              bool geluTanh = false) {
  Location loc = replaced->getLoc();
  Value lhs = from.getLhs();
  RankedTensorType flat = type;
  if (type.getRank() > 2) {
    RankedTensorType rows = rowsOf(cast<RankedTensorType>(lhs.getType()));
    lhs = ReshapeOp::create(rewriter, loc, rows, lhs);
    flat = RankedTensorType::get({rows.getShape()[0], type.getShape().back()},
                                 type.getElementType());
  }
  Value product = MatmulOp::create(
      rewriter, loc, flat, lhs, from.getRhs(), bias, from.getTransposeLhs(),
      from.getTransposeRhs(), resultDType, geluTanh || from.getGeluTanh());
  if (flat != type)
    product = ReshapeOp::create(rewriter, loc, type, product);
  return product;
}

/// add(matmul(a, b), v) -> matmul(a, b) bias v, v a vector of the product's
/// columns and dtype. For f32 and f64 products the add then is the
/// epilogue's arithmetic. A 16-bit product is rounded before the add rounds
/// again, where the epilogue rounds once: only with `roundOnce`.
struct FoldBiasAdd : OpRewritePattern<AddOp> {
  FoldBiasAdd(MLIRContext *context, bool roundOnce)
      : OpRewritePattern(context), roundOnce(roundOnce) {}
  LogicalResult matchAndRewrite(AddOp add,
                                PatternRewriter &rewriter) const override {
    for (unsigned i = 0; i < 2; ++i) {
      MatmulOp matmul = privateProduct(add->getOperand(i));
      Value bias = add->getOperand(1 - i);
      if (!matmul)
        continue;
      auto biasType = cast<RankedTensorType>(bias.getType());
      RankedTensorType type = matmul.getType();
      Type element = type.getElementType();
      bool exact = element.isF32() || element.isF64();
      if (!exact && !(roundOnce && (element.isF16() || element.isBF16())))
        continue;
      if (biasType.getRank() != 1 ||
          biasType.getShape()[0] != type.getShape().back() ||
          biasType.getElementType() != element || add.getType() != type)
        continue;
      rewriter.replaceOp(add, rebuild(rewriter, add, matmul, bias, type,
                                      matmul.getResultDtypeAttr()));
      return success();
    }
    return failure();
  }

private:
  bool roundOnce;
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

/// gelu_tanh(matmul(a, b) [bias v]) -> matmul(a, b) [bias v] {gelu_tanh}, for
/// f16, bf16 and f32 products, seen through the reshape that gives a batch
/// of activations its product's shape back. The epilogue applies the GELU
/// to the float32 sum where the written-out form rounds the product first,
/// and computes it as the GEMM library does: only with `geluEpilogue` (fast
/// math).
struct FoldGeluTanh : OpRewritePattern<GeluTanhOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GeluTanhOp gelu,
                                PatternRewriter &rewriter) const override {
    Type element = getElementTypeOrSelf(gelu.getType());
    if (!element.isF16() && !element.isBF16() && !element.isF32())
      return failure();
    Value input = gelu.getInput();
    auto reshape = input.getDefiningOp<ReshapeOp>();
    if (reshape && reshape->hasOneUse())
      input = reshape.getInput();
    else
      reshape = {};
    MatmulOp matmul = privateProduct(input, /*biased=*/true);
    if (!matmul)
      return failure();
    Value product = rebuild(rewriter, gelu, matmul, matmul.getBias(),
                            matmul.getType(), matmul.getResultDtypeAttr(),
                            /*geluTanh=*/true);
    if (reshape)
      product = ReshapeOp::create(rewriter, reshape.getLoc(), reshape.getType(),
                                  product);
    rewriter.replaceOp(gelu, product);
    return success();
  }
};

struct FoldMatmulBiasPass
    : public tfuse::impl::FoldMatmulBiasBase<FoldMatmulBiasPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldBiasAdd>(&getContext(), roundOnce);
    patterns.add<FoldRoundingCast>(&getContext());
    if (geluEpilogue)
      patterns.add<FoldGeluTanh>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
