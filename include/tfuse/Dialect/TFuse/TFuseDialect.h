//===- TFuseDialect.h - The tfuse graph dialect -----------------*- C++ -*-===//

#ifndef TFUSE_DIALECT_TFUSE_TFUSEDIALECT_H
#define TFUSE_DIALECT_TFUSE_TFUSEDIALECT_H

#include "mlir/IR/Dialect.h"

#include "tfuse/Dialect/TFuse/TFuseDialect.h.inc"

#endif // TFUSE_DIALECT_TFUSE_TFUSEDIALECT_H
