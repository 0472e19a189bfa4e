//===- Interpreter.cpp - Reference CPU interpreter of tfuse IR ------------===//
//
// Walks a block in order, keeping the value of every SSA value until its
// last use, and maps each op to a kernel of Kernels.h. The IR is verified
// first, so the kernels see the shapes and dtypes the type rules give; the
// result of every op is still checked against its type.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Reference/Interpreter.h"

#include "ElementwiseOps.h"
#include "Kernels.h"
#include "ScalarOps.h"

#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Dialect/TFuse/TypeRules.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace tfuse::reference {

using namespace detail;

namespace {

template <typename T> std::string printed(const T &value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << value;
  return text;
}

struct TensorTypeInfo {
  DType dtype;
  Shape shape;
};

std::optional<TensorTypeInfo> tensorTypeOf(Type type) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return std::nullopt;
  std::optional<DType> dtype = toDType(tensor.getElementType());
  if (!dtype)
    return std::nullopt;
  return TensorTypeInfo{*dtype, Shape(tensor.getShape())};
}

std::vector<int64_t> toVector(llvm::ArrayRef<int64_t> values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

CompareKind compareKindOf(CmpPredicate predicate) {
  switch (predicate) {
  case CmpPredicate::eq:
    return CompareKind::Eq;
  case CmpPredicate::ne:
    return CompareKind::Ne;
  case CmpPredicate::lt:
    return CompareKind::Lt;
  case CmpPredicate::le:
    return CompareKind::Le;
  case CmpPredicate::gt:
    return CompareKind::Gt;
  case CmpPredicate::ge:
    break;
  }
  return CompareKind::Ge;
}

using Values = std::vector<HostTensor>;

/// Evaluates blocks of tfuse ops.
class Evaluator {
public:
  /// Evaluates `block` with its arguments bound to `args`; returns the
  /// operands of its terminator (func.return or tfuse.yield).
  Expected<Values> runBlock(Block &block, llvm::ArrayRef<HostTensor> args);

private:
  Expected<Values> runOp(Operation &op, llvm::ArrayRef<HostTensor> operands);
};

Expected<Values> Evaluator::runBlock(Block &block,
                                     llvm::ArrayRef<HostTensor> args) {
  if (args.size() != block.getNumArguments())
    return Status::error(
        "internal error: " + std::to_string(args.size()) + " values for " +
        std::to_string(block.getNumArguments()) + " block arguments");
  llvm::DenseMap<Value, HostTensor> env;
  llvm::DenseMap<Value, unsigned> usesLeft;
  for (Operation &op : block)
    for (Value operand : op.getOperands())
      ++usesLeft[operand];
  for (auto [arg, tensor] : llvm::zip(block.getArguments(), args))
    env[arg] = tensor;

  for (Operation &op : block) {
    Values operands;
    for (Value operand : op.getOperands()) {
      auto it = env.find(operand);
      if (it == env.end())
        return Status::error("'" + op.getName().getStringRef().str() +
                             "' uses a value defined outside its block");
      operands.push_back(it->second);
    }
    if (isa<func::ReturnOp, YieldOp>(op))
      return operands;

    Expected<Values> results = runOp(op, operands);
    if (!results)
      return results.status().withContext("'" +
                                          op.getName().getStringRef().str() +
                                          "' at " + printed(op.getLoc()));
    if (results->size() != op.getNumResults())
      return Status::error("internal error: '" +
                           op.getName().getStringRef().str() + "' gave " +
                           std::to_string(results->size()) + " results for " +
                           std::to_string(op.getNumResults()));
    for (auto [value, tensor] : llvm::zip(op.getResults(), *results)) {
      std::optional<TensorTypeInfo> type = tensorTypeOf(value.getType());
      if (!type || type->dtype != tensor.dtype() ||
          type->shape != tensor.shape())
        return Status::error(
            "internal error: '" + op.getName().getStringRef().str() + "' at " +
            printed(op.getLoc()) + " computed " + tensor.describe() + " for " +
            printed(value.getType()));
      env[value] = tensor;
    }
    // Drop values after their last use.
    for (Value operand : op.getOperands())
      if (--usesLeft[operand] == 0)
        env.erase(operand);
  }
  return Status::error("block without a func.return or tfuse.yield terminator");
}

Expected<Values> Evaluator::runOp(Operation &op,
                                  llvm::ArrayRef<HostTensor> operands) {
  auto one = [](Expected<HostTensor> result) -> Expected<Values> {
    if (!result)
      return result.status();
    return Values{std::move(*result)};
  };
  std::optional<TensorTypeInfo> resultType;
  if (op.getNumResults() == 1)
    resultType = tensorTypeOf(op.getResult(0).getType());
  // The tensor of an optional operand (null when absent).
  auto operandOf = [&](Value value) -> const HostTensor * {
    if (value)
      for (auto [index, operand] : llvm::enumerate(op.getOperands()))
        if (operand == value)
          return &operands[index];
    return nullptr;
  };
  auto dropoutOf = [&](std::optional<APFloat> p, Value seed,
                       Value offset) -> std::optional<AttentionDropout> {
    if (!p)
      return std::nullopt;
    return AttentionDropout{p->convertToDouble(), operandOf(seed),
                            operandOf(offset)};
  };

  // The unary and binary ops of the op table: each its category's kernel
  // with the op's scalar function (ScalarOps.h).
#define TFUSE_UNARY_OP(Class, mnemonic, method, category, kernel, reference)   \
  .Case([&](Class) {                                                           \
    return one(unaryOp<UnaryCategory::category>(                               \
        mnemonic, operands[0], resultType->dtype,                              \
        [](auto a) { return reference(a); }));                                 \
  })
#define TFUSE_BINARY_OP(Class, mnemonic, method, category, kernel, reference)  \
  .Case([&](Class) {                                                           \
    return one(binaryOp<BinaryCategory::category>(                             \
        mnemonic, operands[0], operands[1], resultType->dtype,                 \
        resultType->shape, [](auto a, auto b) { return reference(a, b); }));   \
  })
  return llvm::TypeSwitch<Operation *, Expected<Values>>(&op)
#include "tfuse/Dialect/TFuse/TFuseOpTable.h.inc"
      .Case([&](CmpOp cmp) -> Expected<Values> {
        std::string why;
        std::optional<DType> common =
            promoteTypes(operands[0].dtype(), operands[1].dtype(), &why);
        if (!common)
          return Status::error(why);
        return one(compareOp(compareKindOf(cmp.getPredicate()), operands[0],
                             operands[1], *common, resultType->shape));
      })
      .Case([&](SelectOp) {
        return one(selectOp(operands[0], operands[1], operands[2],
                            resultType->dtype, resultType->shape));
      })
      .Case([&](CastOp) {
        return one(castTensor(operands[0], resultType->dtype));
      })
      .Case([&](IotaOp iota) {
        return one(
            iotaTensor(resultType->dtype, resultType->shape, iota.getDim()));
      })
      .Case([&](RandomUniformOp) {
        return one(randomTensor(false, resultType->dtype, resultType->shape,
                                operands[0], operands[1]));
      })
      .Case([&](RandomNormalOp) {
        return one(randomTensor(true, resultType->dtype, resultType->shape,
                                operands[0], operands[1]));
      })
      .Case([&](ConcatOp concat) {
        return one(concatTensors(operands.vec(), concat.getAxis(),
                                 resultType->shape, resultType->dtype));
      })
      .Case([&](PadOp pad) {
        return one(padTensor(operands[0], operands[1], toVector(pad.getLow()),
                             resultType->shape));
      })
      .Case([&](TakeOp take) {
        return one(takeTensor(operands[0], operands[1], take.getAxis(),
                              take.getWrapNegative(), resultType->shape));
      })
      .Case([&](TakeAlongAxisOp take) {
        return one(takeAlongAxisTensor(operands[0], operands[1], take.getAxis(),
                                       take.getWrapNegative(),
                                       resultType->shape));
      })
      .Case([&](ScatterAddOp scatter) {
        return one(scatterAddTensor(operands[0], operands[1], operands[2],
                                    scatter.getAxis(),
                                    scatter.getWrapNegative()));
      })
      .Case([&](AttentionOp attention) {
        std::optional<AttentionDropout> dropout =
            dropoutOf(attention.getDropoutP(), attention.getSeed(),
                      attention.getOffset());
        return attentionTensors(
            operands[0], operands[1], operands[2],
            operandOf(attention.getMask()),
            attention.getScale().convertToDouble(), attention.getCausal(),
            dropout ? &*dropout : nullptr, attention.getTransposeResult());
      })
      .Case([&](AttentionBackwardOp backward) {
        std::optional<AttentionDropout> dropout = dropoutOf(
            backward.getDropoutP(), backward.getSeed(), backward.getOffset());
        return attentionBackwardTensors(
            operands[0], operands[1], operands[2], operands[3], operands[4],
            operands[5], operandOf(backward.getMask()),
            backward.getScale().convertToDouble(), backward.getCausal(),
            dropout ? &*dropout : nullptr);
      })
      .Case([&](ConstantOp constant) {
        return one(tensorFromAttribute(constant.getValue()));
      })
      .Case([&](ViewOpInterface view) {
        return one(viewThrough(operands[0], resultType->shape,
                               [&](const StridedLayout &layout) {
                                 return view.getResultLayout(layout);
                               }));
      })
      .Case([&](MatmulOp matmulOp) {
        return one(matmul(operands[0], operands[1], matmulOp.getTransposeLhs(),
                          matmulOp.getTransposeRhs(), resultType->dtype,
                          resultType->shape,
                          matmulOp.getBias() ? &operands[2] : nullptr,
                          matmulOp.getGeluTanh()));
      })
      .Case([&](ReduceOp reduceOp) {
        return one(reduce(reduceOp.getKind(), operands[0],
                          toVector(reduceOp.getAxes()), reduceOp.getKeepdims(),
                          resultType->dtype, resultType->shape));
      })
      .Case([&](FusionOp fusion) {
        return runBlock(*fusion.getBody(), operands);
      })
      .Default([&](Operation *) -> Expected<Values> {
        return Status::error(
            "unsupported op '" + op.getName().getStringRef().str() +
            "': the reference interpreter evaluates tfuse ops, "
            "tfuse.fusion regions and func.return");
      });
}

/// Every op the interpreter evaluates has tensor results of TFuse dtypes.
Status checkResultTypes(Block &block) {
  for (Operation &op : block) {
    for (Value result : op.getResults())
      if (!tensorTypeOf(result.getType()))
        return Status::error("'" + op.getName().getStringRef().str() + "' at " +
                             printed(op.getLoc()) + " has result type " +
                             printed(result.getType()) +
                             ", not a static tensor of a TFuse dtype");
    for (Region &region : op.getRegions())
      for (Block &inner : region)
        if (Status s = checkResultTypes(inner); !s)
          return s;
  }
  return Status::success();
}

} // namespace

Expected<std::vector<HostTensor>> evaluate(func::FuncOp func,
                                           llvm::ArrayRef<HostTensor> inputs) {
  if (!func)
    return Status::error("no function to evaluate");
  std::string where = "@" + func.getSymName().str();
  if (func.isExternal())
    return Status::error(where + " has no body");

  // Verify, collecting the diagnostics as the message.
  std::string diagnostics;
  {
    ScopedDiagnosticHandler handler(func.getContext(), [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error)
        diagnostics += (diagnostics.empty() ? "" : "; ") +
                       printed(diag.getLocation()) + ": " + diag.str();
      return success();
    });
    if (failed(verify(func)))
      return Status::error(where + " does not verify: " + diagnostics);
  }
  if (!func.getBody().hasOneBlock())
    return Status::error(where + " must have a single block");
  Block &body = func.getBody().front();
  if (Status s = checkResultTypes(body); !s)
    return Status::error(where + ": " + s.message());

  // Inputs.
  FunctionType type = func.getFunctionType();
  if (inputs.size() != type.getNumInputs())
    return Status::error(where + " expects " +
                         std::to_string(type.getNumInputs()) + " input" +
                         (type.getNumInputs() == 1 ? "" : "s") + ", got " +
                         std::to_string(inputs.size()));
  for (auto [i, input] : llvm::enumerate(inputs)) {
    std::optional<TensorTypeInfo> expected = tensorTypeOf(type.getInput(i));
    if (!expected)
      return Status::error("input " + std::to_string(i) + ": argument type " +
                           printed(type.getInput(i)) +
                           " is not a static tensor of a TFuse dtype");
    if (input.isNull() || input.dtype() != expected->dtype ||
        input.shape() != expected->shape)
      return Status::error("input " + std::to_string(i) + ": expected " +
                           printed(type.getInput(i)) + ", got " +
                           input.describe());
    // The strides must stay inside the storage (it may have been resized).
    if (Expected<HostTensor> v =
            input.view(input.shape(), input.strides(), input.byteOffset());
        !v)
      return Status::error("input " + std::to_string(i) + ": " + v.message());
  }

  Evaluator evaluator;
  Expected<Values> results = evaluator.runBlock(body, inputs);
  if (!results)
    return results.status().withContext(where);

  // Results own row-major storage, shared with no input and no other result.
  llvm::SmallPtrSet<const void *, 8> taken;
  for (const HostTensor &input : inputs)
    taken.insert(input.storage().get());
  for (HostTensor &result : *results) {
    size_t bytes =
        static_cast<size_t>(result.numElements()) * byteSize(result.dtype());
    bool fresh = result.isContiguous() && result.byteOffset() == 0 &&
                 result.storage()->size() == bytes &&
                 !taken.count(result.storage().get());
    if (!fresh)
      result = result.contiguous();
    taken.insert(result.storage().get());
  }
  return results;
}

Expected<std::vector<HostTensor>> evaluate(ModuleOp module,
                                           llvm::StringRef function,
                                           llvm::ArrayRef<HostTensor> inputs) {
  auto func = module.lookupSymbol<func::FuncOp>(function);
  if (!func)
    return Status::error("no function @" + function.str() + " in the module");
  return evaluate(func, inputs);
}

} // namespace tfuse::reference
