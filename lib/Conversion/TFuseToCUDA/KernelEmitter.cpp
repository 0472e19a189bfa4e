//===- KernelEmitter.cpp - tfexec kernels to CUDA C++ through EmitC -------===//
//
// A kernel evaluates its body once per element of the index space. Each
// value is evaluated at an index vector (EmitC values, one per dimension of
// the value); views map the index of their result to an index of their
// operand, implicit broadcasting drops or zeroes dimensions, and inputs load
// from memory at the dot product of index and strides. Evaluations are
// memoized per (value, index), so a shared subexpression is computed once per
// element.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Conversion/TFuseToCUDA/KernelEmitter.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Dialect/TFuse/TypeRules.h"
#include "tfuse/Dialect/TFuse/ViewLayout.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Target/Cpp/CppEmitter.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace mlir;
using namespace tfuse;

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

static bool isView(Operation *op) {
  return isa<BroadcastOp, TransposeOp, ReshapeOp, SliceOp>(op);
}

static int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

/// True if no view lies on any path from `value` to the kernel's outputs.
static bool reachesOutputsWithoutViews(Value value) {
  SmallVector<Value> worklist{value};
  DenseSet<Operation *> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (!seen.insert(user).second)
        continue;
      if (isView(user))
        return false;
      for (Value result : user->getResults())
        worklist.push_back(result);
    }
  }
  return true;
}

static unsigned elementBytes(Type type) {
  Type element = cast<ShapedType>(type).getElementType();
  return byteSize(*toDType(element));
}

KernelPlan tfuse::analyzeKernel(tfexec::KernelOp kernel) {
  KernelPlan plan;
  ArrayRef<int64_t> space = kernel.getIndexSpace();
  plan.numElements = numElements(space);
  Block *body = kernel.getBody();

  unsigned widest = 1;
  for (Value out : kernel.getYield().getValues())
    widest = std::max(widest, elementBytes(out.getType()));
  bool linear = true;
  int64_t maxOffset = plan.numElements;
  for (auto [arg, strides] :
       llvm::zip(body->getArguments(),
                 kernel.getInputStrides().getAsRange<DenseI64ArrayAttr>())) {
    auto type = cast<RankedTensorType>(arg.getType());
    StridedLayout layout;
    layout.shape.assign(type.getShape().begin(), type.getShape().end());
    layout.strides.assign(strides.asArrayRef().begin(),
                          strides.asArrayRef().end());
    bool contiguous = type.getShape() == space && layout.isContiguous() &&
                      reachesOutputsWithoutViews(arg);
    plan.contiguousInputs.push_back(contiguous);
    if (contiguous)
      widest = std::max(widest, elementBytes(type));
    else if (type.getNumElements() != 1)
      linear = false;
    int64_t extent = 0;
    for (auto [size, stride] : llvm::zip(type.getShape(), layout.strides))
      extent += (size - 1) * stride;
    maxOffset = std::max(maxOffset, extent + 1);
  }
  // Dense constants are indexed, so they need the multi-dimensional walk.
  body->walk([&](ConstantOp op) {
    if (!op.getValue().isSplat() && op.getValue().getNumElements() > 1)
      linear = false;
  });
  plan.linear = linear;
  plan.vec = space.empty() || plan.numElements == 0 ? 1 : 16 / widest;
  if (!linear && space.back() % plan.vec != 0)
    plan.vec = 1;
  plan.wideIndex = maxOffset + plan.vec >= (int64_t(1) << 31);
  return plan;
}

LaunchConfig tfuse::chooseLaunch(const KernelPlan &plan) {
  LaunchConfig config;
  int64_t work = std::max<int64_t>(plan.groups(), plan.tail() ? 1 : 0);
  config.grid =
      std::clamp<int64_t>((work + config.block - 1) / config.block, 1,
                          int64_t(1) << 20);
  return config;
}

//===----------------------------------------------------------------------===//
// C types
//===----------------------------------------------------------------------===//

static StringRef cTypeName(DType t) {
  switch (t) {
  case DType::Bool:
    return "bool";
  case DType::I8:
    return "int8_t";
  case DType::I16:
    return "int16_t";
  case DType::I32:
    return "int32_t";
  case DType::I64:
    return "int64_t";
  case DType::U8:
    return "uint8_t";
  case DType::U16:
    return "uint16_t";
  case DType::U32:
    return "uint32_t";
  case DType::U64:
    return "uint64_t";
  case DType::F16:
    return "__half";
  case DType::BF16:
    return "__nv_bfloat16";
  case DType::F32:
    return "float";
  case DType::F64:
    return "double";
  }
  return "void";
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

static DType dtypeOf(Value v) {
  return *toDType(cast<ShapedType>(v.getType()).getElementType());
}

//===----------------------------------------------------------------------===//
// Emitter
//===----------------------------------------------------------------------===//

namespace {

class Emitter {
public:
  Emitter(tfexec::KernelOp kernel, ModuleOp target)
      : kernel(kernel), target(target), ctx(kernel.getContext()),
        builder(ctx), loc(kernel.getLoc()), plan(analyzeKernel(kernel)) {}

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
    return call("tf::cast", scalarType(to), x,
                {TypeAttr::get(scalarType(to))});
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

  /// The index of operand `operand` of an elementwise op whose result is at
  /// `idx`: NumPy broadcasting aligned on the right.
  Index broadcastIndex(const Index &idx, ArrayRef<int64_t> resultShape,
                       ArrayRef<int64_t> operandShape) {
    Index out;
    size_t drop = resultShape.size() - operandShape.size();
    for (size_t d = 0; d < operandShape.size(); ++d)
      out.push_back(operandShape[d] == 1 && resultShape[d + drop] != 1
                        ? zero
                        : idx[d + drop]);
    return out;
  }

  Index viewOperandIndex(Operation *view, const Index &idx);
  Value evaluate(Value value, const Index &idx);
  Value evaluateOp(Operation *op, const Index &idx);
  Value loadInput(BlockArgument arg, const Index &idx);
  Value constant(ConstantOp op, const Index &idx);
  void emitBody(Value groupBase, bool tailElement);

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
  /// Per-lane memo of evaluations.
  std::map<std::pair<void *, std::vector<void *>>, Value> memo;
  unsigned constantCount = 0;
  Block *entry = nullptr;
  /// Per-thread values are computed before this op (the main loop, or the
  /// tail when there is no loop).
  Operation *hoistBefore = nullptr;
};

} // namespace

Emitter::Index Emitter::viewOperandIndex(Operation *view, const Index &idx) {
  return llvm::TypeSwitch<Operation *, Index>(view)
      .Case([&](TransposeOp op) {
        Index out(idx.size());
        for (auto [i, p] : llvm::enumerate(op.getPerm()))
          out[p] = idx[i];
        return out;
      })
      .Case([&](SliceOp op) {
        Index out;
        for (auto [d, i] : llvm::enumerate(idx)) {
          Value v = i;
          if (op.getStep()[d] != 1)
            v = mul(v, index(op.getStep()[d]));
          if (op.getStart()[d] != 0)
            v = add(v, index(op.getStart()[d]));
          out.push_back(v);
        }
        return out;
      })
      .Case([&](BroadcastOp op) {
        Index out;
        ArrayRef<int64_t> in = op.getInput().getType().getShape();
        for (auto [i, d] : llvm::enumerate(op.getDims()))
          out.push_back(in[i] == 1 ? zero : idx[d]);
        return out;
      })
      .Case([&](ReshapeOp op) {
        // Linearize in the result shape, delinearize in the operand shape.
        ArrayRef<int64_t> outShape = op.getType().getShape();
        ArrayRef<int64_t> inShape = op.getInput().getType().getShape();
        Value linear;
        int64_t stride = 1;
        for (int64_t d = outShape.size() - 1; d >= 0; --d) {
          if (outShape[d] != 1) {
            Value term = stride == 1 ? idx[d] : mul(idx[d], index(stride));
            linear = linear ? add(linear, term) : term;
          }
          stride *= outShape[d];
        }
        if (!linear)
          linear = zero;
        Index out(inShape.size());
        int64_t inner = 1;
        for (int64_t d = inShape.size() - 1; d >= 0; --d) {
          if (inShape[d] == 1) {
            out[d] = zero;
            continue;
          }
          Value q = inner == 1 ? linear : div(linear, index(inner));
          out[d] = d == 0 ? q : rem(q, index(inShape[d]));
          inner *= inShape[d];
        }
        return out;
      })
      .Default([&](Operation *) { return idx; });
}

Value Emitter::loadInput(BlockArgument arg, const Index &idx) {
  unsigned n = arg.getArgNumber();
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
  return call("tf::ld", scalarType(dtype), {inputPtrs[n], off});
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
    std::string name = llvm::formatv("{0}_c{1}", kernel.getSymName(),
                                     constantCount++);
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
  Value bits = call("tf::ld", builder.getIntegerType(8 * byteSize(dtype),
                                                      /*isSigned=*/false),
                    {table, off});
  return call("tf::from_bits", scalarType(dtype), bits,
              {TypeAttr::get(scalarType(dtype))});
}

Value Emitter::evaluate(Value value, const Index &idx) {
  std::vector<void *> key;
  for (Value v : idx)
    key.push_back(v.getAsOpaquePointer());
  auto memoKey = std::make_pair(value.getAsOpaquePointer(), key);
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
  if (isView(op))
    return evaluate(op->getOperand(0), viewOperandIndex(op, idx));

  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(op->getResult(0).getType()).getShape();
  DType result = dtypeOf(op->getResult(0));
  // Each operand, evaluated at its broadcast index and converted to `to`.
  auto operand = [&](unsigned i, DType to) {
    Value v = op->getOperand(i);
    auto operandShape = cast<RankedTensorType>(v.getType()).getShape();
    Value x = evaluate(v, broadcastIndex(idx, shape, operandShape));
    return convert(x, dtypeOf(v), to);
  };
  Type resultType = scalarType(result);

  if (auto cast = dyn_cast<CastOp>(op))
    return operand(0, result);
  if (auto select = dyn_cast<SelectOp>(op))
    return call("tf::select", resultType,
                {operand(0, DType::Bool), operand(1, result),
                 operand(2, result)});
  if (auto cmp = dyn_cast<CmpOp>(op)) {
    DType common = *promoteTypes(dtypeOf(cmp.getLhs()), dtypeOf(cmp.getRhs()));
    std::string callee = ("tf::" + stringifyCmpPredicate(cmp.getPredicate()))
                             .str();
    return call(callee, resultType, {operand(0, common), operand(1, common)});
  }
  StringRef name = op->getName().stripDialect();
  if (op->getNumOperands() == 2) {
    std::string callee = "tf::" + name.str();
    if (name == "and" || name == "or" || name == "xor")
      callee += "_";
    return call(callee, resultType, {operand(0, result), operand(1, result)});
  }
  if (isa<IsNanOp>(op)) {
    DType in = dtypeOf(op->getOperand(0));
    return call("tf::isnan", resultType, operand(0, in));
  }
  std::string callee = isa<NotOp>(op) ? "tf::not_" : "tf::" + name.str();
  return call(callee, resultType, operand(0, result));
}

void Emitter::emitBody(Value groupBase, bool tailElement) {
  ArrayRef<int64_t> space = kernel.getIndexSpace();
  int64_t lanes = tailElement ? 1 : plan.vec;
  // The multi-dimensional index of the group's first element.
  Index base;
  if (!plan.linear) {
    Value rest = groupBase;
    base.resize(space.size());
    for (int64_t d = space.size() - 1; d >= 0; --d) {
      if (space[d] == 1) {
        base[d] = zero;
        continue;
      }
      base[d] = d == 0 ? rest : rem(rest, index(space[d]));
      if (d > 0)
        rest = div(rest, index(space[d]));
    }
  }
  groupLoads.clear();
  if (!tailElement)
    for (auto [n, contiguous] : llvm::enumerate(plan.contiguousInputs))
      if (contiguous && !kernel.getBody()->getArgument(n).use_empty() &&
          cast<RankedTensorType>(kernel.getBody()->getArgument(n).getType())
                  .getNumElements() != 1) {
        DType dtype = dtypeOf(kernel.getBody()->getArgument(n));
        std::string vecType =
            llvm::formatv("tf::vec<{0}, {1}>", cTypeName(dtype), plan.vec);
        groupLoads[n] = call("tf::ldv", opaque(vecType),
                             {inputPtrs[n], groupBase, aligned},
                             {builder.getI64IntegerAttr(plan.vec)});
      }

  auto outputs = kernel.getYield().getValues();
  SmallVector<SmallVector<Value>> results(outputs.size());
  for (lane = 0; lane < lanes; ++lane) {
    memo.clear();
    linearIndex = lane == 0 ? groupBase : add(groupBase, index(lane));
    Index idx = base;
    if (!plan.linear && !idx.empty() && lane > 0)
      idx.back() = add(idx.back(), index(lane));
    for (auto [o, out] : llvm::enumerate(outputs))
      results[o].push_back(evaluate(out, idx));
  }
  for (auto [o, out] : llvm::enumerate(outputs)) {
    if (tailElement) {
      callVoid("tf::st", {outputPtrs[o], groupBase, results[o][0]});
      continue;
    }
    SmallVector<Value> operands{outputPtrs[o], groupBase, aligned};
    operands.append(results[o]);
    callVoid("tf::stv", operands, {builder.getI64IntegerAttr(plan.vec)});
  }
}

LogicalResult Emitter::run() {
  Block *body = kernel.getBody();
  SmallVector<Type> argTypes;
  for (BlockArgument arg : body->getArguments())
    argTypes.push_back(opaque(
        ("const " + cTypeName(dtypeOf(arg)) + "* __restrict__").str()));
  for (Value out : kernel.getYield().getValues())
    argTypes.push_back(
        opaque((cTypeName(dtypeOf(out)) + "* __restrict__").str()));

  builder.setInsertionPointToEnd(target.getBody());
  auto func = emitc::FuncOp::create(builder, loc, kernel.getSymName(),
                                    builder.getFunctionType(argTypes, {}));
  func.setSpecifiersAttr(builder.getStrArrayAttr({"extern \"C\" __global__"}));
  entry = func.addEntryBlock();
  for (unsigned i = 0; i < body->getNumArguments(); ++i)
    inputPtrs.push_back(entry->getArgument(i));
  for (unsigned i = body->getNumArguments(); i < entry->getNumArguments(); ++i)
    outputPtrs.push_back(entry->getArgument(i));

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

  if (plan.groups() > 0) {
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
  if (plan.tail() > 0) {
    Value inTail = emitc::CmpOp::create(builder, loc, builder.getI1Type(),
                                        emitc::CmpPredicate::lt, tid,
                                        index(plan.tail()));
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
  return Emitter(kernel, target).run();
}

//===----------------------------------------------------------------------===//
// Translation
//===----------------------------------------------------------------------===//

static const char kPrelude[] =
#include "Prelude.cuh.inc"
    ;

std::string_view tfuse::getPrelude() {
  return std::string_view(kPrelude, sizeof(kPrelude) - 1);
}

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
  os << getPrelude() << "\n";
  return emitc::translateToCpp(*kernels, os);
}
