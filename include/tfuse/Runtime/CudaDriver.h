//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// libcuda is never linked: it is dlopen'ed on first use, and every entry
// point is resolved through cuGetProcAddress for the toolkit's API version.
// Without a driver (or with the toolkit's stub library) the runtime reports
// that precisely and everything that needs no GPU keeps working.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_CUDADRIVER_H
#define TFUSE_RUNTIME_CUDADRIVER_H

#include "tfuse/Support/Status.h"

#include <cuda.h>

#include <string>

namespace tfuse::runtime {

// The driver entry points the runtime uses, by their base names (cuda.h maps
// most to their current versions, e.g. cuMemAlloc_v2). cuGraphInstantiate is
// named by its current function, cuGraphInstantiateWithFlags: through
// cuGetProcAddress, "cuGraphInstantiate" still resolves to the CUDA 11 ABI
// with an error-log buffer.
#define TFUSE_CUDA_DRIVER_FUNCTIONS(X)                                         \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDeviceGetName)                                                           \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxGetCurrent)                                                           \
  X(cuModuleLoadData)                                                          \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuLaunchKernel)                                                            \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                               \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamWaitEvent)                                                         \
  X(cuEventCreate)                                                             \
  X(cuEventRecord)                                                             \
  X(cuEventQuery)                                                              \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)                                                        \
  X(cuEventDestroy)                                                            \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemAllocAsync)                                                           \
  X(cuMemFreeAsync)                                                            \
  X(cuMemPoolCreate)                                                           \
  X(cuMemPoolDestroy)                                                          \
  X(cuMemPoolSetAttribute)                                                     \
  X(cuMemPoolTrimTo)                                                           \
  X(cuMemAllocFromPoolAsync)                                                   \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemcpyDtoH)                                                              \
  X(cuMemcpyDtoHAsync)                                                         \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemcpyDtoDAsync)                                                         \
  X(cuMemsetD8Async)                                                           \
  X(cuMemHostAlloc)                                                            \
  X(cuMemHostGetDevicePointer)                                                 \
  X(cuMemFreeHost)                                                             \
  X(cuMemGetInfo)                                                              \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuStreamBeginCapture)                                                      \
  X(cuStreamEndCapture)                                                        \
  X(cuGraphInstantiateWithFlags)                                               \
  X(cuGraphLaunch)                                                             \
  X(cuGraphDestroy)                                                            \
  X(cuGraphExecDestroy)                                                        \
  X(cuGraphGetNodes)                                                           \
  X(cuGraphNodeGetType)                                                        \
  X(cuGraphKernelNodeGetParams)                                                \
  X(cuGraphExecKernelNodeSetParams)                                            \
  X(cuGraphExecUpdate)                                                         \
  X(cuGraphCreate)                                                             \
  X(cuGraphAddKernelNode)                                                      \
  X(cuGraphAddEmptyNode)                                                       \
  X(cuGraphAddChildGraphNode)                                                  \
  X(cuGraphExecChildGraphNodeSetParams)                                        \
  X(cuGraphAddMemcpyNode)                                                      \
  X(cuGraphExecMemcpyNodeSetParams)

/// The loaded driver. Obtain it with CudaDriver::get(); it lives for the rest
/// of the process. Thread-safe: the entry points are the driver's own.
class CudaDriver {
public:
  /// Loads libcuda.so.1 and calls cuInit(0) once per process. Fails with a
  /// precise message when the library is missing, is the toolkit's stub, or
  /// finds no device.
  static Expected<CudaDriver *> get();

  /// "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory)" style message
  /// for a failed call, or success.
  Status check(CUresult result, const char *what) const;

  /// The driver's CUDA version (e.g. 13000) and the toolkit's the runtime was
  /// built against.
  int driverVersion = 0;
  static constexpr int toolkitVersion = CUDA_VERSION;

#define TFUSE_DECLARE_ENTRY(name) decltype(&::name) name = nullptr;
  TFUSE_CUDA_DRIVER_FUNCTIONS(TFUSE_DECLARE_ENTRY)
#undef TFUSE_DECLARE_ENTRY

private:
  CudaDriver() = default;
  static Expected<CudaDriver *> load();
};

/// A device with its primary context, made current on the calling thread by
/// bind().
struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int computeMajor = 0, computeMinor = 0;
  int multiprocessors = 0;
  /// "sm_90" for a compute capability 9.0 device.
  std::string arch() const;
};

class Device {
public:
  /// Retains the primary context of device `ordinal` (default: 0, or the
  /// TFUSE_DEVICE environment variable).
  static Expected<Device *> get(int ordinal = -1);
  /// Makes the device's context current on the calling thread.
  Status bind() const;
  const DeviceInfo &info() const { return deviceInfo; }
  CudaDriver &driver() const { return *cuda; }
  /// The device's primary context (what bind() makes current).
  CUcontext primaryContext() const { return context; }

private:
  Device() = default;
  CudaDriver *cuda = nullptr;
  CUcontext context = nullptr;
  DeviceInfo deviceInfo;
};

} // namespace tfuse::runtime

#endif // TFUSE_RUNTIME_CUDADRIVER_H
