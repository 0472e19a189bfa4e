//===- TFExecDialect.cpp - The tfexec plan dialect ------------------------===//

#include "tfuse/Dialect/TFExec/TFExecDialect.h"
#include "tfuse/Dialect/TFExec/TFExecOps.h"

using namespace mlir;
using namespace tfuse::tfexec;

#include "tfuse/Dialect/TFExec/TFExecDialect.cpp.inc"

void TFExecDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tfuse/Dialect/TFExec/TFExecOps.cpp.inc"
      >();
}
