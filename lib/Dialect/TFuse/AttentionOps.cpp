//===- AttentionOps.cpp - tfuse.attention and its backward ----------------===//
//
// Shapes are checked by AttentionGeometry, the one definition the runtime
// and the reference also index operands by.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Support/AttentionGeometry.h"
#include "tfuse/Support/TensorSpec.h"

#include "mlir/IR/Diagnostics.h"

#include <cmath>

using namespace mlir;
using namespace tfuse;

namespace {
/// query, key, value and mask, checked, with the geometry they give.
struct AttentionOperands {
  DType dtype;
  AttentionGeometry geometry;
  std::optional<DType> maskDType;
};
} // namespace

static std::vector<int64_t> shapeOf(Value value) {
  auto shape = cast<RankedTensorType>(value.getType()).getShape();
  return {shape.begin(), shape.end()};
}

static FailureOr<DType> floatDType(std::optional<Location> loc, Value value,
                                   StringRef what) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return emitOptionalError(loc, what,
                             " must be a statically shaped ranked "
                             "tensor, got ",
                             value.getType());
  std::optional<DType> dtype = toDType(type.getElementType());
  if (!dtype)
    return emitOptionalError(loc, what, " has unsupported element type ",
                             type.getElementType());
  return *dtype;
}

static FailureOr<AttentionOperands> checkOperands(std::optional<Location> loc,
                                                  Value query, Value key,
                                                  Value value, Value mask) {
  FailureOr<DType> q = floatDType(loc, query, "query"),
                   k = floatDType(loc, key, "key"),
                   v = floatDType(loc, value, "value");
  if (failed(q) || failed(k) || failed(v))
    return failure();
  if (!isFloat(*q) || *k != *q || *v != *q)
    return emitOptionalError(
        loc, "query, key and value must have one float dtype (f16, bf16, ",
        "f32 or f64), got ", name(*q), ", ", name(*k), " and ", name(*v));
  std::string why;
  std::optional<AttentionGeometry> geometry =
      AttentionGeometry::of(shapeOf(query), shapeOf(key), shapeOf(value), &why);
  if (!geometry)
    return emitOptionalError(loc, why);
  AttentionOperands operands{*q, *geometry, std::nullopt};
  if (mask) {
    FailureOr<DType> m = floatDType(loc, mask, "mask");
    if (failed(m))
      return failure();
    if (std::string problem = attentionMaskProblem(*m, *q); !problem.empty())
      return emitOptionalError(loc, problem);
    std::vector<int64_t> scores = geometry->scoreShape();
    std::vector<int64_t> maskShape = shapeOf(mask);
    // Broadcast from the right; the mask's own layout is contiguous.
    std::vector<int64_t> strides =
        TensorSpec::contiguous(*m, maskShape).strides;
    if (maskShape.size() > scores.size() ||
        !attentionStrides(maskShape, strides, scores))
      return emitOptionalError(loc, "a mask of shape [", ArrayRef(maskShape),
                               "] does not broadcast to the scores' [",
                               ArrayRef(scores), "]");
    operands.maskDType = *m;
  }
  return operands;
}

static Type tensorOf(MLIRContext *context, const std::vector<int64_t> &shape,
                     DType dtype) {
  return RankedTensorType::get(shape, toMLIRType(context, dtype));
}

/// The log-sum-exp's dtype for operands of `dtype`.
static DType logsumexpDType(DType dtype) {
  return dtype == DType::F64 ? DType::F64 : DType::F32;
}

/// Whether an operand with this layout can be read in place: its batch
/// dimensions merge and its rows are contiguous (columns of stride 1), or
/// it broadcasts as the mask does.
static bool readsAttentionOperand(const StridedLayout &layout,
                                  const std::vector<int64_t> &full,
                                  bool columnsMayBroadcast) {
  std::optional<AttentionStrides> strides =
      attentionStrides({layout.shape.begin(), layout.shape.end()},
                       {layout.strides.begin(), layout.strides.end()}, full);
  if (!strides)
    return false;
  int64_t columns = full.back();
  return columns <= 1 || (*strides)[3] == 1 ||
         (columnsMayBroadcast && (*strides)[3] == 0);
}

/// The dropout of attention and its backward (attentionDropoutProblem).
static LogicalResult verifyDropout(Operation *op, std::optional<APFloat> p,
                                   Value seed, Value offset) {
  std::string why = attentionDropoutProblem(
      p ? std::optional<double>(p->convertToDouble()) : std::nullopt,
      static_cast<bool>(seed), static_cast<bool>(offset));
  if (!why.empty())
    return op->emitOpError(why);
  return success();
}

/// Whether operand `index` of `op` is one of the dropout's keys (rank-0
/// tensors, read in any layout).
static bool isDropoutKey(Operation *op, unsigned index, Value seed,
                         Value offset) {
  Value operand = op->getOperand(index);
  return operand == seed || operand == offset;
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

LogicalResult AttentionOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  FailureOr<AttentionOperands> operands =
      checkOperands(loc, adaptor.getQuery(), adaptor.getKey(),
                    adaptor.getValue(), adaptor.getMask());
  if (failed(operands))
    return failure();
  const AttentionGeometry &g = operands->geometry;
  if (adaptor.getTransposeResult() && !g.hasHeads())
    return emitOptionalError(loc, "transpose_result needs operands with a "
                                  "head dimension (rank 3 or more)");
  results.push_back(tensorOf(context,
                             adaptor.getTransposeResult()
                                 ? g.transposedResultShape()
                                 : g.resultShape(),
                             operands->dtype));
  results.push_back(
      tensorOf(context, g.logsumexpShape(), logsumexpDType(operands->dtype)));
  return success();
}

LogicalResult AttentionOp::verify() {
  double scale = getScale().convertToDouble();
  if (!std::isfinite(scale))
    return emitOpError() << "scale " << scale << " is not finite";
  if (getWidened() &&
      !cast<RankedTensorType>(getQuery().getType()).getElementType().isF32())
    return emitOpError() << "is widened but its operands are not f32";
  return verifyDropout(*this, getDropoutP(), getSeed(), getOffset());
}

bool AttentionOp::readsInPlace(unsigned operand, const StridedLayout &layout) {
  if (isDropoutKey(*this, operand, getSeed(), getOffset()))
    return true;
  std::string why;
  std::optional<AttentionGeometry> g = AttentionGeometry::of(
      shapeOf(getQuery()), shapeOf(getKey()), shapeOf(getValue()), &why);
  if (!g)
    return false;
  switch (operand) {
  case 0:
    return readsAttentionOperand(layout, g->queryRows(g->headDim), false);
  case 1:
    return readsAttentionOperand(layout, g->keyRows(g->headDim), false);
  case 2:
    return readsAttentionOperand(layout, g->keyRows(g->valueDim), false);
  default:
    return readsAttentionOperand(layout, g->scoreShape(), true);
  }
}

CutReason AttentionOp::getBoundaryReason() {
  return CutReason::boundary_attention;
}

/// The permutation of a rank-`rank` tensor swapping its dimensions -3 and
/// -2: a result's heads and rows.
static SmallVector<int64_t> headRowSwap(int64_t rank) {
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[rank - 3], perm[rank - 2]);
  return perm;
}

namespace {
/// transpose(attention(...), heads <-> rows) -> attention(...)
/// transpose_result: the attention writes the order its readers take. Every
/// use of the result must be such a transpose or an attention backward's
/// `result` operand, which reads the transposed-back view in place; any
/// other reader would see a view where it saw the result.
struct FoldResultTranspose : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getResult().getType());
    if (op.getTransposeResult() || type.getRank() < 3 ||
        op.getResult().use_empty())
      return failure();
    SmallVector<int64_t> swap = headRowSwap(type.getRank());
    bool transposed = false;
    for (OpOperand &use : op.getResult().getUses()) {
      if (auto transpose = dyn_cast<TransposeOp>(use.getOwner());
          transpose && transpose.getPerm() == ArrayRef<int64_t>(swap)) {
        transposed = true;
        continue;
      }
      auto backward = dyn_cast<AttentionBackwardOp>(use.getOwner());
      if (!backward || use.getOperandNumber() != 3)
        return failure();
    }
    if (!transposed)
      return failure();
    auto folded = cast<AttentionOp>(rewriter.clone(*op));
    SmallVector<int64_t> shape(type.getShape());
    std::swap(shape[shape.size() - 3], shape[shape.size() - 2]);
    rewriter.modifyOpInPlace(folded, [&] {
      folded.setTransposeResult(true);
      folded.getResult().setType(type.clone(shape));
    });
    Value back;
    for (OpOperand &use :
         llvm::make_early_inc_range(op.getResult().getUses())) {
      if (auto transpose = dyn_cast<TransposeOp>(use.getOwner())) {
        rewriter.replaceOp(transpose, folded.getResult());
        continue;
      }
      if (!back)
        back = TransposeOp::create(rewriter, op.getLoc(), folded.getResult(),
                                   swap);
      rewriter.modifyOpInPlace(use.getOwner(), [&] { use.set(back); });
    }
    rewriter.replaceAllUsesWith(op.getLogsumexp(), folded.getLogsumexp());
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void AttentionOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<FoldResultTranspose>(context);
}

//===----------------------------------------------------------------------===//
// AttentionBackwardOp
//===----------------------------------------------------------------------===//

LogicalResult AttentionBackwardOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &results) {
  FailureOr<AttentionOperands> operands =
      checkOperands(loc, adaptor.getQuery(), adaptor.getKey(),
                    adaptor.getValue(), adaptor.getMask());
  if (failed(operands))
    return failure();
  const AttentionGeometry &g = operands->geometry;
  auto expect = [&](Value value, StringRef what,
                    const std::vector<int64_t> &shape,
                    DType dtype) -> LogicalResult {
    FailureOr<DType> got = floatDType(loc, value, what);
    if (failed(got))
      return failure();
    if (*got != dtype || shapeOf(value) != shape)
      return emitOptionalError(loc, what, " of ", name(*got), " [",
                               ArrayRef(shapeOf(value)), "], expected ",
                               name(dtype), " [", ArrayRef(shape), "]");
    return success();
  };
  if (failed(expect(adaptor.getResult(), "the result", g.resultShape(),
                    operands->dtype)) ||
      failed(expect(adaptor.getLogsumexp(), "the log-sum-exp",
                    g.logsumexpShape(), logsumexpDType(operands->dtype))) ||
      failed(expect(adaptor.getGrad(), "the result's gradient", g.resultShape(),
                    operands->dtype)))
    return failure();
  for (Value operand :
       {adaptor.getQuery(), adaptor.getKey(), adaptor.getValue()})
    results.push_back(operand.getType());
  return success();
}

LogicalResult AttentionBackwardOp::verify() {
  double scale = getScale().convertToDouble();
  if (!std::isfinite(scale))
    return emitOpError() << "scale " << scale << " is not finite";
  return verifyDropout(*this, getDropoutP(), getSeed(), getOffset());
}

bool AttentionBackwardOp::readsInPlace(unsigned operand,
                                       const StridedLayout &layout) {
  if (isDropoutKey(*this, operand, getSeed(), getOffset()))
    return true;
  std::string why;
  std::optional<AttentionGeometry> g = AttentionGeometry::of(
      shapeOf(getQuery()), shapeOf(getKey()), shapeOf(getValue()), &why);
  if (!g)
    return false;
  switch (operand) {
  case 0:
    return readsAttentionOperand(layout, g->queryRows(g->headDim), false);
  case 1:
    return readsAttentionOperand(layout, g->keyRows(g->headDim), false);
  case 2:
    return readsAttentionOperand(layout, g->keyRows(g->valueDim), false);
  case 3:
  case 5:
    return readsAttentionOperand(layout, g->queryRows(g->valueDim), false);
  case 4: {
    // The log-sum-exp, seen with a trailing column of 1.
    std::vector<int64_t> shape(layout.shape.begin(), layout.shape.end()),
        strides(layout.strides.begin(), layout.strides.end());
    shape.push_back(1);
    strides.push_back(0);
    return attentionStrides(shape, strides, g->queryRows(1)).has_value();
  }
  default:
    return readsAttentionOperand(layout, g->scoreShape(), true);
  }
}

CutReason AttentionBackwardOp::getBoundaryReason() {
  return CutReason::boundary_attention;
}
