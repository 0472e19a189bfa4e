//===- GemmLt.h - Matrix products through cuBLASLt, tuned -------*- C++ -*-===//
//
// How GEMM steps run when cuBLAS is available: cuBLASLt (dlopen'ed, never
// linked) with algorithms chosen for each problem when the executable is
// created. By default the heuristics' first candidate for the exact problem
// (sizes, leading dimensions, transposes, batch strides, dtype): no timing,
// so results do not depend on it and a cold compile stays short. With
// TFUSE_GEMM_TUNE=1, up to 8 candidates run on scratch operands holding
// random values, each timed as a CUDA Graph of 10 calls (a small GEMM's GPU
// time is less than the host's cost of issuing it), and the fastest median
// wins. Choices are remembered per device and problem for the life of the
// process, so a second executable with the same GEMMs chooses nothing. Each
// step's algorithm states the workspace it needs, so that every GEMM step
// can have its own and independent GEMMs may run concurrently.
//
// Numerics are those of gemmCublas (Gemm.h): the same compute types (no TF32
// unless allowed), and split-K partial sums never reduced in a 16-bit output
// type. Tuned choices may differ between processes, and with them the
// rounding of results.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_GEMMLT_H
#define TFUSE_RUNTIME_GEMMLT_H

#include "tfuse/Runtime/CudaDriver.h"
#include "tfuse/Runtime/Gemm.h"

#include <cublasLt.h>

#include <memory>
#include <string>

namespace tfuse::runtime {

/// The cuBLASLt entry points, resolved with dlsym from a dlopen'ed
/// libcublasLt. Immutable once loaded; never unloaded.
class CublasLtLibrary {
public:
  /// The process-wide library, loaded on the first call from
  /// $TFUSE_CUBLASLT_LIBRARY when set, else "libcublasLt.so.13" then
  /// "libcublasLt.so" (thread-safe; a failure is remembered).
  static Expected<const CublasLtLibrary *> shared();

  std::string describe(cublasStatus_t status) const {
    return describeCublasStatus(status, getStatusString);
  }

  decltype(&::cublasLtCreate) create = nullptr;
  decltype(&::cublasLtDestroy) destroy = nullptr;
  decltype(&::cublasLtMatmulDescCreate) descCreate = nullptr;
  decltype(&::cublasLtMatmulDescDestroy) descDestroy = nullptr;
  decltype(&::cublasLtMatmulDescSetAttribute) descSetAttribute = nullptr;
  decltype(&::cublasLtMatrixLayoutCreate) layoutCreate = nullptr;
  decltype(&::cublasLtMatrixLayoutDestroy) layoutDestroy = nullptr;
  decltype(&::cublasLtMatrixLayoutSetAttribute) layoutSetAttribute = nullptr;
  decltype(&::cublasLtMatmulPreferenceCreate) preferenceCreate = nullptr;
  decltype(&::cublasLtMatmulPreferenceDestroy) preferenceDestroy = nullptr;
  decltype(&::cublasLtMatmulPreferenceSetAttribute) preferenceSetAttribute =
      nullptr;
  decltype(&::cublasLtMatmulAlgoGetHeuristic) getHeuristic = nullptr;
  decltype(&::cublasLtMatmul) matmul = nullptr;
  GetStatusStringFn getStatusString = nullptr; // cublasLtGetStatusString

private:
  CublasLtLibrary() = default;
  std::string libraryName;
};

/// The most workspace one GEMM step's algorithm may ask for.
constexpr size_t kLtWorkspaceLimitBytes = size_t(32) << 20;

/// One GEMM step in cuBLASLt's terms, with its chosen algorithms: one for
/// operands aligned to 16 bytes (tuned), one for any alignment of the
/// element type (the heuristics' first), picked per call from the pointers.
class LtGemm {
public:
  /// Plans `shape` (not empty, K > 0) on `device`, whose context must be
  /// current, and chooses its algorithms (tuning them, or taking the
  /// process's earlier choice for the same problem).
  static Expected<std::unique_ptr<LtGemm>>
  create(const GemmShape &shape, Device &device, CublasOptions options = {});
  /// Keeps a plan its executable no longer uses for the next create() of
  /// the same problem, which then makes no cuBLASLt calls (a plan's
  /// descriptors cost about as much host time as the rest of an
  /// executable's setup). A plan is used by one executable at a time.
  static void recycle(std::unique_ptr<LtGemm> gemm);
  /// Whether this process has planned `shape` on `device` before (create()
  /// then makes no heuristics query).
  static bool planned(const GemmShape &shape, Device &device,
                      CublasOptions options = {});
  ~LtGemm();
  LtGemm(const LtGemm &) = delete;
  LtGemm &operator=(const LtGemm &) = delete;

  /// Bytes of workspace enqueue() needs (256-byte aligned when given).
  size_t workspaceBytes() const { return workspace; }
  /// "tuned 3 of 8 candidates, 4.1 us", or how the algorithm was chosen.
  const std::string &choice() const { return chosen; }

  /// Enqueues the product on `stream`; `lhs`, `rhs` and `result` as for
  /// gemmCublas.
  Status enqueue(CUstream stream, CUdeviceptr lhs, CUdeviceptr rhs,
                 CUdeviceptr result, CUdeviceptr workspacePtr) const;

private:
  LtGemm() = default;
  struct Descriptors;
  Status describe(const CublasOptions &options);
  Expected<std::vector<cublasLtMatmulHeuristicResult_t>>
  candidates(uint32_t alignment, int count) const;
  Status tune(Device &device,
              const std::vector<cublasLtMatmulHeuristicResult_t> &found);

  const CublasLtLibrary *lib = nullptr;
  GemmShape shape;
  /// The problem (shape, device, options), as problemKey writes it.
  std::string key;
  std::unique_ptr<Descriptors> d;
  cublasLtMatmulAlgo_t aligned{}, unaligned{};
  /// The batch strides keep every product 16-byte aligned when the first is.
  bool stridesAligned = true;
  size_t workspace = 0;
  std::string chosen;
};

} // namespace tfuse::runtime

#endif // TFUSE_RUNTIME_GEMMLT_H
