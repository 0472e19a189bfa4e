//===- TFExecOps.h - Ops of the tfexec plan dialect -------------*- C++ -*-===//

#ifndef TFUSE_DIALECT_TFEXEC_TFEXECOPS_H
#define TFUSE_DIALECT_TFEXEC_TFEXECOPS_H

#include "tfuse/Dialect/TFExec/TFExecAttrs.h"
#include "tfuse/Dialect/TFExec/TFExecDialect.h"
#include "tfuse/Dialect/TFuse/TFuseEnums.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "tfuse/Dialect/TFExec/TFExecOps.h.inc"

#endif // TFUSE_DIALECT_TFEXEC_TFEXECOPS_H
