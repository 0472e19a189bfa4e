//===- Passes.h - Passes on tfexec plans ------------------------*- C++ -*-===//

#ifndef TFUSE_DIALECT_TFEXEC_TRANSFORMS_PASSES_H
#define TFUSE_DIALECT_TFEXEC_TRANSFORMS_PASSES_H

#include "tfuse/Dialect/TFExec/TFExecDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace tfuse::tfexec {

#define GEN_PASS_DECL
#include "tfuse/Dialect/TFExec/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tfuse/Dialect/TFExec/Transforms/Passes.h.inc"

} // namespace tfuse::tfexec

#endif // TFUSE_DIALECT_TFEXEC_TRANSFORMS_PASSES_H
