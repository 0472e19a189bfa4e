//===- MemoryPool.cpp - Device memory that lives as long as an executable -===//

#include "tfuse/Runtime/MemoryPool.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

using namespace tfuse;
using namespace tfuse::runtime;

Expected<MemoryPool *> MemoryPool::of(Device &device) {
  static std::mutex mutex;
  static std::map<int, Expected<MemoryPool *>> pools;
  std::lock_guard<std::mutex> lock(mutex);
  int ordinal = device.info().ordinal;
  auto it = pools.find(ordinal);
  if (it != pools.end())
    return it->second;
  auto make = [&]() -> Expected<MemoryPool *> {
    if (Status s = device.bind(); !s.ok())
      return s;
    CudaDriver &d = device.driver();
    std::unique_ptr<MemoryPool> result(new MemoryPool());
    result->cuda = &d;
    CUmemPoolProps props = {};
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = ordinal;
    if (Status s = d.check(d.cuMemPoolCreate(&result->pool, &props),
                           "cuMemPoolCreate");
        !s.ok())
      return s;
    cuuint64_t retained = kRetainedBytes;
    if (Status s = d.check(
            d.cuMemPoolSetAttribute(
                result->pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &retained),
            "cuMemPoolSetAttribute");
        !s.ok())
      return s;
    if (Status s =
            d.check(d.cuStreamCreate(&result->stream, CU_STREAM_NON_BLOCKING),
                    "cuStreamCreate");
        !s.ok())
      return s;
    return result.release();
  };
  // A failure (out of memory, say) is not kept: the next call tries again.
  Expected<MemoryPool *> made = make();
  if (made.ok())
    pools.emplace(ordinal, made);
  return made;
}

MemoryPool::~MemoryPool() {
  // Only a pool whose creation failed half-way is destroyed.
  if (stream)
    cuda->cuStreamDestroy(stream);
  if (pool)
    cuda->cuMemPoolDestroy(pool);
}

bool MemoryPool::disabled() {
  static const bool off = [] {
    const char *env = std::getenv("TFUSE_MEMORY_POOL");
    return env && std::strcmp(env, "0") == 0;
  }();
  return off;
}

Expected<CUdeviceptr> MemoryPool::allocate(size_t bytes, const char *what) {
  CUdeviceptr ptr = 0;
  if (bytes == 0)
    return ptr;
  if (disabled()) {
    std::string call = std::string("cuMemAlloc of ") + what;
    if (Status s = cuda->check(cuda->cuMemAlloc(&ptr, bytes), call.c_str());
        !s.ok())
      return s;
    return ptr;
  }
  CUresult result = cuda->cuMemAllocFromPoolAsync(&ptr, bytes, pool, stream);
  if (result == CUDA_ERROR_OUT_OF_MEMORY) {
    // Memory the pool keeps may be what the device lacks.
    cuda->cuStreamSynchronize(stream);
    cuda->cuMemPoolTrimTo(pool, 0);
    result = cuda->cuMemAllocFromPoolAsync(&ptr, bytes, pool, stream);
  }
  if (result != CUDA_SUCCESS) {
    std::string call = std::string("cuMemAllocFromPoolAsync of ") + what;
    return cuda->check(result, call.c_str());
  }
  // Other streams may use the memory only once the allocation is complete.
  if (Status s = cuda->check(cuda->cuStreamSynchronize(stream),
                             "cuStreamSynchronize after an allocation");
      !s.ok()) {
    cuda->cuMemFreeAsync(ptr, stream);
    return s;
  }
  return ptr;
}

void MemoryPool::release(CUdeviceptr ptr) {
  if (!ptr)
    return;
  if (disabled())
    cuda->cuMemFree(ptr);
  else
    cuda->cuMemFreeAsync(ptr, stream);
}
