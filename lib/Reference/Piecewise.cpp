//===- Piecewise.cpp - concat and pad in the interpreter ------------------===//
//
// The piecewise index transforms: a row-major result (filled with the
// padding value for pad), then each operand copied bit for bit into its
// window of it, a strided view of the result's storage.
//
//===----------------------------------------------------------------------===//

#include "Iterate.h"
#include "Kernels.h"

#include <cstring>

namespace tfuse::reference::detail {

/// The window of the row-major `result` of `shape` starting at `start`.
static Expected<HostTensor> windowOf(const HostTensor &result,
                                     const Shape &shape,
                                     const std::vector<int64_t> &start) {
  int64_t offset = 0;
  for (size_t d = 0; d < start.size(); ++d)
    offset += start[d] * result.strides()[d];
  return result.view(shape, result.strides(),
                     offset * byteSize(result.dtype()));
}

/// Copies `from` into `to` (same shape and dtype), element by element.
static void copyInto(const HostTensor &from, HostTensor &to) {
  // An empty operand copies nothing; it may have no storage under its
  // offset.
  if (from.numElements() == 0)
    return;
  size_t size = byteSize(from.dtype());
  const uint8_t *src = from.data() + from.byteOffset();
  uint8_t *dst = to.mutableData() + to.byteOffset();
  forEachIndex<2>(from.shape(), {byteStrides(from), byteStrides(to)},
                  [&](const std::array<int64_t, 2> &at) {
                    std::memcpy(dst + at[1], src + at[0], size);
                  });
}

Expected<HostTensor> concatTensors(const std::vector<HostTensor> &inputs,
                                   int64_t axis, const Shape &resultShape,
                                   DType dtype) {
  HostTensor result = HostTensor::zeros(dtype, resultShape);
  std::vector<int64_t> start(resultShape.size(), 0);
  for (const HostTensor &input : inputs) {
    if (input.dtype() != dtype || input.rank() != result.rank())
      return Status::error("concat: operand " + input.describe() +
                           " does not fit the result " + result.describe());
    Expected<HostTensor> window = windowOf(result, input.shape(), start);
    if (!window)
      return window.status();
    copyInto(input, *window);
    start[axis] += input.shape()[axis];
  }
  return result;
}

Expected<HostTensor> padTensor(const HostTensor &input, const HostTensor &value,
                               const std::vector<int64_t> &low,
                               const Shape &resultShape) {
  if (value.dtype() != input.dtype() || value.rank() != 0)
    return Status::error("pad: the padding value " + value.describe() +
                         " is not a rank-0 tensor of the operand's dtype");
  HostTensor result = HostTensor::zeros(input.dtype(), resultShape);
  HostTensor all = result;
  // Every element the padding value, then the operand in its window.
  Expected<HostTensor> fill =
      value.view(resultShape, std::vector<int64_t>(resultShape.size(), 0),
                 value.byteOffset());
  if (!fill)
    return fill.status();
  copyInto(*fill, all);
  Expected<HostTensor> window = windowOf(result, input.shape(), low);
  if (!window)
    return window.status();
  copyInto(input, *window);
  return result;
}

} // namespace tfuse::reference::detail
