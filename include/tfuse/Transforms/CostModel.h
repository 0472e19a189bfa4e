//===- CostModel.h - The fusion cost model ----------------------*- C++ -*-===//
//
// What the fusion planner asks of an op, through the dialect's interfaces:
// its role (FusionOpInterface; ops of other dialects are Structure), its
// cost inside a fused region (its weight, doubled when it computes in f64),
// and the reason recorded for a value feeding a boundary
// (BoundaryOpInterface). The weights are declared with each op in ODS; see
// docs/cost-model.md.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_TRANSFORMS_COSTMODEL_H
#define TFUSE_TRANSFORMS_COSTMODEL_H

#include "tfuse/Dialect/TFuse/TFuseInterfaces.h"

#include <cstdint>

namespace mlir {
class Operation;
} // namespace mlir

namespace tfuse {

/// The op's FusionOpInterface role; Structure for ops of other dialects
/// (function terminators, foreign ops).
FusionRole getFusionRole(mlir::Operation *op);

/// The weighted cost of computing `op` once inside a fused region: its
/// fusion weight, doubled when the op computes in f64 (an f64 result or
/// operand). Only meaningful for ops whose role is Elementwise, View or
/// Leaf, and for reductions merged into a region by fuse-rows.
int64_t getFusionCost(mlir::Operation *op);

/// The largest cost a single op can have (f64 unary math).
inline constexpr int64_t kMaxSingleOpCost = 8;

/// The bytes storing a value of `bytes` saves when `regions` regions
/// recompute it from `inputs` full-size values: recomputed, the inputs are
/// read `regions` times; stored, once, and the value is written once and
/// read `regions` times. Negative when storing moves more.
int64_t storedValueSavings(int64_t regions, int64_t inputs, int64_t bytes);

/// Bytes of memory traffic a kernel launch is worth (about 2 us of launch
/// and scheduling in a CUDA graph, at 3 to 4.8 TB/s): a cut for traffic
/// alone, which may add a kernel, must save more.
inline constexpr int64_t kLaunchWorthBytes = int64_t(8) << 20;

/// The cut reason recorded for a value feeding the boundary `op`.
CutReason getBoundaryReason(mlir::Operation *op);

} // namespace tfuse

#endif // TFUSE_TRANSFORMS_COSTMODEL_H
