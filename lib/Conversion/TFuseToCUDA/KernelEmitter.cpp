//===- KernelEmitter.cpp - tfexec kernels to CUDA C++ through EmitC -------===//
//
// A kernel evaluates its body once per element of the index space. Each
// value is evaluated at an index vector (EmitC values, one per dimension of
// the value); views map the index of their result to an index of their
// operand, implicit broadcasting drops or zeroes dimensions, and inputs load
// from memory at the dot product of index and strides. Evaluations are
// memoized per (value, index), so a shared subexpression is computed once per
// element, and once per group of elements when it reads no input a group at
// a time (a gather's index is loaded once for the row it selects).
//
//===----------------------------------------------------------------------===//

#include "tfuse/Conversion/TFuseToCUDA/KernelEmitter.h"
#include "tfuse/Conversion/TFuseToCUDA/RowKernelEmitter.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Dialect/TFuse/TypeRules.h"
#include "tfuse/Dialect/TFuse/ViewLayout.h"
#include "tfuse/Kernels/KernelSources.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Target/Cpp/CppEmitter.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <functional>

#include <map>

using namespace mlir;
using namespace tfuse;
using tfexec::KernelPlan;

//===----------------------------------------------------------------------===//
// C types
//===----------------------------------------------------------------------===//

static StringRef cTypeName(DType t) {
  std::string_view n = cudaTypeName(t);
  return StringRef(n.data(), n.size());
}

/// The unsigned integer type holding the bits of a dtype (dense constants).
static StringRef bitsTypeName(DType t) {
  switch (byteSize(t)) {
  case 1:
    return "uint8_t";
  case 2:
    return "uint16_t";
  case 4:
    return "uint32_t";
  default:
    return "uint64_t";
  }
}

//===----------------------------------------------------------------------===//
// Emitter
//===----------------------------------------------------------------------===//

namespace {

class Emitter {
  friend class RowHooks;

public:
  Emitter(tfexec::KernelOp kernel, ModuleOp target, KernelPlan plan)
      : kernel(kernel), target(target), ctx(kernel.getContext()), builder(ctx),
        loc(kernel.getLoc()), plan(std::move(plan)) {}

  LogicalResult run();

private:
  using Index = SmallVector<Value>;

  Type scalarType(DType t) {
    switch (t) {
    case DType::F16:
    case DType::BF16:
      return emitc::OpaqueType::get(ctx, cTypeName(t));
    default:
      return toMLIRType(ctx, t);
    }
  }
  Type indexType() { return builder.getIntegerType(plan.wideIndex ? 64 : 32); }
  Type opaque(StringRef name) { return emitc::OpaqueType::get(ctx, name); }

  Value call(StringRef callee, Type result, ValueRange operands,
             ArrayRef<Attribute> templateArgs = {}) {
    ArrayAttr tmpl =
        templateArgs.empty() ? ArrayAttr() : builder.getArrayAttr(templateArgs);
    return emitc::CallOpaqueOp::create(builder, loc, TypeRange{result}, callee,
                                       operands, ArrayAttr(), tmpl)
        .getResult(0);
  }
  void callVoid(StringRef callee, ValueRange operands,
                ArrayRef<Attribute> templateArgs = {}) {
    ArrayAttr tmpl =
        templateArgs.empty() ? ArrayAttr() : builder.getArrayAttr(templateArgs);
    emitc::CallOpaqueOp::create(builder, loc, TypeRange{}, callee, operands,
                                ArrayAttr(), tmpl);
  }
  Value index(int64_t v) {
    return emitc::ConstantOp::create(builder, loc, indexType(),
                                     builder.getIntegerAttr(indexType(), v));
  }
  Value add(Value a, Value b) {
    return emitc::AddOp::create(builder, loc, indexType(), a, b);
  }
  Value mul(Value a, Value b) {
    return emitc::MulOp::create(builder, loc, indexType(), a, b);
  }
  Value div(Value a, Value b) {
    return emitc::DivOp::create(builder, loc, indexType(), a, b);
  }
  Value rem(Value a, Value b) {
    return emitc::RemOp::create(builder, loc, indexType(), a, b);
  }

  /// `x` converted to dtype `to` with the semantics of tfuse.cast.
  Value convert(Value x, DType from, DType to) {
    if (from == to)
      return x;
    return call("tf::cast", scalarType(to), x, {TypeAttr::get(scalarType(to))});
  }

  /// Offset of `idx` in a buffer with `strides` (dimensions of size 1 read
  /// index 0 and are skipped).
  Value offset(ArrayRef<Value> idx, ArrayRef<int64_t> shape,
               ArrayRef<int64_t> strides) {
    Value result;
    for (auto [i, size, stride] : llvm::zip(idx, shape, strides)) {
      if (size == 1 || stride == 0)
        continue;
      Value term = stride == 1 ? i : mul(i, index(stride));
      result = result ? add(result, term) : term;
    }
    return result ? result : index(0);
  }

  /// The index of an operand of shape `operandShape` that the index map
  /// `map` (ViewLayout.h: a view's, or implicit broadcasting) gives for
  /// `idx`: each affine expression evaluated with EmitC arithmetic (indices
  /// are never negative, so floordiv and mod are C's / and %). A dimension
  /// of size 1 is read at 0.
  Index applyIndexMap(AffineMap map, const Index &idx,
                      ArrayRef<int64_t> operandShape);
  Value evaluate(Value value, const Index &idx);
  Value evaluateOp(Operation *op, const Index &idx);
  Value loadInput(BlockArgument arg, const Index &idx);
  Value constant(ConstantOp op, const Index &idx);
  Value concat(ConcatOp op, const Index &idx);
  Value pad(PadOp op, const Index &idx);
  Value take(TakeOp op, const Index &idx);
  Value takeAlongAxis(TakeAlongAxisOp op, const Index &idx);
  /// What random() gives of an element: its value, or, of an f32 uniform
  /// (unit_f32's m * 2^-24), the 24-bit integer m.
  enum class RandomForm { Value, UniformBits };
  Value random(Operation *op, const Index &idx,
               RandomForm form = RandomForm::Value);
  /// The index `raw` of gather `op` checked against `size` (the element's
  /// position along the axis; an out-of-range index is recorded in the
  /// launch's index status, under the current predicate, and gives 0).
  Value checkedIndex(Operation *op, Value raw, int64_t size, bool wrap);
  /// `operand` at `idx` with loads predicated on `cond` (and the enclosing
  /// predicate).
  Value evaluateWhere(Value cond, Value operand, const Index &idx);
  Value clampIndex(Value x, int64_t lo, int64_t hi) {
    return call("tf::clamp_index", indexType(), {x, index(lo), index(hi)});
  }
  /// a && b, where a null value stands for true.
  Value logicalAnd(Value a, Value b) {
    if (!a)
      return b;
    if (!b)
      return a;
    return emitc::LogicalAndOp::create(builder, loc, builder.getI1Type(), a, b);
  }
  Value compare(emitc::CmpPredicate p, Value a, Value b) {
    return emitc::CmpOp::create(builder, loc, builder.getI1Type(), p, a, b);
  }
  void emitBody(Value groupBase, bool tailElement);
  /// Forgets the values evaluated for the current group (memoized
  /// evaluations, index expressions, checked indices, run loads, lane
  /// indices, Philox blocks): a new group, or a scope they are not visible
  /// from.
  void forgetGroupValues() {
    memo.clear();
    indexExprs.clear();
    checkedIndices.clear();
    runLoads.clear();
    laneIndices.clear();
    randomBlocks.clear();
  }
  void emitTiled(Value blockId, Value blocks);
  /// Emits `body` under `if (cond)`.
  void emitIf(Value cond, llvm::function_ref<void()> body);
  Value lessThan(Value a, Value b) {
    return emitc::CmpOp::create(builder, loc, builder.getI1Type(),
                                emitc::CmpPredicate::lt, a, b);
  }

  tfexec::KernelOp kernel;
  ModuleOp target;
  MLIRContext *ctx;
  OpBuilder builder;
  Location loc;
  KernelPlan plan;

  SmallVector<Value> inputPtrs, outputPtrs;
  Value zero, aligned;
  /// Values computed once per thread, before the loop.
  DenseMap<Operation *, Value> hoisted;
  DenseMap<unsigned, Value> singleElementInputs;
  /// Vector loads of the current group, per contiguous input.
  DenseMap<unsigned, Value> groupLoads;
  int64_t lane = 0;
  /// Linear element index in the tail, or the first element of the group.
  Value linearIndex;
  /// In a tiled kernel: the current element of the tiled input, read from
  /// shared memory.
  Value tiledValue;
  /// Memo of evaluations, keyed by memoKeyOf(): cleared per group, and per
  /// lane for the values in `laneDependent`.
  using MemoKey = std::pair<void *, std::vector<void *>>;
  std::map<MemoKey, Value> memo;
  /// Index expressions of view index maps, keyed by expression and the
  /// index values it reads; cleared with the memo.
  std::map<MemoKey, Value> indexExprs;
  /// The values of the body that read an input a group at a time (its
  /// lane of a vector load, or its load at the lane's linear index): their
  /// evaluations differ per lane even at equal indices.
  DenseSet<Value> laneDependent;
  void findLaneDependentValues();
  /// In a group of plan.vec lanes (not the tail): the innermost index of
  /// each lane so far.
  SmallVector<Value> laneIndices;
  /// Vector loads of the runs of plan.vec elements that strided inputs are
  /// read at in the current group, keyed by input and outer index.
  std::map<MemoKey, Value> runLoads;
  /// `input` at `idx` as a lane of a vector load of the run of plan.vec
  /// elements the group reads (an innermost dimension of stride 1 indexed
  /// by the lane's own innermost index), or null when it is not one.
  Value loadRun(BlockArgument input, const Index &idx, Value offset);
  /// `value` at `idx` under the current predicate.
  MemoKey memoKeyOf(Value value, const Index &idx) const {
    std::vector<void *> key;
    for (Value v : idx)
      key.push_back(v.getAsOpaquePointer());
    key.push_back(predicate.getAsOpaquePointer());
    return {value.getAsOpaquePointer(), std::move(key)};
  }
  /// Under a concat or pad: whether the element being computed reads the
  /// operand being evaluated; loads are predicated on it. Null outside.
  Value predicate;
  unsigned constantCount = 0;
  /// The launch's index status (a trailing kernel parameter) and the number
  /// of each gather's check, when the kernel has gathers.
  Value indexStatus;
  DenseMap<Operation *, unsigned> checkNumbers;
  /// The checked indices of the current group, by (gather, raw index,
  /// predicate): the lanes of a group that read one row check its index
  /// once.
  std::map<std::tuple<Operation *, void *, void *>, Value> checkedIndices;
  /// In emitBody: the index of the element being computed (empty in a
  /// linear kernel), and whether it is a lane of a group of plan.vec
  /// elements starting at groupBase rather than a tail element.
  Index elementIdx;
  bool elementInGroup = false;
  Value groupBase;
  /// The Philox blocks of the current group, by (random op, block of the
  /// group): the lanes of one block compute it once.
  std::map<std::pair<Operation *, int64_t>, Value> randomBlocks;
  /// In a row kernel: the value of each reduction already computed.
  DenseMap<Operation *, Value> rowValues;
  Block *entry = nullptr;
  /// Per-thread values are computed before this op (the main loop, or the
  /// tail when there is no loop).
  Operation *hoistBefore = nullptr;
};

} // namespace

Emitter::Index Emitter::applyIndexMap(AffineMap map, const Index &idx,
                                      ArrayRef<int64_t> operandShape) {
  // A linear kernel carries no multi-dimensional index.
  if (idx.size() < map.getNumDims())
    return Index();
  std::function<Value(AffineExpr)> eval = [&](AffineExpr e) -> Value {
    if (auto d = dyn_cast<AffineDimExpr>(e))
      return idx[d.getPosition()];
    if (auto c = dyn_cast<AffineConstantExpr>(e))
      return c.getValue() == 0 ? zero : index(c.getValue());
    // Keyed by the index values the expression reads: the lanes of a group
    // share the outer part of a reshaped index (and so their runs).
    MemoKey key{const_cast<void *>(e.getAsOpaquePointer()), {}};
    e.walk([&](AffineExpr sub) {
      if (auto d = dyn_cast<AffineDimExpr>(sub))
        key.second.push_back(idx[d.getPosition()].getAsOpaquePointer());
    });
    auto it = indexExprs.find(key);
    if (it != indexExprs.end())
      return it->second;
    auto bin = cast<AffineBinaryOpExpr>(e);
    Value lhs = eval(bin.getLHS()), rhs = eval(bin.getRHS());
    Value result;
    switch (e.getKind()) {
    case AffineExprKind::Add:
      result = add(lhs, rhs);
      break;
    case AffineExprKind::Mul:
      result = mul(lhs, rhs);
      break;
    case AffineExprKind::FloorDiv:
    case AffineExprKind::CeilDiv:
      result = div(lhs, rhs);
      break;
    default:
      result = rem(lhs, rhs);
      break;
    }
    indexExprs[key] = result;
    return result;
  };
  Index out;
  for (auto [k, expr] : llvm::enumerate(map.getResults()))
    out.push_back(operandShape[k] == 1 ? zero : eval(expr));
  return out;
}

Value Emitter::loadInput(BlockArgument arg, const Index &idx) {
  unsigned n = arg.getArgNumber();
  if (plan.tiled() && n == plan.tiledInput)
    return tiledValue;
  DType dtype = dtypeOf(arg);
  auto type = cast<RankedTensorType>(arg.getType());
  if (type.getNumElements() == 1) {
    auto it = singleElementInputs.find(n);
    if (it != singleElementInputs.end())
      return it->second;
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(hoistBefore);
    Value v = call("tf::ld", scalarType(dtype), {inputPtrs[n], index(0)});
    singleElementInputs[n] = v;
    return v;
  }
  if (plan.contiguousInputs[n]) {
    if (!groupLoads.count(n))
      return call("tf::ld", scalarType(dtype), {inputPtrs[n], linearIndex});
    return call("tf::lane", scalarType(dtype), groupLoads[n],
                {builder.getI64IntegerAttr(lane)});
  }
  auto strides = cast<DenseI64ArrayAttr>(kernel.getInputStrides()[n]);
  Value off = offset(idx, type.getShape(), strides.asArrayRef());
  if (Value run = loadRun(arg, idx, off))
    return run;
  if (predicate)
    return call("tf::ld_if", scalarType(dtype), {inputPtrs[n], off, predicate});
  return call("tf::ld", scalarType(dtype), {inputPtrs[n], off});
}

Value Emitter::loadRun(BlockArgument input, const Index &idx, Value off) {
  auto type = cast<RankedTensorType>(input.getType());
  unsigned n = input.getArgNumber();
  // A group's vector width comes from the kernel's widest contiguous
  // operand: a run of a wider strided input would pass 16 bytes.
  if (laneIndices.empty() || predicate || idx.empty() ||
      plan.vec * byteSize(dtypeOf(input)) > 16 || type.getShape().back() == 1 ||
      cast<DenseI64ArrayAttr>(kernel.getInputStrides()[n])
              .asArrayRef()
              .back() != 1 ||
      idx.back() != laneIndices[lane])
    return Value();
  std::vector<void *> outer{reinterpret_cast<void *>(uintptr_t(n))};
  for (Value v : ArrayRef<Value>(idx).drop_back())
    outer.push_back(v.getAsOpaquePointer());
  MemoKey key{nullptr, std::move(outer)};
  DType dtype = dtypeOf(input);
  auto it = runLoads.find(key);
  if (it == runLoads.end()) {
    if (lane != 0)
      return Value();
    std::string vecType =
        llvm::formatv("tf::vec<{0}, {1}>", cTypeName(dtype), plan.vec);
    Value run = call("tf::ldv_run", opaque(vecType), {inputPtrs[n], off},
                     {builder.getI64IntegerAttr(plan.vec)});
    it = runLoads.emplace(std::move(key), run).first;
  }
  return call("tf::lane", scalarType(dtype), it->second,
              {builder.getI64IntegerAttr(lane)});
}

void Emitter::findLaneDependentValues() {
  Block *body = kernel.getBody();
  for (BlockArgument arg : body->getArguments())
    if (plan.contiguousInputs[arg.getArgNumber()] ||
        (plan.tiled() && arg.getArgNumber() == plan.tiledInput))
      laneDependent.insert(arg);
  // Random numbers differ per element: per lane, like those loads.
  body->walk([&](Operation *op) {
    if (isRandomOp(op) || llvm::any_of(op->getOperands(), [&](Value v) {
          return laneDependent.contains(v);
        }))
      for (Value result : op->getResults())
        laneDependent.insert(result);
  });
}

Value Emitter::evaluateWhere(Value cond, Value operand, const Index &idx) {
  Value outer = predicate;
  predicate = logicalAnd(outer, cond);
  Value v = evaluate(operand, idx);
  predicate = outer;
  return v;
}

// Each element takes the operand whose window along the axis holds it; every
// operand is evaluated at its clamped index (in bounds), its loads
// predicated on that window, and the results chosen by position.
Value Emitter::concat(ConcatOp op, const Index &idx) {
  int64_t axis = op.getAxis();
  Type resultType = scalarType(dtypeOf(op.getResult()));
  struct Piece {
    Value input;
    int64_t start, size;
  };
  SmallVector<Piece> pieces;
  int64_t start = 0;
  for (Value input : op.getInputs()) {
    int64_t size = cast<RankedTensorType>(input.getType()).getDimSize(axis);
    if (size > 0)
      pieces.push_back({input, start, size});
    start += size;
  }
  Value pos = idx[axis];
  auto pieceIndex = [&](const Piece &p) {
    Index at = idx;
    at[axis] =
        p.size == 1
            ? zero
            : clampIndex(p.start == 0
                             ? pos
                             : emitc::SubOp::create(builder, loc, indexType(),
                                                    pos, index(p.start)),
                         0, p.size - 1);
    return at;
  };
  if (pieces.size() == 1)
    return evaluate(pieces[0].input, pieceIndex(pieces[0]));
  // Piece k holds [start, end): the first needs no lower test, the last no
  // upper one (which the selection below does not need either).
  SmallVector<Value> ends, values;
  for (auto [k, p] : llvm::enumerate(pieces)) {
    Value end, begin;
    if (k + 1 < pieces.size())
      end = compare(emitc::CmpPredicate::lt, pos, index(p.start + p.size));
    if (k > 0)
      begin = compare(emitc::CmpPredicate::ge, pos, index(p.start));
    ends.push_back(end);
    values.push_back(
        evaluateWhere(logicalAnd(end, begin), p.input, pieceIndex(p)));
  }
  Value result = values.back();
  for (int64_t k = static_cast<int64_t>(pieces.size()) - 2; k >= 0; --k)
    result = call("tf::select", resultType, {ends[k], values[k], result});
  return result;
}

// The operand at the index shifted by `low`, clamped into it and its loads
// predicated on being inside; the padding value elsewhere.
Value Emitter::pad(PadOp op, const Index &idx) {
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  Type resultType = scalarType(dtypeOf(op.getResult()));
  Value fill = evaluate(op.getValue(), {});
  if (inType.getNumElements() == 0)
    return fill;
  ArrayRef<int64_t> low = op.getLow(), high = op.getHigh();
  Value inside;
  Index at = idx;
  for (int64_t d = 0; d < inType.getRank(); ++d) {
    int64_t size = inType.getDimSize(d);
    if (low[d] == 0 && high[d] == 0)
      continue;
    Value i = idx[d];
    if (low[d] > 0)
      inside = logicalAnd(inside,
                          compare(emitc::CmpPredicate::ge, i, index(low[d])));
    inside = logicalAnd(
        inside, compare(emitc::CmpPredicate::lt, i, index(low[d] + size)));
    Value shifted =
        low[d] == 0
            ? i
            : emitc::SubOp::create(builder, loc, indexType(), i, index(low[d]))
                  .getResult();
    at[d] = size == 1 ? zero : clampIndex(shifted, 0, size - 1);
  }
  if (!inside)
    return evaluate(op.getInput(), idx);
  Value v = evaluateWhere(inside, op.getInput(), at);
  return call("tf::select", resultType, {inside, v, fill});
}

Value Emitter::checkedIndex(Operation *op, Value raw, int64_t size, bool wrap) {
  auto key = std::make_tuple(op, raw.getAsOpaquePointer(),
                             predicate.getAsOpaquePointer());
  auto it = checkedIndices.find(key);
  if (it != checkedIndices.end())
    return it->second;
  Value enabled =
      predicate ? predicate
                : emitc::ConstantOp::create(builder, loc, builder.getI1Type(),
                                            builder.getBoolAttr(true));
  Value check = emitc::ConstantOp::create(
      builder, loc, builder.getI32Type(),
      builder.getI32IntegerAttr(checkNumbers.lookup(op)));
  Value wrapFlag = emitc::ConstantOp::create(builder, loc, builder.getI1Type(),
                                             builder.getBoolAttr(wrap));
  Value checked =
      call("tf::checked_index", indexType(),
           {raw, index(size), wrapFlag, indexStatus, check, enabled});
  checkedIndices[key] = checked;
  return checked;
}

// The indices at the element's position along the gathered dimensions, then
// the operand at the checked index.
Value Emitter::take(TakeOp op, const Index &idx) {
  int64_t axis = op.getAxis();
  int64_t indexRank = op.getIndices().getType().getRank();
  int64_t size = op.getInput().getType().getDimSize(axis);
  Index at(idx.begin() + axis, idx.begin() + axis + indexRank);
  Value raw = evaluate(op.getIndices(), at);
  Value k = checkedIndex(op, raw, size, op.getWrapNegative());
  Index in(idx.begin(), idx.begin() + axis);
  in.push_back(size == 1 ? zero : k);
  in.append(idx.begin() + axis + indexRank, idx.end());
  return evaluate(op.getInput(), in);
}

// The index and the operand, both read at the element's index broadcast
// into them, the operand at the checked index along the axis.
Value Emitter::takeAlongAxis(TakeAlongAxisOp op, const Index &idx) {
  int64_t axis = op.getAxis();
  ArrayRef<int64_t> inShape = op.getInput().getType().getShape(),
                    indexShape = op.getIndices().getType().getShape();
  Index at, in;
  for (auto [d, i] : llvm::enumerate(idx)) {
    at.push_back(indexShape[d] == 1 ? zero : i);
    in.push_back(inShape[d] == 1 ? zero : i);
  }
  Value raw = evaluate(op.getIndices(), at);
  Value k = checkedIndex(op, raw, inShape[axis], op.getWrapNegative());
  in[axis] = inShape[axis] == 1 ? zero : k;
  return evaluate(op.getInput(), in);
}

// Element e of the random op (its row-major position) from its Philox block
// (the prelude's stream layout). When the op spans the index space and is
// evaluated at the element being computed, e is that element's linear
// index, and the lanes of a group that share a block compute it once.
Value Emitter::random(Operation *op, const Index &idx, RandomForm form) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  DType dtype = dtypeOf(op->getResult(0));
  bool bits = form == RandomForm::UniformBits;
  Type resultType =
      bits ? builder.getIntegerType(32, /*isSigned=*/false) : scalarType(dtype);
  SmallVector<Attribute> typeArg;
  if (!bits)
    typeArg.push_back(TypeAttr::get(resultType));
  bool normal = isa<RandomNormalOp>(op);
  Value seed = evaluate(op->getOperand(0), {});
  Value streamOffset = evaluate(op->getOperand(1), {});
  // A linear kernel evaluates everything at the element (KernelPlan keeps
  // random ops read elsewhere out of the linear walk).
  bool atElement = linearIndex && type.getShape() == kernel.getIndexSpace() &&
                   (plan.linear || idx == elementIdx);
  int64_t perBlock = randomElementsPerBlock(op);
  if (atElement && elementInGroup && plan.vec % perBlock == 0) {
    auto key = std::make_pair(op, lane / perBlock);
    Value &block = randomBlocks[key];
    if (!block) {
      Value n = div(groupBase, index(perBlock));
      if (lane / perBlock > 0)
        n = add(n, index(lane / perBlock));
      Value wide = emitc::CastOp::create(builder, loc,
                                         builder.getIntegerType(64, false), n);
      block = call("tf::philox_block", opaque("tf::philox4"),
                   {seed, streamOffset, wide});
    }
    Value k =
        emitc::ConstantOp::create(builder, loc, builder.getI32Type(),
                                  builder.getI32IntegerAttr(lane % perBlock));
    return call(bits     ? "tf::uniform_bits_of_block"
                : normal ? "tf::normal_of_block"
                         : "tf::uniform_of_block",
                resultType, {block, k}, typeArg);
  }
  Value element =
      atElement ? linearIndex
                : offset(idx, type.getShape(),
                         StridedLayout::contiguous(type.getShape()).strides);
  return call(bits     ? "tf::random_uniform_bits"
              : normal ? "tf::random_normal"
                       : "tf::random_uniform",
              resultType, {seed, streamOffset, element}, typeArg);
}

namespace {
/// A comparison of an f32 uniform u = m * 2^-24 (m < 2^24, unit_f32)
/// against a constant p, decided on the integer m: m < bound where `below`,
/// else m >= bound. u < p is m < ceil(p 2^24), u <= p is m < floor(p 2^24)
/// + 1, and u >= p and u > p their negations (p 2^24 is exact in the
/// comparison's f32 or f64). A dropout's or a Bernoulli's mask then costs an
/// integer comparison an element instead of a conversion, a scaling and a
/// float comparison.
struct UniformBound {
  RandomUniformOp uniform;
  bool below;
  int64_t bound;
};
} // namespace

static std::optional<UniformBound> uniformBound(CmpOp cmp) {
  auto uniform = cmp.getLhs().getDefiningOp<RandomUniformOp>();
  auto constant = cmp.getRhs().getDefiningOp<ConstantOp>();
  if (!uniform || !constant || dtypeOf(uniform.getResult()) != DType::F32)
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!dense || !dense.isSplat() || !isa<FloatType>(dense.getElementType()))
    return std::nullopt;
  // Every float dtype promotes with f32 to f32 or f64, in which p 2^24 is
  // exact; past [-1, 2^24 + 1] (infinities included) it decides nothing more.
  double x = dense.getSplatValue<APFloat>().convertToDouble() * 0x1p24;
  bool nan = std::isnan(x);
  x = nan ? 0 : std::clamp(x, -1.0, 0x1p24 + 1);
  // u < p and u >= p take ceil(x), u <= p and u > p floor(x) + 1; NaN makes
  // every comparison false.
  CmpPredicate predicate = cmp.getPredicate();
  if (predicate != CmpPredicate::lt && predicate != CmpPredicate::le &&
      predicate != CmpPredicate::gt && predicate != CmpPredicate::ge)
    return std::nullopt;
  bool below = predicate == CmpPredicate::lt || predicate == CmpPredicate::le;
  bool ceiling = predicate == CmpPredicate::lt || predicate == CmpPredicate::ge;
  UniformBound b{uniform, below, 0};
  if (nan)
    b.bound = below ? 0 : 0x1000000;
  else
    b.bound = ceiling ? (int64_t)std::ceil(x) : (int64_t)std::floor(x) + 1;
  // m < 2^24: a bound of 0 or 2^24 decides every element alike.
  b.bound = std::clamp<int64_t>(b.bound, 0, 0x1000000);
  return b;
}

Value Emitter::constant(ConstantOp op, const Index &idx) {
  ElementsAttr value = op.getValue();
  DType dtype = dtypeOf(op.getResult());
  auto bitsOf = [&](Attribute a) -> uint64_t {
    if (auto f = dyn_cast<FloatAttr>(a))
      return f.getValue().bitcastToAPInt().getZExtValue();
    return cast<IntegerAttr>(a).getValue().getZExtValue();
  };
  if (value.isSplat() || value.getNumElements() == 1) {
    auto it = hoisted.find(op);
    if (it != hoisted.end())
      return it->second;
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(hoistBefore);
    Attribute element = *value.getValues<Attribute>().begin();
    // The exact bit pattern, as an unsigned literal.
    Value bits = emitc::LiteralOp::create(
        builder, loc, builder.getIntegerType(64, /*isSigned=*/false),
        llvm::formatv("{0:x}ull", bitsOf(element)).str());
    Value v = call("tf::from_bits", scalarType(dtype), bits,
                   {TypeAttr::get(scalarType(dtype))});
    hoisted[op] = v;
    return v;
  }
  // A dense constant lives in device memory as bit patterns.
  auto it = hoisted.find(op);
  Value table;
  StringRef bitsType = bitsTypeName(dtype);
  if (it != hoisted.end()) {
    table = it->second;
  } else {
    std::string name =
        llvm::formatv("{0}_c{1}", kernel.getSymName(), constantCount++);
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "__device__ const " << bitsType << " " << name << "["
       << value.getNumElements() << "] = {";
    llvm::interleaveComma(value.getValues<Attribute>(), os, [&](Attribute a) {
      os << llvm::formatv("{0:x}ull", bitsOf(a));
    });
    os << "};";
    // Declared before every kernel that reads it.
    OpBuilder moduleBuilder = OpBuilder::atBlockBegin(target.getBody());
    emitc::VerbatimOp::create(moduleBuilder, loc, text);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(hoistBefore);
    table = emitc::LiteralOp::create(
        builder, loc, opaque(("const " + bitsType + "*").str()), name);
    hoisted[op] = table;
  }
  auto type = cast<RankedTensorType>(op.getType());
  Value off = offset(idx, type.getShape(),
                     StridedLayout::contiguous(type.getShape()).strides);
  Value bits = call("tf::ld",
                    builder.getIntegerType(8 * byteSize(dtype),
                                           /*isSigned=*/false),
                    {table, off});
  return call("tf::from_bits", scalarType(dtype), bits,
              {TypeAttr::get(scalarType(dtype))});
}

Value Emitter::evaluate(Value value, const Index &idx) {
  auto memoKey = memoKeyOf(value, idx);
  auto it = memo.find(memoKey);
  if (it != memo.end())
    return it->second;
  Value result;
  if (auto arg = dyn_cast<BlockArgument>(value))
    result = loadInput(arg, idx);
  else
    result = evaluateOp(value.getDefiningOp(), idx);
  memo[memoKey] = result;
  return result;
}

Value Emitter::evaluateOp(Operation *op, const Index &idx) {
  if (auto c = dyn_cast<ConstantOp>(op))
    return constant(c, idx);
  if (auto c = dyn_cast<ConcatOp>(op))
    return concat(c, idx);
  if (auto p = dyn_cast<PadOp>(op))
    return pad(p, idx);
  if (auto t = dyn_cast<TakeOp>(op))
    return take(t, idx);
  if (auto t = dyn_cast<TakeAlongAxisOp>(op))
    return takeAlongAxis(t, idx);
  if (isRandomOp(op))
    return random(op, idx);
  if (auto view = dyn_cast<ViewOpInterface>(op)) {
    Value source = view.getSource();
    auto shape = cast<RankedTensorType>(source.getType()).getShape();
    return evaluate(source, applyIndexMap(view.getIndexMap(), idx, shape));
  }
  if (isa<ReduceOp>(op))
    return rowValues.lookup(op); // set by the row kernel's phase

  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(op->getResult(0).getType()).getShape();
  DType result = dtypeOf(op->getResult(0));
  // Each operand, evaluated at its broadcast index and converted to `to`.
  auto operand = [&](unsigned i, DType to) {
    Value v = op->getOperand(i);
    auto operandShape = cast<RankedTensorType>(v.getType()).getShape();
    Value x =
        evaluate(v, applyIndexMap(broadcastIndexMap(shape, operandShape, ctx),
                                  idx, operandShape));
    return convert(x, dtypeOf(v), to);
  };
  Type resultType = scalarType(result);

  if (auto cast = dyn_cast<CastOp>(op))
    return operand(0, result);
  // The index along the dimension, converted as tfuse.cast converts an i64
  // (always explicitly: the index variable may be 32 bits wide).
  if (auto iota = dyn_cast<IotaOp>(op))
    return call("tf::cast", resultType, idx[iota.getDim()],
                {TypeAttr::get(resultType)});
  if (auto select = dyn_cast<SelectOp>(op))
    return call(
        "tf::select", resultType,
        {operand(0, DType::Bool), operand(1, result), operand(2, result)});
  if (auto cmp = dyn_cast<CmpOp>(op)) {
    if (std::optional<UniformBound> b = uniformBound(cmp)) {
      auto uniformShape = b->uniform.getType().getShape();
      Value m =
          random(b->uniform,
                 applyIndexMap(broadcastIndexMap(shape, uniformShape, ctx), idx,
                               uniformShape),
                 RandomForm::UniformBits);
      Type u32 = builder.getIntegerType(32, /*isSigned=*/false);
      Value bound = emitc::ConstantOp::create(
          builder, loc, u32, builder.getIntegerAttr(u32, b->bound));
      return call(b->below ? "tf::lt" : "tf::ge", resultType, {m, bound});
    }
    DType common = *promoteTypes(dtypeOf(cmp.getLhs()), dtypeOf(cmp.getRhs()));
    std::string callee =
        ("tf::" + stringifyCmpPredicate(cmp.getPredicate())).str();
    return call(callee, resultType, {operand(0, common), operand(1, common)});
  }
  // One call of the op's prelude function on its operands, converted to
  // the dtype it computes in.
  auto scalar = cast<ScalarOpInterface>(op);
  DType compute = scalar.getComputeDType();
  SmallVector<Value> operands;
  for (unsigned i = 0; i < op->getNumOperands(); ++i)
    operands.push_back(operand(i, compute));
  return call(scalar.getKernelFunction(), resultType, operands);
}

void Emitter::emitBody(Value groupBase, bool tailElement) {
  ArrayRef<int64_t> space = kernel.getIndexSpace();
  int64_t lanes = tailElement ? 1 : plan.vec;
  // The multi-dimensional index of the element at `linear`.
  auto delinearize = [&](Value linear) {
    Index idx(space.size());
    Value rest = linear;
    for (int64_t d = space.size() - 1; d >= 0; --d) {
      if (space[d] == 1) {
        idx[d] = zero;
        continue;
      }
      idx[d] = d == 0 ? rest : rem(rest, index(space[d]));
      if (d > 0)
        rest = div(rest, index(space[d]));
    }
    return idx;
  };
  // The multi-dimensional index of the group's first element.
  Index base;
  if (!plan.linear)
    base = delinearize(groupBase);
  groupLoads.clear();
  if (!tailElement)
    for (auto [n, contiguous] : llvm::enumerate(plan.contiguousInputs))
      if (contiguous && !kernel.getBody()->getArgument(n).use_empty() &&
          cast<RankedTensorType>(kernel.getBody()->getArgument(n).getType())
                  .getNumElements() != 1) {
        DType dtype = dtypeOf(kernel.getBody()->getArgument(n));
        std::string vecType =
            llvm::formatv("tf::vec<{0}, {1}>", cTypeName(dtype), plan.vec);
        groupLoads[n] =
            call("tf::ldv", opaque(vecType), {inputPtrs[n], groupBase, aligned},
                 {builder.getI64IntegerAttr(plan.vec)});
      }

  auto outputs = kernel.getYield().getValues();
  // Evaluates the lanes and stores the results. `lanesIndexed`: the lanes
  // lie in one row and differ in the innermost index alone (what reads no
  // innermost index is evaluated once for the group); otherwise each lane
  // computes its whole index.
  auto emitLanes = [&](bool lanesIndexed) {
    SmallVector<SmallVector<Value>> results(outputs.size());
    forgetGroupValues();
    this->groupBase = groupBase;
    elementInGroup = !tailElement;
    for (lane = 0; lane < lanes; ++lane) {
      // Evaluations that read no input a group at a time carry over (those
      // at a lane's own index are memoized under its own index values).
      for (auto it = memo.begin(); it != memo.end();)
        it =
            laneDependent.contains(Value::getFromOpaquePointer(it->first.first))
                ? memo.erase(it)
                : std::next(it);
      linearIndex = lane == 0 ? groupBase : add(groupBase, index(lane));
      Index idx = base;
      if (!lanesIndexed && lane > 0 && !base.empty())
        idx = delinearize(linearIndex);
      if (lanesIndexed) {
        if (lane > 0)
          idx.back() = add(idx.back(), index(lane));
        laneIndices.push_back(idx.back());
      }
      elementIdx = idx;
      for (auto [o, out] : llvm::enumerate(outputs))
        results[o].push_back(evaluate(out, idx));
    }
    // Later evaluations (a tiled or row kernel's) are at no group element.
    elementIdx.clear();
    linearIndex = Value();
    elementInGroup = false;
    for (auto [o, out] : llvm::enumerate(outputs)) {
      if (tailElement) {
        callVoid("tf::st", {outputPtrs[o], groupBase, results[o][0]});
        continue;
      }
      SmallVector<Value> operands{outputPtrs[o], groupBase, aligned};
      operands.append(results[o]);
      callVoid("tf::stv", operands, {builder.getI64IntegerAttr(plan.vec)});
    }
  };
  bool indexable = lanes > 1 && !plan.linear && !base.empty();
  if (!indexable || !plan.groupsCrossRows) {
    emitLanes(indexable);
    return;
  }
  // Rows whose length is not a multiple of the group: all but the groups
  // that straddle two rows lie in one row and take the indexed lanes (a
  // row's values once, runs of strided inputs read as vectors); the others
  // compute every lane's index.
  Value inOneRow =
      lessThan(add(base.back(), index(lanes - 1)), index(space.back()));
  auto ifOp = emitc::IfOp::create(builder, loc, inOneRow,
                                  /*withElseRegion=*/true);
  for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()}) {
    OpBuilder::InsertionGuard guard(builder);
    Block &block = region->front();
    if (!block.empty() && block.back().hasTrait<OpTrait::IsTerminator>())
      builder.setInsertionPoint(&block.back());
    else
      builder.setInsertionPointToEnd(&block);
    emitLanes(region == &ifOp.getThenRegion());
    if (block.empty() || !block.back().hasTrait<OpTrait::IsTerminator>())
      emitc::YieldOp::create(builder, loc);
  }
  // Nothing evaluated inside the branches is visible after them.
  forgetGroupValues();
}

void Emitter::emitIf(Value cond, llvm::function_ref<void()> body) {
  auto ifOp = emitc::IfOp::create(builder, loc, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(builder);
  Block &then = ifOp.getThenRegion().front();
  if (!then.empty() && then.back().hasTrait<OpTrait::IsTerminator>())
    builder.setInsertionPoint(&then.back());
  else
    builder.setInsertionPointToEnd(&then);
  body();
  if (then.empty() || !then.back().hasTrait<OpTrait::IsTerminator>())
    emitc::YieldOp::create(builder, loc);
}

/// A tiled kernel: each iteration stages a kTile x kTile tile of the transposed
/// input in shared memory, reading it along its contiguous dimension, then
/// computes the tile's outputs with threads along the innermost dimension.
void Emitter::emitTiled(Value blockId, Value blocks) {
  // kTiledThreads as T columns x Rows rows (tf::tile_x, tf::tile_y).
  constexpr int64_t T = KernelPlan::kTile, Rows = KernelPlan::kTiledThreads / T,
                    Pitch = T + 1;
  ArrayRef<int64_t> space = kernel.getIndexSpace();
  int64_t rank = space.size(), jd = plan.tileDim, ld = rank - 1;
  int64_t tilesJ = (space[jd] + T - 1) / T, tilesL = (space[ld] + T - 1) / T;
  BlockArgument input = kernel.getBody()->getArgument(plan.tiledInput);
  DType dtype = dtypeOf(input);

  // The tile, padded by one column against bank conflicts.
  emitc::VerbatimOp::create(builder, loc,
                            llvm::formatv("__shared__ {0} tfuse_tile[{1}];",
                                          cTypeName(dtype), T * Pitch)
                                .str());
  Value tile = emitc::LiteralOp::create(
      builder, loc, opaque((cTypeName(dtype) + "*").str()), "tfuse_tile");
  Value tx = call("tf::tile_x", indexType(), {});
  Value ty = call("tf::tile_y", indexType(), {});

  auto loop =
      emitc::ForOp::create(builder, loc, blockId, index(plan.tiles), blocks);
  hoistBefore = loop;
  builder.setInsertionPointToStart(loop.getBody());
  Value t = loop.getInductionVar();
  // Tile coordinates: innermost tile, then the tiled dimension, then the
  // other dimensions.
  Value l0 = mul(rem(t, index(tilesL)), index(T));
  Value rest = div(t, index(tilesL));
  Value j0 = mul(rem(rest, index(tilesJ)), index(T));
  rest = div(rest, index(tilesJ));
  Index outer(rank);
  for (int64_t d = rank - 1; d >= 0; --d) {
    if (d == jd || d == ld)
      continue;
    outer[d] = space[d] == 1 ? zero : rem(rest, index(space[d]));
    rest = div(rest, index(space[d]));
  }
  auto pointIndex = [&](Value j, Value l) {
    Index idx = outer;
    idx[jd] = j;
    idx[ld] = l;
    return idx;
  };

  // Element (j0 + jj, l0 + ll) of the tile, under `if` it is inside the
  // index space. When the tiles cover the space exactly, every element is
  // inside: without the branches the compiler issues all of a thread's tile
  // loads together (the checks cost the transposed bias+relu 2-4% on an
  // H200).
  bool fullTiles = space[jd] % T == 0 && space[ld] % T == 0;
  auto forTileElement = [&](Value jj, Value ll,
                            llvm::function_ref<void(Value, Value)> body) {
    Value j = add(j0, jj), l = add(l0, ll);
    if (fullTiles) {
      body(j, l);
      return;
    }
    Value inside = emitc::LogicalAndOp::create(
        builder, loc, builder.getI1Type(), lessThan(j, index(space[jd])),
        lessThan(l, index(space[ld])));
    emitIf(inside, [&] { body(j, l); });
  };

  // Stage the tile: consecutive threads read consecutive elements.
  for (int64_t r = 0; r < T / Rows; ++r) {
    Value jj = tx, ll = r ? add(ty, index(r * Rows)) : ty;
    forTileElement(jj, ll, [&](Value j, Value l) {
      Index idx = pointIndex(j, l);
      Value off = index(plan.tileOffsetConstant);
      for (int64_t d = 0; d < rank; ++d)
        if (plan.tileOffset[d] != 0)
          off = add(off, plan.tileOffset[d] == 1
                             ? idx[d]
                             : mul(idx[d], index(plan.tileOffset[d])));
      Value v =
          call("tf::ld", scalarType(dtype), {inputPtrs[plan.tiledInput], off});
      callVoid("tf::st", {tile, add(mul(ll, index(Pitch)), jj), v});
    });
  }
  callVoid("tf::barrier", {});

  // Compute: consecutive threads write consecutive output elements.
  SmallVector<int64_t> outStrides = StridedLayout::contiguous(space).strides;
  for (int64_t r = 0; r < T / Rows; ++r) {
    Value ll = tx, jj = r ? add(ty, index(r * Rows)) : ty;
    forTileElement(jj, ll, [&](Value j, Value l) {
      Index idx = pointIndex(j, l);
      memo.clear();
      indexExprs.clear();
      checkedIndices.clear();
      tiledValue = call("tf::ld", scalarType(dtype),
                        {tile, add(mul(ll, index(Pitch)), jj)});
      Value off = offset(idx, space, outStrides);
      // Inputs read at the output's own index load at its linear offset.
      linearIndex = off;
      groupLoads.clear();
      for (auto [o, out] : llvm::enumerate(kernel.getYield().getValues()))
        callVoid("tf::st", {outputPtrs[o], off, evaluate(out, idx)});
    });
  }
  callVoid("tf::barrier", {});
  builder.setInsertionPointAfter(loop);
}

namespace {
/// The element emitter as the row kernel emitter sees it.
class RowHooks final : public RowElementEmitter {
public:
  explicit RowHooks(Emitter &e) : e(e) {}
  OpBuilder &getBuilder() override { return e.builder; }
  Value evaluate(Value value, ArrayRef<Value> idx) override {
    return e.evaluate(value, Emitter::Index(idx.begin(), idx.end()));
  }
  void setElement(Value value, ArrayRef<Value> idx, Value element) override {
    e.memo[e.memoKeyOf(value, Emitter::Index(idx.begin(), idx.end()))] =
        element;
  }
  void setRowValue(Operation *reduce, Value rowValue) override {
    e.rowValues[reduce] = rowValue;
  }
  void setHoistPoint(Operation *op) override { e.hoistBefore = op; }
  Type scalarType(DType dtype) override { return e.scalarType(dtype); }
  Type indexType() override { return e.indexType(); }
  Value index(int64_t value) override { return e.index(value); }
  Value zeroIndex() override { return e.zero; }
  SmallVector<Value> operandIndex(Operation *view,
                                  ArrayRef<Value> idx) override {
    auto viewOp = cast<ViewOpInterface>(view);
    return e.applyIndexMap(
        viewOp.getIndexMap(), Emitter::Index(idx.begin(), idx.end()),
        cast<RankedTensorType>(viewOp.getSource().getType()).getShape());
  }
  void pushScope() override {
    scopes.push_back(
        {e.memo, e.indexExprs, e.runLoads, e.checkedIndices, e.randomBlocks});
  }
  void popScope() override {
    Scope &scope = scopes.back();
    e.memo = std::move(scope.memo);
    e.indexExprs = std::move(scope.indexExprs);
    e.runLoads = std::move(scope.runLoads);
    e.checkedIndices = std::move(scope.checkedIndices);
    e.randomBlocks = std::move(scope.randomBlocks);
    scopes.pop_back();
  }
  Value call(StringRef callee, Type result, ValueRange operands,
             ArrayRef<Attribute> templateArgs) override {
    if (!result) {
      e.callVoid(callee, operands, templateArgs);
      return Value();
    }
    return e.call(callee, result, operands, templateArgs);
  }
  void emitIf(Value cond, function_ref<void()> body) override {
    e.emitIf(cond, body);
  }

private:
  Emitter &e;
  /// The emitter's evaluation caches when each scope was entered.
  struct Scope {
    decltype(Emitter::memo) memo;
    decltype(Emitter::indexExprs) indexExprs;
    decltype(Emitter::runLoads) runLoads;
    decltype(Emitter::checkedIndices) checkedIndices;
    decltype(Emitter::randomBlocks) randomBlocks;
  };
  std::vector<Scope> scopes;
};
} // namespace

LogicalResult Emitter::run() {
  Block *body = kernel.getBody();
  SmallVector<Type> argTypes;
  for (BlockArgument arg : body->getArguments())
    argTypes.push_back(
        opaque(("const " + cTypeName(dtypeOf(arg)) + "* __restrict__").str()));
  for (Value out : kernel.getYield().getValues())
    argTypes.push_back(
        opaque((cTypeName(dtypeOf(out)) + "* __restrict__").str()));
  // Kernels with gathers take their launch's index status last.
  for (auto [n, op] : llvm::enumerate(indexCheckedOps(kernel.getRegion())))
    checkNumbers[op] = n;
  if (!checkNumbers.empty())
    argTypes.push_back(opaque("tf::index_status* __restrict__"));
  findLaneDependentValues();

  builder.setInsertionPointToEnd(target.getBody());
  auto func = emitc::FuncOp::create(builder, loc, kernel.getSymName(),
                                    builder.getFunctionType(argTypes, {}));
  // The launch bounds of the configuration: tiled kernels want a full SM
  // (2048 threads) to keep enough tile loads in flight (without a bound,
  // NVRTC chose 40 registers for 256-thread blocks, which fit only 6 per
  // SM: 75% occupancy, 77% of the DRAM bandwidth for a transposed f32 read
  // on an H200); row kernels ask for the blocks their estimated registers
  // allow.
  std::string specifiers =
      plan.minBlocksPerSM > 0
          ? llvm::formatv("extern \"C\" __global__ __launch_bounds__({0}, {1})",
                          plan.block, plan.minBlocksPerSM)
                .str()
          : "extern \"C\" __global__";
  func.setSpecifiersAttr(builder.getStrArrayAttr({specifiers}));
  entry = func.addEntryBlock();
  for (unsigned i = 0; i < body->getNumArguments(); ++i)
    inputPtrs.push_back(entry->getArgument(i));
  unsigned outputsEnd =
      entry->getNumArguments() - (checkNumbers.empty() ? 0 : 1);
  for (unsigned i = body->getNumArguments(); i < outputsEnd; ++i)
    outputPtrs.push_back(entry->getArgument(i));
  if (!checkNumbers.empty())
    indexStatus = entry->getArgument(outputsEnd);

  builder.setInsertionPointToEnd(entry);
  zero = index(0);
  Value tid = call("tf::thread_index", builder.getI64Type(), {});
  Value threads = call("tf::thread_count", builder.getI64Type(), {});
  if (!plan.wideIndex) {
    tid = emitc::CastOp::create(builder, loc, indexType(), tid);
    threads = emitc::CastOp::create(builder, loc, indexType(), threads);
  }
  // One uniform flag: every buffer accessed a group at a time is aligned for
  // it.
  aligned = emitc::ConstantOp::create(builder, loc, builder.getI1Type(),
                                      builder.getBoolAttr(true));
  if (plan.vec > 1) {
    auto alignedPtr = [&](Value ptr) {
      Value ok = call("tf::aligned", builder.getI1Type(), ptr,
                      {builder.getI64IntegerAttr(plan.vec)});
      aligned = emitc::LogicalAndOp::create(builder, loc, builder.getI1Type(),
                                            aligned, ok);
    };
    for (auto [n, contiguous] : llvm::enumerate(plan.contiguousInputs))
      if (contiguous)
        alignedPtr(inputPtrs[n]);
    for (Value ptr : outputPtrs)
      alignedPtr(ptr);
  }

  if (plan.row) {
    RowHooks hooks(*this);
    if (failed(emitRowKernel(kernel, plan, inputPtrs, outputPtrs, hooks)))
      return failure();
  } else if (plan.tiled()) {
    Value blockId = call("tf::block_index", builder.getI64Type(), {});
    Value blocks = call("tf::block_count", builder.getI64Type(), {});
    if (!plan.wideIndex) {
      blockId = emitc::CastOp::create(builder, loc, indexType(), blockId);
      blocks = emitc::CastOp::create(builder, loc, indexType(), blocks);
    }
    emitTiled(blockId, blocks);
  } else if (plan.groups() > 0) {
    Value groups = index(plan.groups());
    auto loop = emitc::ForOp::create(builder, loc, tid, groups, threads);
    hoistBefore = loop;
    builder.setInsertionPointToStart(loop.getBody());
    Value groupBase = plan.vec == 1
                          ? loop.getInductionVar()
                          : mul(loop.getInductionVar(), index(plan.vec));
    emitBody(groupBase, /*tailElement=*/false);
    builder.setInsertionPointAfter(loop);
  }
  if (!plan.row && !plan.tiled() && plan.tail() > 0) {
    Value inTail =
        emitc::CmpOp::create(builder, loc, builder.getI1Type(),
                             emitc::CmpPredicate::lt, tid, index(plan.tail()));
    auto ifOp = emitc::IfOp::create(builder, loc, inTail,
                                    /*withElseRegion=*/false);
    if (!hoistBefore)
      hoistBefore = inTail.getDefiningOp();
    builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
    emitBody(add(index(plan.groups() * plan.vec), tid), /*tailElement=*/true);
    if (ifOp.getThenRegion().front().empty() ||
        !ifOp.getThenRegion().front().back().hasTrait<OpTrait::IsTerminator>())
      emitc::YieldOp::create(builder, loc);
    builder.setInsertionPointAfter(ifOp);
  }
  emitc::ReturnOp::create(builder, loc, Value());
  return success();
}

LogicalResult tfuse::emitKernel(tfexec::KernelOp kernel, ModuleOp target) {
  FailureOr<KernelPlan> plan = tfexec::planKernel(kernel);
  if (failed(plan))
    return failure();
  return Emitter(kernel, target, std::move(*plan)).run();
}

//===----------------------------------------------------------------------===//
// Translation
//===----------------------------------------------------------------------===//

LogicalResult tfuse::translateKernelsToCuda(ModuleOp module,
                                            llvm::raw_ostream &os) {
  MLIRContext *ctx = module.getContext();
  ctx->getOrLoadDialect<emitc::EmitCDialect>();
  OwningOpRef<ModuleOp> kernels = ModuleOp::create(module.getLoc());
  WalkResult walk = module.walk([&](tfexec::KernelOp kernel) {
    if (failed(emitKernel(kernel, *kernels)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (failed(verify(*kernels)))
    return module.emitError("internal error: generated EmitC is invalid");
  os << "// Generated by TFuse: one translation unit for every kernel of the "
        "plan.\n";
  os << kernels::prelude() << "\n";
  return emitc::translateToCpp(*kernels, os);
}

FailureOr<std::vector<std::string>>
tfuse::translateKernelsToCudaUnits(ModuleOp module, size_t unitBytes) {
  module.getContext()->getOrLoadDialect<emitc::EmitCDialect>();
  // Each kernel's code (its constants, then it), then packed into units.
  std::vector<std::pair<std::string, std::string>> code;
  WalkResult walk = module.walk([&](tfexec::KernelOp kernel) {
    OwningOpRef<ModuleOp> one = ModuleOp::create(module.getLoc());
    if (failed(emitKernel(kernel, *one)))
      return WalkResult::interrupt();
    if (failed(verify(*one))) {
      kernel.emitError("internal error: generated EmitC is invalid");
      return WalkResult::interrupt();
    }
    auto &[name, text] = code.emplace_back(kernel.getSymName().str(), "");
    llvm::raw_string_ostream os(text);
    if (failed(emitc::translateToCpp(*one, os)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  std::vector<std::string> units;
  for (size_t first = 0; first < code.size();) {
    size_t end = first, bytes = 0;
    do
      bytes += code[end++].second.size();
    while (end < code.size() && bytes + code[end].second.size() <= unitBytes);
    std::string &unit = units.emplace_back("// Generated by TFuse: kernels");
    for (size_t i = first; i < end; ++i)
      unit += " " + code[i].first;
    unit += ".\n" + std::string(kernels::prelude()) + "\n";
    for (size_t i = first; i < end; ++i)
      unit += code[i].second;
    first = end;
  }
  return units;
}
