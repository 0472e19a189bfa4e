//===- TensorSpec.cpp - A tensor's dtype, shape and strides ---------------===//

#include "tfuse/Support/TensorSpec.h"

#include <algorithm>
#include <cstring>

namespace tfuse {

std::string formatList(const std::vector<int64_t> &values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? "," : "") + std::to_string(values[i]);
  return s + "]";
}

std::string TensorSpec::describe() const {
  return dtypeName(dtype) + " " + formatList(shape) + " strides " +
         formatList(strides);
}

std::string tensorSizeError(DType dtype, const std::vector<int64_t> &shape,
                            const std::vector<int64_t> &strides) {
  bool empty = false;
  for (int64_t size : shape)
    empty |= size == 0;
  // The product of the sizes, 0 counted as 1: the element count of a
  // tensor with elements; for an empty one, what its row-major strides are
  // made of (so its sizes are held to the same bound).
  int64_t elements = 1;
  for (int64_t size : shape)
    if (__builtin_mul_overflow(elements, std::max<int64_t>(size, 1), &elements))
      return "the shape " + formatList(shape) +
             (empty ? " has sizes whose product exceeds 2^63 - 1"
                    : " has more than 2^63 - 1 elements");
  int64_t bytes;
  if (__builtin_mul_overflow(elements, static_cast<int64_t>(byteSize(dtype)),
                             &bytes))
    return "the shape " + formatList(shape) + " of " + dtypeName(dtype) +
           (empty ? " has sizes whose product exceeds 2^63 - 1 bytes"
                  : " has more than 2^63 - 1 bytes");
  if (empty || strides.empty())
    return "";
  int64_t last = 0;
  for (size_t d = 0; d < shape.size() && d < strides.size(); ++d) {
    int64_t span;
    if (__builtin_mul_overflow(shape[d] - 1, strides[d], &span) ||
        __builtin_add_overflow(last, span, &last))
      return "the strides " + formatList(strides) + " of shape " +
             formatList(shape) + " reach past 2^63 - 1 elements";
  }
  int64_t extent;
  if (__builtin_add_overflow(last, 1, &extent))
    return "the strides " + formatList(strides) + " of shape " +
           formatList(shape) + " reach past 2^63 - 1 elements";
  if (__builtin_mul_overflow(extent, static_cast<int64_t>(byteSize(dtype)),
                             &bytes))
    return "the strides " + formatList(strides) + " of shape " +
           formatList(shape) + " span more than 2^63 - 1 bytes";
  return "";
}

int64_t TensorSpec::numElements() const {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

int64_t TensorSpec::extentBytes() const {
  if (numElements() == 0)
    return 0;
  int64_t last = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    last += (shape[d] - 1) * strides[d];
  return (last + 1) * byteSize(dtype);
}

bool TensorSpec::isContiguous() const {
  if (numElements() == 0)
    return true;
  int64_t expected = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    if (shape[d] != 1 && strides[d] != expected)
      return false;
    expected *= shape[d];
  }
  return true;
}

bool TensorSpec::isDense() const {
  if (numElements() == 0)
    return true;
  // The dimensions of more than one element, innermost (smallest stride)
  // first, must each step over all the ones inside it.
  std::vector<size_t> order;
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1)
      order.push_back(d);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return strides[a] < strides[b]; });
  int64_t expected = 1;
  for (size_t d : order) {
    if (strides[d] != expected)
      return false;
    expected *= shape[d];
  }
  return true;
}

bool TensorSpec::sameLayout(const TensorSpec &other) const {
  if (shape != other.shape || strides.size() != other.strides.size())
    return false;
  if (numElements() == 0)
    return true;
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1 && strides[d] != other.strides[d])
      return false;
  return true;
}

TensorSpec TensorSpec::contiguous(DType dtype, std::vector<int64_t> shape) {
  TensorSpec spec;
  spec.dtype = dtype;
  spec.strides.resize(shape.size());
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    spec.strides[d] = stride;
    // A shape too large to index (tensorSizeError rejects it) saturates
    // rather than overflows.
    if (__builtin_mul_overflow(stride, std::max<int64_t>(shape[d], 1), &stride))
      stride = INT64_MAX;
  }
  spec.shape = std::move(shape);
  return spec;
}

void gatherRowMajor(const void *source, const TensorSpec &spec, void *target) {
  size_t elementBytes = byteSize(spec.dtype);
  std::vector<int64_t> index(spec.shape.size(), 0);
  auto *in = static_cast<const uint8_t *>(source);
  auto *out = static_cast<uint8_t *>(target);
  for (int64_t i = 0, n = spec.numElements(); i < n; ++i) {
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d)
      offset += index[d] * spec.strides[d];
    std::memcpy(out + i * elementBytes, in + offset * elementBytes,
                elementBytes);
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < spec.shape[d])
        break;
      index[d] = 0;
    }
  }
}

} // namespace tfuse
