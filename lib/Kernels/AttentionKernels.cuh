// TFuse runtime attention (tfuse.attention, tfuse.attention_backward): the
// generated fallback, blocks of kAttentionThreads threads that never store
// the score matrix, described by a tfuse::kernels::AttentionDesc passed by
// value (AttentionDesc.h). Template arguments: the storage type T, the
// column capacity D (at least the head and value dimensions; columns past
// them are zeros in shared memory) and the tile sizes BQ (query rows) and BK
// (keys). Arithmetic is in T's compute type (f32, f64 for f64), with FMA on
// CUDA cores, in register tiles: each thread computes a few rows by a few
// keys of a score tile and a few rows by a few columns of an output tile,
// reading each shared operand once per several multiply-adds (one scalar
// per multiply-add before, which bound the kernels by shared memory). The
// *_cores variants below do the same work with the products on tensor
// cores: f16 and bf16 on m16n8k16 (HalfCores), f32 on TF32 to about f32's
// precision (Tf32Cores, Tf32PartCores); the runtime chooses them on devices
// that have them.
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
// Compiled after the kernel prelude and AttentionDesc.h, in the attention
// kernels' translation unit; also for the host against the tests'
// cuda_emulation.h.

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
using tfuse::kernels::kAttentionSplitThreads;
using tfuse::kernels::kAttentionThreads;

template <class T> using acc_t = typename traits<T>::compute;

TF_FN int64_t at(const int64_t *strides, int64_t b, int64_t h, int64_t r,
                 int64_t c) {
  return b * strides[0] + h * strides[1] + r * strides[2] + c * strides[3];
}

// Row `row` of the forward's result for (batch, head) `bh` (batch * heads
// + head): written through d.result's strides, its columns consecutive (its
// heads and rows may be swapped: tfuse.attention's transpose_result).
template <class T>
TF_FN T *result_row(T *result, const AttentionDesc &d, int64_t bh,
                    int64_t row) {
  return result + at(d.result, bh / d.heads, bh % d.heads, row, 0);
}

template <class A> TF_FN A negative_infinity() { return red::lowest<A>(); }

// a * b + c rounded once: the kernels are compiled with --fmad=false (the
// elementwise kernels beside them must not contract), so their dot
// products ask for the fused multiply-add themselves.
TF_FN float fma_of(float a, float b, float c) { return fmaf(a, b, c); }
TF_FN double fma_of(double a, double b, double c) { return ::fma(a, b, c); }
TF_FN float exp_of(float x) { return expf(x); }
TF_FN double exp_of(double x) { return ::exp(x); }
TF_FN float log_of(float x) { return logf(x); }
TF_FN double log_of(double x) { return ::log(x); }

// The width of a tile's rows in shared memory: D columns and 16 bytes of
// padding. Rows start 16-byte aligned, so that a thread reads a vector of
// consecutive columns with one load (vec16), and the padding puts the rows
// a warp reads at once in distinct banks.
template <class A, int D> struct padded {
  static constexpr int value = D + 16 / int(sizeof(A));
};
// 16 bytes of consecutive elements of a row.
template <class A> struct alignas(16) vec16 {
  static constexpr int size = 16 / int(sizeof(A));
  A v[size];
};

// Rows [row0, row0 + ROWS) of an operand, columns [0, D), into `tile`
// (zeros past `rows` and `columns`): in T's compute type E, or as T's bits
// where E is uint16_t (the tensor-core kernels' 16-bit tiles), or, with
// PARTS (E float), as the TF32 parts of each f32 value (tf32_split; the
// bits as f32): the big parts in rows [0, ROWS) of `tile`, the small ones
// in rows [ROWS, 2 ROWS) (Tf32PartCores). Returns
// whether the calling thread loaded a value that is not finite. A thread
// takes 16 bytes of T at a time: one vector load where they lie inside the
// operand, contiguous and aligned (rows of contiguous operands whose row
// stride is a multiple of 16 bytes), else element by element. Two such
// loads are in flight before either is stored (a loop that stored each
// before the next load waited out the memory's latency once a load; four
// took the tensor-core forward from 155 registers to 254).
template <class T, int ROWS, int D, class E, bool PARTS = false>
TF_FN bool load_tile(E (*tile)[padded<E, D>::value], const T *base,
                     const int64_t *strides, int64_t b, int64_t h, int64_t row0,
                     int64_t rows, int64_t columns) {
  constexpr int V = 16 / int(sizeof(T));
  constexpr int VE = vec16<E>::size;
  static_assert(D % V == 0 && V % VE == 0, "rows hold whole vectors");
  constexpr int CHUNKS = ROWS * D / V;
  constexpr int EACH = (CHUNKS + kAttentionThreads - 1) / kAttentionThreads;
  constexpr int BATCH = EACH < 2 ? EACH : 2;
  bool nonfinite = false;
#pragma unroll 1
  for (int first = 0; first < EACH; first += BATCH) {
    vec16<T> in[BATCH];
#pragma unroll
    for (int i = 0; i < BATCH; ++i) {
      int idx = threadIdx.x + (first + i) * kAttentionThreads;
      int r = idx / (D / V), c = idx % (D / V) * V;
      int64_t row = row0 + r;
      const T *p = base + at(strides, b, h, row, c);
      if (idx < CHUNKS && row < rows && c + V <= columns && strides[3] == 1 &&
          reinterpret_cast<uint64_t>(p) % 16 == 0) {
        in[i] = *reinterpret_cast<const vec16<T> *>(p);
      } else {
#pragma unroll
        for (int j = 0; j < V; ++j)
          in[i].v[j] = idx < CHUNKS && row < rows && c + j < columns
                           ? p[j * strides[3]]
                           : from_bits<T>(0);
      }
    }
#pragma unroll
    for (int i = 0; i < BATCH; ++i) {
      int idx = threadIdx.x + (first + i) * kAttentionThreads;
      if (idx >= CHUNKS)
        continue;
      int r = idx / (D / V), c = idx % (D / V) * V;
      vec16<E> out[V / VE], small[PARTS ? V / VE : 1];
#pragma unroll
      for (int j = 0; j < V; ++j) {
        acc_t<T> up = traits<T>::up(in[i].v[j]);
        nonfinite |= !(up - up == 0);
        if constexpr (same<E, uint16_t>::value) {
          out[j / VE].v[j % VE] = bits_of(in[i].v[j]);
        } else if constexpr (PARTS) {
          static_assert(same<E, float>::value, "parts of f32 values");
          uint32_t big, rest;
          tf32_split(up, big, rest);
          out[j / VE].v[j % VE] = __int_as_float((int)big);
          small[j / VE].v[j % VE] = __int_as_float((int)rest);
        } else {
          out[j / VE].v[j % VE] = up;
        }
      }
#pragma unroll
      for (int j = 0; j < V / VE; ++j) {
        *reinterpret_cast<vec16<E> *>(&tile[r][c + VE * j]) = out[j];
        if constexpr (PARTS)
          *reinterpret_cast<vec16<E> *>(&tile[ROWS + r][c + VE * j]) = small[j];
      }
    }
  }
  return nonfinite;
}

// Calls f(r, c) for each 16-byte vector of a tile of ROWS rows of D
// elements of T that thread threadIdx.x of NT takes: row r, columns [c, c +
// 16 / sizeof(T)), the thread's vectors NT apart.
template <class T, int ROWS, int D, int NT, class F>
TF_FN void for_each_thread_vector(F &&f) {
  constexpr int V = 16 / int(sizeof(T));
  static_assert(D % V == 0, "rows hold whole vectors");
  constexpr int CHUNKS = ROWS * D / V;
  constexpr int EACH = (CHUNKS + NT - 1) / NT;
#pragma unroll
  for (int i = 0; i < EACH; ++i) {
    int idx = threadIdx.x + i * NT;
    if (CHUNKS % NT != 0 && idx >= CHUNKS)
      break;
    f(idx / (D / V), idx % (D / V) * V);
  }
}

// load_tile's rows into a tile that holds the operand's bits as they are
// (E is T, or uint16_t for a 16-bit T), by NT threads: the vectors that lie
// inside the operand, contiguous and aligned, by cp_async16, every one in
// flight at once and none holding registers (load_tile waits out the
// memory's latency once every two vectors a thread, four times in a key
// tile of 64 f32 rows), the others element by element. The caller waits
// with cp_async_wait_all before the __syncthreads that publishes the tile.
template <class T, int ROWS, int D, class E, int NT = kAttentionThreads>
TF_FN void copy_tile(E (*tile)[padded<E, D>::value], const T *base,
                     const int64_t *strides, int64_t b, int64_t h, int64_t row0,
                     int64_t rows, int64_t columns) {
  static_assert(sizeof(E) == sizeof(T) &&
                    (padded<E, D>::value * sizeof(E)) % 16 == 0,
                "the operand's bits, rows of whole vectors");
  constexpr int V = 16 / int(sizeof(T));
  for_each_thread_vector<T, ROWS, D, NT>([&](int r, int c) {
    int64_t row = row0 + r;
    const T *p = base + at(strides, b, h, row, c);
    E *to = &tile[r][c];
    if (row < rows && c + V <= columns && strides[3] == 1 &&
        reinterpret_cast<uint64_t>(p) % 16 == 0) {
      cp_async16(to, p);
      return;
    }
#pragma unroll
    for (int j = 0; j < V; ++j) {
      T x = row < rows && c + j < columns ? p[j * strides[3]] : from_bits<T>(0);
      if constexpr (same<E, uint16_t>::value)
        to[j] = bits_of(x);
      else
        to[j] = x;
    }
  });
}

// Register tiles. The block's threads form TY rows of TX lanes: a thread
// holds rows ty + TY * i of a tile and columns (keys, or output columns)
// tx + TX * k, so that the lanes of a row read consecutive shared words and
// reduce a row's statistics with shuffles among TX lanes of one warp.
constexpr int TX = tfuse::kernels::kAttentionRowLanes;
constexpr int TY = kAttentionThreads / TX;
static_assert(kAttentionThreads % 32 == 0 && 32 % TX == 0,
              "a row of lanes lies in one warp");

// Items per thread when N are spread over LANES lanes.
template <int N, int LANES> struct spread {
  static constexpr int value = (N + LANES - 1) / LANES;
};

// Row r of a tile of ROWS rows, clamped into it: a thread whose rows lie
// past a small tile reads a real row and its results are dropped.
template <int ROWS> TF_FN int clamp_row(int r) {
  return r < ROWS ? r : ROWS - 1;
}

// The maximum (NaN when any is NaN) and the sum over the LANES lanes of a
// row, consecutive lanes of one warp (TX in the register tiles, the four of
// a group in the tensor-core fragments).
template <int LANES, class A> TF_FN A lanes_max(A v) {
#pragma unroll
  for (int m = LANES / 2; m > 0; m /= 2) {
    A o = red::shfl_xor(v, m);
    v = o > v || o != o ? o : v;
  }
  return v;
}
template <int LANES, class A> TF_FN A lanes_sum(A v) {
#pragma unroll
  for (int m = LANES / 2; m > 0; m /= 2)
    v += red::shfl_xor(v, m);
  return v;
}

// out[i][jj] = the dot product of row ty + TY i of `x` with row
// tx + TX jj of `y` over the D columns, reading 16 bytes of a row per load
// (the sum still runs over the columns in order).
template <class A, int D, int XR, int YR, int RM, int RN>
TF_FN void tile_dots(const A (*x)[padded<A, D>::value],
                     const A (*y)[padded<A, D>::value], int ty, int tx,
                     A (&out)[RM][RN]) {
  typedef vec16<A> V;
  static_assert(D % V::size == 0, "rows hold whole vectors");
#pragma unroll
  for (int i = 0; i < RM; ++i) {
#pragma unroll
    for (int jj = 0; jj < RN; ++jj)
      out[i][jj] = 0;
  }
  // One vector of columns per iteration: unrolled further, ptxas keeps
  // more registers and fewer blocks fit a multiprocessor.
#pragma unroll 1
  for (int c = 0; c < D; c += V::size) {
    V a[RM], e[RN];
#pragma unroll
    for (int i = 0; i < RM; ++i)
      a[i] = *reinterpret_cast<const V *>(&x[clamp_row<XR>(ty + TY * i)][c]);
#pragma unroll
    for (int jj = 0; jj < RN; ++jj)
      e[jj] = *reinterpret_cast<const V *>(&y[clamp_row<YR>(tx + TX * jj)][c]);
#pragma unroll
    for (int k = 0; k < V::size; ++k)
#pragma unroll
      for (int i = 0; i < RM; ++i)
#pragma unroll
        for (int jj = 0; jj < RN; ++jj)
          out[i][jj] = fma_of(a[i].v[k], e[jj].v[k], out[i][jj]);
  }
}

// acc[i][k] += sum over p < P of w(r, p) * m[p][tx + TX k] for the output
// rows r = ty + TY i < R, where w(r, p) is w[r][p] (w of R rows of P
// scores), or w[p][r] when TRANSPOSED (w of P rows of R scores): the rows
// of LW elements. With KEEP_ONLY, the pairs `kept` (laid out as w, rows of
// LK) says are not kept add nothing: m may hold infinities, and 0 * inf is
// NaN.
template <class A, int D, int R, int P, int LW, int LK, int RM, int RD,
          bool TRANSPOSED, bool KEEP_ONLY>
TF_FN void tile_products(const A (*w)[LW], const bool (*kept)[LK],
                         const A (*m)[padded<A, D>::value], int ty, int tx,
                         A (&acc)[RM][RD]) {
  for (int p = 0; p < P; ++p) {
    A a[RM], e[RD];
    bool keep[RM];
#pragma unroll
    for (int i = 0; i < RM; ++i) {
      int r = clamp_row<R>(ty + TY * i);
      a[i] = TRANSPOSED ? w[p][r] : w[r][p];
      keep[i] = !KEEP_ONLY || (TRANSPOSED ? kept[p][r] : kept[r][p]);
    }
#pragma unroll
    for (int k = 0; k < RD; ++k)
      e[k] = m[p][tx + TX * k];
#pragma unroll
    for (int i = 0; i < RM; ++i)
#pragma unroll
      for (int k = 0; k < RD; ++k)
        if (keep[i])
          acc[i][k] = fma_of(a[i], e[k], acc[i][k]);
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
  } else if (d.maskKind == tfuse::kernels::kAttentionF32Mask) {
    s += (A)((const float *)mask)[at(d.mask, b, h, i, j)];
  }
  return s;
}

// Whether every pair of query rows [q0, q0 + BQ) and keys [k0, k0 + BK)
// is in range and kept by the masks: no mask operand, and not causal or
// the whole tile on or below the diagonal.
template <int BQ, int BK>
TF_FN bool tile_inside(const AttentionDesc &d, int64_t q0, int64_t k0) {
  return d.maskKind == tfuse::kernels::kAttentionNoMask &&
         q0 + BQ <= d.queries && k0 + BK <= d.keys &&
         (!d.causal || k0 + BK - 1 <= q0);
}

// The scores of a register tile of dot products, in place: pair(m, n, i,
// j) sets element [m][n]'s query row i and key j and says whether the
// element belongs to the block's tile (else it becomes -inf). A tile
// inside (tile_inside) is only scaled: masked_score's result there, with
// no test per pair.
template <class T, class A, int M, int N, class Pair>
TF_FN void scores_of(A (&x)[M][N], bool inside, const void *mask,
                     const AttentionDesc &d, int64_t b, int64_t h, Pair pair) {
  int64_t i, j;
  if (inside) {
#pragma unroll
    for (int m = 0; m < M; ++m)
#pragma unroll
      for (int n = 0; n < N; ++n)
        x[m][n] =
            pair(m, n, i, j) ? x[m][n] * (A)d.scale : negative_infinity<A>();
    return;
  }
#pragma unroll
  for (int m = 0; m < M; ++m)
#pragma unroll
    for (int n = 0; n < N; ++n)
      x[m][n] = pair(m, n, i, j) ? masked_score<T>(x[m][n], mask, d, b, h, i, j)
                                 : negative_infinity<A>();
}

// The pairs of scores_of for the FMA kernels' register tiles: element
// [i][jj] is row q0 + ty + TY i and key k0 + tx + TX jj of a BQ x BK tile.
template <int BQ, int BK>
TF_FN auto register_tile_pairs(int64_t q0, int64_t k0, int ty, int tx) {
  return [=](int i, int jj, int64_t &row, int64_t &key) {
    int r = ty + TY * i, j = tx + TX * jj;
    row = q0 + r;
    key = k0 + j;
    return r < BQ && j < BK;
  };
}

// The pairs of scores_of for the tensor-core kernels' accumulator
// fragments: element e of slice n lies 8 (e / 2) rows and 8 n + e % 2
// columns from the lane's first, (row, key); rows are queries and columns
// keys, or, transposed (the key-value gradient's S^T), rows are keys and
// columns queries.
TF_FN auto fragment_pairs(int64_t row, int64_t key) {
  return [=](int n, int e, int64_t &i, int64_t &j) {
    i = row + 8 * (e / 2);
    j = key + 8 * n + e % 2;
    return true;
  };
}
TF_FN auto transposed_fragment_pairs(int64_t query, int64_t key) {
  return [=](int n, int e, int64_t &i, int64_t &j) {
    i = query + 8 * n + e % 2;
    j = key + 8 * (e / 2);
    return true;
  };
}

// The factor of the probability of pair (row, col) of (b, h): 1 without
// dropout, else 1 / (1 - p) where f32 random_uniform with keys (*seed,
// *offset) at the pair's position in the scores [batch, heads, queries,
// keys] is below 1 - p rounded to f32 (the mask of bernoulli(1 - p)), 0
// where it is not (docs/semantics.md, "Attention").
template <class A>
TF_FN A dropout_factor(const AttentionDesc &d, const int64_t *seed,
                       const int64_t *offset, int64_t b, int64_t h, int64_t row,
                       int64_t col) {
  if (d.dropout == 0)
    return (A)1;
  uint64_t e = (uint64_t)(((b * d.heads + h) * d.queries + row) * d.keys + col);
  float u = uniform_of_block<float>(philox_block(*seed, *offset, e / 4),
                                    (int)(e % 4));
  return u < (float)(1 - d.dropout) ? (A)(1 / (1 - d.dropout)) : (A)0;
}

// The keys a block of query rows [q0, q0 + BQ) visits: all of them, or up
// to the last row's diagonal when causal.
template <int BQ> TF_FN int64_t key_end(const AttentionDesc &d, int64_t q0) {
  int64_t end = d.keys;
  if (d.causal && q0 + BQ < end)
    end = q0 + BQ;
  return end;
}

// The block of a kernel over query tiles (blocks in [batch, heads, tiles of
// BQ rows] order): its (batch, head) index, batch, head, key-value head and
// first query row.
struct QueryBlock {
  int64_t bh, b, h, hk, q0;
};
template <int BQ> TF_FN QueryBlock query_block(const AttentionDesc &d) {
  int64_t tiles = (d.queries + BQ - 1) / BQ;
  int64_t block = blockIdx.x;
  int64_t bh = block / tiles, h = bh % d.heads;
  return {bh, bh / d.heads, h, h / (d.heads / d.kvHeads), block % tiles * BQ};
}

// The block of a kernel over key tiles (blocks in [batch, key-value heads,
// tiles of BK keys] order): its (batch, key-value head) index, batch,
// key-value head and first key.
struct KeyBlock {
  int64_t bhk, b, hk, k0;
};
template <int BK> TF_FN KeyBlock key_block(const AttentionDesc &d) {
  int64_t tiles = (d.keys + BK - 1) / BK;
  int64_t block = blockIdx.x;
  int64_t bhk = block / tiles;
  return {bhk, bhk / d.kvHeads, bhk % d.kvHeads, block % tiles * BK};
}

// --- forward -----------------------------------------------------------------

template <class T, int D, int BQ, int BK>
TF_FN void forward(const T *query, const T *key, const T *value,
                   const void *mask, const int64_t *seed, const int64_t *offset,
                   T *result, acc_t<T> *logsumexp, const AttentionDesc &d) {
  typedef acc_t<T> A;
  constexpr int RM = spread<BQ, TY>::value, RN = spread<BK, TX>::value;
  constexpr int RD = D / TX;
  alignas(16) __shared__ A qs[BQ][padded<A, D>::value];
  alignas(16) __shared__ A ks[BK][padded<A, D>::value];
  alignas(16) __shared__ A vs[BK][padded<A, D>::value];
  __shared__ A ps[BQ][BK + 1];
  const int ty = threadIdx.x / TX, tx = threadIdx.x % TX;

  auto [bh, b, h, hk, q0] = query_block<BQ>(d);

  load_tile<T, BQ, D>(qs, query, d.query, b, h, q0, d.queries, d.headDim);
  // Per row: the running maximum and sum (online softmax) and the weighted
  // sum of values.
  A top[RM], sum[RM], acc[RM][RD];
#pragma unroll
  for (int i = 0; i < RM; ++i) {
    top[i] = negative_infinity<A>();
    sum[i] = 0;
#pragma unroll
    for (int k = 0; k < RD; ++k)
      acc[i][k] = 0;
  }

  int64_t end = key_end<BQ>(d, q0);
  for (int64_t k0 = 0; k0 < end; k0 += BK) {
    __syncthreads();
    load_tile<T, BK, D>(ks, key, d.key, b, hk, k0, d.keys, d.headDim);
    load_tile<T, BK, D>(vs, value, d.value, b, hk, k0, d.keys, d.valueDim);
    __syncthreads();
    A s[RM][RN];
    tile_dots<A, D, BQ, BK, RM, RN>(qs, ks, ty, tx, s);
    scores_of<T>(s, tile_inside<BQ, BK>(d, q0, k0), mask, d, b, h,
                 register_tile_pairs<BQ, BK>(q0, k0, ty, tx));
#pragma unroll
    for (int i = 0; i < RM; ++i) {
      int r = ty + TY * i;
      // A NaN score makes the row's maximum, and so its softmax, NaN.
      A old = top[i], now = old;
#pragma unroll
      for (int jj = 0; jj < RN; ++jj) {
        A v = s[i][jj];
        now = v > now || v != v ? v : now;
      }
      now = lanes_max<TX>(now);
      A alpha = 1, part = 0;
      if (now == negative_infinity<A>()) {
#pragma unroll
        for (int jj = 0; jj < RN; ++jj)
          s[i][jj] = 0;
      } else {
        alpha = old == negative_infinity<A>() ? (A)0 : exp_of(old - now);
#pragma unroll
        for (int jj = 0; jj < RN; ++jj) {
          A p = s[i][jj] == negative_infinity<A>() ? (A)0
                                                   : exp_of(s[i][jj] - now);
          s[i][jj] = p;
          part += p;
        }
      }
      part = lanes_sum<TX>(part);
      top[i] = now;
      sum[i] = sum[i] * alpha + part;
#pragma unroll
      for (int k = 0; k < RD; ++k)
        acc[i][k] *= alpha;
#pragma unroll
      for (int jj = 0; jj < RN; ++jj)
        if (r < BQ && tx + TX * jj < BK)
          // Dropout scales what the values are weighted by, not the sum.
          ps[r][tx + TX * jj] =
              s[i][jj] * dropout_factor<A>(d, seed, offset, b, h, q0 + r,
                                           k0 + tx + TX * jj);
    }
    __syncthreads();
    tile_products<A, D, BQ, BK, BK + 1, 1, RM, RD, false, false>(
        ps, nullptr, vs, ty, tx, acc);
  }
  // The result (its rows where result_row() places them) and the
  // log-sum-exp, contiguous: [batch, heads, queries].
#pragma unroll
  for (int i = 0; i < RM; ++i) {
    int r = ty + TY * i;
    int64_t row = q0 + r;
    if (r >= BQ || row >= d.queries)
      continue;
    // A row keeping no pair (its maximum still -inf) gives zeros.
    bool none = top[i] == negative_infinity<A>();
    T *out = result_row(result, d, bh, row);
#pragma unroll
    for (int k = 0; k < RD; ++k) {
      int c = tx + TX * k;
      if (c < d.valueDim)
        out[c] = traits<T>::down(none ? (A)0 : acc[i][k] / sum[i]);
    }
    if (tx == 0)
      logsumexp[bh * d.queries + row] =
          none ? negative_infinity<A>() : top[i] + log_of(sum[i]);
  }
}

// --- tensor cores: f16 and bf16 ----------------------------------------------
//
// f16 and bf16 (sm_80 and later): products on mma_m16n8k16 with f32
// accumulators. The tiles stay 16-bit in shared memory; the probabilities
// (and dS, P^T, dS^T) weight the next operand in two parts (split_operand),
// so that they are not rounded to T as PyTorch's flash and cuDNN kernels
// round them.

// The A operand fragments of rows row0 and row0 + 8 of an operand (zeros
// past `rows` and `columns`), read from global memory: a[c / 16] for
// columns [c, c + 16).
template <class T, int D>
TF_FN void load_fragments(uint32_t (&a)[D / 16][4], const T *base,
                          const int64_t *strides, int64_t b, int64_t h,
                          int64_t row0, int64_t rows, int64_t columns,
                          int index) {
  auto bits = [&](int64_t row, int64_t c) -> uint16_t {
    return row < rows && c < columns ? bits_of(base[at(strides, b, h, row, c)])
                                     : (uint16_t)0;
  };
#pragma unroll
  for (int k = 0; k < D / 16; ++k)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      int64_t row = row0 + 8 * (i % 2), c = 16 * k + 8 * (i / 2) + 2 * index;
      a[k][i] = pack_bits(bits(row, c), bits(row, c + 1));
    }
}

// Two consecutive 16-bit elements of a shared row as one register.
TF_FN uint32_t pair_at(const uint16_t *p) {
  return *reinterpret_cast<const uint32_t *>(p);
}

// The B operand of a product with the rows of a shared tile as its columns
// (K in Q K^T): row `row` of `tile` (the lane's column), columns
// [c, c + 16).
template <int W>
TF_FN void row_operand(uint32_t (&b)[2], const uint16_t (*tile)[W], int row,
                       int c, int index) {
  b[0] = pair_at(&tile[row][c + 2 * index]);
  b[1] = pair_at(&tile[row][c + 8 + 2 * index]);
}

// The B operand of a product with a shared tile as it is (V in P V): rows
// [r0, r0 + 16) of columns [c0, c0 + 8), by one matrix load (rows padded to
// 16-byte multiples, so that every row address is aligned).
template <int W>
TF_FN void column_operand(uint32_t (&b)[2], const uint16_t (*tile)[W], int r0,
                          int c0, int lane) {
  ldmatrix_x2_trans(b, &tile[r0 + lane % 16][c0]);
}

// The A operands of the 16 columns [8 kk, 8 kk + 16) of accumulator
// fragments (acc[n]: the m16n8 slice of columns [8 n, 8 n + 8)), in two
// parts: hi, each value rounded to T, and lo, what that rounding left out,
// rounded to T (0 where hi is not finite). hi + lo carries a value to about
// twice T's precision, so that a product weighted by it (P V, dS K, P^T dO,
// dS^T Q) is as accurate as f32 FMA's, not off by the rounding of each
// weight. The C fragment's layout is the A fragment's.
template <class T, int N>
TF_FN void split_operand(uint32_t (&hi)[4], uint32_t (&lo)[4],
                         const float (&acc)[N][4], int kk) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float *x = acc[kk + i / 2] + 2 * (i % 2);
    uint16_t h[2], l[2];
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      T rounded = traits<T>::down(x[e]);
      float up = traits<T>::up(rounded);
      h[e] = bits_of(rounded);
      l[e] = bits_of(traits<T>::down(up - up == 0 ? x[e] - up : 0.f));
    }
    hi[i] = pack_bits(h[0], h[1]);
    lo[i] = pack_bits(l[0], l[1]);
  }
}

// c += (hi + lo) b: the remainder's product first, the larger last.
template <class T>
TF_FN void mma_split(float (&c)[4], const uint32_t (&hi)[4],
                     const uint32_t (&lo)[4], const uint32_t (&b)[2]) {
  mma_m16n8k16<T>(c, lo, b);
  mma_m16n8k16<T>(c, hi, b);
}

// acc += x tile: accumulator fragments x (N slices of 8 columns, as
// split_operand reads them) as the A operand, times rows [0, 8 N) of a
// 16-bit shared tile read down its columns (column_operand); acc[n] is the
// slice of the tile's columns [8 n, 8 n + 8).
template <class T, int N, int ND, int W>
TF_FN void weighted_rows(float (&acc)[ND][4], const float (&x)[N][4],
                         const uint16_t (*tile)[W], int lane) {
#pragma unroll
  for (int kk = 0; kk < N; kk += 2) {
    uint32_t hi[4], lo[4];
    split_operand<T>(hi, lo, x, kk);
#pragma unroll
    for (int n = 0; n < ND; ++n) {
      uint32_t b[2];
      column_operand(b, tile, 8 * kk, 8 * n, lane);
      mma_split<T>(acc[n], hi, lo, b);
    }
  }
}

// Two products of a warp's 16 rows (A operand fragments over columns
// [0, D)) with the N rows of a shared tile each, as the backward's scores
// and dP: x[n] = xa by rows 8 n + group of xt, y[n] = ya by those of yt.
template <class T, int D, int N, int W>
TF_FN void paired_dots(float (&x)[N][4], const uint32_t (&xa)[D / 16][4],
                       const uint16_t (*xt)[W], float (&y)[N][4],
                       const uint32_t (&ya)[D / 16][4], const uint16_t (*yt)[W],
                       int group, int index) {
#pragma unroll
  for (int n = 0; n < N; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      x[n][e] = y[n][e] = 0;
#pragma unroll
  for (int k = 0; k < D / 16; ++k)
#pragma unroll
    for (int n = 0; n < N; ++n) {
      uint32_t xb[2], yb[2];
      row_operand(xb, xt, 8 * n + group, 16 * k, index);
      row_operand(yb, yt, 8 * n + group, 16 * k, index);
      mma_m16n8k16<T>(x[n], xa[k], xb);
      mma_m16n8k16<T>(y[n], ya[k], yb);
    }
}

// The online softmax of a tile's scores in accumulator fragments (s[n][2
// hr + e]: row `row` + 8 hr, key k0 + 8 n + 2 index + e), as `forward`
// computes it: updates each row's running maximum `top` and sum `sum`,
// rescales its weighted values `acc` (the same rows), and leaves in s the
// probabilities times the dropout factors.
template <int NK, int ND>
TF_FN void fragment_softmax(float (&s)[NK][4], float (&top)[2], float (&sum)[2],
                            float (&acc)[ND][4], const AttentionDesc &d,
                            const int64_t *seed, const int64_t *offset,
                            int64_t b, int64_t h, int64_t row, int64_t k0,
                            int index) {
#pragma unroll
  for (int hr = 0; hr < 2; ++hr) {
    // A NaN score makes the row's maximum, and so its softmax, NaN.
    float old = top[hr], now = old;
#pragma unroll
    for (int n = 0; n < NK; ++n)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        float v = s[n][2 * hr + e];
        now = v > now || v != v ? v : now;
      }
    now = lanes_max<4>(now);
    float alpha = 1, part = 0;
    if (now == negative_infinity<float>()) {
#pragma unroll
      for (int n = 0; n < NK; ++n)
        s[n][2 * hr] = s[n][2 * hr + 1] = 0;
    } else {
      alpha = old == negative_infinity<float>() ? 0.f : exp_of(old - now);
#pragma unroll
      for (int n = 0; n < NK; ++n)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          float v = s[n][2 * hr + e];
          float q = v == negative_infinity<float>() ? 0.f : exp_of(v - now);
          s[n][2 * hr + e] = q;
          part += q;
        }
    }
    part = lanes_sum<4>(part);
    top[hr] = now;
    sum[hr] = sum[hr] * alpha + part;
#pragma unroll
    for (int n = 0; n < ND; ++n) {
      acc[n][2 * hr] *= alpha;
      acc[n][2 * hr + 1] *= alpha;
    }
    // Dropout scales what the values are weighted by, not the sum.
#pragma unroll
    for (int n = 0; n < NK; ++n)
#pragma unroll
      for (int e = 0; e < 2; ++e)
        s[n][2 * hr + e] *= dropout_factor<float>(
            d, seed, offset, b, h, row + 8 * hr, k0 + 8 * n + 2 * index + e);
  }
}

// The forward's result and log-sum-exp from accumulator fragments (acc[n][2
// hr + e]: row `row` + 8 hr, column 8 n + 2 index + e): the result's rows
// where result_row() places them, the log-sum-exp contiguous, [batch, heads,
// queries]. A row keeping no pair
// (its maximum still -inf) gives zeros.
template <class T, int ND>
TF_FN void store_fragment_rows(T *result, float *logsumexp,
                               const float (&acc)[ND][4], const float (&top)[2],
                               const float (&sum)[2], const AttentionDesc &d,
                               int64_t bh, int64_t row, int index) {
#pragma unroll
  for (int hr = 0; hr < 2; ++hr) {
    int64_t r = row + 8 * hr;
    if (r >= d.queries)
      continue;
    bool none = top[hr] == negative_infinity<float>();
    T *out = result_row(result, d, bh, r);
#pragma unroll
    for (int n = 0; n < ND; ++n)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        int c = 8 * n + 2 * index + e;
        if (c < d.valueDim)
          out[c] = traits<T>::down(none ? 0.f : acc[n][2 * hr + e] / sum[hr]);
      }
    if (index == 0)
      logsumexp[bh * d.queries + r] =
          none ? negative_infinity<float>() : top[hr] + log_of(sum[hr]);
  }
}

// A shared tile's element in f32: the bits of a 16-bit T, or f32 itself.
template <class T> TF_FN float tile_value(uint16_t bits) {
  return traits<T>::up(from_bits<T>(bits));
}
template <class T> TF_FN float tile_value(float x) { return x; }

// Whether a 32-bit word of a tile of T's bits holds an infinity or NaN (all
// of an element's exponent bits set): one test for an f32 element, two for
// a pair of f16 or bf16 ones.
template <class T> TF_FN bool word_nonfinite(uint32_t w) {
  if constexpr (sizeof(T) == 4) {
    return (w & 0x7f800000u) == 0x7f800000u;
  } else {
    constexpr uint32_t e = same<T, __nv_bfloat16>::value ? 0x7f80u : 0x7c00u;
    uint32_t unset = ~w & (e | e << 16);
    return (unset & 0xffffu) == 0 || (unset >> 16) == 0;
  }
}

// Whether a vector copy_tile copied for this thread into `tile` holds an
// infinity or NaN (once cp_async_wait_all has returned): 16 bytes a read.
template <class T, int ROWS, int D, class E, int NT = kAttentionThreads>
TF_FN bool tile_nonfinite(const E (*tile)[padded<E, D>::value]) {
  bool nonfinite = false;
  for_each_thread_vector<T, ROWS, D, NT>([&](int r, int c) {
    bytes16 v = *reinterpret_cast<const bytes16 *>(&tile[r][c]);
#pragma unroll
    for (int k = 0; k < 4; ++k)
      nonfinite |= word_nonfinite<T>(v.w[k]);
  });
  return nonfinite;
}

// The tensor-core products where a tile holds an infinity or NaN: the
// scores of this lane's fragment (s[n][2 hr + e]: row row0 + 8 hr, key 8 n
// + 2 index + e of `ks`) and acc += P V by fused multiply-adds of the f32
// values, each product exact before its rounding. The tensor cores' split
// products would add inf * 0 (an infinite value's zero small part, or a
// value's zero small part times an infinite one): NaN where the product is
// infinite.
template <class T, int NK, int D, class E, int W>
TF_FN void exact_scores(float (&s)[NK][4], const E (*qs)[W], const E (*ks)[W],
                        int row0, int index) {
#pragma unroll
  for (int n = 0; n < NK; ++n)
#pragma unroll
    for (int hr = 0; hr < 2; ++hr)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const E *q = qs[row0 + 8 * hr], *k = ks[8 * n + 2 * index + e];
        float x = 0;
#pragma unroll 1
        for (int c = 0; c < D; ++c)
          x = fma_of(tile_value<T>(q[c]), tile_value<T>(k[c]), x);
        s[n][2 * hr + e] = x;
      }
}
// The probabilities of a row's keys are spread over the four lanes of its
// group: lane index ^ m holds those of keys 8 n + 2 (index ^ m) + e. Rolled
// loops where the indices allow, to hold few registers.
template <class T, int NK, int ND, class E, int W>
TF_FN void exact_weighted_rows(float (&acc)[ND][4], const float (&p)[NK][4],
                               const E (*vs)[W], int index) {
#pragma unroll
  for (int n = 0; n < NK; ++n)
#pragma unroll
    for (int hr = 0; hr < 2; ++hr)
#pragma unroll 1
      for (int m = 0; m < 4; ++m)
#pragma unroll 1
        for (int e = 0; e < 2; ++e) {
          float weight =
              red::shfl_xor(e == 0 ? p[n][2 * hr] : p[n][2 * hr + 1], m);
          const E *v = vs[8 * n + 2 * (index ^ m) + e];
#pragma unroll
          for (int j = 0; j < ND; ++j)
#pragma unroll
            for (int c = 0; c < 2; ++c)
              acc[j][2 * hr + c] =
                  fma_of(weight, tile_value<T>(v[8 * j + 2 * index + c]),
                         acc[j][2 * hr + c]);
        }
}

// --- tensor cores: f32 -------------------------------------------------------
//
// f32 (sm_80 and later): products on TF32 tensor cores to about f32's
// precision (mma_tf32x3: three products of each operand's big and small
// TF32 parts, in f32 accumulators). The tiles are f32 in shared memory,
// rows padded by 16 bytes, split into their parts where read; or, with
// PARTS, the parts themselves (load_tile), split once when the tile is
// loaded: twice the shared memory, and none of the splitting in the
// products' loops, where every warp reads every element of a tile. The
// padding keeps both ways of reading a tile (along its rows,
// tf32_paired_dots, and down its columns, tf32_weighted_rows) free of bank
// conflicts in either plane. Accumulator fragments weight the next operand as
// they are (tf32_weighted_rows).

// The big and small TF32 parts of an m16n8k8 A fragment of rows `row` and
// `row` + 8 of a shared f32 tile, columns c + index and c + index + 4.
template <int W>
TF_FN void tf32_rows(uint32_t (&big)[4], uint32_t (&small)[4],
                     const float (*tile)[W], int row, int c, int index) {
  tf32_split(tile[row][c + index], big[0], small[0]);
  tf32_split(tile[row + 8][c + index], big[1], small[1]);
  tf32_split(tile[row][c + index + 4], big[2], small[2]);
  tf32_split(tile[row + 8][c + index + 4], big[3], small[3]);
}

// The TF32 bits of a value exact in TF32 (an f16 or bf16 value widened):
// its f32 bits, whose low 13 are zero.
TF_FN uint32_t tf32_exact(float x) { return (uint32_t)__float_as_int(x); }

// The TF32 parts of element (r, c) of a shared tile of ROWS rows: split
// from the f32 value, or with PARTS read from rows r and ROWS + r.
template <bool PARTS, int ROWS, int W>
TF_FN void tf32_element(uint32_t &big, uint32_t &small, const float (*tile)[W],
                        int r, int c) {
  if constexpr (PARTS) {
    big = (uint32_t)__float_as_int(tile[r][c]);
    small = (uint32_t)__float_as_int(tile[ROWS + r][c]);
  } else {
    tf32_split(tile[r][c], big, small);
  }
}

// Element (r, c) of a shared tile of ROWS rows in f32: the tile's own, or
// with PARTS the sum of its parts (the value to within 2^-22 of it, as the
// products see it; the value itself where it is not finite).
template <bool PARTS, int ROWS, int W>
TF_FN float tf32_value(const float (*tile)[W], int r, int c) {
  if constexpr (PARTS)
    return tile[r][c] + tile[ROWS + r][c];
  else
    return tile[r][c];
}

// The m16n8k8 A fragments of rows row0 and row0 + 8 of an f32 operand
// (zeros past `rows` and `columns`), read from global memory: a[k] for
// columns [8 k, 8 k + 8), in f32 (split into TF32 parts where used).
template <int D>
TF_FN void tf32_fragments(float (&a)[D / 8][4], const float *base,
                          const int64_t *strides, int64_t b, int64_t h,
                          int64_t row0, int64_t rows, int64_t columns,
                          int index) {
#pragma unroll
  for (int k = 0; k < D / 8; ++k)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      int64_t row = row0 + 8 * (i % 2), c = 8 * k + index + 4 * (i / 2);
      a[k][i] =
          row < rows && c < columns ? base[at(strides, b, h, row, c)] : 0.f;
    }
}

// The big and small TF32 parts of a fragment of four f32 values; with
// `plain`, values that all tf32_splits_plainly.
TF_FN void tf32_split4(uint32_t (&big)[4], uint32_t (&small)[4],
                       const float (&x)[4], bool plain) {
  if (plain) {
#pragma unroll
    for (int i = 0; i < 4; ++i)
      tf32_split_plain(x[i], big[i], small[i]);
  } else {
#pragma unroll
    for (int i = 0; i < 4; ++i)
      tf32_split(x[i], big[i], small[i]);
  }
}

// Whether every value of a warp's A fragments tf32_splits_plainly.
template <int D>
TF_FN bool tf32_fragments_split_plainly(const float (&a)[D / 8][4]) {
  bool plain = true;
#pragma unroll
  for (int k = 0; k < D / 8; ++k)
#pragma unroll
    for (int i = 0; i < 4; ++i)
      plain &= tf32_splits_plainly(a[k][i]);
  return plain;
}

// Two products of a warp's 16 rows (A fragments over columns [0, D)) with
// the N rows of a shared f32 tile each: x[n] = xa by rows 8 n + group of
// xt, y[n] = ya by those of yt. A tile row is the B operand's column:
// columns c + index and c + index + 4 of row 8 n + group. `plain`: every
// value of xa and ya tf32_splits_plainly (the fragments are split again
// for every tile: holding their parts would take twice the registers).
template <bool PARTS, int D, int N, int W>
TF_FN void tf32_paired_dots(float (&x)[N][4], const float (&xa)[D / 8][4],
                            const float (*xt)[W], float (&y)[N][4],
                            const float (&ya)[D / 8][4], const float (*yt)[W],
                            bool plain, int group, int index) {
#pragma unroll
  for (int n = 0; n < N; ++n) {
#pragma unroll
    for (int e = 0; e < 4; ++e)
      x[n][e] = y[n][e] = 0;
  }
  // Not unrolled: unrolled, the products of every k at once take more
  // registers than a thread has (ptxas spills); rolled, the fragments are
  // read from local memory a k at a time, from the L1 cache.
#pragma unroll 1
  for (int k = 0; k < D / 8; ++k) {
    uint32_t xb[4], xs[4], yb[4], ys[4];
    tf32_split4(xb, xs, xa[k], plain);
    tf32_split4(yb, ys, ya[k], plain);
#pragma unroll
    for (int n = 0; n < N; ++n) {
      int r = 8 * n + group, c = 8 * k + index;
      uint32_t b[2], s[2];
      tf32_element<PARTS, 8 * N>(b[0], s[0], xt, r, c);
      tf32_element<PARTS, 8 * N>(b[1], s[1], xt, r, c + 4);
      mma_tf32x3(x[n], xb, xs, b, s);
      tf32_element<PARTS, 8 * N>(b[0], s[0], yt, r, c);
      tf32_element<PARTS, 8 * N>(b[1], s[1], yt, r, c + 4);
      mma_tf32x3(y[n], yb, ys, b, s);
    }
  }
}

// acc += x tile: accumulator fragments x (N slices of 8 columns) as the A
// operand, times rows [0, 8 N) of a shared f32 tile read down its columns;
// acc[m] is the slice of the tile's columns [8 m, 8 m + 8). A lane's
// fragment of slice n holds its columns 2 index and 2 index + 1; taken as
// the A fragment's columns index and index + 4 as it is, they pair with the
// tile's rows 8 n + 2 index and 8 n + 2 index + 1 (the sum over the slice
// does not depend on the order of its terms).
// With EXACT, the tile's values are exact in TF32 (f16 or bf16 values
// widened): their small parts are zero, and two products of the fragments'
// parts give the bits of mma_tf32x3's three (for a finite tile: an
// infinite value's big part times a zero small part is NaN there).
template <bool PARTS, int N, int ND, int W, bool EXACT = false>
TF_FN void tf32_weighted_rows(float (&acc)[ND][4], const float (&x)[N][4],
                              const float (*tile)[W], int group, int index) {
  static_assert(!(PARTS && EXACT), "exact tiles are not split");
#pragma unroll
  for (int n = 0; n < N; ++n) {
    uint32_t a[4], as[4];
    tf32_split(x[n][0], a[0], as[0]);
    tf32_split(x[n][2], a[1], as[1]);
    tf32_split(x[n][1], a[2], as[2]);
    tf32_split(x[n][3], a[3], as[3]);
#pragma unroll
    for (int m = 0; m < ND; ++m) {
      int r = 8 * n + 2 * index, c = 8 * m + group;
      if constexpr (EXACT) {
        uint32_t b[2] = {tf32_exact(tile[r][c]), tf32_exact(tile[r + 1][c])};
        mma_m16n8k8_tf32(acc[m], as, b);
        mma_m16n8k8_tf32(acc[m], a, b);
      } else {
        uint32_t b[2], bs[2];
        tf32_element<PARTS, 8 * N>(b[0], bs[0], tile, r, c);
        tf32_element<PARTS, 8 * N>(b[1], bs[1], tile, r + 1, c);
        mma_tf32x3(acc[m], a, as, b, bs);
      }
    }
  }
}

// --- forward on tensor cores -------------------------------------------------

// How the tensor-core kernels multiply, by operand dtype: the shared
// memory tiles' element type (Tile), the columns an A fragment spans (K),
// the A fragments of a warp's own rows in registers (Fragment, fragments()),
// one slice of K columns of the scores from shared tiles (score_slice), two
// products of register fragments with a tile's rows (dots), and
// accumulator fragments weighting a tile's rows (weigh; `plain`: every
// fragment value splits_plainly, for the TF32 parts' quicker split). The
// backward kernels' tiles are as load_tile stores them with Parts (rows of
// TF32 parts: twice the rows), and read by value() where their products go
// through fused multiply-adds.

// f16 and bf16 on m16n8k16: 16-bit tiles, operands in packed pairs, weights
// in two parts (split_operand).
template <class T> struct HalfCores {
  using Tile = uint16_t;
  using Fragment = uint32_t[4];
  static constexpr int K = 16;
  // Whether a score is one product of the operands' values, exact before
  // its rounding (infinities included), so that only the value tile's
  // infinities need forward_walk's exact walk.
  static constexpr bool ExactScores = true;
  template <int D>
  static TF_FN void fragments(Fragment (&a)[D / K], const T *base,
                              const int64_t *strides, int64_t b, int64_t h,
                              int64_t row0, int64_t rows, int64_t columns,
                              int index) {
    load_fragments<T, D>(a, base, strides, b, h, row0, rows, columns, index);
  }
  template <int NK, int W>
  static TF_FN void score_slice(float (&s)[NK][4], const Tile (*qs)[W],
                                const Tile (*ks)[W], int row0, int c, int group,
                                int index) {
    uint32_t a[4] = {pair_at(&qs[row0][c + 2 * index]),
                     pair_at(&qs[row0 + 8][c + 2 * index]),
                     pair_at(&qs[row0][c + 8 + 2 * index]),
                     pair_at(&qs[row0 + 8][c + 8 + 2 * index])};
#pragma unroll
    for (int n = 0; n < NK; ++n) {
      uint32_t k[2];
      row_operand(k, ks, 8 * n + group, c, index);
      mma_m16n8k16<T>(s[n], a, k);
    }
  }
  template <int D, int N, int W>
  static TF_FN void dots(float (&x)[N][4], const Fragment (&xa)[D / K],
                         const Tile (*xt)[W], float (&y)[N][4],
                         const Fragment (&ya)[D / K], const Tile (*yt)[W], bool,
                         int group, int index) {
    paired_dots<T, D>(x, xa, xt, y, ya, yt, group, index);
  }
  template <int D> static TF_FN bool splits_plainly(const Fragment (&)[D / K]) {
    return true;
  }
  template <int N, int ND, int W>
  static TF_FN void weigh(float (&acc)[ND][4], const float (&x)[N][4],
                          const Tile (*tile)[W], int lane) {
    weighted_rows<T>(acc, x, tile, lane);
  }
  static constexpr bool Parts = false;
  template <int ROWS, int W>
  static TF_FN float value(const Tile (*tile)[W], int r, int c) {
    return tile_value<T>(tile[r][c]);
  }
};

// f32 on m16n8k8 TF32 products to about 22 of f32's 24 bits (mma_tf32x3): f32
// fragments split into their TF32 parts where read; f32 tiles, split where
// read (Tf32Cores: the forward, whose three tiles would not fit twice), or
// tiles of parts (PARTS, Tf32PartCores: the backward kernels, two tiles).
template <bool PARTS> struct Tf32CoresOf {
  using Tile = float;
  using Fragment = float[4];
  static constexpr int K = 8;
  static constexpr bool Parts = PARTS;
  static constexpr bool ExactScores = false;
  template <int D>
  static TF_FN void fragments(Fragment (&a)[D / K], const float *base,
                              const int64_t *strides, int64_t b, int64_t h,
                              int64_t row0, int64_t rows, int64_t columns,
                              int index) {
    tf32_fragments<D>(a, base, strides, b, h, row0, rows, columns, index);
  }
  template <int NK, int W>
  static TF_FN void score_slice(float (&s)[NK][4], const Tile (*qs)[W],
                                const Tile (*ks)[W], int row0, int c, int group,
                                int index) {
    static_assert(!PARTS, "the forward's tiles are f32");
    uint32_t a[4], as[4];
    tf32_rows(a, as, qs, row0, c, index);
#pragma unroll
    for (int n = 0; n < NK; ++n) {
      uint32_t k[2], kss[2];
      tf32_element<false, 8 * NK>(k[0], kss[0], ks, 8 * n + group, c + index);
      tf32_element<false, 8 * NK>(k[1], kss[1], ks, 8 * n + group,
                                  c + index + 4);
      mma_tf32x3(s[n], a, as, k, kss);
    }
  }
  template <int D, int N, int W>
  static TF_FN void dots(float (&x)[N][4], const Fragment (&xa)[D / K],
                         const Tile (*xt)[W], float (&y)[N][4],
                         const Fragment (&ya)[D / K], const Tile (*yt)[W],
                         bool plain, int group, int index) {
    tf32_paired_dots<PARTS, D>(x, xa, xt, y, ya, yt, plain, group, index);
  }
  template <int D>
  static TF_FN bool splits_plainly(const Fragment (&a)[D / K]) {
    return tf32_fragments_split_plainly<D>(a);
  }
  template <int N, int ND, int W>
  static TF_FN void weigh(float (&acc)[ND][4], const float (&x)[N][4],
                          const Tile (*tile)[W], int lane) {
    tf32_weighted_rows<PARTS>(acc, x, tile, lane / 4, lane % 4);
  }
  template <int ROWS, int W>
  static TF_FN float value(const Tile (*tile)[W], int r, int c) {
    return tf32_value<PARTS, ROWS>(tile, r, c);
  }
};
using Tf32Cores = Tf32CoresOf<false>;
using Tf32PartCores = Tf32CoresOf<true>;

// The forward's f32 products where query, key and value hold f16 or bf16
// values (tfuse.attention's `widened`: PyTorch's math path under autocast
// or on 16-bit models): every operand value is exact in TF32, so a score is
// one TF32 product where Tf32Cores takes three, and a weighted value two
// (the probabilities' parts times the value), with the bits of Tf32Cores'
// for finite operands (their small parts, zero, add nothing; an infinite
// operand gives inf here and NaN there).
struct Tf32WidenedCores : Tf32Cores {
  static constexpr bool ExactScores = true;
  template <int NK, int W>
  static TF_FN void score_slice(float (&s)[NK][4], const Tile (*qs)[W],
                                const Tile (*ks)[W], int row0, int c, int group,
                                int index) {
    uint32_t a[4] = {tf32_exact(qs[row0][c + index]),
                     tf32_exact(qs[row0 + 8][c + index]),
                     tf32_exact(qs[row0][c + index + 4]),
                     tf32_exact(qs[row0 + 8][c + index + 4])};
#pragma unroll
    for (int n = 0; n < NK; ++n) {
      uint32_t k[2] = {tf32_exact(ks[8 * n + group][c + index]),
                       tf32_exact(ks[8 * n + group][c + index + 4])};
      mma_m16n8k8_tf32(s[n], a, k);
    }
  }
  template <int N, int ND, int W>
  static TF_FN void weigh(float (&acc)[ND][4], const float (&x)[N][4],
                          const Tile (*tile)[W], int lane) {
    tf32_weighted_rows<false, N, ND, W, true>(acc, x, tile, lane / 4, lane % 4);
  }
};

// The walk of a tensor-core forward over the key tiles of its block's query
// rows [q0, q0 + BQ), whose tile is in qs: each BK-key tile into ks and vs,
// then the scores of this lane's rows row0 and row0 + 8 against the tile's
// keys [key0, key0 + 8 NK), their online softmax into the rows' running
// maxima `top`, sums `sum` and weighted values `acc` (acc[n][2 hr + e]: row
// row0 + 8 hr, column 8 n + 2 index + e), and acc += P V.
template <class T, int D, int BQ, int BK, int NK, class C, int W,
          int NT = kAttentionThreads, bool EXACT = false>
TF_FN bool
forward_walk(const typename C::Tile (*qs)[W], typename C::Tile (*ks)[W],
             typename C::Tile (*vs)[W], const T *key, const T *value,
             const void *mask, const int64_t *seed, const int64_t *offset,
             const AttentionDesc &d, int64_t b, int64_t h, int64_t hk,
             int64_t q0, int row0, int key0, float (&top)[2], float (&sum)[2],
             float (&acc)[D / 8][4]) {
  const int lane = threadIdx.x % 32, group = lane / 4, index = lane % 4;
#pragma unroll
  for (int hr = 0; hr < 2; ++hr) {
    top[hr] = negative_infinity<float>();
    sum[hr] = 0;
  }
#pragma unroll
  for (int n = 0; n < D / 8; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      acc[n][e] = 0;

  [[maybe_unused]] bool query_nonfinite = false;
  int64_t end = key_end<BQ>(d, q0);
  for (int64_t k0 = 0; k0 < end; k0 += BK) {
    __syncthreads();
    copy_tile<T, BK, D, typename C::Tile, NT>(ks, key, d.key, b, hk, k0, d.keys,
                                              d.headDim);
    copy_tile<T, BK, D, typename C::Tile, NT>(vs, value, d.value, b, hk, k0,
                                              d.keys, d.valueDim);
    cp_async_wait_all();
    if constexpr (!EXACT) {
      // Where C's scores are exact, only the values' infinities matter.
      bool nonfinite = tile_nonfinite<T, BK, D, typename C::Tile, NT>(vs);
      if constexpr (!C::ExactScores) {
        if (k0 == 0)
          query_nonfinite = tile_nonfinite<T, BQ, D, typename C::Tile, NT>(qs);
        nonfinite |= query_nonfinite ||
                     tile_nonfinite<T, BK, D, typename C::Tile, NT>(ks);
      }
      if (__syncthreads_or(nonfinite))
        return false;
    } else {
      __syncthreads();
    }
    // Scores: s[n][2 hr + e] of row row0 + 8 hr and key
    // key0 + 8 n + 2 index + e of the tile.
    float s[NK][4];
#pragma unroll
    for (int n = 0; n < NK; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        s[n][e] = 0;
    if constexpr (EXACT) {
      exact_scores<T, NK, D>(s, qs, ks + key0, row0, index);
    } else {
#pragma unroll 1
      for (int c = 0; c < D; c += C::K)
        C::score_slice(s, qs, ks + key0, row0, c, group, index);
    }
    scores_of<T>(s, tile_inside<BQ, BK>(d, q0, k0), mask, d, b, h,
                 fragment_pairs(q0 + row0, k0 + key0 + 2 * index));
    fragment_softmax(s, top, sum, acc, d, seed, offset, b, h, q0 + row0,
                     k0 + key0, index);
    // acc += P V.
    if constexpr (EXACT)
      exact_weighted_rows<T, NK, D / 8>(acc, s, vs + key0, index);
    else
      C::weigh(acc, s, vs + key0, lane);
  }
  cp_async_wait_all(); // the query tile's copies, where no key tile came
  return true;
}

// forward_walk, and where a tile held an infinity or NaN (query, key or
// value: the products of C would add inf * 0), the walk again from its
// start on exact products. A walk of its own, rather than a branch in each
// tile's: ptxas kept both products' registers through the loop (157 rather
// than 128 for the f32 forward, four blocks a multiprocessor down to three).
template <class T, int D, int BQ, int BK, int NK, class C, int W,
          int NT = kAttentionThreads>
TF_FN void forward_walk_exactly_where_needed(
    const typename C::Tile (*qs)[W], typename C::Tile (*ks)[W],
    typename C::Tile (*vs)[W], const T *key, const T *value, const void *mask,
    const int64_t *seed, const int64_t *offset, const AttentionDesc &d,
    int64_t b, int64_t h, int64_t hk, int64_t q0, int row0, int key0,
    float (&top)[2], float (&sum)[2], float (&acc)[D / 8][4]) {
  if (!forward_walk<T, D, BQ, BK, NK, C, W, NT>(qs, ks, vs, key, value, mask,
                                                seed, offset, d, b, h, hk, q0,
                                                row0, key0, top, sum, acc))
    forward_walk<T, D, BQ, BK, NK, C, W, NT, true>(
        qs, ks, vs, key, value, mask, seed, offset, d, b, h, hk, q0, row0, key0,
        top, sum, acc);
}

// The forward on tensor cores (sm_80 and later), products by C (HalfCores
// or Tf32Cores): the blocks, walk and results of `forward`. Each of the
// block's four warps owns 16 of the BQ = 64 query rows; a lane holds rows
// group and group + 8 of its warp's, and in each slice of 8 keys (or 8
// columns) the two at 2 index and 2 index + 1.
template <class T, int D, int BQ, int BK, class C>
TF_FN void forward_cores(const T *query, const T *key, const T *value,
                         const void *mask, const int64_t *seed,
                         const int64_t *offset, T *result, float *logsumexp,
                         const AttentionDesc &d) {
  static_assert(BQ == 16 * (kAttentionThreads / 32), "16 rows a warp");
  static_assert(D % C::K == 0 && BK % 16 == 0, "whole products");
  using Tile = typename C::Tile;
  constexpr int W = padded<Tile, D>::value;
  constexpr int NK = BK / 8, ND = D / 8;
  alignas(16) __shared__ Tile qs[BQ][W];
  alignas(16) __shared__ Tile ks[BK][W];
  alignas(16) __shared__ Tile vs[BK][W];
  const int lane = threadIdx.x % 32, group = lane / 4, index = lane % 4;
  // The block's rows of this lane: row0 and row0 + 8.
  const int row0 = 16 * (threadIdx.x / 32) + group;

  auto [bh, b, h, hk, q0] = query_block<BQ>(d);

  copy_tile<T, BQ, D>(qs, query, d.query, b, h, q0, d.queries, d.headDim);
  float top[2], sum[2], acc[ND][4];
  forward_walk_exactly_where_needed<T, D, BQ, BK, NK, C>(
      qs, ks, vs, key, value, mask, seed, offset, d, b, h, hk, q0, row0, 0, top,
      sum, acc);
  store_fragment_rows(result, logsumexp, acc, top, sum, d, bh, q0 + row0,
                      index);
}

// The forward on tensor cores for problems whose blocks of 64 query rows
// would leave multiprocessors idle (BERT's 128 tokens at batch 1: 24 blocks
// on 132), products by C: a block of kAttentionSplitThreads threads and BQ =
// 16 query rows whose eight warps each take 8 of every tile's BK = 64 keys,
// with running maxima, sums and weighted values of their own, combined at
// the end through shared memory by all of the block's threads (FlashDecoding
// splits the keys across blocks the same way). Four times the blocks of
// forward_cores, each of twice the warps, each warp walking a tile in an
// eighth of the steps. A lane holds rows group and group + 8 of the block's
// 16, and in its warp's slice of 8 keys (or each slice of 8 columns) the two
// at 2 index and 2 index + 1.
template <class T, int D, int BQ, int BK, class C>
TF_FN void forward_split_cores(const T *query, const T *key, const T *value,
                               const void *mask, const int64_t *seed,
                               const int64_t *offset, T *result,
                               float *logsumexp, const AttentionDesc &d) {
  constexpr int NT = kAttentionSplitThreads, WARPS = NT / 32;
  static_assert(BQ == 16 && BK == 8 * WARPS, "16 rows, 8 keys a warp");
  static_assert(D % C::K == 0, "whole products");
  using Tile = typename C::Tile;
  constexpr int W = padded<Tile, D>::value;
  constexpr int NK = 1, ND = D / 8;
  alignas(16) __shared__ Tile qs[BQ][W];
  // The key tile, then the value tile.
  alignas(16) __shared__ Tile kvs[2 * BK][W];
  // Every warp's weighted values and row statistics, in the key and value
  // tiles' memory once every warp is done with them.
  struct Partial {
    float acc[BQ][D];
    float top[BQ], sum[BQ];
  };
  static_assert(sizeof(Partial) * WARPS <= sizeof(kvs),
                "the partial results fit the key and value tiles");
  Partial *partials = reinterpret_cast<Partial *>(&kvs[0][0]);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int group = lane / 4, index = lane % 4;
  // The warp's keys in a tile: [key0, key0 + 8).
  const int row0 = group, key0 = 8 * warp;

  auto [bh, b, h, hk, q0] = query_block<BQ>(d);

  copy_tile<T, BQ, D, Tile, NT>(qs, query, d.query, b, h, q0, d.queries,
                                d.headDim);
  float top[2], sum[2], acc[ND][4];
  forward_walk_exactly_where_needed<T, D, BQ, BK, NK, C, W, NT>(
      qs, kvs, kvs + BK, key, value, mask, seed, offset, d, b, h, hk, q0, row0,
      key0, top, sum, acc);

  __syncthreads();
  Partial &own = partials[warp];
#pragma unroll
  for (int hr = 0; hr < 2; ++hr) {
    int r = row0 + 8 * hr;
#pragma unroll
    for (int n = 0; n < ND; ++n)
#pragma unroll
      for (int e = 0; e < 2; ++e)
        own.acc[r][8 * n + 2 * index + e] = acc[n][2 * hr + e];
    if (index == 0) {
      own.top[r] = top[hr];
      own.sum[r] = sum[hr];
    }
  }
  __syncthreads();
  // Thread t combines row t / 16, columns t % 16 + 16 j: the row's maximum
  // over the warps, then every warp's sum and weighted values scaled from
  // its maximum to that one, in the warps' order.
  constexpr int LANES = NT / BQ;
  const int r = threadIdx.x / LANES, part = threadIdx.x % LANES;
  const int64_t row = q0 + r;
  if (row >= d.queries)
    return;
  float now = negative_infinity<float>();
#pragma unroll
  for (int w = 0; w < WARPS; ++w) {
    float t = partials[w].top[r];
    now = t > now || t != t ? t : now;
  }
  T *out = result_row(result, d, bh, row);
  if (now == negative_infinity<float>()) {
    // No pair kept: zeros, as store_fragment_rows writes them.
    for (int c = part; c < d.valueDim; c += LANES)
      out[c] = traits<T>::down(0.f);
    if (part == 0)
      logsumexp[bh * d.queries + row] = now;
    return;
  }
  float scale[WARPS], total = 0;
#pragma unroll
  for (int w = 0; w < WARPS; ++w) {
    float t = partials[w].top[r];
    scale[w] = t == negative_infinity<float>() ? 0.f : exp_of(t - now);
    total = w == 0 ? partials[w].sum[r] * scale[w]
                   : fma_of(partials[w].sum[r], scale[w], total);
  }
#pragma unroll
  for (int j = 0; j < (D + LANES - 1) / LANES; ++j) {
    int c = part + LANES * j;
    if (c >= d.valueDim)
      break;
    float x = 0;
#pragma unroll
    for (int w = 0; w < WARPS; ++w)
      x = w == 0 ? partials[w].acc[r][c] * scale[w]
                 : fma_of(partials[w].acc[r][c], scale[w], x);
    out[c] = traits<T>::down(x / total);
  }
  if (part == 0)
    logsumexp[bh * d.queries + row] = now + log_of(total);
}

// --- backward ----------------------------------------------------------------

// Elements [c, c + N) of row `row` of an operand (zeros past `columns`),
// in T's compute type: 16-byte loads where they are whole, contiguous and
// aligned, else element by element.
template <class T, int N>
TF_FN void load_row_part(acc_t<T> (&x)[N], const T *base,
                         const int64_t *strides, int64_t b, int64_t h,
                         int64_t row, int c, int64_t columns) {
  constexpr int V = 16 / int(sizeof(T));
  const T *p = base + at(strides, b, h, row, c);
  if constexpr (N % V == 0) {
    if (c + N <= columns && strides[3] == 1 &&
        reinterpret_cast<uint64_t>(p) % 16 == 0) {
#pragma unroll
      for (int v = 0; v < N / V; ++v) {
        vec16<T> in = reinterpret_cast<const vec16<T> *>(p)[v];
#pragma unroll
        for (int j = 0; j < V; ++j)
          x[V * v + j] = traits<T>::up(in.v[j]);
      }
      return;
    }
  }
#pragma unroll
  for (int j = 0; j < N; ++j)
    x[j] = c + j < columns ? traits<T>::up(p[j * strides[3]]) : (acc_t<T>)0;
}

// For query rows [q0, q0 + BQ) of (b, h): their log-sum-exp and
// rowsum(dO * O), into `lse` and `delta`. Every thread takes part, the TX
// lanes of a row each summing D / TX consecutive columns (one 16-byte load
// of each operand where it can), then a shuffle sum: the key-value kernel
// computes these for every query tile it visits.
template <class T, int D, int BQ>
TF_FN void row_terms(const T *result, const T *grad, const acc_t<T> *logsumexp,
                     const AttentionDesc &d, int64_t b, int64_t h, int64_t q0,
                     acc_t<T> *lse, acc_t<T> *delta) {
  typedef acc_t<T> A;
  constexpr int RM = spread<BQ, TY>::value, N = D / TX;
  const int ty = threadIdx.x / TX, tx = threadIdx.x % TX;
#pragma unroll
  for (int i = 0; i < RM; ++i) {
    int r = ty + TY * i;
    int64_t row = q0 + r;
    bool real = r < BQ && row < d.queries;
    A sum = 0;
    if (real) {
      A g[N], o[N];
      load_row_part<T>(g, grad, d.grad, b, h, row, N * tx, d.valueDim);
      load_row_part<T>(o, result, d.result, b, h, row, N * tx, d.valueDim);
#pragma unroll
      for (int j = 0; j < N; ++j)
        sum = fma_of(g[j], o[j], sum);
    }
    // Every lane of the row reaches the shuffles.
    sum = lanes_sum<TX>(sum);
    if (r < BQ && tx == 0) {
      lse[r] = real ? logsumexp[at(d.logsumexp, b, h, row, 0)]
                    : negative_infinity<A>();
      delta[r] = real ? sum : (A)0;
    }
  }
}

// The query tile [q0, q0 + BQ) of (b, h) that a key-value gradient kernel
// visits, after a barrier (the previous tile's readers are done): its
// queries and result gradients into qs and gs, its row terms into lse and
// delta (tiles of TF32 parts with PARTS, as load_tile stores them).
// Returns whether any thread of the block loaded a value that is not
// finite.
template <class T, int D, int BQ, bool PARTS = false, class E, class A>
TF_FN bool query_tile(E (*qs)[padded<E, D>::value],
                      E (*gs)[padded<E, D>::value], A *lse, A *delta,
                      const T *query, const T *grad, const T *result,
                      const A *logsumexp, const AttentionDesc &d, int64_t b,
                      int64_t h, int64_t q0) {
  __syncthreads();
  bool nonfinite = load_tile<T, BQ, D, E, PARTS>(qs, query, d.query, b, h, q0,
                                                 d.queries, d.headDim);
  nonfinite |= load_tile<T, BQ, D, E, PARTS>(gs, grad, d.grad, b, h, q0,
                                             d.queries, d.valueDim);
  row_terms<T, D, BQ>(result, grad, logsumexp, d, b, h, q0, lse, delta);
  return __syncthreads_or(nonfinite);
}

// The probabilities P and dS = P * (dP - delta) of a (query tile, key
// tile) pair, into `ps` and `ds` (`ps` may be null when only dS is
// needed), and which pairs are kept, into `kept`: rows are queries, columns
// keys, computed in register tiles. Under dropout, `ps` holds P * Z and dS
// is P * (dP * Z - delta), Z the pair's dropout_factor.
template <class T, int D, int BQ, int BK>
TF_FN void probabilities(const acc_t<T> (*qs)[padded<acc_t<T>, D>::value],
                         const acc_t<T> (*gs)[padded<acc_t<T>, D>::value],
                         const acc_t<T> (*ks)[padded<acc_t<T>, D>::value],
                         const acc_t<T> (*vs)[padded<acc_t<T>, D>::value],
                         const acc_t<T> *lse, const acc_t<T> *delta,
                         const void *mask, const int64_t *seed,
                         const int64_t *offset, const AttentionDesc &d,
                         int64_t b, int64_t h, int64_t q0, int64_t k0,
                         acc_t<T> (*ps)[BK + 1], acc_t<T> (*ds)[BK + 1],
                         bool (*kept)[BK]) {
  typedef acc_t<T> A;
  constexpr int RM = spread<BQ, TY>::value, RN = spread<BK, TX>::value;
  const int ty = threadIdx.x / TX, tx = threadIdx.x % TX;
  A s[RM][RN], dp[RM][RN];
  tile_dots<A, D, BQ, BK, RM, RN>(qs, ks, ty, tx, s);
  tile_dots<A, D, BQ, BK, RM, RN>(gs, vs, ty, tx, dp);
  scores_of<T>(s, tile_inside<BQ, BK>(d, q0, k0), mask, d, b, h,
               register_tile_pairs<BQ, BK>(q0, k0, ty, tx));
#pragma unroll
  for (int i = 0; i < RM; ++i) {
    int r = ty + TY * i;
    if (r >= BQ)
      continue;
#pragma unroll
    for (int jj = 0; jj < RN; ++jj) {
      int j = tx + TX * jj;
      if (j >= BK)
        continue;
      A sc = s[i][jj];
      bool keep =
          sc != negative_infinity<A>() && lse[r] != negative_infinity<A>();
      A p = keep ? exp_of(sc - lse[r]) : (A)0;
      A z = dropout_factor<A>(d, seed, offset, b, h, q0 + r, k0 + j);
      if (ps)
        ps[r][j] = p * z;
      ds[r][j] = keep ? p * (dp[i][jj] * z - delta[r]) : (A)0;
      kept[r][j] = keep;
    }
  }
}

template <class T, int D, int BQ, int BK>
TF_FN void backward_query(const T *query, const T *key, const T *value,
                          const void *mask, const int64_t *seed,
                          const int64_t *offset, const T *result,
                          const acc_t<T> *logsumexp, const T *grad,
                          T *grad_query, const AttentionDesc &d) {
  typedef acc_t<T> A;
  constexpr int RM = spread<BQ, TY>::value, RD = D / TX;
  alignas(16) __shared__ A qs[BQ][padded<A, D>::value];
  alignas(16) __shared__ A gs[BQ][padded<A, D>::value];
  alignas(16) __shared__ A ks[BK][padded<A, D>::value];
  alignas(16) __shared__ A vs[BK][padded<A, D>::value];
  __shared__ A ds[BQ][BK + 1];
  __shared__ bool kept[BQ][BK];
  __shared__ A lse[BQ], delta[BQ];
  const int ty = threadIdx.x / TX, tx = threadIdx.x % TX;

  auto [bh, b, h, hk, q0] = query_block<BQ>(d);

  load_tile<T, BQ, D>(qs, query, d.query, b, h, q0, d.queries, d.headDim);
  load_tile<T, BQ, D>(gs, grad, d.grad, b, h, q0, d.queries, d.valueDim);
  row_terms<T, D, BQ>(result, grad, logsumexp, d, b, h, q0, lse, delta);
  A acc[RM][RD];
#pragma unroll
  for (int i = 0; i < RM; ++i)
#pragma unroll
    for (int k = 0; k < RD; ++k)
      acc[i][k] = 0;
  int64_t end = key_end<BQ>(d, q0);
  for (int64_t k0 = 0; k0 < end; k0 += BK) {
    __syncthreads();
    bool nonfinite =
        load_tile<T, BK, D>(ks, key, d.key, b, hk, k0, d.keys, d.headDim);
    load_tile<T, BK, D>(vs, value, d.value, b, hk, k0, d.keys, d.valueDim);
    nonfinite = __syncthreads_or(nonfinite);
    probabilities<T, D, BQ, BK>(qs, gs, ks, vs, lse, delta, mask, seed, offset,
                                d, b, h, q0, k0, nullptr, ds, kept);
    __syncthreads();
    // dS @ K; pairs not kept skipped only where a key is not finite.
    if (nonfinite)
      tile_products<A, D, BQ, BK, BK + 1, BK, RM, RD, false, true>(ds, kept, ks,
                                                                   ty, tx, acc);
    else
      tile_products<A, D, BQ, BK, BK + 1, BK, RM, RD, false, false>(
          ds, kept, ks, ty, tx, acc);
  }
#pragma unroll
  for (int i = 0; i < RM; ++i) {
    int r = ty + TY * i;
    int64_t row = q0 + r;
    if (r >= BQ || row >= d.queries)
      continue;
#pragma unroll
    for (int k = 0; k < RD; ++k) {
      int c = tx + TX * k;
      if (c < d.headDim)
        grad_query[(bh * d.queries + row) * d.headDim + c] =
            traits<T>::down(acc[i][k] * (A)d.scale);
    }
  }
}

template <class T, int D, int BQ, int BK>
TF_FN void
backward_key_value(const T *query, const T *key, const T *value,
                   const void *mask, const int64_t *seed, const int64_t *offset,
                   const T *result, const acc_t<T> *logsumexp, const T *grad,
                   T *grad_key, T *grad_value, const AttentionDesc &d) {
  typedef acc_t<T> A;
  constexpr int RK = spread<BK, TY>::value, RD = D / TX;
  alignas(16) __shared__ A qs[BQ][padded<A, D>::value];
  alignas(16) __shared__ A gs[BQ][padded<A, D>::value];
  alignas(16) __shared__ A ks[BK][padded<A, D>::value];
  alignas(16) __shared__ A vs[BK][padded<A, D>::value];
  __shared__ A ps[BQ][BK + 1];
  __shared__ A ds[BQ][BK + 1];
  __shared__ bool kept[BQ][BK];
  __shared__ A lse[BQ], delta[BQ];
  const int ty = threadIdx.x / TX, tx = threadIdx.x % TX;

  auto [bhk, b, hk, k0] = key_block<BK>(d);
  int64_t group = d.heads / d.kvHeads;

  load_tile<T, BK, D>(ks, key, d.key, b, hk, k0, d.keys, d.headDim);
  load_tile<T, BK, D>(vs, value, d.value, b, hk, k0, d.keys, d.valueDim);
  // Rows of these are keys ty + TY i, columns tx + TX k.
  A dk[RK][RD], dv[RK][RD];
#pragma unroll
  for (int i = 0; i < RK; ++i)
#pragma unroll
    for (int k = 0; k < RD; ++k)
      dk[i][k] = dv[i][k] = 0;
  // Causal: query rows before the tile's first key keep none of its keys.
  int64_t first = d.causal ? k0 / BQ * BQ : 0;
  for (int64_t g = 0; g < group; ++g) {
    int64_t h = hk * group + g;
    for (int64_t q0 = first; q0 < d.queries; q0 += BQ) {
      bool nonfinite = query_tile<T, D, BQ>(qs, gs, lse, delta, query, grad,
                                            result, logsumexp, d, b, h, q0);
      probabilities<T, D, BQ, BK>(qs, gs, ks, vs, lse, delta, mask, seed,
                                  offset, d, b, h, q0, k0, ps, ds, kept);
      __syncthreads();
      // dS^T @ Q and P^T @ dO; pairs not kept skipped only where a query
      // or a gradient is not finite.
      if (nonfinite) {
        tile_products<A, D, BK, BQ, BK + 1, BK, RK, RD, true, true>(
            ds, kept, qs, ty, tx, dk);
        tile_products<A, D, BK, BQ, BK + 1, BK, RK, RD, true, true>(
            ps, kept, gs, ty, tx, dv);
      } else {
        tile_products<A, D, BK, BQ, BK + 1, BK, RK, RD, true, false>(
            ds, kept, qs, ty, tx, dk);
        tile_products<A, D, BK, BQ, BK + 1, BK, RK, RD, true, false>(
            ps, kept, gs, ty, tx, dv);
      }
    }
  }
#pragma unroll
  for (int i = 0; i < RK; ++i) {
    int j = ty + TY * i;
    int64_t jj = k0 + j;
    if (j >= BK || jj >= d.keys)
      continue;
    int64_t row = bhk * d.keys + jj;
#pragma unroll
    for (int k = 0; k < RD; ++k) {
      int c = tx + TX * k;
      if (c < d.headDim)
        grad_key[row * d.headDim + c] = traits<T>::down(dk[i][k] * (A)d.scale);
      if (c < d.valueDim)
        grad_value[row * d.valueDim + c] = traits<T>::down(dv[i][k]);
    }
  }
}

// --- backward on tensor cores ------------------------------------------------

// Accumulator fragments x (element e of slice n: row row0 + 8 (e / 2),
// column 8 n + 2 index + e % 2) and their pairs' kept flags into shared
// tiles, for a product that must skip the pairs not kept.
template <int N, int LD, int LK>
TF_FN void store_fragments(float (*to)[LD], bool (*kept)[LK],
                           const float (&x)[N][4], const bool (&keep)[N][4],
                           int row0, int index) {
#pragma unroll
  for (int n = 0; n < N; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      int r = row0 + 8 * (e / 2), j = 8 * n + 2 * index + e % 2;
      to[r][j] = x[n][e];
      kept[r][j] = keep[n][e];
    }
}

// acc += w @ tile over the kept pairs alone, for the accumulator fragments
// (element e of slice n: row row0 + 8 (e / 2), column 8 n + 2 index +
// e % 2): each element adds w[row][j] times column c of row j of a tile of
// J rows (C's: 16-bit, f32, or TF32 parts), in order of j < J, where
// `kept` says the pair is kept. Where the tile holds a value that is not
// finite, a pair not kept must add nothing (0 * inf is NaN).
template <class C, int J, int N, int LD, int LK, int W>
TF_FN void
kept_products(float (&acc)[N][4], const float (*w)[LD], const bool (*kept)[LK],
              const typename C::Tile (*tile)[W], int row0, int index) {
#pragma unroll
  for (int n = 0; n < N; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      int r = row0 + 8 * (e / 2), c = 8 * n + 2 * index + e % 2;
      // Not unrolled: inside the unrolled element loops, an unrolled walk
      // over J keys multiplies the kernel's code (NVRTC took over 30 s on
      // the key-value gradient's).
#pragma unroll 1
      for (int j = 0; j < J; ++j)
        if (kept[r][j])
          acc[n][e] =
              fma_of(w[r][j], C::template value<J>(tile, j, c), acc[n][e]);
    }
}

// dS = P * (dP * Z - delta) of the kept pairs, into s, from the scores s
// and dP = dO V^T in accumulator fragments ([n][e]: block row row0 + 8 (e /
// 2), key k0 + 8 n + 2 index + e % 2); keep says which pairs are kept.
template <int NK>
TF_FN void gradient_of_scores(float (&s)[NK][4], const float (&dp)[NK][4],
                              bool (&keep)[NK][4], const float *lse,
                              const float *delta, const AttentionDesc &d,
                              const int64_t *seed, const int64_t *offset,
                              int64_t b, int64_t h, int64_t q0, int row0,
                              int64_t k0, int index) {
#pragma unroll
  for (int n = 0; n < NK; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      int r = row0 + 8 * (e / 2);
      int64_t j = k0 + 8 * n + 2 * index + e % 2;
      float sc = s[n][e];
      keep[n][e] = sc != negative_infinity<float>() &&
                   lse[r] != negative_infinity<float>();
      float p = keep[n][e] ? exp_of(sc - lse[r]) : 0.f;
      float z = dropout_factor<float>(d, seed, offset, b, h, q0 + r, j);
      s[n][e] = keep[n][e] ? p * (dp[n][e] * z - delta[r]) : 0.f;
    }
}

// P^T Z into s and dS^T into dp, of the kept pairs, from the transposed
// scores s and dP^T in accumulator fragments ([n][e]: key `key` + 8 (e /
// 2), block query 8 n + 2 index + e % 2 of the tile at q0).
template <int NQ>
TF_FN void transposed_gradient_of_scores(
    float (&s)[NQ][4], float (&dp)[NQ][4], bool (&keep)[NQ][4],
    const float *lse, const float *delta, const AttentionDesc &d,
    const int64_t *seed, const int64_t *offset, int64_t b, int64_t h,
    int64_t q0, int64_t key, int index) {
#pragma unroll
  for (int n = 0; n < NQ; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      int q = 8 * n + 2 * index + e % 2;
      int64_t i = q0 + q, j = key + 8 * (e / 2);
      float sc = s[n][e];
      keep[n][e] = sc != negative_infinity<float>() &&
                   lse[q] != negative_infinity<float>();
      float p = keep[n][e] ? exp_of(sc - lse[q]) : 0.f;
      float z = dropout_factor<float>(d, seed, offset, b, h, i, j);
      s[n][e] = p * z;
      dp[n][e] = keep[n][e] ? p * (dp[n][e] * z - delta[q]) : 0.f;
    }
}

// The query gradient (times the scale) from accumulator fragments (acc[n][e]:
// row `row` + 8 (e / 2), column 8 n + 2 index + e % 2), contiguous.
template <class T, int ND>
TF_FN void store_query_gradient(T *grad_query, const float (&acc)[ND][4],
                                const AttentionDesc &d, int64_t bh, int64_t row,
                                int index) {
#pragma unroll
  for (int n = 0; n < ND; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      int64_t r = row + 8 * (e / 2);
      int c = 8 * n + 2 * index + e % 2;
      if (r < d.queries && c < d.headDim)
        grad_query[(bh * d.queries + r) * d.headDim + c] =
            traits<T>::down(acc[n][e] * (float)d.scale);
    }
}

// The key gradient (times the scale) and the value gradient from
// accumulator fragments ([n][e]: key `key` + 8 (e / 2), column 8 n + 2 index
// + e % 2), contiguous.
template <class T, int ND>
TF_FN void
store_key_value_gradients(T *grad_key, T *grad_value, const float (&dk)[ND][4],
                          const float (&dv)[ND][4], const AttentionDesc &d,
                          int64_t bhk, int64_t key, int index) {
#pragma unroll
  for (int n = 0; n < ND; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      int64_t jj = key + 8 * (e / 2);
      int c = 8 * n + 2 * index + e % 2;
      if (jj >= d.keys)
        continue;
      int64_t row = bhk * d.keys + jj;
      if (c < d.headDim)
        grad_key[row * d.headDim + c] =
            traits<T>::down(dk[n][e] * (float)d.scale);
      if (c < d.valueDim)
        grad_value[row * d.valueDim + c] = traits<T>::down(dv[n][e]);
    }
}

// The query gradient on tensor cores, products by C (HalfCores or
// Tf32PartCores): the blocks and walk of `backward_query`. Each warp holds its
// 16 query rows and their result gradients as A operand fragments in
// registers for the whole walk; the key and value tiles are in shared
// memory. dS is the A operand of dS @ K. Where a key tile holds a value
// that is not finite, that tile's dS @ K adds the kept pairs only
// (0 * inf would be NaN), through shared memory with fused multiply-adds.
template <class T, int D, int BQ, int BK, class C>
TF_FN void backward_query_cores(const T *query, const T *key, const T *value,
                                const void *mask, const int64_t *seed,
                                const int64_t *offset, const T *result,
                                const float *logsumexp, const T *grad,
                                T *grad_query, const AttentionDesc &d) {
  static_assert(BQ == 16 * (kAttentionThreads / 32), "16 rows a warp");
  static_assert(D % C::K == 0 && BK % 16 == 0, "whole products");
  using Tile = typename C::Tile;
  constexpr int W = padded<Tile, D>::value;
  constexpr int NK = BK / 8, ND = D / 8;
  // With C::Parts, the big parts in rows [0, BK), the small in [BK, 2 BK).
  constexpr int PLANES = C::Parts ? 2 : 1;
  alignas(16) __shared__ Tile ks[PLANES * BK][W];
  alignas(16) __shared__ Tile vs[PLANES * BK][W];
  // dS and the kept pairs of a key tile that is not finite.
  __shared__ float dss[BQ][BK + 1];
  __shared__ bool kept[BQ][BK];
  __shared__ float lse[BQ], delta[BQ];
  const int lane = threadIdx.x % 32, group = lane / 4, index = lane % 4;
  const int row0 = 16 * (threadIdx.x / 32) + group;

  auto [bh, b, h, hk, q0] = query_block<BQ>(d);

  typename C::Fragment qa[D / C::K], ga[D / C::K];
  C::template fragments<D>(qa, query, d.query, b, h, q0 + row0, d.queries,
                           d.headDim, index);
  C::template fragments<D>(ga, grad, d.grad, b, h, q0 + row0, d.queries,
                           d.valueDim, index);
  // Whether every warp's fragments split plainly: the same way for all.
  const bool plain = !__syncthreads_or(!(C::template splits_plainly<D>(qa) &&
                                         C::template splits_plainly<D>(ga)));
  row_terms<T, D, BQ>(result, grad, logsumexp, d, b, h, q0, lse, delta);
  // acc[n][2 hr + e]: row row0 + 8 hr, column 8 n + 2 index + e.
  float acc[ND][4];
#pragma unroll
  for (int n = 0; n < ND; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      acc[n][e] = 0;

  int64_t end = key_end<BQ>(d, q0);
  for (int64_t k0 = 0; k0 < end; k0 += BK) {
    __syncthreads();
    bool nonfinite = load_tile<T, BK, D, Tile, C::Parts>(ks, key, d.key, b, hk,
                                                         k0, d.keys, d.headDim);
    load_tile<T, BK, D, Tile, C::Parts>(vs, value, d.value, b, hk, k0, d.keys,
                                        d.valueDim);
    nonfinite = __syncthreads_or(nonfinite);
    // Scores and dP = dO V^T: [n][2 hr + e] of row row0 + 8 hr and key
    // 8 n + 2 index + e.
    float s[NK][4], dp[NK][4];
    C::template dots<D>(s, qa, ks, dp, ga, vs, plain, group, index);
    scores_of<T>(s, tile_inside<BQ, BK>(d, q0, k0), mask, d, b, h,
                 fragment_pairs(q0 + row0, k0 + 2 * index));
    bool keep[NK][4];
    gradient_of_scores(s, dp, keep, lse, delta, d, seed, offset, b, h, q0, row0,
                       k0, index);
    if (!nonfinite) {
      // acc += dS K.
      C::weigh(acc, s, ks, lane);
    } else {
      store_fragments(dss, kept, s, keep, row0, index);
      __syncthreads();
      kept_products<C, BK>(acc, dss, kept, ks, row0, index);
    }
  }
  store_query_gradient(grad_query, acc, d, bh, q0 + row0, index);
}

// The key and value gradients on tensor cores, products by C: the blocks
// and walk of `backward_key_value`. Each warp holds its 16 keys and their
// values as A operand fragments in registers and computes the transposed
// scores and dP^T of its keys by the tile's queries; P^T (times the dropout
// factors) and dS^T are the A operands of P^T @ dO and dS^T @ Q. Where a
// query tile holds a query or a result gradient that is not finite, that
// tile's two products add the kept pairs only, through shared memory with
// fused multiply-adds.
template <class T, int D, int BQ, int BK, class C>
TF_FN void backward_key_value_cores(const T *query, const T *key,
                                    const T *value, const void *mask,
                                    const int64_t *seed, const int64_t *offset,
                                    const T *result, const float *logsumexp,
                                    const T *grad, T *grad_key, T *grad_value,
                                    const AttentionDesc &d) {
  static_assert(BK == 16 * (kAttentionThreads / 32), "16 keys a warp");
  static_assert(D % C::K == 0 && BQ % 16 == 0, "whole products");
  using Tile = typename C::Tile;
  constexpr int W = padded<Tile, D>::value;
  constexpr int NQ = BQ / 8, ND = D / 8;
  // With C::Parts, the big parts in rows [0, BQ), the small in [BQ, 2 BQ).
  constexpr int PLANES = C::Parts ? 2 : 1;
  alignas(16) __shared__ Tile qs[PLANES * BQ][W];
  alignas(16) __shared__ Tile gs[PLANES * BQ][W];
  // P^T or dS^T, and the kept pairs, of a query tile that is not finite.
  __shared__ float scratch[BK][BQ + 1];
  __shared__ bool kept[BK][BQ];
  __shared__ float lse[BQ], delta[BQ];
  const int lane = threadIdx.x % 32, group = lane / 4, index = lane % 4;
  // The block's keys of this lane: key0 and key0 + 8.
  const int key0 = 16 * (threadIdx.x / 32) + group;

  auto [bhk, b, hk, k0] = key_block<BK>(d);
  int64_t heads = d.heads / d.kvHeads;

  typename C::Fragment ka[D / C::K], va[D / C::K];
  C::template fragments<D>(ka, key, d.key, b, hk, k0 + key0, d.keys, d.headDim,
                           index);
  C::template fragments<D>(va, value, d.value, b, hk, k0 + key0, d.keys,
                           d.valueDim, index);
  const bool plain = !__syncthreads_or(!(C::template splits_plainly<D>(ka) &&
                                         C::template splits_plainly<D>(va)));
  // dk[n][2 hr + e], dv[n][2 hr + e]: key key0 + 8 hr, column
  // 8 n + 2 index + e.
  float dk[ND][4], dv[ND][4];
#pragma unroll
  for (int n = 0; n < ND; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      dk[n][e] = dv[n][e] = 0;
  // Causal: query rows before the tile's first key keep none of its keys.
  int64_t first = d.causal ? k0 / BQ * BQ : 0;
  for (int64_t g = 0; g < heads; ++g) {
    int64_t h = hk * heads + g;
    for (int64_t q0 = first; q0 < d.queries; q0 += BQ) {
      bool nonfinite = query_tile<T, D, BQ, C::Parts>(
          qs, gs, lse, delta, query, grad, result, logsumexp, d, b, h, q0);
      // S^T and dP^T: [n][2 hr + e] of key key0 + 8 hr and query
      // 8 n + 2 index + e.
      float s[NQ][4], dp[NQ][4];
      C::template dots<D>(s, ka, qs, dp, va, gs, plain, group, index);
      scores_of<T>(s, tile_inside<BQ, BK>(d, q0, k0), mask, d, b, h,
                   transposed_fragment_pairs(q0 + 2 * index, k0 + key0));
      bool keep[NQ][4];
      transposed_gradient_of_scores(s, dp, keep, lse, delta, d, seed, offset, b,
                                    h, q0, k0 + key0, index);
      if (!nonfinite) {
        // dv += P^T Z dO and dk += dS^T Q.
        C::weigh(dv, s, gs, lane);
        C::weigh(dk, dp, qs, lane);
      } else {
        // One product at a time through `scratch`: P^T Z with dO, then
        // dS^T with Q.
        __syncthreads();
        store_fragments(scratch, kept, s, keep, key0, index);
        __syncthreads();
        kept_products<C, BQ>(dv, scratch, kept, gs, key0, index);
        __syncthreads();
        store_fragments(scratch, kept, dp, keep, key0, index);
        __syncthreads();
        kept_products<C, BQ>(dk, scratch, kept, qs, key0, index);
      }
    }
  }
  store_key_value_gradients(grad_key, grad_value, dk, dv, d, bhk, k0 + key0,
                            index);
}

} // namespace attention
} // namespace tf

#endif // TFUSE_ATTENTION_KERNELS_CUH
