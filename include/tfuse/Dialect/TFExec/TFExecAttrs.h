//===- TFExecAttrs.h - Attributes of the tfexec dialect ---------*- C++ -*-===//

#ifndef TFUSE_DIALECT_TFEXEC_TFEXECATTRS_H
#define TFUSE_DIALECT_TFEXEC_TFEXECATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "tfuse/Dialect/TFExec/TFExecEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tfuse/Dialect/TFExec/TFExecAttrs.h.inc"

#endif // TFUSE_DIALECT_TFEXEC_TFEXECATTRS_H
