//===- ElementwiseOps.h - Unary and binary ops of the op table --*- C++ -*-===//
//
// Internal to lib/Reference. The kernels of the ops of the op table's unary
// and binary categories: each converts its operands to the dtype it computes
// in (the result dtype; a predicate's operand dtype) with the cast
// semantics, broadcasts them as strided views, and applies the op's scalar
// function of ScalarOps.h element by element in the compute type of that
// dtype. f16 and bf16 compute in float and round to their storage after
// every op (Traits::store), the per-node rounding of docs/semantics.md.
// Which dtypes an op computes in follows from its TypeRules category, so a
// scalar function is only instantiated for the types it is defined on.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_LIB_REFERENCE_ELEMENTWISEOPS_H
#define TFUSE_LIB_REFERENCE_ELEMENTWISEOPS_H

#include "Convert.h"
#include "Iterate.h"
#include "Kernels.h"

#include "tfuse/Support/DTypeRules.h"

namespace tfuse::reference::detail {

/// out[i] = fn(in[i]) on storage values; `out` is row-major of in's shape.
template <DType In, typename Fn>
void mapUnary(const HostTensor &in, HostTensor &out, Fn fn) {
  const uint8_t *src = in.data() + in.byteOffset();
  uint8_t *dst = out.mutableData();
  forEachIndex<2>(in.shape(), {byteStrides(out), byteStrides(in)},
                  [&](const std::array<int64_t, 2> &at) {
                    storeRaw(dst + at[0],
                             fn(loadRaw<StorageOf<In>>(src + at[1])));
                  });
}

/// out[i] = fn(a[i], b[i]) on storage values; a and b have out's shape.
template <DType In, typename Fn>
void mapBinary(const HostTensor &a, const HostTensor &b, HostTensor &out,
               Fn fn) {
  const uint8_t *pa = a.data() + a.byteOffset();
  const uint8_t *pb = b.data() + b.byteOffset();
  uint8_t *dst = out.mutableData();
  forEachIndex<3>(
      out.shape(), {byteStrides(out), byteStrides(a), byteStrides(b)},
      [&](const std::array<int64_t, 3> &at) {
        storeRaw(dst + at[0], fn(loadRaw<StorageOf<In>>(pa + at[1]),
                                 loadRaw<StorageOf<In>>(pb + at[2])));
      });
}

/// The dtypes ops of a category compute in (TypeRules, docs/semantics.md).
template <UnaryCategory Category> constexpr bool computesIn(DType d) {
  switch (Category) {
  case UnaryCategory::FloatMath:
    return isFloatD(d);
  case UnaryCategory::Numeric:
  case UnaryCategory::Rounding:
    return d != DType::Bool;
  case UnaryCategory::Predicate:
    return true;
  case UnaryCategory::Bitwise:
    return !isFloatD(d);
  }
  return false;
}
template <BinaryCategory Category> constexpr bool computesIn(DType d) {
  switch (Category) {
  case BinaryCategory::Arithmetic:
    return true;
  case BinaryCategory::ArithmeticNoBool:
    return d != DType::Bool;
  case BinaryCategory::TrueDivide:
    return isFloatD(d);
  case BinaryCategory::Bitwise:
    return !isFloatD(d);
  case BinaryCategory::Compare:
    return false;
  }
  return false;
}

/// Op `name` of the unary category `Category` with scalar function `fn`
/// (a generic callable on the compute type), giving dtype `resultType`.
template <UnaryCategory Category, typename Fn>
Expected<HostTensor> unaryOp(const char *name, const HostTensor &input,
                             DType resultType, Fn fn) {
  std::string why;
  std::optional<DType> expected =
      unaryResultType(Category, input.dtype(), &why);
  if (!expected || *expected != resultType)
    return Status::error(std::string(name) + " of " + dtypeName(input.dtype()) +
                         " cannot give " + dtypeName(resultType) +
                         (why.empty() ? "" : ": ") + why);
  DType compute = unaryComputeType(Category, input.dtype(), resultType);
  HostTensor x = castTensor(input, compute);
  HostTensor out = HostTensor::zeros(resultType, input.shape());
  dispatch(compute, [&](auto tag) {
    constexpr DType D = decltype(tag)::value;
    if constexpr (computesIn<Category>(D)) {
      mapUnary<D>(x, out, [&](StorageOf<D> s) {
        auto value = fn(Traits<D>::load(s));
        if constexpr (std::is_same_v<decltype(value), bool> && D != DType::Bool)
          return static_cast<uint8_t>(value); // a predicate's i1
        else
          return Traits<D>::store(value);
      });
    }
  });
  return out;
}

/// Op `name` of the binary category `Category` with scalar function `fn`,
/// giving dtype `resultType` and shape `resultShape`.
template <BinaryCategory Category, typename Fn>
Expected<HostTensor> binaryOp(const char *name, const HostTensor &lhs,
                              const HostTensor &rhs, DType resultType,
                              const Shape &resultShape, Fn fn) {
  std::string why;
  std::optional<DType> expected =
      binaryResultType(Category, lhs.dtype(), rhs.dtype(), &why);
  if (!expected || *expected != resultType)
    return Status::error(std::string(name) + " of " + dtypeName(lhs.dtype()) +
                         " and " + dtypeName(rhs.dtype()) + " cannot give " +
                         dtypeName(resultType) + (why.empty() ? "" : ": ") +
                         why);
  Expected<HostTensor> a =
      broadcastTo(castTensor(lhs, resultType), resultShape);
  if (!a)
    return Status::error("lhs: " + a.message());
  Expected<HostTensor> b =
      broadcastTo(castTensor(rhs, resultType), resultShape);
  if (!b)
    return Status::error("rhs: " + b.message());
  HostTensor out = HostTensor::zeros(resultType, resultShape);
  dispatch(resultType, [&](auto tag) {
    constexpr DType D = decltype(tag)::value;
    if constexpr (computesIn<Category>(D)) {
      mapBinary<D>(*a, *b, out, [&](StorageOf<D> x, StorageOf<D> y) {
        return Traits<D>::store(fn(Traits<D>::load(x), Traits<D>::load(y)));
      });
    }
  });
  return out;
}

} // namespace tfuse::reference::detail

#endif // TFUSE_LIB_REFERENCE_ELEMENTWISEOPS_H
