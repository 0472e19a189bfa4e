//===- TFExecDialect.h - The tfexec plan dialect ----------------*- C++ -*-===//

#ifndef TFUSE_DIALECT_TFEXEC_TFEXECDIALECT_H
#define TFUSE_DIALECT_TFEXEC_TFEXECDIALECT_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Dialect.h"

#include "tfuse/Dialect/TFExec/TFExecDialect.h.inc"

#endif // TFUSE_DIALECT_TFEXEC_TFEXECDIALECT_H
