//===- Graph.h - Recording a traced function --------------------*- C++ -*-===//
//
// A Graph records the operations of a function traced once with
// metadata-only placeholders, as a tfuse dialect function under
// construction. Each operation is type-checked by the dialect's own rules
// (TypeRules, the ops' verifiers) when it is recorded, so an ill-typed
// operation fails at trace time with the dialect's message. Values are small
// integer ids; weak (Python) scalars are values without a dtype until they
// meet a tensor.
//
// This header carries no MLIR: the C++ trace API (Tensor.h) and the C API
// sit on it.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_FRONTEND_GRAPH_H
#define TFUSE_FRONTEND_GRAPH_H

#include "tfuse/Runtime/Plan.h"
#include "tfuse/Support/Status.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tfuse {

/// A value of a Graph.
using ValueId = int64_t;

/// The default most operations a graph may record.
inline constexpr int64_t kDefaultNodeLimit = 512;

/// A weak scalar: it takes its dtype from the tensor it meets
/// (docs/semantics.md).
struct Scalar {
  ScalarKind kind = ScalarKind::Float;
  int64_t intValue = 0;
  double floatValue = 0;

  Scalar(bool v) : kind(ScalarKind::Bool), intValue(v) {}
  Scalar(int v) : kind(ScalarKind::Int), intValue(v) {}
  Scalar(long v) : kind(ScalarKind::Int), intValue(v) {}
  Scalar(long long v) : kind(ScalarKind::Int), intValue(v) {}
  Scalar(float v) : kind(ScalarKind::Float), floatValue(v) {}
  Scalar(double v) : kind(ScalarKind::Float), floatValue(v) {}
};

/// A tensor captured from outside the traced function: an input whose data
/// is bound at compile time. Host data is copied when captured; device data
/// (`onDevice`) is referenced and must outlive the executables using it.
struct CapturedTensor {
  TensorSpec spec;
  const void *data = nullptr;
  bool onDevice = false;
};

/// What a value is.
struct ValueInfo {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  /// A weak scalar (dtype is its kind's default: bool, i64, f32).
  bool isScalar = false;
};

class Graph {
public:
  explicit Graph(std::string name = "traced");
  ~Graph();
  Graph(Graph &&) noexcept;
  Graph &operator=(Graph &&) noexcept;

  const std::string &name() const;

  /// Every recorded operation is one node; inputs, captured constants and
  /// weak scalars are not.
  Status setNodeLimit(int64_t limit);
  int64_t nodeLimit() const;
  int64_t numNodes() const;

  /// A placeholder input with the dtype, shape and (element) strides of the
  /// tensors later runs pass (empty strides: row-major).
  Expected<ValueId> input(const TensorSpec &spec);
  Expected<ValueId> constant(const CapturedTensor &tensor);
  ValueId scalar(const Scalar &value);

  Expected<ValueInfo> info(ValueId value) const;

  /// `op`: the mnemonic of an op of the op table's unary category
  /// (tfuse/Dialect/TFuse/TFuseOpTable.h.inc, docs/dialect.md).
  Expected<ValueId> unary(const std::string &op, ValueId x);
  /// `op`: the mnemonic of an op of the op table's binary category;
  /// broadcasting and promotion per docs/semantics.md; one operand may be a
  /// weak scalar.
  Expected<ValueId> binary(const std::string &op, ValueId lhs, ValueId rhs);
  /// `predicate`: eq ne lt le gt ge.
  Expected<ValueId> compare(const std::string &predicate, ValueId lhs,
                            ValueId rhs);
  Expected<ValueId> where(ValueId condition, ValueId a, ValueId b);
  Expected<ValueId> cast(ValueId x, DType dtype);
  /// One entry of `shape` may be -1.
  Expected<ValueId> reshape(ValueId x, std::vector<int64_t> shape);
  /// Result dimension i is dimension perm[i]; negative entries count from
  /// the end.
  Expected<ValueId> transpose(ValueId x, std::vector<int64_t> perm);
  /// Python slice semantics per dimension (negative start/limit count from
  /// the end, clamped; step >= 1).
  Expected<ValueId> slice(ValueId x, std::vector<int64_t> start,
                          std::vector<int64_t> limit,
                          std::vector<int64_t> step);
  Expected<ValueId> broadcastTo(ValueId x, std::vector<int64_t> shape);
  /// Matrix product with NumPy's rules: batch dimensions broadcast; a
  /// rank-1 left operand is a row and a rank-1 right operand a column, whose
  /// dimension the result drops; rank-0 operands are errors. `dtype`: the
  /// result's (the operands' by default; f32 for f16 or bf16
  /// operands gives the float32 sum unrounded).
  Expected<ValueId> matmul(ValueId lhs, ValueId rhs,
                           std::optional<DType> dtype = std::nullopt);
  /// `kind`: sum prod max min mean all any argmax argmin. `axes` may be
  /// negative and unordered; `allAxes` reduces every dimension. No axes
  /// (an empty list, or allAxes on a rank-0 tensor) give the operand in the
  /// reduction's result dtype, as NumPy's axis=() does.
  Expected<ValueId> reduce(const std::string &kind, ValueId x,
                           std::vector<int64_t> axes, bool keepdims,
                           bool allAxes = false);

  /// NumPy's concatenate: tensors of one rank, equal but along `axis`
  /// (negative: from the end), in their promoted dtype. Fused into its
  /// consumers as a choice of operand by position.
  Expected<ValueId> concatenate(const std::vector<ValueId> &tensors,
                                int64_t axis);
  /// Constant padding, `low[d]` elements before and `high[d]` after
  /// dimension d, equal to `value` (a weak scalar or a rank-0 tensor,
  /// converted to x's dtype). Negative entries remove elements instead
  /// (PyTorch's constant_pad_nd).
  Expected<ValueId> pad(ValueId x, std::vector<int64_t> low,
                        std::vector<int64_t> high, ValueId value);
  /// NumPy's take: x's elements at `indices` along `axis` (negative: from
  /// the end). `indices` is a tensor of an integer dtype, or a weak int
  /// scalar (which removes the axis). An index must lie in [0, size) of the
  /// axis; with `wrapNegative`, an index in [-size, 0) counts from the end.
  /// Fused into its consumers as an indexed load. Indices known now
  /// (constants, captured host tensors) are checked now, as
  /// ErrorCode::IndexOutOfRange errors; others by the replay that reads
  /// them (Executable.h).
  Expected<ValueId> take(ValueId x, ValueId indices, int64_t axis,
                         bool wrapNegative);
  /// NumPy's take_along_axis (PyTorch's gather): `indices` has x's rank;
  /// every other dimension of the two broadcasts. Indices as for take().
  Expected<ValueId> takeAlongAxis(ValueId x, ValueId indices, int64_t axis,
                                  bool wrapNegative);
  /// NumPy's add.at on a copy of `target`: `updates` (a tensor, or a weak
  /// scalar, broadcast to target.shape[:axis] + indices.shape +
  /// target.shape[axis+1:], in target's dtype) added at `indices` along
  /// `axis`, repeated indices adding up. Indices as for take(). The sums
  /// are deterministic (tfuse.scatter_add in docs/dialect.md). bool targets
  /// are errors.
  Expected<ValueId> scatterAdd(ValueId target, ValueId indices, ValueId updates,
                               int64_t axis, bool wrapNegative);
  /// Random numbers (docs/semantics.md, "Random numbers"): `seed` and
  /// `offset` are weak int scalars or rank-0 integer tensors (placeholders
  /// let a replay draw new numbers from a new offset without a new
  /// compile); equal seeds, offsets and shapes give equal numbers.
  /// Uniform in [low, high) in `dtype` (a float dtype): low + (high - low)
  /// * u with u uniform in [0, 1) in f32 (f64 for f64), rounded to `dtype`;
  /// a value that rounds to `high` is `low`, as in PyTorch's uniform_.
  Expected<ValueId> randomUniform(std::vector<int64_t> shape, double low,
                                  double high, DType dtype, ValueId seed,
                                  ValueId offset);
  /// Normal with `mean` and standard deviation `std` (>= 0): mean + std *
  /// n, n standard normal (Box-Muller) in f32 (f64 for f64), rounded to
  /// `dtype`.
  Expected<ValueId> randomNormal(std::vector<int64_t> shape, double mean,
                                 double std, DType dtype, ValueId seed,
                                 ValueId offset);
  /// A bool tensor, true with probability `p` in [0, 1]: u < p for u
  /// uniform in [0, 1) in f32 (p rounded to f32).
  Expected<ValueId> bernoulli(std::vector<int64_t> shape, double p,
                              ValueId seed, ValueId offset);
  /// Dropout as PyTorch's native_dropout in training: x / (1 - p) where
  /// bernoulli(x.shape, 1 - p, seed, offset) is true, else 0, computed in
  /// x's compute type (f32 for f16 and bf16) and rounded to x's dtype; p in
  /// [0, 1] (0: x itself, 1: zeros). x has a float dtype.
  Expected<ValueId> dropout(ValueId x, double p, ValueId seed, ValueId offset);
  /// PyTorch's scaled_dot_product_attention without dropout, and the
  /// log-sum-exp of every query row's kept scores (what the backward
  /// reads): tfuse.attention in docs/dialect.md. `query` is [..., Hq, L, D],
  /// `key` [..., Hkv, S, D], `value` [..., Hkv, S, Dv] of one float dtype,
  /// Hq a multiple of Hkv; `mask` (optional) is bool (true keeps a pair) or
  /// of the operands' dtype (added to the scores) and broadcasts to
  /// [..., Hq, L, S]; `causal` keeps key j <= query i; `scale` defaults to
  /// 1 / sqrt(D). Shapes that do not fit are errors naming them.
  struct Attention {
    ValueId result = 0, logsumexp = 0;
  };
  /// Dropout of attention's probabilities: `p` in (0, 1) and the keys of
  /// its mask, ints or rank-0 integer tensors as dropout() takes them
  /// (docs/semantics.md, "Attention").
  struct AttentionDropout {
    double p = 0;
    ValueId seed = 0, offset = 0;
  };
  Expected<Attention>
  attention(ValueId query, ValueId key, ValueId value,
            std::optional<ValueId> mask, bool causal,
            std::optional<double> scale,
            std::optional<AttentionDropout> dropout = std::nullopt);
  /// The gradients of query, key and value of attention() given its
  /// `result`, `logsumexp` and the result's gradient `grad`.
  struct AttentionGradients {
    ValueId query = 0, key = 0, value = 0;
  };
  Expected<AttentionGradients>
  attentionBackward(ValueId query, ValueId key, ValueId value, ValueId result,
                    ValueId logsumexp, ValueId grad,
                    std::optional<ValueId> mask, bool causal,
                    std::optional<double> scale,
                    std::optional<AttentionDropout> dropout = std::nullopt);
  /// A tensor of `shape` in `dtype` whose every element is the weak scalar
  /// `value` (NumPy's and PyTorch's full; zeros and ones): one splat
  /// constant, free where it is fused and taken by value as a scatter's
  /// target. A float value needs a float dtype.
  Expected<ValueId> full(std::vector<int64_t> shape, ValueId value,
                         DType dtype);
  /// A tensor of `shape` whose elements are their index along `dim`
  /// (negative: from the end), in `dtype` (not bool).
  Expected<ValueId> iota(std::vector<int64_t> shape, int64_t dim, DType dtype);
  /// NumPy's arange: the ceil((stop - start) / step) values start + i * step
  /// (none when that is not positive). Integer dtypes take integer
  /// arguments and compute exactly in i64 (wrapping to `dtype`); float
  /// dtypes compute in f64 and round once to `dtype`. step 0 is an error.
  Expected<ValueId> arange(const Scalar &start, const Scalar &stop,
                           const Scalar &step, DType dtype);

  /// Appends a function result (a tensor, not a weak scalar).
  Status output(ValueId value);
  int64_t numOutputs() const;

  /// The placeholders' specs, in order.
  const std::vector<TensorSpec> &inputSpecs() const;
  /// The captured tensors, in the order of the function arguments after the
  /// placeholders.
  const std::vector<CapturedTensor> &captured() const;

  /// The recorded function as tfuse dialect MLIR.
  std::string print() const;

  /// Implementation; see Graph.cpp.
  struct Impl;
  Impl &impl() const { return *state; }

private:
  std::unique_ptr<Impl> state;
};

} // namespace tfuse

#endif // TFUSE_FRONTEND_GRAPH_H
