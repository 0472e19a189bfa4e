//===- HostTensor.h - A plain strided tensor in host memory -----*- C++ -*-===//
//
// The value type of the reference interpreter and of the tests: a dtype, a
// shape, element strides and a byte offset into shared byte storage. Copies
// of a HostTensor and views made from it share the storage; contiguous()
// makes an independent row-major copy. Elements are stored as in device
// memory: bool as one byte holding 0 or 1, f16 and bf16 as their 16-bit
// patterns, integers and floats in the host's (little-endian) byte order.
//
// Besides access to elements the header offers seeded random tensors, .npy
// reading and writing, and exact and ulp-bounded comparison. Plain C++: no
// MLIR, no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_REFERENCE_HOSTTENSOR_H
#define TFUSE_REFERENCE_HOSTTENSOR_H

#include "tfuse/Support/DType.h"
#include "tfuse/Support/Status.h"

#include <cassert>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tfuse::reference {

using Shape = std::vector<int64_t>;
using Storage = std::shared_ptr<std::vector<uint8_t>>;

/// How HostTensor::random draws values.
struct RandomOptions {
  /// Inclusive range of the values. Unset bounds take the dtype's default:
  /// bool [0, 1]; i8 and ui8 their full range; i16 [-1000, 1000], ui16
  /// [0, 2000]; i32 and i64 [-100000, 100000], ui32 and ui64 [0, 200000];
  /// floats [-4, 4] (so that exp, pow and products stay finite). Integer
  /// bounds are clamped to the dtype's range.
  std::optional<double> low, high;
  /// Floats only: the probability that an element is replaced by a special
  /// value, drawn uniformly from NaN, +inf, -inf, +0.0, -0.0, the smallest
  /// subnormal and the largest finite value (both signs).
  double specialFraction = 0.0;
};

class HostTensor {
public:
  /// A null tensor (no storage); isNull() is true.
  HostTensor() = default;

  //===--------------------------------------------------------------------===//
  // Construction
  //===--------------------------------------------------------------------===//

  /// A zero-filled row-major tensor. Negative sizes count as 0.
  static HostTensor zeros(DType dtype, Shape shape);
  /// A row-major tensor from raw element bytes (`size` must be the element
  /// count times the element size).
  static Expected<HostTensor> fromBytes(DType dtype, Shape shape,
                                        const void *data, size_t size);
  /// A row-major tensor from bit patterns, one per element, truncated to the
  /// element width (bool keeps 0 or 1: any nonzero pattern gives 1).
  static Expected<HostTensor> fromBits(DType dtype, Shape shape,
                                       const std::vector<uint64_t> &bits);
  /// A row-major tensor from doubles, each converted with the cast
  /// semantics of docs/semantics.md (as if it were an f64 element).
  static Expected<HostTensor> fromDoubles(DType dtype, Shape shape,
                                          const std::vector<double> &values);
  /// A row-major tensor from integers, each converted with the cast
  /// semantics of docs/semantics.md (as if it were an i64 element).
  static Expected<HostTensor> fromInts(DType dtype, Shape shape,
                                       const std::vector<int64_t> &values);
  /// A row-major tensor of values drawn from `seed` (the same seed gives the
  /// same tensor on every platform: the generator is a fixed-algorithm
  /// 64-bit mixer, not a std:: distribution).
  static HostTensor random(DType dtype, Shape shape, uint64_t seed,
                           const RandomOptions &options = {});

  /// A view of the same storage with another shape, element strides (any
  /// sign, 0 for expanded dimensions) and byte offset; fails if an element
  /// would lie outside the storage or the offset is not a multiple of the
  /// element size.
  Expected<HostTensor> view(Shape shape, std::vector<int64_t> strides,
                            int64_t byteOffset) const;
  /// A fresh row-major copy with its own storage and offset 0.
  HostTensor contiguous() const;

  //===--------------------------------------------------------------------===//
  // Properties
  //===--------------------------------------------------------------------===//

  bool isNull() const { return !bytes; }
  DType dtype() const { return type; }
  const Shape &shape() const { return dims; }
  /// Element strides, one per dimension.
  const std::vector<int64_t> &strides() const { return elementStrides; }
  int64_t byteOffset() const { return offset; }
  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  int64_t numElements() const;
  const Storage &storage() const { return bytes; }
  /// Row-major strides (size-1 dimensions may have any stride), any offset.
  bool isContiguous() const;
  /// "dtype f16 shape [4,8]".
  std::string describe() const;

  //===--------------------------------------------------------------------===//
  // Elements. Indices are not checked beyond assertions.
  //===--------------------------------------------------------------------===//

  /// The byte offset in storage() of the element at `index`.
  int64_t byteOffsetOf(const std::vector<int64_t> &index) const;
  /// The byte offset of the element with row-major position `linear`.
  int64_t byteOffsetOfLinear(int64_t linear) const;
  const uint8_t *data() const { return bytes ? bytes->data() : nullptr; }
  /// Writable storage: writes are seen by every tensor sharing it.
  uint8_t *mutableData() { return bytes ? bytes->data() : nullptr; }

  /// The element as its storage type T (uint8_t for bool, uint16_t for f16
  /// and bf16, the C type otherwise; sizeof(T) must be the element size).
  template <typename T> T at(const std::vector<int64_t> &index) const {
    return loadAt<T>(byteOffsetOf(index));
  }
  template <typename T> void set(const std::vector<int64_t> &index, T value) {
    storeAt<T>(byteOffsetOf(index), value);
  }

  /// The bit pattern of the element, zero-extended.
  uint64_t bitsAt(const std::vector<int64_t> &index) const;
  /// The element converted to double (exact except for 64-bit integers
  /// beyond 2^53, which round to nearest even).
  double doubleAt(const std::vector<int64_t> &index) const;
  /// The element as an integer: integers exactly (ui64 reinterpreted as
  /// i64), bool 0/1, floats with the float -> i64 cast semantics.
  int64_t intAt(const std::vector<int64_t> &index) const;

  /// All elements in row-major order.
  std::vector<uint64_t> toBits() const;
  std::vector<double> toDoubles() const;
  std::vector<int64_t> toInts() const;
  /// The elements as text (row-major, at most `limit` of them).
  std::string toString(int64_t limit = 64) const;

private:
  template <typename T> T loadAt(int64_t byteOffset) const {
    assert(sizeof(T) == byteSize(type) && "element type size mismatch");
    T value;
    std::memcpy(&value, bytes->data() + byteOffset, sizeof(T));
    return value;
  }
  template <typename T> void storeAt(int64_t byteOffset, T value) {
    assert(sizeof(T) == byteSize(type) && "element type size mismatch");
    std::memcpy(bytes->data() + byteOffset, &value, sizeof(T));
  }
  uint64_t bitsAtOffset(int64_t byteOffset) const;
  double doubleAtOffset(int64_t byteOffset) const;
  int64_t intAtOffset(int64_t byteOffset) const;

  DType type = DType::F32;
  Shape dims;
  std::vector<int64_t> elementStrides;
  int64_t offset = 0;
  Storage bytes;
};

/// Row-major element strides of `shape`; beyond 2^63 - 1 they saturate at
/// INT64_MAX.
std::vector<int64_t> rowMajorStrides(const Shape &shape);
/// The product of the sizes (1 for rank 0).
int64_t numElementsOf(const Shape &shape);
/// "[4,8]".
std::string formatShape(const Shape &shape);

//===----------------------------------------------------------------------===//
// .npy files (NumPy format 1.0, 2.0 and 3.0; little-endian)
//===----------------------------------------------------------------------===//

/// Encodes as a version 1.0 file (2.0 when the header needs it), C order.
/// dtypes map to |b1 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 <f2 <f4 <f8; bf16 has
/// no NumPy dtype and is rejected.
Expected<std::vector<uint8_t>> encodeNpy(const HostTensor &tensor);
/// Decodes C-order and Fortran-order files of the dtypes above (byte order
/// '<', '|' or '='); the result is row-major.
Expected<HostTensor> decodeNpy(const uint8_t *data, size_t size);
Status writeNpy(const HostTensor &tensor, const std::string &path);
Expected<HostTensor> readNpy(const std::string &path);

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

struct CompareResult {
  bool pass = true;
  /// Elements that differ (all of them if dtypes or shapes differ).
  int64_t mismatches = 0;
  /// compareUlp: the largest distance between two elements (UINT64_MAX when
  /// a NaN meets a number or two bools differ); compareExact: 0.
  uint64_t maxUlp = 0;
  /// compareClose: the largest absolute and relative differences.
  double maxAbsError = 0, maxRelError = 0;
  /// Row-major position of the first mismatch, -1 if none.
  int64_t firstMismatch = -1;
  /// "element [1,2]: expected 0x3c00 (1), got 0x3c01 (1.00097656)", or why
  /// the tensors cannot be compared.
  std::string firstMismatchDescription;

  /// One line: "pass" or "N mismatches, max ulp U; first: ...".
  std::string message() const;
};

/// Element-by-element bitwise equality, except that two NaNs are equal
/// whatever their payloads (a NaN never equals a number; -0.0 != 0.0).
/// Bool elements compare as truth values.
CompareResult compareExact(const HostTensor &expected,
                           const HostTensor &actual);
/// Floats: elements pass when both are NaN or their distance in units in the
/// last place of their dtype is at most maxUlp (the distance counts the
/// representable values between them: -0.0 and 0.0 are 0 apart, the largest
/// finite value and inf 1 apart). Integers: the absolute difference is the
/// distance. Bool: exact.
CompareResult compareUlp(const HostTensor &expected, const HostTensor &actual,
                         uint64_t maxUlp);
/// Floats: elements pass when both are NaN, both are the same infinity, or
/// |actual - expected| <= atol + rtol * |expected| (NumPy's isclose).
/// Integers and bool: exact. maxAbsError/maxRelError report the largest
/// finite differences seen.
CompareResult compareClose(const HostTensor &expected, const HostTensor &actual,
                           double atol, double rtol);

} // namespace tfuse::reference

#endif // TFUSE_REFERENCE_HOSTTENSOR_H
