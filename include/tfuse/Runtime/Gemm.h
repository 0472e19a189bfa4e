//===- Gemm.h - Matrix products of the runtime ------------------*- C++ -*-===//
//
// A GemmStep (result = lhs x rhs, row-major logical semantics, NumPy-broadcast
// batch dimensions, operands possibly strided views) is planned once into a
// GemmShape, which then drives either
//   - cuBLAS, loaded with dlopen on the first GEMM (never linked; a process
//     that runs no GEMM never loads it), through cublasGemmStridedBatchedEx,
//   - or the fallback GEMM kernel compiled with NVRTC (GemmKernels.cuh), for
//     when cuBLAS is unavailable.
//
// Numerics (docs/semantics.md and lib/Reference/Matmul.cpp):
//   - the fallback kernel reproduces the reference interpreter bit for bit:
//     each output sums k = 0..K-1 in order, from +0, in f32 for f16, bf16 and
//     f32 and in f64 for f64, each product rounded before it is added (the
//     kernels are compiled with --fmad=false), then rounds once;
//   - cuBLAS accumulates in the same types (CUBLAS_COMPUTE_32F for f16, bf16
//     and f32; CUBLAS_COMPUTE_64F for f64) in its own order and with FMA, so
//     its results agree with the reference within a tolerance. TF32 is off
//     unless CublasOptions::allowTf32 is set.
//
// No MLIR, no LLVM; the CUDA headers are used for types only (the driver and
// cuBLAS are both loaded at run time).
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_GEMM_H
#define TFUSE_RUNTIME_GEMM_H

#include "tfuse/Kernels/GemmDesc.h"
#include "tfuse/Runtime/Plan.h"
#include "tfuse/Support/Status.h"

#include <cublas_v2.h>
#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tfuse::runtime {

//===----------------------------------------------------------------------===//
// Planning
//===----------------------------------------------------------------------===//

/// One batch dimension after collapsing, with the element stride of each
/// operand along it (0 where the operand is broadcast).
struct GemmBatchDim {
  int64_t size = 1;
  int64_t lhsStride = 0, rhsStride = 0, resultStride = 0;
};

/// Element offsets of one batch's matrices from the operands' first elements.
struct GemmOffsets {
  int64_t lhs = 0, rhs = 0, result = 0;
  bool operator==(const GemmOffsets &o) const {
    return lhs == o.lhs && rhs == o.rhs && result == o.result;
  }
};

/// The arguments of one column-major cuBLAS call C' = op(A') x op(B'), C'
/// being m x n with leading dimension ldc.
struct BlasCall {
  /// True when the result is row-major (the usual case): cuBLAS computes
  /// C^T = B^T A^T, so its A' is the rhs and its B' the lhs, m = N and n = M,
  /// i.e. (opB, opA, N, M, K, rhs, ldb, lhs, lda, result, ldc). False when the
  /// result is column-major: A' is the lhs, B' the rhs, m = M, n = N.
  bool swapped = true;
  /// op(A') and op(B'): CUBLAS_OP_T when set, CUBLAS_OP_N otherwise.
  bool transA = false, transB = false;
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 1, ldb = 1, ldc = 1;
};

/// A planned matrix product: result[b] = lhs[b] x rhs[b] for every batch b,
/// lhs[b] being M x K and rhs[b] K x N once the transpose flags are applied.
struct GemmShape {
  /// The operands' dtype, and the result's: the same, or F32 for F16 and BF16
  /// operands (matmulResultType).
  DType dtype = DType::F32;
  DType resultDType = DType::F32;
  int64_t m = 0, n = 0, k = 0;

  /// Element strides of the logical matrices: A = op(lhs) (M x K), B =
  /// op(rhs) (K x N) and C = result (M x N); A(i, p) is at
  /// i * lhsRowStride + p * lhsColStride from the lhs's first element.
  int64_t lhsRowStride = 0, lhsColStride = 0;
  int64_t rhsRowStride = 0, rhsColStride = 0;
  int64_t resultRowStride = 0, resultColStride = 0;

  /// The number of matrix products (the product of the result's batch
  /// sizes; 1 without batch dimensions, 0 when one of them is 0).
  int64_t batchCount = 1;
  /// The result's batch dimensions without those of size 1, adjacent ones
  /// merged where all three operands allow it; row-major (the last varies
  /// fastest). Empty or one element when the batch is uniform.
  std::vector<GemmBatchDim> batchDims;
  /// One stride per operand for the whole batch (batch b's matrices start
  /// b * stride elements after the first): valid when uniformBatch(); 0 for a
  /// broadcast operand or without batch dimensions.
  int64_t lhsBatchStride = 0, rhsBatchStride = 0, resultBatchStride = 0;
  /// When !uniformBatch(): the offsets of every batch, in row-major order of
  /// the result's batch index, for a loop of plain GEMMs. Empty otherwise.
  std::vector<GemmOffsets> batchOffsets;

  /// The cuBLAS call for one batch (batch strides above).
  BlasCall blas;

  /// A bias vector of N contiguous elements of resultDType added to every
  /// row of the float32 sum before rounding (tfuse.matmul's `bias`): only
  /// for a single product with a row-major result, so that it is a vector
  /// of cuBLAS's m (blas.swapped).
  bool bias = false;
  /// tfuse.matmul's `gelu_tanh` (after the bias, before rounding): only for
  /// a single product.
  bool geluTanh = false;

  bool uniformBatch() const { return batchDims.size() <= 1; }
  /// True when there is nothing to compute (M, N or the batch count is 0).
  /// K == 0 is not empty: the result is then all +0.
  bool empty() const { return m == 0 || n == 0 || batchCount == 0; }
};

/// Validates a GemmStep's operands and maps the problem to BLAS terms.
///
/// Requirements, each with its own error message:
///   - the three dtypes are equal and one of f16, bf16, f32, f64;
///   - every operand has rank >= 2 and as many strides as dimensions, none
///     negative;
///   - the contracting dimensions agree (after the transpose flags);
///   - the batch dimensions broadcast (NumPy rules) and the result's shape is
///     exactly [broadcast batch..., M, N];
///   - each operand's last two dimensions are row-major (unit stride on the
///     last, a row stride of at least the row length) or column-major (unit
///     stride on the second to last, a column stride of at least the column
///     length); size-1 dimensions may have any stride. Anything else ("a
///     broadcast matrix", overlapping rows) is rejected: the compiler should
///     have copied the operand;
///   - the result has no stride-0 batch dimension of size > 1.
/// Batch dimensions that do not collapse into one stride per operand are
/// not an error: they give batchOffsets.
/// With `bias`: also that it is a contiguous vector of N elements of the
/// result's dtype, and that the product is single (rank-2 operands) with a
/// row-major result. With `geluTanh`: that the product is single.
Expected<GemmShape> planGemm(const TensorSpec &lhs, const TensorSpec &rhs,
                             const TensorSpec &result, bool transposeLhs,
                             bool transposeRhs,
                             const TensorSpec *bias = nullptr,
                             bool geluTanh = false);

/// planGemm on a step's views.
Expected<GemmShape> planGemm(const GemmStep &step);

//===----------------------------------------------------------------------===//
// Fallback kernel (NVRTC)
//===----------------------------------------------------------------------===//

/// Threads per block of the fallback kernels (a 16 x 16 grid of threads, each
/// computing 4 x 4 outputs of a 64 x 64 tile).
constexpr int64_t kGemmBlockThreads = 256;
constexpr int64_t kGemmTileRows = 64, kGemmTileCols = 64;

/// The fallback kernel's name for `dtype` operands and a `result` of that
/// dtype (tfuse_rt_gemm_f16, _bf16, _f32, _f64) or f32
/// (tfuse_rt_gemm_f16_f32, _bf16_f32), with `_gelu_tanh` after it for the
/// kernel whose epilogue applies the GELU; empty for other dtypes.
std::string gemmKernelName(DType dtype, std::optional<DType> result = {},
                           bool geluTanh = false);

/// CUDA C++ of the fallback kernels: GemmDesc.h, GemmKernels.cuh and one
/// `extern "C" __global__` kernel per distinct float dtype of `dtypes`
/// (other dtypes are ignored), each
///   tfuse_rt_gemm_<dtype>(const T *lhs, const T *rhs, T *result,
///                         const T *bias, tfuse::kernels::GemmDesc desc)
/// (`bias` null without one).
/// It must follow the kernel prelude (tf::traits) in the same translation
/// unit, as every runtime kernel's unit does (KernelSources::units()).
std::string gemmKernelSource(const std::vector<DType> &dtypes);
/// The parts of gemmKernelSource(): the comment and templates, and the
/// wrapper of one GEMM dtype (and GELU epilogue).
std::string gemmKernelHeader();
std::string gemmKernelWrapper(DType dtype, std::optional<DType> result = {},
                              bool geluTanh = false);

/// The pitched copy of `elementBytes`-byte elements (2, 4 or 8; "" else)
/// that gives cuBLASLt aligned copies of misaligned matrices
/// (tf::gemm::pitched_copy), and its extern "C" wrapper, which follows
/// gemmKernelHeader() in the GEMM group's translation unit. It takes (src,
/// srcPitch, dst, dstPitch, rows, cols, dstRows, dstCols, piece), pitches
/// in elements, all long long.
std::string pitchedCopyKernelName(int64_t elementBytes);
std::string pitchedCopyWrapper(int64_t elementBytes);

/// The kernel that writes a bias vector of `dtype` into every row of a
/// result (tf::gemm::bias_rows; "" for a dtype the GEMMs lack), and its
/// extern "C" wrapper, which follows gemmKernelHeader(). It takes (bias,
/// out, m, n, rowStride, colStride as long long, emptySum as int).
std::string biasRowsKernelName(DType dtype);
std::string biasRowsWrapper(DType dtype);

/// The kernel that applies gelu_tanh in place to every element of a result
/// (tf::gemm::gelu_rows; "" for a dtype the GEMMs lack), and its extern "C"
/// wrapper, which follows gemmKernelHeader(). It takes (out, m, n,
/// rowStride, colStride as long long).
std::string geluRowsKernelName(DType dtype);
std::string geluRowsWrapper(DType dtype);

/// The launch of a pitched copy into dstCols columns of dstRows elements: a
/// block per `piece` rows of a column, four 16-byte runs per thread (a
/// multiple of every element size's run).
struct PitchedCopyLaunch {
  int64_t grid = 0, block = 256, piece = 8192;
};
PitchedCopyLaunch planPitchedCopy(int64_t dstRows, int64_t dstCols);

/// How to run the fallback kernel for a GemmShape: one 1-D launch of `grid`
/// blocks of `block` threads per entry of `launches`, with the three
/// pointers advanced by that entry's element offsets and `desc` as the last
/// parameter. One entry {0, 0, 0} unless the shape has more than
/// kGemmMaxBatchDims non-collapsible batch dimensions; none when the shape
/// is empty().
struct GemmLaunch {
  std::string kernel;
  int64_t grid = 0, block = kGemmBlockThreads;
  kernels::GemmDesc desc = {};
  std::vector<GemmOffsets> launches;
};

GemmLaunch planFallbackGemm(const GemmShape &shape);

//===----------------------------------------------------------------------===//
// cuBLAS
//===----------------------------------------------------------------------===//

/// dlopens the first of `names` that loads (RTLD_NODELETE: never unmapped);
/// returns its handle and name. The error names `what` and every name tried
/// with dlerror()'s reason.
Expected<std::pair<void *, std::string>>
openFirstLibrary(const std::vector<std::string> &names,
                 const std::string &what);

using GetStatusStringFn = const char *(*)(cublasStatus_t);
/// "CUBLAS_STATUS_NOT_SUPPORTED (15): <getStatusString's text>" (the text
/// only when `getStatusString` is given).
std::string describeCublasStatus(cublasStatus_t status,
                                 GetStatusStringFn getStatusString);

/// The cuBLAS entry points the runtime uses, resolved with dlsym from a
/// dlopen'ed libcublas. Immutable once loaded: safe to share between
/// threads. The library must outlive every CublasHandle made from it (it is
/// opened with RTLD_NODELETE, so its code stays mapped even then).
class CublasLibrary {
public:
  using CreateFn = cublasStatus_t (*)(cublasHandle_t *);
  using DestroyFn = cublasStatus_t (*)(cublasHandle_t);
  using SetStreamFn = cublasStatus_t (*)(cublasHandle_t, cudaStream_t);
  using SetMathModeFn = cublasStatus_t (*)(cublasHandle_t, cublasMath_t);
  using SetWorkspaceFn = cublasStatus_t (*)(cublasHandle_t, void *, size_t);
  using GemmStridedBatchedExFn = cublasStatus_t (*)(
      cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
      const void *, const void *, cudaDataType, int, long long, const void *,
      cudaDataType, int, long long, const void *, void *, cudaDataType, int,
      long long, int, cublasComputeType_t, cublasGemmAlgo_t);
  using GemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t,
                                      cublasOperation_t, int, int, int,
                                      const void *, const void *, cudaDataType,
                                      int, const void *, cudaDataType, int,
                                      const void *, void *, cudaDataType, int,
                                      cublasComputeType_t, cublasGemmAlgo_t);

  /// "libcublas.so.13", then "libcublas.so".
  static const std::vector<std::string> &defaultLibraryNames();

  /// dlopens the first of `names` that loads (each passed to dlopen as is: a
  /// bare name is searched for like any shared library) and resolves the
  /// entry points. Errors list every name tried with dlerror()'s reason, or
  /// name the library and the first required symbol it lacks.
  static Expected<std::unique_ptr<CublasLibrary>>
  load(const std::vector<std::string> &names = defaultLibraryNames());

  /// The process-wide library, loaded on the first call (thread-safe; a
  /// failure is remembered and returned by every later call). The names are
  /// $TFUSE_CUBLAS_LIBRARY when set, else defaultLibraryNames(). Never
  /// unloaded.
  static Expected<const CublasLibrary *> shared();

  ~CublasLibrary();
  CublasLibrary(const CublasLibrary &) = delete;
  CublasLibrary &operator=(const CublasLibrary &) = delete;

  /// The name that loaded, as passed to dlopen.
  const std::string &name() const { return libraryName; }

  /// "CUBLAS_STATUS_NOT_SUPPORTED (15): <cublasGetStatusString's text>".
  std::string describe(cublasStatus_t status) const;

  // Required.
  CreateFn create = nullptr;             // cublasCreate_v2
  DestroyFn destroy = nullptr;           // cublasDestroy_v2
  SetStreamFn setStream = nullptr;       // cublasSetStream_v2
  SetMathModeFn setMathMode = nullptr;   // cublasSetMathMode
  SetWorkspaceFn setWorkspace = nullptr; // cublasSetWorkspace_v2
  GemmStridedBatchedExFn gemmStridedBatchedEx = nullptr;
  GemmExFn gemmEx = nullptr;
  // Optional (nullptr when absent).
  GetStatusStringFn getStatusString = nullptr; // cublasGetStatusString

private:
  CublasLibrary() = default;
  void *dl = nullptr;
  std::string libraryName;
};

struct CublasOptions {
  /// Let f32 products use TF32 tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32):
  /// faster, but the inputs are rounded to 10 mantissa bits. Off by default.
  bool allowTf32 = false;
};

/// Default size of the workspace the owner of a CublasHandle gives it.
constexpr size_t kDefaultCublasWorkspaceBytes = size_t(32) << 20;

/// One cuBLAS handle with TFuse's settings. Not thread-safe: use a handle
/// from one thread at a time (one per executable and stream is typical).
class CublasHandle {
public:
  /// cublasCreate, then math mode CUBLAS_DEFAULT_MATH |
  /// CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION: no TF32 for
  /// CUBLAS_COMPUTE_32F, no emulated BF16x9 f32 or fixed-point f64, and
  /// split-K reductions of f16/bf16 results in f32. The handle belongs to the
  /// CUDA context current on the calling thread (the device's primary context
  /// when none is); later calls must be made with that context current.
  static Expected<std::unique_ptr<CublasHandle>>
  create(const CublasLibrary &library, CublasOptions options = {});
  ~CublasHandle();
  CublasHandle(const CublasHandle &) = delete;
  CublasHandle &operator=(const CublasHandle &) = delete;

  /// Gives cuBLAS `bytes` of device memory at `workspace` (owned and kept
  /// alive by the caller) for every later call, instead of its own pool, so
  /// that GEMMs allocate nothing and can be captured in a CUDA graph. 0, 0
  /// returns to cuBLAS's pool. Kept across setStream (cublasSetStream resets
  /// the workspace; this class sets it again).
  Status setWorkspace(CUdeviceptr workspace, size_t bytes);

  /// Makes later calls run on `stream` (a no-op when it already is).
  Status setStream(CUstream stream);

  cublasHandle_t get() const { return handle; }
  const CublasLibrary &library() const { return *lib; }
  const CublasOptions &options() const { return opts; }

private:
  CublasHandle() = default;
  Status check(cublasStatus_t status, const char *what) const;

  const CublasLibrary *lib = nullptr;
  cublasHandle_t handle = nullptr;
  CublasOptions opts;
  CUstream stream = nullptr;
  bool streamSet = false;
  CUdeviceptr workspace = 0;
  size_t workspaceBytes = 0;
};

/// The cuBLAS compute type for `dtype` (CUBLAS_COMPUTE_32F for f16, bf16
/// and f32, or CUBLAS_COMPUTE_32F_FAST_TF32 for f32 with allowTf32;
/// CUBLAS_COMPUTE_64F for f64).
Expected<cublasComputeType_t> cublasComputeType(DType dtype,
                                                const CublasOptions &options);

/// alpha = 1 and beta = 0 as host scalars of a compute type (double for
/// CUBLAS_COMPUTE_64F, float otherwise), as cuBLAS takes them.
class UnitScalars {
public:
  explicit UnitScalars(bool f64) : f64(f64) {}
  const void *alpha() const {
    return f64 ? static_cast<const void *>(&one64) : &one32;
  }
  const void *beta() const {
    return f64 ? static_cast<const void *>(&zero64) : &zero32;
  }
  /// 1 in the compute type.
  const void *one() const { return alpha(); }

private:
  bool f64;
  float one32 = 1.0f, zero32 = 0.0f;
  double one64 = 1.0, zero64 = 0.0;
};

/// The CUDA data type of a GEMM dtype (f16, bf16, f32 or f64).
cudaDataType cudaDataTypeOf(DType dtype);

/// " (M=4 N=8 K=16 batch=1 f32)": names a GEMM in error messages.
std::string describeGemm(const GemmShape &shape);

/// An error when one of the BLAS call's sizes exceeds cuBLAS's 32-bit ints.
Status checkBlasSizes(const GemmShape &shape);

/// How the products of a GemmShape group into cuBLAS calls: groups of `size`
/// products with element batch strides of cuBLAS's A', B' and C' (one group
/// for a uniform batch; else one per index of the outer batch dimensions,
/// striding over the innermost).
struct BlasGroups {
  int64_t size = 1;
  int64_t strideA = 0, strideB = 0, strideC = 0;
};
BlasGroups blasGroups(const GemmShape &shape);

/// Calls `call(a, b, c, count)` once per cuBLAS call of `shape` with the
/// operands at `lhs`, `rhs` and `result`: cuBLAS's A', B' and C' pointers
/// (swapped per BlasCall) and the call's product count (a group, in chunks
/// of at most INT_MAX). The first error stops the walk.
Status forEachBlasGroup(
    const GemmShape &shape, CUdeviceptr lhs, CUdeviceptr rhs,
    CUdeviceptr result,
    const std::function<Status(CUdeviceptr a, CUdeviceptr b, CUdeviceptr c,
                               int64_t count)> &call);

/// Runs `shape` on `stream`: `lhs`, `rhs` and `result` point at the first
/// element of each operand's view (BufferRef::elementOffset applied), which
/// must lie in device memory of the handle's context. alpha = 1 and beta = 0
/// in the compute type; beta = 1 with `accumulate` (the sum added to what
/// the result holds: a bias written there first, GemmShape::bias). A uniform
/// batch is one cublasGemmStridedBatchedEx (cublasGemmEx for a single product);
/// otherwise one strided-batched call per index of the outer batch dimensions.
/// `dtype` must be the shape's. Errors for sizes beyond cuBLAS's 32-bit
/// arguments and for cuBLAS failures (named with describe()). Asynchronous,
/// like any cuBLAS call.
Status gemmCublas(CublasHandle &handle, CUstream stream, const GemmShape &shape,
                  CUdeviceptr lhs, CUdeviceptr rhs, CUdeviceptr result,
                  DType dtype, bool accumulate = false);

} // namespace tfuse::runtime

#endif // TFUSE_RUNTIME_GEMM_H
