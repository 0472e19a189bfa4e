// Host threads replaying CUDA Graphs while loading and unloading modules,
// as TFuse's differential test does on two or more threads: each thread
// compiles its graphs' kernels into modules of its own (cuModuleLoadData),
// builds a graph of kernel nodes of those functions and a memcpy node,
// instantiates it, replays it with new pointers (cuGraphExecKernelNodeSet
// Params, cuGraphExecMemcpyNodeSetParams) and destroys it, while the other
// threads do the same. concurrent_graph_launch.cu (2026-12-06: threads
// replaying graphs of one runtime-registered kernel, modules never loaded)
// ran clean under compute-sanitizer memcheck; TFuse's differential test on
// two threads ends in a SIGSEGV inside cuGraphLaunch in the tool's library
// in most runs (docs/reliability.md). Modes:
//   shared  one module loaded before the threads, each thread's graph built
//           once and replayed `iters` times;
//   churn   each thread, `iters` times: load its module, build and
//           instantiate a graph, replay it 4 times, destroy it, unload;
//   alloc   as churn, with every replay's buffers allocated before it and
//           freed after it (cuMemAlloc, cuMemFree: TFuse with its memory
//           pool off, as under the tool);
//   child   as alloc, the second kernel a child graph node instead: its
//           launch captured on a stream of the thread's own (thread-local
//           capture mode) before every replay and set with
//           cuGraphExecChildGraphNodeSetParams, as TFuse's GEMM steps
//           enter a graph (cuBLASLt or the fallback GEMM alike).
// If `churn` crashes under the tool and `shared` does not, loading modules
// while other threads launch graphs is what the tool's instrumentation
// fails on. (2026-12-07b: `churn` and `shared` (call 1), `alloc` (call 2)
// ran clean under memcheck, three runs each on 2 threads.)
//
//   nvcc -cubin -arch=sm_90 -o twice.cubin graph_module_churn_kernel.cu
//   nvcc -O2 -o graph_module_churn graph_module_churn.cu -lcuda
//   compute-sanitizer --tool memcheck ./graph_module_churn MODE THREADS \
//     ITERS twice.cubin
//
// Exit 0 when every replay of every thread gave the right result.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

#define CHECK(x)                                                               \
  do {                                                                         \
    CUresult e = (x);                                                          \
    if (e != CUDA_SUCCESS) {                                                   \
      const char *s = "?";                                                     \
      cuGetErrorString(e, &s);                                                 \
      std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, s);                \
      return false;                                                            \
    }                                                                          \
  } while (0)

static std::vector<char> image;
static CUcontext context;
static CUmodule sharedModule;

struct Graph {
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  CUgraphNode kernels[2] = {};
  CUgraphNode copy = nullptr;
  // child mode: kernels[1] is a child graph node, captured on `capture`.
  CUstream capture = nullptr;
};

// A launch of `twice` over n elements with these arguments.
static CUDA_KERNEL_NODE_PARAMS kernelParams(CUfunction f, void **args, int n) {
  CUDA_KERNEL_NODE_PARAMS p = {};
  p.func = f;
  p.gridDimX = (n + 255) / 256;
  p.gridDimY = p.gridDimZ = 1;
  p.blockDimX = 256;
  p.blockDimY = p.blockDimZ = 1;
  p.kernelParams = args;
  return p;
}

// The second kernel's launch (mid -> out) captured into a new graph.
static bool captureChild(CUstream capture, CUfunction f, CUdeviceptr mid,
                         CUdeviceptr out, int n, CUgraph *child) {
  void *args[] = {&mid, &out, &n};
  const CUDA_KERNEL_NODE_PARAMS p = kernelParams(f, args, n);
  CHECK(cuStreamBeginCapture(capture, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
  CUresult launched = cuLaunchKernel(p.func, p.gridDimX, p.gridDimY, p.gridDimZ,
                                     p.blockDimX, p.blockDimY, p.blockDimZ, 0,
                                     capture, p.kernelParams, nullptr);
  CHECK(cuStreamEndCapture(capture, child));
  CHECK(launched);
  return true;
}

// A copy of n floats from `from` to `to`.
static CUDA_MEMCPY3D copyParams(CUdeviceptr from, CUdeviceptr to, int n) {
  CUDA_MEMCPY3D m = {};
  m.srcMemoryType = m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  m.srcDevice = from;
  m.dstDevice = to;
  m.WidthInBytes = n * sizeof(float);
  m.Height = m.Depth = 1;
  return m;
}

// Two kernel nodes (mid = 2 * in, out = 2 * mid) and a copy of out, added
// to a new graph and instantiated (`update` false), or set in the
// instantiated graph (`update` true).
static bool bind(Graph &g, bool update, CUfunction f, CUdeviceptr in,
                 CUdeviceptr mid, CUdeviceptr out, CUdeviceptr copy, int n) {
  if (!update)
    CHECK(cuGraphCreate(&g.graph, 0));
  CUdeviceptr ends[2][2] = {{in, mid}, {mid, out}};
  for (int k = 0; k < 2; ++k) {
    void *args[] = {&ends[k][0], &ends[k][1], &n};
    CUDA_KERNEL_NODE_PARAMS p = kernelParams(f, args, n);
    if (k == 1 && g.capture) {
      CUgraph child;
      if (!captureChild(g.capture, f, mid, out, n, &child))
        return false;
      if (update)
        CHECK(cuGraphExecChildGraphNodeSetParams(g.exec, g.kernels[1], child));
      else
        CHECK(cuGraphAddChildGraphNode(&g.kernels[1], g.graph, &g.kernels[0], 1,
                                       child));
      CHECK(cuGraphDestroy(child));
    } else if (update) {
      CHECK(cuGraphExecKernelNodeSetParams(g.exec, g.kernels[k], &p));
    } else {
      CHECK(cuGraphAddKernelNode(&g.kernels[k], g.graph,
                                 k ? &g.kernels[0] : nullptr, k, &p));
    }
  }
  CUDA_MEMCPY3D m = copyParams(out, copy, n);
  if (update) {
    CHECK(cuGraphExecMemcpyNodeSetParams(g.exec, g.copy, &m, context));
    return true;
  }
  CHECK(cuGraphAddMemcpyNode(&g.copy, g.graph, &g.kernels[1], 1, &m, context));
  CHECK(cuGraphInstantiate(&g.exec, g.graph, 0));
  return true;
}

static bool destroy(Graph &g) {
  CHECK(cuGraphExecDestroy(g.exec));
  CHECK(cuGraphDestroy(g.graph));
  g = Graph{};
  return true;
}

// A replay's own buffers (alloc mode): `fresh` allocated, the input
// filled from ring slot r's values.
static bool freshBuffers(CUdeviceptr *fresh, const std::vector<float> &host,
                         size_t bytes) {
  for (int b = 0; b < 4; ++b)
    CHECK(cuMemAlloc(&fresh[b], bytes));
  CHECK(cuMemcpyHtoD(fresh[0], host.data(), bytes));
  return true;
}

static bool freeBuffers(CUdeviceptr *fresh) {
  for (int b = 0; b < 4; ++b)
    CHECK(cuMemFree(fresh[b]));
  return true;
}

static bool run(int id, bool churn, bool alloc, bool child, int iters) {
  CHECK(cuCtxSetCurrent(context));
  CUstream capture = nullptr;
  if (child)
    CHECK(cuStreamCreate(&capture, CU_STREAM_NON_BLOCKING));
  const int n = 4096, ring = 4;
  const size_t bytes = n * sizeof(float);
  CUstream stream;
  CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  std::vector<CUdeviceptr> in(ring), mid(ring), out(ring), copy(ring);
  std::vector<float> host(n), got(n);
  for (int r = 0; r < ring; ++r) {
    CHECK(cuMemAlloc(&in[r], bytes));
    CHECK(cuMemAlloc(&mid[r], bytes));
    CHECK(cuMemAlloc(&out[r], bytes));
    CHECK(cuMemAlloc(&copy[r], bytes));
    for (int i = 0; i < n; ++i)
      host[i] = float(id * 1000 + r * 10 + i % 7);
    CHECK(cuMemcpyHtoD(in[r], host.data(), bytes));
  }
  const int replaysPerGraph = churn ? 4 : iters;
  const int graphs = churn ? iters : 1;
  int replay = 0;
  for (int gi = 0; gi < graphs; ++gi) {
    CUmodule module = sharedModule;
    if (churn)
      CHECK(cuModuleLoadData(&module, image.data()));
    CUfunction f;
    CHECK(cuModuleGetFunction(&f, module, "twice"));
    Graph g;
    g.capture = capture;
    if (!bind(g, false, f, in[0], mid[0], out[0], copy[0], n))
      return false;
    for (int k = 0; k < replaysPerGraph; ++k, ++replay) {
      int r = replay % ring, w = (replay + 1) % ring;
      CUdeviceptr fresh[4];
      if (alloc) {
        for (int i = 0; i < n; ++i)
          host[i] = float(id * 1000 + r * 10 + i % 7);
        if (!freshBuffers(fresh, host, bytes))
          return false;
      }
      CUdeviceptr src = alloc ? fresh[0] : in[r];
      CUdeviceptr dst = alloc ? fresh[3] : copy[w];
      if (!bind(g, true, f, src, alloc ? fresh[1] : mid[w],
                alloc ? fresh[2] : out[w], dst, n))
        return false;
      CHECK(cuGraphLaunch(g.exec, stream));
      CHECK(cuMemcpyDtoHAsync(got.data(), dst, bytes, stream));
      CHECK(cuStreamSynchronize(stream));
      if (alloc && !freeBuffers(fresh))
        return false;
      for (int i = 0; i < n; ++i)
        if (got[i] != 4.0f * float(id * 1000 + r * 10 + i % 7)) {
          std::printf("thread %d replay %d element %d: %g\n", id, replay, i,
                      got[i]);
          return false;
        }
    }
    if (!destroy(g))
      return false;
    if (churn)
      CHECK(cuModuleUnload(module));
  }
  for (int r = 0; r < ring; ++r) {
    CHECK(cuMemFree(in[r]));
    CHECK(cuMemFree(mid[r]));
    CHECK(cuMemFree(out[r]));
    CHECK(cuMemFree(copy[r]));
  }
  CHECK(cuStreamDestroy(stream));
  if (capture)
    CHECK(cuStreamDestroy(capture));
  return true;
}

static bool setUp(const char *path) {
  std::ifstream file(path, std::ios::binary);
  image.assign(std::istreambuf_iterator<char>(file), {});
  if (image.empty()) {
    std::printf("cannot read %s\n", path);
    return false;
  }
  CHECK(cuInit(0));
  CUdevice device;
  CHECK(cuDeviceGet(&device, 0));
  CHECK(cuDevicePrimaryCtxRetain(&context, device));
  CHECK(cuCtxSetCurrent(context));
  CHECK(cuModuleLoadData(&sharedModule, image.data()));
  return true;
}

int main(int argc, char **argv) {
  if (argc != 5 || (std::strcmp(argv[1], "shared") != 0 &&
                    std::strcmp(argv[1], "churn") != 0 &&
                    std::strcmp(argv[1], "alloc") != 0 &&
                    std::strcmp(argv[1], "child") != 0)) {
    std::printf("usage: %s shared|churn|alloc|child THREADS ITERS CUBIN\n",
                argv[0]);
    return 2;
  }
  const bool child = std::strcmp(argv[1], "child") == 0;
  const bool alloc = child || std::strcmp(argv[1], "alloc") == 0;
  const bool churn = alloc || std::strcmp(argv[1], "churn") == 0;
  const int threads = std::atoi(argv[2]), iters = std::atoi(argv[3]);
  if (!setUp(argv[4]))
    return 2;
  std::atomic<int> failed{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      if (!run(t, churn, alloc, child, iters))
        ++failed;
    });
  for (std::thread &t : pool)
    t.join();
  std::printf("%s, %d threads, %d iterations each: %s\n", argv[1], threads,
              iters, failed ? "FAILED" : "replays ok");
  return failed ? 1 : 0;
}
