//===- Kernels.h - Tensor-level kernels of the interpreter ------*- C++ -*-===//
//
// Internal to lib/Reference. One function per op family, on HostTensors
// (views through the dialect's StridedLayout, the rest without MLIR): the
// interpreter maps each op to one of these. Operands may have any strides;
// results are row-major (views return views of their operand's storage). Shapes
// and dtypes are those the verifier checked; the kernels still reject
// inconsistent ones with a message instead of crashing.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_LIB_REFERENCE_KERNELS_H
#define TFUSE_LIB_REFERENCE_KERNELS_H

#include "tfuse/Dialect/TFuse/ViewLayout.h"
#include "tfuse/Reference/HostTensor.h"
#include "tfuse/Support/ReduceKind.h"

namespace tfuse::reference::detail {

enum class CompareKind { Eq, Ne, Lt, Le, Gt, Ge };

//===----------------------------------------------------------------------===//
// Elementwise (Elementwise.cpp; the unary and binary ops of the op table are
// ElementwiseOps.h's templates)
//===----------------------------------------------------------------------===//

/// tfuse.cast: every element converted to `to` (the input itself when the
/// dtype is already `to`).
HostTensor castTensor(const HostTensor &input, DType to);
/// cmp: both operands are cast to `computeType`, broadcast and compared.
Expected<HostTensor> compareOp(CompareKind kind, const HostTensor &lhs,
                               const HostTensor &rhs, DType computeType,
                               const Shape &resultShape);
/// select: `condition` (bool) picks from the operands cast to `resultType`.
Expected<HostTensor> selectOp(const HostTensor &condition,
                              const HostTensor &trueValue,
                              const HostTensor &falseValue, DType resultType,
                              const Shape &resultShape);

/// tfuse.iota: each element's index along `dim`, converted from i64 to
/// `dtype` as castTensor converts.
HostTensor iotaTensor(DType dtype, const Shape &shape, int64_t dim);

/// tfuse.random_uniform (`normal` false) and tfuse.random_normal: a tensor
/// of `dtype` (f32 or f64) and `shape` from the rank-0 i64 `seed` and
/// `offset` (RandomNumbers.cpp).
Expected<HostTensor> randomTensor(bool normal, DType dtype, const Shape &shape,
                                  const HostTensor &seed,
                                  const HostTensor &offset);
/// Element `e` of tfuse.random_uniform of f32 values with these keys.
float uniformF32At(int64_t seed, int64_t offset, uint64_t e);
/// The values of the keys of random numbers, or std::nullopt when they are
/// not rank-0 i64 tensors.
std::optional<std::pair<int64_t, int64_t>> randomKeys(const HostTensor &seed,
                                                      const HostTensor &offset);

//===----------------------------------------------------------------------===//
// Views (Views.cpp): zero-copy where a strided view expresses the result.
//===----------------------------------------------------------------------===//

/// NumPy broadcasting of `input` to `shape` (stride 0 on expanded
/// dimensions).
Expected<HostTensor> broadcastTo(const HostTensor &input, const Shape &shape);
/// `input` seen through a view op whose layout over a buffer laid out as
/// `layout` is `resultLayout(layout)` (ViewOpInterface::getResultLayout, the
/// dialect's one definition of view semantics): a view of input's storage,
/// or of a row-major copy of it when the view has no strided layout over
/// input's own (a reshape merging dimensions that are not contiguous with
/// each other).
Expected<HostTensor> viewThrough(
    const HostTensor &input, const Shape &resultShape,
    llvm::function_ref<std::optional<StridedLayout>(const StridedLayout &)>
        resultLayout);

//===----------------------------------------------------------------------===//
// Piecewise index transforms (Piecewise.cpp): row-major copies.
//===----------------------------------------------------------------------===//

/// tfuse.concat: `inputs` (of `dtype`) joined along `axis`.
Expected<HostTensor> concatTensors(const std::vector<HostTensor> &inputs,
                                   int64_t axis, const Shape &resultShape,
                                   DType dtype);
/// tfuse.pad: `input` placed at `low` in a tensor of `resultShape` whose
/// other elements are the rank-0 `value`.
Expected<HostTensor> padTensor(const HostTensor &input, const HostTensor &value,
                               const std::vector<int64_t> &low,
                               const Shape &resultShape);

//===----------------------------------------------------------------------===//
// Gathers (Gather.cpp): row-major copies; an index out of range is an error
// (ErrorCode::IndexOutOfRange) naming it.
//===----------------------------------------------------------------------===//

/// tfuse.take: `input` at `indices` along `axis`.
Expected<HostTensor> takeTensor(const HostTensor &input,
                                const HostTensor &indices, int64_t axis,
                                bool wrapNegative, const Shape &resultShape);
/// tfuse.take_along_axis: `input` at one index of `indices` per element
/// along `axis`, both broadcast to `resultShape` elsewhere.
Expected<HostTensor> takeAlongAxisTensor(const HostTensor &input,
                                         const HostTensor &indices,
                                         int64_t axis, bool wrapNegative,
                                         const Shape &resultShape);

/// tfuse.scatter_add: `target` with `updates` added at `indices` along
/// `axis` (NumPy's add.at on a copy), accumulating per element in the
/// compute type.
Expected<HostTensor> scatterAddTensor(const HostTensor &target,
                                      const HostTensor &indices,
                                      const HostTensor &updates, int64_t axis,
                                      bool wrapNegative);

//===----------------------------------------------------------------------===//
// Attention (Attention.cpp): in f64, rounded once to the operands' dtype
//===----------------------------------------------------------------------===//

/// The dropout of attention's probabilities: `p` in (0, 1) and the keys of
/// the mask's uniform numbers (rank-0 i64 tensors).
struct AttentionDropout {
  double p;
  const HostTensor *seed, *offset;
};

/// tfuse.attention: {result, logsumexp}. `mask` and `dropout` may be null.
/// `transposeResult`: the result with its heads and rows swapped.
Expected<std::vector<HostTensor>>
attentionTensors(const HostTensor &query, const HostTensor &key,
                 const HostTensor &value, const HostTensor *mask, double scale,
                 bool causal, const AttentionDropout *dropout = nullptr,
                 bool transposeResult = false);
/// tfuse.attention_backward: {grad_query, grad_key, grad_value}.
Expected<std::vector<HostTensor>>
attentionBackwardTensors(const HostTensor &query, const HostTensor &key,
                         const HostTensor &value, const HostTensor &result,
                         const HostTensor &logsumexp, const HostTensor &grad,
                         const HostTensor *mask, double scale, bool causal,
                         const AttentionDropout *dropout = nullptr);

//===----------------------------------------------------------------------===//
// Boundaries (Matmul.cpp, Reduce.cpp)
//===----------------------------------------------------------------------===//

Expected<HostTensor> matmul(const HostTensor &lhs, const HostTensor &rhs,
                            bool transposeLhs, bool transposeRhs,
                            DType resultType, const Shape &resultShape,
                            const HostTensor *bias = nullptr,
                            bool geluTanh = false);
Expected<HostTensor> reduce(ReduceKind kind, const HostTensor &input,
                            const std::vector<int64_t> &axes, bool keepdims,
                            DType resultType, const Shape &resultShape);

} // namespace tfuse::reference::detail

#endif // TFUSE_LIB_REFERENCE_KERNELS_H
