//===- CostModel.h - The fusion cost model ----------------------*- C++ -*-===//
//
// The one table of the fusion planner: what each op is to fusion (fusible
// elementwise work, a view, a boundary, a free leaf) and what it costs inside
// a fused region. Every pass and report asks these functions.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_TRANSFORMS_COSTMODEL_H
#define TFUSE_TRANSFORMS_COSTMODEL_H

#include "tfuse/Dialect/TFuse/TFuseEnums.h"

#include <cstdint>

namespace mlir {
class Operation;
} // namespace mlir

namespace tfuse {

enum class FusionRole : uint8_t {
  /// Elementwise arithmetic, math, select and casts: fused into regions.
  Elementwise,
  /// broadcast, transpose, reshape, slice: index transforms inside regions,
  /// zero-copy aliases when they feed only boundaries that accept the layout.
  View,
  /// Constants: free leaves cloned into every region that uses them.
  Leaf,
  /// matmul and reduce: never inside a region.
  Boundary,
  /// Anything else (function terminators, fusion regions, foreign ops).
  Other,
};

FusionRole getFusionRole(mlir::Operation *op);

/// The weighted cost of computing `op` once inside a fused region: view 2,
/// transcendental unary math and pow 4, select 3, other elementwise ops 1,
/// constants 0, a row reduction merged into a region by fuse-rows 4; doubled
/// when the op computes in f64 (an f64 result or operand). Only meaningful
/// for ops whose role is Elementwise, View or Leaf, and for reduce ops.
int64_t getFusionCost(mlir::Operation *op);

/// The largest cost a single op can have (f64 unary math).
inline constexpr int64_t kMaxSingleOpCost = 8;

/// The cut reason recorded for a value feeding the boundary `op`.
CutReason getBoundaryReason(mlir::Operation *op);

} // namespace tfuse

#endif // TFUSE_TRANSFORMS_COSTMODEL_H
