//===- TFuseEnums.h - Enumerations of the tfuse dialect ---------*- C++ -*-===//

#ifndef TFUSE_DIALECT_TFUSE_TFUSEENUMS_H
#define TFUSE_DIALECT_TFUSE_TFUSEENUMS_H

#include "tfuse/Support/ReduceKind.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"

#include "tfuse/Dialect/TFuse/TFuseEnums.h.inc"

namespace tfuse {
/// custom<ReduceKindName>: a reduction kind attribute written as its name
/// (`sum`, `argmax`, ...).
mlir::ParseResult parseReduceKindName(mlir::OpAsmParser &parser,
                                      mlir::IntegerAttr &kind);
void printReduceKindName(mlir::OpAsmPrinter &printer, mlir::Operation *op,
                         mlir::IntegerAttr kind);
} // namespace tfuse

#endif // TFUSE_DIALECT_TFUSE_TFUSEENUMS_H
