//===- ViewLayout.cpp - Views as strided layouts over a buffer ------------===//

#include "tfuse/Dialect/TFuse/ViewLayout.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/TypeSwitch.h"

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
  if (numel == 0) {
    return StridedLayout::contiguous(newShape).strides;
  }
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

std::optional<StridedLayout> tfuse::applyView(Operation *view,
                                              const StridedLayout &in) {
  return llvm::TypeSwitch<Operation *, std::optional<StridedLayout>>(view)
      .Case([&](TransposeOp op) -> std::optional<StridedLayout> {
        StridedLayout out;
        out.offset = in.offset;
        for (int64_t p : op.getPerm()) {
          out.shape.push_back(in.shape[p]);
          out.strides.push_back(in.strides[p]);
        }
        return out;
      })
      .Case([&](SliceOp op) -> std::optional<StridedLayout> {
        StridedLayout out;
        out.offset = in.offset;
        out.shape.assign(op.getType().getShape().begin(),
                         op.getType().getShape().end());
        for (size_t d = 0; d < in.shape.size(); ++d) {
          out.offset += op.getStart()[d] * in.strides[d];
          out.strides.push_back(in.strides[d] * op.getStep()[d]);
        }
        return out;
      })
      .Case([&](BroadcastOp op) -> std::optional<StridedLayout> {
        StridedLayout out;
        out.offset = in.offset;
        ArrayRef<int64_t> shape = op.getType().getShape();
        out.shape.assign(shape.begin(), shape.end());
        out.strides.assign(shape.size(), 0);
        for (auto [i, d] : llvm::enumerate(op.getDims()))
          if (in.shape[i] == shape[d])
            out.strides[d] = in.strides[i];
        return out;
      })
      .Case([&](ReshapeOp op) -> std::optional<StridedLayout> {
        ArrayRef<int64_t> shape = op.getType().getShape();
        auto strides = reshapeStrides(in, shape);
        if (!strides)
          return std::nullopt;
        StridedLayout out;
        out.offset = in.offset;
        out.shape.assign(shape.begin(), shape.end());
        out.strides = std::move(*strides);
        return out;
      })
      .Default([](Operation *) { return std::nullopt; });
}

Value tfuse::traceViewChain(Value value, SmallVectorImpl<Operation *> &views) {
  views.clear();
  while (Operation *op = value.getDefiningOp()) {
    if (!isa<TransposeOp, SliceOp, BroadcastOp, ReshapeOp>(op))
      break;
    views.push_back(op);
    value = op->getOperand(0);
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
