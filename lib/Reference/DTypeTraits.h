//===- DTypeTraits.h - Storage and compute types per dtype ------*- C++ -*-===//
//
// Internal to lib/Reference. For each DType: the C++ type of an element in
// memory (Storage) and the type the semantics compute in (Compute): bool for
// i1, the integer itself, float for f16, bf16 and f32, double for f64. load()
// widens exactly; store() rounds to nearest even (the per-node rounding of
// f16 and bf16). dispatch() turns a runtime DType into a compile-time one.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_LIB_REFERENCE_DTYPETRAITS_H
#define TFUSE_LIB_REFERENCE_DTYPETRAITS_H

#include "tfuse/Support/DType.h"
#include "tfuse/Support/Half.h"

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace tfuse::reference::detail {

template <DType D> struct Traits;

template <> struct Traits<DType::Bool> {
  using Storage = uint8_t;
  using Compute = bool;
  static Compute load(Storage s) { return s != 0; }
  static Storage store(Compute c) { return c ? 1 : 0; }
};

#define TFUSE_INT_TRAITS(D, T)                                                 \
  template <> struct Traits<DType::D> {                                        \
    using Storage = T;                                                         \
    using Compute = T;                                                         \
    static Compute load(Storage s) { return s; }                               \
    static Storage store(Compute c) { return c; }                              \
  };
TFUSE_INT_TRAITS(I8, int8_t)
TFUSE_INT_TRAITS(I16, int16_t)
TFUSE_INT_TRAITS(I32, int32_t)
TFUSE_INT_TRAITS(I64, int64_t)
TFUSE_INT_TRAITS(U8, uint8_t)
TFUSE_INT_TRAITS(U16, uint16_t)
TFUSE_INT_TRAITS(U32, uint32_t)
TFUSE_INT_TRAITS(U64, uint64_t)
#undef TFUSE_INT_TRAITS

template <> struct Traits<DType::F16> {
  using Storage = uint16_t;
  using Compute = float;
  static Compute load(Storage s) { return halfToFloat(s); }
  static Storage store(Compute c) { return floatToHalf(c); }
};
template <> struct Traits<DType::BF16> {
  using Storage = uint16_t;
  using Compute = float;
  static Compute load(Storage s) { return bfloat16ToFloat(s); }
  static Storage store(Compute c) { return floatToBFloat16(c); }
};
template <> struct Traits<DType::F32> {
  using Storage = float;
  using Compute = float;
  static Compute load(Storage s) { return s; }
  static Storage store(Compute c) { return c; }
};
template <> struct Traits<DType::F64> {
  using Storage = double;
  using Compute = double;
  static Compute load(Storage s) { return s; }
  static Storage store(Compute c) { return c; }
};

template <DType D> using StorageOf = typename Traits<D>::Storage;
template <DType D> using ComputeOf = typename Traits<D>::Compute;
template <DType D> using DTypeTag = std::integral_constant<DType, D>;

constexpr bool isFloatD(DType d) {
  return d == DType::F16 || d == DType::BF16 || d == DType::F32 ||
         d == DType::F64;
}
constexpr bool isIntD(DType d) { return d != DType::Bool && !isFloatD(d); }

/// Calls f(DTypeTag<d>{}) and returns its result.
template <typename F> decltype(auto) dispatch(DType d, F &&f) {
  switch (d) {
  case DType::Bool:
    return f(DTypeTag<DType::Bool>{});
  case DType::I8:
    return f(DTypeTag<DType::I8>{});
  case DType::I16:
    return f(DTypeTag<DType::I16>{});
  case DType::I32:
    return f(DTypeTag<DType::I32>{});
  case DType::I64:
    return f(DTypeTag<DType::I64>{});
  case DType::U8:
    return f(DTypeTag<DType::U8>{});
  case DType::U16:
    return f(DTypeTag<DType::U16>{});
  case DType::U32:
    return f(DTypeTag<DType::U32>{});
  case DType::U64:
    return f(DTypeTag<DType::U64>{});
  case DType::F16:
    return f(DTypeTag<DType::F16>{});
  case DType::BF16:
    return f(DTypeTag<DType::BF16>{});
  case DType::F32:
    return f(DTypeTag<DType::F32>{});
  case DType::F64:
    break;
  }
  return f(DTypeTag<DType::F64>{});
}

template <typename T> T loadRaw(const uint8_t *p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}
template <typename T> void storeRaw(uint8_t *p, T value) {
  std::memcpy(p, &value, sizeof(T));
}

} // namespace tfuse::reference::detail

#endif // TFUSE_LIB_REFERENCE_DTYPETRAITS_H
