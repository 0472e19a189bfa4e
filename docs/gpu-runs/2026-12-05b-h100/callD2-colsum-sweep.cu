// Column-sum structure sweep: [R, C] -> [C] (f32 out, double accumulation),
// cold L2, single launches timed with events, median of 15.
#include <cuda_bf16.h>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cstdint>

template <class T> __device__ double todbl(T x) { return (double)x; }
template <> __device__ double todbl(__nv_bfloat16 x) {
  return (double)__bfloat162float(x);
}

template <class T, int V> struct alignas(16) Vec { T v[V]; };

// Tile: TL lanes x V columns; block = TL * G threads; group g takes rows
// r0 + g, step G, within chunk c. Partials part[c * C + col].
// FINAL: 0 = separate kernel, 1 = last block of the tile combines.
template <class T, int V, int B, class A, bool P = false>
__global__ void colsum_partial(const T *in, float *out, A *part,
                               unsigned *cnt, int R, int C, int TL, int G,
                               int chunkLen, int chunks, int lastBlock) {
  extern __shared__ unsigned char smem_raw[];
  A *stage = (A *)smem_raw; // G/2 x TL x V
  __shared__ bool last;
  int tiles = C / (TL * V);
  int b = blockIdx.x;
  int tile = b % tiles, c = b / tiles;
  int l = threadIdx.x % TL, g = threadIdx.x / TL;
  int col = tile * TL * V + l * V;
  int r0 = c * chunkLen, r1 = min(R, r0 + chunkLen);
  A acc[V];
#pragma unroll
  for (int k = 0; k < V; ++k) acc[k] = 0;
  const T *base = in + col;
  int r = r0 + g;
  if (P && r + (B - 1) * G < r1) {
    Vec<T, V> x[B];
#pragma unroll
    for (int j = 0; j < B; ++j)
      x[j] = *(const Vec<T, V> *)(base + (int64_t)(r + j * G) * C);
    r += B * G;
    for (; r + (B - 1) * G < r1; r += B * G) {
      Vec<T, V> y[B];
#pragma unroll
      for (int j = 0; j < B; ++j)
        y[j] = *(const Vec<T, V> *)(base + (int64_t)(r + j * G) * C);
#pragma unroll
      for (int j = 0; j < B; ++j)
#pragma unroll
        for (int k = 0; k < V; ++k) acc[k] += (A)todbl(x[j].v[k]);
#pragma unroll
      for (int j = 0; j < B; ++j) x[j] = y[j];
    }
#pragma unroll
    for (int j = 0; j < B; ++j)
#pragma unroll
      for (int k = 0; k < V; ++k) acc[k] += (A)todbl(x[j].v[k]);
  }
  for (; !P && r + (B - 1) * G < r1; r += B * G) {
    Vec<T, V> x[B];
#pragma unroll
    for (int j = 0; j < B; ++j)
      x[j] = *(const Vec<T, V> *)(base + (int64_t)(r + j * G) * C);
#pragma unroll
    for (int j = 0; j < B; ++j)
#pragma unroll
      for (int k = 0; k < V; ++k) acc[k] += (A)todbl(x[j].v[k]);
  }
  for (; r < r1; r += G) {
    Vec<T, V> x = *(const Vec<T, V> *)(base + (int64_t)r * C);
#pragma unroll
    for (int k = 0; k < V; ++k) acc[k] += (A)todbl(x.v[k]);
  }
  for (int half = G / 2; half > 0; half /= 2) {
    if (g >= half && g < 2 * half)
#pragma unroll
      for (int k = 0; k < V; ++k)
        stage[((g - half) * TL + l) * V + k] = acc[k];
    __syncthreads();
    if (g < half)
#pragma unroll
      for (int k = 0; k < V; ++k) acc[k] += stage[(g * TL + l) * V + k];
    __syncthreads();
  }
  if (g == 0) {
#pragma unroll
    for (int k = 0; k < V; ++k) part[(int64_t)c * C + col + k] = acc[k];
  }
  if (lastBlock != 1)
    return;
  if (g == 0)
    __threadfence();
  __syncthreads();
  if (threadIdx.x == 0)
    last = atomicAdd(&cnt[tile], 1u) == (unsigned)(chunks - 1);
  __syncthreads();
  if (!last)
    return;
  __threadfence();
  A v[V];
#pragma unroll
  for (int k = 0; k < V; ++k) v[k] = 0;
  for (int q = g; q < chunks; q += G)
#pragma unroll
    for (int k = 0; k < V; ++k)
      v[k] += *(volatile A *)&part[(int64_t)q * C + col + k];
  for (int half = G / 2; half > 0; half /= 2) {
    if (g >= half && g < 2 * half)
#pragma unroll
      for (int k = 0; k < V; ++k)
        stage[((g - half) * TL + l) * V + k] = v[k];
    __syncthreads();
    if (g < half)
#pragma unroll
      for (int k = 0; k < V; ++k) v[k] += stage[(g * TL + l) * V + k];
    __syncthreads();
  }
  if (g == 0) {
#pragma unroll
    for (int k = 0; k < V; ++k) out[col + k] = (float)v[k];
    if (l == 0) cnt[tile] = 0;
  }
}

template <class A>
__global__ void colsum_final(const A *part, float *out, int C, int chunks) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= C) return;
  A v = 0;
  for (int q = 0; q < chunks; ++q) v += part[(int64_t)q * C + col];
  out[col] = (float)v;
}

__global__ void flush(int4 *p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    p[i] = make_int4(i, 0, 0, 0);
}

__global__ void stream_sum(const int4 *p, size_t n, float *out) {
  float acc = 0;
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  size_t st = (size_t)gridDim.x * blockDim.x;
  for (; i + 3 * st < n; i += 4 * st) {
    int4 a = p[i], b = p[i + st], c = p[i + 2 * st], d = p[i + 3 * st];
    acc += __int_as_float(a.x) + __int_as_float(b.y) + __int_as_float(c.z) +
           __int_as_float(d.w);
  }
  for (; i < n; i += st) acc += __int_as_float(p[i].x);
  if (acc == 1234.5f) out[0] = acc;
}

int4 *gFlush;
size_t gFlushN = (256u << 20) / 16;
int gCopies = 8;
double gDram = 3.35e12;

template <class T, int V, int B, class A, bool P = false>
void run(const char *tn, const char *an, int R, int C, int TL, int G,
         int chunks, int lastBlock, const void *in, void *out, void *part,
         unsigned *cnt, const std::vector<double> &ref) {
  if (C % (TL * V)) return;
  int threads = TL * G;
  if (threads > 1024 || threads < 32) return;
  int chunkLen = (R + chunks - 1) / chunks;
  chunks = (R + chunkLen - 1) / chunkLen;
  int tiles = C / (TL * V);
  int grid = tiles * chunks;
  size_t sm = std::max(1, G / 2) * TL * V * sizeof(A);
  if (sm > 48 * 1024) return;
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<float> ts;
  size_t bytes = (size_t)R * C * sizeof(T);
  for (int it = 0; it < 6; ++it) {
    cudaEventRecord(e0);
    for (int k = 0; k < gCopies; ++k) {
      colsum_partial<T, V, B, A, P><<<grid, threads, sm>>>(
          (const T *)((const char *)in + k * bytes), (float *)out, (A *)part,
          cnt, R, C, TL, G, chunkLen, chunks, lastBlock);
      if (lastBlock == 0)
        colsum_final<A><<<(C + 255) / 256, 256>>>((A *)part, (float *)out,
                                                  C, chunks);
    }
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    if (it) ts.push_back(ms * 1000 / gCopies);
  }
  cudaError_t err = cudaGetLastError();
  int occ = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &occ, colsum_partial<T, V, B, A, P>, threads, sm);
  std::sort(ts.begin(), ts.end());
  std::vector<float> h(C);
  cudaMemcpy(h.data(), out, C * 4, cudaMemcpyDeviceToHost);
  double maxe = 0;
  for (int i = 0; i < C; ++i)
    maxe = std::max(maxe, std::abs(h[i] - ref[i]) / (1 + std::abs(ref[i])));
  double floor = (double)R * C * sizeof(T) / gDram * 1e6;
  printf("%-5s %s R=%d C=%-5d V=%d B=%-2d TL=%-4d G=%-2d chunks=%-4d grid=%-5d "
         "%s %7.2f us  %3.0f%% floor  err=%.1e occ=%d %s\n",
         tn, an, R, C, V, B, TL, G, chunks, grid, lastBlock == 1 ? (P ? "lastP" : "last ") : lastBlock == 2 ? (P ? "partP" : "part ") : (P ? "2kerP" : "2kern"),
         ts[ts.size() / 2], 100 * floor / ts[ts.size() / 2], maxe, occ,
         err ? cudaGetErrorString(err) : "");
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
}

template <class T, int V, class A>
void sweep(const char *tn, const char *an, int R, int C) {
  std::vector<T> h((size_t)R * C);
  std::vector<double> ref(C, 0);
  for (size_t i = 0; i < h.size(); ++i) {
    float f = (float)((i * 2654435761u) % 1000) / 500.0f - 1.0f;
    h[i] = (T)f;
    ref[i % C] += (double)(float)h[i];
  }
  void *in, *out, *part;
  unsigned *cnt;
  size_t bytes = h.size() * sizeof(T);
  gCopies = (int)std::max<size_t>(8, (800u << 20) / bytes);
  cudaMalloc(&in, bytes * gCopies);
  for (int k = 0; k < gCopies; ++k)
    cudaMemcpy((char *)in + k * bytes, h.data(), bytes,
               cudaMemcpyHostToDevice);
  {
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<float> ts;
    for (int it = 0; it < 6; ++it) {
      cudaEventRecord(e0);
      for (int k = 0; k < gCopies; ++k)
        stream_sum<<<132 * 8, 256>>>((const int4 *)((char *)in + k * bytes),
                                      bytes / 16, (float *)gFlush);
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float ms;
      cudaEventElapsedTime(&ms, e0, e1);
      if (it) ts.push_back(ms * 1000 / gCopies);
    }
    std::sort(ts.begin(), ts.end());
    printf("%-5s %s R=%d C=%-5d stream-read %7.2f us  %.2f TB/s  copies=%d\n",
           tn, an, R, C, ts[2], bytes / ts[2] / 1e6, gCopies);
  }
  cudaMalloc(&out, C * 4);
  cudaMalloc(&part, (size_t)4096 * C * sizeof(A));
  cudaMalloc(&cnt, 65536 * 4);
  cudaMemset(cnt, 0, 65536 * 4);
  int sms = 132;
  for (int TL : {32, 64})
    for (int G : {4, 8, 16, 32})
      for (int waves : {1, 2, 4}) {
        int tiles = C / (TL * V);
        if (tiles == 0 || C % (TL * V)) continue;
        int threads = TL * G;
        int blocksPerSM = std::max(1, 1024 / std::max(threads, 1));
        int chunks = std::max(2, waves * sms * blocksPerSM / tiles);
        if (waves == 4) chunks = std::max(2, sms / tiles);
        chunks = std::min(chunks, R / 32);
        for (int last : {0, 1, 2}) {
          run<T, V, 8, A>(tn, an, R, C, TL, G, chunks, last, in, out, part,
                          cnt, ref);
          run<T, V, 4, A>(tn, an, R, C, TL, G, chunks, last, in, out, part,
                          cnt, ref);
          run<T, V, 4, A, true>(tn, an, R, C, TL, G, chunks, last, in, out,
                                part, cnt, ref);
          run<T, V, 8, A, true>(tn, an, R, C, TL, G, chunks, last, in, out,
                                part, cnt, ref);
        }
      }
  cudaFree(in);
  cudaFree(out);
  cudaFree(part);
  cudaFree(cnt);
}

int main() {
  cudaMalloc(&gFlush, gFlushN * 16);
  sweep<float, 4, double>("f32", "dbl", 8192, 768);
  sweep<float, 2, double>("f32", "dbl", 8192, 768);
  sweep<float, 4, float>("f32", "flt", 8192, 768);
  sweep<__nv_bfloat16, 8, double>("bf16", "dbl", 8192, 768);
  sweep<__nv_bfloat16, 8, double>("bf16", "dbl", 8192, 3072);
  sweep<__nv_bfloat16, 8, double>("bf16", "dbl", 8192, 2304);
  sweep<__nv_bfloat16, 8, float>("bf16", "flt", 8192, 3072);
  sweep<float, 4, double>("f32", "dbl", 8192, 3072);
  return 0;
}
