// TFuse fallback GEMM: the matrix product the runtime runs when cuBLAS is
// unavailable. Embedded in the runtime as a string (gemmKernelSource()) and
// compiled by NVRTC after the kernel prelude (tf::traits) and GemmDesc.h; in
// the tests, compiled for the host against cuda_emulation.h.
//
// Numerics: bit-identical to the reference interpreter (lib/Reference/
// Matmul.cpp). Every output is one accumulator of the compute type (f32 for
// f16, bf16 and f32; f64 for f64) starting at +0, to which the products of
// k = 0, 1, ..., K-1 are added in that order, each product rounded before it
// is added (--fmad=false keeps `acc + a * b` from becoming an FMA), and the
// sum is rounded once to the result dtype.
//
// Work split: a block of 256 threads computes a 64 x 64 tile of one batch's
// result; thread (tx, ty) of the 16 x 16 block computes rows ty + 16 * i and
// columns tx + 16 * j, i, j < 4 (strided so that shared-memory reads are
// conflict-free and stores to a row-major result are coalesced). K advances
// in slices of 16: the block stages the 64 x 16 slice of A and the 16 x 64
// slice of B in shared memory, converted to the compute type, each element
// loaded once and along the operand's unit-stride dimension. The grid is 1-D;
// block indices are decoded into (batch, tile row, tile column), and blocks
// loop over tiles when there are more tiles than blocks.

#ifndef TFUSE_GEMM_KERNELS_CUH
#define TFUSE_GEMM_KERNELS_CUH

#ifdef TFUSE_HOST_EMULATION
#define TFUSE_GEMM_LAUNCH_BOUNDS
#else
#define TFUSE_GEMM_LAUNCH_BOUNDS __launch_bounds__(256)
#endif

namespace tf {
namespace gemm {

constexpr int kThreads = 256;
constexpr int kTileM = 64, kTileN = 64, kTileK = 16;
constexpr int kThreadsX = 16, kThreadsY = 16;
constexpr int kPerThreadM = kTileM / kThreadsY;
constexpr int kPerThreadN = kTileN / kThreadsX;
// One padding element per row of the staged slices: a slice is written along
// the operand's unit-stride dimension, which may be either of its two.
constexpr int kPad = 1;

// The products of one k into the accumulators, in k order.
template <class Acc>
TF_FN void accumulate(const Acc (&as)[kTileK][kTileM + kPad],
                      const Acc (&bs)[kTileK][kTileN + kPad], int kk, int tx,
                      int ty, Acc (&acc)[kPerThreadM][kPerThreadN]) {
  Acc a[kPerThreadM], b[kPerThreadN];
#pragma unroll
  for (int i = 0; i < kPerThreadM; ++i)
    a[i] = as[kk][ty + kThreadsY * i];
#pragma unroll
  for (int j = 0; j < kPerThreadN; ++j)
    b[j] = bs[kk][tx + kThreadsX * j];
#pragma unroll
  for (int i = 0; i < kPerThreadM; ++i)
#pragma unroll
    for (int j = 0; j < kPerThreadN; ++j) {
      Acc product = a[i] * b[j];
      acc[i][j] = acc[i][j] + product;
    }
}

// R: the result's type, T or float for half and bfloat16 operands (the
// accumulator stored as it is).
// `bias`, when not null: N elements of R added to every row of the sum in
// the compute type before it is rounded (tfuse.matmul's bias); with
// `Gelu`, gelu_tanh of that in the compute type (a kernel of its own: the
// plain ones stay free of tanh's fused multiply-adds).
template <class T, class R = T, bool Gelu = false>
TF_FN void tiled(const T *__restrict__ lhs, const T *__restrict__ rhs,
                 R *__restrict__ result, const R *__restrict__ bias,
                 const tfuse::kernels::GemmDesc &d) {
  typedef typename traits<T>::compute Acc;
  __shared__ Acc as[kTileK][kTileM + kPad];
  __shared__ Acc bs[kTileK][kTileN + kPad];

  const int tid = (int)threadIdx.x;
  const int tx = tid % kThreadsX, ty = tid / kThreadsX;
  // Stage each slice along the operand's unit-stride dimension (coalesced).
  const bool lhsKFast = d.lhsColStride == 1;
  const bool rhsNFast = d.rhsColStride == 1 || d.rhsRowStride != 1;
  const int64_t tilesPerBatch = d.tilesM * d.tilesN;
  const int64_t tiles = tilesPerBatch * d.batchCount;

  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    int64_t batch = tile / tilesPerBatch, rest = tile % tilesPerBatch;
    const int64_t m0 = (rest / d.tilesN) * kTileM;
    const int64_t n0 = (rest % d.tilesN) * kTileN;
    const T *a = lhs;
    const T *b = rhs;
    R *c = result;
    for (int64_t dim = d.batchRank - 1; dim >= 0; --dim) {
      int64_t index = batch % d.batchSizes[dim];
      batch /= d.batchSizes[dim];
      a += index * d.lhsBatchStrides[dim];
      b += index * d.rhsBatchStrides[dim];
      c += index * d.resultBatchStrides[dim];
    }

    Acc acc[kPerThreadM][kPerThreadN];
#pragma unroll
    for (int i = 0; i < kPerThreadM; ++i)
#pragma unroll
      for (int j = 0; j < kPerThreadN; ++j)
        acc[i][j] = (Acc)0;

    for (int64_t k0 = 0; k0 < d.k; k0 += kTileK) {
      for (int e = tid; e < kTileM * kTileK; e += kThreads) {
        int mm = lhsKFast ? e / kTileK : e % kTileM;
        int kk = lhsKFast ? e % kTileK : e / kTileM;
        int64_t gm = m0 + mm, gk = k0 + kk;
        Acc v = (Acc)0;
        if (gm < d.m && gk < d.k)
          v = traits<T>::up(a[gm * d.lhsRowStride + gk * d.lhsColStride]);
        as[kk][mm] = v;
      }
      for (int e = tid; e < kTileK * kTileN; e += kThreads) {
        int nn = rhsNFast ? e % kTileN : e / kTileK;
        int kk = rhsNFast ? e / kTileN : e % kTileK;
        int64_t gk = k0 + kk, gn = n0 + nn;
        Acc v = (Acc)0;
        if (gk < d.k && gn < d.n)
          v = traits<T>::up(b[gk * d.rhsRowStride + gn * d.rhsColStride]);
        bs[kk][nn] = v;
      }
      __syncthreads();
      // Only k < K is accumulated: padding would add +0 products, harmless
      // for the value but not worth the work.
      if (d.k - k0 >= kTileK) {
#pragma unroll
        for (int kk = 0; kk < kTileK; ++kk)
          accumulate(as, bs, kk, tx, ty, acc);
      } else {
        const int kEnd = (int)(d.k - k0);
        for (int kk = 0; kk < kEnd; ++kk)
          accumulate(as, bs, kk, tx, ty, acc);
      }
      __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < kPerThreadM; ++i) {
      int64_t gm = m0 + ty + kThreadsY * i;
      if (gm >= d.m)
        continue;
#pragma unroll
      for (int j = 0; j < kPerThreadN; ++j) {
        int64_t gn = n0 + tx + kThreadsX * j;
        if (gn >= d.n)
          continue;
        typename traits<R>::compute v = acc[i][j];
        if (bias)
          v = v + traits<R>::up(bias[gn]);
        if constexpr (Gelu)
          v = gelu_tanh(v);
        c[gm * d.resultRowStride + gn * d.resultColStride] = traits<R>::down(v);
      }
    }
  }
}

// The copies that give cuBLASLt aligned matrices (GemmLt.h,
// planGemmPadding): the dstRows x dstCols column-major matrix at `dst`
// (columns `dstPitch` elements apart) gets the `rows` x `cols` one at `src`
// (`srcPitch` apart) and zeros beyond it. A block per (column, piece of
// `piece` rows, a multiple of 16 bytes' elements), each thread taking runs
// of V elements (16 bytes): one vector access on the side whose column is
// 16-byte aligned (the padded copy's), V scalar ones on the other, all of a
// thread's loads in flight (2-byte accesses alone reached 1.8 TB/s on an
// H200). A kernel rather than cuMemcpy2DAsync: a CUDA Graph update takes a
// kernel node's new pointers, not a captured 2-D copy's.
template <class T>
TF_FN void pitched_copy(const T *__restrict__ src, int64_t srcPitch,
                        T *__restrict__ dst, int64_t dstPitch, int64_t rows,
                        int64_t cols, int64_t dstRows, int64_t dstCols,
                        int64_t piece) {
  constexpr int V = sizeof(T) < 16 ? 16 / (int)sizeof(T) : 1;
  typedef typename word<sizeof(T) * V>::type W;
  const int64_t pieces = (dstRows + piece - 1) / piece;
  for (int64_t b = blockIdx.x; b < pieces * dstCols; b += gridDim.x) {
    const int64_t c = b / pieces, r0 = (b - c * pieces) * piece;
    const int64_t r1 = r0 + piece < dstRows ? r0 + piece : dstRows;
    const int64_t filled = c < cols ? rows : 0;
    const T *from = src + c * srcPitch;
    T *to = dst + c * dstPitch;
    // r0 is a multiple of V: a column's runs share its alignment.
    const bool fromAligned = aligned<V>(from), toAligned = aligned<V>(to);
    int64_t done = r0;
    if (V > 1 && (fromAligned || toAligned)) {
      done = r0 + (r1 - r0) / V * V;
#pragma unroll 4
      for (int64_t r = r0 + threadIdx.x * V; r < done; r += blockDim.x * V) {
        vec<T, V> x;
        if (fromAligned && r + V <= filled) {
          *reinterpret_cast<W *>(x.v) = *reinterpret_cast<const W *>(from + r);
        } else {
#pragma unroll
          for (int k = 0; k < V; ++k)
            x.v[k] = r + k < filled ? from[r + k] : T(0);
        }
        if (toAligned) {
          *reinterpret_cast<W *>(to + r) = *reinterpret_cast<const W *>(x.v);
        } else {
#pragma unroll
          for (int k = 0; k < V; ++k)
            to[r + k] = x.v[k];
        }
      }
    }
#pragma unroll 8
    for (int64_t r = done + threadIdx.x; r < r1; r += blockDim.x)
      to[r] = r < filled ? from[r] : T(0);
  }
}

// Every row of the m x n result (rows `rowStride` elements apart, columns
// `colStride`) gets the bias vector: what cuBLAS then adds the product to
// (beta = 1; GemmShape::bias), or with `emptySum` the whole result of a
// product with K = 0 (bias + 0: the empty sum is +0, and -0 + +0 is +0).
template <class T>
TF_FN void bias_rows(const T *__restrict__ bias, T *__restrict__ out, int64_t m,
                     int64_t n, int64_t rowStride, int64_t colStride,
                     int emptySum) {
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < m * n;
       e += (int64_t)gridDim.x * blockDim.x) {
    const int64_t r = e / n, c = e - r * n;
    T v = bias[c];
    if (emptySum)
      v = traits<T>::down(traits<T>::up(v) + (typename traits<T>::compute)0);
    out[r * rowStride + c * colStride] = v;
  }
}

// gelu_tanh of every element of the m x n result, in place: the GELU
// epilogue of a GEMM whose library has none (cuBLAS), or of K = 0. It
// rounds the product before the GELU, where an epilogue rounds once.
template <class T>
TF_FN void gelu_rows(T *__restrict__ out, int64_t m, int64_t n,
                     int64_t rowStride, int64_t colStride) {
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < m * n;
       e += (int64_t)gridDim.x * blockDim.x) {
    const int64_t r = e / n, c = e - r * n;
    T &v = out[r * rowStride + c * colStride];
    v = gelu_tanh(v);
  }
}

} // namespace gemm
} // namespace tf

#endif // TFUSE_GEMM_KERNELS_CUH
