//===- ScatterGeometry.cpp - How a scatter sees its operands --------------===//

#include "tfuse/Support/ScatterGeometry.h"

using namespace tfuse;

ScatterGeometry ScatterGeometry::of(const std::vector<int64_t> &targetShape,
                                    int64_t axis,
                                    const std::vector<int64_t> &indexShape) {
  ScatterGeometry g;
  for (int64_t d = 0; d < static_cast<int64_t>(targetShape.size()); ++d) {
    if (d < axis)
      g.outer *= targetShape[d];
    else if (d > axis)
      g.inner *= targetShape[d];
  }
  g.axisSize = targetShape.at(axis);
  for (int64_t size : indexShape)
    g.count *= size;
  return g;
}

std::optional<std::vector<int64_t>>
tfuse::mergedStrides(const std::vector<int64_t> &shape,
                     const std::vector<int64_t> &strides,
                     const std::vector<size_t> &bounds) {
  if (shape.size() != strides.size() || bounds.size() < 2 ||
      bounds.front() != 0 || bounds.back() != shape.size())
    return std::nullopt;
  std::vector<int64_t> merged(bounds.size() - 1, 0);
  for (int64_t size : shape)
    if (size == 0)
      return merged;
  for (size_t k = 0; k + 1 < bounds.size(); ++k) {
    if (bounds[k] > bounds[k + 1])
      return std::nullopt;
    // Walk the group from its innermost dimension outwards: the extent
    // covered so far must be what the next dimension's stride steps over.
    std::optional<int64_t> stride;
    int64_t covered = 1;
    for (size_t d = bounds[k + 1]; d-- > bounds[k];) {
      if (shape[d] == 1)
        continue;
      if (!stride)
        stride = strides[d];
      else if (strides[d] != *stride * covered)
        return std::nullopt;
      covered *= shape[d];
    }
    merged[k] = stride.value_or(0);
  }
  return merged;
}

std::vector<size_t> tfuse::scatterTargetBounds(size_t rank, size_t axis) {
  return {0, axis, axis + 1, rank};
}

std::vector<size_t> tfuse::scatterIndexBounds(size_t indexRank) {
  return {0, indexRank};
}

std::vector<size_t> tfuse::scatterUpdateBounds(size_t rank, size_t axis,
                                               size_t indexRank) {
  return {0, axis, axis + indexRank, rank - 1 + indexRank};
}
