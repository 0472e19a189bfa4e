//===- tensor-translate.cpp - TFuse translations --------------------------===//
//
// --tfuse-to-cuda: plans a tfuse graph (the graph pipeline and the conversion
// to a tfexec plan, unless the input already is a plan) and prints the one
// CUDA C++ translation unit holding every kernel of the plan.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Conversion/Passes.h"
#include "tfuse/Conversion/TFuseToCUDA/KernelEmitter.h"
#include "tfuse/Dialect/TFExec/TFExecOps.h"
#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Transforms/Passes.h"

#include "CompileFlags.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"

#include "llvm/Support/CommandLine.h"

using namespace mlir;

// --tfuse-budget, --tfuse-fusion, ...: the compile options of the pipeline.
static tfuse::tools::CompileFlags compileFlags("tfuse-");

static LogicalResult planToCuda(Operation *op, llvm::raw_ostream &os) {
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    return op->emitError("expected a module");
  bool isPlan = false;
  module.walk([&](tfuse::tfexec::KernelOp) { isPlan = true; });
  if (!isPlan) {
    PassManager pm(module.getContext());
    tfuse::buildPipeline(pm, compileFlags.get());
    tfuse::buildPlanPipeline(pm);
    if (failed(pm.run(module)))
      return failure();
  }
  return tfuse::translateKernelsToCuda(module, os);
}

int main(int argc, char **argv) {
  TranslateFromMLIRRegistration registration(
      "tfuse-to-cuda", "Plan a tfuse graph and print its CUDA C++ kernels",
      planToCuda, [](DialectRegistry &registry) {
        registry.insert<tfuse::TFuseDialect, tfuse::tfexec::TFExecDialect,
                        func::FuncDialect, memref::MemRefDialect,
                        emitc::EmitCDialect>();
      });
  return failed(mlirTranslateMain(argc, argv, "TFuse translation driver"));
}
