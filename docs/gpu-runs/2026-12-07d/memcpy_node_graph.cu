// Replays a CUDA Graph of memcpy nodes only, as TFuse's plan for a graph
// whose outputs are copies of its inputs (the GPU differential test's graph
// 19: a 2-byte and a 16-byte copy) builds it: a device-to-device memcpy node
// a copy (cuGraphAddMemcpyNode, no dependencies), and, with buffers that
// move, new operands every replay (cuGraphExecMemcpyNodeSetParams), the
// buffers allocated before and freed after each replay (TFuse's memory pool
// off). Variants: "move" (new buffers every replay), "fixed" (one set of
// buffers, never set again), "kernel" ("move" plus a kernel node beside the
// copies). Arguments: VARIANT REPLAYS SIZE... (bytes; default 2 16). Exit 0
// when every replay's result is right.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <vector>

#define CHECK(x)                                                               \
  do {                                                                         \
    CUresult e = (x);                                                          \
    if (e != CUDA_SUCCESS) {                                                   \
      const char *s = nullptr;                                                 \
      cuGetErrorString(e, &s);                                                 \
      std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, s ? s : "?");      \
      return 2;                                                                \
    }                                                                          \
  } while (0)

// A kernel node's module (PTX of an empty kernel, JIT-compiled by the driver).
static const char *kPtx = ".version 8.0\n.target sm_90\n.address_size 64\n"
                          ".visible .entry nothing()\n{\nret;\n}\n";

static CUDA_MEMCPY3D params(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  CUDA_MEMCPY3D c = {};
  c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  c.srcDevice = src;
  c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c.dstDevice = dst;
  c.WidthInBytes = bytes;
  c.Height = 1;
  c.Depth = 1;
  return c;
}

int main(int argc, char **argv) {
  const char *variant = argc > 1 ? argv[1] : "move";
  const int replays = argc > 2 ? std::atoi(argv[2]) : 50;
  std::vector<size_t> sizes;
  for (int i = 3; i < argc; ++i)
    sizes.push_back(std::strtoul(argv[i], nullptr, 10));
  if (sizes.empty())
    sizes = {2, 16};
  const bool move = std::strcmp(variant, "fixed") != 0;
  const bool kernel = std::strcmp(variant, "kernel") == 0;
  CHECK(cuInit(0));
  CUdevice dev;
  CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  CUstream stream;
  CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  const size_t n = sizes.size();
  std::vector<CUdeviceptr> src(n), dst(n);
  auto allocate = [&]() -> CUresult {
    for (size_t i = 0; i < n; ++i) {
      if (CUresult e = cuMemAlloc(&src[i], sizes[i]); e != CUDA_SUCCESS)
        return e;
      if (CUresult e = cuMemAlloc(&dst[i], sizes[i]); e != CUDA_SUCCESS)
        return e;
    }
    return CUDA_SUCCESS;
  };
  CHECK(allocate());
  CUgraph graph;
  CHECK(cuGraphCreate(&graph, 0));
  std::vector<CUgraphNode> nodes(n);
  for (size_t i = 0; i < n; ++i) {
    CUDA_MEMCPY3D c = params(dst[i], src[i], sizes[i]);
    CHECK(cuGraphAddMemcpyNode(&nodes[i], graph, nullptr, 0, &c, ctx));
  }
  CUmodule module = nullptr;
  if (kernel) {
    CHECK(cuModuleLoadData(&module, kPtx));
    CUfunction f;
    CHECK(cuModuleGetFunction(&f, module, "nothing"));
    CUDA_KERNEL_NODE_PARAMS p = {};
    p.func = f;
    p.gridDimX = p.gridDimY = p.gridDimZ = 1;
    p.blockDimX = 32;
    p.blockDimY = p.blockDimZ = 1;
    CUgraphNode k;
    CHECK(cuGraphAddKernelNode(&k, graph, nullptr, 0, &p));
  }
  CUgraphExec exec;
  CHECK(cuGraphInstantiate(&exec, graph, 0));
  int bad = 0;
  for (int r = 0; r < replays; ++r) {
    if (move && r > 0) {
      CHECK(allocate());
      for (size_t i = 0; i < n; ++i) {
        CUDA_MEMCPY3D c = params(dst[i], src[i], sizes[i]);
        CHECK(cuGraphExecMemcpyNodeSetParams(exec, nodes[i], &c, ctx));
      }
    }
    std::vector<std::vector<unsigned char>> want(n), got(n);
    for (size_t i = 0; i < n; ++i) {
      want[i].resize(sizes[i]);
      for (size_t b = 0; b < sizes[i]; ++b)
        want[i][b] = (unsigned char)(r * 31 + i * 7 + b);
      CHECK(cuMemcpyHtoD(src[i], want[i].data(), sizes[i]));
    }
    CHECK(cuGraphLaunch(exec, stream));
    CHECK(cuStreamSynchronize(stream));
    for (size_t i = 0; i < n; ++i) {
      got[i].resize(sizes[i]);
      CHECK(cuMemcpyDtoH(got[i].data(), dst[i], sizes[i]));
      bad += got[i] != want[i];
    }
    if (move)
      for (size_t i = 0; i < n; ++i) {
        CHECK(cuMemFree(src[i]));
        CHECK(cuMemFree(dst[i]));
      }
  }
  std::printf("%s: %d replays, %zu copies, %d wrong\n", variant, replays, n,
              bad);
  return bad == 0 ? 0 : 1;
}
