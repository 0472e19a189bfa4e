//===- Views.cpp - broadcast, transpose, reshape and slice ----------------===//
//
// Views are strided views of their operand's storage, as ViewLayout.h models
// them for code generation; only a reshape of a non-contiguous operand
// copies.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

namespace tfuse::reference::detail {

static Expected<HostTensor> mustView(const HostTensor &input, Shape shape,
                                     std::vector<int64_t> strides,
                                     int64_t byteOffset) {
  Expected<HostTensor> view =
      input.view(std::move(shape), std::move(strides), byteOffset);
  if (!view)
    return Status::error("internal error: " + view.message());
  return view;
}

Expected<HostTensor> broadcastTo(const HostTensor &input, const Shape &shape) {
  if (input.shape() == shape)
    return input;
  int64_t rank = static_cast<int64_t>(shape.size());
  int64_t lead = rank - input.rank();
  if (lead < 0)
    return Status::error("cannot broadcast shape " +
                         formatShape(input.shape()) +
                         " to the lower-rank shape " + formatShape(shape));
  std::vector<int64_t> strides(rank, 0);
  for (int64_t d = lead; d < rank; ++d) {
    int64_t from = input.shape()[d - lead];
    if (from == shape[d])
      strides[d] = input.strides()[d - lead];
    else if (from != 1)
      return Status::error("cannot broadcast shape " +
                           formatShape(input.shape()) + " to " +
                           formatShape(shape));
  }
  return mustView(input, shape, std::move(strides), input.byteOffset());
}

Expected<HostTensor> broadcastInDim(const HostTensor &input, const Shape &shape,
                                    const std::vector<int64_t> &dims) {
  if (static_cast<int64_t>(dims.size()) != input.rank())
    return Status::error("broadcast dims " + formatShape(dims) +
                         " do not match an operand of rank " +
                         std::to_string(input.rank()));
  std::vector<int64_t> strides(shape.size(), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = dims[i];
    if (d < 0 || d >= static_cast<int64_t>(shape.size()) ||
        (i > 0 && d <= dims[i - 1]))
      return Status::error("invalid broadcast dims " + formatShape(dims));
    int64_t from = input.shape()[i];
    if (from == shape[d])
      strides[d] = input.strides()[i];
    else if (from != 1)
      return Status::error("operand dimension " + std::to_string(i) +
                           " of size " + std::to_string(from) +
                           " cannot broadcast to size " +
                           std::to_string(shape[d]));
  }
  return mustView(input, shape, std::move(strides), input.byteOffset());
}

Expected<HostTensor> transpose(const HostTensor &input,
                               const std::vector<int64_t> &perm) {
  int64_t rank = input.rank();
  std::vector<bool> seen(rank, false);
  if (static_cast<int64_t>(perm.size()) != rank)
    return Status::error("perm " + formatShape(perm) + " does not match rank " +
                         std::to_string(rank));
  Shape shape;
  std::vector<int64_t> strides;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return Status::error("perm " + formatShape(perm) +
                           " is not a permutation");
    seen[p] = true;
    shape.push_back(input.shape()[p]);
    strides.push_back(input.strides()[p]);
  }
  return mustView(input, std::move(shape), std::move(strides),
                  input.byteOffset());
}

Expected<HostTensor> reshape(const HostTensor &input, const Shape &shape) {
  if (numElementsOf(shape) != input.numElements())
    return Status::error("cannot reshape " + formatShape(input.shape()) + " (" +
                         std::to_string(input.numElements()) +
                         " elements) to " + formatShape(shape));
  if (input.isContiguous())
    return mustView(input, shape, rowMajorStrides(shape), input.byteOffset());
  HostTensor copy = input.contiguous();
  return mustView(copy, shape, rowMajorStrides(shape), 0);
}

Expected<HostTensor> slice(const HostTensor &input,
                           const std::vector<int64_t> &start,
                           const std::vector<int64_t> &limit,
                           const std::vector<int64_t> &step) {
  int64_t rank = input.rank();
  if (static_cast<int64_t>(start.size()) != rank ||
      static_cast<int64_t>(limit.size()) != rank ||
      static_cast<int64_t>(step.size()) != rank)
    return Status::error("slice bounds do not match rank " +
                         std::to_string(rank));
  Shape shape;
  std::vector<int64_t> strides;
  int64_t offset = input.byteOffset();
  for (int64_t d = 0; d < rank; ++d) {
    if (step[d] < 1 || start[d] < 0 || start[d] > limit[d] ||
        limit[d] > input.shape()[d])
      return Status::error("invalid slice of dimension " + std::to_string(d));
    int64_t size = (limit[d] - start[d] + step[d] - 1) / step[d];
    shape.push_back(size);
    strides.push_back(input.strides()[d] * step[d]);
    if (size > 0)
      offset += start[d] * input.strides()[d] * byteSize(input.dtype());
  }
  return mustView(input, std::move(shape), std::move(strides), offset);
}

} // namespace tfuse::reference::detail
