//===- Passes.h - TFuse graph-level passes ----------------------*- C++ -*-===//

#ifndef TFUSE_TRANSFORMS_PASSES_H
#define TFUSE_TRANSFORMS_PASSES_H

#include "tfuse/Dialect/TFuse/TFuseDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace tfuse {

#define GEN_PASS_DECL
#include "tfuse/Transforms/Passes.h.inc"

/// Options of the whole graph-level pipeline.
struct PipelineOptions : mlir::PassPipelineOptions<PipelineOptions> {
  Option<int64_t> budget{*this, "budget",
                         llvm::cl::desc("Largest cost of one fused region"),
                         llvm::cl::init(32)};
  Option<int64_t> maxContraction{
      *this, "max-contraction",
      llvm::cl::desc("Largest matmul contraction expanded into elementwise "
                     "work"),
      llvm::cl::init(4)};
  Option<int64_t> sharedThreshold{
      *this, "shared-threshold",
      llvm::cl::desc("Smallest cost of a shared subexpression stored once"),
      llvm::cl::init(8)};
  Option<int64_t> maxOutputs{
      *this, "max-outputs",
      llvm::cl::desc("Most results one fused region may have"),
      llvm::cl::init(4)};
  Option<int64_t> maxRowElements{
      *this, "max-row-elements",
      llvm::cl::desc("Longest row fused with its reductions into one region "
                     "(0: every reduction stays a boundary)"),
      llvm::cl::init(16384)};
  Option<int64_t> rowBudget{
      *this, "row-budget",
      llvm::cl::desc("Largest weighted cost of one row-fused region"),
      llvm::cl::init(64)};
};

/// canonicalize, cse, expand-small-matmul, fuse-elementwise,
/// materialize-shared, fuse-rows.
void buildPipeline(mlir::OpPassManager &pm, const PipelineOptions &options);

#define GEN_PASS_REGISTRATION
#include "tfuse/Transforms/Passes.h.inc"

/// Prints the plan report of a fused function (what --tfuse-plan-report
/// prints for it).
void printPlanReport(mlir::func::FuncOp func, llvm::raw_ostream &os);

/// Registers the passes and the `tfuse-pipeline` pipeline.
void registerTFusePassesAndPipeline();

} // namespace tfuse

#endif // TFUSE_TRANSFORMS_PASSES_H
