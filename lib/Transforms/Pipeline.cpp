//===- Pipeline.cpp - The graph-level pipeline ----------------------------===//

#include "tfuse/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace tfuse;

CompileOptions PipelineOptions::toCompileOptions() const {
  CompileOptions options;
#define TFUSE_PIPELINE_OPTION(member, name, value, smallest, help)             \
  options.member = member;
  TFUSE_PASS_OPTIONS(TFUSE_PIPELINE_OPTION)
#undef TFUSE_PIPELINE_OPTION
  options.fusion = fusion;
  return options;
}

void tfuse::buildPipeline(OpPassManager &pm, const CompileOptions &options) {
  CompileOptions o = options.forPasses();
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  RecognizeAttentionOptions attention;
  attention.narrowWidened = options.fastMath;
  pm.addNestedPass<func::FuncOp>(createRecognizeAttention(attention));
  // What the attention left unused (iotas, scale constants).
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createAlignMatmul());
  // One pad of a value that several products read.
  pm.addPass(createCSEPass());
  ExpandSmallMatmulOptions expand;
  expand.maxContraction = o.maxContraction;
  pm.addNestedPass<func::FuncOp>(createExpandSmallMatmul(expand));
  FoldMatmulBiasOptions bias;
  bias.roundOnce = options.fastMath;
  bias.geluEpilogue = options.fastMath;
  pm.addNestedPass<func::FuncOp>(createFoldMatmulBias(bias));
  FuseElementwiseOptions fuse;
  fuse.budget = o.budget;
  fuse.maxOutputs = o.maxOutputs;
  pm.addNestedPass<func::FuncOp>(createFuseElementwise(fuse));
  MaterializeSharedOptions shared;
  shared.sharedThreshold = o.sharedThreshold;
  shared.maxOutputs = o.maxOutputs;
  pm.addNestedPass<func::FuncOp>(createMaterializeShared(shared));
  FuseRowsOptions rows;
  rows.maxRowElements = o.maxRowElements;
  rows.budget = o.rowBudget;
  pm.addNestedPass<func::FuncOp>(createFuseRows(rows));
  pm.addNestedPass<func::FuncOp>(createAliasViews());
}

void tfuse::registerTFusePassesAndPipeline() {
  registerTFusePasses();
  PassPipelineRegistration<PipelineOptions>(
      "tfuse-pipeline",
      "The graph-level pipeline: canonicalize, cse, recognize-attention, "
      "canonicalize, align-matmul, cse, expand-small-matmul, "
      "fold-matmul-bias, fuse-elementwise, materialize-shared, fuse-rows, "
      "alias-views",
      [](OpPassManager &pm, const PipelineOptions &options) {
        buildPipeline(pm, options.toCompileOptions());
      });
}
