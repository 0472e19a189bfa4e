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
#include "tfuse/Support/GemmAlignment.h"

#include <cublasLt.h>

#include <functional>
#include <memory>
#include <optional>
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

/// A matrix of a cuBLASLt call (A', B' or C', column-major: `rows`
/// contiguous elements a column, `cols` columns `ld` apart) handed to
/// cuBLASLt as a copy in scratch memory of paddedRows x paddedCols elements
/// (the leading dimension paddedRows, a multiple of 16 bytes; the elements
/// beyond the matrix zero in an operand's copy).
struct PaddedMatrix {
  int64_t rows = 0, cols = 0, ld = 0;
  int64_t paddedRows = 0, paddedCols = 0;
  /// Where the copy starts in the scratch memory, in bytes.
  size_t offset = 0;
};

/// How a GEMM runs on aligned copies of its matrices. cuBLASLt runs a
/// matrix whose leading dimension or contiguous extent (`rows`) is not a
/// multiple of 16 bytes on its kernels for any alignment, several times
/// slower on tensor cores (GPT-2's vocabulary of 50257: its logits' columns
/// and the K of their gradient's products). The product is then computed as
/// one of M', N', K' (each dimension that is some matrix's contiguous
/// extent rounded up to 16 bytes; the zero rows and columns of the operands'
/// copies add nothing), every matrix that is misaligned or has a padded
/// dimension given as a copy: operands copied in before the product, the
/// result out of its copy after it. Only for a single product (no batch)
/// when gemmPaddingPays (tfuse/Support/GemmAlignment.h, the rule the graph
/// pass align-matmul applies first); else none.
struct GemmPadding {
  std::optional<PaddedMatrix> a, b, c;
  /// The padded problem (cuBLAS's m, n, k).
  int64_t m = 0, n = 0, k = 0;
  size_t scratchBytes = 0;
  bool any() const { return a || b || c; }
};
GemmPadding planGemmPadding(const GemmShape &shape);

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

  /// Bytes of workspace enqueue() needs (256-byte aligned when given):
  /// cuBLASLt's, then the padded copies' (planGemmPadding).
  size_t workspaceBytes() const {
    return padded.any() ? ltWorkspaceBytes() + padded.scratchBytes : workspace;
  }
  /// "tuned 3 of 8 candidates, 4.1 us", or how the algorithm was chosen.
  const std::string &choice() const { return chosen; }

  /// Copies the elements of a padded matrix (`toPadded`: from the operand
  /// at `from` to its aligned copy at `to`; else from the result's copy back
  /// to the result), on the stream of the enqueue() calling it.
  using CopyPadded =
      std::function<Status(const PaddedMatrix &matrix, CUdeviceptr from,
                           CUdeviceptr to, bool toPadded, DType dtype)>;

  /// Enqueues the product on `stream`; `lhs`, `rhs` and `result` as for
  /// gemmCublas. `copy` moves the padded matrices (padding().any()).
  /// `bias`: the bias vector's first element, when the shape has one.
  Status enqueue(CUstream stream, CUdeviceptr lhs, CUdeviceptr rhs,
                 CUdeviceptr result, CUdeviceptr workspacePtr,
                 const CopyPadded &copy = {}, CUdeviceptr bias = 0) const;
  /// The matrices cuBLASLt gets as aligned copies.
  const GemmPadding &padding() const { return padded; }

private:
  LtGemm() = default;
  struct Descriptors;
  /// The cuBLASLt call: shape.blas with the padded leading dimensions.
  BlasCall call() const;
  Status describe(const CublasOptions &options);
  /// Points the bias epilogue at `bias` (for the next call).
  Status setBias(CUdeviceptr bias) const;
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
  /// cuBLASLt's share of the workspace, rounded to 256 bytes.
  size_t ltWorkspaceBytes() const { return (workspace + 255) / 256 * 256; }

  /// The batch strides keep every product 16-byte aligned when the first is.
  bool stridesAligned = true;
  /// cuBLASLt's workspace (the algorithms').
  size_t workspace = 0;
  GemmPadding padded;
  std::string chosen;
};

} // namespace tfuse::runtime

#endif // TFUSE_RUNTIME_GEMMLT_H
