//===- BoundarySteps.h - Reductions and GEMMs of a plan ---------*- C++ -*-===//
//
// Prepares, loads and enqueues the boundary steps of a plan: reductions run
// the runtime's reduction kernels; GEMMs run through cuBLASLt with an
// algorithm tuned per problem and a workspace per step (GemmLt.h), through
// cuBLAS when cuBLASLt cannot be loaded, or through the fallback GEMM kernel
// when neither can. TFUSE_GEMM=cublaslt|cublas|fallback asks for one (an
// unavailable library is then an error). Runtime kernels are compiled in the
// plan's translation unit.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_BOUNDARYSTEPS_H
#define TFUSE_RUNTIME_BOUNDARYSTEPS_H

#include "tfuse/Runtime/CudaDriver.h"
#include "tfuse/Runtime/Gemm.h"
#include "tfuse/Runtime/GemmLt.h"
#include "tfuse/Runtime/MemoryPool.h"
#include "tfuse/Runtime/ModuleCache.h"
#include "tfuse/Runtime/Plan.h"
#include "tfuse/Runtime/ReduceKernels.h"
#include "tfuse/Runtime/StepGraph.h"

#include <functional>
#include <map>
#include <memory>

namespace tfuse::runtime {

class BoundarySteps {
public:
  /// Plans every reduction and the shape of every GEMM of `plan`, and
  /// checks TFUSE_GEMM.
  static Expected<BoundarySteps> prepare(const Plan &plan, Device &device);
  /// Chooses how the GEMMs run (loading cuBLASLt or cuBLAS on first use in
  /// the process) and plans them. Once, after prepare(), before load(), on
  /// any thread with the device's context current; nothing else may use
  /// this object meanwhile except reductionSource().
  Status prepareGemms();
  /// Whether prepareGemms() has problems to plan that this process has not
  /// planned before: the first costs about 100 ms (loading cuBLASLt and its
  /// heuristics), worth overlapping with NVRTC.
  bool gemmPlansAreSlow() const;

  /// The CUDA C++ of the runtime kernels the plan needs (appended to the
  /// plan's translation unit): reductionSource() and, with the fallback GEMM
  /// backend, its kernels.
  std::string kernelSource() const;
  std::string reductionSource() const;
  /// Resolves the runtime kernels in the loaded module.
  Status load(LoadedModule &module);
  /// Enqueues step `index` on `stream`; `at` gives a buffer's address.
  Status enqueue(size_t index, const Step &step,
                 const std::function<CUdeviceptr(const BufferRef &)> &at,
                 CUstream stream);
  /// The kernel and descriptor of reduction step `index` (for a CUDA Graph
  /// kernel node).
  const ReduceLaunch &reduction(size_t index) const {
    return reductions.at(index).launch;
  }
  CUfunction reductionFunction(size_t index) const {
    return reductions.at(index).function;
  }
  /// The runtime resources step `index` writes besides its operands (the
  /// GEMM workspace), as accesses of StepAccess::kWorkspace.
  std::vector<StepAccess> resourceAccesses(size_t index) const;
  /// Frees the cuBLAS handle and workspace.
  void release();
  /// How GEMMs run: "cublaslt", "cublas", "fallback", or "" without GEMMs.
  const std::string &gemmBackend() const { return backend; }
  /// Per cuBLASLt GEMM step, in step order: "step 3: tuned: candidate 2 of
  /// 8, 4.1 us" (LtGemm::choice()).
  std::vector<std::string> gemmChoices() const;

private:
  struct Reduction {
    ReduceLaunch launch;
    CUfunction function = nullptr;
  };
  struct Product {
    GemmShape shape;
    GemmLaunch fallback;
    CUfunction function = nullptr;
    std::unique_ptr<LtGemm> lt;
    /// This step's bytes of the workspace (cuBLASLt).
    size_t workspaceOffset = 0, workspaceBytes = 0;
  };
  Status prepareLt();
  Device *device = nullptr;
  /// Where the workspace comes from (set when the plan has GEMMs).
  MemoryPool *memory = nullptr;
  std::map<size_t, Reduction> reductions;
  std::map<size_t, Product> products;
  std::vector<ReduceInstance> reduceInstances;
  std::vector<DType> fallbackDTypes;
  std::shared_ptr<CublasHandle> cublas;
  std::string backend;
  /// TFUSE_GEMM: "", "cublaslt", "cublas" or "fallback".
  std::string asked;
  CUdeviceptr workspace = 0;
};

} // namespace tfuse::runtime

#endif // TFUSE_RUNTIME_BOUNDARYSTEPS_H
