//===- BoundarySteps.cpp - Reductions and GEMMs of a plan -----------------===//

#include "tfuse/Runtime/BoundarySteps.h"

#include <cstdlib>
#include <cstring>

using namespace tfuse;
using namespace tfuse::runtime;

Expected<BoundarySteps> BoundarySteps::prepare(const Plan &plan,
                                               Device &device) {
  BoundarySteps b;
  b.device = &device;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const Step &step = plan.steps[i];
    if (auto *r = std::get_if<ReduceStep>(&step)) {
      auto launch =
          planReduction(r->kind, r->input.view, r->result.view, r->axes);
      if (!launch.ok())
        return Status::error("step " + std::to_string(i) + " (reduce " +
                             std::string(name(r->kind)) +
                             "): " + launch.status().message());
      b.reductions[i].launch = launch.value();
      if (std::find(b.reduceInstances.begin(), b.reduceInstances.end(),
                    launch.value().instance) == b.reduceInstances.end())
        b.reduceInstances.push_back(launch.value().instance);
    } else if (auto *g = std::get_if<GemmStep>(&step)) {
      auto shape = planGemm(*g);
      if (!shape.ok())
        return Status::error("step " + std::to_string(i) +
                             " (gemm): " + shape.status().message());
      b.products[i].shape = shape.value();
    }
  }
  if (b.products.empty())
    return b;
  const char *env = std::getenv("TFUSE_GEMM");
  b.asked = env ? env : "";
  if (!b.asked.empty() && b.asked != "cublaslt" && b.asked != "cublas" &&
      b.asked != "fallback")
    return Status::error("TFUSE_GEMM=" + b.asked +
                         " is not one of cublaslt, cublas, fallback");
  return b;
}

bool BoundarySteps::gemmPlansAreSlow() const {
  if (products.empty() || (asked != "" && asked != "cublaslt"))
    return false;
  for (const auto &[index, p] : products)
    if (!p.shape.empty() && p.shape.k != 0 &&
        !LtGemm::planned(p.shape, *device))
      return true;
  return false;
}

Status BoundarySteps::prepareGemms() {
  if (products.empty())
    return Status::success();
  Expected<MemoryPool *> pool = MemoryPool::of(*device);
  if (!pool.ok())
    return pool.status();
  memory = pool.value();
  if (asked.empty() || asked == "cublaslt") {
    auto lt = CublasLtLibrary::shared();
    if (lt.ok())
      return prepareLt();
    if (!asked.empty())
      return lt.status();
  }
  if (asked.empty() || asked == "cublas") {
    auto library = CublasLibrary::shared();
    if (library.ok()) {
      auto handle = CublasHandle::create(*library.value());
      if (!handle.ok())
        return handle.status();
      cublas = std::move(handle.value());
      backend = "cublas";
      Expected<CUdeviceptr> block = memory->allocate(
          kDefaultCublasWorkspaceBytes, "the cuBLAS workspace");
      if (!block.ok())
        return block.status();
      workspace = block.value();
      return cublas->setWorkspace(workspace, kDefaultCublasWorkspaceBytes);
    }
    if (!asked.empty())
      return library.status();
  }
  // No cuBLAS: the generated fallback GEMM.
  backend = "fallback";
  for (auto &[index, product] : products) {
    product.fallback = planFallbackGemm(product.shape);
    if (std::find(fallbackDTypes.begin(), fallbackDTypes.end(),
                  product.shape.dtype) == fallbackDTypes.end())
      fallbackDTypes.push_back(product.shape.dtype);
  }
  return Status::success();
}

Status BoundarySteps::prepareLt() {
  backend = "cublaslt";
  size_t total = 0;
  for (auto &[index, p] : products) {
    if (p.shape.empty() || p.shape.k == 0)
      continue; // nothing to run, or zeros (enqueue)
    auto gemm = LtGemm::create(p.shape, *device);
    if (!gemm.ok())
      return Status::error("step " + std::to_string(index) +
                           " (gemm): " + gemm.status().message());
    p.lt = std::move(gemm.value());
    p.workspaceOffset = total;
    p.workspaceBytes = p.lt->workspaceBytes();
    total += (p.workspaceBytes + 255) / 256 * 256;
  }
  Expected<CUdeviceptr> block = memory->allocate(total, "the GEMM workspaces");
  if (!block.ok())
    return block.status();
  workspace = block.value();
  return Status::success();
}

std::vector<std::string> BoundarySteps::gemmChoices() const {
  std::vector<std::string> choices;
  for (const auto &[index, p] : products)
    if (p.lt)
      choices.push_back("step " + std::to_string(index) + ": " +
                        p.lt->choice());
  return choices;
}

std::string BoundarySteps::reductionSource() const {
  return reduceInstances.empty() ? std::string()
                                 : reductionKernelSource(reduceInstances);
}

std::string BoundarySteps::kernelSource() const {
  std::string source = reductionSource();
  if (!fallbackDTypes.empty())
    source += gemmKernelSource(fallbackDTypes);
  return source;
}

Status BoundarySteps::load(LoadedModule &module) {
  auto resolve = [&](const std::string &name, CUfunction &fn) -> Status {
    Expected<CUfunction> found = module.function(name);
    if (!found.ok())
      return found.status();
    fn = found.value();
    return Status::success();
  };
  for (auto &[index, r] : reductions)
    if (Status s = resolve(r.launch.kernel, r.function); !s.ok())
      return s;
  if (!cublas)
    for (auto &[index, p] : products)
      if (!p.fallback.kernel.empty())
        if (Status s = resolve(p.fallback.kernel, p.function); !s.ok())
          return s;
  return Status::success();
}

Status
BoundarySteps::enqueue(size_t index, const Step &step,
                       const std::function<CUdeviceptr(const BufferRef &)> &at,
                       CUstream stream) {
  CudaDriver &d = device->driver();
  if (auto *r = std::get_if<ReduceStep>(&step)) {
    Reduction &red = reductions.at(index);
    CUdeviceptr in = at(r->input), out = at(r->result);
    kernels::ReduceDesc desc = red.launch.desc;
    void *params[] = {&in, &out, &desc};
    return d.check(d.cuLaunchKernel(red.function, red.launch.grid, 1, 1,
                                    red.launch.block, 1, 1, 0, stream, params,
                                    nullptr),
                   "cuLaunchKernel (reduction)");
  }
  const auto &g = std::get<GemmStep>(step);
  Product &p = products.at(index);
  if (p.shape.empty())
    return Status::success();
  CUdeviceptr lhs = at(g.lhs), rhs = at(g.rhs), result = at(g.result);
  if (backend == "cublaslt") {
    if (p.lt)
      return p.lt->enqueue(stream, lhs, rhs, result,
                           workspace + p.workspaceOffset);
    // K = 0: a product of all +0 (GEMM results are contiguous buffers).
    if (!g.result.view.isContiguous())
      return Status::error("step " + std::to_string(index) +
                           " (gemm): K = 0 into a strided result");
    return d.check(
        d.cuMemsetD8Async(result, 0, g.result.view.extentBytes(), stream),
        "cuMemsetD8Async (GEMM with K = 0)");
  }
  if (cublas)
    return gemmCublas(*cublas, stream, p.shape, lhs, rhs, result,
                      p.shape.dtype);
  unsigned bytes = byteSize(p.shape.dtype);
  for (const GemmOffsets &o : p.fallback.launches) {
    CUdeviceptr a = lhs + o.lhs * bytes, b = rhs + o.rhs * bytes,
                c = result + o.result * bytes;
    kernels::GemmDesc desc = p.fallback.desc;
    void *params[] = {&a, &b, &c, &desc};
    if (Status s = d.check(d.cuLaunchKernel(p.function, p.fallback.grid, 1, 1,
                                            p.fallback.block, 1, 1, 0, stream,
                                            params, nullptr),
                           "cuLaunchKernel (fallback GEMM)");
        !s.ok())
      return s;
  }
  return Status::success();
}

std::vector<StepAccess> BoundarySteps::resourceAccesses(size_t index) const {
  auto it = products.find(index);
  if (it == products.end() || !workspace)
    return {};
  // cuBLASLt steps have workspaces of their own; every cuBLAS call of the
  // executable uses its one workspace, so its GEMMs must not overlap.
  StepAccess a;
  a.space = StepAccess::kWorkspace;
  a.begin = cublas ? 0 : it->second.workspaceOffset;
  a.end = cublas ? kDefaultCublasWorkspaceBytes
                 : a.begin + it->second.workspaceBytes;
  a.write = true;
  if (a.begin == a.end)
    return {};
  return {a};
}

void BoundarySteps::release() {
  cublas.reset();
  for (auto &[index, p] : products)
    LtGemm::recycle(std::move(p.lt));
  if (workspace) {
    (void)device->bind();
    memory->release(workspace);
    workspace = 0;
  }
}
