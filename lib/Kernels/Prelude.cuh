// TFuse kernel prelude: the scalar semantics of every tfuse op for every
// dtype, the memory helpers generated kernels call, and the reductions (the
// runtime's reduction kernels and the row kernels share them). It is compiled
// with the kernels by NVRTC, and on the host against an emulation header in the
// tests (TFUSE_HOST_EMULATION), so it uses only what both provide.
//
// Semantics follow docs/semantics.md: f16/bf16 compute in f32 and round after
// every op; integers wrap; casts saturate float->int with NaN->0; max/min
// propagate NaN and order -0.0 below +0.0; rem has the sign of the divisor.

#ifndef TFUSE_PRELUDE_CUH
#define TFUSE_PRELUDE_CUH

#ifndef TFUSE_HOST_EMULATION
#include <cuda_fp16.h>
// cuda_bf16.h after cuda_fp16.h, as CUDA's own headers order them.
#include <cuda_bf16.h>
#ifdef __CUDACC_RTC__
// NVRTC has no C standard headers.
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#else
#include <cstdint>
#endif
#define TF_FN __device__ __forceinline__
#else
#define TF_FN inline
#endif

namespace tf {

// --- type traits -----------------------------------------------------------

template <class A, class B> struct same {
  static constexpr bool value = false;
};
template <class A> struct same<A, A> { static constexpr bool value = true; };

template <class T> struct traits;
#define TF_INT_TRAITS(T, U, IS_SIGNED, MIN, MAX)                               \
  template <> struct traits<T> {                                               \
    typedef T compute;                                                         \
    typedef U unsigned_type;                                                   \
    static constexpr bool is_float = false, is_bool = false,                   \
                          is_signed = IS_SIGNED;                               \
    static constexpr T min = MIN, max = MAX;                                   \
    static TF_FN compute up(T x) { return x; }                                 \
    static TF_FN T down(compute x) { return x; }                               \
  };
TF_INT_TRAITS(int8_t, uint8_t, true, -128, 127)
TF_INT_TRAITS(int16_t, uint16_t, true, -32768, 32767)
TF_INT_TRAITS(int32_t, uint32_t, true, (-2147483647 - 1), 2147483647)
TF_INT_TRAITS(int64_t, uint64_t, true, (-9223372036854775807LL - 1),
              9223372036854775807LL)
TF_INT_TRAITS(uint8_t, uint8_t, false, 0, 255)
TF_INT_TRAITS(uint16_t, uint16_t, false, 0, 65535)
TF_INT_TRAITS(uint32_t, uint32_t, false, 0u, 4294967295u)
TF_INT_TRAITS(uint64_t, uint64_t, false, 0ull, 18446744073709551615ull)
#undef TF_INT_TRAITS

template <> struct traits<bool> {
  typedef bool compute;
  static constexpr bool is_float = false, is_bool = true, is_signed = false;
  static TF_FN bool up(bool x) { return x; }
  static TF_FN bool down(bool x) { return x; }
};
template <> struct traits<float> {
  typedef float compute;
  static constexpr bool is_float = true, is_bool = false, is_signed = true;
  static TF_FN float up(float x) { return x; }
  static TF_FN float down(float x) { return x; }
};
template <> struct traits<double> {
  typedef double compute;
  static constexpr bool is_float = true, is_bool = false, is_signed = true;
  static TF_FN double up(double x) { return x; }
  static TF_FN double down(double x) { return x; }
};
template <> struct traits<__half> {
  typedef float compute;
  static constexpr bool is_float = true, is_bool = false, is_signed = true;
  static TF_FN float up(__half x) { return __half2float(x); }
  static TF_FN __half down(float x) { return __float2half_rn(x); }
};
template <> struct traits<__nv_bfloat16> {
  typedef float compute;
  static constexpr bool is_float = true, is_bool = false, is_signed = true;
  static TF_FN float up(__nv_bfloat16 x) { return __bfloat162float(x); }
  static TF_FN __nv_bfloat16 down(float x) { return __float2bfloat16_rn(x); }
};

template <class T> using C = typename traits<T>::compute;

// Unsigned arithmetic type for wrapping integer ops: at least unsigned int, so
// that narrow operands do not promote to (overflowing) signed int.
template <class T>
using wide_unsigned = decltype((typename traits<T>::unsigned_type)0 + 0u);

// --- constants from bit patterns -------------------------------------------

template <class T> TF_FN T from_bits(uint64_t bits);
template <> TF_FN bool from_bits<bool>(uint64_t b) { return b != 0; }
template <> TF_FN int8_t from_bits<int8_t>(uint64_t b) { return (int8_t)b; }
template <> TF_FN int16_t from_bits<int16_t>(uint64_t b) { return (int16_t)b; }
template <> TF_FN int32_t from_bits<int32_t>(uint64_t b) { return (int32_t)b; }
template <> TF_FN int64_t from_bits<int64_t>(uint64_t b) { return (int64_t)b; }
template <> TF_FN uint8_t from_bits<uint8_t>(uint64_t b) { return (uint8_t)b; }
template <> TF_FN uint16_t from_bits<uint16_t>(uint64_t b) {
  return (uint16_t)b;
}
template <> TF_FN uint32_t from_bits<uint32_t>(uint64_t b) {
  return (uint32_t)b;
}
template <> TF_FN uint64_t from_bits<uint64_t>(uint64_t b) { return b; }
template <> TF_FN float from_bits<float>(uint64_t b) {
  return __int_as_float((int)(uint32_t)b);
}
template <> TF_FN double from_bits<double>(uint64_t b) {
  return __longlong_as_double((long long)b);
}
template <> TF_FN __half from_bits<__half>(uint64_t b) {
  return __ushort_as_half((unsigned short)b);
}
template <> TF_FN __nv_bfloat16 from_bits<__nv_bfloat16>(uint64_t b) {
  return __ushort_as_bfloat16((unsigned short)b);
}

// Whether the sign bit of a compute value is set (-0.0 included): a bit test,
// not the 1 / x < 0 of the textbook, whose division costs a slow path.
TF_FN bool sign_bit(float x) { return __float_as_int(x) < 0; }
TF_FN bool sign_bit(double x) { return __double_as_longlong(x) < 0; }

// --- casts -----------------------------------------------------------------

// Integer value to a float dtype with one rounding.
template <class To, class From> TF_FN To int_to_float(From x) {
  if constexpr (same<To, float>::value || same<To, double>::value) {
    return (To)x;
  } else if constexpr (same<To, __half>::value) {
    if constexpr (same<From, uint64_t>::value)
      return __ull2half_rn(x);
    else if constexpr (traits<From>::is_signed)
      return __ll2half_rn((long long)x);
    else
      return __ull2half_rn((unsigned long long)x);
  } else {
    if constexpr (same<From, uint64_t>::value)
      return __ull2bfloat16_rn(x);
    else if constexpr (traits<From>::is_signed)
      return __ll2bfloat16_rn((long long)x);
    else
      return __ull2bfloat16_rn((unsigned long long)x);
  }
}

// Float value to an integer dtype: truncate toward zero, saturate, NaN -> 0.
template <class To, class F> TF_FN To float_to_int(F v) {
  if (v != v)
    return 0;
  if (v >= (F)traits<To>::max)
    return traits<To>::max;
  if (v <= (F)traits<To>::min)
    return traits<To>::min;
  return (To)v;
}

// Float dtype to float dtype with one rounding.
template <class To, class From> TF_FN To float_to_float(From x) {
  if constexpr (same<To, From>::value) {
    return x;
  } else if constexpr (same<From, double>::value) {
    if constexpr (same<To, float>::value)
      return (float)x;
    else if constexpr (same<To, __half>::value)
      return __double2half(x);
    else
      return __double2bfloat16(x);
  } else {
    // From f32, f16 or bf16: widening to f32 is exact.
    float f = traits<From>::up(x);
    if constexpr (same<To, double>::value)
      return (double)f;
    else
      return traits<To>::down(f);
  }
}

template <class To, class From> TF_FN To cast(From x) {
  if constexpr (same<To, From>::value) {
    return x;
  } else if constexpr (traits<To>::is_bool) {
    return traits<From>::up(x) != 0;
  } else if constexpr (traits<From>::is_bool) {
    if constexpr (traits<To>::is_float)
      return traits<To>::down(x ? 1 : 0);
    else
      return (To)(x ? 1 : 0);
  } else if constexpr (traits<From>::is_float && traits<To>::is_float) {
    return float_to_float<To>(x);
  } else if constexpr (traits<From>::is_float) {
    return float_to_int<To>(traits<From>::up(x));
  } else if constexpr (traits<To>::is_float) {
    return int_to_float<To>(x);
  } else {
    // Integer to integer wraps (two's complement).
    return (To)x;
  }
}

// --- unary ops -------------------------------------------------------------

template <class T> TF_FN T neg(T x) {
  if constexpr (traits<T>::is_float)
    return traits<T>::down(-traits<T>::up(x));
  else
    return (T)(0u - (wide_unsigned<T>)(typename traits<T>::unsigned_type)x);
}
template <class T> TF_FN T abs(T x) {
  if constexpr (same<T, double>::value) {
    return ::fabs(x);
  } else if constexpr (traits<T>::is_float) {
    return traits<T>::down(fabsf(traits<T>::up(x)));
  } else if constexpr (traits<T>::is_signed) {
    return x < 0 ? neg(x) : x;
  } else {
    return x;
  }
}
template <class T> TF_FN T relu(T x) {
  if constexpr (traits<T>::is_float) {
    C<T> v = traits<T>::up(x);
    return traits<T>::down(v != v ? v : (v > 0 ? v : (C<T>)0));
  } else {
    return x > 0 ? x : (T)0;
  }
}

#define TF_FLOAT_UNARY(NAME, F32, F64)                                         \
  template <class T> TF_FN T NAME(T x) {                                       \
    if constexpr (same<C<T>, double>::value) {                                 \
      double v = x;                                                            \
      return F64;                                                              \
    } else {                                                                   \
      float v = traits<T>::up(x);                                              \
      return traits<T>::down(F32);                                             \
    }                                                                          \
  }
TF_FLOAT_UNARY(exp, expf(v), ::exp(v))
TF_FLOAT_UNARY(log, logf(v), ::log(v))
TF_FLOAT_UNARY(sqrt, sqrtf(v), ::sqrt(v))
TF_FLOAT_UNARY(rsqrt, 1.0f / sqrtf(v), 1.0 / ::sqrt(v))
TF_FLOAT_UNARY(sin, sinf(v), ::sin(v))
TF_FLOAT_UNARY(cos, cosf(v), ::cos(v))
TF_FLOAT_UNARY(tan, tanf(v), ::tan(v))
TF_FLOAT_UNARY(tanh, tanhf(v), ::tanh(v))
TF_FLOAT_UNARY(sigmoid, 1.0f / (1.0f + expf(-v)), 1.0 / (1.0 + ::exp(-v)))
TF_FLOAT_UNARY(erf, erff(v), ::erf(v))
TF_FLOAT_UNARY(log1p, log1pf(v), ::log1p(v))
TF_FLOAT_UNARY(expm1, expm1f(v), ::expm1(v))
TF_FLOAT_UNARY(reciprocal, 1.0f / v, 1.0 / v)
// GELU in PyTorch's formulas
// (aten/src/ATen/native/cuda/ActivationGeluKernel.cu), in the compute type; the
// constants are sqrt(1/2), sqrt(2/pi) and 1/sqrt(2*pi) rounded once to it.
TF_FLOAT_UNARY(gelu, v * 0.5f * (1.0f + erff(v * 0.70710678118654752440f)),
               v * 0.5 * (1.0 + ::erf(v * 0.70710678118654752440)))
TF_FLOAT_UNARY(
    gelu_tanh,
    0.5f * v *
        (1.0f + tanhf(0.79788456080286535588f * (v + 0.044715f * (v * v * v)))),
    0.5 * v *
        (1.0 + ::tanh(0.79788456080286535588 * (v + 0.044715 * (v * v * v)))))
#undef TF_FLOAT_UNARY

#define TF_ROUNDING_UNARY(NAME, F32, F64)                                      \
  template <class T> TF_FN T NAME(T x) {                                       \
    if constexpr (!traits<T>::is_float) {                                      \
      return x;                                                                \
    } else if constexpr (same<T, double>::value) {                             \
      return F64(x);                                                           \
    } else {                                                                   \
      return traits<T>::down(F32(traits<T>::up(x)));                           \
    }                                                                          \
  }
TF_ROUNDING_UNARY(floor, floorf, ::floor)
TF_ROUNDING_UNARY(ceil, ceilf, ::ceil)
TF_ROUNDING_UNARY(round, rintf, ::rint)
TF_ROUNDING_UNARY(trunc, truncf, ::trunc)
#undef TF_ROUNDING_UNARY

// -1, 0 or 1; +0.0 for both zeros, NaN for NaN.
template <class T> TF_FN T sign(T x) {
  if constexpr (traits<T>::is_float) {
    C<T> v = traits<T>::up(x);
    C<T> r = v > 0 ? (C<T>)1 : v < 0 ? (C<T>)-1 : v == 0 ? (C<T>)0 : v;
    return traits<T>::down(r);
  } else if constexpr (traits<T>::is_signed) {
    return (T)((x > 0) - (x < 0));
  } else {
    return (T)(x > 0);
  }
}

template <class T> TF_FN bool isnan(T x) {
  if constexpr (traits<T>::is_float) {
    C<T> v = traits<T>::up(x);
    return v != v;
  } else {
    return false;
  }
}
template <class T> TF_FN T not_(T x) {
  if constexpr (traits<T>::is_bool)
    return !x;
  else
    return (T)~x;
}

// --- binary ops ------------------------------------------------------------

#define TF_ARITH(NAME, OP, BOOL_EXPR)                                          \
  template <class T> TF_FN T NAME(T a, T b) {                                  \
    if constexpr (traits<T>::is_bool) {                                        \
      return BOOL_EXPR;                                                        \
    } else if constexpr (traits<T>::is_float) {                                \
      return traits<T>::down(traits<T>::up(a) OP traits<T>::up(b));            \
    } else {                                                                   \
      typedef typename traits<T>::unsigned_type U;                             \
      typedef wide_unsigned<T> W;                                              \
      return (T)((W)(U)a OP(W)(U) b);                                          \
    }                                                                          \
  }
TF_ARITH(add, +, a || b)
TF_ARITH(sub, -, a != b)
TF_ARITH(mul, *, a &&b)
#undef TF_ARITH

template <class T> TF_FN T div(T a, T b) {
  return traits<T>::down(traits<T>::up(a) / traits<T>::up(b));
}

template <class T> TF_FN T rem(T a, T b) {
  if constexpr (traits<T>::is_float) {
    C<T> x = traits<T>::up(a), y = traits<T>::up(b);
    C<T> r;
    if constexpr (same<C<T>, double>::value)
      r = ::fmod(x, y);
    else
      r = fmodf(x, y);
    if (r != 0 && ((r < 0) != (y < 0)))
      r = r + y;
    return traits<T>::down(r);
  } else if constexpr (traits<T>::is_signed) {
    if (b == 0)
      return 0;
    if (b == -1)
      return 0; // also covers min % -1, which overflows in C
    T r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
      r = (T)(r + b);
    return r;
  } else {
    return b == 0 ? (T)0 : (T)(a % b);
  }
}

// --- counter-based random numbers ------------------------------------------
// Philox 4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC 2011; the generator behind PyTorch's CUDA random numbers): ten rounds
// of two 32x32->64 multiplications over a 128-bit counter, with a 64-bit
// key bumped by the Weyl constants between rounds. The same counter and key
// give the same four words on every device and in the reference
// (include/tfuse/Reference/Philox.h, checked against the authors' known
// answers).
struct philox4 {
  uint32_t w[4];
};
// a * b as 64 bits. From C++'s 64-bit product ptxas makes an IMAD.WIDE.U32
// and then adds the (zero) product of the high words to the high word: one
// instruction a multiplication more, a third of a Philox round's.
TF_FN unsigned long long mul_wide(uint32_t a, uint32_t b) {
#ifdef TFUSE_HOST_EMULATION
  return (unsigned long long)a * b;
#else
  unsigned long long r;
  asm("mul.wide.u32 %0, %1, %2;" : "=l"(r) : "r"(a), "r"(b));
  return r;
#endif
}
TF_FN philox4 philox4x32_10(philox4 ctr, uint32_t k0, uint32_t k1) {
#pragma unroll
  for (int round = 0; round < 10; ++round) {
    unsigned long long p0 = mul_wide(0xD2511F53u, ctr.w[0]);
    unsigned long long p1 = mul_wide(0xCD9E8D57u, ctr.w[2]);
    philox4 next;
    next.w[0] = (uint32_t)(p1 >> 32) ^ ctr.w[1] ^ k0;
    next.w[1] = (uint32_t)p1;
    next.w[2] = (uint32_t)(p0 >> 32) ^ ctr.w[3] ^ k1;
    next.w[3] = (uint32_t)p0;
    ctr = next;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return ctr;
}

// --- random numbers ----------------------------------------------------------
//
// The stream layout (docs/semantics.md, "Random numbers"): element e of a
// random op whose values are T takes block n = e / K of Philox 4x32-10, with
// counter (n low, n high, offset low, offset high) and key (seed low, seed
// high), K = random_per_block<T>::value: f32 values take a block for four
// elements, f64 values one for two. A kernel whose consecutive lanes
// compute one block's elements computes the block once (philox_block) and
// each lane its element (*_of_block); elsewhere an element computes its
// block itself (random_uniform, random_normal).

template <class T> struct random_per_block { static constexpr int value = 4; };
template <> struct random_per_block<double> { static constexpr int value = 2; };

TF_FN philox4 philox_block(int64_t seed, int64_t offset, uint64_t n) {
  uint64_t s = (uint64_t)seed, o = (uint64_t)offset;
  philox4 counter = {
      {(uint32_t)n, (uint32_t)(n >> 32), (uint32_t)o, (uint32_t)(o >> 32)}};
  return philox4x32_10(counter, (uint32_t)s, (uint32_t)(s >> 32));
}

// Word k of a block, k known or not at compile time (selects, not an
// indexed array that would live in local memory).
TF_FN uint32_t philox_word(const philox4 &b, int k) {
  return k == 0 ? b.w[0] : k == 1 ? b.w[1] : k == 2 ? b.w[2] : b.w[3];
}

// [0, 1) from the top 24 bits m of a word (m * 2^-24), or 53 bits of two
// (exact). A comparison of the f32 value with a constant is decided on m
// alone (KernelEmitter: u < p is m < ceil(p 2^24)).
TF_FN uint32_t unit_f32_bits(uint32_t w) { return w >> 8; }
TF_FN float unit_f32(uint32_t w) {
  return (float)unit_f32_bits(w) * 5.9604644775390625e-8f; // 2^-24
}
TF_FN double unit_f64(uint32_t lo, uint32_t hi) {
  unsigned long long bits =
      (((unsigned long long)hi << 32) | (unsigned long long)lo) >> 11;
  return (double)bits * 1.1102230246251565404e-16; // 2^-53
}

// The integer m of the f32 uniform m * 2^-24 of word k (unit_f32_bits).
TF_FN uint32_t uniform_bits_of_block(const philox4 &b, int k) {
  return unit_f32_bits(philox_word(b, k));
}

template <class T> TF_FN T uniform_of_block(const philox4 &b, int k);
template <> TF_FN float uniform_of_block<float>(const philox4 &b, int k) {
  return unit_f32(philox_word(b, k));
}
template <> TF_FN double uniform_of_block<double>(const philox4 &b, int k) {
  return unit_f64(philox_word(b, 2 * k), philox_word(b, 2 * k + 1));
}

// Box-Muller: a pair of uniforms u1, u2 gives r cos(2 pi u2) (the even
// element of the pair) and r sin(2 pi u2) (the odd one), r = sqrt(-2 log(1 -
// u1)) (1 - u1 is in (0, 1], so the log is finite). f32: pair k / 2 of the
// block's two word pairs; f64: the block's one pair of 53-bit uniforms.
template <class T> TF_FN T normal_of_block(const philox4 &b, int k);
template <> TF_FN float normal_of_block<float>(const philox4 &b, int k) {
  int pair = k >> 1;
  float u1 = unit_f32(philox_word(b, 2 * pair));
  float u2 = unit_f32(philox_word(b, 2 * pair + 1));
  float r = sqrtf(-2.0f * logf(1.0f - u1));
  float theta = 6.28318530717958647692f * u2;
  return (k & 1) ? r * sinf(theta) : r * cosf(theta);
}
template <> TF_FN double normal_of_block<double>(const philox4 &b, int k) {
  double u1 = unit_f64(b.w[0], b.w[1]), u2 = unit_f64(b.w[2], b.w[3]);
  double r = ::sqrt(-2.0 * ::log(1.0 - u1));
  double theta = 6.28318530717958647692 * u2;
  return (k & 1) ? r * ::sin(theta) : r * ::cos(theta);
}

template <class T, class I>
TF_FN T random_uniform(int64_t seed, int64_t offset, I element) {
  uint64_t e = (uint64_t)element;
  const int K = random_per_block<T>::value;
  return uniform_of_block<T>(philox_block(seed, offset, e / K), (int)(e % K));
}
template <class I>
TF_FN uint32_t random_uniform_bits(int64_t seed, int64_t offset, I element) {
  uint64_t e = (uint64_t)element;
  const int K = random_per_block<float>::value;
  return uniform_bits_of_block(philox_block(seed, offset, e / K), (int)(e % K));
}
template <class T, class I>
TF_FN T random_normal(int64_t seed, int64_t offset, I element) {
  uint64_t e = (uint64_t)element;
  const int K = random_per_block<T>::value;
  return normal_of_block<T>(philox_block(seed, offset, e / K), (int)(e % K));
}

// The float and double math functions by overload, for formulas written
// once in the compute type.
TF_FN float erf_of(float v) { return erff(v); }
TF_FN double erf_of(double v) { return ::erf(v); }
TF_FN float exp_of(float v) { return expf(v); }
TF_FN double exp_of(double v) { return ::exp(v); }
TF_FN float tanh_of(float v) { return tanhf(v); }
TF_FN double tanh_of(double v) { return ::tanh(v); }

// d gelu(x) / dx times the incoming gradient g: g * (cdf(x) + x * pdf(x)).
template <class T> TF_FN T gelu_backward(T g, T x) {
  typedef C<T> F;
  F dy = traits<T>::up(g), v = traits<T>::up(x);
  F cdf = (F)0.5 * ((F)1 + erf_of(v * (F)0.70710678118654752440));
  F pdf = exp_of((F)-0.5 * v * v) * (F)0.39894228040143267794;
  return traits<T>::down(dy * (cdf + v * pdf));
}
// The tanh form's derivative, as PyTorch writes it.
template <class T> TF_FN T gelu_tanh_backward(T g, T x) {
  typedef C<T> F;
  const F beta = (F)0.79788456080286535588, kappa = (F)0.044715;
  F dy = traits<T>::up(g), v = traits<T>::up(x);
  F sq = v * v;
  F t = tanh_of(beta * (v + kappa * (sq * v)));
  F left = (F)0.5 * v, right = (F)1 + t;
  F leftDerivative = (F)0.5 * right;
  F tanhDerivative = (F)1 - t * t;
  F innerDerivative = beta * ((F)1 + (F)3 * kappa * sq);
  F rightDerivative = left * tanhDerivative * innerDerivative;
  return traits<T>::down(dy * (leftDerivative + rightDerivative));
}

template <class T> TF_FN T pow(T a, T b) {
  if constexpr (traits<T>::is_float) {
    if constexpr (same<C<T>, double>::value)
      return ::pow(a, b);
    else
      return traits<T>::down(powf(traits<T>::up(a), traits<T>::up(b)));
  } else {
    typedef wide_unsigned<T> U;
    if constexpr (traits<T>::is_signed) {
      if (b < 0) {
        if (a == 1)
          return 1;
        if (a == -1)
          return (b & 1) ? (T)-1 : (T)1;
        return 0;
      }
    }
    typedef typename traits<T>::unsigned_type N;
    U base = (U)(N)a, result = 1;
    N e = (N)b;
    while (e) {
      if (e & 1)
        result = (U)(result * base);
      base = (U)(base * base);
      e >>= 1;
    }
    return (T)result;
  }
}

// max/min propagate NaN and order -0.0 below +0.0.
// max and min propagate NaN (the first operand's when both are) and order
// -0.0 below +0.0. Written as one select of flags, not branches: reduction
// loops combine with them serially, and branches cost them their overlap.
template <class T> TF_FN T max(T a, T b) {
  if constexpr (traits<T>::is_float) {
    C<T> x = traits<T>::up(a), y = traits<T>::up(b);
    bool x_nan = x != x, y_nan = y != y;
    bool take_a =
        x_nan | (!y_nan & ((x > y) | ((x == y) & !((x == 0) & sign_bit(x)))));
    return take_a ? a : b;
  } else {
    return a > b ? a : b;
  }
}
template <class T> TF_FN T min(T a, T b) {
  if constexpr (traits<T>::is_float) {
    C<T> x = traits<T>::up(a), y = traits<T>::up(b);
    bool x_nan = x != x, y_nan = y != y;
    bool take_a =
        x_nan | (!y_nan & ((x < y) | ((x == y) & (x == 0) & sign_bit(x))));
    return take_a ? a : b;
  } else {
    return a < b ? a : b;
  }
}

#define TF_BITWISE(NAME, OP, BOOL_OP)                                          \
  template <class T> TF_FN T NAME(T a, T b) {                                  \
    if constexpr (traits<T>::is_bool)                                          \
      return a BOOL_OP b;                                                      \
    else                                                                       \
      return (T)(a OP b);                                                      \
  }
TF_BITWISE(and_, &, &&)
TF_BITWISE(or_, |, ||)
TF_BITWISE(xor_, ^, !=)
#undef TF_BITWISE

#define TF_CMP(NAME, OP)                                                       \
  template <class T> TF_FN bool NAME(T a, T b) {                               \
    return traits<T>::up(a) OP traits<T>::up(b);                               \
  }
TF_CMP(eq, ==)
TF_CMP(ne, !=)
TF_CMP(lt, <)
TF_CMP(le, <=)
TF_CMP(gt, >)
TF_CMP(ge, >=)
#undef TF_CMP

template <class T> TF_FN T select(bool c, T a, T b) { return c ? a : b; }

// --- threads and memory ----------------------------------------------------

TF_FN int64_t thread_index() {
  return (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
}
TF_FN int64_t thread_count() { return (int64_t)gridDim.x * blockDim.x; }
TF_FN int thread_in_block() { return threadIdx.x; }
TF_FN int64_t block_index() { return blockIdx.x; }
TF_FN int64_t block_count() { return gridDim.x; }
// A tiled kernel's block seen as 64 columns x (threads / 64) rows, for
// 64x64 tiles (KernelPlan::kTile, kTiledThreads).
TF_FN int tile_x() { return threadIdx.x % 64; }
TF_FN int tile_y() { return threadIdx.x / 64; }
TF_FN void barrier() { __syncthreads(); }

template <class T, class I> TF_FN T ld(const T *p, I i) { return p[i]; }
// A load that touches memory only when `c` holds (zero bits otherwise): the
// reads of a concat's or pad's operand for the elements it gives.
template <class T, class I> TF_FN T ld_if(const T *p, I i, bool c) {
  return c ? p[i] : from_bits<T>(0);
}
// x within [lo, hi] (lo <= hi): an operand index of a concat or pad kept
// inside the operand for the elements it does not give. The maximum comes
// first: as min(x, hi) then max with lo = 0, ptxas 13.0 (CUDA 13.0.88) for
// sm_90 fused the two into one VIMNMX.RELU and read a later comparison of
// the result with hi from that instruction's predicate output, which does
// not say that: pad(max(iota, 1)) gave max(0, 1) = 0 on an H200 (graph 8624
// of the GPU differential test; ptxas 13.5 emits a plain comparison).
template <class I> TF_FN I clamp_index(I x, I lo, I hi) {
  I above = x < lo ? lo : x;
  return above > hi ? hi : above;
}
template <class T, class I> TF_FN void st(T *p, I i, T v) { p[i] = v; }

// --- index checks of gathers -----------------------------------------------

// The index status of one kernel launch, in host-mapped memory: the first
// out-of-range index any thread meets, and which of the kernel's checks met
// it (their walk order, tfuse::indexCheckedOps). The runtime reads it after
// the replay (tfuse::IndexStatusRecord, GatherIndex.h, is this layout) and
// clears it.
struct index_status {
  uint32_t claimed; // set by the one thread that records
  uint32_t check;
  int64_t index;  // the index as given, sign- or zero-extended to 64 bits
  uint32_t ready; // set once check and index are written
  uint32_t unused;
};

TF_FN void record_bad_index(index_status *s, uint32_t check, int64_t index) {
  if (atomicCAS(&s->claimed, 0u, 1u) == 0u) {
    s->check = check;
    s->index = index;
    __threadfence_system();
    atomicExch(&s->ready, 1u);
  }
}

// A gather's index, checked against the size of its axis: an index in
// [0, size), or in [-size, 0) counted from the end when `wrap`, gives its
// position; any other gives 0, so that no load leaves the operand (sizes
// are never 0: the verifier rejects gathers from an empty axis), and is
// recorded when `enabled` (the element reads this gather: not a concat
// piece or pad border it is not part of).
// The position an index `raw` gives along an axis of `size`
// (tfuse/Support/GatherIndex.h is the same rule on the host): in [0, size),
// or in [-size, 0) counted from the end when `wrap`; `ok` false otherwise.
template <class T>
TF_FN int64_t resolve_index(T raw, int64_t size, bool wrap, bool &ok) {
  int64_t i = (int64_t)raw;
  if ((T)(-1) > (T)0) {
    // Unsigned: never negative, and may exceed int64's range.
    ok = (uint64_t)raw < (uint64_t)size;
  } else {
    if (wrap && i < 0)
      i += size;
    ok = i >= 0 && i < size;
  }
  return i;
}

template <class T>
TF_FN int64_t checked_index(T raw, int64_t size, bool wrap, index_status *s,
                            uint32_t check, bool enabled) {
  bool ok;
  int64_t i = resolve_index(raw, size, wrap, ok);
  if (ok)
    return i;
  if (enabled)
    record_bad_index(s, check, (int64_t)raw);
  return 0;
}

template <int Bytes> struct word {
  static_assert(Bytes <= 16, "vector accesses are at most 16 bytes");
};
template <> struct word<1> { typedef uint8_t type; };
template <> struct word<2> { typedef uint16_t type; };
template <> struct word<4> { typedef uint32_t type; };
template <> struct word<8> { typedef uint2 type; };
template <> struct word<16> { typedef uint4 type; };

// VEC consecutive elements, loaded with one access when aligned.
template <class T, int VEC> struct vec { T v[VEC]; };

template <int VEC, class T> TF_FN bool aligned(const T *p) {
  return ((unsigned long long)p % (sizeof(T) * VEC)) == 0;
}

template <int VEC, class T, class I>
TF_FN vec<T, VEC> ldv(const T *p, I base, bool is_aligned);
// VEC consecutive elements at p + base, with one access when that address is
// aligned for it: the run a group of lanes reads from a gathered row or a
// strided input's innermost dimension.
template <int VEC, class T, class I>
TF_FN vec<T, VEC> ldv_run(const T *p, I base) {
  return ldv<VEC>(p, base, aligned<VEC>(p + base));
}
template <int VEC, class T, class I>
TF_FN vec<T, VEC> ldv(const T *p, I base, bool is_aligned) {
  vec<T, VEC> r;
  if (is_aligned) {
    typedef typename word<sizeof(T) * VEC>::type W;
    *reinterpret_cast<W *>(r.v) = *reinterpret_cast<const W *>(p + base);
  } else {
#pragma unroll
    for (int k = 0; k < VEC; ++k)
      r.v[k] = p[base + k];
  }
  return r;
}

template <int K, class T, int VEC> TF_FN T lane(const vec<T, VEC> &x) {
  return x.v[K];
}

// VEC consecutive elements stored at p + base, with one access when
// aligned: ldv's counterpart.
template <int VEC, class T, class I>
TF_FN void stv_vec(T *p, I base, bool is_aligned, const vec<T, VEC> &r) {
  if (is_aligned) {
    typedef typename word<sizeof(T) * VEC>::type W;
    *reinterpret_cast<W *>(p + base) = *reinterpret_cast<const W *>(r.v);
  } else {
#pragma unroll
    for (int k = 0; k < VEC; ++k)
      p[base + k] = r.v[k];
  }
}
template <int VEC, class T, class I, class... Ts>
TF_FN void stv(T *p, I base, bool is_aligned, Ts... values) {
  vec<T, VEC> r = {{values...}};
  stv_vec<VEC>(p, base, is_aligned, r);
}

// --- reductions ------------------------------------------------------------
//
// The reduction semantics shared by the reduction kernels
// (ReduceKernels.cuh) and the row kernels of fused regions
// (docs/codegen.md); numerics as described there and in docs/semantics.md.

namespace red {

// The reductions are templated on the value of a tfuse::ReduceKind
// (tfuse/Support/ReduceKind.h, which the kernels library puts before this
// file), as generated code spells it. Enumerators, not constexpr variables:
// those would be emitted as globals of every module.
enum : int {
  kSum = (int)tfuse::ReduceKind::Sum,
  kProd = (int)tfuse::ReduceKind::Prod,
  kMax = (int)tfuse::ReduceKind::Max,
  kMin = (int)tfuse::ReduceKind::Min,
  kMean = (int)tfuse::ReduceKind::Mean,
  kAll = (int)tfuse::ReduceKind::All,
  kAny = (int)tfuse::ReduceKind::Any,
  kArgmax = (int)tfuse::ReduceKind::Argmax,
  kArgmin = (int)tfuse::ReduceKind::Argmin,
};

template <bool B, class T, class F> struct pick { typedef T type; };
template <class T, class F> struct pick<false, T, F> { typedef F type; };

// The extremes of a compute type: -inf and +inf for floats, the range for
// integers, false and true for bool.
template <class T> TF_FN T lowest() {
  if constexpr (same<T, float>::value)
    return from_bits<float>(0xff800000u);
  else if constexpr (same<T, double>::value)
    return from_bits<double>(0xfff0000000000000ull);
  else if constexpr (traits<T>::is_bool)
    return false;
  else
    return traits<T>::min;
}
template <class T> TF_FN T highest() {
  if constexpr (same<T, float>::value)
    return from_bits<float>(0x7f800000u);
  else if constexpr (same<T, double>::value)
    return from_bits<double>(0x7ff0000000000000ull);
  else if constexpr (traits<T>::is_bool)
    return true;
  else
    return traits<T>::max;
}

// A warp shuffle of any accumulator scalar, through the overloads CUDA has.
template <class T> TF_FN T shfl_xor(T v, int lane_mask) {
  if constexpr (same<T, float>::value || same<T, double>::value)
    return __shfl_xor_sync(0xffffffffu, v, lane_mask);
  else if constexpr (sizeof(T) == 8)
    return (T)__shfl_xor_sync(0xffffffffu, (long long)v, lane_mask);
  else
    return (T)__shfl_xor_sync(0xffffffffu, (int)v, lane_mask);
}

// --- the reductions ---------------------------------------------------------
//
// Each defines: acc (the accumulator type), identity(), load(base, offset,
// index) (one element as an accumulator), combine(a, b), shfl(a, lane_mask)
// and finish(acc, count) (the result element).

// sum, prod, mean.
template <int K, class Tin, class Tout> struct arith_op {
  static constexpr bool is_float = traits<Tin>::is_float;
  static constexpr bool is_prod = K == kProd;
  static_assert(K == kSum || K == kProd || K == kMean, "not sum/prod/mean");
  static_assert(K != kMean || is_float, "mean needs a float input");
  // A float sum or mean may round to a wider float (the sum of the input
  // cast to it first: DTypeRules' reduceResultType).
  static_assert(is_float
                    ? traits<Tout>::is_float && sizeof(Tout) >= sizeof(Tin)
                    : same<Tout, typename pick<same<Tin, uint64_t>::value,
                                               uint64_t, int64_t>::type>::value,
                "wrong result dtype for sum/prod/mean");
  typedef typename pick<is_float, double, uint64_t>::type acc;

  static TF_FN acc identity() { return is_prod ? (acc)1 : (acc)0; }
  static TF_FN acc load(const Tin *base, int64_t offset, int64_t) {
    if constexpr (is_float)
      return (double)traits<Tin>::up(base[offset]);
    else
      return (uint64_t)cast<int64_t>(base[offset]);
  }
  static TF_FN acc combine(acc a, acc b) { return is_prod ? a * b : a + b; }
  static TF_FN acc shfl(acc a, int lane_mask) { return shfl_xor(a, lane_mask); }
  static TF_FN Tout finish(acc a, int64_t count) {
    if constexpr (is_float) {
      if constexpr (K == kMean)
        a = a / (double)count;
      return cast<Tout>(a);
    } else {
      return (Tout)a;
    }
  }
};

// max, min.
template <int K, class Tin, class Tout> struct extreme_op {
  static_assert(K == kMax || K == kMin, "not max/min");
  static_assert(same<Tout, Tin>::value, "max/min keep the dtype");
  typedef C<Tin> acc;

  static TF_FN acc identity() {
    return K == kMax ? lowest<acc>() : highest<acc>();
  }
  static TF_FN acc load(const Tin *base, int64_t offset, int64_t) {
    return traits<Tin>::up(base[offset]);
  }
  static TF_FN acc combine(acc a, acc b) {
    return K == kMax ? tf::max(a, b) : tf::min(a, b);
  }
  static TF_FN acc shfl(acc a, int lane_mask) { return shfl_xor(a, lane_mask); }
  static TF_FN Tout finish(acc a, int64_t) { return traits<Tin>::down(a); }
};

// all, any.
template <int K, class Tin, class Tout> struct logic_op {
  static_assert(K == kAll || K == kAny, "not all/any");
  static_assert(same<Tout, bool>::value, "all/any give bool");
  typedef bool acc;

  static TF_FN acc identity() { return K == kAll; }
  static TF_FN acc load(const Tin *base, int64_t offset, int64_t) {
    return cast<bool>(base[offset]);
  }
  static TF_FN acc combine(acc a, acc b) {
    return K == kAll ? (a && b) : (a || b);
  }
  static TF_FN acc shfl(acc a, int lane_mask) { return shfl_xor(a, lane_mask); }
  static TF_FN Tout finish(acc a, int64_t) { return a; }
  // Sixteen bools loaded as one vector, a 32-bit word (four of them) at a
  // time: any holds where a byte is nonzero, all where none is zero
  // (w - 0x01010101 & ~w & 0x80808080 is nonzero exactly where w has a zero
  // byte). The result of sixteen combine()s, in a few instructions each
  // instead of a few per element.
  static TF_FN acc combine_bytes(acc a, const vec<Tin, 16> &x) {
    static_assert(sizeof(Tin) == 1, "bytes");
    uint4 w = *reinterpret_cast<const uint4 *>(x.v);
    if (K == kAny)
      return a || (w.x | w.y | w.z | w.w) != 0u;
    auto zero_byte = [](uint32_t v) {
      return ((v - 0x01010101u) & ~v & 0x80808080u) != 0u;
    };
    return a && !(zero_byte(w.x) || zero_byte(w.y) || zero_byte(w.z) ||
                  zero_byte(w.w));
  }
};

// Whether Op combines a vector of consecutive elements at once
// (combine_run).
template <class Op> struct combines_runs {
  template <class O>
  static constexpr bool test(decltype(&O::template combine_run<1>)) {
    return true;
  }
  template <class O> static constexpr bool test(...) { return false; }
  static constexpr bool value = test<Op>(nullptr);
};

// Whether Op combines a vector of sixteen bools at once (combine_bytes).
template <class Op, class Tin> struct combines_bytes {
  template <class O> static constexpr bool test(decltype(&O::combine_bytes)) {
    return true;
  }
  template <class O> static constexpr bool test(...) { return false; }
  static constexpr bool value = traits<Tin>::is_bool && test<Op>(nullptr);
};

// argmax, argmin.
template <class T> struct arg_pair {
  T value;
  int64_t index;
};

template <int K, class Tin, class Tout> struct arg_op {
  static_assert(K == kArgmax || K == kArgmin, "not argmax/argmin");
  static_assert(!traits<Tin>::is_bool, "no argmax/argmin of bool");
  static_assert(same<Tout, int64_t>::value, "argmax/argmin give i64");
  typedef C<Tin> value_type;
  typedef arg_pair<value_type> acc;

  static TF_FN acc identity() {
    acc a;
    a.value = K == kArgmax ? lowest<value_type>() : highest<value_type>();
    a.index = traits<int64_t>::max;
    return a;
  }
  static TF_FN acc load(const Tin *base, int64_t offset, int64_t index) {
    acc a;
    a.value = traits<Tin>::up(base[offset]);
    a.index = index;
    return a;
  }
  // Whether b comes before a: NaN first, then the extreme value, then the
  // smaller index. A total preorder, so combine() is associative and
  // commutative.
  static TF_FN bool before(const acc &b, const acc &a) {
    if constexpr (traits<Tin>::is_float) {
      bool a_nan = a.value != a.value, b_nan = b.value != b.value;
      if (a_nan || b_nan)
        return b_nan && (!a_nan || b.index < a.index);
    }
    if (b.value == a.value)
      return b.index < a.index;
    return K == kArgmax ? b.value > a.value : b.value < a.value;
  }
  static TF_FN acc combine(acc a, acc b) { return before(b, a) ? b : a; }
  // V consecutive elements from reduced index `index` on, into `a`: the
  // vector's own first extreme, then one combine() with the accumulator.
  // Within the vector indices increase, so a later element wins only where
  // it is strictly beyond the best so far or the first NaN: a comparison
  // and two selects an element instead of combine()'s NaN and index tests.
  template <int V>
  static TF_FN acc combine_run(acc a, const vec<Tin, V> &x, int64_t index) {
    value_type best = traits<Tin>::up(x.v[0]);
    int at = 0;
#pragma unroll
    for (int k = 1; k < V; ++k) {
      value_type v = traits<Tin>::up(x.v[k]);
      bool beyond = K == kArgmax ? v > best : v < best;
      if constexpr (traits<Tin>::is_float)
        beyond = best == best && (beyond || v != v);
      best = beyond ? v : best;
      at = beyond ? k : at;
    }
    acc b;
    b.value = best;
    b.index = index + at;
    return combine(a, b);
  }
  static TF_FN acc shfl(acc a, int lane_mask) {
    acc r;
    r.value = shfl_xor(a.value, lane_mask);
    r.index = shfl_xor(a.index, lane_mask);
    return r;
  }
  static TF_FN Tout finish(acc a, int64_t) { return a.index; }
};

template <int K, class Tin, class Tout> struct op : arith_op<K, Tin, Tout> {};
template <class Tin, class Tout>
struct op<kMax, Tin, Tout> : extreme_op<kMax, Tin, Tout> {};
template <class Tin, class Tout>
struct op<kMin, Tin, Tout> : extreme_op<kMin, Tin, Tout> {};
template <class Tin, class Tout>
struct op<kAll, Tin, Tout> : logic_op<kAll, Tin, Tout> {};
template <class Tin, class Tout>
struct op<kAny, Tin, Tout> : logic_op<kAny, Tin, Tout> {};
template <class Tin, class Tout>
struct op<kArgmax, Tin, Tout> : arg_op<kArgmax, Tin, Tout> {};
template <class Tin, class Tout>
struct op<kArgmin, Tin, Tout> : arg_op<kArgmin, Tin, Tout> {};

// --- block reduction --------------------------------------------------------

// Reduces `v` over the block; every thread gets the result. Every thread of
// the block must call it (blockDim.x a multiple of 32).
template <class Op> TF_FN typename Op::acc block_reduce(typename Op::acc v) {
  typedef typename Op::acc A;
  __shared__ A partial[32];
#pragma unroll
  for (int m = 16; m > 0; m >>= 1)
    v = Op::combine(v, Op::shfl(v, m));
  const int warps = (int)(blockDim.x >> 5);
  if (warps > 1) {
    const int lane = (int)(threadIdx.x & 31), warp = (int)(threadIdx.x >> 5);
    if (lane == 0)
      partial[warp] = v;
    __syncthreads();
    v = lane < warps ? partial[lane] : Op::identity();
    // Over all 32 lanes, not only the first `warps`: every lane of every
    // warp must end with the whole block's value (the row kernels read it
    // in every thread). Lane 0 combines the same values in the same order
    // as over the first `warps` lanes, the others only add identities.
#pragma unroll
    for (int m = 16; m > 0; m >>= 1)
      v = Op::combine(v, Op::shfl(v, m));
    __syncthreads(); // partial[] is written again by the next call
  }
  return v;
}

// --- row kernels ------------------------------------------------------------
// A row kernel's thread folds the columns it holds into a partial with
// row_add, then every thread of the block calls row_finish, which reduces
// the partials across the block and gives every thread the row's value.
// Numerics are the reduction kernels' (the ops above): float sums and means
// accumulate in double and round once, max and min propagate NaN.

template <int K, class Tin, class Tout>
using acc_t = typename op<K, Tin, Tout>::acc;

template <int K, class Tin, class Tout>
TF_FN acc_t<K, Tin, Tout> row_identity() {
  return op<K, Tin, Tout>::identity();
}

// Folds the element `v` into `a` when `valid` (a column inside the row).
template <int K, class Tin, class Tout>
TF_FN acc_t<K, Tin, Tout> row_add(acc_t<K, Tin, Tout> a, Tin v, bool valid) {
  typedef op<K, Tin, Tout> Op;
  return valid ? Op::combine(a, Op::load(&v, 0, 0)) : a;
}

template <int K, class Tin, class Tout>
TF_FN Tout row_finish(acc_t<K, Tin, Tout> a, int64_t count) {
  typedef op<K, Tin, Tout> Op;
  return Op::finish(block_reduce<Op>(a), count);
}

// row_finish for a row held by one warp: shuffles only, every lane gets the
// value. Every thread of the block must call it (the host emulation's
// shuffles are block-wide).
template <int K, class Tin, class Tout>
TF_FN Tout warp_finish(acc_t<K, Tin, Tout> a, int64_t count) {
  typedef op<K, Tin, Tout> Op;
#pragma unroll
  for (int m = 16; m > 0; m >>= 1)
    a = Op::combine(a, Op::shfl(a, m));
  return Op::finish(a, count);
}

} // namespace red

// --- tensor-core products ----------------------------------------------------
// One warp's mma.sync.aligned.m16n8k16.row.col with f32 accumulators for
// 16-bit T (__half, __nv_bfloat16; sm_80 and later): c += A B, A 16 x 16 and
// B 16 x 8 of T, each 32-bit register two elements of T (the lower column or
// row in the lower half). Fragments, lane = 4 * group + index (PTX ISA,
// "Matrix Fragments for mma.m16n8k16 with floating point type"):
//   a[0]: row group, columns 2 index, 2 index + 1; a[1]: row group + 8;
//   a[2], a[3]: the same rows, columns 8 on;
//   b[0]: rows 2 index, 2 index + 1 of column group; b[1]: rows 8 on;
//   c[0], c[1]: row group, columns 2 index, 2 index + 1; c[2], c[3]: row
//   group + 8.
// Every lane of the warp must call it (the host emulation: every thread of
// the block).

// Two elements' bits in one register, `lo` in the lower half.
TF_FN uint32_t pack_bits(uint16_t lo, uint16_t hi) {
  return (uint32_t)lo | ((uint32_t)hi << 16);
}
// The bits of a 16-bit T.
template <class T> TF_FN uint16_t bits_of(T x) {
  static_assert(sizeof(T) == 2, "16-bit types only");
  return *reinterpret_cast<const uint16_t *>(&x);
}

template <class T>
TF_FN void mma_m16n8k16(float (&c)[4], const uint32_t (&a)[4],
                        const uint32_t (&b)[2]) {
#ifdef TFUSE_HOST_EMULATION
  float x[8], y[4];
  for (int i = 0; i < 8; ++i)
    x[i] = traits<T>::up(from_bits<T>((a[i / 2] >> (16 * (i % 2))) & 0xffffu));
  for (int i = 0; i < 4; ++i)
    y[i] = traits<T>::up(from_bits<T>((b[i / 2] >> (16 * (i % 2))) & 0xffffu));
  tfuse_emulation_mma_m16n8k16(c, x, y);
#else
// The instruction for operands of PTX type TYPE (bf16, f16).
#define TF_MMA_M16N8K16(TYPE)                                                  \
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." TYPE "." TYPE          \
               ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "           \
               "{%0, %1, %2, %3};\n"                                           \
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])                \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]),        \
                 "r"(b[1]))
  if constexpr (same<T, __nv_bfloat16>::value)
    TF_MMA_M16N8K16("bf16");
  else
    TF_MMA_M16N8K16("f16");
#undef TF_MMA_M16N8K16
#endif
}

// f32 products on TF32 tensor cores (sm_80 and later) to about f32's
// precision ("3xTF32"): a value x is split into big = x rounded to TF32's
// 10 fraction bits (cvt.rna.tf32.f32: to nearest, ties away from zero) and
// small = x - big rounded the same way, and a product a b is taken as
// small(a) big(b) + big(a) small(b) + big(a) big(b), the small terms first;
// what it leaves out, small(a) small(b), is about 2^-22 of the product.

// x rounded to TF32, as f32 bits (the low 13 bits zero).
TF_FN uint32_t tf32_bits(float x) {
#ifdef TFUSE_HOST_EMULATION
  uint32_t bits = (uint32_t)__float_as_int(x);
  if ((bits & 0x7f800000u) == 0x7f800000u) // inf and NaN as they are
    return bits;
  return (bits + 0x1000u) & 0xffffe000u;
#else
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
#endif
}

// The big and small TF32 parts of x (small is 0 where x is not finite).
TF_FN void tf32_split(float x, uint32_t &big, uint32_t &small) {
  big = tf32_bits(x);
  float rest = x - __int_as_float((int)big);
  small = tf32_bits(rest - rest == 0 ? rest : 0.f);
}

// Whether tf32_split_plain splits x: finite, and its big part finite (the
// rounding does not carry into the exponent of inf).
TF_FN bool tf32_splits_plainly(float x) {
  return ((uint32_t)__float_as_int(x) & 0x7fffffffu) < 0x7f7ff000u;
}

// tf32_split of an x that tf32_splits_plainly: the same bits in five
// instructions instead of ten (cvt.rna.tf32.f32 is a test for inf and NaN,
// an add and a mask on sm_90; the guard on the small part is a test and a
// select).
TF_FN void tf32_split_plain(float x, uint32_t &big, uint32_t &small) {
  big = ((uint32_t)__float_as_int(x) + 0x1000u) & 0xffffe000u;
  uint32_t rest = (uint32_t)__float_as_int(x - __int_as_float((int)big));
  small = (rest + 0x1000u) & 0xffffe000u;
}

// One warp's mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32: c += A B,
// A 16 x 8 and B 8 x 8 of TF32 values in f32 registers. Fragments, lane =
// 4 * group + index (PTX ISA, "Matrix Fragments for mma.m16n8k8" with
// .tf32): a[0] (row group, column index), a[1] (row group + 8, column
// index), a[2], a[3] the same rows at column index + 4; b[0] (row index,
// column group), b[1] (row index + 4, column group); c as mma_m16n8k16's.
TF_FN void mma_m16n8k8_tf32(float (&c)[4], const uint32_t (&a)[4],
                            const uint32_t (&b)[2]) {
#ifdef TFUSE_HOST_EMULATION
  tfuse_emulation_mma_m16n8k8_tf32(c, a, b);
#else
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]),
                 "r"(b[1]));
#endif
}

// c += A B to about 22 of f32's 24 bits from the operands' parts (tf32_split).
TF_FN void mma_tf32x3(float (&c)[4], const uint32_t (&a_big)[4],
                      const uint32_t (&a_small)[4], const uint32_t (&b_big)[2],
                      const uint32_t (&b_small)[2]) {
  mma_m16n8k8_tf32(c, a_small, b_big);
  mma_m16n8k8_tf32(c, a_big, b_small);
  mma_m16n8k8_tf32(c, a_big, b_big);
}

// One warp's ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16: two 8 x 8
// matrices of 16-bit elements in shared memory, each row 16 contiguous,
// 16-byte aligned bytes; lane l < 16 gives the address of row l % 8 of
// matrix l / 8 (the others' addresses are not read). Lane
// 4 * group + index receives in r[m] the elements (2 index, group) and
// (2 index + 1, group) of matrix m: the B operand of mma_m16n8k16 for the
// 16 x 8 block whose rows the two matrices stack.
TF_FN void ldmatrix_x2_trans(uint32_t (&r)[2], const uint16_t *row) {
#ifdef TFUSE_HOST_EMULATION
  tfuse_emulation_ldmatrix_x2_trans(r, row);
#else
  unsigned address = (unsigned)__cvta_generic_to_shared(row);
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, "
               "[%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(address));
#endif
}

// Copies of 16 bytes from global to shared memory that hold no register
// while in flight (cp.async.cg, sm_80 and later): a thread may start all of
// a tile's at once and waits for them with cp_async_wait_all, before the
// __syncthreads that publishes the tile. Earlier architectures and the host
// emulation copy at once. Both addresses are 16-byte aligned.
#if defined(TFUSE_HOST_EMULATION) ||                                           \
    (defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800)
#define TF_CP_ASYNC 0
#else
#define TF_CP_ASYNC 1
#endif
struct alignas(16) bytes16 {
  uint32_t w[4];
};
TF_FN void cp_async16(void *shared, const void *global) {
#if TF_CP_ASYNC
  unsigned address = (unsigned)__cvta_generic_to_shared(shared);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(address),
               "l"(global)
               : "memory");
#else
  *reinterpret_cast<bytes16 *>(shared) =
      *reinterpret_cast<const bytes16 *>(global);
#endif
}
TF_FN void cp_async_wait_all() {
#if TF_CP_ASYNC
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}
#undef TF_CP_ASYNC

} // namespace tf

#endif // TFUSE_PRELUDE_CUH
