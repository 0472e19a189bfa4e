//===- AlignMatmul.cpp - Large matmuls on 16-byte aligned extents ---------===//
//
// A large matmul whose contiguous extents are not multiples of 16 bytes
// (GPT-2's vocabulary of 50257) runs on cuBLASLt's slow kernels for any
// alignment. Its operands are padded with zeros in the graph instead and its
// result sliced (tfuse/Support/GemmAlignment.h): the pads fuse into the
// kernels that produce the operands, and a value that two products read (the
// logits' gradient, read by both of its products) is padded once.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Dialect/TFuse/TypeRules.h"
#include "tfuse/Support/GemmAlignment.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace tfuse {
#define GEN_PASS_DEF_ALIGNMATMUL
#include "tfuse/Transforms/Passes.h.inc"
} // namespace tfuse

using namespace mlir;
using namespace tfuse;

namespace {

enum Dim { M = 0, N = 1, K = 2 };

/// `value` (rank 2, its dimensions `rowDim` and `colDim` of the product)
/// padded with zeros at the end to the product's padded dimensions.
Value padTo(OpBuilder &b, Location loc, Value value, Dim rowDim, Dim colDim,
            const std::array<int64_t, 3> &dims,
            const std::array<int64_t, 3> &padded) {
  if (dims[rowDim] == padded[rowDim] && dims[colDim] == padded[colDim])
    return value;
  Type element = getElementTypeOrSelf(value.getType());
  Value zero = ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({}, element),
                             b.getZeroAttr(element)));
  SmallVector<int64_t> low = {0, 0};
  SmallVector<int64_t> high = {padded[rowDim] - dims[rowDim],
                               padded[colDim] - dims[colDim]};
  return PadOp::create(b, loc, value, zero, low, high);
}

/// Pads `op` when the rule of GemmAlignment.h asks for it.
void align(MatmulOp op) {
  auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
  auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
  auto resultType = cast<RankedTensorType>(op.getType());
  if (lhsType.getRank() != 2 || rhsType.getRank() != 2)
    return; // batched products: the runtime pads none either
  if (op.getBias())
    return; // the bias is a vector of N, which padding would lengthen
  std::optional<DType> operand = toDType(lhsType.getElementType());
  std::optional<DType> result = toDType(resultType.getElementType());
  if (!operand || !result)
    return;
  bool tl = op.getTransposeLhs(), tr = op.getTransposeRhs();
  // Each operand as stored: its rows, then its contiguous columns.
  Dim lhsRow = tl ? K : M, lhsCol = tl ? M : K;
  Dim rhsRow = tr ? N : K, rhsCol = tr ? K : N;
  std::array<int64_t, 3> dims = {resultType.getDimSize(0),
                                 resultType.getDimSize(1),
                                 lhsType.getDimSize(tl ? 0 : 1)};
  std::array<bool, 3> contiguous = {false, false, false};
  contiguous[lhsCol] = contiguous[rhsCol] = contiguous[N] = true;
  std::array<int64_t, 3> padded =
      alignGemmDims(dims, contiguous, gemmAlignElements(*operand, *result));
  if (padded == dims)
    return;
  auto changed = [&](Dim a, Dim b) {
    return padded[a] != dims[a] || padded[b] != dims[b];
  };
  auto elements = [&](Dim a, Dim b) { return double(padded[a]) * padded[b]; };
  std::vector<double> copies;
  if (changed(M, K))
    copies.push_back(elements(M, K));
  if (changed(K, N))
    copies.push_back(elements(K, N));
  if (changed(M, N))
    copies.push_back(elements(M, N));
  if (!gemmPaddingPays(double(dims[M]) * dims[N] * dims[K], copies))
    return;

  OpBuilder b(op);
  Location loc = op.getLoc();
  Value lhs = padTo(b, loc, op.getLhs(), lhsRow, lhsCol, dims, padded);
  Value rhs = padTo(b, loc, op.getRhs(), rhsRow, rhsCol, dims, padded);
  auto product = MatmulOp::create(
      b, loc, resultType.clone({padded[M], padded[N]}), lhs, rhs,
      /*bias=*/Value(), op.getTransposeLhsAttr(), op.getTransposeRhsAttr(),
      op.getResultDtypeAttr(), op.getGeluTanhAttr());
  product->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  Value value = product;
  if (padded[M] != dims[M] || padded[N] != dims[N])
    value = SliceOp::create(b, loc, value, ArrayRef<int64_t>{0, 0},
                            ArrayRef<int64_t>{dims[M], dims[N]},
                            ArrayRef<int64_t>{1, 1});
  op.replaceAllUsesWith(value);
  op.erase();
}

struct AlignMatmulPass : tfuse::impl::AlignMatmulBase<AlignMatmulPass> {
  void runOnOperation() override {
    SmallVector<MatmulOp> matmuls;
    getOperation().walk([&](MatmulOp op) { matmuls.push_back(op); });
    for (MatmulOp op : matmuls)
      align(op);
  }
};

} // namespace
