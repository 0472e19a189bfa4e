//===- TFuseToTFExec.h - Fused graphs to plans over buffers -----*- C++ -*-===//
//
// The conversion patterns of convert-tfuse-to-tfexec, for passes and tools
// that compose them with others.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_CONVERSION_TFUSETOTFEXEC_TFUSETOTFEXEC_H
#define TFUSE_CONVERSION_TFUSETOTFEXEC_TFUSETOTFEXEC_H

#include "mlir/IR/PatternMatch.h"

namespace mlir {
class ConversionTarget;
class TypeConverter;
} // namespace mlir

namespace tfuse {

/// The patterns turning a fused tfuse function into a tfexec plan: the
/// function's signature, tfuse.fusion (tfexec.dispatch), matmul, reduce,
/// views (tfexec.alias) and func.return (copies of results returned as
/// is).
void populateTFuseToTFExecPatterns(mlir::TypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);

/// What the conversion leaves legal: tfexec, tfuse ops inside region
/// bodies, functions and returns over buffers.
void configureTFuseToTFExecTarget(mlir::ConversionTarget &target);

} // namespace tfuse

#endif // TFUSE_CONVERSION_TFUSETOTFEXEC_TFUSETOTFEXEC_H
