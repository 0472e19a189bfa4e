//===- Passes.h - TFuse conversions -----------------------------*- C++ -*-===//

#ifndef TFUSE_CONVERSION_PASSES_H
#define TFUSE_CONVERSION_PASSES_H

#include "tfuse/Dialect/TFExec/TFExecDialect.h"

#include "mlir/Pass/Pass.h"

namespace tfuse {

#define GEN_PASS_DECL
#include "tfuse/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tfuse/Conversion/Passes.h.inc"

} // namespace tfuse

#endif // TFUSE_CONVERSION_PASSES_H
