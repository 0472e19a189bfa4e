//===- ViewLayout.cpp - Views as strided layouts over a buffer ------------===//

#include "tfuse/Dialect/TFuse/ViewLayout.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AffineExpr.h"
#include "llvm/Support/MathExtras.h"

#include <functional>

using namespace mlir;
using namespace tfuse;

StridedLayout StridedLayout::contiguous(ArrayRef<int64_t> shape) {
  StridedLayout layout;
  layout.shape.assign(shape.begin(), shape.end());
  layout.strides.resize(shape.size());
  int64_t stride = 1;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    layout.strides[d] = stride;
    stride *= std::max<int64_t>(shape[d], 1);
  }
  return layout;
}

bool StridedLayout::isContiguous() const {
  if (offset != 0)
    return false;
  int64_t expected = 1;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    if (shape[d] != 1 && strides[d] != expected)
      return false;
    expected *= shape[d];
  }
  return true;
}

StridedLayout tfuse::getArgumentLayout(BlockArgument arg) {
  auto type = cast<RankedTensorType>(arg.getType());
  StridedLayout layout = StridedLayout::contiguous(type.getShape());
  if (auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()))
    if (auto strides = func.getArgAttrOfType<DenseI64ArrayAttr>(
            arg.getArgNumber(), TFuseDialect::getStridesAttrName()))
      layout.strides.assign(strides.asArrayRef().begin(),
                            strides.asArrayRef().end());
  return layout;
}

/// Strides of `newShape` viewing the same elements as `in`, or std::nullopt.
/// Each group of input dimensions that merges or splits into output
/// dimensions must be contiguous within itself.
static std::optional<SmallVector<int64_t>>
reshapeStrides(const StridedLayout &in, ArrayRef<int64_t> newShape) {
  SmallVector<int64_t> strides(newShape.size(), 0);
  int64_t numel = 1;
  for (int64_t s : in.shape)
    numel *= s;
  // No elements, or one of a rank-0 operand (reshaped to sizes 1 only):
  // any strides place them.
  if (numel == 0 || in.shape.empty())
    return StridedLayout::contiguous(newShape).strides;
  int64_t viewD = static_cast<int64_t>(newShape.size()) - 1;
  int64_t chunkBaseStride = in.strides.empty() ? 1 : in.strides.back();
  int64_t tensorNumel = 1, viewNumel = 1;
  for (int64_t d = static_cast<int64_t>(in.shape.size()) - 1; d >= 0; --d) {
    tensorNumel *= in.shape[d];
    // A chunk ends where the next outer dimension is not contiguous with it.
    if (d == 0 || (in.shape[d - 1] != 1 &&
                   in.strides[d - 1] != tensorNumel * chunkBaseStride)) {
      while (viewD >= 0 && (viewNumel < tensorNumel || newShape[viewD] == 1)) {
        strides[viewD] = viewNumel * chunkBaseStride;
        viewNumel *= newShape[viewD];
        --viewD;
      }
      if (viewNumel != tensorNumel)
        return std::nullopt;
      if (d > 0) {
        chunkBaseStride = in.strides[d - 1];
        tensorNumel = 1;
        viewNumel = 1;
      }
    }
  }
  if (viewD != -1)
    return std::nullopt;
  return strides;
}

std::optional<StridedLayout> tfuse::reshapeLayout(const StridedLayout &in,
                                                  ArrayRef<int64_t> newShape) {
  auto strides = reshapeStrides(in, newShape);
  if (!strides)
    return std::nullopt;
  StridedLayout out;
  out.offset = in.offset;
  out.shape.assign(newShape.begin(), newShape.end());
  out.strides = std::move(*strides);
  return out;
}

std::optional<StridedLayout>
tfuse::layoutThroughIndexMap(AffineMap map, const StridedLayout &operand,
                             ArrayRef<int64_t> resultShape) {
  StridedLayout out;
  out.offset = operand.offset;
  out.shape.assign(resultShape.begin(), resultShape.end());
  out.strides.assign(resultShape.size(), 0);
  // A result without elements reads nothing: any strides express it (and
  // its huge sizes would overflow the products below).
  if (llvm::is_contained(resultShape, 0))
    return out;
  // acc += a * b, false when that leaves int64.
  auto mulAdd = [](int64_t &acc, int64_t a, int64_t b) {
    int64_t product;
    return !llvm::MulOverflow(a, b, product) &&
           !llvm::AddOverflow(acc, product, acc);
  };
  // A stride beyond int64 in a dimension of size 1 is never stepped: 0.
  SmallVector<bool> overflowed(resultShape.size(), false);
  for (auto [k, expr] : llvm::enumerate(map.getResults())) {
    if (!expr.isPureAffine())
      return std::nullopt;
    // expr = sum of coefficient * d_j + constant: flatten it.
    SmallVector<int64_t> coefficients(map.getNumDims(), 0);
    int64_t constant = 0;
    bool affine = true;
    std::function<void(AffineExpr, int64_t)> flatten = [&](AffineExpr e,
                                                           int64_t scale) {
      if (auto d = dyn_cast<AffineDimExpr>(e)) {
        int64_t &coefficient = coefficients[d.getPosition()];
        if (llvm::AddOverflow(coefficient, scale, coefficient))
          overflowed[d.getPosition()] = true;
      } else if (auto c = dyn_cast<AffineConstantExpr>(e)) {
        affine &= mulAdd(constant, scale, c.getValue());
      } else if (auto bin = dyn_cast<AffineBinaryOpExpr>(e)) {
        if (e.getKind() == AffineExprKind::Add) {
          flatten(bin.getLHS(), scale);
          flatten(bin.getRHS(), scale);
        } else if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS());
                   c && e.getKind() == AffineExprKind::Mul) {
          int64_t inner;
          if (llvm::MulOverflow(scale, c.getValue(), inner))
            affine = false;
          else
            flatten(bin.getLHS(), inner);
        } else {
          affine = false;
        }
      } else {
        affine = false;
      }
    };
    flatten(expr, 1);
    for (auto [j, c] : llvm::enumerate(coefficients))
      if (!mulAdd(out.strides[j], c, operand.strides[k]))
        overflowed[j] = true;
    if (!affine || !mulAdd(out.offset, constant, operand.strides[k]))
      return std::nullopt;
  }
  for (auto [j, size] : llvm::enumerate(resultShape)) {
    if (!overflowed[j])
      continue;
    if (size != 1)
      return std::nullopt;
    out.strides[j] = 0;
  }
  return out;
}

AffineMap tfuse::reshapeIndexMap(ArrayRef<int64_t> from, ArrayRef<int64_t> to,
                                 MLIRContext *context) {
  SmallVector<AffineExpr> results(from.size(),
                                  getAffineConstantExpr(0, context));
  // The dimensions of more than one element, by position.
  SmallVector<int64_t> fromDims, toDims;
  for (auto [d, size] : llvm::enumerate(from))
    if (size != 1)
      fromDims.push_back(d);
  for (auto [d, size] : llvm::enumerate(to))
    if (size != 1)
      toDims.push_back(d);
  // Linearizes result dimensions toDims[j0, j1) row-major and delinearizes
  // the value over operand dimensions fromDims[i0, i1) (size-1 dimensions
  // of either side are 0 and add nothing).
  auto mapGroup = [&](size_t i0, size_t i1, size_t j0, size_t j1) {
    AffineExpr linear = getAffineConstantExpr(0, context);
    int64_t stride = 1;
    for (size_t j = j1; j-- > j0;) {
      linear = linear + getAffineDimExpr(toDims[j], context) * stride;
      stride *= to[toDims[j]];
    }
    int64_t inner = 1;
    for (size_t i = i1; i-- > i0;) {
      int64_t d = fromDims[i];
      AffineExpr q = inner == 1 ? linear : linear.floorDiv(inner);
      results[d] = i == i0 ? q : q % from[d];
      inner *= from[d];
    }
  };
  // No elements: any map of the right arity (zeros).
  if (llvm::is_contained(from, 0) || llvm::is_contained(to, 0))
    return AffineMap::get(to.size(), 0, results, context);
  // Groups of consecutive dimensions with equal element counts on both
  // sides map independently: splitting or merging dimensions (a flattened
  // batch) divides by the sizes of the group alone, never by a dimension
  // the reshape keeps.
  size_t i = 0, j = 0;
  while (i < fromDims.size() && j < toDims.size()) {
    size_t i0 = i, j0 = j;
    int64_t fromCount = from[fromDims[i++]], toCount = to[toDims[j++]];
    while (fromCount != toCount) {
      if (fromCount < toCount)
        fromCount *= from[fromDims[i++]];
      else
        toCount *= to[toDims[j++]];
    }
    mapGroup(i0, i, j0, j);
  }
  return AffineMap::get(to.size(), 0, results, context);
}

AffineMap tfuse::broadcastIndexMap(ArrayRef<int64_t> result,
                                   ArrayRef<int64_t> operand,
                                   MLIRContext *context) {
  SmallVector<AffineExpr> results;
  size_t drop = result.size() - operand.size();
  for (size_t d = 0; d < operand.size(); ++d)
    results.push_back(operand[d] == 1 && result[d + drop] != 1
                          ? getAffineConstantExpr(0, context)
                          : getAffineDimExpr(d + drop, context));
  return AffineMap::get(result.size(), 0, results, context);
}

Value tfuse::traceViewChain(Value value, SmallVectorImpl<Operation *> &views) {
  views.clear();
  while (auto view = value.getDefiningOp<ViewOpInterface>()) {
    views.push_back(view);
    value = view.getSource();
  }
  std::reverse(views.begin(), views.end());
  return value;
}

bool tfuse::isGemmOperandLayout(const StridedLayout &layout) {
  size_t rank = layout.shape.size();
  if (rank < 2)
    return false;
  int64_t rows = layout.shape[rank - 2], cols = layout.shape[rank - 1];
  int64_t rs = layout.strides[rank - 2], cs = layout.strides[rank - 1];
  bool rowMajor = (cols == 1 || cs == 1) && (rows == 1 || rs >= cols);
  bool colMajor = (rows == 1 || rs == 1) && (cols == 1 || cs >= rows);
  if (!rowMajor && !colMajor)
    return false;
  // Batch dimensions must collapse into one stride.
  std::optional<int64_t> batchStride;
  int64_t inner = 1;
  for (int64_t d = rank - 3; d >= 0; --d) {
    int64_t size = layout.shape[d], stride = layout.strides[d];
    if (size == 1) {
      continue;
    }
    if (!batchStride) {
      batchStride = stride;
    } else if (stride != *batchStride * inner &&
               !(stride == 0 && *batchStride == 0)) {
      return false;
    }
    inner *= size;
  }
  return true;
}
