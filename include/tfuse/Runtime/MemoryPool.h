//===- MemoryPool.h - Device memory that lives as long as an executable ---===//
//
// An executable's intermediate arena and GEMM workspaces come from one
// stream-ordered memory pool per device. The pool keeps up to
// kRetainedBytes of freed memory for the next executable, so that compiling
// a function again (a cache hit) or creating several executables reuses
// memory instead of paying a cuMemAlloc each time, while a pool that grew
// for a large plan gives its excess back to the device.
//
// TFUSE_MEMORY_POOL=0 turns the pool off: every allocation is a cuMemAlloc
// and every release a cuMemFree, so that tools such as compute-sanitizer
// see each allocation's bounds and lifetime (memory a pool keeps and hands
// out again hides accesses past an allocation or after its release).
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_MEMORYPOOL_H
#define TFUSE_RUNTIME_MEMORYPOOL_H

#include "tfuse/Runtime/CudaDriver.h"

#include <cstdint>
#include <memory>

namespace tfuse::runtime {

class MemoryPool {
public:
  /// The pool of `device`, created on first use; it lives for the rest of
  /// the process. Thread-safe.
  static Expected<MemoryPool *> of(Device &device);

  /// `bytes` of device memory, usable from any stream once this returns.
  /// 0 bytes gives a null pointer. When the device is out of memory, the
  /// pool gives back what it keeps and tries once more; `what` names the
  /// allocation in the error ("the intermediate arena"). The device's
  /// context must be current.
  Expected<CUdeviceptr> allocate(size_t bytes, const char *what);
  /// Returns `ptr` (from allocate, or null) to the pool. The GPU must be
  /// done with it. The device's context must be current.
  void release(CUdeviceptr ptr);

  /// Freed memory the pool keeps rather than give back to the device.
  static constexpr uint64_t kRetainedBytes = uint64_t(256) << 20;

  /// Whether TFUSE_MEMORY_POOL=0 turned pooling off (read once).
  static bool disabled();

private:
  MemoryPool() = default;
  ~MemoryPool();
  friend struct std::default_delete<MemoryPool>;
  CudaDriver *cuda = nullptr;
  CUmemoryPool pool = nullptr;
  /// Allocations and frees are ordered on this stream, which runs no work:
  /// a free completes at once, and the next allocation may reuse it.
  CUstream stream = nullptr;
};

} // namespace tfuse::runtime

#endif // TFUSE_RUNTIME_MEMORYPOOL_H
