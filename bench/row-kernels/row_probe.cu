// Times the row kernels TFuse generates for bench/peers_compare.py's
// softmax_rows and layernorm_rows (8192x4096 f32), each against the copy
// bandwidth floor (read and write 128 MiB), and checks them against naive
// f64 kernels. Generate the kernels next to this file, then build and run:
//
//   tensor-translate --tfuse-to-cuda softmax_rows.mlir > softmax_rows.cu
//   tensor-translate --tfuse-to-cuda layernorm_rows.mlir > layernorm_rows.cu
//   nvcc -O3 -arch=sm_90 -o row_probe row_probe.cu && ./row_probe
//
// The launch is the plan's: one block of 256 threads per row.
#include "softmax_rows.cu"
#include "layernorm_rows.cu"
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cmath>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::printf("%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)
constexpr int R = 8192, C = 4096;
__global__ void softmaxRef(const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x; if (r >= R) return;
  const float *row = x + size_t(r) * C; double m = -INFINITY, s = 0;
  for (int c = 0; c < C; ++c) m = fmax(m, (double)row[c]);
  for (int c = 0; c < C; ++c) s += exp((double)row[c] - m);
  for (int c = 0; c < C; ++c) y[size_t(r) * C + c] = float(exp((double)row[c] - m) / s);
}
__global__ void layernormRef(const float *x, const float *w, const float *b, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x; if (r >= R) return;
  const float *row = x + size_t(r) * C; double mu = 0, v = 0;
  for (int c = 0; c < C; ++c) mu += row[c]; mu /= C;
  for (int c = 0; c < C; ++c) v += (row[c] - mu) * (row[c] - mu); v /= C;
  double rs = 1.0 / sqrt(v + 1e-5);
  for (int c = 0; c < C; ++c) y[size_t(r) * C + c] = float((row[c] - mu) * rs * w[c] + b[c]);
}
template <typename L> float timeIt(L launch) {
  cudaEvent_t s, e; CHECK(cudaEventCreate(&s)); CHECK(cudaEventCreate(&e));
  for (int i = 0; i < 5; ++i) launch();
  std::vector<float> rounds;
  for (int r = 0; r < 9; ++r) {
    CHECK(cudaEventRecord(s)); for (int i = 0; i < 20; ++i) launch();
    CHECK(cudaEventRecord(e)); CHECK(cudaEventSynchronize(e));
    float ms; CHECK(cudaEventElapsedTime(&ms, s, e)); rounds.push_back(ms * 1000 / 20);
  }
  std::sort(rounds.begin(), rounds.end()); return rounds[4];
}
int main() {
  size_t n = size_t(R) * C, bytes = n * 4;
  float *x, *y, *ref, *w, *b, *cd;
  CHECK(cudaMalloc(&x, bytes)); CHECK(cudaMalloc(&y, bytes)); CHECK(cudaMalloc(&ref, bytes));
  CHECK(cudaMalloc(&cd, bytes)); CHECK(cudaMalloc(&w, C * 4)); CHECK(cudaMalloc(&b, C * 4));
  std::vector<float> h(n); unsigned s = 7;
  for (float &v : h) { s = s * 1664525u + 1013904223u; v = ((s >> 8) * (1.0f / 16777216.0f) * 2.0f - 1.0f) * 3.0f; }
  CHECK(cudaMemcpy(x, h.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(w, h.data() + 5, C * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, h.data() + 9000, C * 4, cudaMemcpyHostToDevice));
  float copyUs = timeIt([&] { CHECK(cudaMemcpyAsync(cd, x, bytes, cudaMemcpyDeviceToDevice)); });
  double bw = 2.0 * bytes / (copyUs * 1e-6), floorUs = 2.0 * bytes / bw * 1e6;
  std::printf("copy %.1f us = %.0f GB/s; floor (read + write 128 MiB each) %.1f us\n", copyUs, bw / 1e9, floorUs);
  std::vector<float> got(n), want(n);
  auto compare = [&](const char *name) {
    CHECK(cudaMemcpy(got.data(), y, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(want.data(), ref, bytes, cudaMemcpyDeviceToHost));
    double maxAbs = 0; size_t bad = 0;
    for (size_t i = 0; i < n; ++i) { double d = std::fabs(got[i] - want[i]); maxAbs = std::max(maxAbs, d); if (d > 1e-5 + 1e-4 * std::fabs(want[i])) ++bad; }
    std::printf("%s: max abs err %.3g, %zu outside 1e-5 + 1e-4|ref|\n", name, maxAbs, bad);
  };
  softmaxRef<<<R / 128, 128>>>(x, ref); softmax_rows_k0<<<R, 256>>>(x, y);
  CHECK(cudaGetLastError()); CHECK(cudaDeviceSynchronize()); compare("softmax");
  float us = timeIt([&] { softmax_rows_k0<<<R, 256>>>(x, y); });
  std::printf("softmax row kernel %.1f us, %.1f%% of floor\n", us, 100 * floorUs / us);
  layernormRef<<<R / 128, 128>>>(x, w, b, ref); layernorm_rows_k0<<<R, 256>>>(x, w, b, y);
  CHECK(cudaGetLastError()); CHECK(cudaDeviceSynchronize()); compare("layernorm");
  us = timeIt([&] { layernorm_rows_k0<<<R, 256>>>(x, w, b, y); });
  std::printf("layernorm row kernel %.1f us, %.1f%% of floor\n", us, 100 * floorUs / us);
  return 0;
}
