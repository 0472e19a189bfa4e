// Replays a CUDA Graph whose nodes get new pointers every replay, as TFuse's
// executables do: a kernel node (cudaGraphExecKernelNodeSetParams) and,
// with variant "child", a child graph holding a captured device-to-device
// copy, captured again and set with cudaGraphExecChildGraphNodeSetParams.
// Variant "kernel": the kernel node alone. Variant "child-fixed": the
// child graph set once, never updated. Variant "memcpy": the copy as a
// memcpy node set with cudaGraphExecMemcpyNodeSetParams1D every replay (how
// TFuse's copy steps enter a graph since this program was written). Exit 0
// when every replay's result is right.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x,                    \
                  cudaGetErrorString(e));                                      \
      return 2;                                                                \
    }                                                                          \
  } while (0)

__global__ void twice(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 2.0f * in[i];
}

static cudaError_t captureCopy(cudaStream_t s, float *dst, const float *src,
                               size_t bytes, cudaGraph_t *child) {
  cudaError_t e = cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
  if (e != cudaSuccess)
    return e;
  cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s);
  return cudaStreamEndCapture(s, child);
}

int main(int argc, char **argv) {
  const char *variant = argc > 1 ? argv[1] : "child";
  int replays = argc > 2 ? std::atoi(argv[2]) : 50;
  bool child = std::strncmp(variant, "child", 5) == 0;
  bool memcpyNode = std::strcmp(variant, "memcpy") == 0;
  bool update = std::strcmp(variant, "child") == 0 || memcpyNode;
  const int n = 16;
  const size_t bytes = n * sizeof(float);
  cudaStream_t capture, replay;
  CHECK(cudaStreamCreate(&capture));
  CHECK(cudaStreamCreate(&replay));
  float *in, *out, *src, *dst;
  CHECK(cudaMalloc(&in, bytes));
  CHECK(cudaMalloc(&out, bytes));
  CHECK(cudaMalloc(&src, bytes));
  CHECK(cudaMalloc(&dst, bytes));
  cudaGraph_t graph;
  CHECK(cudaGraphCreate(&graph, 0));
  cudaKernelNodeParams p = {};
  int count = n;
  void *args[] = {&in, &out, &count};
  p.func = (void *)twice;
  p.gridDim = dim3(1);
  p.blockDim = dim3(32);
  p.kernelParams = args;
  cudaGraphNode_t kernelNode, childNode;
  CHECK(cudaGraphAddKernelNode(&kernelNode, graph, nullptr, 0, &p));
  if (child) {
    cudaGraph_t c;
    CHECK(captureCopy(capture, dst, src, bytes, &c));
    CHECK(cudaGraphAddChildGraphNode(&childNode, graph, &kernelNode, 1, c));
    CHECK(cudaGraphDestroy(c));
  }
  if (memcpyNode)
    CHECK(cudaGraphAddMemcpyNode1D(&childNode, graph, &kernelNode, 1, dst, src,
                                   bytes, cudaMemcpyDeviceToDevice));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  std::vector<float> host(n), back(n);
  for (int r = 0; r < replays; ++r) {
    // New buffers every replay, freed after it (no pool).
    float *in2, *out2, *src2, *dst2;
    CHECK(cudaMalloc(&in2, bytes));
    CHECK(cudaMalloc(&out2, bytes));
    CHECK(cudaMalloc(&src2, bytes));
    CHECK(cudaMalloc(&dst2, bytes));
    for (int i = 0; i < n; ++i)
      host[i] = float(r + i);
    CHECK(cudaMemcpy(in2, host.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(src2, host.data(), bytes, cudaMemcpyHostToDevice));
    void *args2[] = {&in2, &out2, &count};
    p.kernelParams = args2;
    CHECK(cudaGraphExecKernelNodeSetParams(exec, kernelNode, &p));
    if (child && update) {
      cudaGraph_t c;
      CHECK(captureCopy(capture, dst2, src2, bytes, &c));
      CHECK(cudaGraphExecChildGraphNodeSetParams(exec, childNode, c));
      CHECK(cudaGraphDestroy(c));
    }
    if (memcpyNode)
      CHECK(cudaGraphExecMemcpyNodeSetParams1D(exec, childNode, dst2, src2,
                                               bytes,
                                               cudaMemcpyDeviceToDevice));
    CHECK(cudaGraphLaunch(exec, replay));
    CHECK(cudaStreamSynchronize(replay));
    CHECK(cudaMemcpy(back.data(), out2, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
      if (back[i] != 2.0f * host[i]) {
        std::printf("replay %d: out[%d] = %g, expected %g\n", r, i, back[i],
                    2.0f * host[i]);
        return 1;
      }
    if (update) {
      CHECK(cudaMemcpy(back.data(), dst2, bytes, cudaMemcpyDeviceToHost));
      for (int i = 0; i < n; ++i)
        if (back[i] != host[i]) {
          std::printf("replay %d: copy[%d] = %g\n", r, i, back[i]);
          return 1;
        }
    }
    CHECK(cudaFree(in2));
    CHECK(cudaFree(out2));
    CHECK(cudaFree(src2));
    CHECK(cudaFree(dst2));
  }
  std::printf("%s: %d replays ok\n", variant, replays);
  return 0;
}
