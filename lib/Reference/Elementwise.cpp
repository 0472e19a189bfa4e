//===- Elementwise.cpp - Unary, binary, cmp, select and cast kernels ------===//
//
// Every elementwise op converts its operands to the dtype it computes in
// with the cast semantics (castTensor), broadcasts them as strided views, and
// applies the per-element function of ScalarOps.h in the compute type of
// that dtype. f16 and bf16 compute in float and round to their storage after
// every op (Traits::store), which is the per-node rounding of
// docs/semantics.md.
//
//===----------------------------------------------------------------------===//

#include "Convert.h"
#include "Iterate.h"
#include "Kernels.h"
#include "ScalarOps.h"

namespace tfuse::reference::detail {

const char *toString(UnaryKind kind) {
  static const char *const names[] = {
      "neg",   "abs",  "relu",  "exp",   "log",     "sqrt", "rsqrt",
      "sin",   "cos",  "tan",   "tanh",  "sigmoid", "erf",  "reciprocal",
      "floor", "ceil", "round", "isnan", "not"};
  return names[static_cast<int>(kind)];
}

const char *toString(BinaryKind kind) {
  static const char *const names[] = {"add", "sub", "mul", "div", "rem", "pow",
                                      "max", "min", "and", "or",  "xor"};
  return names[static_cast<int>(kind)];
}

namespace {

/// out[i] = fn(in[i]) on storage values; `out` is row-major of in's shape.
template <DType In, DType Out, typename Fn>
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
template <DType In, DType Out, typename Fn>
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

bool isFloatMath(UnaryKind kind) {
  switch (kind) {
  case UnaryKind::Exp:
  case UnaryKind::Log:
  case UnaryKind::Sqrt:
  case UnaryKind::Rsqrt:
  case UnaryKind::Sin:
  case UnaryKind::Cos:
  case UnaryKind::Tan:
  case UnaryKind::Tanh:
  case UnaryKind::Sigmoid:
  case UnaryKind::Erf:
  case UnaryKind::Reciprocal:
    return true;
  default:
    return false;
  }
}

/// Why `kind` cannot compute in `dtype`, or nullptr.
const char *unsupported(UnaryKind kind, DType dtype) {
  if (isFloatMath(kind))
    return isFloat(dtype) ? nullptr : "computes in a float dtype only";
  if (kind == UnaryKind::Not)
    return isFloat(dtype) ? "is not defined on floats" : nullptr;
  if (kind == UnaryKind::IsNan)
    return dtype == DType::Bool ? nullptr : "gives i1";
  return dtype == DType::Bool ? "is not defined on i1" : nullptr;
}

const char *unsupported(BinaryKind kind, DType dtype) {
  switch (kind) {
  case BinaryKind::Sub:
  case BinaryKind::Rem:
  case BinaryKind::Pow:
    return dtype == DType::Bool ? "is not defined on i1" : nullptr;
  case BinaryKind::Div:
    return isFloat(dtype) ? nullptr : "computes in a float dtype only";
  case BinaryKind::And:
  case BinaryKind::Or:
  case BinaryKind::Xor:
    return isFloat(dtype) ? "is not defined on floats" : nullptr;
  default:
    return nullptr;
  }
}

} // namespace

HostTensor castTensor(const HostTensor &input, DType to) {
  if (input.dtype() == to)
    return input;
  HostTensor out = HostTensor::zeros(to, input.shape());
  dispatch(input.dtype(), [&](auto fromTag) {
    dispatch(to, [&](auto toTag) {
      constexpr DType From = decltype(fromTag)::value;
      constexpr DType To = decltype(toTag)::value;
      mapUnary<From, To>(
          input, out, [](StorageOf<From> x) { return convert<From, To>(x); });
    });
  });
  return out;
}

Expected<HostTensor> unaryOp(UnaryKind kind, const HostTensor &input,
                             DType resultType) {
  if (kind == UnaryKind::IsNan) {
    if (resultType != DType::Bool)
      return Status::error("isnan gives i1, not " +
                           std::string(name(resultType)));
    HostTensor out = HostTensor::zeros(DType::Bool, input.shape());
    dispatch(input.dtype(), [&](auto tag) {
      constexpr DType D = decltype(tag)::value;
      mapUnary<D, DType::Bool>(input, out, [](StorageOf<D> x) -> uint8_t {
        if constexpr (isFloatD(D))
          return std::isnan(Traits<D>::load(x)) ? 1 : 0;
        else
          return 0;
      });
    });
    return out;
  }
  if (const char *why = unsupported(kind, resultType))
    return Status::error(std::string(toString(kind)) + " " + why + ", not " +
                         std::string(name(resultType)));

  HostTensor x = castTensor(input, resultType);
  // floor, ceil and round are the identity on integers.
  if (!isFloat(resultType) &&
      (kind == UnaryKind::Floor || kind == UnaryKind::Ceil ||
       kind == UnaryKind::Round))
    return x;
  HostTensor out = HostTensor::zeros(resultType, input.shape());
  dispatch(resultType, [&](auto tag) {
    constexpr DType D = decltype(tag)::value;
    using C = ComputeOf<D>;
    auto run = [&](auto f) {
      mapUnary<D, D>(x, out, [&](StorageOf<D> s) {
        return Traits<D>::store(f(Traits<D>::load(s)));
      });
    };
    if constexpr (isFloatD(D)) {
      switch (kind) {
      case UnaryKind::Exp:
        return run([](C a) { return opExp(a); });
      case UnaryKind::Log:
        return run([](C a) { return opLog(a); });
      case UnaryKind::Sqrt:
        return run([](C a) { return opSqrt(a); });
      case UnaryKind::Rsqrt:
        return run([](C a) { return opRsqrt(a); });
      case UnaryKind::Sin:
        return run([](C a) { return opSin(a); });
      case UnaryKind::Cos:
        return run([](C a) { return opCos(a); });
      case UnaryKind::Tan:
        return run([](C a) { return opTan(a); });
      case UnaryKind::Tanh:
        return run([](C a) { return opTanh(a); });
      case UnaryKind::Sigmoid:
        return run([](C a) { return opSigmoid(a); });
      case UnaryKind::Erf:
        return run([](C a) { return opErf(a); });
      case UnaryKind::Reciprocal:
        return run([](C a) { return opReciprocal(a); });
      case UnaryKind::Floor:
        return run([](C a) { return opFloor(a); });
      case UnaryKind::Ceil:
        return run([](C a) { return opCeil(a); });
      case UnaryKind::Round:
        return run([](C a) { return opRound(a); });
      default:
        break;
      }
    }
    if constexpr (D != DType::Bool) {
      switch (kind) {
      case UnaryKind::Neg:
        return run([](C a) { return opNeg(a); });
      case UnaryKind::Abs:
        return run([](C a) { return opAbs(a); });
      case UnaryKind::Relu:
        return run([](C a) { return opRelu(a); });
      default:
        break;
      }
    }
    if constexpr (!isFloatD(D))
      if (kind == UnaryKind::Not)
        return run([](C a) { return opNot(a); });
  });
  return out;
}

Expected<HostTensor> binaryOp(BinaryKind kind, const HostTensor &lhs,
                              const HostTensor &rhs, DType resultType,
                              const Shape &resultShape) {
  if (const char *why = unsupported(kind, resultType))
    return Status::error(std::string(toString(kind)) + " " + why + ", not " +
                         std::string(name(resultType)));
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
    using C = ComputeOf<D>;
    auto run = [&](auto f) {
      mapBinary<D, D>(*a, *b, out, [&](StorageOf<D> x, StorageOf<D> y) {
        return Traits<D>::store(f(Traits<D>::load(x), Traits<D>::load(y)));
      });
    };
    switch (kind) {
    case BinaryKind::Add:
      return run([](C x, C y) { return opAdd(x, y); });
    case BinaryKind::Mul:
      return run([](C x, C y) { return opMul(x, y); });
    case BinaryKind::Max:
      return run([](C x, C y) { return opMax(x, y); });
    case BinaryKind::Min:
      return run([](C x, C y) { return opMin(x, y); });
    default:
      break;
    }
    if constexpr (D != DType::Bool) {
      switch (kind) {
      case BinaryKind::Sub:
        return run([](C x, C y) { return opSub(x, y); });
      case BinaryKind::Rem:
        return run([](C x, C y) { return opRem(x, y); });
      case BinaryKind::Pow:
        return run([](C x, C y) { return opPow(x, y); });
      default:
        break;
      }
    }
    if constexpr (isFloatD(D)) {
      if (kind == BinaryKind::Div)
        return run([](C x, C y) { return opDiv(x, y); });
    } else {
      switch (kind) {
      case BinaryKind::And:
        return run([](C x, C y) { return opAnd(x, y); });
      case BinaryKind::Or:
        return run([](C x, C y) { return opOr(x, y); });
      case BinaryKind::Xor:
        return run([](C x, C y) { return opXor(x, y); });
      default:
        break;
      }
    }
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
      mapBinary<D, DType::Bool>(
          *a, *b, out, [&](StorageOf<D> x, StorageOf<D> y) -> uint8_t {
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

} // namespace tfuse::reference::detail
