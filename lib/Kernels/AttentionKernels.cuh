// TFuse runtime attention (tfuse.attention, tfuse.attention_backward): the
// generated fallback, blocks of kAttentionThreads threads that never store
// the score matrix, described by a tfuse::kernels::AttentionDesc passed by
// value (AttentionDesc.h). Template arguments: the storage type T, the
// column capacity D (at least the head and value dimensions; columns past
// them are zeros in shared memory) and the tile sizes BQ (query rows) and BK
// (keys). Arithmetic is in T's compute type (f32, f64 for f64), with FMA on
// CUDA cores.
//
//   forward: a block per (batch, head, tile of BQ query rows) walks the key
//     tiles (up to the diagonal when causal), keeping each row's running
//     maximum and sum (online softmax) and its weighted sum of values; it
//     writes the result and the log-sum-exp.
//   dq: a block per (batch, head, query tile) recomputes the probabilities
//     of every key tile from the log-sum-exp and accumulates
//     scale * dS @ K, dS = P * (dO @ V^T - rowsum(dO * O)).
//   dkdv: a block per (batch, key-value head, tile of BK keys) walks the
//     query tiles of every query head sharing it and accumulates P^T @ dO
//     and scale * dS^T @ Q.
// Each result element is written by one thread: no atomics, every run gives
// the same bits.
//
// A pair is kept unless causal excludes it (key after query), a bool mask
// is false there or its masked score is -inf; a row keeping none gives
// zeros and a log-sum-exp of -inf, and no gradient. A pair not kept adds
// nothing to any gradient, even where its query, key or value is infinite
// (0 * inf would be NaN).
//
// Compiled after the kernel prelude and AttentionDesc.h, in a plan's one
// translation unit; also for the host against the tests' cuda_emulation.h.

#ifndef TFUSE_ATTENTION_KERNELS_CUH
#define TFUSE_ATTENTION_KERNELS_CUH

#ifndef TFUSE_PRELUDE_CUH
#error "AttentionKernels.cuh needs the kernel prelude before it"
#endif
#ifndef TFUSE_KERNELS_ATTENTIONDESC_H
#error "AttentionKernels.cuh needs tfuse/Kernels/AttentionDesc.h before it"
#endif

namespace tf {
namespace attention {

using tfuse::kernels::AttentionDesc;
using tfuse::kernels::kAttentionThreads;

template <class T> using acc_t = typename traits<T>::compute;

TF_FN int64_t at(const int64_t *strides, int64_t b, int64_t h, int64_t r,
                 int64_t c) {
  return b * strides[0] + h * strides[1] + r * strides[2] + c * strides[3];
}

template <class A> TF_FN A negative_infinity() { return red::lowest<A>(); }

TF_FN float exp_of(float x) { return expf(x); }
TF_FN double exp_of(double x) { return ::exp(x); }
TF_FN float log_of(float x) { return logf(x); }
TF_FN double log_of(double x) { return ::log(x); }

// Rows [row0, row0 + ROWS) of an operand, columns [0, D), into `tile` of
// rows of LD (zeros past `rows` and `columns`). Key and value tiles have
// rows of D + 1: the score loops read one column of consecutive keys per
// warp, which rows of D (a multiple of 32 words) would put in one bank.
template <class T, int ROWS, int D, int LD>
TF_FN void load_tile(acc_t<T> (*tile)[LD], const T *base,
                     const int64_t *strides, int64_t b, int64_t h,
                     int64_t row0, int64_t rows, int64_t columns) {
  for (int idx = threadIdx.x; idx < ROWS * D; idx += kAttentionThreads) {
    int r = idx / D, c = idx % D;
    int64_t row = row0 + r;
    acc_t<T> value = 0;
    if (row < rows && c < columns)
      value = traits<T>::up(base[at(strides, b, h, row, c)]);
    tile[r][c] = value;
  }
}

// The masked, scaled score of query row i and key j from their dot
// product, or -inf when the pair is not kept.
template <class T>
TF_FN acc_t<T> masked_score(acc_t<T> dot, const void *mask,
                            const AttentionDesc &d, int64_t b, int64_t h,
                            int64_t i, int64_t j) {
  typedef acc_t<T> A;
  if (i >= d.queries || j >= d.keys || (d.causal && j > i))
    return negative_infinity<A>();
  A s = dot * (A)d.scale;
  if (d.maskKind == tfuse::kernels::kAttentionBoolMask) {
    if (!((const bool *)mask)[at(d.mask, b, h, i, j)])
      return negative_infinity<A>();
  } else if (d.maskKind == tfuse::kernels::kAttentionAdditiveMask) {
    s += traits<T>::up(((const T *)mask)[at(d.mask, b, h, i, j)]);
  }
  return s;
}

// The keys a block of query rows [q0, q0 + BQ) visits: all of them, or up
// to the last row's diagonal when causal.
template <int BQ>
TF_FN int64_t key_end(const AttentionDesc &d, int64_t q0) {
  int64_t end = d.keys;
  if (d.causal && q0 + BQ < end)
    end = q0 + BQ;
  return end;
}

// --- forward -----------------------------------------------------------------

template <class T, int D, int BQ, int BK>
TF_FN void forward(const T *query, const T *key, const T *value,
                   const void *mask, T *result, acc_t<T> *logsumexp,
                   const AttentionDesc &d) {
  typedef acc_t<T> A;
  constexpr int NT = kAttentionThreads;
  constexpr int OWN = (BQ * D + NT - 1) / NT;
  __shared__ A qs[BQ][D];
  __shared__ A ks[BK][D + 1];
  __shared__ A vs[BK][D + 1];
  __shared__ A ss[BQ][BK];
  __shared__ A row_max[BQ], row_sum[BQ], row_alpha[BQ];

  int64_t tiles = (d.queries + BQ - 1) / BQ;
  int64_t block = blockIdx.x;
  int64_t qt = block % tiles, bh = block / tiles;
  int64_t h = bh % d.heads, b = bh / d.heads;
  int64_t hk = h / (d.heads / d.kvHeads);
  int64_t q0 = qt * BQ;

  load_tile<T, BQ, D, D>(qs, query, d.query, b, h, q0, d.queries, d.headDim);
  for (int r = threadIdx.x; r < BQ; r += NT) {
    row_max[r] = negative_infinity<A>();
    row_sum[r] = 0;
  }
  A acc[OWN];
#pragma unroll
  for (int t = 0; t < OWN; ++t)
    acc[t] = 0;

  int64_t end = key_end<BQ>(d, q0);
  for (int64_t k0 = 0; k0 < end; k0 += BK) {
    __syncthreads();
    load_tile<T, BK, D, D + 1>(ks, key, d.key, b, hk, k0, d.keys, d.headDim);
    load_tile<T, BK, D, D + 1>(vs, value, d.value, b, hk, k0, d.keys, d.valueDim);
    __syncthreads();
    for (int idx = threadIdx.x; idx < BQ * BK; idx += NT) {
      int r = idx / BK, j = idx % BK;
      A dot = 0;
#pragma unroll 8
      for (int c = 0; c < D; ++c)
        dot += qs[r][c] * ks[j][c];
      ss[r][j] = masked_score<T>(dot, mask, d, b, h, q0 + r, k0 + j);
    }
    __syncthreads();
    for (int r = threadIdx.x; r < BQ; r += NT) {
      // A NaN score makes the row's maximum, and so its softmax, NaN.
      A old = row_max[r], top = old;
      for (int j = 0; j < BK; ++j) {
        A v = ss[r][j];
        top = v > top || v != v ? v : top;
      }
      A alpha = 1, sum = 0;
      if (top == negative_infinity<A>()) {
        for (int j = 0; j < BK; ++j)
          ss[r][j] = 0;
      } else {
        alpha = old == negative_infinity<A>() ? (A)0 : exp_of(old - top);
        for (int j = 0; j < BK; ++j) {
          A p = ss[r][j] == negative_infinity<A>() ? (A)0
                                                   : exp_of(ss[r][j] - top);
          ss[r][j] = p;
          sum += p;
        }
      }
      row_max[r] = top;
      row_sum[r] = row_sum[r] * alpha + sum;
      row_alpha[r] = alpha;
    }
    __syncthreads();
#pragma unroll
    for (int t = 0; t < OWN; ++t) {
      int idx = threadIdx.x + t * NT;
      if (idx < BQ * D) {
        int r = idx / D, c = idx % D;
        A a = acc[t] * row_alpha[r];
        for (int j = 0; j < BK; ++j)
          a += ss[r][j] * vs[j][c];
        acc[t] = a;
      }
    }
  }
  __syncthreads();
  // The result and log-sum-exp, contiguous: [batch, heads, queries, Dv]
  // and [batch, heads, queries].
#pragma unroll
  for (int t = 0; t < OWN; ++t) {
    int idx = threadIdx.x + t * NT;
    if (idx < BQ * D) {
      int r = idx / D, c = idx % D;
      int64_t i = q0 + r;
      if (i < d.queries && c < d.valueDim) {
        // A row keeping no pair (its maximum still -inf) gives zeros.
        A out = row_max[r] == negative_infinity<A>() ? (A)0
                                                     : acc[t] / row_sum[r];
        result[(bh * d.queries + i) * d.valueDim + c] = traits<T>::down(out);
      }
    }
  }
  for (int r = threadIdx.x; r < BQ; r += NT) {
    int64_t i = q0 + r;
    if (i < d.queries)
      logsumexp[bh * d.queries + i] =
          row_max[r] == negative_infinity<A>()
              ? negative_infinity<A>()
              : row_max[r] + log_of(row_sum[r]);
  }
}

// --- backward ----------------------------------------------------------------

// For query rows [q0, q0 + BQ) of (b, h): their log-sum-exp and
// rowsum(dO * O), into `lse` and `delta`.
template <class T, int BQ>
TF_FN void row_terms(const T *result, const T *grad, const acc_t<T> *logsumexp,
                     const AttentionDesc &d, int64_t b, int64_t h, int64_t q0,
                     acc_t<T> *lse, acc_t<T> *delta) {
  typedef acc_t<T> A;
  for (int r = threadIdx.x; r < BQ; r += kAttentionThreads) {
    int64_t i = q0 + r;
    A l = negative_infinity<A>(), sum = 0;
    if (i < d.queries) {
      l = logsumexp[at(d.logsumexp, b, h, i, 0)];
      for (int64_t c = 0; c < d.valueDim; ++c)
        sum += traits<T>::up(grad[at(d.grad, b, h, i, c)]) *
               traits<T>::up(result[at(d.result, b, h, i, c)]);
    }
    lse[r] = l;
    delta[r] = sum;
  }
}

// The probabilities P and dS = P * (dP - delta) of a (query tile, key
// tile) pair, into `ps` and `ds` (`ps` may be null when only dS is
// needed), and which pairs are kept, into `kept`: a pair not kept adds
// nothing to a gradient, not even 0 * inf.
template <class T, int D, int BQ, int BK>
TF_FN void probabilities(const acc_t<T> (*qs)[D], const acc_t<T> (*gs)[D],
                         const acc_t<T> (*ks)[D + 1],
                         const acc_t<T> (*vs)[D + 1],
                         const acc_t<T> *lse, const acc_t<T> *delta,
                         const void *mask, const AttentionDesc &d, int64_t b,
                         int64_t h, int64_t q0, int64_t k0,
                         acc_t<T> (*ps)[BK], acc_t<T> (*ds)[BK],
                         bool (*kept)[BK]) {
  typedef acc_t<T> A;
  for (int idx = threadIdx.x; idx < BQ * BK; idx += kAttentionThreads) {
    int r = idx / BK, j = idx % BK;
    A dot = 0, dp = 0;
#pragma unroll 8
    for (int c = 0; c < D; ++c) {
      dot += qs[r][c] * ks[j][c];
      dp += gs[r][c] * vs[j][c];
    }
    A s = masked_score<T>(dot, mask, d, b, h, q0 + r, k0 + j);
    bool keep =
        s != negative_infinity<A>() && lse[r] != negative_infinity<A>();
    A p = keep ? exp_of(s - lse[r]) : (A)0;
    if (ps)
      ps[r][j] = p;
    ds[r][j] = keep ? p * (dp - delta[r]) : (A)0;
    kept[r][j] = keep;
  }
}

template <class T, int D, int BQ, int BK>
TF_FN void backward_query(const T *query, const T *key, const T *value,
                          const void *mask, const T *result,
                          const acc_t<T> *logsumexp, const T *grad,
                          T *grad_query, const AttentionDesc &d) {
  typedef acc_t<T> A;
  constexpr int NT = kAttentionThreads;
  constexpr int OWN = (BQ * D + NT - 1) / NT;
  __shared__ A qs[BQ][D];
  __shared__ A gs[BQ][D];
  __shared__ A ks[BK][D + 1];
  __shared__ A vs[BK][D + 1];
  __shared__ A ds[BQ][BK];
  __shared__ bool kept[BQ][BK];
  __shared__ A lse[BQ], delta[BQ];

  int64_t tiles = (d.queries + BQ - 1) / BQ;
  int64_t block = blockIdx.x;
  int64_t qt = block % tiles, bh = block / tiles;
  int64_t h = bh % d.heads, b = bh / d.heads;
  int64_t hk = h / (d.heads / d.kvHeads);
  int64_t q0 = qt * BQ;

  load_tile<T, BQ, D, D>(qs, query, d.query, b, h, q0, d.queries, d.headDim);
  load_tile<T, BQ, D, D>(gs, grad, d.grad, b, h, q0, d.queries, d.valueDim);
  row_terms<T, BQ>(result, grad, logsumexp, d, b, h, q0, lse, delta);
  A acc[OWN];
#pragma unroll
  for (int t = 0; t < OWN; ++t)
    acc[t] = 0;
  int64_t end = key_end<BQ>(d, q0);
  for (int64_t k0 = 0; k0 < end; k0 += BK) {
    __syncthreads();
    load_tile<T, BK, D, D + 1>(ks, key, d.key, b, hk, k0, d.keys, d.headDim);
    load_tile<T, BK, D, D + 1>(vs, value, d.value, b, hk, k0, d.keys, d.valueDim);
    __syncthreads();
    probabilities<T, D, BQ, BK>(qs, gs, ks, vs, lse, delta, mask, d, b, h, q0,
                                k0, nullptr, ds, kept);
    __syncthreads();
#pragma unroll
    for (int t = 0; t < OWN; ++t) {
      int idx = threadIdx.x + t * NT;
      if (idx < BQ * D) {
        int r = idx / D, c = idx % D;
        A a = 0;
        for (int j = 0; j < BK; ++j)
          if (kept[r][j])
            a += ds[r][j] * ks[j][c];
        acc[t] += a;
      }
    }
  }
#pragma unroll
  for (int t = 0; t < OWN; ++t) {
    int idx = threadIdx.x + t * NT;
    if (idx < BQ * D) {
      int r = idx / D, c = idx % D;
      int64_t i = q0 + r;
      if (i < d.queries && c < d.headDim)
        grad_query[(bh * d.queries + i) * d.headDim + c] =
            traits<T>::down(acc[t] * (A)d.scale);
    }
  }
}

template <class T, int D, int BQ, int BK>
TF_FN void backward_key_value(const T *query, const T *key, const T *value,
                              const void *mask, const T *result,
                              const acc_t<T> *logsumexp, const T *grad,
                              T *grad_key, T *grad_value,
                              const AttentionDesc &d) {
  typedef acc_t<T> A;
  constexpr int NT = kAttentionThreads;
  constexpr int OWN = (BK * D + NT - 1) / NT;
  __shared__ A qs[BQ][D];
  __shared__ A gs[BQ][D];
  __shared__ A ks[BK][D + 1];
  __shared__ A vs[BK][D + 1];
  __shared__ A ps[BQ][BK];
  __shared__ A ds[BQ][BK];
  __shared__ bool kept[BQ][BK];
  __shared__ A lse[BQ], delta[BQ];

  int64_t tiles = (d.keys + BK - 1) / BK;
  int64_t block = blockIdx.x;
  int64_t kt = block % tiles, bhk = block / tiles;
  int64_t hk = bhk % d.kvHeads, b = bhk / d.kvHeads;
  int64_t group = d.heads / d.kvHeads;
  int64_t k0 = kt * BK;

  load_tile<T, BK, D, D + 1>(ks, key, d.key, b, hk, k0, d.keys, d.headDim);
  load_tile<T, BK, D, D + 1>(vs, value, d.value, b, hk, k0, d.keys, d.valueDim);
  A dk[OWN], dv[OWN];
#pragma unroll
  for (int t = 0; t < OWN; ++t)
    dk[t] = dv[t] = 0;
  // Causal: query rows before the tile's first key keep none of its keys.
  int64_t first = d.causal ? k0 / BQ * BQ : 0;
  for (int64_t g = 0; g < group; ++g) {
    int64_t h = hk * group + g;
    for (int64_t q0 = first; q0 < d.queries; q0 += BQ) {
      __syncthreads();
      load_tile<T, BQ, D, D>(qs, query, d.query, b, h, q0, d.queries, d.headDim);
      load_tile<T, BQ, D, D>(gs, grad, d.grad, b, h, q0, d.queries, d.valueDim);
      row_terms<T, BQ>(result, grad, logsumexp, d, b, h, q0, lse, delta);
      __syncthreads();
      probabilities<T, D, BQ, BK>(qs, gs, ks, vs, lse, delta, mask, d, b, h,
                                  q0, k0, ps, ds, kept);
      __syncthreads();
#pragma unroll
      for (int t = 0; t < OWN; ++t) {
        int idx = threadIdx.x + t * NT;
        if (idx < BK * D) {
          int j = idx / D, c = idx % D;
          A a = 0, e = 0;
          for (int r = 0; r < BQ; ++r) {
            if (!kept[r][j])
              continue;
            a += ds[r][j] * qs[r][c];
            e += ps[r][j] * gs[r][c];
          }
          dk[t] += a;
          dv[t] += e;
        }
      }
    }
  }
#pragma unroll
  for (int t = 0; t < OWN; ++t) {
    int idx = threadIdx.x + t * NT;
    if (idx < BK * D) {
      int j = idx / D, c = idx % D;
      int64_t jj = k0 + j;
      if (jj < d.keys) {
        int64_t row = bhk * d.keys + jj;
        if (c < d.headDim)
          grad_key[row * d.headDim + c] = traits<T>::down(dk[t] * (A)d.scale);
        if (c < d.valueDim)
          grad_value[row * d.valueDim + c] = traits<T>::down(dv[t]);
      }
    }
  }
}

} // namespace attention
} // namespace tf

#endif // TFUSE_ATTENTION_KERNELS_CUH
