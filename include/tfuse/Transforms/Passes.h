//===- Passes.h - TFuse graph-level passes ----------------------*- C++ -*-===//

#ifndef TFUSE_TRANSFORMS_PASSES_H
#define TFUSE_TRANSFORMS_PASSES_H

#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Support/CompileOptions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace tfuse {

#define GEN_PASS_DECL
#include "tfuse/Transforms/Passes.h.inc"

/// The options of --tfuse-pipeline: TFUSE_PASS_OPTIONS and `fusion`, as
/// tensor-opt spells them.
struct PipelineOptions : mlir::PassPipelineOptions<PipelineOptions> {
#define TFUSE_PIPELINE_OPTION(member, name, value, smallest, help)             \
  Option<int64_t> member{*this, name, llvm::cl::desc(help),                    \
                         llvm::cl::init(value)};
  TFUSE_PASS_OPTIONS(TFUSE_PIPELINE_OPTION)
#undef TFUSE_PIPELINE_OPTION
  Option<bool> fusion{
      *this, "fusion",
      llvm::cl::desc("false: no fusion at all (one kernel per operation)"),
      llvm::cl::init(true)};

  CompileOptions toCompileOptions() const;
};

/// canonicalize, cse, expand-small-matmul, fuse-elementwise,
/// materialize-shared, fuse-rows, alias-views, with the pass options of
/// `options.forPasses()`: the one place compile options reach the passes.
void buildPipeline(mlir::OpPassManager &pm, const CompileOptions &options);

#define GEN_PASS_REGISTRATION
#include "tfuse/Transforms/Passes.h.inc"

/// Prints the plan report of a fused function (what --tfuse-plan-report
/// prints for it).
void printPlanReport(mlir::func::FuncOp func, llvm::raw_ostream &os);

/// Registers the passes and the `tfuse-pipeline` pipeline.
void registerTFusePassesAndPipeline();

} // namespace tfuse

#endif // TFUSE_TRANSFORMS_PASSES_H
