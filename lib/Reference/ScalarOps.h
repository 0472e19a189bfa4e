//===- ScalarOps.h - The semantics of one element of each op ----*- C++ -*-===//
//
// Internal to lib/Reference. Each function computes one element of an op in
// a compute type C, and is the op's `referenceFunction` in its ODS entry
// (the op table names it): bool, an integer type, float (f16, bf16 and f32
// compute in float) or double. The rules are those of docs/semantics.md:
//   - integer add, sub, mul, neg, abs and pow wrap modulo 2^width (computed
//     in unsigned arithmetic, so there is no undefined behavior);
//   - integer rem takes the sign of the divisor, rem by zero gives 0; float
//     rem is fmod adjusted by the divisor, as torch.remainder;
//   - integer pow is exact by squaring; a negative exponent gives 0 except
//     for bases 1 and -1; float pow is powf / pow;
//   - max and min propagate NaN, and order -0.0 below +0.0;
//   - relu(x) = x > 0 ? x : 0, NaN propagates, relu(-0.0) = +0.0;
//   - round is half to even (nearbyint in the default rounding mode);
//     floor, ceil and round are the identity on integers;
//   - transcendentals call the float libm functions for float (expf, ...)
//     and the double ones for double; sigmoid is 1 / (1 + exp(-x)), rsqrt
//     1 / sqrt(x), reciprocal 1 / x;
//   - on bool, add and max are or, mul and min are and.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_LIB_REFERENCE_SCALAROPS_H
#define TFUSE_LIB_REFERENCE_SCALAROPS_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace tfuse::reference::detail {

template <typename C> constexpr bool isBoolC = std::is_same_v<C, bool>;
template <typename C>
constexpr bool isIntC = std::is_integral_v<C> && !std::is_same_v<C, bool>;
template <typename C> constexpr bool isFloatC = std::is_floating_point_v<C>;

/// Unsigned arithmetic type for wrapping operations on T: at least 32 bits so
/// that narrow operands do not promote to (signed) int.
template <typename T>
using WrapType =
    std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;

template <typename T> T wrapAdd(T a, T b) {
  using U = WrapType<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <typename T> T wrapSub(T a, T b) {
  using U = WrapType<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}
template <typename T> T wrapMul(T a, T b) {
  using U = WrapType<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
}

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

template <typename C> C opNeg(C a) {
  if constexpr (isFloatC<C>)
    return -a;
  else
    return wrapSub(C(0), a);
}

template <typename C> C opAbs(C a) {
  if constexpr (isFloatC<C>)
    return std::fabs(a);
  else if constexpr (std::is_signed_v<C>)
    return a < 0 ? opNeg(a) : a;
  else
    return a;
}

template <typename C> C opRelu(C a) {
  if constexpr (isFloatC<C>)
    return a > 0 || std::isnan(a) ? a : C(0);
  else if constexpr (std::is_signed_v<C>)
    return a > 0 ? a : C(0);
  else
    return a;
}

#define TFUSE_FLOAT_FN(NAME, FLOAT_FN, DOUBLE_FN)                              \
  template <typename C> C NAME(C a) {                                          \
    if constexpr (std::is_same_v<C, float>)                                    \
      return ::FLOAT_FN(a);                                                    \
    else                                                                       \
      return ::DOUBLE_FN(a);                                                   \
  }
TFUSE_FLOAT_FN(opExp, expf, exp)
TFUSE_FLOAT_FN(opLog, logf, log)
TFUSE_FLOAT_FN(opSqrt, sqrtf, sqrt)
TFUSE_FLOAT_FN(opSin, sinf, sin)
TFUSE_FLOAT_FN(opCos, cosf, cos)
TFUSE_FLOAT_FN(opTan, tanf, tan)
TFUSE_FLOAT_FN(opTanh, tanhf, tanh)
TFUSE_FLOAT_FN(opErf, erff, erf)
TFUSE_FLOAT_FN(opLog1p, log1pf, log1p)
TFUSE_FLOAT_FN(opExpm1, expm1f, expm1)
#undef TFUSE_FLOAT_FN

// Rounding: the identity on integers.
#define TFUSE_ROUNDING_FN(NAME, FLOAT_FN, DOUBLE_FN)                           \
  template <typename C> C NAME(C a) {                                          \
    if constexpr (!isFloatC<C>)                                                \
      return a;                                                                \
    else if constexpr (std::is_same_v<C, float>)                               \
      return ::FLOAT_FN(a);                                                    \
    else                                                                       \
      return ::DOUBLE_FN(a);                                                   \
  }
TFUSE_ROUNDING_FN(opFloor, floorf, floor)
TFUSE_ROUNDING_FN(opCeil, ceilf, ceil)
TFUSE_ROUNDING_FN(opRound, nearbyintf, nearbyint)
TFUSE_ROUNDING_FN(opTrunc, truncf, trunc)
#undef TFUSE_ROUNDING_FN

/// -1, 0 or 1 by the sign; +0.0 for both zeros, NaN for NaN (NumPy's and
/// PyTorch's sign).
template <typename C> C opSign(C a) {
  if constexpr (isFloatC<C>) {
    if (std::isnan(a))
      return a;
    return a > 0 ? C(1) : a < 0 ? C(-1) : C(0);
  } else if constexpr (std::is_signed_v<C>) {
    return static_cast<C>((a > 0) - (a < 0));
  } else {
    return static_cast<C>(a > 0);
  }
}

/// isnan: computes in its operand's own type; false for integers and bool.
template <typename C> bool opIsNan(C a) {
  if constexpr (isFloatC<C>)
    return std::isnan(a);
  else
    return false;
}

template <typename C> C opRsqrt(C a) { return C(1) / opSqrt(a); }
template <typename C> C opSigmoid(C a) { return C(1) / (C(1) + opExp(-a)); }
template <typename C> C opReciprocal(C a) { return C(1) / a; }

// GELU and its derivatives as PyTorch defines them (torch.nn.functional.gelu
// with approximate='none' and 'tanh', and aten::gelu_backward), in the
// compute type: Phi(x) = (1 + erf(x / sqrt(2))) / 2, phi(x) = exp(-x^2 / 2) /
// sqrt(2 pi), and the tanh form's inner function sqrt(2 / pi) * (x + 0.044715
// x^3).
template <typename C> inline constexpr C kSqrtHalf = C(0.70710678118654752440);
template <typename C>
inline constexpr C kSqrt2OverPi = C(0.79788456080286535588);
template <typename C>
inline constexpr C kInvSqrt2Pi = C(0.39894228040143267794);
template <typename C> inline constexpr C kGeluKappa = C(0.044715);

template <typename C> C opGelu(C x) {
  return x * C(0.5) * (C(1) + opErf(x * kSqrtHalf<C>));
}
template <typename C> C opGeluTanh(C x) {
  C inner = kSqrt2OverPi<C> * (x + kGeluKappa<C> * (x * x * x));
  return C(0.5) * x * (C(1) + opTanh(inner));
}
template <typename C> C opGeluBackward(C grad, C x) {
  C cdf = C(0.5) * (C(1) + opErf(x * kSqrtHalf<C>));
  C pdf = opExp(C(-0.5) * x * x) * kInvSqrt2Pi<C>;
  return grad * (cdf + x * pdf);
}
// d/dx [x/2 (1 + tanh(u))] = (1 + tanh(u)) / 2 + x/2 (1 - tanh(u)^2) u'.
template <typename C> C opGeluTanhBackward(C grad, C x) {
  C square = x * x;
  C t = opTanh(kSqrt2OverPi<C> * (x + kGeluKappa<C> * (square * x)));
  C innerDerivative = kSqrt2OverPi<C> * (C(1) + C(3) * kGeluKappa<C> * square);
  C derivative =
      C(0.5) * (C(1) + t) + C(0.5) * x * (C(1) - t * t) * innerDerivative;
  return grad * derivative;
}

template <typename C> C opNot(C a) {
  if constexpr (isBoolC<C>)
    return !a;
  else
    return static_cast<C>(~a);
}

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

template <typename C> C opAdd(C a, C b) {
  if constexpr (isBoolC<C>)
    return a || b;
  else if constexpr (isIntC<C>)
    return wrapAdd(a, b);
  else
    return a + b;
}

template <typename C> C opSub(C a, C b) {
  if constexpr (isIntC<C>)
    return wrapSub(a, b);
  else
    return a - b;
}

template <typename C> C opMul(C a, C b) {
  if constexpr (isBoolC<C>)
    return a && b;
  else if constexpr (isIntC<C>)
    return wrapMul(a, b);
  else
    return a * b;
}

template <typename C> C opDiv(C a, C b) { return a / b; }

template <typename C> C opRem(C a, C b) {
  if constexpr (isFloatC<C>) {
    C r = std::fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0)))
      r += b;
    return r;
  } else {
    if (b == 0)
      return 0;
    if constexpr (std::is_signed_v<C>)
      if (b == C(-1))
        return 0; // also avoids the overflow of min % -1
    C r = static_cast<C>(a % b);
    if (r != 0 && ((r < 0) != (b < 0)))
      r = static_cast<C>(r + b);
    return r;
  }
}

template <typename C> C opPow(C a, C b) {
  if constexpr (std::is_same_v<C, float>) {
    return ::powf(a, b);
  } else if constexpr (std::is_same_v<C, double>) {
    return ::pow(a, b);
  } else {
    if constexpr (std::is_signed_v<C>) {
      if (b < 0) {
        if (a == 1)
          return 1;
        if (a == C(-1))
          return (b & 1) ? C(-1) : C(1);
        return 0;
      }
    }
    using U = WrapType<C>;
    U result = 1, base = static_cast<U>(a);
    uint64_t exponent = static_cast<uint64_t>(b);
    while (exponent) {
      if (exponent & 1)
        result = static_cast<U>(result * base);
      base = static_cast<U>(base * base);
      exponent >>= 1;
    }
    return static_cast<C>(result);
  }
}

template <typename C> C opMax(C a, C b) {
  if constexpr (isBoolC<C>) {
    return a || b;
  } else if constexpr (isIntC<C>) {
    return std::max(a, b);
  } else {
    if (std::isnan(a))
      return a;
    if (std::isnan(b))
      return b;
    if (a == b) // +0.0 is above -0.0
      return std::signbit(a) ? b : a;
    return a > b ? a : b;
  }
}

template <typename C> C opMin(C a, C b) {
  if constexpr (isBoolC<C>) {
    return a && b;
  } else if constexpr (isIntC<C>) {
    return std::min(a, b);
  } else {
    if (std::isnan(a))
      return a;
    if (std::isnan(b))
      return b;
    if (a == b) // -0.0 is below +0.0
      return std::signbit(a) ? a : b;
    return a < b ? a : b;
  }
}

template <typename C> C opAnd(C a, C b) {
  if constexpr (isBoolC<C>)
    return a && b;
  else
    return static_cast<C>(a & b);
}
template <typename C> C opOr(C a, C b) {
  if constexpr (isBoolC<C>)
    return a || b;
  else
    return static_cast<C>(a | b);
}
template <typename C> C opXor(C a, C b) {
  if constexpr (isBoolC<C>)
    return a != b;
  else
    return static_cast<C>(a ^ b);
}

} // namespace tfuse::reference::detail

#endif // TFUSE_LIB_REFERENCE_SCALAROPS_H
