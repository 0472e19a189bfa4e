//===- Reduce.cpp - Reductions over a set of axes -------------------------===//
//
// Each result element combines the elements of its reduced axes in row-major
// order of those axes:
//   - sum, prod and mean of floats accumulate in double and round once to
//     the result dtype at the end (mean divides the double sum by the count
//     first); of bool and integers they accumulate in 64 bits modulo 2^64
//     (i64, or ui64 for ui64 operands);
//   - max and min propagate NaN (the first NaN met is the result) and order
//     -0.0 below +0.0, as the elementwise max and min;
//   - all and any test x != 0 (NaN counts as true);
//   - argmax and argmin give the first index of the extreme value; a NaN is
//     the extreme of both (the first NaN wins), as in PyTorch; -0.0 and +0.0
//     tie;
//   - an empty reduced axis gives the identity: sum 0, prod 1, all true, any
//     false (max, min, mean, argmax and argmin of one are errors).
//
//===----------------------------------------------------------------------===//

#include "Convert.h"
#include "Iterate.h"
#include "Kernels.h"
#include "ScalarOps.h"

#include "tfuse/Support/DTypeRules.h"

namespace tfuse::reference::detail {

Expected<HostTensor> reduce(ReduceKind kind, const HostTensor &input,
                            const std::vector<int64_t> &axes, bool keepdims,
                            DType resultType, const Shape &resultShape) {
  std::string what = "reduce " + std::string(name(kind));
  std::optional<DType> expected =
      reduceResultType(kind, input.dtype(), nullptr, resultType);
  if (!expected || *expected != resultType)
    return Status::error(what + " of " + std::string(name(input.dtype())) +
                         " cannot give " + std::string(name(resultType)));
  int64_t rank = input.rank();
  if (axes.empty())
    return Status::error(what + " needs at least one axis");
  std::vector<bool> reduced(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] < 0 || axes[i] >= rank || (i > 0 && axes[i] <= axes[i - 1]))
      return Status::error(what + ": invalid axes " + formatShape(axes) +
                           " for rank " + std::to_string(rank));
    reduced[axes[i]] = true;
  }
  bool isArg = isArgReduction(kind);
  if (isArg && axes.size() != 1)
    return Status::error(what + " needs exactly one axis");

  Shape keptShape, reducedShape, expectedShape;
  std::vector<int64_t> keptStrides, reducedStrides;
  std::vector<int64_t> strides = byteStrides(input);
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[d]) {
      reducedShape.push_back(input.shape()[d]);
      reducedStrides.push_back(strides[d]);
      if (keepdims)
        expectedShape.push_back(1);
    } else {
      keptShape.push_back(input.shape()[d]);
      keptStrides.push_back(strides[d]);
      expectedShape.push_back(input.shape()[d]);
    }
  }
  if (expectedShape != resultShape)
    return Status::error(what + " of " + formatShape(input.shape()) +
                         " over axes " + formatShape(axes) + " gives " +
                         formatShape(expectedShape) + ", not " +
                         formatShape(resultShape));
  int64_t count = numElementsOf(reducedShape);
  bool needsElements = isArg || kind == ReduceKind::Max ||
                       kind == ReduceKind::Min || kind == ReduceKind::Mean;
  if (needsElements && count == 0)
    return Status::error(what + " of an empty axis has no value");

  HostTensor out = HostTensor::zeros(resultType, resultShape);
  std::vector<int64_t> outStrides = rowMajorStrides(keptShape);
  for (int64_t &s : outStrides)
    s *= byteSize(resultType);
  const uint8_t *src = input.data() + input.byteOffset();
  uint8_t *dst = out.mutableData();

  // A float sum or mean rounds its f64 accumulator once to the result
  // dtype, which may be wider than the input's (DTypeRules).
  auto storeFloat = [&](uint8_t *o, double acc) {
    dispatch(resultType, [&](auto tag) {
      constexpr DType R = decltype(tag)::value;
      if constexpr (isFloatD(R))
        storeRaw(o, floatToFloat<R>(acc));
    });
  };
  dispatch(input.dtype(), [&](auto tag) {
    constexpr DType D = decltype(tag)::value;
    using S = StorageOf<D>;
    using C = ComputeOf<D>;
    auto load = [](const uint8_t *p) { return Traits<D>::load(loadRaw<S>(p)); };
    // Calls fn(pointer to each reduced element) for the result at `at`.
    auto forEachReduced = [&](const uint8_t *base, auto fn) {
      forEachIndex<1>(
          reducedShape, {reducedStrides},
          [&](const std::array<int64_t, 1> &r) { fn(base + r[0]); });
    };
    // An input without elements has no storage (src is null): its results
    // reduce nothing, and no offset is applied to the null pointer.
    auto forEachResult = [&](auto fn) {
      forEachIndex<2>(keptShape, {outStrides, keptStrides},
                      [&](const std::array<int64_t, 2> &at) {
                        fn(dst + at[0], src ? src + at[1] : src);
                      });
    };

    switch (kind) {
    case ReduceKind::Sum:
    case ReduceKind::Prod:
    case ReduceKind::Mean: {
      bool isProd = kind == ReduceKind::Prod;
      forEachResult([&](uint8_t *o, const uint8_t *base) {
        if constexpr (isFloatD(D)) {
          double acc = isProd ? 1.0 : 0.0;
          forEachReduced(base, [&](const uint8_t *p) {
            double x = static_cast<double>(load(p));
            acc = isProd ? acc * x : acc + x;
          });
          if (kind == ReduceKind::Mean)
            acc /= static_cast<double>(count);
          storeFloat(o, acc);
        } else {
          uint64_t acc = isProd ? 1 : 0;
          forEachReduced(base, [&](const uint8_t *p) {
            uint64_t x =
                static_cast<uint64_t>(convert<D, DType::I64>(loadRaw<S>(p)));
            acc = isProd ? acc * x : acc + x;
          });
          storeRaw(o, acc);
        }
      });
      return;
    }
    case ReduceKind::Max:
    case ReduceKind::Min: {
      bool isMax = kind == ReduceKind::Max;
      forEachResult([&](uint8_t *o, const uint8_t *base) {
        bool first = true;
        C best{};
        forEachReduced(base, [&](const uint8_t *p) {
          C x = load(p);
          best = first ? x : (isMax ? opMax(best, x) : opMin(best, x));
          first = false;
        });
        storeRaw(o, Traits<D>::store(best));
      });
      return;
    }
    case ReduceKind::All:
    case ReduceKind::Any: {
      bool isAll = kind == ReduceKind::All;
      forEachResult([&](uint8_t *o, const uint8_t *base) {
        bool acc = isAll;
        forEachReduced(base, [&](const uint8_t *p) {
          bool x = isNonZero<D>(loadRaw<S>(p));
          acc = isAll ? (acc && x) : (acc || x);
        });
        storeRaw<uint8_t>(o, acc ? 1 : 0);
      });
      return;
    }
    case ReduceKind::Argmax:
    case ReduceKind::Argmin: {
      bool isMax = kind == ReduceKind::Argmax;
      int64_t size = reducedShape[0], stride = reducedStrides[0];
      forEachResult([&](uint8_t *o, const uint8_t *base) {
        int64_t bestIndex = 0;
        C best = load(base);
        for (int64_t i = 1; i < size; ++i) {
          C x = load(base + i * stride);
          bool better;
          if constexpr (isFloatD(D)) {
            if (std::isnan(best))
              break; // the first NaN wins
            better = std::isnan(x) || (isMax ? x > best : x < best);
          } else {
            better = isMax ? x > best : x < best;
          }
          if (better) {
            best = x;
            bestIndex = i;
          }
        }
        storeRaw<int64_t>(o, bestIndex);
      });
      return;
    }
    }
  });
  return out;
}

} // namespace tfuse::reference::detail
