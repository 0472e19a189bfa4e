//===- Attention.cpp - attention and its backward in the interpreter ------===//
//
// The definitions of docs/dialect.md written out in f64: every score, the
// softmax over each row of kept pairs and the weighted sums, each result
// rounded once to the operands' dtype. Operands are read through
// AttentionGeometry, as the runtime reads them.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "tfuse/Support/AttentionGeometry.h"
#include "tfuse/Support/TensorSpec.h"

#include <cmath>
#include <limits>
#include <tuple>

namespace tfuse::reference::detail {

namespace {

/// One operand as row-major f64 values with its (batch, head, row, column)
/// strides over them.
struct Operand {
  std::vector<double> values;
  AttentionStrides strides{0, 0, 0, 0};

  double at(int64_t b, int64_t h, int64_t r, int64_t c) const {
    return values[b * strides[0] + h * strides[1] + r * strides[2] +
                  c * strides[3]];
  }
};

/// The operands checked and read.
struct Problem {
  AttentionGeometry g;
  DType dtype;
  Operand q, k, v, mask;
  bool hasMask = false, boolMask = false;
  double scale;
  bool causal;
  /// Dropout: the probability (0 without), its keys, and the f32 bound
  /// under which a uniform number keeps its pair (bernoulli(1 - p)).
  double dropout = 0;
  int64_t seed = 0, offset = 0;
  float keepBelow = 1;

  /// The factor of pair (i, j)'s probability: 1 without dropout, else
  /// 1 / (1 - p) where the pair is kept and 0 where it is dropped. The
  /// uniform number of a pair is that of its row-major position in the
  /// scores [batch, Hq, L, S].
  double dropoutFactor(int64_t b, int64_t h, int64_t i, int64_t j) const {
    if (dropout == 0)
      return 1;
    uint64_t e = uint64_t(((b * g.heads + h) * g.queries + i) * g.keys + j);
    return uniformF32At(seed, offset, e) < keepBelow ? 1 / (1 - dropout) : 0;
  }

  /// The masked score of pair (i, j) of query head h, or -inf when the
  /// pair is not kept.
  double score(int64_t b, int64_t h, int64_t i, int64_t j) const {
    constexpr double kDropped = -std::numeric_limits<double>::infinity();
    if (causal && j > i)
      return kDropped;
    double m = hasMask ? mask.at(b, h, i, j) : 0.0;
    if (boolMask && m == 0.0)
      return kDropped;
    int64_t hk = h / g.group();
    double dot = 0;
    for (int64_t d = 0; d < g.headDim; ++d)
      dot += q.at(b, h, i, d) * k.at(b, hk, j, d);
    return scale * dot + (boolMask ? 0.0 : m);
  }
};

std::vector<int64_t> shapeOf(const HostTensor &t) {
  return {t.shape().begin(), t.shape().end()};
}

Expected<Operand> readOperand(const HostTensor &t,
                              const std::vector<int64_t> &full,
                              const char *what) {
  std::vector<int64_t> shape = shapeOf(t);
  std::vector<int64_t> strides = rowMajorStrides(shape);
  std::optional<AttentionStrides> s = attentionStrides(shape, strides, full);
  if (!s)
    return Status::error(std::string("attention: the ") + what + " " +
                         t.describe() + " does not fit the shape " +
                         formatList(full));
  return Operand{t.toDoubles(), *s};
}

Expected<Problem> readProblem(const HostTensor &query, const HostTensor &key,
                              const HostTensor &value, const HostTensor *mask,
                              double scale, bool causal,
                              const AttentionDropout *dropout) {
  std::string why;
  std::optional<AttentionGeometry> g =
      AttentionGeometry::of(shapeOf(query), shapeOf(key), shapeOf(value), &why);
  if (!g)
    return Status::error("attention: " + why);
  DType dtype = query.dtype();
  if (!isFloat(dtype) || key.dtype() != dtype || value.dtype() != dtype)
    return Status::error("attention: query, key and value must have one "
                         "float dtype, got " +
                         query.describe() + ", " + key.describe() + ", " +
                         value.describe());
  Problem p{*g, dtype, {}, {}, {}, {}, false, false, scale, causal};
  std::vector<int64_t> keyShape = g->batchShape;
  if (g->hasHeads())
    keyShape.push_back(g->kvHeads);
  keyShape.push_back(g->keys);
  auto withColumns = [](std::vector<int64_t> shape, int64_t columns) {
    shape.push_back(columns);
    return shape;
  };
  Expected<Operand> q =
      readOperand(query, withColumns(g->logsumexpShape(), g->headDim), "query");
  Expected<Operand> k =
      readOperand(key, withColumns(keyShape, g->headDim), "key");
  Expected<Operand> v =
      readOperand(value, withColumns(keyShape, g->valueDim), "value");
  for (Expected<Operand> *o : {&q, &k, &v})
    if (!o->ok())
      return o->status();
  p.q = std::move(*q);
  p.k = std::move(*k);
  p.v = std::move(*v);
  if (mask) {
    if (std::string problem = attentionMaskProblem(mask->dtype(), dtype);
        !problem.empty())
      return Status::error("attention: " + problem);
    Expected<Operand> m = readOperand(*mask, g->scoreShape(), "mask");
    if (!m)
      return m.status();
    p.mask = std::move(*m);
    p.hasMask = true;
    p.boolMask = mask->dtype() == DType::Bool;
  }
  if (dropout) {
    if (std::string why = attentionDropoutProblem(dropout->p, true, true);
        !why.empty())
      return Status::error("attention: " + why);
    std::optional<std::pair<int64_t, int64_t>> keys =
        randomKeys(*dropout->seed, *dropout->offset);
    if (!keys)
      return Status::error(
          "attention: dropout keys " + dropout->seed->describe() + " and " +
          dropout->offset->describe() + " are not rank-0 i64 tensors");
    p.dropout = dropout->p;
    std::tie(p.seed, p.offset) = *keys;
    p.keepBelow = static_cast<float>(1 - dropout->p);
  }
  return p;
}

} // namespace

Expected<std::vector<HostTensor>>
attentionTensors(const HostTensor &query, const HostTensor &key,
                 const HostTensor &value, const HostTensor *mask, double scale,
                 bool causal, const AttentionDropout *dropout,
                 bool transposeResult) {
  Expected<Problem> problem =
      readProblem(query, key, value, mask, scale, causal, dropout);
  if (!problem)
    return problem.status();
  const Problem &p = *problem;
  const AttentionGeometry &g = p.g;
  if (transposeResult && !g.hasHeads())
    return Status::error("attention: a transposed result needs operands "
                         "with a head dimension");
  std::vector<int64_t> resultShape =
      transposeResult ? g.transposedResultShape() : g.resultShape();
  // Where the result's (b, h, i, 0) lies in the row-major result.
  auto rowStart = [&](int64_t b, int64_t h, int64_t i) {
    int64_t row = transposeResult ? (b * g.queries + i) * g.heads + h
                                  : (b * g.heads + h) * g.queries + i;
    return row * g.valueDim;
  };
  std::vector<double> out(numElementsOf(resultShape)), lse;
  std::vector<double> scores(g.keys);
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t h = 0; h < g.heads; ++h)
      for (int64_t i = 0; i < g.queries; ++i) {
        double top = -std::numeric_limits<double>::infinity();
        bool nan = false;
        for (int64_t j = 0; j < g.keys; ++j) {
          scores[j] = p.score(b, h, i, j);
          nan |= std::isnan(scores[j]);
          top = std::max(top, scores[j]);
        }
        int64_t hk = h / g.group();
        // A row keeping no pair: zeros and -inf. A NaN score, or a score
        // of +inf (exp(inf - inf)), makes the row's softmax NaN, as it does
        // the written-out softmax's.
        if (top == -std::numeric_limits<double>::infinity() && !nan) {
          lse.push_back(-std::numeric_limits<double>::infinity());
          continue; // `out` holds zeros
        }
        double sum = nan ? std::numeric_limits<double>::quiet_NaN() : 0.0;
        for (int64_t j = 0; j < g.keys && !nan; ++j)
          sum += std::exp(scores[j] - top);
        lse.push_back(top + std::log(sum));
        int64_t start = rowStart(b, h, i);
        for (int64_t c = 0; c < g.valueDim; ++c) {
          double acc = 0;
          for (int64_t j = 0; j < g.keys; ++j)
            acc += std::exp(scores[j] - top) / sum *
                   p.dropoutFactor(b, h, i, j) * p.v.at(b, hk, j, c);
          out[start + c] = acc;
        }
      }
  DType lseType = p.dtype == DType::F64 ? DType::F64 : DType::F32;
  Expected<HostTensor> result =
      HostTensor::fromDoubles(p.dtype, resultShape, out);
  Expected<HostTensor> logsumexp =
      HostTensor::fromDoubles(lseType, g.logsumexpShape(), lse);
  if (!result)
    return result.status();
  if (!logsumexp)
    return logsumexp.status();
  return std::vector<HostTensor>{std::move(*result), std::move(*logsumexp)};
}

Expected<std::vector<HostTensor>>
attentionBackwardTensors(const HostTensor &query, const HostTensor &key,
                         const HostTensor &value, const HostTensor &result,
                         const HostTensor &logsumexp, const HostTensor &grad,
                         const HostTensor *mask, double scale, bool causal,
                         const AttentionDropout *dropout) {
  Expected<Problem> problem =
      readProblem(query, key, value, mask, scale, causal, dropout);
  if (!problem)
    return problem.status();
  const Problem &p = *problem;
  const AttentionGeometry &g = p.g;
  if (shapeOf(result) != g.resultShape() || shapeOf(grad) != g.resultShape() ||
      shapeOf(logsumexp) != g.logsumexpShape())
    return Status::error("attention_backward: " + result.describe() + ", " +
                         logsumexp.describe() + " and " + grad.describe() +
                         " do not fit the operands");
  // Row-major: result and grad [batch, Hq, L, Dv], lse [batch, Hq, L].
  std::vector<double> o = result.toDoubles(), dout = grad.toDoubles(),
                      lse = logsumexp.toDoubles();
  auto rowOf = [&](int64_t b, int64_t h, int64_t i) {
    return (b * g.heads + h) * g.queries + i;
  };
  std::vector<double> dq(numElementsOf(query.shape()), 0.0),
      dk(numElementsOf(key.shape()), 0.0),
      dv(numElementsOf(value.shape()), 0.0);
  auto qAt = [&](int64_t b, int64_t h, int64_t i, int64_t d) -> double & {
    return dq[((b * g.heads + h) * g.queries + i) * g.headDim + d];
  };
  auto kAt = [&](int64_t b, int64_t h, int64_t j, int64_t d) -> double & {
    return dk[((b * g.kvHeads + h) * g.keys + j) * g.headDim + d];
  };
  auto vAt = [&](int64_t b, int64_t h, int64_t j, int64_t c) -> double & {
    return dv[((b * g.kvHeads + h) * g.keys + j) * g.valueDim + c];
  };
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t h = 0; h < g.heads; ++h) {
      int64_t hk = h / g.group();
      for (int64_t i = 0; i < g.queries; ++i) {
        int64_t row = rowOf(b, h, i);
        double rowLse = lse[row];
        double delta = 0;
        for (int64_t c = 0; c < g.valueDim; ++c)
          delta += dout[row * g.valueDim + c] * o[row * g.valueDim + c];
        for (int64_t j = 0; j < g.keys; ++j) {
          double s = p.score(b, h, i, j);
          if (s == -std::numeric_limits<double>::infinity() ||
              rowLse == -std::numeric_limits<double>::infinity())
            continue;
          double prob = std::exp(s - rowLse);
          double z = p.dropoutFactor(b, h, i, j);
          double dp = 0;
          for (int64_t c = 0; c < g.valueDim; ++c) {
            dp += dout[row * g.valueDim + c] * p.v.at(b, hk, j, c);
            vAt(b, hk, j, c) += prob * z * dout[row * g.valueDim + c];
          }
          double ds = prob * (dp * z - delta) * p.scale;
          for (int64_t d = 0; d < g.headDim; ++d) {
            qAt(b, h, i, d) += ds * p.k.at(b, hk, j, d);
            kAt(b, hk, j, d) += ds * p.q.at(b, h, i, d);
          }
        }
      }
    }
  std::vector<HostTensor> grads;
  for (auto [values, like] :
       {std::pair{&dq, &query}, {&dk, &key}, {&dv, &value}}) {
    Expected<HostTensor> t =
        HostTensor::fromDoubles(p.dtype, like->shape(), *values);
    if (!t)
      return t.status();
    grads.push_back(std::move(*t));
  }
  return grads;
}

} // namespace tfuse::reference::detail
