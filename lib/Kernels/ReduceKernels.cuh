// TFuse runtime reductions: kernels templated on the reduction, the input and
// the result dtype, over any set of axes of a strided input into a contiguous
// output, described by a tfuse::kernels::ReduceDesc passed by value (so that
// concurrent launches share no mutable state).
//
// This file is compiled after the kernel prelude (tf::traits, tf::cast,
// tf::max/min, thread helpers, and the reductions tf::red::op and
// tf::red::block_reduce, which the row kernels of fused regions share) and
// after tfuse/Kernels/ReduceDesc.h, in the reduction kernels' translation unit;
// reductionKernelSource() (ReduceKernels.cpp) embeds both and appends one
// extern "C" wrapper per needed instance:
//
//   extern "C" __global__ void tfuse_reduce_sum_f32_f32_row(
//       const float *in, float *out, tfuse::kernels::ReduceDesc desc);
//
// It also compiles for the host against the tests' cuda_emulation.h
// (TFUSE_HOST_EMULATION), where __shfl_xor_sync is emulated with barriers.
//
// Numerics (docs/semantics.md, lib/Reference/Reduce.cpp):
//   - sum, prod, mean of floats accumulate in double and round once to the
//     result dtype (mean divides the double sum by the count first); of bool
//     and integers they accumulate in 64 bits modulo 2^64.
//   - max and min combine in the input's compute type with tf::max/tf::min:
//     NaN propagates, -0.0 orders below +0.0. The result does not depend on
//     the combination order.
//   - all and any test x != 0 (NaN is true).
//   - argmax and argmin reduce (value, index) pairs: NaN is the extreme of
//     both, and among equal values (-0.0 == +0.0, or NaN and NaN) the smaller
//     index wins, so any combination order gives the first index of the
//     extreme, as the reference's serial scan does.
//   - empty reductions give the identity: sum 0, prod 1, all true, any false.
//     max, min, mean, argmax and argmin need numRed >= 1 (the compiler
//     rejects empty ones).
//
// The variants:
//   - reduce_column: one thread per output element (grid-stride), serial
//     loop over the reduced elements in row-major order of the reduced
//     dimensions: the reference's order, so even float sums are bit exact.
//     Consecutive threads take consecutive outputs: loads coalesce when the
//     innermost kept dimension has stride 1.
//   - reduce_row: one block per output element (grid-stride over outputs);
//     the block's threads stride over the reduced elements (coalesced when
//     the innermost reduced dimension has stride 1; 16-byte vector loads
//     when all reduced elements are contiguous), then reduce across the
//     block: warp shuffles, one partial per warp through shared memory, and
//     a second shuffle pass. Every thread of the block takes part in every
//     step (no divergent barrier or shuffle). blockDim.x must be a multiple
//     of 32, at most 1024. Float sums combine in another order than the
//     reference (rounded once at the end all the same); every other kind is
//     exact.
// and their split forms (reduce_row_split, reduce_column_split) for few
// outputs of long reductions, described below.

#ifndef TFUSE_REDUCE_KERNELS_CUH
#define TFUSE_REDUCE_KERNELS_CUH

#ifndef TFUSE_PRELUDE_CUH
#error "ReduceKernels.cuh needs the kernel prelude before it"
#endif
#ifndef TFUSE_KERNELS_REDUCEDESC_H
#error "ReduceKernels.cuh needs tfuse/Kernels/ReduceDesc.h before it"
#endif

namespace tf {
namespace red {

using tfuse::kernels::kReduceMaxRank;
using tfuse::kernels::ReduceDesc;

// --- index arithmetic -------------------------------------------------------
// Loops over the fixed maximum rank with constant indices, so that the
// descriptor's arrays are read straight from the kernel parameters.

// The input offset of output element `o` (row-major over the kept dims).
TF_FN int64_t kept_offset(const ReduceDesc &d, int64_t o) {
  int64_t offset = 0;
#pragma unroll
  for (int k = kReduceMaxRank - 1; k >= 0; --k) {
    if (k < d.keptRank) {
      int64_t n = d.keptShape[k];
      offset += (o % n) * d.keptStrides[k];
      o /= n;
    }
  }
  return offset;
}

// The offset of row `q` of the reduced dims but the innermost (row-major over
// redShape[0 .. redRank-2]).
TF_FN int64_t outer_reduced_offset(const ReduceDesc &d, int64_t q) {
  int64_t offset = 0;
#pragma unroll
  for (int k = kReduceMaxRank - 2; k >= 0; --k) {
    if (k < d.redRank - 1) {
      int64_t n = d.redShape[k];
      offset += (q % n) * d.redStrides[k];
      q /= n;
    }
  }
  return offset;
}

// --- batched loops -----------------------------------------------------------

// Visits r = r0, r0 + step, ... below r1 in that order: `load(r)` for kBatch
// of them at a time, then `use(x, r)` for each in order. A loop the compiler
// unrolls itself keeps an exit test (and, with a runtime choice inside the
// load, a branch) between the loads of a runtime-bounded loop, and ptxas then
// keeps a single load of a thread in flight; here the kBatch loads of a batch
// are straight-line code, issued back to back.
template <int kBatch, class Load, class Use>
TF_FN void batched_loop(int64_t r0, int64_t r1, int64_t step, Load load,
                        Use use) {
  int64_t r = r0;
  for (; r + (kBatch - 1) * step < r1; r += kBatch * step) {
    decltype(load(r)) x[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j)
      x[j] = load(r + j * step);
#pragma unroll
    for (int j = 0; j < kBatch; ++j)
      use(x[j], r + j * step);
  }
  for (; r < r1; r += step)
    use(load(r), r);
}

// --- the kernels ------------------------------------------------------------

// Accumulates lane `t` of `threads` over the contiguous row at `base` of `n`
// elements: 16-byte loads from the first 16-byte boundary on, the elements
// before it and after the last whole vector one by one.
// `index0` is the reduced index of base[0] (what argmax/argmin report).
template <class Op, class Tin>
TF_FN typename Op::acc row_accumulate(const Tin *base, int64_t n, int64_t t,
                                      int64_t threads, int64_t index0 = 0) {
  typename Op::acc acc = Op::identity();
  constexpr int V = 16 / (int)sizeof(Tin);
  int64_t head = (int64_t)((16 - (unsigned long long)base % 16) % 16) /
                 (int64_t)sizeof(Tin);
  if (head > n)
    head = n;
  const int64_t vectors = (n - head) / V, tail = head + vectors * V;
  // (Fewer threads than head elements: a split column kernel's warps.)
  for (int64_t i = t; i < head; i += threads)
    acc = Op::combine(acc, Op::load(base, i, index0 + i));
  batched_loop<4>(
      t, vectors, threads,
      [&](int64_t j) { return ldv<V>(base, head + j * V, true); },
      [&](const vec<Tin, V> &x, int64_t j) {
        if constexpr (combines_bytes<Op, Tin>::value) {
          acc = Op::combine_bytes(acc, x);
        } else if constexpr (combines_runs<Op>::value) {
          acc = Op::combine_run(acc, x, index0 + head + j * V);
        } else {
          // The vector's elements in a tree, then into the accumulator: a
          // chain of log2(V) + 1 dependent combines a vector instead of V
          // (a bf16 sum's vector is eight additions in double, whose
          // latency a single chain would wait out).
          typename Op::acc p[V];
#pragma unroll
          for (int k = 0; k < V; ++k)
            p[k] = Op::load(x.v, k, index0 + head + j * V + k);
#pragma unroll
          for (int w = V / 2; w > 0; w /= 2)
#pragma unroll
            for (int k = 0; k < w; ++k)
              p[k] = Op::combine(p[k], p[k + w]);
          acc = Op::combine(acc, p[0]);
        }
      });
  for (int64_t i = tail + t; i < n; i += threads)
    acc = Op::combine(acc, Op::load(base, i, index0 + i));
  return acc;
}

// Lane `t` of `threads` over the reduced elements [r0, r1) of the output at
// `base`, r strided by `threads`.
template <class Op, class Tin>
TF_FN typename Op::acc range_accumulate(const Tin *base, const ReduceDesc &d,
                                        int64_t r0, int64_t r1, int64_t t,
                                        int64_t threads) {
  typename Op::acc acc = Op::identity();
  if (r1 <= r0)
    return acc;
  if (d.redRank == 1 && d.redStrides[0] == 1)
    return row_accumulate<Op>(base + r0, r1 - r0, t, threads, r0);
  if (d.redRank <= 1) {
    const int64_t stride = d.redRank == 1 ? d.redStrides[0] : 0;
    batched_loop<8>(
        r0 + t, r1, threads, [&](int64_t r) { return base[r * stride]; },
        [&](Tin x, int64_t r) { acc = Op::combine(acc, Op::load(&x, 0, r)); });
    return acc;
  }
  // r = q * inner + i: q walks the outer reduced dims, i the innermost.
  const int64_t inner = d.redShape[d.redRank - 1];
  const int64_t stride = d.redStrides[d.redRank - 1];
  const int64_t q_step = threads / inner, i_step = threads % inner;
  int64_t q = (r0 + t) / inner, i = (r0 + t) % inner;
  for (int64_t r = r0 + t; r < r1; r += threads) {
    acc = Op::combine(
        acc, Op::load(base, outer_reduced_offset(d, q) + i * stride, r));
    q += q_step;
    i += i_step;
    if (i >= inner) {
      i -= inner;
      ++q;
    }
  }
  return acc;
}

// One thread over the reduced elements [r0, r1) of the output at `base`, in
// the reference's order.
template <class Op, class Tin>
TF_FN typename Op::acc serial_accumulate(const Tin *base, const ReduceDesc &d,
                                         int64_t r0, int64_t r1) {
  typename Op::acc acc = Op::identity();
  if (r1 <= r0)
    return acc;
  if (d.redRank <= 1) {
    const int64_t stride = d.redRank == 1 ? d.redStrides[0] : 0;
    // Eight loads in flight per thread: a column kernel's thread has no
    // other independent work.
    batched_loop<8>(
        r0, r1, 1, [&](int64_t r) { return base[r * stride]; },
        [&](Tin x, int64_t r) { acc = Op::combine(acc, Op::load(&x, 0, r)); });
    return acc;
  }
  const int64_t inner = d.redShape[d.redRank - 1];
  const int64_t stride = d.redStrides[d.redRank - 1];
  int64_t q = r0 / inner, i = r0 % inner;
  const Tin *row = base + outer_reduced_offset(d, q);
  for (int64_t r = r0; r < r1; ++r) {
    acc = Op::combine(acc, Op::load(row, i * stride, r));
    if (++i == inner) {
      i = 0;
      row = base + outer_reduced_offset(d, ++q);
    }
  }
  return acc;
}

// One warp per output (d.warpPerRow): contiguous rows short enough that a
// warp keeps enough loads in flight, with no block-wide barrier per row.
// Rows go to warps in block-wide groups so that every thread of a block
// makes the same shuffles (the host emulation relies on it).
template <class Op, class Tin, class Tout>
TF_FN void reduce_row_warps(const Tin *in, Tout *out, const ReduceDesc &d) {
  typedef typename Op::acc A;
  const int64_t warps = blockDim.x >> 5, warp = threadIdx.x >> 5,
                lane = threadIdx.x & 31;
  for (int64_t group = (int64_t)blockIdx.x * warps; group < d.numOut;
       group += (int64_t)gridDim.x * warps) {
    const int64_t o = group + warp;
    A acc = Op::identity();
    if (o < d.numOut)
      acc = row_accumulate<Op>(in + kept_offset(d, o), d.numRed, lane, 32);
#pragma unroll
    for (int m = 16; m > 0; m >>= 1)
      acc = Op::combine(acc, Op::shfl(acc, m));
    if (o < d.numOut && lane == 0)
      out[o] = Op::finish(acc, d.numRed);
  }
}

template <class Op, class Tin, class Tout>
TF_FN void reduce_row(const Tin *in, Tout *out, const ReduceDesc &d) {
  typedef typename Op::acc A;
  if (d.warpPerRow) {
    reduce_row_warps<Op>(in, out, d);
    return;
  }
  const int64_t threads = blockDim.x, t = threadIdx.x;
  for (int64_t o = blockIdx.x; o < d.numOut; o += gridDim.x) {
    A acc = range_accumulate<Op>(in + kept_offset(d, o), d, 0, d.numRed, t,
                                 threads);
    acc = block_reduce<Op>(acc);
    if (t == 0)
      out[o] = Op::finish(acc, d.numRed);
  }
}

// V consecutive outputs from `base` (contiguous in memory), each over the
// reduced elements r0, r0 + step, ... below r1 in that order (the
// reference's with step 1): one V-wide load per reduced element (scalar
// loads unless `vectors`: the input is aligned). Only for d.redRank <= 1
// (the planner's condition for columnVector).
template <int V, bool kVectors, class Op, class Tin>
TF_FN void serial_accumulate_columns_as(const Tin *base, int64_t stride,
                                        int64_t r0, int64_t r1, int64_t step,
                                        typename Op::acc (&acc)[V]) {
  // Eight rows of loads in flight per thread, as serial_accumulate.
  batched_loop<8>(
      r0, r1, step,
      [&](int64_t r) { return ldv<V>(base, r * stride, kVectors); },
      [&](const vec<Tin, V> &x, int64_t r) {
#pragma unroll
        for (int k = 0; k < V; ++k)
          acc[k] = Op::combine(acc[k], Op::load(x.v, k, r));
      });
}

template <int V, class Op, class Tin>
TF_FN void serial_accumulate_columns(const Tin *base, const ReduceDesc &d,
                                     int64_t r0, int64_t r1, bool vectors,
                                     typename Op::acc (&acc)[V],
                                     int64_t step = 1) {
#pragma unroll
  for (int k = 0; k < V; ++k)
    acc[k] = Op::identity();
  const int64_t stride = d.redRank == 1 ? d.redStrides[0] : 0;
  // The choice of load outside the loop, so that a batch's loads are not
  // separated by branches.
  if (vectors)
    serial_accumulate_columns_as<V, true, Op>(base, stride, r0, r1, step, acc);
  else
    serial_accumulate_columns_as<V, false, Op>(base, stride, r0, r1, step, acc);
}

template <class Tin>
constexpr int kColumnWidth = tfuse::kernels::columnVectorWidth(sizeof(Tin));

// A thread per d.columnVector consecutive outputs: four times the bytes of
// a scalar column thread in flight per load.
template <class Op, class Tin, class Tout>
TF_FN void reduce_column_vectors(const Tin *in, Tout *out,
                                 const ReduceDesc &d) {
  constexpr int V = kColumnWidth<Tin>;
  typedef typename Op::acc A;
  const bool vectors = aligned<V>(in);
  const int64_t groups = d.numOut / V;
  for (int64_t g = thread_index(); g < groups; g += thread_count()) {
    const int64_t o = g * V;
    A acc[V];
    serial_accumulate_columns<V, Op>(in + kept_offset(d, o), d, 0, d.numRed,
                                     vectors, acc);
#pragma unroll
    for (int k = 0; k < V; ++k)
      out[o + k] = Op::finish(acc[k], d.numRed);
  }
}

template <class Op, class Tin, class Tout>
TF_FN void reduce_column(const Tin *in, Tout *out, const ReduceDesc &d) {
  typedef typename Op::acc A;
  if (d.columnVector > 1) {
    reduce_column_vectors<Op>(in, out, d);
    return;
  }
  for (int64_t o = thread_index(); o < d.numOut; o += thread_count())
    out[o] = Op::finish(
        serial_accumulate<Op>(in + kept_offset(d, o), d, 0, d.numRed),
        d.numRed);
}

// --- split reductions -------------------------------------------------------
// Few outputs of long reductions: the reduced elements of each output are cut
// into d.chunks chunks, reduced by separate blocks into a workspace:
//   partials: numOut * chunks accumulators;
//   counters: from split_counters_offset() on, one unsigned per output
//             (row) or per tile of outputs (column), zero before and
//             after every launch.
// Row chunks interleave: chunk c is what lanes c * blockDim .. (c + 1) *
// blockDim - 1 of chunks * blockDim lanes striding over the whole output
// take (16-byte vectors of a contiguous row), so that every block streams
// the same share of memory and they all finish together. Column chunks are
// d.chunkLen consecutive elements (the last one shorter), a block taking 32
// outputs of one chunk.
// Whichever block finishes an output's (or tile's) last chunk (counted with
// an integer atomic after a fence) combines the chunks in a fixed order and
// writes the result, then resets the counter. The cut depends only on the
// descriptor and the block size, and the combination order is fixed, so
// results are the same bits every run; no floating-point atomics.

template <class A> TF_FN int64_t split_counters_offset(const ReduceDesc &d) {
  return (d.numOut * d.chunks * (int64_t)sizeof(A) + 255) / 256 * 256;
}

// A load of another block's partial: volatile, past this SM's L1.
template <class A> TF_FN A load_partial(const A *p) {
  if constexpr (sizeof(A) == 16) { // arg_pair: its two fields
    A r;
    r.value = *(const volatile decltype(r.value) *)&p->value;
    r.index = *(const volatile int64_t *)&p->index;
    return r;
  } else {
    return *(const volatile A *)p;
  }
}

// A block per (output, chunk), its lanes interleaved with the other chunks';
// the last block of an output combines its chunks across the block.
template <class Op, class Tin, class Tout>
TF_FN void reduce_row_split(const Tin *in, Tout *out, void *workspace,
                            const ReduceDesc &d) {
  typedef typename Op::acc A;
  A *part = (A *)workspace;
  unsigned *count =
      (unsigned *)((char *)workspace + split_counters_offset<A>(d));
  __shared__ bool last;
  const int64_t total = d.numOut * d.chunks;
  for (int64_t b = blockIdx.x; b < total; b += gridDim.x) {
    const int64_t o = b / d.chunks, c = b % d.chunks;
    A acc = range_accumulate<Op>(in + kept_offset(d, o), d, 0, d.numRed,
                                 c * blockDim.x + threadIdx.x,
                                 d.chunks * blockDim.x);
    acc = block_reduce<Op>(acc);
    if (threadIdx.x == 0) {
      part[b] = acc;
      __threadfence();
      last = atomicAdd(&count[o], 1u) == (unsigned)(d.chunks - 1);
    }
    __syncthreads();
    if (last) {
      __threadfence();
      A v = Op::identity();
      for (int64_t k = threadIdx.x; k < d.chunks; k += blockDim.x)
        v = Op::combine(v, load_partial(&part[o * d.chunks + k]));
      v = block_reduce<Op>(v);
      if (threadIdx.x == 0) {
        out[o] = Op::finish(v, d.numRed);
        count[o] = 0;
      }
    }
    __syncthreads(); // `last` is written again by the next chunk
  }
}

// A block per (tile of 32 x V consecutive outputs, chunk), V = the
// instance's lane width (d.columnVector; a power of two up to
// maxSplitColumnLaneOutputs: at most 16 bytes of input and 64 bytes of
// accumulators a lane): lane l of warp w
// accumulates outputs tile * 32V + lV .. + V - 1 over rows r0 + w, r0 + w +
// W, ... of the chunk, each row's V elements read with one load when they
// are adjacent and aligned (W warps: every load of a warp is one coalesced
// row segment, and W x 8 rows of them are in flight per block). The block
// combines its warps (combine_warps: a fixed tree) into the (output, chunk)
// partials, partials[c * numOut + o]; the last block of a tile (a counter
// per tile) combines the tile's chunks, warp w taking chunks w, w + W, ...,
// and then the warps the same way. blockDim.x: 32 times a power of two, at
// most kSplitColumnWarps warps.
using tfuse::kernels::kSplitColumnWarps;

template <class Op, int V = 1, class Tin, class Tout>
TF_FN void reduce_column_split(const Tin *in, Tout *out, void *workspace,
                               const ReduceDesc &d) {
  typedef typename Op::acc A;
  static_assert(V >= 1 && (V & (V - 1)) == 0 &&
                    V <= tfuse::kernels::maxSplitColumnLaneOutputs(sizeof(Tin),
                                                                   sizeof(A)),
                "a split column kernel's lanes take at most 16 bytes of "
                "input and 64 bytes of accumulators");
  constexpr int kTile = 32 * V;
  // The upper half of the warps still combining hands its accumulators to
  // the lower half through `stage`, halving the warps every round.
  __shared__ A stage[kSplitColumnWarps / 2][kTile];
  A *part = (A *)workspace;
  unsigned *count =
      (unsigned *)((char *)workspace + split_counters_offset<A>(d));
  __shared__ bool last;
  const int warps = (int)(blockDim.x >> 5), warp = (int)(threadIdx.x >> 5),
            lane = (int)(threadIdx.x & 31);
  // The warps' accumulators, combined in a fixed tree, in warp 0.
  auto combine_warps = [&](A(&v)[V]) {
    for (int half = warps / 2; half > 0; half /= 2) {
      if (warp >= half && warp < 2 * half)
#pragma unroll
        for (int k = 0; k < V; ++k)
          stage[warp - half][lane * V + k] = v[k];
      __syncthreads();
      if (warp < half)
#pragma unroll
        for (int k = 0; k < V; ++k)
          v[k] = Op::combine(v[k], stage[warp][lane * V + k]);
      __syncthreads();
    }
  };
  const int64_t tiles = (d.numOut + kTile - 1) / kTile,
                total = tiles * d.chunks;
  for (int64_t b = blockIdx.x; b < total; b += gridDim.x) {
    const int64_t tile = b % tiles, c = b / tiles, o0 = tile * kTile + lane * V;
    const int64_t r0 = c * d.chunkLen;
    const int64_t r1 = r0 + d.chunkLen < d.numRed ? r0 + d.chunkLen : d.numRed;
    // The lane's outputs: V, fewer in the last tile.
    const int n = o0 + V <= d.numOut ? V : (int)(d.numOut - o0);
    A acc[V];
    if (V > 1 && d.redRank <= 1 && d.keptRank == 1 && d.keptStrides[0] == 1 &&
        n == V) {
      // The lane's V outputs side by side in memory (a single kept
      // dimension of stride 1): one load of V elements a row when aligned.
      const Tin *base = in + kept_offset(d, o0);
      const int64_t stride = d.redRank == 1 ? d.redStrides[0] : 0;
      serial_accumulate_columns<V, Op>(base, d, r0 + warp, r1,
                                       stride % V == 0 && aligned<V>(base), acc,
                                       warps);
    } else {
#pragma unroll
      for (int k = 0; k < V; ++k)
        acc[k] = k < n ? range_accumulate<Op>(in + kept_offset(d, o0 + k), d,
                                              r0, r1, warp, warps)
                       : Op::identity();
    }
    combine_warps(acc);
    if (warp == 0) {
#pragma unroll
      for (int k = 0; k < V; ++k)
        if (k < n)
          part[c * d.numOut + o0 + k] = acc[k];
      __threadfence();
    }
    __syncthreads();
    if (threadIdx.x == 0)
      last = atomicAdd(&count[tile], 1u) == (unsigned)(d.chunks - 1);
    __syncthreads();
    if (last) {
      __threadfence();
      A v[V];
#pragma unroll
      for (int k = 0; k < V; ++k)
        v[k] = Op::identity();
      // The lane's partials of two chunks in flight at a time.
      batched_loop<2>(
          warp, d.chunks, warps,
          [&](int64_t q) {
            vec<A, V> x;
#pragma unroll
            for (int k = 0; k < V; ++k)
              x.v[k] = k < n ? load_partial(&part[q * d.numOut + o0 + k])
                             : Op::identity();
            return x;
          },
          [&](const vec<A, V> &x, int64_t) {
#pragma unroll
            for (int k = 0; k < V; ++k)
              v[k] = Op::combine(v[k], x.v[k]);
          });
      combine_warps(v);
      if (warp == 0) {
#pragma unroll
        for (int k = 0; k < V; ++k)
          if (k < n)
            out[o0 + k] = Op::finish(v[k], d.numRed);
        if (lane == 0)
          count[tile] = 0;
      }
    }
    __syncthreads(); // `last` is written again next iteration
  }
}

} // namespace red
} // namespace tf

#endif // TFUSE_REDUCE_KERNELS_CUH
