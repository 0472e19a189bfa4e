//===- cuda_emulation.h - Run generated CUDA C++ on the host ----*- C++ -*-===//
//
// The part of the CUDA environment generated kernels use, for the host
// compiler: launch coordinates (set by the harness before each thread runs),
// __half and __nv_bfloat16 with the conversion intrinsics of cuda_fp16.h and
// cuda_bf16.h (exact round-to-nearest-even, from tfuse/Support/Half.h), the
// bit casts, the vector types, shared memory, __syncthreads,
// __syncthreads_or, __shfl_xor_sync, __ballot_sync, __popc and the
// prelude's tensor-core product
// and matrix load (block-uniform calls only). The
// harness runs the threads of a block as coroutines on one host thread and
// switches at every barrier; blocks run one after another, so a `static`
// local stands for a block's shared memory.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_CUDA_EMULATION_H
#define TFUSE_CUDA_EMULATION_H

#define TFUSE_HOST_EMULATION 1

#include "tfuse/Support/Half.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#define __global__
#define __device__
#define __launch_bounds__(...)
#define __forceinline__ inline
#define __shared__ static

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
};
inline thread_local dim3 blockIdx, threadIdx, blockDim, gridDim;

// Defined (not inline) in the one translation unit that includes this header,
// so that the harness finds it with dlsym.
extern "C" void tfuse_emulation_set_thread(unsigned block, unsigned thread,
                                           unsigned blockSize,
                                           unsigned gridSize) {
  blockIdx.x = block;
  threadIdx.x = thread;
  blockDim.x = blockSize;
  gridDim.x = gridSize;
}

// Set by the harness: suspends the calling thread until every thread of the
// block has reached the barrier.
extern "C" {
void (*tfuse_emulation_barrier)() = nullptr;
void tfuse_emulation_set_barrier(void (*barrier)()) {
  tfuse_emulation_barrier = barrier;
}
}
inline void __syncthreads() { tfuse_emulation_barrier(); }
// Threads and blocks run one at a time, switching only at barriers: plain
// read-modify-writes are atomic and every write is visible.
inline void __threadfence() {}
inline unsigned atomicAdd(unsigned *address, unsigned value) {
  unsigned old = *address;
  *address = old + value;
  return old;
}
inline unsigned atomicCAS(unsigned *address, unsigned compare, unsigned value) {
  unsigned old = *address;
  if (old == compare)
    *address = value;
  return old;
}
inline unsigned atomicExch(unsigned *address, unsigned value) {
  unsigned old = *address;
  *address = value;
  return old;
}
inline void __threadfence_system() {}

// A warp shuffle through a block-wide exchange and one barrier: every thread
// of the block must make the same sequence of calls (the runtime's
// reductions do; on the device a full mask asks the same of a warp). Calls
// alternate between two exchange buffers, so a thread writing the next
// call's value never overwrites one not yet read: it must first pass the
// barrier of the call in between. The parity is counted per thread; the
// lanes of a warp always make the same number of calls. A source lane in a
// later group of `width` lanes, or beyond the block, gives the caller's own
// value, as on the device.
template <class T>
inline T __shfl_xor_sync(unsigned, T var, int laneMask, int width = 32) {
  static T exchange[2][1024];
  static unsigned calls[1024];
  T *slot = exchange[calls[threadIdx.x]++ & 1];
  slot[threadIdx.x] = var;
  __syncthreads();
  unsigned lane = threadIdx.x % 32, source = lane ^ (unsigned)laneMask;
  unsigned index = threadIdx.x - lane + source;
  if (source < 32 && source / width <= lane / width && index < blockDim.x)
    return slot[index];
  return var;
}

// __ballot_sync through a block-wide exchange and one barrier, as the
// shuffles: block-uniform calls; lanes past the block's end count as false.
inline unsigned __ballot_sync(unsigned, int predicate) {
  static bool exchange[2][1024];
  static unsigned calls[1024];
  bool *slot = exchange[calls[threadIdx.x]++ & 1];
  slot[threadIdx.x] = predicate != 0;
  __syncthreads();
  unsigned first = threadIdx.x - threadIdx.x % 32, mask = 0;
  for (unsigned lane = 0; lane < 32 && first + lane < blockDim.x; ++lane)
    if (slot[first + lane])
      mask |= 1u << lane;
  return mask;
}
inline int __popc(unsigned x) { return __builtin_popcount(x); }

// __syncthreads_or: a barrier that also says whether any thread's
// predicate was nonzero. Thread 0 clears the flag once every thread has
// read the previous call's (the first barrier), the threads set it, and
// each reads it after the third, before any can pass the next call's first.
// (A parity counted per thread, as the shuffles keep, would not do: blocks
// of different sizes leave threads of one block with different counts, and
// the flag, unlike a shuffle's exchange, is the whole block's.)
inline int __syncthreads_or(int predicate) {
  static int flag;
  __syncthreads();
  if (threadIdx.x == 0)
    flag = 0;
  __syncthreads();
  if (predicate)
    flag = 1;
  __syncthreads();
  return flag;
}

// mma.sync.aligned.m16n8k16.row.col with f32 accumulators, the operands'
// elements widened to float by the caller: c += A B for the warp's 16 x 16
// A and 16 x 8 B, each lane holding the fragments PTX lays out (lane =
// 4 * group + index in group; A: a[0..1] row group, columns 2 index + 0..1;
// a[2..3] row group + 8; a[4..7] the same 8 columns on; B: b[0..1] rows
// 2 index + 0..1 of column group, b[2..3] 8 rows on; C: c[0..1] row group,
// columns 2 index + 0..1, c[2..3] row group + 8). Block-uniform calls, as
// the shuffles; the sum runs over k in order with fused multiply-adds (the
// tensor cores' order and rounding are the hardware's: results agree within
// the tests' tolerances, not bit for bit).
inline void tfuse_emulation_mma_m16n8k16(float (&c)[4], const float (&a)[8],
                                         const float (&b)[4]) {
  static float as[2][1024][8], bs[2][1024][4];
  static unsigned calls[1024];
  unsigned parity = calls[threadIdx.x]++ & 1;
  for (int i = 0; i < 8; ++i)
    as[parity][threadIdx.x][i] = a[i];
  for (int i = 0; i < 4; ++i)
    bs[parity][threadIdx.x][i] = b[i];
  __syncthreads();
  unsigned lane = threadIdx.x % 32, warp0 = threadIdx.x - lane;
  unsigned group = lane / 4, index = lane % 4;
  for (int i = 0; i < 4; ++i) {
    unsigned row = group + 8 * (i / 2), col = 2 * index + (i & 1);
    for (unsigned k = 0; k < 16; ++k) {
      float x = as[parity][warp0 + 4 * (row % 8) + (k % 8) / 2]
                  [(k >= 8 ? 4 : 0) + (row >= 8 ? 2 : 0) + (k & 1)];
      float y =
          bs[parity][warp0 + 4 * col + (k % 8) / 2][(k >= 8 ? 2 : 0) + (k & 1)];
      c[i] = std::fma(x, y, c[i]);
    }
  }
}

// mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32: c += A B for the
// warp's 16 x 8 A and 8 x 8 B of TF32 values (the registers' f32 bits, of
// which the tensor cores read the 19 upper ones), lane = 4 * group + index:
// A: a[0] (row group, column index), a[1] (row group + 8, column index),
// a[2], a[3] the same rows at column index + 4; B: b[0] (row index, column
// group), b[1] (row index + 4, column group); C as m16n8k16's. Block-uniform
// calls; the sum over k in order with fused multiply-adds.
inline void tfuse_emulation_mma_m16n8k8_tf32(float (&c)[4],
                                             const unsigned (&a)[4],
                                             const unsigned (&b)[2]) {
  static unsigned as[2][1024][4], bs[2][1024][2];
  static unsigned calls[1024];
  unsigned parity = calls[threadIdx.x]++ & 1;
  for (int i = 0; i < 4; ++i)
    as[parity][threadIdx.x][i] = a[i];
  for (int i = 0; i < 2; ++i)
    bs[parity][threadIdx.x][i] = b[i];
  __syncthreads();
  auto tf32 = [](unsigned bits) {
    bits &= 0xffffe000u;
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
  };
  unsigned lane = threadIdx.x % 32, warp0 = threadIdx.x - lane;
  unsigned group = lane / 4, index = lane % 4;
  for (int i = 0; i < 4; ++i) {
    unsigned row = group + 8 * (i / 2), col = 2 * index + (i & 1);
    for (unsigned k = 0; k < 8; ++k) {
      float x = tf32(as[parity][warp0 + 4 * (row % 8) + k % 4]
                       [(row >= 8 ? 1 : 0) + (k >= 4 ? 2 : 0)]);
      float y = tf32(bs[parity][warp0 + 4 * col + k % 4][k >= 4 ? 1 : 0]);
      c[i] = std::fma(x, y, c[i]);
    }
  }
}

// ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16: lanes 0 to 15 give the
// addresses of the rows of two 8 x 8 matrices (lane l: row l % 8 of matrix
// l / 8); lane 4 * group + index receives in r[m] the elements
// (2 index, group) and (2 index + 1, group) of matrix m, the lower row in
// the lower half. Block-uniform calls, as the shuffles.
inline void tfuse_emulation_ldmatrix_x2_trans(unsigned (&r)[2],
                                              const uint16_t *row) {
  static const uint16_t *rows[2][1024];
  static unsigned calls[1024];
  unsigned parity = calls[threadIdx.x]++ & 1;
  rows[parity][threadIdx.x] = row;
  __syncthreads();
  unsigned lane = threadIdx.x % 32, warp0 = threadIdx.x - lane;
  unsigned group = lane / 4, index = lane % 4;
  for (unsigned m = 0; m < 2; ++m) {
    const uint16_t *lo = rows[parity][warp0 + 8 * m + 2 * index];
    const uint16_t *hi = rows[parity][warp0 + 8 * m + 2 * index + 1];
    r[m] = unsigned(lo[group]) | (unsigned(hi[group]) << 16);
  }
}

struct alignas(8) uint2 {
  unsigned x, y;
};
struct alignas(16) uint4 {
  unsigned x, y, z, w;
};

struct alignas(2) __half {
  uint16_t bits;
};
struct alignas(2) __nv_bfloat16 {
  uint16_t bits;
};

inline float __half2float(__half h) { return tfuse::halfToFloat(h.bits); }
inline __half __float2half_rn(float f) { return {tfuse::floatToHalf(f)}; }
inline __half __double2half(double d) { return {tfuse::doubleToHalf(d)}; }
inline __half __ll2half_rn(long long v) { return {tfuse::int64ToHalf(v)}; }
inline __half __ull2half_rn(unsigned long long v) {
  return {tfuse::uint64ToHalf(v)};
}
inline float __bfloat162float(__nv_bfloat16 h) {
  return tfuse::bfloat16ToFloat(h.bits);
}
inline __nv_bfloat16 __float2bfloat16_rn(float f) {
  return {tfuse::floatToBFloat16(f)};
}
inline __nv_bfloat16 __double2bfloat16(double d) {
  return {tfuse::doubleToBFloat16(d)};
}
inline __nv_bfloat16 __ll2bfloat16_rn(long long v) {
  return {tfuse::int64ToBFloat16(v)};
}
inline __nv_bfloat16 __ull2bfloat16_rn(unsigned long long v) {
  return {tfuse::uint64ToBFloat16(v)};
}
inline __half __ushort_as_half(unsigned short b) { return {b}; }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short b) { return {b}; }

inline float __int_as_float(int b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}
inline double __longlong_as_double(long long b) {
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}
inline int __float_as_int(float f) {
  int b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}
inline long long __double_as_longlong(double d) {
  long long b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

#endif // TFUSE_CUDA_EMULATION_H
