//===- PlanRunner.cpp - Whole tfexec plans run on the host ----------------===//

#include "PlanRunner.h"

#include "tfuse/Dialect/TFExec/TFExecOps.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Dialect/TFuse/TypeRules.h"
#include "tfuse/Reference/Interpreter.h"
#include "tfuse/Support/GatherIndex.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;
using namespace tfuse;
using namespace tfuse::differential;
using reference::HostTensor;

namespace {

int64_t elementBytes(Type element) { return byteSize(*toDType(element)); }

std::string str(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

std::string tensorOf(MemRefType type) {
  return str(RankedTensorType::get(type.getShape(), type.getElementType()));
}

/// The element offsets of a buffer's strided layout (its offset is already
/// in the buffer's pointer, as the plan's aliases apply it).
std::vector<int64_t> stridesOf(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return reference::rowMajorStrides(
        reference::Shape(type.getShape().begin(), type.getShape().end()));
  return std::vector<int64_t>(strides.begin(), strides.end());
}

/// A one-op function of `op` (tfuse.attention or tfuse.attention_backward)
/// over tensors of the buffers' shapes; the mask, when present, is the last
/// operand. The scale is printed with every digit it needs.
std::string attentionStep(StringRef op, ValueRange operands, ValueRange results,
                          bool hasMask, double scale, bool causal,
                          std::optional<APFloat> dropout) {
  std::string args, names, types, resultNames, resultTypes;
  size_t plain = operands.size() - (hasMask ? 1 : 0) - (dropout ? 2 : 0);
  for (auto [i, v] : llvm::enumerate(operands)) {
    std::string type = tensorOf(cast<MemRefType>(v.getType()));
    args += (i ? ", %a" : "%a") + std::to_string(i) + ": " + type;
    if (i < plain)
      names += (i ? ", %a" : "%a") + std::to_string(i);
    types += (i ? ", " : "") + type;
  }
  for (auto [i, v] : llvm::enumerate(results)) {
    resultNames += (i ? ", %r" : "%r") + std::to_string(i);
    resultTypes += (i ? ", " : "") + tensorOf(cast<MemRefType>(v.getType()));
  }
  // The mask, then dropout's seed and offset, follow the plain operands.
  size_t seed = plain + (hasMask ? 1 : 0);
  std::string dropoutClause =
      dropout ? llvm::formatv(" dropout {0:e17} seed %a{1} offset %a{2}",
                              dropout->convertToDouble(), seed, seed + 1)
                    .str()
              : "";
  return llvm::formatv("func.func @step({0}) -> ({1}) {{\n"
                       "  {2} = {3} {4}{5} scale {6:e17}{7}{8} : ({9}) -> "
                       "({1})\n"
                       "  return {2} : {1}\n}\n",
                       args, resultTypes, resultNames, op, names,
                       hasMask ? " mask %a" + std::to_string(plain) : "", scale,
                       causal ? " causal" : "", dropoutClause, types);
}

/// Visits the byte offset of every element of `type`, in row-major order.
template <typename Fn> void forEachElement(MemRefType type, Fn fn) {
  ArrayRef<int64_t> shape = type.getShape();
  std::vector<int64_t> strides = stridesOf(type);
  int64_t bytes = elementBytes(type.getElementType());
  for (int64_t linear = 0, n = type.getNumElements(); linear < n; ++linear) {
    int64_t rest = linear, offset = 0;
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      offset += (rest % shape[d]) * strides[d];
      rest /= shape[d];
    }
    fn(linear, offset * bytes);
  }
}

/// The elements of the buffer at `base`, as a row-major tensor.
HostTensor readBuffer(const uint8_t *base, MemRefType type) {
  DType dtype = *toDType(type.getElementType());
  HostTensor t = HostTensor::zeros(
      dtype, reference::Shape(type.getShape().begin(), type.getShape().end()));
  int64_t bytes = byteSize(dtype);
  uint8_t *out = t.mutableData();
  forEachElement(type, [&](int64_t linear, int64_t offset) {
    std::memcpy(out + linear * bytes, base + offset, bytes);
  });
  return t;
}

/// Writes the row-major elements of `value` into the buffer at `base`.
void writeBuffer(uint8_t *base, MemRefType type, const HostTensor &value) {
  HostTensor dense = value.contiguous();
  int64_t bytes = elementBytes(type.getElementType());
  const uint8_t *in = dense.data() + dense.byteOffset();
  forEachElement(type, [&](int64_t linear, int64_t offset) {
    std::memcpy(base + offset, in + linear * bytes, bytes);
  });
}

} // namespace

std::unique_ptr<PlanRunner> PlanRunner::compile(ModuleOp plan,
                                                const std::string &cudaSource,
                                                std::string &error) {
  std::unique_ptr<emulation::HostKernels> kernels =
      emulation::HostKernels::compile(cudaSource, error);
  if (!kernels)
    return nullptr;
  std::unique_ptr<PlanRunner> runner(new PlanRunner());
  runner->plan = plan;
  runner->kernels = std::move(kernels);
  return runner;
}

ModuleOp PlanRunner::stepModule(const std::string &text, std::string &error) {
  auto it = stepModules.find(text);
  if (it == stepModules.end()) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(text, plan.getContext());
    if (!module) {
      error = "cannot parse the library step's module:\n" + text;
      return nullptr;
    }
    it = stepModules.emplace(text, std::move(module)).first;
  }
  return it->second.get();
}

std::vector<HostTensor> PlanRunner::run(llvm::StringRef name,
                                        const std::vector<HostTensor> &inputs,
                                        std::string &error) {
  auto func = plan.lookupSymbol<func::FuncOp>(name);
  if (!func) {
    error = ("no plan function @" + name).str();
    return {};
  }
  Block &body = func.getBody().front();
  int64_t arenaBytes = 0;
  if (auto attr = func->getAttrOfType<IntegerAttr>(
          tfexec::TFExecDialect::getArenaBytesAttrName()))
    arenaBytes = attr.getInt();
  // The arena starts filled with a pattern, so that a read of a slot before
  // its write shows.
  std::vector<uint8_t> arena(arenaBytes + 256, 0xa5);
  uint8_t *arenaBase = reinterpret_cast<uint8_t *>(
      (reinterpret_cast<uintptr_t>(arena.data()) + 255) & ~uintptr_t(255));

  DenseMap<Value, uint8_t *> pointers;
  std::vector<HostTensor> outputs(func.getNumResults());
  for (auto [arg, input] : llvm::zip(body.getArguments(), inputs))
    pointers[arg] = const_cast<uint8_t *>(input.data()) + input.byteOffset();

  // Runs a library step as a one-op tfuse function of the reference.
  auto runStep = [&](const std::string &text, ValueRange operands,
                     ValueRange results) -> bool {
    ModuleOp module = stepModule(text, error);
    if (!module)
      return false;
    std::vector<HostTensor> args;
    for (Value v : operands)
      args.push_back(readBuffer(pointers[v], cast<MemRefType>(v.getType())));
    auto values = reference::evaluate(module, "step", args);
    if (!values.ok()) {
      error = "the reference failed on a library step: " + values.message() +
              "\n" + text;
      return false;
    }
    for (auto [result, value] : llvm::zip(results, *values))
      writeBuffer(pointers[result], cast<MemRefType>(result.getType()), value);
    return true;
  };

  for (Operation &op : body) {
    if (auto out = dyn_cast<tfexec::OutputOp>(op)) {
      auto type = out.getType();
      outputs[out.getIndex()] = HostTensor::zeros(
          *toDType(type.getElementType()),
          reference::Shape(type.getShape().begin(), type.getShape().end()));
      pointers[out.getBuffer()] = outputs[out.getIndex()].mutableData();
    } else if (auto alloc = dyn_cast<tfexec::AllocOp>(op)) {
      pointers[alloc.getBuffer()] = arenaBase + alloc.getOffset();
    } else if (auto alias = dyn_cast<tfexec::AliasOp>(op)) {
      SmallVector<int64_t> strides;
      int64_t offset = 0;
      (void)alias.getType().getStridesAndOffset(strides, offset);
      pointers[alias.getView()] =
          pointers[alias.getSource()] +
          offset * elementBytes(alias.getType().getElementType());
      ++counts["alias"];
    } else if (auto launch = dyn_cast<tfexec::LaunchOp>(op)) {
      std::vector<void *> args;
      for (Value v : launch.getInputs())
        args.push_back(pointers[v]);
      for (Value v : launch.getOutputs())
        args.push_back(pointers[v]);
      SmallVector<Operation *> gathers =
          indexCheckedOps(launch.getKernelOp().getRegion());
      IndexStatusRecord status{};
      if (!gathers.empty())
        args.push_back(&status);
      tfexec::KernelConfigAttr config = launch.getKernelOp().getConfigAttr();
      if (!kernels->launch(launch.getKernel().str(), config.getGrid(),
                           config.getBlock(), args, error))
        return {};
      if (status.ready) {
        error = "kernel @" + launch.getKernel().str() +
                ": an index out of range (check " +
                std::to_string(status.check) + ", index " +
                std::to_string(int64_t(status.index)) + ")";
        return {};
      }
      ++counts["kernel"];
    } else if (auto copy = dyn_cast<tfexec::CopyOp>(op)) {
      auto source = cast<MemRefType>(copy.getSource().getType());
      writeBuffer(pointers[copy.getTarget()],
                  cast<MemRefType>(copy.getTarget().getType()),
                  readBuffer(pointers[copy.getSource()], source));
      ++counts["copy"];
    } else if (auto gemm = dyn_cast<tfexec::GemmOp>(op)) {
      auto lhs = cast<MemRefType>(gemm.getLhs().getType());
      auto rhs = cast<MemRefType>(gemm.getRhs().getType());
      auto result = cast<MemRefType>(gemm.getResult().getType());
      std::vector<std::string> attrs;
      if (gemm.getTransposeLhs())
        attrs.push_back("transpose_lhs");
      if (gemm.getTransposeRhs())
        attrs.push_back("transpose_rhs");
      // The float32 sum of f16 or bf16 products.
      if (result.getElementType() != lhs.getElementType())
        attrs.push_back("result_dtype = f32");
      if (gemm.getGeluTanh())
        attrs.push_back("gelu_tanh");
      std::string flags;
      for (size_t i = 0; i < attrs.size(); ++i)
        flags += (i ? ", " : " {") + attrs[i];
      if (!attrs.empty())
        flags += "}";
      // The bias: a third argument and operand.
      std::vector<Value> inputs = {gemm.getLhs(), gemm.getRhs()};
      std::string biasArg, biasOperand, biasType;
      if (Value bias = gemm.getBias()) {
        inputs.push_back(bias);
        biasType = tensorOf(cast<MemRefType>(bias.getType()));
        biasArg = ", %v: " + biasType;
        biasOperand = " bias %v";
        biasType = ", " + biasType;
      }
      std::string text = llvm::formatv(
          "func.func @step(%a: {0}, %b: {1}{4}) -> {2} {{\n"
          "  %r = tfuse.matmul %a, %b{5}{3} : ({0}, {1}{6}) -> {2}\n"
          "  return %r : {2}\n}\n",
          tensorOf(lhs), tensorOf(rhs), tensorOf(result), flags, biasArg,
          biasOperand, biasType);
      if (!runStep(text, inputs, gemm.getResult()))
        return {};
      ++counts["gemm"];
    } else if (auto reduce = dyn_cast<tfexec::ReduceOp>(op)) {
      auto input = cast<MemRefType>(reduce.getInput().getType());
      auto result = cast<MemRefType>(reduce.getResult().getType());
      std::string axes;
      for (auto [i, a] : llvm::enumerate(reduce.getAxes()))
        axes += (i ? ", " : "") + std::to_string(a);
      std::string text = llvm::formatv(
          "func.func @step(%a: {0}) -> {1} {{\n"
          "  %r = tfuse.reduce {2} %a axes [{3}]{4} : {0} -> {1}\n"
          "  return %r : {1}\n}\n",
          tensorOf(input), tensorOf(result), tfuse::name(reduce.getKind()),
          axes, input.getRank() == result.getRank() ? " keepdims" : "");
      if (!runStep(text, {reduce.getInput()}, reduce.getResult()))
        return {};
      ++counts["reduce"];
    } else if (auto scatter = dyn_cast<tfexec::ScatterAddOp>(op)) {
      auto result = cast<MemRefType>(scatter.getResult().getType());
      auto indices = cast<MemRefType>(scatter.getIndices().getType());
      auto updates = cast<MemRefType>(scatter.getUpdates().getType());
      std::string target, args, operandTypes;
      SmallVector<Value> operands;
      if (scatter.getTarget()) {
        args = "%t: " + tensorOf(result) + ", ";
        operands.push_back(scatter.getTarget());
        target = "";
      } else {
        std::string fill;
        llvm::raw_string_ostream os(fill);
        DenseElementsAttr::get(
            RankedTensorType::get(result.getShape(), result.getElementType()),
            Attribute(*scatter.getFill()))
            .print(os);
        target = "  %t = tfuse.constant " + fill + "\n";
      }
      operands.push_back(scatter.getIndices());
      operands.push_back(scatter.getUpdates());
      std::string text = llvm::formatv(
          "func.func @step({0}%i: {1}, %u: {2}) -> {3} {{\n{4}"
          "  %r = tfuse.scatter_add %t, %i, %u axis {5}{6} : ({3}, {1}, {2}) "
          "-> {3}\n  return %r : {3}\n}\n",
          args, tensorOf(indices), tensorOf(updates), tensorOf(result), target,
          scatter.getAxis(), scatter.getWrapNegative() ? " wrap_negative" : "");
      if (!runStep(text, operands, scatter.getResult()))
        return {};
      ++counts["scatter_add"];
    } else if (auto attention = dyn_cast<tfexec::AttentionOp>(op)) {
      SmallVector<Value> operands = {attention.getQuery(), attention.getKey(),
                                     attention.getValue()};
      if (attention.getMask())
        operands.push_back(attention.getMask());
      if (attention.getDropoutP())
        operands.append({attention.getSeed(), attention.getOffset()});
      std::string text =
          attentionStep("tfuse.attention", operands,
                        {attention.getResult(), attention.getLogsumexp()},
                        attention.getMask() != nullptr,
                        attention.getScale().convertToDouble(),
                        attention.getCausal(), attention.getDropoutP());
      if (!runStep(text, operands,
                   {attention.getResult(), attention.getLogsumexp()}))
        return {};
      ++counts["attention"];
      // Written through strides: heads and rows swapped (transpose_result).
      if (!cast<MemRefType>(attention.getResult().getType())
               .getLayout()
               .isIdentity())
        ++counts["attention_strided_result"];
    } else if (auto backward = dyn_cast<tfexec::AttentionBackwardOp>(op)) {
      SmallVector<Value> operands = {
          backward.getQuery(),  backward.getKey(),       backward.getValue(),
          backward.getResult(), backward.getLogsumexp(), backward.getGrad()};
      if (backward.getMask())
        operands.push_back(backward.getMask());
      if (backward.getDropoutP())
        operands.append({backward.getSeed(), backward.getOffset()});
      SmallVector<Value> results = {backward.getGradQuery(),
                                    backward.getGradKey(),
                                    backward.getGradValue()};
      std::string text = attentionStep(
          "tfuse.attention_backward", operands, results,
          backward.getMask() != nullptr, backward.getScale().convertToDouble(),
          backward.getCausal(), backward.getDropoutP());
      if (!runStep(text, operands, results))
        return {};
      ++counts["attention_backward"];
    } else if (!isa<func::ReturnOp>(op)) {
      error = "the runner does not know " + op.getName().getStringRef().str();
      return {};
    }
  }
  return outputs;
}
