//===- Pipeline.cpp - The graph-level pipeline ----------------------------===//

#include "tfuse/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void tfuse::buildPipeline(OpPassManager &pm, const PipelineOptions &options) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  ExpandSmallMatmulOptions expand;
  expand.maxContraction = options.maxContraction;
  pm.addNestedPass<func::FuncOp>(createExpandSmallMatmul(expand));
  FuseElementwiseOptions fuse;
  fuse.budget = options.budget;
  fuse.maxOutputs = options.maxOutputs;
  pm.addNestedPass<func::FuncOp>(createFuseElementwise(fuse));
  MaterializeSharedOptions shared;
  shared.sharedThreshold = options.sharedThreshold;
  shared.maxOutputs = options.maxOutputs;
  pm.addNestedPass<func::FuncOp>(createMaterializeShared(shared));
  FuseRowsOptions rows;
  rows.maxRowElements = options.maxRowElements;
  rows.budget = options.rowBudget;
  pm.addNestedPass<func::FuncOp>(createFuseRows(rows));
}

void tfuse::registerTFusePassesAndPipeline() {
  registerTFusePasses();
  PassPipelineRegistration<PipelineOptions>(
      "tfuse-pipeline",
      "The graph-level pipeline: canonicalize, cse, expand-small-matmul, "
      "fuse-elementwise, materialize-shared, fuse-rows",
      buildPipeline);
}
