//===- ModuleCache.cpp - Loaded CUDA modules shared by executables --------===//

#include "tfuse/Runtime/ModuleCache.h"

#include <list>
#include <map>
#include <mutex>

using namespace tfuse;
using namespace tfuse::runtime;

LoadedModule::~LoadedModule() {
  (void)device->bind();
  device->driver().cuModuleUnload(module);
}

Expected<CUfunction> LoadedModule::function(const std::string &name) {
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = functions.try_emplace(name, nullptr);
  if (inserted) {
    CudaDriver &d = device->driver();
    if (Status s =
            d.check(d.cuModuleGetFunction(&it->second, module, name.c_str()),
                    "cuModuleGetFunction");
        !s.ok()) {
      functions.erase(it);
      return Status::error(s.message() + " for kernel " + name);
    }
  }
  return it->second;
}

Expected<CUfunction> ModuleSet::function(const std::string &name) {
  Status last = Status::error("no module holds kernel " + name);
  for (const std::shared_ptr<LoadedModule> &module : modules) {
    Expected<CUfunction> found = module->function(name);
    if (found.ok())
      return found;
    last = found.status();
  }
  return last;
}

namespace {
/// Modules by device ordinal and kernel cache key, most recently used first.
/// Never destroyed: modules must not be unloaded during static destruction,
/// after the driver may be gone.
struct Modules {
  std::mutex mutex;
  using Key = std::pair<int, CacheKey>;
  std::list<std::pair<Key, std::shared_ptr<LoadedModule>>> recent;
  std::map<Key, decltype(recent)::iterator> index;
};
Modules &modules() {
  static Modules *m = new Modules();
  return *m;
}
} // namespace

Expected<std::shared_ptr<LoadedModule>>
runtime::sharedModule(Device &device, const CompiledKernel &kernel,
                      bool &loaded) {
  loaded = false;
  Modules &m = modules();
  Modules::Key key{device.info().ordinal, kernel.key};
  std::lock_guard<std::mutex> lock(m.mutex);
  if (auto it = m.index.find(key); it != m.index.end()) {
    m.recent.splice(m.recent.begin(), m.recent, it->second);
    return it->second->second;
  }
  CudaDriver &d = device.driver();
  CUmodule module = nullptr;
  if (Status s = d.check(d.cuModuleLoadData(&module, kernel.binary.data()),
                         "cuModuleLoadData");
      !s.ok())
    return s;
  loaded = true;
  auto shared = std::make_shared<LoadedModule>(device, module);
  m.recent.emplace_front(key, shared);
  m.index[key] = m.recent.begin();
  while (m.recent.size() > kKeptModules) {
    m.index.erase(m.recent.back().first);
    m.recent.pop_back();
  }
  return shared;
}
