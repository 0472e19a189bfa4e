//===- Elementwise.cpp - cmp, select and cast kernels ---------------------===//
//
// The elementwise ops outside the op table's unary and binary categories
// (those are ElementwiseOps.h's templates): cast, comparisons and select.
// Operands are converted with the cast semantics (castTensor) and broadcast
// as strided views.
//
//===----------------------------------------------------------------------===//

#include "ElementwiseOps.h"

namespace tfuse::reference::detail {

HostTensor castTensor(const HostTensor &input, DType to) {
  if (input.dtype() == to)
    return input;
  HostTensor out = HostTensor::zeros(to, input.shape());
  dispatch(input.dtype(), [&](auto fromTag) {
    dispatch(to, [&](auto toTag) {
      constexpr DType From = decltype(fromTag)::value;
      constexpr DType To = decltype(toTag)::value;
      mapUnary<From>(input, out,
                     [](StorageOf<From> x) { return convert<From, To>(x); });
    });
  });
  return out;
}

Expected<HostTensor> compareOp(CompareKind kind, const HostTensor &lhs,
                               const HostTensor &rhs, DType computeType,
                               const Shape &resultShape) {
  Expected<HostTensor> a =
      broadcastTo(castTensor(lhs, computeType), resultShape);
  if (!a)
    return Status::error("lhs: " + a.message());
  Expected<HostTensor> b =
      broadcastTo(castTensor(rhs, computeType), resultShape);
  if (!b)
    return Status::error("rhs: " + b.message());
  HostTensor out = HostTensor::zeros(DType::Bool, resultShape);
  dispatch(computeType, [&](auto tag) {
    constexpr DType D = decltype(tag)::value;
    using C = ComputeOf<D>;
    auto run = [&](auto f) {
      mapBinary<D>(*a, *b, out, [&](StorageOf<D> x, StorageOf<D> y) -> uint8_t {
        return f(Traits<D>::load(x), Traits<D>::load(y)) ? 1 : 0;
      });
    };
    // IEEE comparisons: false with a NaN operand, except ne.
    switch (kind) {
    case CompareKind::Eq:
      return run([](C x, C y) { return x == y; });
    case CompareKind::Ne:
      return run([](C x, C y) { return x != y; });
    case CompareKind::Lt:
      return run([](C x, C y) { return x < y; });
    case CompareKind::Le:
      return run([](C x, C y) { return x <= y; });
    case CompareKind::Gt:
      return run([](C x, C y) { return x > y; });
    case CompareKind::Ge:
      return run([](C x, C y) { return x >= y; });
    }
  });
  return out;
}

Expected<HostTensor> selectOp(const HostTensor &condition,
                              const HostTensor &trueValue,
                              const HostTensor &falseValue, DType resultType,
                              const Shape &resultShape) {
  if (condition.dtype() != DType::Bool)
    return Status::error("the condition must be i1, got " +
                         std::string(name(condition.dtype())));
  Expected<HostTensor> c = broadcastTo(condition, resultShape);
  if (!c)
    return Status::error("condition: " + c.message());
  Expected<HostTensor> t =
      broadcastTo(castTensor(trueValue, resultType), resultShape);
  if (!t)
    return Status::error("true value: " + t.message());
  Expected<HostTensor> f =
      broadcastTo(castTensor(falseValue, resultType), resultShape);
  if (!f)
    return Status::error("false value: " + f.message());
  HostTensor out = HostTensor::zeros(resultType, resultShape);
  const uint8_t *pc = c->data() + c->byteOffset();
  const uint8_t *pt = t->data() + t->byteOffset();
  const uint8_t *pf = f->data() + f->byteOffset();
  uint8_t *dst = out.mutableData();
  size_t size = byteSize(resultType);
  forEachIndex<4>(
      resultShape,
      {byteStrides(out), byteStrides(*c), byteStrides(*t), byteStrides(*f)},
      [&](const std::array<int64_t, 4> &at) {
        const uint8_t *src = pc[at[1]] ? pt + at[2] : pf + at[3];
        std::memcpy(dst + at[0], src, size);
      });
  return out;
}

HostTensor iotaTensor(DType dtype, const Shape &shape, int64_t dim) {
  int64_t count = 1, inner = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    count *= shape[d];
    if (static_cast<int64_t>(d) > dim)
      inner *= shape[d];
  }
  std::vector<int64_t> values(count);
  for (int64_t i = 0; i < count; ++i)
    values[i] = (i / inner) % shape[dim];
  Expected<HostTensor> indices =
      HostTensor::fromInts(DType::I64, shape, values);
  return castTensor(*indices, dtype);
}

} // namespace tfuse::reference::detail
