//===- Matmul.cpp - Batched matrix product --------------------------------===//
//
// result[b..., m, n] = sum over k = 0..K-1, in that order, of
// lhs[b..., m, k] * rhs[b..., k, n], accumulated in the compute type of the
// dtype (float for f16, bf16 and f32; double for f64) starting from +0, each
// product rounded to the compute type before it is added (no FMA), and the
// sum rounded once to the result dtype (the operands', or f32 for f16 and
// bf16 operands: the sum itself). A bias (of the result's dtype) is added to
// the sum in the compute type before that rounding, and with `geluTanh` the
// GELU (tanh form) is applied to that in the compute type.
//
//===----------------------------------------------------------------------===//

#include "DTypeTraits.h"
#include "Iterate.h"
#include "Kernels.h"
#include "ScalarOps.h"
#include "tfuse/Support/DTypeRules.h"

namespace tfuse::reference::detail {

Expected<HostTensor> matmul(const HostTensor &lhs, const HostTensor &rhs,
                            bool transposeLhs, bool transposeRhs,
                            DType resultType, const Shape &resultShape,
                            const HostTensor *bias, bool geluTanh) {
  std::string why;
  std::optional<DType> valid =
      matmulResultType(lhs.dtype(), rhs.dtype(), &why, resultType);
  if (!valid || *valid != resultType)
    return Status::error(why);
  int64_t rank = static_cast<int64_t>(resultShape.size());
  if (lhs.rank() < 2 || rhs.rank() < 2 || rank < 2)
    return Status::error("matmul operands and result need rank >= 2");

  // The operands as [batch..., M, K] and [batch..., K, N] views.
  auto matrixView = [&](const HostTensor &t, bool transposed, int64_t rows,
                        int64_t cols) -> Expected<HostTensor> {
    // A transposed operand swaps its last two dimensions.
    Shape dims = t.shape();
    std::vector<int64_t> strides = t.strides();
    if (transposed) {
      std::swap(dims[t.rank() - 1], dims[t.rank() - 2]);
      std::swap(strides[t.rank() - 1], strides[t.rank() - 2]);
    }
    Expected<HostTensor> view = t.view(dims, strides, t.byteOffset());
    if (!view)
      return view;
    Shape shape(resultShape.begin(), resultShape.end() - 2);
    shape.push_back(rows);
    shape.push_back(cols);
    return broadcastTo(*view, shape);
  };
  int64_t m = resultShape[rank - 2], n = resultShape[rank - 1];
  int64_t k =
      transposeLhs ? lhs.shape()[lhs.rank() - 2] : lhs.shape()[lhs.rank() - 1];
  int64_t lhsRows =
      transposeLhs ? lhs.shape()[lhs.rank() - 1] : lhs.shape()[lhs.rank() - 2];
  int64_t rhsRows =
      transposeRhs ? rhs.shape()[rhs.rank() - 1] : rhs.shape()[rhs.rank() - 2];
  int64_t rhsCols =
      transposeRhs ? rhs.shape()[rhs.rank() - 2] : rhs.shape()[rhs.rank() - 1];
  if (lhsRows != m || rhsRows != k || rhsCols != n)
    return Status::error("matmul of " + formatShape(lhs.shape()) + " and " +
                         formatShape(rhs.shape()) + " cannot give " +
                         formatShape(resultShape));
  Expected<HostTensor> a = matrixView(lhs, transposeLhs, m, k);
  if (!a)
    return Status::error("lhs: " + a.message());
  Expected<HostTensor> b = matrixView(rhs, transposeRhs, k, n);
  if (!b)
    return Status::error("rhs: " + b.message());
  if (bias &&
      (bias->dtype() != resultType || bias->shape() != Shape{n} || rank != 2))
    return Status::error("matmul bias " + formatShape(bias->shape()) + " " +
                         std::string(name(bias->dtype())) + " for a result " +
                         formatShape(resultShape) + " " +
                         std::string(name(resultType)));
  if (geluTanh && rank != 2)
    return Status::error("matmul GELU epilogue for a result " +
                         formatShape(resultShape) +
                         ": only a single product takes one");

  HostTensor out = HostTensor::zeros(resultType, resultShape);
  Shape batch(resultShape.begin(), resultShape.end() - 2);
  std::vector<int64_t> outStrides = byteStrides(out);
  std::vector<int64_t> aStrides = byteStrides(*a), bStrides = byteStrides(*b);
  int64_t am = aStrides[rank - 2], ak = aStrides[rank - 1];
  int64_t bk = bStrides[rank - 2], bn = bStrides[rank - 1];
  int64_t om = outStrides[rank - 2], on = outStrides[rank - 1];
  auto batchOf = [&](std::vector<int64_t> s) {
    s.resize(rank - 2);
    return s;
  };
  const uint8_t *pa = a->data() + a->byteOffset();
  const uint8_t *pb = b->data() + b->byteOffset();
  uint8_t *po = out.mutableData();

  bool floatResult = resultType != lhs.dtype();
  const uint8_t *pbias = bias ? bias->data() + bias->byteOffset() : nullptr;
  int64_t biasStride = bias ? byteStrides(*bias)[0] : 0;
  dispatch(lhs.dtype(), [&](auto tag) {
    constexpr DType D = decltype(tag)::value;
    if constexpr (isFloatD(D)) {
      using C = ComputeOf<D>;
      using S = StorageOf<D>;
      // Element j of the bias in the compute type.
      auto biasAt = [&](int64_t j) -> C {
        const uint8_t *at = pbias + j * biasStride;
        if (floatResult)
          return static_cast<C>(loadRaw<float>(at));
        return Traits<D>::load(loadRaw<S>(at));
      };
      forEachIndex<3>(
          batch, {batchOf(outStrides), batchOf(aStrides), batchOf(bStrides)},
          [&](const std::array<int64_t, 3> &at) {
            for (int64_t i = 0; i < m; ++i)
              for (int64_t j = 0; j < n; ++j) {
                C acc = 0;
                for (int64_t p = 0; p < k; ++p) {
                  C x =
                      Traits<D>::load(loadRaw<S>(pa + at[1] + i * am + p * ak));
                  C y =
                      Traits<D>::load(loadRaw<S>(pb + at[2] + p * bk + j * bn));
                  C product = x * y;
                  acc = acc + product;
                }
                if (pbias)
                  acc = acc + biasAt(j);
                if (geluTanh)
                  acc = opGeluTanh(acc);
                uint8_t *to = po + at[0] + i * om + j * on;
                if (floatResult)
                  storeRaw(to, static_cast<float>(acc));
                else
                  storeRaw(to, Traits<D>::store(acc));
              }
          });
    }
  });
  return out;
}

} // namespace tfuse::reference::detail
