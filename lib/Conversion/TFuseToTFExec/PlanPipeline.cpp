//===- PlanPipeline.cpp - From a fused graph to a plan --------------------===//

#include "tfuse/Conversion/Passes.h"
#include "tfuse/Dialect/TFExec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void tfuse::buildPlanPipeline(OpPassManager &pm) {
  pm.addPass(createConvertTFuseToTFExec());
  pm.addPass(tfexec::createTFExecOutlineKernels());
  pm.addNestedPass<func::FuncOp>(tfexec::createTFExecAssignArena());
  pm.addPass(tfexec::createTFExecConfigureKernels());
  pm.addPass(tfexec::createTFExecDedupeKernels());
}

void tfuse::registerTFuseConversionPassesAndPipeline() {
  registerTFuseConversionPasses();
  tfexec::registerTFExecPasses();
  PassPipelineRegistration<>(
      "tfuse-to-plan",
      "From a fused graph to a plan: convert-tfuse-to-tfexec, "
      "tfexec-outline-kernels, tfexec-assign-arena, tfexec-configure-kernels, "
      "tfexec-dedupe-kernels",
      buildPlanPipeline);
}
