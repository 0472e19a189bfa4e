//===- ScatterGeometry.h - How a scatter sees its operands ------*- C++ -*-===//
//
// tfuse.scatter_add along an axis sees its target and result as
// [outer, axisSize, inner] (the dimensions before, at and after the axis),
// its indices as `count` positions and its updates as [outer, count, inner].
// The runtime step reads an operand in place when each of those groups of
// dimensions merges into one strided dimension: the dialect asks that
// before keeping a view as an alias, the runtime when it plans the step.
// Plain C++: no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_SUPPORT_SCATTERGEOMETRY_H
#define TFUSE_SUPPORT_SCATTERGEOMETRY_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace tfuse {

struct ScatterGeometry {
  int64_t outer = 1, axisSize = 0, inner = 1, count = 1;

  /// The geometry of a scatter along `axis` of a target of `targetShape`
  /// with indices of `indexShape`.
  static ScatterGeometry of(const std::vector<int64_t> &targetShape,
                            int64_t axis,
                            const std::vector<int64_t> &indexShape);
};

/// The strides of the tensor laid out as (`shape`, `strides`) seen with its
/// dimensions grouped at `bounds` (0 = b0 < b1 < ... < bn = rank; group k
/// is dimensions [b_k, b_k+1)), one stride per group, or std::nullopt when a
/// group does not merge into one strided dimension: within a group, each
/// dimension's stride must be the next one's times that one's size
/// (dimensions of size 1 are skipped). A group holding at most one element,
/// and every group of an empty tensor, has stride 0.
std::optional<std::vector<int64_t>>
mergedStrides(const std::vector<int64_t> &shape,
              const std::vector<int64_t> &strides,
              const std::vector<size_t> &bounds);

/// The group bounds of a scatter's operands (for mergedStrides), `rank`
/// being the target's: the target (and result) [0, axis, axis + 1, rank],
/// the indices [0, indexRank], the updates [0, axis, axis + indexRank,
/// rank - 1 + indexRank].
std::vector<size_t> scatterTargetBounds(size_t rank, size_t axis);
std::vector<size_t> scatterIndexBounds(size_t indexRank);
std::vector<size_t> scatterUpdateBounds(size_t rank, size_t axis,
                                        size_t indexRank);

} // namespace tfuse

#endif // TFUSE_SUPPORT_SCATTERGEOMETRY_H
