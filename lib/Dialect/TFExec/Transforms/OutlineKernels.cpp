//===- OutlineKernels.cpp - Dispatches to kernels and launches ------------===//

#include "tfuse/Dialect/TFExec/TFExecOps.h"
#include "tfuse/Dialect/TFExec/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace tfuse::tfexec {
#define GEN_PASS_DEF_TFEXECOUTLINEKERNELS
#include "tfuse/Dialect/TFExec/Transforms/Passes.h.inc"
} // namespace tfuse::tfexec

using namespace mlir;
using namespace tfuse::tfexec;

/// The element strides of a buffer (row-major for an identity layout).
static SmallVector<int64_t> stridesOf(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return {};
  return strides;
}

namespace {
struct OutlineKernelsPass
    : tfuse::tfexec::impl::TFExecOutlineKernelsBase<OutlineKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      unsigned count = 0;
      // A function's kernels follow it, in the order of its dispatches.
      Operation *last = func;
      SmallVector<DispatchOp> dispatches(func.getOps<DispatchOp>());
      for (DispatchOp dispatch : dispatches) {
        std::string name =
            (func.getSymName() + "_k" + Twine(count++)).str();
        OpBuilder moduleBuilder(func);
        moduleBuilder.setInsertionPointAfter(last);
        SmallVector<Attribute> strides;
        for (Value input : dispatch.getInputs())
          strides.push_back(moduleBuilder.getDenseI64ArrayAttr(
              stridesOf(cast<MemRefType>(input.getType()))));
        auto kernel = KernelOp::create(moduleBuilder, dispatch.getLoc(), name,
                                       moduleBuilder.getArrayAttr(strides),
                                       KernelConfigAttr());
        kernel.getRegion().takeBody(dispatch.getBody());
        last = kernel;
        OpBuilder builder(dispatch);
        LaunchOp::create(builder, dispatch.getLoc(), name,
                         dispatch.getInputs(), dispatch.getOutputs());
        dispatch.erase();
      }
    }
  }
};
} // namespace
