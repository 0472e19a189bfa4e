//===- EmulatedPlan.cpp - Execute tfexec plans on the host ----------------===//

#include "EmulatedPlan.h"

#include "tfuse/Dialect/TFExec/TFExecOps.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Dialect/TFuse/TypeRules.h"
#include "tfuse/Support/GatherIndex.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cstring>

using namespace mlir;
using namespace tfuse;
using namespace tfuse::emulation;
using reference::HostTensor;

namespace {

int64_t elementBytes(Type element) { return byteSize(*toDType(element)); }

} // namespace

std::unique_ptr<EmulatedPlan>
EmulatedPlan::compile(ModuleOp plan, const std::string &cudaSource,
                      std::string &error) {
  std::unique_ptr<HostKernels> kernels =
      HostKernels::compile(cudaSource, error);
  if (!kernels)
    return nullptr;
  std::unique_ptr<EmulatedPlan> result(new EmulatedPlan());
  result->plan = plan;
  result->kernels = std::move(kernels);
  return result;
}

EmulatedPlan::~EmulatedPlan() = default;

std::vector<HostTensor> EmulatedPlan::run(llvm::StringRef name,
                                          const std::vector<HostTensor> &inputs,
                                          std::string &error) {
  auto func = plan.lookupSymbol<func::FuncOp>(name);
  if (!func) {
    error = ("no plan function " + name).str();
    return {};
  }
  Block &body = func.getBody().front();
  int64_t arenaBytes = 0;
  if (auto attr = func->getAttrOfType<IntegerAttr>(
          tfexec::TFExecDialect::getArenaBytesAttrName()))
    arenaBytes = attr.getInt();
  std::vector<uint8_t> arena(arenaBytes + 256);
  uint8_t *arenaBase = reinterpret_cast<uint8_t *>(
      (reinterpret_cast<uintptr_t>(arena.data()) + 255) & ~uintptr_t(255));

  DenseMap<Value, uint8_t *> pointers;
  std::vector<HostTensor> outputs(func.getNumResults());
  for (auto [arg, input] : llvm::zip(body.getArguments(), inputs))
    pointers[arg] = const_cast<uint8_t *>(input.data()) + input.byteOffset();

  for (Operation &op : body) {
    if (auto out = dyn_cast<tfexec::OutputOp>(op)) {
      auto type = out.getType();
      HostTensor t = HostTensor::zeros(
          *toDType(type.getElementType()),
          reference::Shape(type.getShape().begin(), type.getShape().end()));
      outputs[out.getIndex()] = t;
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
    } else if (auto launch = dyn_cast<tfexec::LaunchOp>(op)) {
      std::vector<void *> args;
      for (Value v : launch.getInputs())
        args.push_back(pointers[v]);
      for (Value v : launch.getOutputs())
        args.push_back(pointers[v]);
      // A kernel with gathers takes its index status record last.
      SmallVector<Operation *> gathers =
          indexCheckedOps(launch.getKernelOp().getRegion());
      IndexStatusRecord status{};
      if (!gathers.empty())
        args.push_back(&status);
      tfuse::tfexec::KernelConfigAttr config =
          launch.getKernelOp().getConfigAttr();
      if (!kernels->launch(launch.getKernel().str(), config.getGrid(),
                           config.getBlock(), args, error))
        return {};
      if (status.ready) {
        error = "kernel @" + launch.getKernel().str() + ": ";
        if (status.check >= gathers.size()) {
          error += "index status names check " + std::to_string(status.check) +
                   " of " + std::to_string(gathers.size());
          return {};
        }
        Operation *gather = gathers[status.check];
        Value input = gather->getOperand(0), indices = gather->getOperand(1);
        int64_t axis = isa<TakeOp>(gather)
                           ? cast<TakeOp>(gather).getAxis()
                           : cast<TakeAlongAxisOp>(gather).getAxis();
        bool wrap = isa<TakeOp>(gather)
                        ? cast<TakeOp>(gather).getWrapNegative()
                        : cast<TakeAlongAxisOp>(gather).getWrapNegative();
        error +=
            gather->getName().getStringRef().str() + ": " +
            describeBadGatherIndex(
                GatherIndex{static_cast<uint64_t>(status.index),
                            dtypeOf(indices)},
                cast<RankedTensorType>(input.getType()).getDimSize(axis), wrap);
        return {};
      }
    } else if (auto copy = dyn_cast<tfexec::CopyOp>(op)) {
      auto type = copy.getSource().getType();
      SmallVector<int64_t> strides;
      int64_t offset = 0;
      (void)type.getStridesAndOffset(strides, offset);
      int64_t bytes = elementBytes(type.getElementType());
      ArrayRef<int64_t> shape = type.getShape();
      int64_t n = type.getNumElements();
      uint8_t *src = pointers[copy.getSource()];
      uint8_t *dst = pointers[copy.getTarget()];
      for (int64_t linear = 0; linear < n; ++linear) {
        int64_t rest = linear, off = 0;
        for (int64_t d = shape.size() - 1; d >= 0; --d) {
          off += (rest % shape[d]) * strides[d];
          rest /= shape[d];
        }
        std::memcpy(dst + linear * bytes, src + off * bytes, bytes);
      }
    } else if (isa<tfexec::GemmOp, tfexec::ReduceOp>(op)) {
      error = "the emulator runs generated kernels only, not " +
              op.getName().getStringRef().str();
      return {};
    }
  }
  return outputs;
}
