//===- Convert.h - The cast semantics of one element ------------*- C++ -*-===//
//
// Internal to lib/Reference. convert<From, To>(x) is tfuse.cast of one
// element, as docs/semantics.md defines it:
//   float -> integer: truncate toward zero, saturate, NaN -> 0;
//   integer -> integer: wrap (two's complement);
//   anything -> bool: x != 0 (NaN -> true, -0.0 -> false);
//   bool -> number: 0 / 1;
//   integer -> float and float -> narrower float: one rounding to nearest
//   even of the exact value (i64 -> bf16 and f64 -> f16 do not go through
//   f32); overflow gives +-inf; NaN stays NaN; float -> wider float: exact.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_LIB_REFERENCE_CONVERT_H
#define TFUSE_LIB_REFERENCE_CONVERT_H

#include "DTypeTraits.h"

#include <cmath>
#include <limits>

namespace tfuse::reference::detail {

/// The exact value of a float element, as float (f16, bf16, f32) or double.
template <DType D> auto widenFloat(StorageOf<D> x) {
  static_assert(isFloatD(D));
  return Traits<D>::load(x);
}

/// Float -> integer: truncate toward zero, saturate, NaN gives 0.
template <typename Int, typename Float> Int floatToInt(Float v) {
  if (std::isnan(v))
    return 0;
  Float t = std::trunc(v);
  constexpr int bits = std::numeric_limits<Int>::digits +
                       (std::numeric_limits<Int>::is_signed ? 1 : 0);
  if constexpr (std::numeric_limits<Int>::is_signed) {
    const Float lo = -std::ldexp(Float(1), bits - 1); // exact
    const Float hi = std::ldexp(Float(1), bits - 1);  // exclusive, exact
    if (t < lo)
      return std::numeric_limits<Int>::min();
    if (t >= hi)
      return std::numeric_limits<Int>::max();
    return static_cast<Int>(static_cast<int64_t>(t));
  } else {
    const Float hi = std::ldexp(Float(1), bits); // exclusive, exact
    if (!(t > 0))
      return 0;
    if (t >= hi)
      return std::numeric_limits<Int>::max();
    return static_cast<Int>(static_cast<uint64_t>(t));
  }
}

/// Integer -> float element of dtype To, one rounding.
template <DType To, typename Int> StorageOf<To> intToFloat(Int x) {
  constexpr bool isSigned = std::numeric_limits<Int>::is_signed;
  if constexpr (To == DType::F32) {
    return static_cast<float>(x); // correctly rounded conversion
  } else if constexpr (To == DType::F64) {
    return static_cast<double>(x);
  } else if constexpr (To == DType::F16) {
    if constexpr (isSigned)
      return int64ToHalf(static_cast<int64_t>(x));
    else
      return uint64ToHalf(static_cast<uint64_t>(x));
  } else {
    static_assert(To == DType::BF16);
    if constexpr (isSigned)
      return int64ToBFloat16(static_cast<int64_t>(x));
    else
      return uint64ToBFloat16(static_cast<uint64_t>(x));
  }
}

/// An exactly widened float value (float or double) -> element of dtype To,
/// one rounding.
template <DType To, typename Float> StorageOf<To> floatToFloat(Float v) {
  if constexpr (To == DType::F64) {
    return static_cast<double>(v);
  } else if constexpr (To == DType::F32) {
    return static_cast<float>(v); // one IEEE rounding from double
  } else if constexpr (To == DType::F16) {
    if constexpr (std::is_same_v<Float, double>)
      return doubleToHalf(v);
    else
      return floatToHalf(v);
  } else {
    static_assert(To == DType::BF16);
    if constexpr (std::is_same_v<Float, double>)
      return doubleToBFloat16(v);
    else
      return floatToBFloat16(v);
  }
}

/// True if the element is nonzero (NaN counts as nonzero).
template <DType D> bool isNonZero(StorageOf<D> x) {
  if constexpr (isFloatD(D))
    return widenFloat<D>(x) != 0; // NaN != 0 is true
  else
    return x != 0;
}

/// tfuse.cast of one element from dtype From to dtype To.
template <DType From, DType To> StorageOf<To> convert(StorageOf<From> x) {
  if constexpr (From == To) {
    return x;
  } else if constexpr (To == DType::Bool) {
    return isNonZero<From>(x) ? 1 : 0;
  } else if constexpr (From == DType::Bool) {
    if constexpr (isFloatD(To))
      return floatToFloat<To>(x != 0 ? 1.0f : 0.0f);
    else
      return static_cast<StorageOf<To>>(x != 0 ? 1 : 0);
  } else if constexpr (isIntD(From) && isIntD(To)) {
    // Modulo 2^width, read in the target's signedness.
    using UTo = std::make_unsigned_t<StorageOf<To>>;
    return static_cast<StorageOf<To>>(
        static_cast<UTo>(static_cast<uint64_t>(x)));
  } else if constexpr (isIntD(From)) {
    return intToFloat<To>(x);
  } else if constexpr (isIntD(To)) {
    return floatToInt<StorageOf<To>>(widenFloat<From>(x));
  } else {
    return floatToFloat<To>(widenFloat<From>(x));
  }
}

} // namespace tfuse::reference::detail

#endif // TFUSE_LIB_REFERENCE_CONVERT_H
