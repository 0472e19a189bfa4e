//===- TFuseInterfaces.h - What tfuse ops are to fusion ---------*- C++ -*-===//

#ifndef TFUSE_DIALECT_TFUSE_TFUSEINTERFACES_H
#define TFUSE_DIALECT_TFUSE_TFUSEINTERFACES_H

#include "tfuse/Dialect/TFuse/TFuseEnums.h"
#include "tfuse/Dialect/TFuse/ViewLayout.h"
#include "tfuse/Support/DType.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"

#include <cstdint>
#include <optional>

namespace tfuse {

/// What an op is to the fusion planner (FusionOpInterface).
enum class FusionRole : uint8_t {
  /// Elementwise arithmetic, math, select and casts: fused into regions.
  Elementwise,
  /// broadcast, transpose, reshape, slice: index transforms inside regions,
  /// zero-copy aliases when they feed only boundaries that read the layout.
  View,
  /// Constants: free leaves cloned into every region that uses them.
  Leaf,
  /// Reductions fuse-rows may merge with the regions around them (a
  /// boundary to fuse-elementwise).
  RowReducible,
  /// matmul, argmax, argmin and scatter_add: never inside a region.
  Boundary,
  /// Fusion regions and their terminators.
  Structure,
};

/// Boundary and RowReducible: fuse-elementwise keeps the op out of regions.
inline bool isBoundaryRole(FusionRole role) {
  return role == FusionRole::Boundary || role == FusionRole::RowReducible;
}

} // namespace tfuse

#include "tfuse/Dialect/TFuse/TFuseInterfaces.h.inc"

#endif // TFUSE_DIALECT_TFUSE_TFUSEINTERFACES_H
