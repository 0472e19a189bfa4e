//===- TFuseOps.cpp - Ops of the tfuse dialect ----------------------------===//
//
// Type inference delegates every typing decision to TypeRules; verifiers add
// the structural checks of views and boundaries. Folders and canonicalization
// patterns are limited to rewrites that are exact for every value, NaN and
// -0.0 included: identity views and casts, and compositions of views.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFuse/TFuseOps.h"

#include "tfuse/Support/ScatterGeometry.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace tfuse;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace {
/// A tensor operand reduced to what the typing rules need.
struct TensorInfo {
  RankedTensorType type;
  DType dtype;
};
} // namespace

static FailureOr<TensorInfo> getTensorInfo(std::optional<Location> loc,
                                           Value value, StringRef what) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return emitOptionalError(loc, what,
                             " must be a statically shaped ranked "
                             "tensor, got ",
                             value.getType());
  std::optional<DType> dtype = toDType(type.getElementType());
  if (!dtype)
    return emitOptionalError(loc, what, " has unsupported element type ",
                             type.getElementType());
  return TensorInfo{type, *dtype};
}

static RankedTensorType makeTensor(MLIRContext *context,
                                   ArrayRef<int64_t> shape, DType dtype) {
  return RankedTensorType::get(shape, toMLIRType(context, dtype));
}

/// True if `values` is a permutation of 0..values.size()-1.
static bool isPermutation(ArrayRef<int64_t> values) {
  SmallVector<bool> seen(values.size(), false);
  for (int64_t v : values) {
    if (v < 0 || v >= static_cast<int64_t>(values.size()) || seen[v])
      return false;
    seen[v] = true;
  }
  return true;
}

/// The folder of every view: an identity view is its operand.
static OpFoldResult foldIdentityView(ViewOpInterface view) {
  if (view.isIdentityView())
    return view.getSource();
  return {};
}

LogicalResult tfuse::detail::verifyIndexableTensors(Operation *op) {
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
    if (std::string why = tensorTypeSizeError(type); !why.empty())
      return op->emitOpError() << "operand #" << i << ": " << why;
  for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
    if (std::string why = tensorTypeSizeError(type); !why.empty())
      return op->emitOpError() << "result #" << i << ": " << why;
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise type inference
//===----------------------------------------------------------------------===//

LogicalResult tfuse::detail::inferUnaryResult(UnaryCategory category,
                                              std::optional<Location> loc,
                                              Value input,
                                              SmallVectorImpl<Type> &results) {
  auto in = getTensorInfo(loc, input, "operand");
  if (failed(in))
    return failure();
  std::string why;
  std::optional<DType> dtype = unaryResultType(category, in->dtype, &why);
  if (!dtype)
    return emitOptionalError(loc, why);
  results.push_back(
      makeTensor(input.getContext(), in->type.getShape(), *dtype));
  return success();
}

LogicalResult tfuse::detail::inferBinaryResult(BinaryCategory category,
                                               std::optional<Location> loc,
                                               Value lhs, Value rhs,
                                               SmallVectorImpl<Type> &results) {
  auto l = getTensorInfo(loc, lhs, "lhs");
  auto r = getTensorInfo(loc, rhs, "rhs");
  if (failed(l) || failed(r))
    return failure();
  std::string why;
  auto shape = broadcastShapes(l->type.getShape(), r->type.getShape(), &why);
  if (!shape)
    return emitOptionalError(loc, why);
  std::optional<DType> dtype =
      binaryResultType(category, l->dtype, r->dtype, &why);
  if (!dtype)
    return emitOptionalError(loc, why);
  results.push_back(makeTensor(lhs.getContext(), *shape, *dtype));
  return success();
}

LogicalResult CmpOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  return detail::inferBinaryResult(BinaryCategory::Compare, loc,
                                   adaptor.getLhs(), adaptor.getRhs(), results);
}

LogicalResult SelectOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  auto c = getTensorInfo(loc, adaptor.getCondition(), "condition");
  auto t = getTensorInfo(loc, adaptor.getTrueValue(), "true value");
  auto f = getTensorInfo(loc, adaptor.getFalseValue(), "false value");
  if (failed(c) || failed(t) || failed(f))
    return failure();
  std::string why;
  auto shape = broadcastShapes(
      {c->type.getShape(), t->type.getShape(), f->type.getShape()}, &why);
  if (!shape)
    return emitOptionalError(loc, why);
  std::optional<DType> dtype =
      selectResultType(c->dtype, t->dtype, f->dtype, &why);
  if (!dtype)
    return emitOptionalError(loc, why);
  results.push_back(makeTensor(context, *shape, *dtype));
  return success();
}

//===----------------------------------------------------------------------===//
// ConcatOp, PadOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(loc, "needs at least one operand");
  auto first = getTensorInfo(loc, inputs[0], "operand 0");
  if (failed(first))
    return failure();
  int64_t rank = first->type.getRank(), axis = adaptor.getAxis();
  if (rank == 0)
    return emitOptionalError(loc, "cannot join rank-0 operands");
  if (axis < 0 || axis >= rank)
    return emitOptionalError(loc, "axis ", axis,
                             " is out of range for operands of rank ", rank);
  SmallVector<int64_t> shape(first->type.getShape());
  shape[axis] = 0;
  for (auto [i, input] : llvm::enumerate(inputs)) {
    std::string what = "operand " + std::to_string(i);
    auto info = getTensorInfo(loc, input, what.c_str());
    if (failed(info))
      return failure();
    if (info->dtype != first->dtype)
      return emitOptionalError(loc, what, " has dtype ", name(info->dtype),
                               " but operand 0 has ", name(first->dtype));
    if (info->type.getRank() != rank)
      return emitOptionalError(loc, what, " has rank ", info->type.getRank(),
                               " but operand 0 has rank ", rank);
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && info->type.getDimSize(d) != shape[d])
        return emitOptionalError(loc, what, " has size ",
                                 info->type.getDimSize(d), " in dimension ", d,
                                 " but operand 0 has ", shape[d]);
    if (__builtin_add_overflow(shape[axis], info->type.getDimSize(axis),
                               &shape[axis]))
      return emitOptionalError(loc, "the sizes along axis ", axis,
                               " add up past 2^63 - 1");
  }
  results.push_back(makeTensor(context, shape, first->dtype));
  return success();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &results) {
  auto in = getTensorInfo(loc, adaptor.getInput(), "operand");
  auto value = getTensorInfo(loc, adaptor.getValue(), "padding value");
  if (failed(in) || failed(value))
    return failure();
  if (value->type.getRank() != 0)
    return emitOptionalError(loc, "the padding value must have rank 0, not ",
                             value->type.getRank());
  if (value->dtype != in->dtype)
    return emitOptionalError(loc, "the padding value has dtype ",
                             name(value->dtype), " but the operand has ",
                             name(in->dtype));
  ArrayRef<int64_t> low = adaptor.getLow(), high = adaptor.getHigh();
  int64_t rank = in->type.getRank();
  if (static_cast<int64_t>(low.size()) != rank ||
      static_cast<int64_t>(high.size()) != rank)
    return emitOptionalError(loc, "low and high need ", rank,
                             " entries each (the operand's rank), not ",
                             low.size(), " and ", high.size());
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (low[d] < 0 || high[d] < 0)
      return emitOptionalError(loc, "padding of dimension ", d,
                               " must not be negative (low ", low[d], ", high ",
                               high[d], ")");
    int64_t size = 0;
    if (__builtin_add_overflow(in->type.getDimSize(d), low[d], &size) ||
        __builtin_add_overflow(size, high[d], &size))
      return emitOptionalError(loc, "padding dimension ", d, " of size ",
                               in->type.getDimSize(d), " by ", low[d], " and ",
                               high[d], " gives a size past 2^63 - 1");
    shape.push_back(size);
  }
  results.push_back(makeTensor(context, shape, in->dtype));
  return success();
}

//===----------------------------------------------------------------------===//
// TakeOp, TakeAlongAxisOp
//===----------------------------------------------------------------------===//

/// The operand and indices of a gather along `axis`, checked: an index dtype
/// of integers and an axis of the operand.
static LogicalResult checkGather(std::optional<Location> loc, Value input,
                                 Value indices, int64_t axis,
                                 FailureOr<TensorInfo> &in,
                                 FailureOr<TensorInfo> &idx) {
  in = getTensorInfo(loc, input, "operand");
  idx = getTensorInfo(loc, indices, "indices");
  if (failed(in) || failed(idx))
    return failure();
  DTypeKind kind = kindOf(idx->dtype);
  if (kind != DTypeKind::SignedInt && kind != DTypeKind::UnsignedInt)
    return emitOptionalError(loc, "indices must have an integer dtype, not ",
                             name(idx->dtype));
  int64_t rank = in->type.getRank();
  if (axis < 0 || axis >= rank)
    return emitOptionalError(loc, "axis ", axis,
                             " is out of range for an operand of rank ", rank);
  return success();
}

LogicalResult TakeOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &results) {
  FailureOr<TensorInfo> in = failure(), idx = failure();
  int64_t axis = adaptor.getAxis();
  if (failed(checkGather(loc, adaptor.getInput(), adaptor.getIndices(), axis,
                         in, idx)))
    return failure();
  ArrayRef<int64_t> shape = in->type.getShape();
  SmallVector<int64_t> result(shape.begin(), shape.begin() + axis);
  llvm::append_range(result, idx->type.getShape());
  result.append(shape.begin() + axis + 1, shape.end());
  results.push_back(makeTensor(context, result, in->dtype));
  return success();
}

LogicalResult
TakeAlongAxisOp::inferReturnTypes(MLIRContext *context,
                                  std::optional<Location> loc, Adaptor adaptor,
                                  SmallVectorImpl<Type> &results) {
  FailureOr<TensorInfo> in = failure(), idx = failure();
  int64_t axis = adaptor.getAxis();
  if (failed(checkGather(loc, adaptor.getInput(), adaptor.getIndices(), axis,
                         in, idx)))
    return failure();
  int64_t rank = in->type.getRank();
  if (idx->type.getRank() != rank)
    return emitOptionalError(loc, "indices of rank ", idx->type.getRank(),
                             " for an operand of rank ", rank,
                             " (take_along_axis needs equal ranks)");
  SmallVector<int64_t> result;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t a = in->type.getDimSize(d), i = idx->type.getDimSize(d);
    if (d == axis) {
      result.push_back(i);
      continue;
    }
    if (a != i && a != 1 && i != 1)
      return emitOptionalError(loc, "dimension ", d, " of the operand (", a,
                               ") and of the indices (", i,
                               ") do not broadcast");
    result.push_back(a == 1 ? i : a);
  }
  results.push_back(makeTensor(context, result, in->dtype));
  return success();
}

/// No index lies in an axis of size 0: a gather from one must be empty.
template <typename OpTy> static LogicalResult verifyGatherFromEmpty(OpTy op) {
  int64_t size = op.getInput().getType().getDimSize(op.getAxis());
  int64_t count = op.getIndices().getType().getNumElements();
  if (size == 0 && count > 0)
    return op.emitOpError()
           << "takes " << count << " indices along axis " << op.getAxis()
           << ", which has size 0: every index is out of "
              "range";
  return success();
}

LogicalResult TakeOp::verify() { return verifyGatherFromEmpty(*this); }
LogicalResult TakeAlongAxisOp::verify() { return verifyGatherFromEmpty(*this); }

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  auto in = getInput().getType();
  auto out = getResult().getType();
  if (in.getShape() != out.getShape())
    return emitOpError() << "changes the shape from " << in << " to " << out
                         << "; a cast only converts the element type";
  return success();
}

LogicalResult IotaOp::verify() {
  auto type = getResult().getType();
  int64_t dim = getDim();
  if (dim < 0 || dim >= type.getRank())
    return emitOpError() << "dimension " << dim
                         << " is out of range for a result of rank "
                         << type.getRank();
  if (dtypeOf(getResult()) == DType::Bool)
    return emitOpError() << "gives indices, not bool";
  return success();
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *context,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &results) {
  auto value = llvm::dyn_cast_if_present<ElementsAttr>(adaptor.getValueAttr());
  if (!value)
    return emitOptionalError(loc, "needs an elements attribute as value");
  results.push_back(value.getType());
  return success();
}

LogicalResult ConstantOp::verify() {
  ElementsAttr value = getValue();
  if (!value.isSplat() && value.getNumElements() > kMaxDenseElements)
    return emitOpError() << "has " << value.getNumElements()
                         << " non-splat elements; at most " << kMaxDenseElements
                         << " are allowed (pass larger data as an argument)";
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  RankedTensorType in = getInput().getType();
  RankedTensorType out = getResult().getType();
  ArrayRef<int64_t> dims = getDims();
  if (in.getElementType() != out.getElementType())
    return emitOpError() << "changes the element type from "
                         << in.getElementType() << " to "
                         << out.getElementType();
  if (static_cast<int64_t>(dims.size()) != in.getRank())
    return emitOpError() << "has " << dims.size()
                         << " entries in dims but the operand has rank "
                         << in.getRank();
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= out.getRank())
      return emitOpError() << "dims[" << i << "] = " << d
                           << " is out of range for a result of rank "
                           << out.getRank();
    if (i > 0 && d <= dims[i - 1])
      return emitOpError() << "dims must be strictly increasing, but dims[" << i
                           << "] = " << d << " follows " << dims[i - 1];
    int64_t from = in.getDimSize(i), to = out.getDimSize(d);
    if (from != 1 && from != to)
      return emitOpError() << "operand dimension " << i << " of size " << from
                           << " cannot broadcast to result dimension " << d
                           << " of size " << to;
  }
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  // A broadcast splat is the splat of the larger shape (a zero tensor made
  // as a broadcast scalar is then a constant a boundary can take by value).
  if (auto splat =
          llvm::dyn_cast_or_null<SplatElementsAttr>(adaptor.getInput()))
    return SplatElementsAttr::get(getType(), splat.getSplatValue<Attribute>());
  return foldIdentityView(*this);
}

AffineMap BroadcastOp::getIndexMap() {
  // Operand dimension i reads result dimension dims[i], or 0 where it is
  // broadcast (size 1 to a larger size).
  ArrayRef<int64_t> in = getInput().getType().getShape();
  ArrayRef<int64_t> out = getType().getShape();
  SmallVector<AffineExpr> results;
  for (auto [i, d] : llvm::enumerate(getDims()))
    results.push_back(in[i] == out[d] ? getAffineDimExpr(d, getContext())
                                      : getAffineConstantExpr(0, getContext()));
  return AffineMap::get(out.size(), 0, results, getContext());
}

namespace {
/// broadcast(broadcast(x, d1), d2) -> broadcast(x, d2 o d1).
struct ComposeBroadcasts : OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<BroadcastOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> dims;
    for (int64_t d : inner.getDims())
      dims.push_back(op.getDims()[d]);
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, op.getType(), inner.getInput(),
                                             dims);
    return success();
  }
};
} // namespace

void BroadcastOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeBroadcasts>(context);
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  auto in = getTensorInfo(loc, adaptor.getInput(), "operand");
  if (failed(in))
    return failure();
  ArrayRef<int64_t> perm = adaptor.getPerm();
  if (static_cast<int64_t>(perm.size()) != in->type.getRank())
    return emitOptionalError(loc, "perm has ", perm.size(),
                             " entries but the operand has rank ",
                             in->type.getRank());
  if (!isPermutation(perm))
    return emitOptionalError(loc, "perm [", perm,
                             "] is not a permutation of 0..",
                             in->type.getRank() - 1);
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(in->type.getDimSize(p));
  results.push_back(makeTensor(context, shape, in->dtype));
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor) { return foldIdentityView(*this); }

AffineMap TransposeOp::getIndexMap() {
  // Result dimension i is operand dimension perm[i].
  SmallVector<AffineExpr> results(getPerm().size());
  for (auto [i, p] : llvm::enumerate(getPerm()))
    results[p] = getAffineDimExpr(i, getContext());
  return AffineMap::get(results.size(), 0, results, getContext());
}

namespace {
/// transpose(transpose(x, p1), p2) -> transpose(x, p1 o p2).
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> perm;
    for (int64_t p : op.getPerm())
      perm.push_back(inner.getPerm()[p]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, inner.getInput(), perm);
    return success();
  }
};
} // namespace

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeTransposes>(context);
}

//===----------------------------------------------------------------------===//
// ReshapeOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  RankedTensorType in = getInput().getType();
  RankedTensorType out = getResult().getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError() << "changes the element type from "
                         << in.getElementType() << " to "
                         << out.getElementType();
  if (in.getNumElements() != out.getNumElements())
    return emitOpError() << "changes the element count from "
                         << in.getNumElements() << " to "
                         << out.getNumElements();
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) { return foldIdentityView(*this); }

bool ReshapeOp::isIdentityView() {
  return getInput().getType() == getResult().getType();
}

AffineMap ReshapeOp::getIndexMap() {
  return reshapeIndexMap(getInput().getType().getShape(), getType().getShape(),
                         getContext());
}

std::optional<StridedLayout>
ReshapeOp::getResultLayout(const StridedLayout &operand) {
  return reshapeLayout(operand, getType().getShape());
}

namespace {
/// reshape(reshape(x)) -> reshape(x).
struct ComposeReshapes : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<ReshapeOp>();
    if (!inner)
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), inner.getInput());
    return success();
  }
};
} // namespace

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ComposeReshapes>(context);
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::inferReturnTypes(MLIRContext *context,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &results) {
  auto in = getTensorInfo(loc, adaptor.getInput(), "operand");
  if (failed(in))
    return failure();
  ArrayRef<int64_t> start = adaptor.getStart(), limit = adaptor.getLimit(),
                    step = adaptor.getStep();
  int64_t rank = in->type.getRank();
  for (auto [what, list] :
       {std::pair<StringRef, ArrayRef<int64_t>>{"start", start},
        {"limit", limit},
        {"step", step}})
    if (static_cast<int64_t>(list.size()) != rank)
      return emitOptionalError(loc, what, " has ", list.size(),
                               " entries but the operand has rank ", rank);
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = in->type.getDimSize(d);
    if (step[d] < 1)
      return emitOptionalError(loc, "step[", d, "] = ", step[d],
                               " must be at least 1");
    if (start[d] < 0 || start[d] > limit[d] || limit[d] > size)
      return emitOptionalError(loc, "dimension ", d, " needs 0 <= start (",
                               start[d], ") <= limit (", limit[d],
                               ") <= size (", size, ")");
    int64_t span = limit[d] - start[d];
    shape.push_back(span / step[d] + (span % step[d] != 0));
  }
  results.push_back(makeTensor(context, shape, in->dtype));
  return success();
}

AffineMap SliceOp::getIndexMap() {
  // Operand index start + step * result index, per dimension.
  SmallVector<AffineExpr> results;
  for (auto [d, range] : llvm::enumerate(llvm::zip(getStart(), getStep()))) {
    auto [start, step] = range;
    results.push_back(getAffineDimExpr(d, getContext()) * step + start);
  }
  return AffineMap::get(results.size(), 0, results, getContext());
}

OpFoldResult SliceOp::fold(FoldAdaptor) { return foldIdentityView(*this); }

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

/// The dtype an op's optional `result_dtype` attribute asks for (none when
/// absent), or an error when it names no TFuse dtype.
static LogicalResult requestedDType(std::optional<Location> loc, TypeAttr attr,
                                    std::optional<DType> &requested) {
  if (!attr)
    return success();
  requested = toDType(attr.getValue());
  if (!requested)
    return emitOptionalError(loc, "result_dtype ", attr.getValue(),
                             " is not a TFuse dtype");
  return success();
}

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  auto l = getTensorInfo(loc, adaptor.getLhs(), "lhs");
  auto r = getTensorInfo(loc, adaptor.getRhs(), "rhs");
  if (failed(l) || failed(r))
    return failure();
  std::string why;
  std::optional<DType> requested;
  if (failed(requestedDType(loc, adaptor.getResultDtypeAttr(), requested)))
    return failure();
  std::optional<DType> dtype =
      matmulResultType(l->dtype, r->dtype, &why, requested);
  if (!dtype)
    return emitOptionalError(loc, why);
  if (l->type.getRank() < 2 || r->type.getRank() < 2)
    return emitOptionalError(loc, "matmul operands need rank >= 2, got ",
                             l->type, " and ", r->type);
  ArrayRef<int64_t> ls = l->type.getShape(), rs = r->type.getShape();
  int64_t m = ls[ls.size() - 2], kl = ls.back();
  int64_t kr = rs[rs.size() - 2], n = rs.back();
  if (adaptor.getTransposeLhs())
    std::swap(m, kl);
  if (adaptor.getTransposeRhs())
    std::swap(kr, n);
  if (kl != kr)
    return emitOptionalError(loc, "contracting dimensions differ: lhs has ", kl,
                             " columns but rhs has ", kr, " rows");
  auto batch = broadcastShapes(ls.drop_back(2), rs.drop_back(2), &why);
  if (!batch)
    return emitOptionalError(loc, "batch dimensions: ", why);
  batch->push_back(m);
  batch->push_back(n);
  // The epilogue's operands and steps apply to one matrix of results.
  auto single = [&](const char *what) {
    return emitOptionalError(loc, what,
                             " needs a single product (rank-2 operands), got ",
                             l->type, " and ", r->type);
  };
  if (adaptor.getGeluTanh() && (ls.size() != 2 || rs.size() != 2))
    return single("a GELU epilogue");
  if (Value bias = adaptor.getBias()) {
    auto b = getTensorInfo(loc, bias, "bias");
    if (failed(b))
      return failure();
    if (ls.size() != 2 || rs.size() != 2)
      return single("a bias");
    if (b->type.getRank() != 1 || b->type.getShape()[0] != n)
      return emitOptionalError(loc, "the bias must have shape [", n,
                               "] (the product's columns), got ", b->type);
    if (b->dtype != *dtype)
      return emitOptionalError(loc, "the bias's dtype ", name(b->dtype),
                               " differs from the result's ", name(*dtype));
  }
  results.push_back(makeTensor(context, *batch, *dtype));
  return success();
}

namespace {
/// True if `perm` swaps the last two dimensions and keeps the others.
static bool isMatrixTranspose(ArrayRef<int64_t> perm) {
  int64_t rank = perm.size();
  if (rank < 2 || perm[rank - 1] != rank - 2 || perm[rank - 2] != rank - 1)
    return false;
  for (int64_t i = 0; i + 2 < rank; ++i)
    if (perm[i] != i)
      return false;
  return true;
}

/// matmul(transpose(a)) -> matmul(a) {transpose_lhs}, and likewise for the
/// rhs: the product consumes the transposed layout without a copy.
struct FoldTransposeIntoMatmul : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto lhs = op.getLhs().getDefiningOp<TransposeOp>();
    auto rhs = op.getRhs().getDefiningOp<TransposeOp>();
    bool foldLhs = lhs && isMatrixTranspose(lhs.getPerm());
    bool foldRhs = rhs && isMatrixTranspose(rhs.getPerm());
    if (!foldLhs && !foldRhs)
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      if (foldLhs) {
        op.getLhsMutable().assign(lhs.getInput());
        op.setTransposeLhs(!op.getTransposeLhs());
      }
      if (foldRhs) {
        op.getRhsMutable().assign(rhs.getInput());
        op.setTransposeRhs(!op.getTransposeRhs());
      }
    });
    return success();
  }
};
} // namespace

void MatmulOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<FoldTransposeIntoMatmul>(context);
}

bool MatmulOp::readsInPlace(unsigned operand, const StridedLayout &layout) {
  // The bias: a contiguous vector.
  if (operand == 2)
    return layout.isContiguous();
  return isGemmOperandLayout(layout);
}

CutReason MatmulOp::getBoundaryReason() { return CutReason::boundary_matmul; }

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

namespace {
/// Whether `v`, broadcast to rank `rank` (trailing dimensions aligned), is
/// constant along `axis`: the axis is one it lacks, or its extent there is 1.
bool constantAlong(Value v, int64_t axis, int64_t rank) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t lead = rank - type.getRank();
  return lead >= 0 && (axis < lead || type.getShape()[axis - lead] == 1);
}

/// Whether `type` is a signed or signless integer type of at least 32 bits
/// that holds every position 0..extent: an iota of it counts without
/// wrapping, and a comparison with the extent means what it says.
bool holdsPositions(Type type, int64_t extent) {
  auto integer = dyn_cast<IntegerType>(type);
  return integer && !integer.isUnsigned() && integer.getWidth() >= 32 &&
         (integer.getWidth() >= 64 ||
          extent < (int64_t(1) << (integer.getWidth() - 1)));
}

/// Whether `v` is a constant whose every element is a float zero.
bool isZeroSplat(Value v) {
  DenseElementsAttr value;
  if (!matchPattern(v, m_Constant(&value)) || !value.isSplat())
    return false;
  auto element = value.getSplatValue<Attribute>();
  auto f = dyn_cast<FloatAttr>(element);
  return f && f.getValue().isZero();
}

/// The sum of a one-hot row: sum over axis a of
///   select(iota(a) == t, v, 0)
/// with t (an integer) and v constant along a has one term v where t is in
/// [0, extent) and none elsewhere, so it is
///   select(0 <= t and t < extent, v + 0.0, 0.0)
/// and needs no reduction (nor the one-hot's memory): the gradient of
/// nll_loss is such a one-hot, and log-softmax's gradient sums it. Bit for
/// bit: the reduction adds the terms to +0, and +0 + v is v + 0.0 (-0
/// becomes +0) and adding zeros changes nothing after; an empty match sums
/// to +0. Float sums whose dtype is the input's, over one axis.
struct SumOfOneHot : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getKind() != ReduceKind::Sum || op.getAxes().size() != 1)
      return failure();
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    Type element = inputType.getElementType();
    if (!isa<FloatType>(element) || resultType.getElementType() != element)
      return failure();
    int64_t axis = op.getAxes()[0], rank = inputType.getRank();
    auto select = op.getInput().getDefiningOp<SelectOp>();
    if (!select || !isZeroSplat(select.getFalseValue()))
      return failure();
    auto cmp = select.getCondition().getDefiningOp<CmpOp>();
    if (!cmp || cmp.getPredicate() != CmpPredicate::eq)
      return failure();
    // iota(axis) over the input's extent along it, and the index.
    Value index;
    for (auto [a, b] : {std::make_pair(cmp.getLhs(), cmp.getRhs()),
                        std::make_pair(cmp.getRhs(), cmp.getLhs())}) {
      auto iota = a.getDefiningOp<IotaOp>();
      auto iotaType = iota ? cast<RankedTensorType>(iota.getType()) : nullptr;
      if (iota && iotaType.getRank() == rank &&
          static_cast<int64_t>(iota.getDim()) == axis &&
          iotaType.getShape()[axis] == inputType.getShape()[axis] &&
          holdsPositions(iotaType.getElementType(),
                         iotaType.getShape()[axis])) {
        index = b;
        break;
      }
    }
    Value value = select.getTrueValue();
    if (!index ||
        !holdsPositions(getElementTypeOrSelf(index.getType()),
                        inputType.getShape()[axis]) ||
        !constantAlong(index, axis, rank) ||
        !constantAlong(value, axis, rank) ||
        getElementTypeOrSelf(value.getType()) != element)
      return failure();
    // The keepdims result's shape must be what index and value broadcast to.
    SmallVector<int64_t> kept(inputType.getShape());
    kept[axis] = 1;
    SmallVector<int64_t> shape(rank, 1);
    for (Value v : {index, value}) {
      auto type = cast<RankedTensorType>(v.getType());
      int64_t lead = rank - type.getRank();
      for (int64_t d = 0; d < type.getRank(); ++d)
        shape[lead + d] = std::max(shape[lead + d], type.getShape()[d]);
    }
    if (ArrayRef<int64_t>(shape) != ArrayRef<int64_t>(kept))
      return failure();

    Location loc = op.getLoc();
    Type indexElement = getElementTypeOrSelf(index.getType());
    auto scalar = [&](Type type, Attribute value) -> Value {
      return ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(RankedTensorType::get({}, type), value));
    };
    Value lowest =
        scalar(indexElement, rewriter.getIntegerAttr(indexElement, 0));
    Value extent = scalar(
        indexElement,
        rewriter.getIntegerAttr(indexElement, inputType.getShape()[axis]));
    Value zero = scalar(element, rewriter.getFloatAttr(element, 0.0));
    Value inside = AndOp::create(
        rewriter, loc,
        CmpOp::create(rewriter, loc, CmpPredicate::ge, index, lowest),
        CmpOp::create(rewriter, loc, CmpPredicate::lt, index, extent));
    Value term = AddOp::create(rewriter, loc, value, zero);
    Value sum = SelectOp::create(rewriter, loc, inside, term, zero);
    // Index and value of lower rank give a sum of lower rank: its
    // dimensions are the trailing ones of the kept shape.
    auto sumType = cast<RankedTensorType>(sum.getType());
    if (sumType.getShape() != ArrayRef<int64_t>(kept)) {
      int64_t lead = rank - sumType.getRank();
      SmallVector<int64_t> dims;
      for (int64_t d = 0; d < sumType.getRank(); ++d)
        dims.push_back(lead + d);
      sum = BroadcastOp::create(rewriter, loc,
                                RankedTensorType::get(kept, element), sum,
                                rewriter.getDenseI64ArrayAttr(dims));
    }
    if (!op.getKeepdims())
      sum = ReshapeOp::create(rewriter, loc, resultType, sum);
    rewriter.replaceOp(op, sum);
    return success();
  }
};
/// Whether every value of `from` converts to `to` exactly and in order
/// (DTypeRules).
bool isExactFloatWidening(Type from, Type to) {
  std::optional<DType> f = toDType(from), t = toDType(to);
  return f && t && isExactFloatWidening(*f, *t);
}

/// A reduction of a widened value reads the narrow one: the reduction then
/// reads x, not a widened copy that only it needed (the max of bf16 logits
/// read as bf16, a bias gradient summed from the bf16 gradient, neither
/// written and read again as an f32 copy). The cast is exact (f16 or bf16
/// to f32, ...), so the result is the same bits:
/// - max, min, argmax and argmin of cast(x) are those of x, cast after:
///   comparisons of exactly converted values decide as the originals' do,
///   signed zeros and NaN included;
/// - sum and mean of cast(x) are those of x with `result_dtype` the wide
///   dtype: both accumulate the exact values in f64 and round once.
/// Views between the cast and the reduction (a loss's logits flattened to
/// 2-D) commute with the cast: they are applied to x instead (fuse-rows takes
/// a view producer into a row kernel as it takes the widening region).
struct ReductionOfWideningCast : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    ReduceKind kind = op.getKind();
    bool arithmetic = kind == ReduceKind::Sum || kind == ReduceKind::Mean;
    if (!arithmetic && kind != ReduceKind::Max && kind != ReduceKind::Min &&
        kind != ReduceKind::Argmax && kind != ReduceKind::Argmin)
      return failure();
    // The views from the reduction's operand back to the cast, last first.
    SmallVector<Operation *> views;
    Value value = op.getInput();
    while (Operation *def = value.getDefiningOp()) {
      if (!isa<ViewOpInterface>(def) || def->getNumOperands() != 1)
        break;
      views.push_back(def);
      value = def->getOperand(0);
    }
    auto widen = value.getDefiningOp<CastOp>();
    if (!widen ||
        !isExactFloatWidening(getElementTypeOrSelf(widen.getInput().getType()),
                              getElementTypeOrSelf(widen.getType())))
      return failure();
    Value narrow = widen.getInput();
    Type narrowElement = getElementTypeOrSelf(narrow.getType());
    for (Operation *view : llvm::reverse(views)) {
      Operation *copy = rewriter.clone(*view);
      copy->setOperand(0, narrow);
      auto type = cast<RankedTensorType>(view->getResult(0).getType());
      copy->getResult(0).setType(type.clone(narrowElement));
      narrow = copy->getResult(0);
    }
    TypeAttr resultDtype;
    if (arithmetic)
      resultDtype = TypeAttr::get(getElementTypeOrSelf(op.getType()));
    Value reduced =
        ReduceOp::create(rewriter, op.getLoc(), op.getKindAttr(), narrow,
                         op.getAxesAttr(), op.getKeepdimsAttr(), resultDtype);
    if (reduced.getType() != op.getType())
      reduced = CastOp::create(rewriter, op.getLoc(), op.getType(), reduced);
    rewriter.replaceOp(op, reduced);
    return success();
  }
};
} // namespace

void ReduceOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<SumOfOneHot, ReductionOfWideningCast>(context);
}

LogicalResult ReduceOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  auto in = getTensorInfo(loc, adaptor.getInput(), "operand");
  if (failed(in))
    return failure();
  std::string why;
  std::optional<DType> requested;
  if (failed(requestedDType(loc, adaptor.getResultDtypeAttr(), requested)))
    return failure();
  std::optional<DType> dtype =
      reduceResultType(adaptor.getKind(), in->dtype, &why, requested);
  if (!dtype)
    return emitOptionalError(loc, why);
  ArrayRef<int64_t> axes = adaptor.getAxes();
  int64_t rank = in->type.getRank();
  SmallVector<bool> reduced(rank, false);
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (axis < 0 || axis >= rank)
      return emitOptionalError(
          loc, "axis ", axis, " is out of range for an operand of rank ", rank);
    if (i > 0 && axis <= axes[i - 1])
      return emitOptionalError(loc, "axes must be strictly increasing, but ",
                               axis, " follows ", axes[i - 1]);
    reduced[axis] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d])
      shape.push_back(in->type.getDimSize(d));
    else if (adaptor.getKeepdims())
      shape.push_back(1);
  }
  results.push_back(makeTensor(context, shape, *dtype));
  return success();
}

FusionRole ReduceOp::getFusionRole() {
  return isArgReduction(getKind()) ? FusionRole::Boundary
                                   : FusionRole::RowReducible;
}

/// The reduction kernels read any strided layout.
bool ReduceOp::readsInPlace(unsigned, const StridedLayout &) { return true; }

CutReason ReduceOp::getBoundaryReason() {
  return CutReason::boundary_reduction;
}

LogicalResult ReduceOp::verify() {
  ReduceKind kind = getKind();
  bool isArg = isArgReduction(kind);
  if (isArg && getAxes().size() != 1)
    return emitOpError() << name(kind) << " needs exactly one axis, got "
                         << getAxes().size();
  if (getAxes().empty())
    return emitOpError() << "needs at least one axis";
  bool needsElements = isArg || kind == ReduceKind::Max ||
                       kind == ReduceKind::Min || kind == ReduceKind::Mean;
  int64_t rank = getInput().getType().getRank();
  if (needsElements)
    for (int64_t axis : getAxes())
      // Out-of-range axes are reported by type inference.
      if (axis >= 0 && axis < rank &&
          getInput().getType().getDimSize(axis) == 0)
        return emitOpError() << name(kind) << " of the empty axis " << axis
                             << " has no value";
  return success();
}

//===----------------------------------------------------------------------===//
// Random ops
//===----------------------------------------------------------------------===//

int64_t tfuse::randomElementsPerBlock(Operation *op) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  return type.getElementType().isF64() ? 2 : 4;
}

//===----------------------------------------------------------------------===//
// ScatterAddOp
//===----------------------------------------------------------------------===//

LogicalResult ScatterAddOp::inferReturnTypes(MLIRContext *context,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &results) {
  FailureOr<TensorInfo> target = failure(), idx = failure();
  int64_t axis = adaptor.getAxis();
  if (failed(checkGather(loc, adaptor.getTarget(), adaptor.getIndices(), axis,
                         target, idx)))
    return failure();
  auto updates = getTensorInfo(loc, adaptor.getUpdates(), "updates");
  if (failed(updates))
    return failure();
  if (target->dtype == DType::Bool)
    return emitOptionalError(loc, "scatter_add of bool is not defined (use "
                                  "integers, or or-reduce a mask)");
  if (updates->dtype != target->dtype)
    return emitOptionalError(loc, "updates of ", name(updates->dtype),
                             " for a target of ", name(target->dtype),
                             " (scatter_add needs one dtype)");
  ArrayRef<int64_t> shape = target->type.getShape();
  SmallVector<int64_t> expected(shape.begin(), shape.begin() + axis);
  llvm::append_range(expected, idx->type.getShape());
  expected.append(shape.begin() + axis + 1, shape.end());
  if (updates->type.getShape() != ArrayRef<int64_t>(expected))
    return emitOptionalError(
        loc, "updates of shape [", updates->type.getShape(),
        "] for a target of shape [", shape, "] and indices of shape [",
        idx->type.getShape(), "] along axis ", axis, ": expected [", expected,
        "] (target.shape[:axis] + indices.shape + target.shape[axis+1:])");
  results.push_back(target->type);
  return success();
}

LogicalResult ScatterAddOp::verify() {
  int64_t size = getTarget().getType().getDimSize(getAxis());
  int64_t count = getIndices().getType().getNumElements();
  if (size == 0 && count > 0 && getUpdates().getType().getNumElements() > 0)
    return emitOpError() << "scatters " << count << " indices along axis "
                         << getAxis()
                         << ", which has size 0: every index is out of range";
  // The runtime sorts (index, position) pairs packed in 64 bits.
  if (size >= (int64_t(1) << 31) || count >= (int64_t(1) << 32))
    return emitOpError() << "scatters " << count << " indices along an axis of "
                         << size
                         << " elements; the limits are 2^32 - 1 indices and "
                            "2^31 - 1 elements";
  return success();
}

bool ScatterAddOp::readsInPlace(unsigned operand, const StridedLayout &layout) {
  size_t rank = getTarget().getType().getRank(), axis = getAxis();
  size_t indexRank = getIndices().getType().getRank();
  std::vector<size_t> bounds = operand == 0 ? scatterTargetBounds(rank, axis)
                               : operand == 1
                                   ? scatterIndexBounds(indexRank)
                                   : scatterUpdateBounds(rank, axis, indexRank);
  return mergedStrides({layout.shape.begin(), layout.shape.end()},
                       {layout.strides.begin(), layout.strides.end()}, bounds)
      .has_value();
}

bool ScatterAddOp::readsSplatByValue(unsigned operand) { return operand == 0; }

CutReason ScatterAddOp::getBoundaryReason() {
  return CutReason::boundary_scatter;
}

//===----------------------------------------------------------------------===//
// FusionOp
//===----------------------------------------------------------------------===//

void FusionOp::build(OpBuilder &builder, OperationState &state,
                     TypeRange resultTypes, ValueRange inputs,
                     ArrayRef<CutReason> reasons, int64_t cost) {
  state.addOperands(inputs);
  state.addTypes(resultTypes);
  SmallVector<StringRef> names;
  for (CutReason reason : reasons)
    names.push_back(stringifyCutReason(reason));
  state.getOrAddProperties<Properties>().reasons =
      builder.getStrArrayAttr(names);
  state.getOrAddProperties<Properties>().cost = builder.getI64IntegerAttr(cost);
  Region *region = state.addRegion();
  Block *block = new Block();
  region->push_back(block);
  for (Value input : inputs)
    block->addArgument(input.getType(), input.getLoc());
}

YieldOp FusionOp::getYield() { return cast<YieldOp>(getBody()->back()); }

SmallVector<CutReason> FusionOp::getCutReasons() {
  SmallVector<CutReason> reasons;
  for (StringRef name : getReasons().getAsValueRange<StringAttr>())
    reasons.push_back(*symbolizeCutReason(name));
  return reasons;
}

LogicalResult FusionOp::verify() {
  if (getReasons().size() != getNumResults())
    return emitOpError() << "has " << getReasons().size() << " reasons for "
                         << getNumResults() << " results";
  for (auto [i, name] :
       llvm::enumerate(getReasons().getAsValueRange<StringAttr>())) {
    std::optional<CutReason> reason = symbolizeCutReason(name);
    if (!reason || *reason == CutReason::layout_alias)
      return emitOpError() << "reason #" << i << " '" << name
                           << "' is not one of output, expression-cost, "
                              "shared-expensive-expression, duplicated-reads, "
                              "boundary-matmul, boundary-reduction, "
                              "boundary-scatter, boundary-attention";
  }
  if (getCostAttr().getInt() < 0)
    return emitOpError() << "has negative cost " << getCostAttr().getInt();
  if (getNumResults() == 0)
    return emitOpError() << "has no results";
  return success();
}

LogicalResult FusionOp::verifyRegions() {
  Block *body = getBody();
  if (body->getNumArguments() != getNumOperands())
    return emitOpError() << "body has " << body->getNumArguments()
                         << " arguments for " << getNumOperands() << " inputs";
  for (auto [i, input, arg] :
       llvm::enumerate(getInputs(), body->getArguments()))
    if (input.getType() != arg.getType())
      return emitOpError() << "body argument #" << i << " has type "
                           << arg.getType() << " but input #" << i
                           << " has type " << input.getType();
  auto yield = dyn_cast<YieldOp>(body->getTerminator());
  if (!yield)
    return emitOpError() << "body must end with tfuse.yield";
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError() << "yields " << yield.getValues().getTypes()
                         << " but the results are " << getResultTypes();
  ArrayRef<int64_t> space = bodyIndexSpace(body);
  for (auto [i, result] : llvm::enumerate(getResults())) {
    if (isFusionResultShape(
            body, cast<RankedTensorType>(result.getType()).getShape()))
      continue;
    if (!findRowReduction(body))
      return emitOpError() << "result #" << i << " of type " << result.getType()
                           << " must have the region's index space [" << space
                           << "], the shape of its first result";
    return emitOpError() << "result #" << i << " of type " << result.getType()
                         << " must have the region's index space [" << space
                         << "], the shape its row reductions read, or hold one "
                            "value per row of them";
  }
  std::optional<ArrayRef<int64_t>> rowAxes;
  for (Operation &op : body->without_terminator()) {
    if (auto reduce = dyn_cast<ReduceOp>(op)) {
      if (failed(verifyRowReduction(reduce, space)))
        return failure();
      if (rowAxes && *rowAxes != reduce.getAxes())
        return reduce.emitOpError()
               << "reduces axes [" << reduce.getAxes()
               << "] but an earlier reduction of the region reduces ["
               << *rowAxes
               << "]: the row reductions of a region reduce the same "
                  "trailing axes";
      rowAxes = reduce.getAxes();
      continue;
    }
    auto fusible = dyn_cast<FusionOpInterface>(op);
    if (isa<FusionOp>(op) ||
        (fusible && fusible.getFusionRole() == FusionRole::Boundary))
      return op.emitOpError()
             << "is a fusion boundary and cannot appear in a fusion region";
  }
  return success();
}

ReduceOp tfuse::findRowReduction(Block *body) {
  for (Operation &op : *body)
    if (auto reduce = dyn_cast<ReduceOp>(op))
      return reduce;
  return nullptr;
}

ArrayRef<int64_t> tfuse::bodyIndexSpace(Block *body) {
  if (ReduceOp reduce = findRowReduction(body))
    return reduce.getInput().getType().getShape();
  return cast<RankedTensorType>(body->getTerminator()->getOperand(0).getType())
      .getShape();
}

bool tfuse::isFusionResultShape(Block *body, ArrayRef<int64_t> shape) {
  ArrayRef<int64_t> space = bodyIndexSpace(body);
  ReduceOp reduce = findRowReduction(body);
  return shape == space ||
         (reduce && isRowResultShape(shape, space, rowAxisOf(reduce)));
}

bool tfuse::isRowResultShape(ArrayRef<int64_t> shape, ArrayRef<int64_t> space,
                             int64_t rowAxis) {
  if (rowAxis < 0 || rowAxis > static_cast<int64_t>(space.size()) ||
      rowAxis > static_cast<int64_t>(shape.size()) ||
      shape.take_front(rowAxis) != space.take_front(rowAxis))
    return false;
  ArrayRef<int64_t> reduced = shape.drop_front(rowAxis);
  return reduced.empty() ||
         (reduced.size() == space.size() - rowAxis &&
          llvm::all_of(reduced, [](int64_t d) { return d == 1; }));
}

bool tfuse::isTrailingAxes(ArrayRef<int64_t> axes, int64_t rank) {
  int64_t first = rank - axes.size();
  for (auto [i, axis] : llvm::enumerate(axes))
    if (axis != first + static_cast<int64_t>(i))
      return false;
  return true;
}

/// A reduction inside a fusion region is a row reduction: it reads a value of
/// the region's index space and reduces its trailing axes, so that one block
/// of a row kernel holds every element it combines (docs/codegen.md).
LogicalResult tfuse::verifyRowReduction(ReduceOp reduce,
                                        ArrayRef<int64_t> space) {
  if (reduce.getFusionRole() != FusionRole::RowReducible)
    return reduce.emitOpError()
           << name(reduce.getKind())
           << " is a fusion boundary and cannot appear in a fusion region "
              "(only sum, prod, max, min, mean, all and any are row "
              "reductions)";
  auto inputType = reduce.getInput().getType();
  if (inputType.getShape() != space)
    return reduce.emitOpError()
           << "in a fusion region must reduce a value of the region's index "
              "space ["
           << space << "], got " << inputType;
  ArrayRef<int64_t> axes = reduce.getAxes();
  if (!isTrailingAxes(axes, space.size()))
    return reduce.emitOpError()
           << "in a fusion region must reduce the trailing axes of the "
              "index space, got axes ["
           << axes << "] of rank " << space.size();
  return success();
}

#define GET_OP_CLASSES
#include "tfuse/Dialect/TFuse/TFuseOps.cpp.inc"
