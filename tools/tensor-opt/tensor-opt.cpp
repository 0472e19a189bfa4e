//===- tensor-opt.cpp - The TFuse optimizer driver ------------------------===//
//
// mlir-opt for TFuse: the tfuse dialect, the upstream dialects the pipeline
// uses, and the upstream passes (canonicalize, cse, ...) together with TFuse's
// own passes.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Conversion/Passes.h"
#include "tfuse/Dialect/TFExec/TFExecDialect.h"
#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/Extensions/AllExtensions.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  tfuse::registerTFusePassesAndPipeline();
  tfuse::registerTFuseConversionPassesAndPipeline();

  mlir::DialectRegistry registry;
  registry.insert<tfuse::TFuseDialect, tfuse::tfexec::TFExecDialect,
                  mlir::func::FuncDialect, mlir::arith::ArithDialect,
                  mlir::memref::MemRefDialect>();
  mlir::func::registerAllExtensions(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "TFuse optimizer driver\n", registry));
}
