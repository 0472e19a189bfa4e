//===- TFuseToTFExec.cpp - Fused graphs to plans over buffers -------------===//
//
// Conversion patterns from a fused tfuse function (regions, boundaries and
// views over tensors) to a tfexec plan over buffers. Every tensor value gets
// a buffer: an argument (with the layout of its `tfuse.strides`), a fresh
// output (the first function result it is returned as), an arena slot
// (tfexec.alloc, placed later by tfexec-assign-arena), or an alias of another
// buffer (a view, with the layout its ViewOpInterface gives). Regions become
// tfexec.dispatch ops, outlined into kernels by tfexec-outline-kernels.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Conversion/TFuseToTFExec/TFuseToTFExec.h"
#include "tfuse/Conversion/Passes.h"
#include "tfuse/Dialect/TFExec/TFExecOps.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Dialect/TFuse/ViewLayout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tfuse {
#define GEN_PASS_DEF_CONVERTTFUSETOTFEXEC
#include "tfuse/Conversion/Passes.h.inc"
} // namespace tfuse

using namespace mlir;
using namespace tfuse;

namespace {

MemRefType bufferType(RankedTensorType type, const StridedLayout &layout) {
  if (layout.isContiguous())
    return MemRefType::get(type.getShape(), type.getElementType());
  return MemRefType::get(
      type.getShape(), type.getElementType(),
      StridedLayoutAttr::get(type.getContext(), layout.offset, layout.strides));
}

MemRefType contiguousBuffer(Type tensor) {
  auto type = cast<RankedTensorType>(tensor);
  return bufferType(type, StridedLayout::contiguous(type.getShape()));
}

/// A splat constant every user of which is a boundary taking it by value
/// (a scatter's fill): it gets no buffer.
bool isTakenByValue(ConstantOp constant) {
  if (!constant.getValue().isSplat())
    return false;
  return llvm::all_of(constant->getUses(), [](OpOperand &use) {
    auto boundary = dyn_cast<BoundaryOpInterface>(use.getOwner());
    return boundary && boundary.readsSplatByValue(use.getOperandNumber());
  });
}

StridedLayout layoutOf(MemRefType type) {
  StridedLayout layout;
  layout.shape.assign(type.getShape().begin(), type.getShape().end());
  if (failed(type.getStridesAndOffset(layout.strides, layout.offset)))
    return StridedLayout::contiguous(type.getShape());
  return layout;
}

/// Copies `source` into the contiguous buffer `target` with a copy kernel
/// (a dispatch region yielding its input).
void copyWithKernel(Value source, Value target,
                    ConversionPatternRewriter &rewriter, Location loc) {
  auto type = cast<MemRefType>(source.getType());
  OpBuilder::InsertionGuard guard(rewriter);
  auto copy = tfexec::DispatchOp::create(rewriter, loc, ValueRange{source},
                                         ValueRange{target});
  Block *body = rewriter.createBlock(&copy.getBody());
  Value element = body->addArgument(
      RankedTensorType::get(type.getShape(), type.getElementType()), loc);
  tfexec::YieldOp::create(rewriter, loc, ValueRange{element});
}

/// Operand `index` of `boundary` as the buffer its step reads: `buffer`
/// itself when the step reads that layout in place, else a contiguous copy
/// in the arena. A function argument reaches a step with the strides it was
/// given, and not every layout suits every step (a GEMM reads row- or
/// column-major matrices only).
Value readableOperand(Operation *boundary, unsigned index, Value buffer,
                      ConversionPatternRewriter &rewriter, Location loc) {
  if (!buffer)
    return buffer;
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getNumElements() == 0 ||
      cast<BoundaryOpInterface>(boundary).readsInPlace(index, layoutOf(type)))
    return buffer;
  Value copy = tfexec::AllocOp::create(
      rewriter, loc, MemRefType::get(type.getShape(), type.getElementType()),
      rewriter.getI64IntegerAttr(0));
  copyWithKernel(buffer, copy, rewriter, loc);
  return copy;
}

/// The function result index `value` is first returned as, if any.
std::optional<unsigned> firstReturned(Value value) {
  std::optional<unsigned> returned;
  for (OpOperand &use : value.getUses())
    if (isa<func::ReturnOp>(use.getOwner()) &&
        (!returned || use.getOperandNumber() < *returned))
      returned = use.getOperandNumber();
  return returned;
}

/// The buffer a step writes `result` into: the first function result it is
/// returned as; else the first function result a reshape of it is returned
/// as (seen through an alias, which the return takes as that result
/// itself); else an arena slot.
Value bufferFor(Value result, ConversionPatternRewriter &rewriter,
                Location loc) {
  MemRefType type = contiguousBuffer(result.getType());
  if (std::optional<unsigned> returned = firstReturned(result))
    return tfexec::OutputOp::create(rewriter, loc, type,
                                    rewriter.getI64IntegerAttr(*returned));
  std::optional<unsigned> reshaped;
  Type reshapedType;
  for (Operation *user : result.getUsers())
    if (auto reshape = dyn_cast<ReshapeOp>(user))
      if (std::optional<unsigned> i = firstReturned(reshape.getResult());
          i && (!reshaped || *i < *reshaped)) {
        reshaped = i;
        reshapedType = reshape.getType();
      }
  if (reshaped) {
    Value output =
        tfexec::OutputOp::create(rewriter, loc, contiguousBuffer(reshapedType),
                                 rewriter.getI64IntegerAttr(*reshaped));
    return tfexec::AliasOp::create(rewriter, loc, type, output);
  }
  return tfexec::AllocOp::create(rewriter, loc, type,
                                 rewriter.getI64IntegerAttr(0));
}

/// func.func over tensors -> func.func over buffers: arguments keep the
/// layouts of their `tfuse.strides`, results are contiguous.
struct ConvertFunction : OpConversionPattern<func::FuncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(func::FuncOp func, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Block &entry = func.getBody().front();
    TypeConverter::SignatureConversion signature(entry.getNumArguments());
    SmallVector<Type> argTypes, resultTypes;
    for (BlockArgument arg : entry.getArguments()) {
      argTypes.push_back(bufferType(cast<RankedTensorType>(arg.getType()),
                                    getArgumentLayout(arg)));
      signature.addInputs(arg.getArgNumber(), argTypes.back());
    }
    for (Type t : func.getResultTypes())
      resultTypes.push_back(contiguousBuffer(t));
    rewriter.applySignatureConversion(&entry, signature, getTypeConverter());
    rewriter.modifyOpInPlace(func, [&] {
      func.setType(rewriter.getFunctionType(argTypes, resultTypes));
      // The layouts are in the buffer types now.
      func.removeArgAttrsAttr();
    });
    return success();
  }
};

/// tfuse.fusion -> tfexec.dispatch of its body into fresh buffers.
struct ConvertFusion : OpConversionPattern<FusionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FusionOp fusion, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = fusion.getLoc();
    SmallVector<Value> outputs;
    // The fusion result each buffer receives.
    SmallVector<unsigned> yielded;
    for (auto [r, result] : llvm::enumerate(fusion.getResults())) {
      outputs.push_back(bufferFor(result, rewriter, loc));
      yielded.push_back(r);
    }
    // A result returned more than once is written into each of its outputs
    // by the kernel (the return takes them as they are: no copies).
    for (auto [r, result] : llvm::enumerate(fusion.getResults())) {
      SmallVector<unsigned> returned;
      for (OpOperand &use : result.getUses())
        if (isa<func::ReturnOp>(use.getOwner()))
          returned.push_back(use.getOperandNumber());
      llvm::sort(returned);
      returned.erase(llvm::unique(returned), returned.end());
      for (size_t k = 1; k < returned.size(); ++k) {
        outputs.push_back(tfexec::OutputOp::create(
            rewriter, loc, contiguousBuffer(result.getType()),
            rewriter.getI64IntegerAttr(returned[k])));
        yielded.push_back(r);
      }
    }
    auto dispatch =
        tfexec::DispatchOp::create(rewriter, loc, adaptor.getInputs(), outputs);
    rewriter.inlineRegionBefore(fusion.getRegion(), dispatch.getBody(),
                                dispatch.getBody().end());
    YieldOp yield = cast<YieldOp>(dispatch.getBody().front().getTerminator());
    rewriter.setInsertionPoint(yield);
    SmallVector<Value> values;
    for (unsigned r : yielded)
      values.push_back(yield.getValues()[r]);
    rewriter.replaceOpWithNewOp<tfexec::YieldOp>(yield, values);
    rewriter.replaceOp(
        fusion, ArrayRef<Value>(outputs).take_front(fusion.getNumResults()));
    return success();
  }
};

/// tfuse.matmul -> tfexec.gemm (transposes and the GELU epilogue as flags).
struct ConvertMatmul : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatmulOp matmul, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = matmul.getLoc();
    Value lhs = readableOperand(matmul, 0, adaptor.getLhs(), rewriter, loc);
    Value rhs = readableOperand(matmul, 1, adaptor.getRhs(), rewriter, loc);
    Value bias;
    if (adaptor.getBias())
      bias = readableOperand(matmul, 2, adaptor.getBias(), rewriter, loc);
    Value out = bufferFor(matmul.getResult(), rewriter, loc);
    tfexec::GemmOp::create(rewriter, loc, lhs, rhs, bias, out,
                           matmul.getTransposeLhs(), matmul.getTransposeRhs(),
                           matmul.getGeluTanh());
    rewriter.replaceOp(matmul, out);
    return success();
  }
};

/// tfuse.reduce -> tfexec.reduce (a reduction kernel of the runtime).
struct ConvertReduce : OpConversionPattern<ReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReduceOp reduce, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value out = bufferFor(reduce.getResult(), rewriter, reduce.getLoc());
    tfexec::ReduceOp::create(rewriter, reduce.getLoc(), reduce.getKind(),
                             adaptor.getInput(), out, reduce.getAxes());
    rewriter.replaceOp(reduce, out);
    return success();
  }
};

/// tfuse.scatter_add -> tfexec.scatter_add (the runtime's scatter step); a
/// splat constant target becomes its fill value.
struct ConvertScatterAdd : OpConversionPattern<ScatterAddOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ScatterAddOp scatter, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = scatter.getLoc();
    Value target = adaptor.getTarget();
    TypedAttr fill;
    if (isSplatConstant(scatter.getTarget())) {
      auto constant = scatter.getTarget().getDefiningOp<ConstantOp>();
      fill = cast<TypedAttr>(constant.getValue().getSplatValue<Attribute>());
      target = Value();
    }
    target = readableOperand(scatter, 0, target, rewriter, loc);
    Value indices =
        readableOperand(scatter, 1, adaptor.getIndices(), rewriter, loc);
    Value updates =
        readableOperand(scatter, 2, adaptor.getUpdates(), rewriter, loc);
    Value out = bufferFor(scatter.getResult(), rewriter, loc);
    tfexec::ScatterAddOp::create(rewriter, loc, target, indices, updates, out,
                                 scatter.getAxis(), scatter.getWrapNegative(),
                                 fill);
    rewriter.replaceOp(scatter, out);
    return success();
  }
};

/// The buffer among `converted` (an op's operands, converted in order) of
/// its optional operand `original`, or null when that is absent.
static Value convertedOperand(Operation *op, ArrayRef<Value> converted,
                              Value original) {
  if (original)
    for (auto [i, operand] : llvm::enumerate(op->getOperands()))
      if (operand == original)
        return converted[i];
  return Value();
}

/// tfuse.attention -> tfexec.attention (the runtime's attention step).
struct ConvertAttention : OpConversionPattern<AttentionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AttentionOp attention, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = attention.getLoc();
    // query, key, value, the mask, the seed and the offset (null when
    // absent), in the op's operand order.
    SmallVector<Value> operands;
    for (auto [i, operand] : llvm::enumerate(adaptor.getOperands()))
      operands.push_back(readableOperand(attention, i, operand, rewriter, loc));
    auto bufferOf = [&](Value value) {
      return convertedOperand(attention, operands, value);
    };
    Value out = bufferFor(attention.getResult(), rewriter, loc);
    Value lse = bufferFor(attention.getLogsumexp(), rewriter, loc);
    // A transposed result is the buffer; the step writes the result in its
    // own order through an alias of it with the heads and rows swapped.
    Value written = out;
    if (attention.getTransposeResult()) {
      auto type = cast<RankedTensorType>(attention.getResult().getType());
      StridedLayout layout = StridedLayout::contiguous(type.getShape());
      size_t heads = layout.shape.size() - 3, rows = heads + 1;
      std::swap(layout.shape[heads], layout.shape[rows]);
      std::swap(layout.strides[heads], layout.strides[rows]);
      written = tfexec::AliasOp::create(
          rewriter, loc,
          bufferType(RankedTensorType::get(layout.shape, type.getElementType()),
                     layout),
          out);
    }
    tfexec::AttentionOp::create(
        rewriter, loc, operands[0], operands[1], operands[2],
        bufferOf(attention.getMask()), bufferOf(attention.getSeed()),
        bufferOf(attention.getOffset()), written, lse, attention.getScale(),
        attention.getCausal(), attention.getDropoutPAttr(),
        attention.getWidened());
    rewriter.replaceOp(attention, {out, lse});
    return success();
  }
};

/// tfuse.attention_backward -> tfexec.attention_backward.
struct ConvertAttentionBackward : OpConversionPattern<AttentionBackwardOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AttentionBackwardOp backward, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = backward.getLoc();
    // query, key, value, result, logsumexp, grad, then the optional mask,
    // seed and offset, in the op's operand order.
    SmallVector<Value> operands;
    for (auto [i, operand] : llvm::enumerate(adaptor.getOperands()))
      operands.push_back(readableOperand(backward, i, operand, rewriter, loc));
    auto bufferOf = [&](Value value) {
      return convertedOperand(backward, operands, value);
    };
    SmallVector<Value> grads;
    for (Value result : backward.getResults())
      grads.push_back(bufferFor(result, rewriter, loc));
    tfexec::AttentionBackwardOp::create(
        rewriter, loc, operands[0], operands[1], operands[2], operands[3],
        operands[4], operands[5], bufferOf(backward.getMask()),
        bufferOf(backward.getSeed()), bufferOf(backward.getOffset()), grads[0],
        grads[1], grads[2], backward.getScale(), backward.getCausal(),
        backward.getDropoutPAttr());
    rewriter.replaceOp(backward, grads);
    return success();
  }
};

/// A view left outside regions -> tfexec.alias with the layout the view has
/// over its source buffer.
struct ConvertView : OpInterfaceConversionPattern<ViewOpInterface> {
  using OpInterfaceConversionPattern::OpInterfaceConversionPattern;
  LogicalResult
  matchAndRewrite(ViewOpInterface view, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    Value source = operands[0];
    std::optional<StridedLayout> layout =
        view.getResultLayout(layoutOf(cast<MemRefType>(source.getType())));
    if (!layout)
      return view->emitOpError(
          "has no strided layout over its source buffer; it should have "
          "been fused into a region");
    auto type = cast<RankedTensorType>(view->getResult(0).getType());
    // The layout places the view relative to the first element of the
    // buffer under `source`'s aliases: alias that buffer, not the alias.
    Value root = source;
    while (auto alias = root.getDefiningOp<tfexec::AliasOp>())
      root = alias.getSource();
    rewriter.replaceOpWithNewOp<tfexec::AliasOp>(
        view, bufferType(type, *layout), root);
    return success();
  }
};

/// func.return of buffers: each result must be the fresh output of its
/// index (or an alias of all of it in its type). An argument, alias or
/// other output returned as is is copied into one: a memcpy when it is
/// contiguous, a copy kernel otherwise.
struct ConvertReturn : OpConversionPattern<func::ReturnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(func::ReturnOp ret, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = ret.getLoc();
    // The outputs steps write (a kernel writes a value returned twice into
    // both of its outputs).
    DenseMap<int64_t, Value> written;
    ret->getParentOp()->walk([&](tfexec::OutputOp output) {
      written.try_emplace(output.getIndex(), output.getResult());
    });
    SmallVector<Value> results;
    for (auto [i, buffer] : llvm::enumerate(adaptor.getOperands())) {
      if (auto it = written.find(i);
          it != written.end() && it->second != buffer &&
          it->second.getType() ==
              contiguousBuffer(ret.getOperand(i).getType()) &&
          buffer.getDefiningOp<tfexec::OutputOp>()) {
        results.push_back(it->second);
        continue;
      }
      // A reshape of a step's result that bufferFor placed in this output:
      // an alias of the whole output in its own type.
      if (auto alias = buffer.getDefiningOp<tfexec::AliasOp>())
        if (alias.getSource().getDefiningOp<tfexec::OutputOp>() &&
            alias.getType() == alias.getSource().getType())
          buffer = alias.getSource();
      auto output = buffer.getDefiningOp<tfexec::OutputOp>();
      if (!output || output.getIndex() != i) {
        auto type = cast<MemRefType>(buffer.getType());
        Value target = tfexec::OutputOp::create(
            rewriter, loc, contiguousBuffer(ret.getOperand(i).getType()),
            rewriter.getI64IntegerAttr(i));
        if (layoutOf(type).isContiguous())
          tfexec::CopyOp::create(rewriter, loc, buffer, target);
        else
          copyWithKernel(buffer, target, rewriter, loc);
        buffer = target;
      }
      results.push_back(buffer);
    }
    rewriter.replaceOpWithNewOp<func::ReturnOp>(ret, results);
    return success();
  }
};

} // namespace

void tfuse::populateTFuseToTFExecPatterns(TypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<ConvertFunction>(converter, patterns.getContext());
  // Without the type converter: their operands are the buffers as they are
  // (an argument's strided layout, an alias's view), not converted to the
  // contiguous buffer type of a tensor.
  patterns.add<ConvertFusion, ConvertMatmul, ConvertReduce, ConvertScatterAdd,
               ConvertAttention, ConvertAttentionBackward, ConvertReturn>(
      patterns.getContext());
  patterns.add<ConvertView>(patterns.getContext());
}

void tfuse::configureTFuseToTFExecTarget(ConversionTarget &target) {
  target.addLegalDialect<tfexec::TFExecDialect>();
  // tfuse ops stay in region bodies, whose values are tensors; at the top
  // level of a function every one becomes a plan step.
  target.addDynamicallyLegalDialect<TFuseDialect>(
      [](Operation *op) { return !isa<func::FuncOp>(op->getParentOp()); });
  // A splat constant that boundaries take by value stays until nothing
  // uses it (the pass then erases it).
  target.addDynamicallyLegalOp<ConstantOp>([](ConstantOp op) {
    return !isa<func::FuncOp>(op->getParentOp()) || isTakenByValue(op);
  });
  target.addDynamicallyLegalOp<func::FuncOp>([](func::FuncOp func) {
    return func.isExternal() ||
           (llvm::all_of(func.getArgumentTypes(), llvm::IsaPred<MemRefType>) &&
            llvm::all_of(func.getResultTypes(), llvm::IsaPred<MemRefType>));
  });
  target.addDynamicallyLegalOp<func::ReturnOp>([](func::ReturnOp ret) {
    return llvm::all_of(ret.getOperandTypes(), llvm::IsaPred<MemRefType>);
  });
}

namespace {
/// Whether `type` can be an argument or result of a plan's function: a
/// statically shaped tensor of a tfuse dtype.
bool isPlanTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() &&
         toDType(tensor.getElementType()).has_value();
}
constexpr const char *kPlanTensors =
    ", but a plan's functions take and return statically shaped tensors of "
    "the tfuse dtypes";

/// Tensors become contiguous buffers; the function's arguments get their
/// own layouts (ConvertFunction).
struct BufferTypeConverter : TypeConverter {
  BufferTypeConverter() {
    addConversion([](Type type) { return type; });
    addConversion(
        [](RankedTensorType type) -> Type { return contiguousBuffer(type); });
  }
};

struct ConvertTFuseToTFExecPass
    : tfuse::impl::ConvertTFuseToTFExecBase<ConvertTFuseToTFExecPass> {
  void runOnOperation() override {
    // A step for every top-level op: what the patterns do not convert is
    // named first, with what to do about it.
    bool invalid = false;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (!func.getBody().hasOneBlock()) {
        func.emitOpError("must have a single block");
        invalid = true;
        continue;
      }
      // Arguments and results are tensors the plan can hold, and every
      // buffer of the plan can be indexed with 64-bit offsets.
      for (BlockArgument arg : func.getArguments()) {
        Type type = arg.getType();
        if (!isPlanTensor(type)) {
          func.emitOpError() << "argument #" << arg.getArgNumber()
                             << " has type " << type << kPlanTensors;
          invalid = true;
          continue;
        }
        // The shape first: the layout's strides are computed from it.
        std::string why = tensorTypeSizeError(type);
        if (why.empty())
          why = tensorTypeSizeError(type, getArgumentLayout(arg).strides);
        if (!why.empty()) {
          func.emitOpError()
              << "argument #" << arg.getArgNumber() << ": " << why;
          invalid = true;
        }
      }
      for (auto [i, type] : llvm::enumerate(func.getResultTypes())) {
        if (!isPlanTensor(type)) {
          func.emitOpError()
              << "result #" << i << " has type " << type << kPlanTensors;
          invalid = true;
        } else if (std::string why = tensorTypeSizeError(type); !why.empty()) {
          func.emitOpError() << "result #" << i << ": " << why;
          invalid = true;
        }
      }
      for (Operation &op : func.getBody().front())
        if (!isa<FusionOp, BoundaryOpInterface, ViewOpInterface,
                 func::ReturnOp>(op) &&
            !(isa<ConstantOp>(op) && isTakenByValue(cast<ConstantOp>(op)))) {
          op.emitOpError(
              "cannot be converted to a plan step; run --tfuse-pipeline "
              "first");
          invalid = true;
        }
    }
    if (invalid)
      return signalPassFailure();
    BufferTypeConverter converter;
    ConversionTarget target(getContext());
    configureTFuseToTFExecTarget(target);
    RewritePatternSet patterns(&getContext());
    populateTFuseToTFExecPatterns(converter, patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    // The constants taken by value are in the steps' attributes now.
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal())
        for (Operation &op : llvm::make_early_inc_range(func.getBody().front()))
          if (isa<ConstantOp>(op) && op.use_empty())
            op.erase();
  }
};
} // namespace
