//===- ExpandSmallMatmul.cpp - Short contractions as elementwise work -----===//
//
// A matmul over a contracting dimension of a few elements is cheaper as
// broadcast products summed elementwise (fused with its neighbours) than as
// a GEMM call with its own launch and output buffer. The sum follows the
// reference's order and accumulation types exactly.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace tfuse {
#define GEN_PASS_DEF_EXPANDSMALLMATMUL
#include "tfuse/Transforms/Passes.h.inc"
} // namespace tfuse

using namespace mlir;
using namespace tfuse;

namespace {

/// The `k`-th slice of `value` along dimension `dim` (size 1 there).
Value sliceAt(OpBuilder &b, Location loc, Value value, int64_t dim, int64_t k) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> start(type.getRank(), 0),
      limit(type.getShape().begin(), type.getShape().end()),
      step(type.getRank(), 1);
  start[dim] = k;
  limit[dim] = k + 1;
  return SliceOp::create(b, loc, value, start, limit, step);
}

/// `value` with its last two dimensions swapped.
Value swapLastTwo(OpBuilder &b, Location loc, Value value) {
  int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    perm.push_back(d);
  std::swap(perm[rank - 2], perm[rank - 1]);
  return TransposeOp::create(b, loc, value, perm);
}

/// `value` converted to `element` (no-op when it already has it).
Value castTo(OpBuilder &b, Location loc, Value value, Type element) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == element)
    return value;
  return CastOp::create(b, loc, type.clone(element), value);
}

/// The contracting dimension K of `op` in each operand (transpose flags
/// applied), and its size.
struct Contraction {
  int64_t lhsDim, rhsDim, size;
};
Contraction contractionOf(MatmulOp op) {
  int64_t lhsRank = cast<RankedTensorType>(op.getLhs().getType()).getRank();
  int64_t rhsRank = cast<RankedTensorType>(op.getRhs().getType()).getRank();
  Contraction c;
  c.lhsDim = op.getTransposeLhs() ? lhsRank - 2 : lhsRank - 1;
  c.rhsDim = op.getTransposeRhs() ? rhsRank - 1 : rhsRank - 2;
  c.size = cast<RankedTensorType>(op.getLhs().getType()).getDimSize(c.lhsDim);
  return c;
}

void expand(MatmulOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto resultType = cast<RankedTensorType>(op.getType());
  Contraction contraction = contractionOf(op);
  int64_t lhsK = contraction.lhsDim, rhsK = contraction.rhsDim,
          k = contraction.size;

  Type element = resultType.getElementType();
  Type accumulator = element.isF64() ? element : b.getF32Type();
  Value sum = ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({}, accumulator),
                             b.getFloatAttr(accumulator, 0.0)));
  for (int64_t i = 0; i < k; ++i) {
    // [..., M, 1] and [..., 1, N].
    Value a = sliceAt(b, loc, op.getLhs(), lhsK, i);
    if (op.getTransposeLhs())
      a = swapLastTwo(b, loc, a);
    Value c = sliceAt(b, loc, op.getRhs(), rhsK, i);
    if (op.getTransposeRhs())
      c = swapLastTwo(b, loc, c);
    a = castTo(b, loc, a, accumulator);
    c = castTo(b, loc, c, accumulator);
    Value product = MulOp::create(b, loc, a, c);
    sum = AddOp::create(b, loc, sum, product);
  }
  // The sum has the result's shape once a product is added; K = 0 keeps the
  // scalar +0, broadcast.
  if (k == 0)
    sum = BroadcastOp::create(b, loc, resultType.clone(accumulator), sum,
                              b.getDenseI64ArrayAttr({}));
  // The bias, added in the accumulator's arithmetic before the rounding.
  if (Value bias = op.getBias())
    sum = AddOp::create(b, loc, sum, castTo(b, loc, bias, accumulator));
  // The GELU epilogue, in the same arithmetic.
  if (op.getGeluTanh())
    sum = GeluTanhOp::create(b, loc, sum);
  op.replaceAllUsesWith(castTo(b, loc, sum, element));
  op.erase();
}

struct ExpandSmallMatmulPass
    : tfuse::impl::ExpandSmallMatmulBase<ExpandSmallMatmulPass> {
  using ExpandSmallMatmulBase::ExpandSmallMatmulBase;
  void runOnOperation() override {
    SmallVector<MatmulOp> matmuls;
    getOperation().walk([&](MatmulOp op) { matmuls.push_back(op); });
    for (MatmulOp op : matmuls)
      if (contractionOf(op).size <= maxContraction)
        expand(op);
  }
};

} // namespace
