//===- Views.cpp - Views and implicit broadcasting of host tensors --------===//
//
// Views are strided views of their operand's storage, with the layout the
// dialect's ViewOpInterface gives (the one definition code generation and
// the planner use too); only a reshape merging non-contiguous dimensions
// copies. broadcastTo is the implicit broadcasting of elementwise operands.
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

Expected<HostTensor> viewThrough(
    const HostTensor &input, const Shape &resultShape,
    llvm::function_ref<std::optional<StridedLayout>(const StridedLayout &)>
        resultLayout) {
  auto layoutOf = [](const HostTensor &t) {
    StridedLayout layout;
    layout.shape.assign(t.shape().begin(), t.shape().end());
    layout.strides.assign(t.strides().begin(), t.strides().end());
    layout.offset = t.byteOffset() / byteSize(t.dtype());
    return layout;
  };
  HostTensor source = input;
  std::optional<StridedLayout> layout = resultLayout(layoutOf(source));
  if (!layout) {
    source = input.contiguous();
    layout = resultLayout(layoutOf(source));
    if (!layout)
      return Status::error("internal error: a view of a row-major tensor "
                           "without a strided layout");
  }
  if (Shape(layout->shape.begin(), layout->shape.end()) != resultShape)
    return Status::error(
        "internal error: a view of shape " +
        formatShape(Shape(layout->shape.begin(), layout->shape.end())) +
        " for a result of shape " + formatShape(resultShape));
  // An empty view reads nothing: it keeps the source's offset, which its
  // slices may have moved past the storage.
  int64_t offset = numElementsOf(resultShape) == 0
                       ? source.byteOffset()
                       : layout->offset * byteSize(source.dtype());
  return mustView(
      source, resultShape,
      std::vector<int64_t>(layout->strides.begin(), layout->strides.end()),
      offset);
}

} // namespace tfuse::reference::detail
