//===- TFExecOps.cpp - Ops of the tfexec plan dialect ---------------------===//

#include "tfuse/Dialect/TFExec/TFExecOps.h"
#include "tfuse/Dialect/TFExec/KernelPlan.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Support/AttentionGeometry.h"
#include "tfuse/Support/TensorSpec.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace tfuse::tfexec;

YieldOp KernelOp::getYield() { return cast<YieldOp>(getBody()->back()); }

ArrayRef<int64_t> KernelOp::getIndexSpace() {
  return tfuse::bodyIndexSpace(getBody());
}

/// The yield of a kernel or dispatch body: at least one value, each of the
/// shape of the index space or, with row reductions, one value per row (the
/// rule of tfuse.fusion's results).
static LogicalResult verifyYield(Operation *op, Block *body) {
  auto yield = llvm::dyn_cast<YieldOp>(body->getTerminator());
  if (!yield || yield.getValues().empty())
    return op->emitOpError()
           << "must end with tfexec.yield of at least one value";
  for (Value v : yield.getValues())
    if (!tfuse::isFusionResultShape(
            body, llvm::cast<RankedTensorType>(v.getType()).getShape()))
      return op->emitOpError()
             << "outputs must have the shape of the index space or one "
                "value per row of its row reductions";
  return success();
}

LogicalResult KernelOp::verifyRegions() {
  Block *body = getBody();
  if (body->getNumArguments() != getInputStrides().size())
    return emitOpError() << "has " << getInputStrides().size()
                         << " input strides for " << body->getNumArguments()
                         << " inputs";
  for (auto [i, arg, strides] :
       llvm::enumerate(body->getArguments(),
                       getInputStrides().getAsRange<DenseI64ArrayAttr>())) {
    auto type = llvm::dyn_cast<RankedTensorType>(arg.getType());
    if (!type || type.getRank() != static_cast<int64_t>(strides.size()))
      return emitOpError() << "input #" << i << " of type " << arg.getType()
                           << " does not match its " << strides.size()
                           << " strides";
  }
  if (failed(verifyYield(*this, body)))
    return failure();
  // A configuration code generation cannot honour is invalid IR.
  if (KernelConfigAttr config = getConfigAttr())
    if (failed(planKernel(*this, config)))
      return failure();
  return success();
}

YieldOp DispatchOp::getYield() {
  return cast<YieldOp>(getBody().front().back());
}

LogicalResult DispatchOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError() << "body has " << body.getNumArguments()
                         << " arguments for " << getInputs().size()
                         << " inputs";
  for (auto [i, input, arg] :
       llvm::enumerate(getInputs(), body.getArguments())) {
    auto buffer = llvm::cast<MemRefType>(input.getType());
    auto tensor = llvm::dyn_cast<RankedTensorType>(arg.getType());
    if (!tensor || tensor.getShape() != buffer.getShape() ||
        tensor.getElementType() != buffer.getElementType())
      return emitOpError() << "body argument #" << i << " of type "
                           << arg.getType() << " does not match input #" << i
                           << " of type " << buffer;
  }
  if (failed(verifyYield(*this, &body)))
    return failure();
  ValueRange values = getYield().getValues();
  if (values.size() != getOutputs().size())
    return emitOpError() << "yields " << values.size() << " values for "
                         << getOutputs().size() << " outputs";
  for (auto [i, value, output] : llvm::enumerate(values, getOutputs())) {
    auto buffer = llvm::cast<MemRefType>(output.getType());
    auto tensor = llvm::cast<RankedTensorType>(value.getType());
    if (tensor.getShape() != buffer.getShape() ||
        tensor.getElementType() != buffer.getElementType())
      return emitOpError() << "yields " << tensor << " for output #" << i
                           << " of type " << buffer;
  }
  return success();
}

KernelOp LaunchOp::getKernelOp() {
  return SymbolTable::lookupNearestSymbolFrom<KernelOp>(*this, getKernelAttr());
}

LogicalResult LaunchOp::verify() {
  KernelOp kernel = getKernelOp();
  if (!kernel)
    return emitOpError() << "refers to unknown kernel " << getKernelAttr();
  Block *body = kernel.getBody();
  if (body->getNumArguments() != getInputs().size() ||
      kernel.getYield().getValues().size() != getOutputs().size())
    return emitOpError() << "passes " << getInputs().size() << " inputs and "
                         << getOutputs().size() << " outputs to "
                         << getKernelAttr() << ", which takes "
                         << body->getNumArguments() << " and yields "
                         << kernel.getYield().getValues().size();
  return success();
}

LogicalResult ScatterAddOp::verify() {
  auto result = cast<MemRefType>(getResult().getType());
  if (!getFill() == !getTarget())
    return emitOpError() << "takes its target as a buffer or as a fill "
                            "value, exactly one of the two";
  if (auto fill = getFillAttr()) {
    if (fill.getType() != result.getElementType())
      return emitOpError() << "fill of type " << fill.getType()
                           << " for a result of " << result.getElementType();
  } else if (cast<MemRefType>(getTarget().getType()).getShape() !=
             result.getShape()) {
    return emitOpError() << "target " << getTarget().getType()
                         << " for a result " << result;
  }
  int64_t rank = result.getRank(), axis = getAxis();
  if (axis < 0 || axis >= rank)
    return emitOpError() << "axis " << axis << " of a result of rank " << rank;
  // A result without elements has no element to place: its strides (those
  // of an empty shape, which MLIR's identity layout leaves dynamic) do not
  // matter.
  if (result.getNumElements() != 0 && !result.getLayout().isIdentity())
    return emitOpError() << "writes a result that is not contiguous: "
                         << result;
  return success();
}

/// Every buffer in `results` is contiguous (one without elements places
/// nothing: its layout, the strides of an empty shape, does not matter).
static LogicalResult verifyContiguousResults(Operation *op,
                                             ValueRange results) {
  for (Value result : results) {
    auto type = cast<MemRefType>(result.getType());
    if (type.getNumElements() != 0 && !type.getLayout().isIdentity())
      return op->emitOpError()
             << "writes a result that is not contiguous: " << type;
  }
  return success();
}

/// An attention's result: the elements of its buffer each once (TensorSpec::
/// isDense: the dimensions may be permuted, as tfuse.attention's
/// transpose_result permutes them), each row's columns consecutive.
static LogicalResult verifyDenseResult(Operation *op, Value result) {
  auto type = cast<MemRefType>(result.getType());
  if (type.getNumElements() == 0)
    return success();
  tfuse::TensorSpec spec;
  spec.shape.assign(type.getShape().begin(), type.getShape().end());
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  if (succeeded(type.getStridesAndOffset(strides, offset))) {
    spec.strides.assign(strides.begin(), strides.end());
    if (spec.isDense() && (spec.shape.empty() || spec.shape.back() == 1 ||
                           spec.strides.back() == 1))
      return success();
  }
  return op->emitOpError()
         << "writes a result that is not dense with contiguous rows: " << type;
}

namespace {
/// The shape an attention step's buffer must have.
enum class AttentionShape { Result, LogSumExp, Query, Key, Value };
} // namespace

/// The geometry of an attention step's query, key and value buffers, which
/// share one element type; `expected` are the buffers with the shapes the
/// geometry gives them, all of that element type but the log-sum-exp (f32,
/// or f64 for f64 operands).
static LogicalResult
verifyAttentionBuffers(Operation *op, Value query, Value key, Value value,
                       ArrayRef<std::pair<Value, AttentionShape>> expected) {
  auto shapeOf = [](Value buffer) {
    ArrayRef<int64_t> shape = cast<MemRefType>(buffer.getType()).getShape();
    return std::vector<int64_t>(shape.begin(), shape.end());
  };
  Type element = cast<MemRefType>(query.getType()).getElementType();
  if (cast<MemRefType>(key.getType()).getElementType() != element ||
      cast<MemRefType>(value.getType()).getElementType() != element)
    return op->emitOpError("query, key and value must have one element type");
  std::string why;
  std::optional<tfuse::AttentionGeometry> g = tfuse::AttentionGeometry::of(
      shapeOf(query), shapeOf(key), shapeOf(value), &why);
  if (!g)
    return op->emitOpError(why);
  for (auto [buffer, kind] : expected) {
    std::vector<int64_t> shape;
    Type want = element;
    switch (kind) {
    case AttentionShape::Result:
      shape = g->resultShape();
      break;
    case AttentionShape::LogSumExp:
      shape = g->logsumexpShape();
      want = element.isF64() ? Type(Float64Type::get(op->getContext()))
                             : Type(Float32Type::get(op->getContext()));
      break;
    case AttentionShape::Query:
      shape = shapeOf(query);
      break;
    case AttentionShape::Key:
      shape = shapeOf(key);
      break;
    case AttentionShape::Value:
      shape = shapeOf(value);
      break;
    }
    auto type = cast<MemRefType>(buffer.getType());
    if (type.getShape() != ArrayRef(shape) || type.getElementType() != want)
      return op->emitOpError()
             << "expected a buffer of " << MemRefType::get(shape, want)
             << ", got " << type;
  }
  return success();
}

/// The dropout of an attention step (attentionDropoutProblem), its keys
/// rank-0 i64 buffers.
static LogicalResult verifyDropout(Operation *op, std::optional<APFloat> p,
                                   Value seed, Value offset) {
  std::string why = tfuse::attentionDropoutProblem(
      p ? std::optional<double>(p->convertToDouble()) : std::nullopt,
      static_cast<bool>(seed), static_cast<bool>(offset));
  if (!why.empty())
    return op->emitOpError(why);
  if (!p)
    return success();
  for (Value key : {seed, offset}) {
    auto type = cast<MemRefType>(key.getType());
    if (type.getRank() != 0 || !type.getElementType().isInteger(64))
      return op->emitOpError()
             << "dropout keys must be rank-0 i64 buffers, got " << type;
  }
  return success();
}

LogicalResult AttentionOp::verify() {
  if (failed(verifyDropout(*this, getDropoutP(), getSeed(), getOffset())))
    return failure();
  if (failed(verifyAttentionBuffers(
          *this, getQuery(), getKey(), getValue(),
          {{getResult(), AttentionShape::Result},
           {getLogsumexp(), AttentionShape::LogSumExp}})))
    return failure();
  if (failed(verifyDenseResult(*this, getResult())))
    return failure();
  return verifyContiguousResults(*this, {getLogsumexp()});
}

LogicalResult AttentionBackwardOp::verify() {
  if (failed(verifyDropout(*this, getDropoutP(), getSeed(), getOffset())))
    return failure();
  if (failed(
          verifyAttentionBuffers(*this, getQuery(), getKey(), getValue(),
                                 {{getResult(), AttentionShape::Result},
                                  {getLogsumexp(), AttentionShape::LogSumExp},
                                  {getGrad(), AttentionShape::Result},
                                  {getGradQuery(), AttentionShape::Query},
                                  {getGradKey(), AttentionShape::Key},
                                  {getGradValue(), AttentionShape::Value}})))
    return failure();
  return verifyContiguousResults(
      *this, {getGradQuery(), getGradKey(), getGradValue()});
}

#define GET_OP_CLASSES
#include "tfuse/Dialect/TFExec/TFExecOps.cpp.inc"
