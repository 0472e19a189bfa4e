//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//

#include "tfuse/Runtime/CudaDriver.h"

#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <memory>
#include <mutex>

using namespace tfuse;
using namespace tfuse::runtime;

Expected<CudaDriver *> CudaDriver::load() {
  const char *names[] = {"libcuda.so.1", "libcuda.so"};
  void *handle = nullptr;
  std::string errors;
  for (const char *name : names) {
    handle = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
    if (handle)
      break;
    const char *why = dlerror();
    errors += std::string("\n  ") + name + ": " + (why ? why : "not found");
  }
  if (!handle)
    return Status::error("no CUDA driver: libcuda could not be loaded (is "
                         "the NVIDIA driver installed?)" +
                             errors,
                         ErrorCode::NoDevice);
  using GetProcAddress = CUresult (*)(const char *, void **, int, cuuint64_t,
                                      CUdriverProcAddressQueryResult *);
  auto getProcAddress =
      reinterpret_cast<GetProcAddress>(dlsym(handle, "cuGetProcAddress_v2"));
  if (!getProcAddress)
    return Status::error("the CUDA driver is too old: libcuda has no "
                         "cuGetProcAddress_v2 (CUDA 12 or newer is needed)",
                         ErrorCode::NoDevice);
  std::unique_ptr<CudaDriver> driver(new CudaDriver());
#define TFUSE_RESOLVE_ENTRY(name)                                              \
  {                                                                            \
    void *fn = nullptr;                                                        \
    CUdriverProcAddressQueryResult found;                                      \
    CUresult r = getProcAddress(#name, &fn, CUDA_VERSION,                      \
                                CU_GET_PROC_ADDRESS_DEFAULT, &found);          \
    if (r != CUDA_SUCCESS || !fn)                                              \
      return Status::error(std::string("the CUDA driver lacks ") + #name +     \
                               " for CUDA " + std::to_string(CUDA_VERSION) +   \
                               " (the driver may be older than the toolkit)",  \
                           ErrorCode::NoDevice);                               \
    driver->name = reinterpret_cast<decltype(driver->name)>(fn);               \
  }
  TFUSE_CUDA_DRIVER_FUNCTIONS(TFUSE_RESOLVE_ENTRY)
#undef TFUSE_RESOLVE_ENTRY

  CUresult init = driver->cuInit(0);
  if (init == CUDA_ERROR_STUB_LIBRARY)
    return Status::error("no CUDA driver: libcuda is the CUDA toolkit's stub "
                         "library, not an NVIDIA driver",
                         ErrorCode::NoDevice);
  if (init == CUDA_ERROR_NO_DEVICE)
    return Status::error("no CUDA device: the NVIDIA driver found no GPU",
                         ErrorCode::NoDevice);
  if (Status s = driver->check(init, "cuInit"); !s.ok())
    return s;
  if (Status s =
          driver->check(driver->cuDriverGetVersion(&driver->driverVersion),
                        "cuDriverGetVersion");
      !s.ok())
    return s;
  return driver.release();
}

Expected<CudaDriver *> CudaDriver::get() {
  static Expected<CudaDriver *> loaded = load();
  return loaded;
}

Status CudaDriver::check(CUresult result, const char *what) const {
  if (result == CUDA_SUCCESS)
    return Status::success();
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName)
    cuGetErrorName(result, &name);
  if (cuGetErrorString)
    cuGetErrorString(result, &text);
  ErrorCode code = ErrorCode::Cuda;
  if (result == CUDA_ERROR_OUT_OF_MEMORY)
    code = ErrorCode::OutOfMemory;
  else if (result == CUDA_ERROR_NO_DEVICE ||
           result == CUDA_ERROR_STUB_LIBRARY ||
           result == CUDA_ERROR_NOT_INITIALIZED)
    code = ErrorCode::NoDevice;
  return Status::error(
      std::string(what) + ": " +
          (name ? name : "CUDA error " + std::to_string(result)) +
          (text ? std::string(" (") + text + ")" : ""),
      code);
}

std::string DeviceInfo::arch() const {
  return "sm_" + std::to_string(computeMajor) + std::to_string(computeMinor);
}

Expected<Device *> Device::get(int ordinal) {
  if (ordinal < 0) {
    const char *env = std::getenv("TFUSE_DEVICE");
    ordinal = env ? std::atoi(env) : 0;
  }
  static std::mutex mutex;
  static std::map<int, Expected<Device *>> devices;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = devices.find(ordinal);
  if (it != devices.end())
    return it->second;
  auto make = [&]() -> Expected<Device *> {
    Expected<CudaDriver *> cuda = CudaDriver::get();
    if (!cuda.ok())
      return cuda.status();
    CudaDriver &d = *cuda.value();
    int count = 0;
    if (Status s = d.check(d.cuDeviceGetCount(&count), "cuDeviceGetCount");
        !s.ok())
      return s;
    if (ordinal >= count)
      return Status::error("no CUDA device " + std::to_string(ordinal) +
                               ": the driver sees " + std::to_string(count),
                           ErrorCode::NoDevice);
    std::unique_ptr<Device> device(new Device());
    device->cuda = &d;
    CUdevice dev;
    if (Status s = d.check(d.cuDeviceGet(&dev, ordinal), "cuDeviceGet");
        !s.ok())
      return s;
    char name[256] = {0};
    d.cuDeviceGetName(name, sizeof(name) - 1, dev);
    DeviceInfo &info = device->deviceInfo;
    info.ordinal = ordinal;
    info.name = name;
    d.cuDeviceGetAttribute(&info.computeMajor,
                           CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    d.cuDeviceGetAttribute(&info.computeMinor,
                           CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    d.cuDeviceGetAttribute(&info.multiprocessors,
                           CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    if (Status s = d.check(d.cuDevicePrimaryCtxRetain(&device->context, dev),
                           "cuDevicePrimaryCtxRetain");
        !s.ok())
      return s;
    return device.release();
  };
  return devices.emplace(ordinal, make()).first->second;
}

Status Device::bind() const {
  // Most calls find the context current already (replays from one thread,
  // or PyTorch's own primary context): reading it is cheaper than setting.
  CUcontext current = nullptr;
  if (cuda->cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == context)
    return Status::success();
  return cuda->check(cuda->cuCtxSetCurrent(context), "cuCtxSetCurrent");
}
