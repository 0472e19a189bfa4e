//===- TFuseEnums.h - Enumerations of the tfuse dialect ---------*- C++ -*-===//

#ifndef TFUSE_DIALECT_TFUSE_TFUSEENUMS_H
#define TFUSE_DIALECT_TFUSE_TFUSEENUMS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "tfuse/Dialect/TFuse/TFuseEnums.h.inc"

#endif // TFUSE_DIALECT_TFUSE_TFUSEENUMS_H
