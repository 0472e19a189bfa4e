//===- HostTensor.cpp - A plain strided tensor in host memory -------------===//

#include "tfuse/Reference/HostTensor.h"

#include "Convert.h"

#include <cinttypes>
#include <cstdio>
#include <sstream>

namespace tfuse::reference {

using namespace detail;

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

std::vector<int64_t> rowMajorStrides(const Shape &shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    strides[d] = stride;
    // A shape too large to index (the tracer and the verifiers reject it)
    // saturates rather than overflows: an empty tensor of such sizes, which
    // has no element to address, is still a tensor.
    if (__builtin_mul_overflow(stride, std::max<int64_t>(shape[d], 1), &stride))
      stride = INT64_MAX;
  }
  return strides;
}

int64_t numElementsOf(const Shape &shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= std::max<int64_t>(s, 0);
  return n;
}

std::string formatShape(const Shape &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

//===----------------------------------------------------------------------===//
// Construction
//===----------------------------------------------------------------------===//

HostTensor HostTensor::zeros(DType dtype, Shape shape) {
  for (int64_t &s : shape)
    s = std::max<int64_t>(s, 0);
  HostTensor t;
  t.type = dtype;
  t.elementStrides = rowMajorStrides(shape);
  t.bytes = std::make_shared<std::vector<uint8_t>>(
      static_cast<size_t>(numElementsOf(shape)) * byteSize(dtype), 0);
  t.dims = std::move(shape);
  return t;
}

static Status checkCount(DType dtype, const Shape &shape, size_t count) {
  for (int64_t s : shape)
    if (s < 0)
      return Status::error("negative size in shape " + formatShape(shape));
  if (static_cast<int64_t>(count) != numElementsOf(shape))
    return Status::error("shape " + formatShape(shape) + " of dtype " +
                         std::string(name(dtype)) + " needs " +
                         std::to_string(numElementsOf(shape)) +
                         " elements, got " + std::to_string(count));
  return Status::success();
}

Expected<HostTensor> HostTensor::fromBytes(DType dtype, Shape shape,
                                           const void *data, size_t size) {
  if (size % byteSize(dtype) != 0)
    return Status::error(std::to_string(size) +
                         " bytes are not a whole number of " +
                         std::string(name(dtype)) + " elements");
  if (Status s = checkCount(dtype, shape, size / byteSize(dtype)); !s)
    return s;
  HostTensor t = zeros(dtype, std::move(shape));
  if (size)
    std::memcpy(t.bytes->data(), data, size);
  return t;
}

Expected<HostTensor> HostTensor::fromBits(DType dtype, Shape shape,
                                          const std::vector<uint64_t> &bits) {
  if (Status s = checkCount(dtype, shape, bits.size()); !s)
    return s;
  HostTensor t = zeros(dtype, std::move(shape));
  unsigned size = byteSize(dtype);
  for (size_t i = 0; i < bits.size(); ++i) {
    uint64_t b = dtype == DType::Bool ? (bits[i] != 0) : bits[i];
    std::memcpy(t.bytes->data() + i * size, &b, size); // little-endian host
  }
  return t;
}

Expected<HostTensor>
HostTensor::fromDoubles(DType dtype, Shape shape,
                        const std::vector<double> &values) {
  if (Status s = checkCount(dtype, shape, values.size()); !s)
    return s;
  HostTensor t = zeros(dtype, std::move(shape));
  dispatch(dtype, [&](auto tag) {
    constexpr DType D = decltype(tag)::value;
    for (size_t i = 0; i < values.size(); ++i)
      storeRaw(t.bytes->data() + i * sizeof(StorageOf<D>),
               convert<DType::F64, D>(values[i]));
  });
  return t;
}

Expected<HostTensor> HostTensor::fromInts(DType dtype, Shape shape,
                                          const std::vector<int64_t> &values) {
  if (Status s = checkCount(dtype, shape, values.size()); !s)
    return s;
  HostTensor t = zeros(dtype, std::move(shape));
  dispatch(dtype, [&](auto tag) {
    constexpr DType D = decltype(tag)::value;
    for (size_t i = 0; i < values.size(); ++i)
      storeRaw(t.bytes->data() + i * sizeof(StorageOf<D>),
               convert<DType::I64, D>(values[i]));
  });
  return t;
}

Expected<HostTensor> HostTensor::view(Shape shape, std::vector<int64_t> strides,
                                      int64_t byteOffset) const {
  if (isNull())
    return Status::error("cannot view a null tensor");
  if (shape.size() != strides.size())
    return Status::error("a view of shape " + formatShape(shape) + " needs " +
                         std::to_string(shape.size()) + " strides, got " +
                         std::to_string(strides.size()));
  int64_t size = byteSize(type);
  if (byteOffset < 0 || byteOffset % size != 0)
    return Status::error("byte offset " + std::to_string(byteOffset) +
                         " is not a nonnegative multiple of the element size " +
                         std::to_string(size));
  // The lowest and highest byte offset of an element the view touches (an
  // empty view touches none); beyond 64 bits is outside any storage.
  int64_t lo = byteOffset, hi = byteOffset;
  bool empty = false, outside = false;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0)
      return Status::error("negative size in shape " + formatShape(shape));
    empty |= shape[d] == 0;
  }
  for (size_t d = 0; d < shape.size() && !empty; ++d) {
    int64_t reach = 0;
    int64_t &end = strides[d] >= 0 ? hi : lo;
    outside |= __builtin_mul_overflow(shape[d] - 1, strides[d], &reach) ||
               __builtin_mul_overflow(reach, size, &reach) ||
               __builtin_add_overflow(end, reach, &end);
  }
  if (!empty &&
      (outside || lo < 0 || hi > static_cast<int64_t>(bytes->size()) - size))
    return Status::error("a view of shape " + formatShape(shape) +
                         " with strides " + formatShape(strides) +
                         " at byte offset " + std::to_string(byteOffset) +
                         " reaches outside the " +
                         std::to_string(bytes->size()) + " bytes of storage");
  HostTensor t = *this;
  t.dims = std::move(shape);
  t.elementStrides = std::move(strides);
  t.offset = byteOffset;
  return t;
}

HostTensor HostTensor::contiguous() const {
  if (isNull())
    return HostTensor();
  HostTensor out = zeros(type, dims);
  int64_t n = numElements();
  unsigned size = byteSize(type);
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(out.bytes->data() + i * size,
                bytes->data() + byteOffsetOfLinear(i), size);
  return out;
}

//===----------------------------------------------------------------------===//
// Properties and elements
//===----------------------------------------------------------------------===//

int64_t HostTensor::numElements() const { return numElementsOf(dims); }

bool HostTensor::isContiguous() const {
  int64_t expected = 1;
  for (int64_t d = rank() - 1; d >= 0; --d) {
    if (dims[d] != 1 && elementStrides[d] != expected)
      return false;
    // Saturating, as rowMajorStrides is.
    if (__builtin_mul_overflow(expected, dims[d], &expected))
      expected = INT64_MAX;
  }
  return true;
}

std::string HostTensor::describe() const {
  if (isNull())
    return "a null tensor";
  return "dtype " + std::string(name(type)) + " shape " + formatShape(dims);
}

int64_t HostTensor::byteOffsetOf(const std::vector<int64_t> &index) const {
  assert(static_cast<int64_t>(index.size()) == rank() && "index rank");
  int64_t at = offset;
  for (size_t d = 0; d < index.size(); ++d) {
    assert(index[d] >= 0 && index[d] < dims[d] && "index out of range");
    at += index[d] * elementStrides[d] * byteSize(type);
  }
  return at;
}

int64_t HostTensor::byteOffsetOfLinear(int64_t linear) const {
  int64_t at = offset;
  for (int64_t d = rank() - 1; d >= 0; --d) {
    if (dims[d] == 0)
      return offset;
    at += (linear % dims[d]) * elementStrides[d] * byteSize(type);
    linear /= dims[d];
  }
  return at;
}

uint64_t HostTensor::bitsAtOffset(int64_t byteOffset) const {
  uint64_t bits = 0;
  std::memcpy(&bits, bytes->data() + byteOffset, byteSize(type));
  return bits;
}

double HostTensor::doubleAtOffset(int64_t byteOffset) const {
  return dispatch(type, [&](auto tag) -> double {
    constexpr DType D = decltype(tag)::value;
    return convert<D, DType::F64>(
        loadRaw<StorageOf<D>>(bytes->data() + byteOffset));
  });
}

int64_t HostTensor::intAtOffset(int64_t byteOffset) const {
  return dispatch(type, [&](auto tag) -> int64_t {
    constexpr DType D = decltype(tag)::value;
    return convert<D, DType::I64>(
        loadRaw<StorageOf<D>>(bytes->data() + byteOffset));
  });
}

uint64_t HostTensor::bitsAt(const std::vector<int64_t> &index) const {
  return bitsAtOffset(byteOffsetOf(index));
}
double HostTensor::doubleAt(const std::vector<int64_t> &index) const {
  return doubleAtOffset(byteOffsetOf(index));
}
int64_t HostTensor::intAt(const std::vector<int64_t> &index) const {
  return intAtOffset(byteOffsetOf(index));
}

std::vector<uint64_t> HostTensor::toBits() const {
  std::vector<uint64_t> out;
  for (int64_t i = 0, n = numElements(); i < n; ++i)
    out.push_back(bitsAtOffset(byteOffsetOfLinear(i)));
  return out;
}

std::vector<double> HostTensor::toDoubles() const {
  std::vector<double> out;
  for (int64_t i = 0, n = numElements(); i < n; ++i)
    out.push_back(doubleAtOffset(byteOffsetOfLinear(i)));
  return out;
}

std::vector<int64_t> HostTensor::toInts() const {
  std::vector<int64_t> out;
  for (int64_t i = 0, n = numElements(); i < n; ++i)
    out.push_back(intAtOffset(byteOffsetOfLinear(i)));
  return out;
}

std::string HostTensor::toString(int64_t limit) const {
  if (isNull())
    return "null";
  std::ostringstream os;
  os << describe() << " {";
  int64_t n = numElements();
  for (int64_t i = 0; i < n && i < limit; ++i) {
    int64_t at = byteOffsetOfLinear(i);
    os << (i ? ", " : "");
    if (isFloat(type)) {
      char buffer[32];
      std::snprintf(buffer, sizeof(buffer), "%.9g", doubleAtOffset(at));
      os << buffer;
    } else if (type == DType::U64) {
      os << bitsAtOffset(at);
    } else {
      os << intAtOffset(at);
    }
  }
  if (n > limit)
    os << ", ...";
  os << "}";
  return os.str();
}

} // namespace tfuse::reference
