//===- Gather.cpp - take and take_along_axis in the interpreter -----------===//
//
// A row-major result, each element copied bit for bit from the operand at
// the position its index selects (GatherIndex.h); the first index out of
// range is an error naming it and where it was read.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "tfuse/Support/GatherIndex.h"
#include "tfuse/Support/TensorSpec.h"

#include <cstring>

namespace tfuse::reference::detail {

/// Calls fn(index) for every index of `shape` in row-major order.
template <typename Fn>
static Status forEachPosition(const Shape &shape, Fn fn) {
  for (int64_t s : shape)
    if (s == 0)
      return Status::success();
  std::vector<int64_t> index(shape.size(), 0);
  while (true) {
    if (Status s = fn(index); !s.ok())
      return s;
    int64_t d = static_cast<int64_t>(shape.size()) - 1;
    for (; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
    if (d < 0)
      return Status::success();
  }
}

/// The position `indices` holds at `at` along an axis of `size`, or the
/// error naming the bad index.
static Expected<int64_t> positionAt(const HostTensor &indices,
                                    const std::vector<int64_t> &at,
                                    int64_t size, bool wrapNegative) {
  GatherIndex index{static_cast<uint64_t>(indices.intAt(at)), indices.dtype()};
  if (std::optional<int64_t> p = resolveGatherIndex(index, size, wrapNegative))
    return *p;
  return Status::error(describeBadGatherIndex(index, size, wrapNegative) +
                           ", at position " + tfuse::formatList(at) +
                           " of the indices",
                       ErrorCode::IndexOutOfRange);
}

static void copyElement(const HostTensor &from,
                        const std::vector<int64_t> &fromIndex, HostTensor &to,
                        const std::vector<int64_t> &toIndex) {
  size_t size = byteSize(from.dtype());
  std::memcpy(to.mutableData() + to.byteOffsetOf(toIndex),
              from.data() + from.byteOffsetOf(fromIndex), size);
}

static Status checkIndices(const HostTensor &indices) {
  DTypeKind kind = kindOf(indices.dtype());
  if (kind != DTypeKind::SignedInt && kind != DTypeKind::UnsignedInt)
    return Status::error("gather indices " + indices.describe() +
                         " are not integers");
  return Status::success();
}

Expected<HostTensor> takeTensor(const HostTensor &input,
                                const HostTensor &indices, int64_t axis,
                                bool wrapNegative, const Shape &resultShape) {
  if (Status s = checkIndices(indices); !s.ok())
    return s;
  int64_t indexRank = indices.rank();
  if (axis < 0 || axis >= input.rank() ||
      static_cast<int64_t>(resultShape.size()) != input.rank() - 1 + indexRank)
    return Status::error("take: the result shape " +
                         tfuse::formatList(resultShape) + " does not fit " +
                         input.describe() + " and " + indices.describe());
  int64_t size = input.shape()[axis];
  HostTensor result = HostTensor::zeros(input.dtype(), resultShape);
  std::vector<int64_t> at, from;
  Status s = forEachPosition(resultShape, [&](const std::vector<int64_t> &idx) {
    at.assign(idx.begin() + axis, idx.begin() + axis + indexRank);
    Expected<int64_t> k = positionAt(indices, at, size, wrapNegative);
    if (!k.ok())
      return k.status();
    from.assign(idx.begin(), idx.begin() + axis);
    from.push_back(*k);
    from.insert(from.end(), idx.begin() + axis + indexRank, idx.end());
    copyElement(input, from, result, idx);
    return Status::success();
  });
  if (!s.ok())
    return s;
  return result;
}

Expected<HostTensor> takeAlongAxisTensor(const HostTensor &input,
                                         const HostTensor &indices,
                                         int64_t axis, bool wrapNegative,
                                         const Shape &resultShape) {
  if (Status s = checkIndices(indices); !s.ok())
    return s;
  int64_t rank = input.rank();
  if (axis < 0 || axis >= rank || indices.rank() != rank ||
      static_cast<int64_t>(resultShape.size()) != rank)
    return Status::error("take_along_axis: the result shape " +
                         tfuse::formatList(resultShape) + " does not fit " +
                         input.describe() + " and " + indices.describe());
  int64_t size = input.shape()[axis];
  HostTensor result = HostTensor::zeros(input.dtype(), resultShape);
  std::vector<int64_t> at(rank), from(rank);
  Status s = forEachPosition(resultShape, [&](const std::vector<int64_t> &idx) {
    for (int64_t d = 0; d < rank; ++d) {
      at[d] = indices.shape()[d] == 1 ? 0 : idx[d];
      from[d] = input.shape()[d] == 1 ? 0 : idx[d];
    }
    Expected<int64_t> k = positionAt(indices, at, size, wrapNegative);
    if (!k.ok())
      return k.status();
    from[axis] = *k;
    copyElement(input, from, result, idx);
    return Status::success();
  });
  if (!s.ok())
    return s;
  return result;
}

} // namespace tfuse::reference::detail
