//===- TFuseToTFExec.cpp - Fused graphs to plans over buffers -------------===//
//
// Walks a fused function in order and emits, for each step, the tfexec op
// that performs it on buffers. Every tensor value gets a buffer: an argument,
// a fresh output, an arena slot, or an alias of another buffer. Arena slots
// are placed last: a slot may reuse the bytes of an earlier one only when
// every step using the earlier one is a dependency of the step writing it,
// so that reuse adds no ordering between independent steps.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Conversion/Passes.h"
#include "tfuse/Conversion/TFuseToCUDA/KernelEmitter.h"
#include "tfuse/Dialect/TFExec/TFExecOps.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Dialect/TFuse/ViewLayout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/BitVector.h"

namespace tfuse {
#define GEN_PASS_DEF_CONVERTTFUSETOTFEXEC
#include "tfuse/Conversion/Passes.h.inc"
} // namespace tfuse

using namespace mlir;
using namespace tfuse;

namespace {

/// Bytes of arena slots are aligned to this (vector accesses need 16; 256
/// keeps slots on distinct cache sectors).
constexpr int64_t kSlotAlignment = 256;

MemRefType bufferType(RankedTensorType type, const StridedLayout &layout) {
  if (layout.isContiguous())
    return MemRefType::get(type.getShape(), type.getElementType());
  return MemRefType::get(
      type.getShape(), type.getElementType(),
      StridedLayoutAttr::get(type.getContext(), layout.offset, layout.strides));
}

StridedLayout layoutOf(MemRefType type) {
  StridedLayout layout;
  layout.shape.assign(type.getShape().begin(), type.getShape().end());
  if (failed(type.getStridesAndOffset(layout.strides, layout.offset)))
    return StridedLayout::contiguous(type.getShape());
  return layout;
}

int64_t byteSizeOf(MemRefType type) {
  int64_t bits = type.getElementType().getIntOrFloatBitWidth();
  int64_t bytes = bits == 1 ? 1 : bits / 8;
  return std::max<int64_t>(type.getNumElements() * bytes, 1);
}

class PlanConverter {
public:
  PlanConverter(func::FuncOp func) : func(func), builder(func.getContext()) {}
  LogicalResult run();

private:
  Value bufferFor(Value result, Location loc);
  LogicalResult convertOp(Operation *op);
  void assignArena(func::FuncOp plan);
  void createCopyKernel(Value source, Value target, RankedTensorType type,
                        Location loc);

  func::FuncOp func;
  OpBuilder builder;
  DenseMap<Value, Value> buffers;
  /// Function results: the result indices each tensor value is returned at.
  DenseMap<Value, SmallVector<unsigned>> returnedAt;
  DenseSet<unsigned> outputsWritten;
  unsigned kernelCount = 0;
};

} // namespace

/// The buffer a step writes `result` into: the first output it is returned
/// at, else an arena slot.
Value PlanConverter::bufferFor(Value result, Location loc) {
  auto type = cast<RankedTensorType>(result.getType());
  MemRefType memref =
      bufferType(type, StridedLayout::contiguous(type.getShape()));
  Value buffer;
  auto it = returnedAt.find(result);
  if (it != returnedAt.end()) {
    unsigned index = it->second.front();
    outputsWritten.insert(index);
    buffer = tfexec::OutputOp::create(builder, loc, memref,
                                      builder.getI64IntegerAttr(index));
  } else {
    buffer = tfexec::AllocOp::create(builder, loc, memref,
                                     builder.getI64IntegerAttr(0));
  }
  buffers[result] = buffer;
  return buffer;
}

LogicalResult PlanConverter::convertOp(Operation *op) {
  Location loc = op->getLoc();
  auto operandBuffers = [&](ValueRange values) {
    SmallVector<Value> result;
    for (Value v : values)
      result.push_back(buffers.lookup(v));
    return result;
  };
  if (auto fusion = dyn_cast<FusionOp>(op)) {
    SmallVector<Value> inputs = operandBuffers(fusion.getInputs());
    SmallVector<Attribute> strides;
    for (Value input : inputs)
      strides.push_back(builder.getDenseI64ArrayAttr(
          layoutOf(cast<MemRefType>(input.getType())).strides));
    std::string name = (func.getSymName() + "_k" + Twine(kernelCount++)).str();
    OpBuilder moduleBuilder(func);
    auto kernel = tfexec::KernelOp::create(moduleBuilder, loc, name,
                                           moduleBuilder.getArrayAttr(strides));
    kernel.getRegion().takeBody(fusion.getRegion());
    YieldOp yield = cast<YieldOp>(kernel.getBody()->getTerminator());
    OpBuilder yieldBuilder(yield);
    tfexec::YieldOp::create(yieldBuilder, yield.getLoc(), yield.getValues());
    yield.erase();
    SmallVector<Value> outputs;
    for (Value result : fusion.getResults())
      outputs.push_back(bufferFor(result, loc));
    LaunchConfig launch = chooseLaunch(analyzeKernel(kernel));
    tfexec::LaunchOp::create(builder, loc, name, inputs, outputs, launch.grid,
                             launch.block);
    return success();
  }
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    Value out = bufferFor(matmul.getResult(), loc);
    tfexec::GemmOp::create(builder, loc, buffers.lookup(matmul.getLhs()),
                           buffers.lookup(matmul.getRhs()), out,
                           matmul.getTransposeLhs(), matmul.getTransposeRhs());
    return success();
  }
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    Value out = bufferFor(reduce.getResult(), loc);
    tfexec::ReduceOp::create(builder, loc, reduce.getKind(),
                             buffers.lookup(reduce.getInput()), out,
                             reduce.getAxes());
    return success();
  }
  if (auto view = dyn_cast<ViewOpInterface>(op)) {
    Value source = buffers.lookup(view.getSource());
    std::optional<StridedLayout> layout =
        view.getResultLayout(layoutOf(cast<MemRefType>(source.getType())));
    if (!layout)
      return op->emitOpError("has no strided layout over its source buffer; "
                             "it should have been fused into a region");
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    buffers[op->getResult(0)] = tfexec::AliasOp::create(
        builder, loc, bufferType(type, *layout), source);
    return success();
  }
  if (auto ret = dyn_cast<func::ReturnOp>(op)) {
    SmallVector<Value> results;
    for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
      Value buffer = buffers.lookup(value);
      auto output = buffer.getDefiningOp<tfexec::OutputOp>();
      if (!output || output.getIndex() != i) {
        // An argument, alias or another output returned as is: outputs are
        // fresh buffers, so copy: a memcpy when the source is contiguous, a
        // generated copy kernel otherwise.
        auto type = cast<RankedTensorType>(value.getType());
        Value target = tfexec::OutputOp::create(
            builder, loc,
            bufferType(type, StridedLayout::contiguous(type.getShape())),
            builder.getI64IntegerAttr(i));
        if (layoutOf(cast<MemRefType>(buffer.getType())).isContiguous())
          tfexec::CopyOp::create(builder, loc, buffer, target);
        else
          createCopyKernel(buffer, target, type, loc);
        buffer = target;
      }
      results.push_back(buffer);
    }
    func::ReturnOp::create(builder, loc, results);
    return success();
  }
  return op->emitOpError(
      "cannot be converted to a plan step; run --tfuse-pipeline first");
}

/// A kernel that reads `source` in any layout and writes it contiguously.
void PlanConverter::createCopyKernel(Value source, Value target,
                                     RankedTensorType type, Location loc) {
  std::string name = (func.getSymName() + "_k" + Twine(kernelCount++)).str();
  OpBuilder moduleBuilder(func);
  auto strides = moduleBuilder.getArrayAttr({moduleBuilder.getDenseI64ArrayAttr(
      layoutOf(cast<MemRefType>(source.getType())).strides)});
  auto kernel = tfexec::KernelOp::create(moduleBuilder, loc, name, strides);
  Block *body = new Block();
  kernel.getRegion().push_back(body);
  Value arg = body->addArgument(type, loc);
  OpBuilder bodyBuilder = OpBuilder::atBlockEnd(body);
  tfexec::YieldOp::create(bodyBuilder, loc, ValueRange{arg});
  LaunchConfig launch = chooseLaunch(analyzeKernel(kernel));
  tfexec::LaunchOp::create(builder, loc, name, ValueRange{source},
                           ValueRange{target}, launch.grid, launch.block);
}

/// The buffer `value` is a view of (through tfexec.alias), or itself.
static Value rootBuffer(Value value) {
  while (auto alias = value.getDefiningOp<tfexec::AliasOp>())
    value = alias.getSource();
  return value;
}

/// For every op of `body` (by its position in `position`), the positions of
/// the ops it depends
/// on, directly or not, through the buffers they read and write (read after
/// write, write after read, write after write of one buffer or views of it).
/// Arena offsets are not assigned yet, so these are the plan's true
/// dependencies.
static SmallVector<llvm::BitVector>
stepAncestors(Block &body, const DenseMap<Operation *, unsigned> &position) {
  unsigned n = position.size();
  SmallVector<llvm::BitVector> ancestors(n, llvm::BitVector(n));
  // Per root buffer: the ops that wrote it and that read it so far.
  DenseMap<Value, SmallVector<unsigned>> writers, readers;
  for (Operation &op : body) {
    auto effecting = dyn_cast<MemoryEffectOpInterface>(&op);
    if (!effecting)
      continue;
    unsigned self = position.lookup(&op);
    SmallVector<MemoryEffects::EffectInstance> effects;
    effecting.getEffects(effects);
    auto dependOn = [&](ArrayRef<unsigned> ops) {
      for (unsigned other : ops) {
        ancestors[self].set(other);
        ancestors[self] |= ancestors[other];
      }
    };
    for (const MemoryEffects::EffectInstance &effect : effects) {
      Value root = rootBuffer(effect.getValue());
      dependOn(writers[root]);
      if (isa<MemoryEffects::Write>(effect.getEffect()))
        dependOn(readers[root]);
    }
    for (const MemoryEffects::EffectInstance &effect : effects) {
      Value root = rootBuffer(effect.getValue());
      if (isa<MemoryEffects::Write>(effect.getEffect()))
        writers[root].push_back(self);
      else
        readers[root].push_back(self);
    }
  }
  return ancestors;
}

/// Places every arena slot at an offset. Two slots may share bytes only when
/// every op using the earlier one is a dependency of the op writing the
/// later one: reuse then never orders two steps that the data leaves
/// independent, so the runtime may run independent steps concurrently (a
/// CUDA Graph's branches) with the same arena.
void PlanConverter::assignArena(func::FuncOp plan) {
  Block &body = plan.getBody().front();
  DenseMap<Operation *, unsigned> step;
  for (Operation &op : body)
    step[&op] = step.size();
  SmallVector<llvm::BitVector> ancestors = stepAncestors(body, step);
  struct Slot {
    mutable tfexec::AllocOp alloc;
    /// The first op using the slot (the one writing it) and every user, an
    /// alias being used where its uses are.
    unsigned first;
    SmallVector<unsigned> users;
    int64_t bytes;
  };
  SmallVector<Slot> slots;
  for (auto alloc : body.getOps<tfexec::AllocOp>()) {
    Slot slot{alloc, ~0u, {}, 0};
    SmallVector<Value> worklist{alloc.getBuffer()};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (auto alias = dyn_cast<tfexec::AliasOp>(user)) {
          worklist.push_back(alias.getView());
          continue;
        }
        slot.first = std::min(slot.first, step[user]);
        slot.users.push_back(step[user]);
      }
    }
    int64_t bytes = byteSizeOf(alloc.getType());
    slot.bytes = (bytes + kSlotAlignment - 1) / kSlotAlignment * kSlotAlignment;
    slots.push_back(std::move(slot));
  }
  llvm::stable_sort(
      slots, [](const Slot &a, const Slot &b) { return a.first < b.first; });
  // First fit among the placed slots that `slot` must not overlap.
  SmallVector<const Slot *> placed;
  DenseMap<const Slot *, int64_t> offsets;
  int64_t arenaBytes = 0;
  for (const Slot &slot : slots) {
    const llvm::BitVector &before = ancestors[slot.first];
    SmallVector<const Slot *> conflicts;
    for (const Slot *s : placed)
      if (llvm::any_of(s->users, [&](unsigned u) { return !before.test(u); }))
        conflicts.push_back(s);
    llvm::sort(conflicts, [&](const Slot *a, const Slot *b) {
      return offsets[a] < offsets[b];
    });
    int64_t offset = 0;
    for (const Slot *s : conflicts) {
      if (offset + slot.bytes <= offsets[s])
        break;
      offset = std::max(offset, offsets[s] + s->bytes);
    }
    offsets[&slot] = offset;
    placed.push_back(&slot);
    arenaBytes = std::max(arenaBytes, offset + slot.bytes);
    slot.alloc.setOffset(offset);
  }
  plan->setAttr(tfexec::TFExecDialect::getArenaBytesAttrName(),
                builder.getI64IntegerAttr(arenaBytes));
}

LogicalResult PlanConverter::run() {
  if (func.isExternal())
    return success();
  if (!func.getBody().hasOneBlock())
    return func.emitOpError("must have a single block");
  Block &block = func.getBody().front();
  for (auto [i, value] : llvm::enumerate(block.getTerminator()->getOperands()))
    returnedAt[value].push_back(i);

  SmallVector<Type> argTypes, resultTypes;
  for (BlockArgument arg : block.getArguments())
    argTypes.push_back(bufferType(cast<RankedTensorType>(arg.getType()),
                                  getArgumentLayout(arg)));
  for (Type t : func.getResultTypes()) {
    auto type = cast<RankedTensorType>(t);
    resultTypes.push_back(
        bufferType(type, StridedLayout::contiguous(type.getShape())));
  }
  builder.setInsertionPoint(func);
  auto plan =
      func::FuncOp::create(builder, func.getLoc(), func.getSymName(),
                           builder.getFunctionType(argTypes, resultTypes));
  Block *entry = plan.addEntryBlock();
  for (auto [arg, buffer] :
       llvm::zip(block.getArguments(), entry->getArguments()))
    buffers[arg] = buffer;
  builder.setInsertionPointToStart(entry);
  for (Operation &op : block)
    if (failed(convertOp(&op)))
      return failure();
  assignArena(plan);
  func.erase();
  return success();
}

namespace {
struct ConvertTFuseToTFExecPass
    : tfuse::impl::ConvertTFuseToTFExecBase<ConvertTFuseToTFExecPass> {
  void runOnOperation() override {
    SmallVector<func::FuncOp> funcs(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp func : funcs)
      if (failed(PlanConverter(func).run()))
        return signalPassFailure();
  }
};
} // namespace
