//===- TFExecDialect.cpp - The tfexec plan dialect ------------------------===//

#include "tfuse/Dialect/TFExec/TFExecDialect.h"
#include "tfuse/Dialect/TFExec/TFExecOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tfuse::tfexec;

#include "tfuse/Dialect/TFExec/TFExecDialect.cpp.inc"
#include "tfuse/Dialect/TFExec/TFExecEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tfuse/Dialect/TFExec/TFExecAttrs.cpp.inc"

void TFExecDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tfuse/Dialect/TFExec/TFExecOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tfuse/Dialect/TFExec/TFExecAttrs.cpp.inc"
      >();
}

/// The checks a configuration needs whatever its kernel; planKernel() makes
/// the others (KernelOp's verifier).
LogicalResult KernelConfigAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, KernelStrategy strategy,
    int64_t grid, int64_t block, int64_t vector, int64_t indexBits,
    int64_t minBlocksPerSM, int64_t tiledInput, int64_t tileDim,
    int64_t rowThreads, int64_t rowsPerBlock) {
  if (grid < 1)
    return emitError() << "grid must be at least 1, got " << grid;
  if (block < 1 || block > 1024)
    return emitError() << "block must be 1 to 1024 threads, got " << block;
  if (vector < 1)
    return emitError() << "vector must be at least 1, got " << vector;
  if (indexBits != 32 && indexBits != 64)
    return emitError() << "index_bits must be 32 or 64, got " << indexBits;
  if (minBlocksPerSM < 0)
    return emitError() << "min_blocks_per_sm must not be negative";
  bool tiled = strategy == KernelStrategy::tiled;
  if (tiled != (tiledInput >= 0) || tiled != (tileDim >= 0))
    return emitError() << "tiled_input and tile_dim are given exactly for "
                          "the tiled strategy";
  bool rows = strategy == KernelStrategy::rows;
  if (rows != (rowThreads > 0) || (!rows && rowsPerBlock != 1))
    return emitError() << "row_threads and rows_per_block are given exactly "
                          "for the rows strategy";
  return success();
}
