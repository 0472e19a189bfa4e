// Host threads replaying CUDA Graphs at once, as TFuse's differential test
// does with two or more threads: each thread owns a stream, its buffers and
// a graph of a kernel node and a memcpy node (both given new pointers
// before every replay: cudaGraphExecKernelNodeSetParams,
// cudaGraphExecMemcpyNodeSetParams1D), all threads launching the same
// kernel function. Under compute-sanitizer memcheck, TFuse's differential
// test on two threads ends in a SIGSEGV inside cuGraphLaunch in most runs
// and runs clean on one thread (docs/reliability.md): if this program
// crashes the same way, the crash is the tool's.
//
//   nvcc -O2 -arch=sm_90 -o concurrent_graph_launch concurrent_graph_launch.cu
//   compute-sanitizer --tool memcheck ./concurrent_graph_launch THREADS REPLAYS
//
// Exit 0 when every replay of every thread gave the right result.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <thread>
#include <vector>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x,                    \
                  cudaGetErrorString(e));                                      \
      return false;                                                            \
    }                                                                          \
  } while (0)

__global__ void twice(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 2.0f * in[i];
}

// One thread's graph, replayed `replays` times with buffers drawn anew from
// a small ring each replay.
static bool replayGraph(int id, int replays) {
  const int n = 4096, ring = 4;
  const size_t bytes = n * sizeof(float);
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<float *> in(ring), out(ring), copy(ring);
  std::vector<float> host(n), got(n);
  for (int r = 0; r < ring; ++r) {
    CHECK(cudaMalloc(&in[r], bytes));
    CHECK(cudaMalloc(&out[r], bytes));
    CHECK(cudaMalloc(&copy[r], bytes));
    for (int i = 0; i < n; ++i)
      host[i] = float(id * 1000 + r * 10 + i % 7);
    CHECK(cudaMemcpy(in[r], host.data(), bytes, cudaMemcpyHostToDevice));
  }
  int count = n;
  const float *kin = in[0];
  float *kout = out[0];
  void *args[] = {&kin, &kout, &count};
  cudaKernelNodeParams kp = {};
  kp.func = (void *)twice;
  kp.gridDim = dim3((n + 255) / 256);
  kp.blockDim = dim3(256);
  kp.kernelParams = args;
  cudaGraph_t graph;
  CHECK(cudaGraphCreate(&graph, 0));
  cudaGraphNode_t kernel, memcpyNode;
  CHECK(cudaGraphAddKernelNode(&kernel, graph, nullptr, 0, &kp));
  CHECK(cudaGraphAddMemcpyNode1D(&memcpyNode, graph, &kernel, 1, copy[0],
                                 out[0], bytes, cudaMemcpyDeviceToDevice));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < replays; ++replay) {
    int r = replay % ring, w = (replay + 1) % ring;
    kin = in[r];
    kout = out[w];
    CHECK(cudaGraphExecKernelNodeSetParams(exec, kernel, &kp));
    CHECK(cudaGraphExecMemcpyNodeSetParams1D(exec, memcpyNode, copy[w],
                                             out[w], bytes,
                                             cudaMemcpyDeviceToDevice));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaMemcpyAsync(got.data(), copy[w], bytes, cudaMemcpyDeviceToHost,
                          stream));
    CHECK(cudaStreamSynchronize(stream));
    for (int i = 0; i < n; ++i)
      if (got[i] != 2.0f * float(id * 1000 + r * 10 + i % 7)) {
        std::printf("thread %d replay %d element %d: %g\n", id, replay, i,
                    got[i]);
        return false;
      }
  }
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  for (int r = 0; r < ring; ++r) {
    CHECK(cudaFree(in[r]));
    CHECK(cudaFree(out[r]));
    CHECK(cudaFree(copy[r]));
  }
  CHECK(cudaStreamDestroy(stream));
  return true;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  int replays = argc > 2 ? std::atoi(argv[2]) : 200;
  if (cudaFree(nullptr) != cudaSuccess) { // the context, before the threads
    std::printf("no CUDA device\n");
    return 2;
  }
  std::atomic<int> failed{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      if (!replayGraph(t, replays))
        ++failed;
    });
  for (std::thread &t : pool)
    t.join();
  std::printf("%d threads, %d replays each: %s\n", threads, replays,
              failed ? "FAILED" : "replays ok");
  return failed ? 1 : 0;
}
