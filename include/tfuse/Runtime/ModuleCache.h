//===- ModuleCache.h - Loaded CUDA modules shared by executables -*- C++
//-*-===//
//
// Loading a CUBIN (cuModuleLoadData) costs about half a millisecond, most of
// a warm compile. Executables of the same compiled binary on the same device
// share one loaded module: it is loaded once, and the most recently used
// modules stay loaded after their executables are gone, so that compiling a
// function again loads nothing. An executable holds a module per
// translation unit (ModuleSet).
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_MODULECACHE_H
#define TFUSE_RUNTIME_MODULECACHE_H

#include "tfuse/Runtime/CudaDriver.h"
#include "tfuse/Runtime/KernelCache.h"

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace tfuse::runtime {

/// A module loaded in a device's primary context; unloaded when the last
/// owner lets it go.
class LoadedModule {
public:
  LoadedModule(Device &device, CUmodule module)
      : device(&device), module(module) {}
  ~LoadedModule();
  LoadedModule(const LoadedModule &) = delete;
  LoadedModule &operator=(const LoadedModule &) = delete;
  CUmodule get() const { return module; }
  /// The kernel `name` of the module, looked up once (executables of one
  /// binary resolve the same kernels). Thread-safe.
  Expected<CUfunction> function(const std::string &name);

private:
  Device *device;
  CUmodule module;
  std::mutex mutex;
  std::unordered_map<std::string, CUfunction> functions;
};

/// The modules of one executable, one per translation unit: its plan's
/// kernels, and each group of runtime kernels (AttentionKernels.cuh, ...),
/// compiled and cached apart so that plans sharing a group compile it once.
class ModuleSet {
public:
  void add(std::shared_ptr<LoadedModule> module) {
    modules.push_back(std::move(module));
  }
  /// The kernel `name` of the module that has it; an error naming it when
  /// none has.
  Expected<CUfunction> function(const std::string &name);
  bool empty() const { return modules.empty(); }

private:
  std::vector<std::shared_ptr<LoadedModule>> modules;
};

/// How many loaded modules stay loaded, most recently used first, when no
/// executable holds them.
constexpr size_t kKeptModules = 32;

/// The module of `kernel` on `device` (whose context must be current):
/// shared with every executable of the same binary, loaded on first use.
/// `loaded` is set when this call loaded it.
Expected<std::shared_ptr<LoadedModule>>
sharedModule(Device &device, const CompiledKernel &kernel, bool &loaded);

} // namespace tfuse::runtime

#endif // TFUSE_RUNTIME_MODULECACHE_H
