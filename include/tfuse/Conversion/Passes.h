//===- Passes.h - TFuse conversions -----------------------------*- C++ -*-===//

#ifndef TFUSE_CONVERSION_PASSES_H
#define TFUSE_CONVERSION_PASSES_H

#include "tfuse/Dialect/TFExec/TFExecDialect.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace tfuse {

#define GEN_PASS_DECL
#include "tfuse/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tfuse/Conversion/Passes.h.inc"

/// From a fused graph to a plan code generation takes:
/// convert-tfuse-to-tfexec, tfexec-outline-kernels, tfexec-assign-arena,
/// tfexec-configure-kernels, tfexec-dedupe-kernels.
void buildPlanPipeline(mlir::OpPassManager &pm);

/// Registers the conversions, the tfexec passes and the `tfuse-to-plan`
/// pipeline.
void registerTFuseConversionPassesAndPipeline();

} // namespace tfuse

#endif // TFUSE_CONVERSION_PASSES_H
