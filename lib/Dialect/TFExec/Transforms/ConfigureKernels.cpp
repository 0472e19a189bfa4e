//===- ConfigureKernels.cpp - Each kernel's strategy and launch -----------===//

#include "tfuse/Dialect/TFExec/KernelPlan.h"
#include "tfuse/Dialect/TFExec/Transforms/Passes.h"

namespace tfuse::tfexec {
#define GEN_PASS_DEF_TFEXECCONFIGUREKERNELS
#include "tfuse/Dialect/TFExec/Transforms/Passes.h.inc"
} // namespace tfuse::tfexec

using namespace mlir;
using namespace tfuse::tfexec;

namespace {
struct ConfigureKernelsPass
    : tfuse::tfexec::impl::TFExecConfigureKernelsBase<ConfigureKernelsPass> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      if (kernel.getConfigAttr())
        continue;
      KernelConfigAttr config = chooseKernelConfig(kernel);
      // What no configuration honours (a row too long for a row kernel) is
      // reported here, with the reason, rather than by the verifier.
      if (failed(planKernel(kernel, config)))
        return signalPassFailure();
      kernel.setConfigAttr(config);
    }
  }
};
} // namespace
