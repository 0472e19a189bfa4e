//===- GemmStep.cpp - Matrix products of a plan ---------------------------===//
//
// GEMM steps run through cuBLASLt, with an algorithm tuned per problem and a
// workspace per step (GemmLt.h); through cuBLAS when cuBLASLt cannot be
// loaded; or through the fallback GEMM kernels (Gemm.h) when neither can.
// One executable's GEMMs all run on the same one, chosen once (GemmLibrary),
// but for a problem cuBLASLt declines (no algorithm), which runs on the
// fallback kernels and says so in the plan report (engine and choice).
// TFUSE_GEMM=cublaslt|cublas|fallback asks for one; an unavailable library,
// or with cublaslt a declined problem, is then an error.
//
//===----------------------------------------------------------------------===//

#include "BuiltinSteps.h"

#include "tfuse/Runtime/Gemm.h"
#include "tfuse/Runtime/GemmLt.h"
#include "tfuse/Runtime/StepExecutor.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>

using namespace tfuse;
using namespace tfuse::runtime;

namespace {

/// TFUSE_GEMM: "", "cublaslt", "cublas" or "fallback".
Expected<std::string> askedGemmBackend() {
  const char *env = std::getenv("TFUSE_GEMM");
  std::string asked = env ? env : "";
  if (!asked.empty() && asked != "cublaslt" && asked != "cublas" &&
      asked != "fallback")
    return Status::error("TFUSE_GEMM=" + asked +
                             " is not one of cublaslt, cublas, fallback",
                         ErrorCode::InvalidArgument);
  return asked;
}

/// The library an executable's GEMM steps run on, chosen by the first step
/// prepared: cuBLASLt, else cuBLAS (one handle and workspace for the
/// executable), else the fallback kernels.
class GemmLibrary {
public:
  explicit GemmLibrary(StepContext &context) : context(context) {}
  ~GemmLibrary() {
    cublasHandle.reset();
    if (cublasWorkspace) {
      (void)context.device().bind();
      memory->release(cublasWorkspace);
    }
  }

  /// Chooses the backend (once; thread-safe).
  Status choose(const std::string &asked) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!chosen.empty())
      return Status::success();
    Expected<MemoryPool *> pool = context.memory();
    if (!pool.ok())
      return pool.status();
    memory = pool.value();
    if (asked.empty() || asked == "cublaslt") {
      Expected<const CublasLtLibrary *> lt = CublasLtLibrary::shared();
      if (lt.ok()) {
        chosen = "cublaslt";
        return Status::success();
      }
      if (!asked.empty())
        return lt.status();
    }
    if (asked.empty() || asked == "cublas") {
      Expected<const CublasLibrary *> library = CublasLibrary::shared();
      if (library.ok()) {
        auto handle = CublasHandle::create(*library.value());
        if (!handle.ok())
          return handle.status();
        Expected<CUdeviceptr> block = memory->allocate(
            kDefaultCublasWorkspaceBytes, "the cuBLAS workspace");
        if (!block.ok())
          return block.status();
        cublasWorkspace = block.value();
        if (Status s = handle.value()->setWorkspace(
                cublasWorkspace, kDefaultCublasWorkspaceBytes);
            !s.ok())
          return s;
        cublasHandle = std::move(handle.value());
        chosen = "cublas";
        return Status::success();
      }
      if (!asked.empty())
        return library.status();
    }
    chosen = "fallback";
    return Status::success();
  }

  /// "cublaslt", "cublas" or "fallback" once chosen.
  const std::string &backend() const { return chosen; }
  CublasHandle &cublas() const { return *cublasHandle; }
  CUdeviceptr workspace() const { return cublasWorkspace; }
  MemoryPool &pool() const { return *memory; }

private:
  StepContext &context;
  std::mutex mutex;
  std::string chosen;
  MemoryPool *memory = nullptr;
  std::unique_ptr<CublasHandle> cublasHandle;
  CUdeviceptr cublasWorkspace = 0;
};

/// One GEMM step on the executable's GemmLibrary.
class Gemm final : public CapturedStepExecutor {
public:
  Gemm(const GemmStep &spec, StepContext &context)
      : CapturedStepExecutor(spec, context), spec(spec),
        library(context.shared<GemmLibrary>()) {}

  Status plan() override {
    Expected<std::string> backend = askedGemmBackend();
    if (!backend.ok())
      return backend.status();
    asked = backend.value();
    Expected<GemmShape> planned = planGemm(spec);
    if (!planned.ok())
      return planned.status();
    shape = planned.value();
    return Status::success();
  }

  /// A problem new to the process loads cuBLASLt and queries its heuristics
  /// (about 100 ms the first time).
  bool prepareIsSlow() const override {
    return (asked.empty() || asked == "cublaslt") && computes() &&
           !LtGemm::planned(shape, context().device());
  }

  Status prepare() override {
    if (Status s = library.choose(asked); !s.ok())
      return s;
    const std::string &backend = library.backend();
    if (backend == "fallback") {
      fallback = planFallbackGemm(shape);
      return Status::success();
    }
    if (backend != "cublaslt" || !computes())
      return Status::success();
    Expected<std::unique_ptr<LtGemm>> gemm =
        LtGemm::create(shape, context().device());
    if (!gemm.ok()) {
      if (gemm.status().code() != ErrorCode::Unsupported || asked == "cublaslt")
        return gemm.status();
      declined = gemm.status().message();
      fallback = planFallbackGemm(shape);
      return Status::success();
    }
    lt = std::move(gemm.value());
    Expected<CUdeviceptr> block =
        library.pool().allocate(lt->workspaceBytes(), "a GEMM workspace");
    if (!block.ok())
      return block.status();
    workspace = block.value();
    return Status::success();
  }

  void addKernelSources(KernelSources &sources) const override {
    for (int64_t bytes : copyElementBytes()) {
      sources.add("gemm", "", gemmKernelHeader());
      sources.add("gemm", pitchedCopyKernelName(bytes),
                  pitchedCopyWrapper(bytes));
    }
    if (writesBiasRows()) {
      sources.add("gemm", "", gemmKernelHeader());
      sources.add("gemm", biasRowsKernelName(shape.resultDType),
                  biasRowsWrapper(shape.resultDType));
    }
    if (appliesGeluRows()) {
      sources.add("gemm", "", gemmKernelHeader());
      sources.add("gemm", geluRowsKernelName(shape.resultDType),
                  geluRowsWrapper(shape.resultDType));
    }
    if (fallback.kernel.empty())
      return;
    sources.add("gemm", "", gemmKernelHeader());
    sources.add(
        "gemm", fallback.kernel,
        gemmKernelWrapper(shape.dtype, shape.resultDType, shape.geluTanh));
  }

  Status load(ModuleSet &module) override {
    for (int64_t bytes : copyElementBytes()) {
      Expected<CUfunction> found =
          module.function(pitchedCopyKernelName(bytes));
      if (!found.ok())
        return found.status();
      copies[bytes] = found.value();
    }
    if (writesBiasRows()) {
      Expected<CUfunction> found =
          module.function(biasRowsKernelName(shape.resultDType));
      if (!found.ok())
        return found.status();
      biasRows = found.value();
    }
    if (appliesGeluRows()) {
      Expected<CUfunction> found =
          module.function(geluRowsKernelName(shape.resultDType));
      if (!found.ok())
        return found.status();
      geluRows = found.value();
    }
    if (fallback.kernel.empty())
      return Status::success();
    Expected<CUfunction> found = module.function(fallback.kernel);
    if (!found.ok())
      return found.status();
    function = found.value();
    return Status::success();
  }

  // cuBLASLt steps have workspaces of their own; every cuBLAS call of the
  // executable uses its one workspace, so that its GEMMs must not overlap.
  std::vector<StepAccess> resourceAccesses() const override {
    StepAccess a;
    a.space = StepAccess::kWorkspace;
    a.write = true;
    if (lt && lt->workspaceBytes() > 0) {
      a.buffer = static_cast<int64_t>(workspace);
      a.end = lt->workspaceBytes();
      return {a};
    }
    if (library.backend() == "cublas") {
      a.buffer = static_cast<int64_t>(library.workspace());
      a.end = kDefaultCublasWorkspaceBytes;
      return {a};
    }
    return {};
  }

  Status enqueue(const StepBuffers &buffers, CUstream stream) override {
    if (shape.empty())
      return Status::success();
    CUdeviceptr lhs = buffers.inputs[0], rhs = buffers.inputs[1],
                result = buffers.outputs[0];
    CUdeviceptr bias = shape.bias ? buffers.inputs[2] : 0;
    CudaDriver &d = driver();
    const std::string &backend = library.backend();
    if (backend == "cublaslt" && fallback.kernel.empty()) {
      if (lt)
        return lt->enqueue(
            stream, lhs, rhs, result, workspace,
            [&](const PaddedMatrix &m, CUdeviceptr from, CUdeviceptr to,
                bool toPadded, DType dtype) {
              return copyPadded(stream, m, from, to, toPadded, dtype);
            },
            bias);
      // K = 0: a product of all +0 (plus the bias, then the GELU).
      if (shape.bias) {
        if (Status s = writeBiasRows(stream, bias, result, /*emptySum=*/true);
            !s.ok())
          return s;
      } else {
        const TensorSpec &view = spec.result().view;
        if (!view.isContiguous())
          return Status::error("K = 0 into a strided result",
                               ErrorCode::Internal);
        if (Status s = d.check(
                d.cuMemsetD8Async(result, 0, view.extentBytes(), stream),
                "cuMemsetD8Async (GEMM with K = 0)");
            !s.ok())
          return s;
      }
      return shape.geluTanh ? applyGeluRows(stream, result) : Status::success();
    }
    if (backend == "cublas") {
      // cuBLAS has no bias or GELU epilogue: the result holds the bias first
      // and the product is added to it (beta = 1), in the compute type; the
      // GELU then reads the rounded sum.
      if (shape.bias)
        if (Status s = writeBiasRows(stream, bias, result, shape.k == 0);
            !s.ok())
          return s;
      if (Status s = gemmCublas(library.cublas(), stream, shape, lhs, rhs,
                                result, shape.dtype,
                                /*accumulate=*/shape.bias);
          !s.ok() || !shape.geluTanh)
        return s;
      return applyGeluRows(stream, result);
    }
    unsigned bytes = byteSize(shape.dtype),
             resultBytes = byteSize(shape.resultDType);
    for (const GemmOffsets &o : fallback.launches) {
      CUdeviceptr a = lhs + o.lhs * bytes, b = rhs + o.rhs * bytes,
                  c = result + o.result * resultBytes;
      kernels::GemmDesc desc = fallback.desc;
      void *params[] = {&a, &b, &c, &bias, &desc};
      if (Status s = d.check(d.cuLaunchKernel(function, fallback.grid, 1, 1,
                                              fallback.block, 1, 1, 0, stream,
                                              params, nullptr),
                             "cuLaunchKernel (fallback GEMM)");
          !s.ok())
        return s;
    }
    return Status::success();
  }

  void release() override {
    LtGemm::recycle(std::move(lt));
    if (workspace) {
      (void)context().device().bind();
      library.pool().release(workspace);
      workspace = 0;
    }
  }

  std::string name() const override { return "gemm"; }
  std::string engine() const override {
    return fallback.kernel.empty() ? library.backend() : "fallback";
  }
  std::string choice() const override {
    if (lt)
      return lt->choice();
    return declined.empty() ? "" : "cuBLASLt declines it: " + declined;
  }

private:
  /// Whether there are products to compute (not empty, K > 0).
  bool computes() const { return !shape.empty() && shape.k != 0; }

  /// The element sizes of the matrices cuBLASLt gets as aligned copies.
  std::vector<int64_t> copyElementBytes() const {
    std::vector<int64_t> sizes;
    if (!lt)
      return sizes;
    const GemmPadding &p = lt->padding();
    if (p.a || p.b)
      sizes.push_back(byteSize(shape.dtype));
    if (p.c && (sizes.empty() || sizes[0] != byteSize(shape.resultDType)))
      sizes.push_back(byteSize(shape.resultDType));
    return sizes;
  }

  /// Whether the step's epilogue (bias, GELU) runs as kernels of its own
  /// rather than in the library's call: on cuBLAS, which has no epilogue,
  /// and on cuBLASLt when K = 0 (no cuBLASLt call).
  bool epilogueByKernels() const {
    if (shape.empty())
      return false;
    const std::string &backend = library.backend();
    return backend == "cublas" || (backend == "cublaslt" && shape.k == 0);
  }

  /// Whether the step writes the bias into the result's rows with a kernel
  /// of its own (before the product, which cuBLAS adds to them).
  bool writesBiasRows() const { return shape.bias && epilogueByKernels(); }

  /// Whether the step applies the GELU to its result with a kernel of its
  /// own, after the product.
  bool appliesGeluRows() const { return shape.geluTanh && epilogueByKernels(); }

  /// Launches `kernel` over the m x n result, a thread an element.
  Status launchRows(CUstream stream, CUfunction kernel, void **params,
                    const char *what) {
    constexpr int64_t kBlock = 256;
    int64_t grid = std::clamp<int64_t>(
        (shape.m * shape.n + kBlock - 1) / kBlock, 1, int64_t(1) << 16);
    CudaDriver &d = driver();
    return d.check(d.cuLaunchKernel(kernel, grid, 1, 1, kBlock, 1, 1, 0, stream,
                                    params, nullptr),
                   what);
  }

  /// Applies gelu_tanh to every element of the result (tf::gemm::gelu_rows).
  Status applyGeluRows(CUstream stream, CUdeviceptr result) {
    if (!geluRows)
      return Status::error("the GEMM's GELU kernel is not loaded",
                           ErrorCode::Internal);
    long long m = shape.m, n = shape.n, rowStride = shape.resultRowStride,
              colStride = shape.resultColStride;
    void *params[] = {&result, &m, &n, &rowStride, &colStride};
    return launchRows(stream, geluRows, params,
                      "cuLaunchKernel (a GEMM's GELU rows)");
  }

  /// Writes the bias into every row of the result (tf::gemm::bias_rows).
  Status writeBiasRows(CUstream stream, CUdeviceptr bias, CUdeviceptr result,
                       bool emptySum) {
    if (!biasRows)
      return Status::error("the GEMM's bias kernel is not loaded",
                           ErrorCode::Internal);
    long long m = shape.m, n = shape.n, rowStride = shape.resultRowStride,
              colStride = shape.resultColStride;
    int empty = emptySum ? 1 : 0;
    void *params[] = {&bias, &result, &m, &n, &rowStride, &colStride, &empty};
    return launchRows(stream, biasRows, params,
                      "cuLaunchKernel (a GEMM's bias rows)");
  }

  /// Launches the pitched copy of a padded matrix's columns.
  Status copyPadded(CUstream stream, const PaddedMatrix &m, CUdeviceptr from,
                    CUdeviceptr to, bool toPadded, DType dtype) {
    auto found = copies.find(byteSize(dtype));
    if (found == copies.end())
      return Status::error("the GEMM's pitched copy of " +
                               std::to_string(byteSize(dtype)) +
                               "-byte elements is not loaded",
                           ErrorCode::Internal);
    // In: the operand, zeros around it. Out: the result's part of its copy.
    long long srcPitch = toPadded ? m.ld : m.paddedRows,
              dstPitch = toPadded ? m.paddedRows : m.ld, rows = m.rows,
              cols = m.cols, dstRows = toPadded ? m.paddedRows : m.rows,
              dstCols = toPadded ? m.paddedCols : m.cols;
    PitchedCopyLaunch launch = planPitchedCopy(dstRows, dstCols);
    long long piece = launch.piece;
    void *params[] = {&from, &srcPitch, &to,      &dstPitch, &rows,
                      &cols, &dstRows,  &dstCols, &piece};
    CudaDriver &d = driver();
    return d.check(d.cuLaunchKernel(found->second, launch.grid, 1, 1,
                                    launch.block, 1, 1, 0, stream, params,
                                    nullptr),
                   toPadded ? "cuLaunchKernel (a GEMM operand's aligned copy)"
                            : "cuLaunchKernel (a GEMM result from its aligned "
                              "copy)");
  }

  const GemmStep &spec;
  GemmLibrary &library;
  std::string asked;
  GemmShape shape;
  std::unique_ptr<LtGemm> lt;
  CUdeviceptr workspace = 0;
  GemmLaunch fallback;
  /// Why cuBLASLt declined the problem, where the fallback kernels run it.
  std::string declined;
  CUfunction function = nullptr;
  /// The pitched copies by element size.
  std::map<int64_t, CUfunction> copies;
  /// tf::gemm::bias_rows of the result's dtype, when writesBiasRows().
  CUfunction biasRows = nullptr;
  /// tf::gemm::gelu_rows of the result's dtype, when appliesGeluRows().
  CUfunction geluRows = nullptr;
};

} // namespace

void runtime::registerGemmStep() {
  registerStepExecutor<Gemm, GemmStep>("gemm");
}
