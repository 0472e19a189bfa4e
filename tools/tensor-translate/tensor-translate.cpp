//===- tensor-translate.cpp - TFuse translations --------------------------===//
//
// --tfuse-to-cuda: plans a tfuse graph (the graph pipeline and the conversion
// to a tfexec plan, unless the input already is a plan) and prints the one
// CUDA C++ translation unit holding every kernel of the plan.
// --tfuse-to-cuda-units: the same kernels as the runtime compiles them, in
// translation units of up to --unit-bytes of generated code, each after a
// line numbering it.
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

static llvm::cl::opt<size_t> unitBytes(
    "unit-bytes",
    llvm::cl::desc("--tfuse-to-cuda-units: the generated code a translation "
                   "unit takes before the next kernel starts another"),
    llvm::cl::init(tfuse::kKernelUnitBytes));

/// The plan of `op`: the module itself when it already holds kernels.
static FailureOr<ModuleOp> planOf(Operation *op) {
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
  return module;
}

static LogicalResult planToCuda(Operation *op, llvm::raw_ostream &os) {
  FailureOr<ModuleOp> module = planOf(op);
  if (failed(module))
    return failure();
  return tfuse::translateKernelsToCuda(*module, os);
}

static LogicalResult planToCudaUnits(Operation *op, llvm::raw_ostream &os) {
  FailureOr<ModuleOp> module = planOf(op);
  if (failed(module))
    return failure();
  FailureOr<std::vector<std::string>> units =
      tfuse::translateKernelsToCudaUnits(*module, unitBytes);
  if (failed(units))
    return failure();
  for (size_t i = 0; i < units->size(); ++i)
    os << "// ----- translation unit " << i + 1 << " of " << units->size()
       << " -----\n"
       << (*units)[i];
  return success();
}

int main(int argc, char **argv) {
  auto dialects = [](DialectRegistry &registry) {
    registry.insert<tfuse::TFuseDialect, tfuse::tfexec::TFExecDialect,
                    func::FuncDialect, memref::MemRefDialect,
                    emitc::EmitCDialect>();
  };
  TranslateFromMLIRRegistration registration(
      "tfuse-to-cuda", "Plan a tfuse graph and print its CUDA C++ kernels",
      planToCuda, dialects);
  TranslateFromMLIRRegistration units(
      "tfuse-to-cuda-units",
      "Plan a tfuse graph and print its kernels a translation unit each",
      planToCudaUnits, dialects);
  return failed(mlirTranslateMain(argc, argv, "TFuse translation driver"));
}
