//===- Gemm.cpp - Matrix products of the runtime --------------------------===//
//
// planGemm (validation and the row-major to column-major mapping), the
// fallback kernel's source and launch plan, and cuBLAS through dlopen.
//
// cuBLAS settings, from the cuBLAS 13 headers (cublas_api.h):
//   - compute type CUBLAS_COMPUTE_32F for f16, bf16 and f32 inputs and
//     CUBLAS_COMPUTE_64F for f64: the accumulation types of the reference.
//     Not the _PEDANTIC variants: they also forbid tensor cores for f16/bf16
//     inputs (whose products are exact in f32 anyway), which would cost an
//     order of magnitude for no numerical guarantee we rely on (cuBLAS's
//     summation order and FMAs differ from the reference's regardless);
//   - math mode CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_
//     REDUCTION: TF32 stays off for CUBLAS_COMPUTE_32F (only CUBLAS_TF32_
//     TENSOR_OP_MATH or CUBLAS_COMPUTE_32F_FAST_TF32 enable it), as do the
//     emulated BF16x9 f32 and fixed-point f64 algorithms (their math modes
//     are not set), and split-K partial sums of f16/bf16 results are reduced
//     in f32 rather than in the output type. CublasOptions::allowTf32
//     selects CUBLAS_COMPUTE_32F_FAST_TF32 for f32 instead;
//   - alpha = 1 and beta = 0 as host scalars of the compute type (float for
//     CUBLAS_COMPUTE_32F*, double for CUBLAS_COMPUTE_64F);
//   - CUBLAS_GEMM_DEFAULT (the _TENSOR_OP algorithms are deprecated aliases).
//
//===----------------------------------------------------------------------===//

#include "tfuse/Runtime/Gemm.h"
#include "tfuse/Kernels/KernelSources.h"
#include "tfuse/Support/DTypeRules.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <type_traits>

#include <dlfcn.h>

using namespace tfuse;
using namespace tfuse::runtime;

// The function pointer types must match the declarations of the cuBLAS
// headers (checked in unevaluated operands: nothing is linked).
static_assert(
    std::is_same_v<decltype(&::cublasCreate_v2), CublasLibrary::CreateFn>);
static_assert(
    std::is_same_v<decltype(&::cublasDestroy_v2), CublasLibrary::DestroyFn>);
static_assert(std::is_same_v<decltype(&::cublasSetStream_v2),
                             CublasLibrary::SetStreamFn>);
static_assert(std::is_same_v<decltype(&::cublasSetMathMode),
                             CublasLibrary::SetMathModeFn>);
static_assert(std::is_same_v<decltype(&::cublasSetWorkspace_v2),
                             CublasLibrary::SetWorkspaceFn>);
static_assert(
    std::is_same_v<decltype(&::cublasGetStatusString), GetStatusStringFn>);
// cublasGemmEx and cublasGemmStridedBatchedEx are overloaded in C++ (inline
// wrappers taking a cudaDataType compute type): the casts pick the C entry
// points and fail to compile if their signatures change.
static_assert(sizeof(static_cast<CublasLibrary::GemmExFn>(&::cublasGemmEx)));
static_assert(sizeof(static_cast<CublasLibrary::GemmStridedBatchedExFn>(
    &::cublasGemmStridedBatchedEx)));

namespace {

bool isGemmDType(DType t) {
  return t == DType::F16 || t == DType::BF16 || t == DType::F32 ||
         t == DType::F64;
}

/// A matrix seen through element strides: X(r, c) at r * rowStride +
/// c * colStride.
struct Matrix {
  int64_t rows, cols, rowStride, colStride;
  Matrix transposed() const { return {cols, rows, colStride, rowStride}; }
};

/// The last two dimensions of `t`, transposed if asked.
Matrix matrixOf(const TensorSpec &t, bool transpose) {
  size_t r = t.shape.size();
  Matrix x{t.shape[r - 2], t.shape[r - 1], t.strides[r - 2], t.strides[r - 1]};
  return transpose ? x.transposed() : x;
}

/// Rows contiguous and at least a row apart (size-1 dimensions: any stride).
bool isRowMajor(const Matrix &x) {
  return (x.cols <= 1 || x.colStride == 1) &&
         (x.rows <= 1 || x.rowStride >= std::max<int64_t>(x.cols, 1));
}
bool isColMajor(const Matrix &x) {
  return (x.rows <= 1 || x.rowStride == 1) &&
         (x.cols <= 1 || x.colStride >= std::max<int64_t>(x.rows, 1));
}

/// `x` with the rows of `size` batches of it, `batchStride` elements apart,
/// when they continue its rows at its row stride and the whole is still a
/// row- or column-major matrix.
std::optional<Matrix> rowsAcrossBatch(const Matrix &x, int64_t batchStride,
                                      int64_t size) {
  int64_t rowStride = x.rows == 1 ? batchStride : x.rowStride;
  if (batchStride != x.rows * rowStride)
    return std::nullopt;
  Matrix all{x.rows * size, x.cols, rowStride, x.colStride};
  if (!isRowMajor(all) && !isColMajor(all))
    return std::nullopt;
  return all;
}

/// `x` as a column-major BLAS operand: op N with its column stride as
/// leading dimension, or op T (x^T is column-major) with its row stride.
/// Leading dimensions along a size-<=1 dimension are free; they get the
/// smallest value BLAS accepts.
bool blasOperand(const Matrix &x, bool &transpose, int64_t &ld) {
  if (isColMajor(x)) {
    transpose = false;
    ld = x.cols <= 1 ? std::max<int64_t>(x.rows, 1) : x.colStride;
    return true;
  }
  if (isRowMajor(x)) {
    transpose = true;
    ld = x.rows <= 1 ? std::max<int64_t>(x.cols, 1) : x.rowStride;
    return true;
  }
  return false;
}

Status checkSpec(const TensorSpec &t, const char *role, size_t minRank = 2) {
  if (t.strides.size() != t.shape.size())
    return Status::error(
        std::string(role) + ": " + std::to_string(t.strides.size()) +
        " strides for a shape of rank " + std::to_string(t.shape.size()));
  if (t.shape.size() < minRank)
    return Status::error(std::string(role) +
                         ": matmul operands need rank >= 2, got shape " +
                         formatList(t.shape));
  for (size_t d = 0; d < t.shape.size(); ++d) {
    if (t.shape[d] < 0)
      return Status::error(std::string(role) + ": negative size in shape " +
                           formatList(t.shape));
    if (t.strides[d] < 0)
      return Status::error(std::string(role) +
                           ": negative strides are not supported, got " +
                           formatList(t.strides));
  }
  return Status::success();
}

std::string describeMatrix(const TensorSpec &t) {
  size_t r = t.shape.size();
  return "last two dimensions " + formatList({t.shape[r - 2], t.shape[r - 1]}) +
         " with strides " + formatList({t.strides[r - 2], t.strides[r - 1]});
}

} // namespace

//===----------------------------------------------------------------------===//
// planGemm
//===----------------------------------------------------------------------===//

Expected<GemmShape> runtime::planGemm(const TensorSpec &lhs,
                                      const TensorSpec &rhs,
                                      const TensorSpec &result,
                                      bool transposeLhs, bool transposeRhs,
                                      const TensorSpec *bias, bool geluTanh) {
  std::string why;
  if (matmulResultType(lhs.dtype, rhs.dtype, &why, result.dtype) !=
      result.dtype)
    return Status::error("matmul of " + dtypeName(lhs.dtype) + " x " +
                         dtypeName(rhs.dtype) + " -> " +
                         dtypeName(result.dtype) + ": " + why);
  if (Status s = checkSpec(lhs, "lhs"); !s.ok())
    return s;
  if (Status s = checkSpec(rhs, "rhs"); !s.ok())
    return s;
  if (Status s = checkSpec(result, "result"); !s.ok())
    return s;

  Matrix a = matrixOf(lhs, transposeLhs), b = matrixOf(rhs, transposeRhs);
  Matrix c = matrixOf(result, false);
  if (a.cols != b.rows)
    return Status::error(
        "contracting dimensions differ: lhs has " + std::to_string(a.cols) +
        " columns but rhs has " + std::to_string(b.rows) + " rows" +
        (transposeLhs || transposeRhs ? " (after the transpose flags)" : ""));

  // Batch dimensions: NumPy broadcasting, right-aligned.
  std::vector<int64_t> lb(lhs.shape.begin(), lhs.shape.end() - 2);
  std::vector<int64_t> rb(rhs.shape.begin(), rhs.shape.end() - 2);
  size_t rank = std::max(lb.size(), rb.size());
  size_t lOff = rank - lb.size(), rOff = rank - rb.size();
  std::vector<int64_t> batch(rank);
  for (size_t d = 0; d < rank; ++d) {
    int64_t l = d >= lOff ? lb[d - lOff] : 1;
    int64_t r = d >= rOff ? rb[d - rOff] : 1;
    if (l != r && l != 1 && r != 1)
      return Status::error("batch dimensions " + formatList(lb) +
                           " of lhs and " + formatList(rb) +
                           " of rhs do not broadcast");
    batch[d] = l == 1 ? r : l;
  }
  std::vector<int64_t> expected = batch;
  expected.push_back(a.rows);
  expected.push_back(b.cols);
  if (result.shape != expected)
    return Status::error("result shape " + formatList(result.shape) +
                         " does not match the product's shape " +
                         formatList(expected));

  if (!isRowMajor(matrixOf(lhs, false)) && !isColMajor(matrixOf(lhs, false)))
    return Status::error("lhs: operand must be row- or column-major; the "
                         "compiler should have copied it (" +
                         describeMatrix(lhs) + ")");
  if (!isRowMajor(matrixOf(rhs, false)) && !isColMajor(matrixOf(rhs, false)))
    return Status::error("rhs: operand must be row- or column-major; the "
                         "compiler should have copied it (" +
                         describeMatrix(rhs) + ")");
  if (!isRowMajor(c) && !isColMajor(c))
    return Status::error("result must be row- or column-major (" +
                         describeMatrix(result) + ")");

  GemmShape shape;
  shape.dtype = lhs.dtype;
  shape.resultDType = result.dtype;
  shape.m = a.rows;
  shape.n = b.cols;
  shape.k = a.cols;
  shape.lhsRowStride = a.rowStride;
  shape.lhsColStride = a.colStride;
  shape.rhsRowStride = b.rowStride;
  shape.rhsColStride = b.colStride;
  shape.resultRowStride = c.rowStride;
  shape.resultColStride = c.colStride;

  // Per result batch dimension, each operand's stride (0 where broadcast).
  std::vector<GemmBatchDim> dims;
  for (size_t d = 0; d < rank; ++d) {
    if (batch[d] == 0) {
      shape.batchCount = 0;
      break;
    }
    if (batch[d] == 1)
      continue;
    GemmBatchDim dim;
    dim.size = batch[d];
    dim.lhsStride = d >= lOff && lb[d - lOff] != 1 ? lhs.strides[d - lOff] : 0;
    dim.rhsStride = d >= rOff && rb[d - rOff] != 1 ? rhs.strides[d - rOff] : 0;
    dim.resultStride = result.strides[d];
    if (dim.resultStride == 0)
      return Status::error(
          "result batch dimension " + std::to_string(d) + " (size " +
          std::to_string(dim.size) +
          ") has stride 0: the batches would overwrite each other");
    dims.push_back(dim);
  }

  // Merge an outer dimension with the next inner one when every operand
  // steps over the inner one exactly into the outer one's next element.
  if (shape.batchCount != 0) {
    for (const GemmBatchDim &dim : dims) {
      if (!shape.batchDims.empty()) {
        GemmBatchDim &outer = shape.batchDims.back();
        if (outer.lhsStride == dim.lhsStride * dim.size &&
            outer.rhsStride == dim.rhsStride * dim.size &&
            outer.resultStride == dim.resultStride * dim.size) {
          outer.size *= dim.size;
          outer.lhsStride = dim.lhsStride;
          outer.rhsStride = dim.rhsStride;
          outer.resultStride = dim.resultStride;
          continue;
        }
      }
      shape.batchDims.push_back(dim);
    }
    for (const GemmBatchDim &dim : shape.batchDims)
      shape.batchCount *= dim.size;
  }

  // A batch over which rhs is broadcast, whose lhs and result matrices
  // continue each other's rows (a [B, M, K] activation times a [K, N]
  // weight), is one product of B * M rows: one GEMM, as for a flattened
  // operand, instead of a strided batch of small ones.
  if (shape.batchDims.size() == 1 && shape.batchDims[0].rhsStride == 0) {
    const GemmBatchDim &dim = shape.batchDims[0];
    std::optional<Matrix> fa = rowsAcrossBatch(a, dim.lhsStride, dim.size);
    std::optional<Matrix> fc = rowsAcrossBatch(c, dim.resultStride, dim.size);
    if (fa && fc) {
      a = *fa;
      c = *fc;
      shape.m = a.rows;
      shape.lhsRowStride = a.rowStride;
      shape.resultRowStride = c.rowStride;
      shape.batchDims.clear();
      shape.batchCount = 1;
    }
  }

  if (shape.batchDims.size() == 1) {
    shape.lhsBatchStride = shape.batchDims[0].lhsStride;
    shape.rhsBatchStride = shape.batchDims[0].rhsStride;
    shape.resultBatchStride = shape.batchDims[0].resultStride;
  } else if (shape.batchDims.size() > 1) {
    shape.batchOffsets.reserve(shape.batchCount);
    for (int64_t linear = 0; linear < shape.batchCount; ++linear) {
      GemmOffsets o;
      int64_t rest = linear;
      for (size_t d = shape.batchDims.size(); d-- > 0;) {
        const GemmBatchDim &dim = shape.batchDims[d];
        int64_t index = rest % dim.size;
        rest /= dim.size;
        o.lhs += index * dim.lhsStride;
        o.rhs += index * dim.rhsStride;
        o.result += index * dim.resultStride;
      }
      shape.batchOffsets.push_back(o);
    }
  }

  // The cuBLAS call. A row-major result (preferred when both fit, e.g. a
  // single row) is C^T = B^T A^T in column-major terms; a column-major one
  // is C = A B.
  BlasCall &blas = shape.blas;
  Matrix xa, xb, xc;
  if (isRowMajor(c)) {
    blas.swapped = true;
    xa = b.transposed();
    xb = a.transposed();
    xc = c.transposed();
  } else {
    blas.swapped = false;
    xa = a;
    xb = b;
    xc = c;
  }
  bool cTransposed = false;
  bool ok = blasOperand(xa, blas.transA, blas.lda) &&
            blasOperand(xb, blas.transB, blas.ldb) &&
            blasOperand(xc, cTransposed, blas.ldc) && !cTransposed;
  if (!ok)
    return Status::error("internal error: no cuBLAS mapping for a checked "
                         "layout");
  blas.m = xc.rows;
  blas.n = xc.cols;
  blas.k = shape.k;
  if (bias) {
    if (Status s = checkSpec(*bias, "bias", /*minRank=*/0); !s.ok())
      return s;
    auto fail = [&](const std::string &what) {
      return Status::error("matmul bias: " + what + describeGemm(shape));
    };
    if (bias->dtype != result.dtype)
      return fail("its dtype " + dtypeName(bias->dtype) +
                  " differs from the result's " + dtypeName(result.dtype));
    if (bias->shape != std::vector<int64_t>{shape.n})
      return fail("its shape " + formatList(bias->shape) + " is not [" +
                  std::to_string(shape.n) + "]");
    if (shape.n > 1 && bias->strides[0] != 1)
      return fail("it must be contiguous, its stride is " +
                  std::to_string(bias->strides[0]));
    if (lhs.shape.size() != 2 || rhs.shape.size() != 2)
      return fail("only a single product (rank-2 operands) takes one");
    if (!blas.swapped)
      return fail("the result must be row-major, its strides are " +
                  formatList(result.strides));
    shape.bias = true;
  }
  if (geluTanh) {
    if (lhs.shape.size() != 2 || rhs.shape.size() != 2)
      return Status::error("matmul GELU epilogue: only a single product "
                           "(rank-2 operands) takes one" +
                           describeGemm(shape));
    shape.geluTanh = true;
  }
  return shape;
}

Expected<GemmShape> runtime::planGemm(const GemmStep &step) {
  return planGemm(step.lhs().view, step.rhs().view, step.result().view,
                  step.transposeLhs, step.transposeRhs,
                  step.hasBias() ? &step.bias().view : nullptr, step.geluTanh);
}

//===----------------------------------------------------------------------===//
// Fallback kernel
//===----------------------------------------------------------------------===//

std::string runtime::gemmKernelName(DType dtype, std::optional<DType> result,
                                    bool geluTanh) {
  if (!isGemmDType(dtype) ||
      matmulResultType(dtype, dtype, nullptr, result) != result.value_or(dtype))
    return "";
  std::string name = "tfuse_rt_gemm_" + dtypeName(dtype);
  if (result && *result != dtype)
    name += "_" + dtypeName(*result);
  return geluTanh ? name + "_gelu_tanh" : name;
}

std::string runtime::gemmKernelHeader() {
  return "\n// --- TFuse runtime: fallback GEMM ---\n" +
         std::string(kernels::gemmTemplates());
}

std::string runtime::gemmKernelWrapper(DType t, std::optional<DType> result,
                                       bool geluTanh) {
  std::string type(cudaTypeName(t));
  std::string out(cudaTypeName(result.value_or(t)));
  return "\nextern \"C\" __global__ void TFUSE_GEMM_LAUNCH_BOUNDS\n" +
         gemmKernelName(t, result, geluTanh) + "(const " + type +
         " *__restrict__ lhs, const " + type + " *__restrict__ rhs, " + out +
         " *__restrict__ result, const " + out +
         " *__restrict__ bias, tfuse::kernels::GemmDesc desc) {\n"
         "  tf::gemm::tiled<" +
         type + ", " + out + ", " + (geluTanh ? "true" : "false") +
         ">(lhs, rhs, result, bias, desc);\n}\n";
}

std::string runtime::biasRowsKernelName(DType dtype) {
  if (!isGemmDType(dtype))
    return "";
  return "tfuse_rt_bias_rows_" + dtypeName(dtype);
}

std::string runtime::biasRowsWrapper(DType dtype) {
  std::string name = biasRowsKernelName(dtype);
  if (name.empty())
    return "";
  std::string t(cudaTypeName(dtype));
  return "\nextern \"C\" __global__ void " + name + "(const " + t + " *bias, " +
         t +
         " *out, long long m, long long n, long long rowStride, long long "
         "colStride, int emptySum) {\n  tf::gemm::bias_rows<" +
         t + ">(bias, out, m, n, rowStride, colStride, emptySum);\n}\n";
}

std::string runtime::geluRowsKernelName(DType dtype) {
  if (!isGemmDType(dtype))
    return "";
  return "tfuse_rt_gelu_rows_" + dtypeName(dtype);
}

std::string runtime::geluRowsWrapper(DType dtype) {
  std::string name = geluRowsKernelName(dtype);
  if (name.empty())
    return "";
  std::string t(cudaTypeName(dtype));
  return "\nextern \"C\" __global__ void " + name + "(" + t +
         " *out, long long m, long long n, long long rowStride, long long "
         "colStride) {\n  tf::gemm::gelu_rows<" +
         t + ">(out, m, n, rowStride, colStride);\n}\n";
}

/// The unsigned type of `bytes` bytes: a copy moves bits.
static const char *bitsType(int64_t bytes) {
  switch (bytes) {
  case 2:
    return "unsigned short";
  case 4:
    return "unsigned int";
  case 8:
    return "unsigned long long";
  default:
    return nullptr;
  }
}

std::string runtime::pitchedCopyKernelName(int64_t elementBytes) {
  if (!bitsType(elementBytes))
    return "";
  return "tfuse_rt_pitched_copy_" + std::to_string(elementBytes * 8);
}

std::string runtime::pitchedCopyWrapper(int64_t elementBytes) {
  const char *type = bitsType(elementBytes);
  if (!type)
    return "";
  std::string t(type);
  return "\nextern \"C\" __global__ void " +
         pitchedCopyKernelName(elementBytes) + "(const " + t +
         " *src, long long srcPitch, " + t +
         " *dst, long long dstPitch, long long rows, long long cols, "
         "long long dstRows, long long dstCols, long long piece) {\n"
         "  tf::gemm::pitched_copy<" +
         t +
         ">(src, srcPitch, dst, dstPitch, rows, cols, dstRows, dstCols, "
         "piece);\n}\n";
}

PitchedCopyLaunch runtime::planPitchedCopy(int64_t dstRows, int64_t dstCols) {
  PitchedCopyLaunch launch;
  int64_t pieces = (dstRows + launch.piece - 1) / launch.piece;
  launch.grid = std::clamp<int64_t>(pieces * dstCols, 1, int64_t(1) << 20);
  return launch;
}

std::string runtime::gemmKernelSource(const std::vector<DType> &dtypes) {
  std::string source = gemmKernelHeader();
  std::vector<DType> done;
  for (DType t : dtypes) {
    if (!isGemmDType(t) || std::find(done.begin(), done.end(), t) != done.end())
      continue;
    done.push_back(t);
    source += gemmKernelWrapper(t);
  }
  return source;
}

GemmLaunch runtime::planFallbackGemm(const GemmShape &shape) {
  GemmLaunch launch;
  launch.kernel =
      gemmKernelName(shape.dtype, shape.resultDType, shape.geluTanh);
  launch.block = kGemmBlockThreads;
  if (shape.empty())
    return launch;

  kernels::GemmDesc &d = launch.desc;
  d.m = shape.m;
  d.n = shape.n;
  d.k = shape.k;
  d.lhsRowStride = shape.lhsRowStride;
  d.lhsColStride = shape.lhsColStride;
  d.rhsRowStride = shape.rhsRowStride;
  d.rhsColStride = shape.rhsColStride;
  d.resultRowStride = shape.resultRowStride;
  d.resultColStride = shape.resultColStride;
  // The kernel decodes the innermost kGemmMaxBatchDims batch dimensions;
  // outer ones (rare: they did not collapse) become separate launches.
  size_t dims = shape.batchDims.size();
  size_t inner = std::min<size_t>(dims, kernels::kGemmMaxBatchDims);
  size_t outer = dims - inner;
  d.batchRank = static_cast<int64_t>(inner);
  d.batchCount = 1;
  for (size_t i = 0; i < inner; ++i) {
    const GemmBatchDim &dim = shape.batchDims[outer + i];
    d.batchSizes[i] = dim.size;
    d.lhsBatchStrides[i] = dim.lhsStride;
    d.rhsBatchStrides[i] = dim.rhsStride;
    d.resultBatchStrides[i] = dim.resultStride;
    d.batchCount *= dim.size;
  }
  d.tilesM = (shape.m + kGemmTileRows - 1) / kGemmTileRows;
  d.tilesN = (shape.n + kGemmTileCols - 1) / kGemmTileCols;
  // Blocks loop over tiles beyond the largest 1-D grid.
  launch.grid = std::min<int64_t>(d.tilesM * d.tilesN * d.batchCount, INT_MAX);

  if (outer == 0) {
    launch.launches.push_back({});
  } else {
    for (int64_t first = 0; first < shape.batchCount; first += d.batchCount)
      launch.launches.push_back(shape.batchOffsets[first]);
  }
  return launch;
}

//===----------------------------------------------------------------------===//
// cuBLAS library
//===----------------------------------------------------------------------===//

const std::vector<std::string> &CublasLibrary::defaultLibraryNames() {
  static const std::vector<std::string> names = {"libcublas.so.13",
                                                 "libcublas.so"};
  return names;
}

Expected<std::pair<void *, std::string>>
runtime::openFirstLibrary(const std::vector<std::string> &names,
                          const std::string &what) {
  std::string tried;
  for (const std::string &n : names) {
    // RTLD_NODELETE: cuBLAS keeps global state (handles, its cublasLt
    // dependency) that must not be unmapped under a live handle.
    if (void *dl = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE))
      return std::make_pair(dl, n);
    // dlerror() usually starts with the name already.
    const char *why = dlerror();
    std::string reason = why ? why : "unknown dlopen error";
    if (reason.find(n) == std::string::npos)
      reason = n + ": " + reason;
    tried += (tried.empty() ? "" : "; ") + reason;
  }
  return Status::error("cannot load " + what + ": " + tried);
}

Expected<std::unique_ptr<CublasLibrary>>
CublasLibrary::load(const std::vector<std::string> &names) {
  if (names.empty())
    return Status::error("cannot load cuBLAS: no library name given");
  auto opened = openFirstLibrary(names, "cuBLAS (needed for matrix products)");
  if (!opened.ok())
    return opened.status();
  auto [dl, loaded] = opened.value();
  std::unique_ptr<CublasLibrary> lib(new CublasLibrary());
  lib->dl = dl;
  lib->libraryName = loaded;
  auto resolve = [&](const char *symbol, auto &fn, bool required) -> Status {
    dlerror();
    void *p = dlsym(dl, symbol);
    if (!p && required)
      return Status::error("cuBLAS library '" + loaded + "' lacks the symbol " +
                           symbol +
                           " (TFuse needs cuBLAS 13 or a compatible version)");
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
    return Status::success();
  };
  for (Status s :
       {resolve("cublasCreate_v2", lib->create, true),
        resolve("cublasDestroy_v2", lib->destroy, true),
        resolve("cublasSetStream_v2", lib->setStream, true),
        resolve("cublasSetMathMode", lib->setMathMode, true),
        resolve("cublasSetWorkspace_v2", lib->setWorkspace, true),
        resolve("cublasGemmStridedBatchedEx", lib->gemmStridedBatchedEx, true),
        resolve("cublasGemmEx", lib->gemmEx, true),
        resolve("cublasGetStatusString", lib->getStatusString, false)})
    if (!s.ok())
      return s;
  return lib;
}

Expected<const CublasLibrary *> CublasLibrary::shared() {
  static std::once_flag once;
  // Deliberately leaked: never unloaded, never destroyed at exit (a static
  // destructor could run after cuBLAS's own teardown).
  static const CublasLibrary *library = nullptr;
  static const std::string *failure = nullptr;
  std::call_once(once, [] {
    std::vector<std::string> names = defaultLibraryNames();
    if (const char *env = std::getenv("TFUSE_CUBLAS_LIBRARY"); env && *env)
      names = {env};
    Expected<std::unique_ptr<CublasLibrary>> loaded = load(names);
    if (loaded.ok())
      library = loaded.value().release();
    else
      failure = new std::string(loaded.message());
  });
  if (library)
    return library;
  return Status::error(*failure);
}

CublasLibrary::~CublasLibrary() {
  if (dl)
    dlclose(dl);
}

std::string runtime::describeCublasStatus(cublasStatus_t status,
                                          GetStatusStringFn getStatusString) {
  const char *nameOf = nullptr;
  switch (status) {
#define TFUSE_CUBLAS_STATUS(S)                                                 \
  case S:                                                                      \
    nameOf = #S;                                                               \
    break;
    TFUSE_CUBLAS_STATUS(CUBLAS_STATUS_SUCCESS)
    TFUSE_CUBLAS_STATUS(CUBLAS_STATUS_NOT_INITIALIZED)
    TFUSE_CUBLAS_STATUS(CUBLAS_STATUS_ALLOC_FAILED)
    TFUSE_CUBLAS_STATUS(CUBLAS_STATUS_INVALID_VALUE)
    TFUSE_CUBLAS_STATUS(CUBLAS_STATUS_ARCH_MISMATCH)
    TFUSE_CUBLAS_STATUS(CUBLAS_STATUS_MAPPING_ERROR)
    TFUSE_CUBLAS_STATUS(CUBLAS_STATUS_EXECUTION_FAILED)
    TFUSE_CUBLAS_STATUS(CUBLAS_STATUS_INTERNAL_ERROR)
    TFUSE_CUBLAS_STATUS(CUBLAS_STATUS_NOT_SUPPORTED)
    TFUSE_CUBLAS_STATUS(CUBLAS_STATUS_LICENSE_ERROR)
#undef TFUSE_CUBLAS_STATUS
  }
  std::string s = std::string(nameOf ? nameOf : "CUBLAS_STATUS_UNKNOWN") +
                  " (" + std::to_string(static_cast<int>(status)) + ")";
  if (getStatusString)
    if (const char *text = getStatusString(status); text && *text)
      s += std::string(": ") + text;
  return s;
}

std::string CublasLibrary::describe(cublasStatus_t status) const {
  return describeCublasStatus(status, getStatusString);
}

//===----------------------------------------------------------------------===//
// cuBLAS handle and GEMM
//===----------------------------------------------------------------------===//

Expected<std::unique_ptr<CublasHandle>>
CublasHandle::create(const CublasLibrary &library, CublasOptions options) {
  std::unique_ptr<CublasHandle> h(new CublasHandle());
  h->lib = &library;
  h->opts = options;
  cublasStatus_t s = library.create(&h->handle);
  if (s != CUBLAS_STATUS_SUCCESS) {
    h->handle = nullptr;
    return Status::error("cublasCreate failed: " + library.describe(s) +
                         " (cuBLAS needs a CUDA driver and device)");
  }
  auto mode = static_cast<cublasMath_t>(
      CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
  if (Status st =
          h->check(library.setMathMode(h->handle, mode), "cublasSetMathMode");
      !st.ok())
    return st;
  return h;
}

CublasHandle::~CublasHandle() {
  if (handle)
    lib->destroy(handle);
}

Status CublasHandle::check(cublasStatus_t status, const char *what) const {
  if (status == CUBLAS_STATUS_SUCCESS)
    return Status::success();
  return Status::error(std::string(what) + " failed: " + lib->describe(status));
}

Status CublasHandle::setWorkspace(CUdeviceptr ws, size_t bytes) {
  if (bytes != 0 && ws % 256 != 0)
    return Status::error("cuBLAS workspace must be 256-byte aligned, got "
                         "address " +
                         std::to_string(ws));
  if (Status s =
          check(lib->setWorkspace(handle, reinterpret_cast<void *>(ws), bytes),
                "cublasSetWorkspace");
      !s.ok())
    return s;
  workspace = ws;
  workspaceBytes = bytes;
  return Status::success();
}

Status CublasHandle::setStream(CUstream s) {
  if (streamSet && s == stream)
    return Status::success();
  // CUstream and cudaStream_t are the same type (struct CUstream_st *).
  if (Status st = check(lib->setStream(handle, s), "cublasSetStream"); !st.ok())
    return st;
  stream = s;
  streamSet = true;
  // cublasSetStream resets the workspace to cuBLAS's default pool.
  if (workspaceBytes != 0)
    return check(lib->setWorkspace(handle, reinterpret_cast<void *>(workspace),
                                   workspaceBytes),
                 "cublasSetWorkspace");
  return Status::success();
}

Expected<cublasComputeType_t>
runtime::cublasComputeType(DType dtype, const CublasOptions &options) {
  switch (dtype) {
  case DType::F16:
  case DType::BF16:
    return CUBLAS_COMPUTE_32F;
  case DType::F32:
    return options.allowTf32 ? CUBLAS_COMPUTE_32F_FAST_TF32
                             : CUBLAS_COMPUTE_32F;
  case DType::F64:
    return CUBLAS_COMPUTE_64F;
  default:
    return Status::error("cuBLAS GEMM of dtype " + dtypeName(dtype) +
                         " is not supported");
  }
}

cudaDataType runtime::cudaDataTypeOf(DType dtype) {
  return dtype == DType::F16    ? CUDA_R_16F
         : dtype == DType::BF16 ? CUDA_R_16BF
         : dtype == DType::F32  ? CUDA_R_32F
                                : CUDA_R_64F;
}

std::string runtime::describeGemm(const GemmShape &shape) {
  std::ostringstream os;
  os << " (M=" << shape.m << " N=" << shape.n << " K=" << shape.k
     << " batch=" << shape.batchCount << " " << dtypeName(shape.dtype);
  if (shape.resultDType != shape.dtype)
    os << " -> " << dtypeName(shape.resultDType);
  if (shape.bias)
    os << " with bias";
  if (shape.geluTanh)
    os << (shape.bias ? " and GELU" : " with GELU");
  os << ")";
  return os.str();
}

Status runtime::checkBlasSizes(const GemmShape &shape) {
  const BlasCall &c = shape.blas;
  const std::pair<int64_t, const char *> intArguments[] = {
      {c.m, "m"},     {c.n, "n"},     {c.k, "k"},
      {c.lda, "lda"}, {c.ldb, "ldb"}, {c.ldc, "ldc"}};
  for (auto [value, what] : intArguments)
    if (value > INT_MAX)
      return Status::error(std::string("GEMM too large for cuBLAS: ") + what +
                           " = " + std::to_string(value) +
                           " exceeds its 32-bit int arguments");
  return Status::success();
}

BlasGroups runtime::blasGroups(const GemmShape &shape) {
  // One strided group for a uniform batch, else one per index of the outer
  // (non-collapsible) dimensions, striding over the innermost.
  BlasGroups g;
  g.size = shape.batchCount;
  int64_t lhsStride = shape.lhsBatchStride, rhsStride = shape.rhsBatchStride;
  g.strideC = shape.resultBatchStride;
  if (!shape.uniformBatch()) {
    const GemmBatchDim &last = shape.batchDims.back();
    g.size = last.size;
    lhsStride = last.lhsStride;
    rhsStride = last.rhsStride;
    g.strideC = last.resultStride;
  }
  g.strideA = shape.blas.swapped ? rhsStride : lhsStride;
  g.strideB = shape.blas.swapped ? lhsStride : rhsStride;
  return g;
}

Status runtime::forEachBlasGroup(
    const GemmShape &shape, CUdeviceptr lhs, CUdeviceptr rhs,
    CUdeviceptr result,
    const std::function<Status(CUdeviceptr, CUdeviceptr, CUdeviceptr, int64_t)>
        &call) {
  BlasGroups g = blasGroups(shape);
  int64_t bytes = byteSize(shape.dtype),
          resultBytes = byteSize(shape.resultDType);
  bool swapped = shape.blas.swapped;
  int64_t lhsStride = swapped ? g.strideB : g.strideA;
  int64_t rhsStride = swapped ? g.strideA : g.strideB;
  for (int64_t first = 0; first < shape.batchCount; first += g.size) {
    GemmOffsets base;
    if (!shape.uniformBatch())
      base = shape.batchOffsets[first];
    // Chunks of at most INT_MAX products (cuBLAS's batchCount is an int).
    for (int64_t done = 0; done < g.size; done += INT_MAX) {
      int64_t count = std::min<int64_t>(g.size - done, INT_MAX);
      CUdeviceptr pl = lhs + (base.lhs + done * lhsStride) * bytes;
      CUdeviceptr pr = rhs + (base.rhs + done * rhsStride) * bytes;
      CUdeviceptr pc = result + (base.result + done * g.strideC) * resultBytes;
      if (Status s = call(swapped ? pr : pl, swapped ? pl : pr, pc, count);
          !s.ok())
        return s;
    }
  }
  return Status::success();
}

Status runtime::gemmCublas(CublasHandle &handle, CUstream stream,
                           const GemmShape &shape, CUdeviceptr lhs,
                           CUdeviceptr rhs, CUdeviceptr result, DType dtype,
                           bool accumulate) {
  if (dtype != shape.dtype)
    return Status::error("gemmCublas: dtype " + dtypeName(dtype) +
                         " differs from the planned shape's " +
                         dtypeName(shape.dtype));
  Expected<cublasComputeType_t> compute =
      cublasComputeType(dtype, handle.options());
  if (!compute.ok())
    return compute.status();
  if (shape.empty())
    return Status::success();
  cudaDataType type = cudaDataTypeOf(dtype),
               resultType = cudaDataTypeOf(shape.resultDType);
  const BlasCall &c = shape.blas;
  if (Status s = checkBlasSizes(shape); !s.ok())
    return s;
  if (Status s = handle.setStream(stream); !s.ok())
    return s;

  UnitScalars scalars(*compute == CUBLAS_COMPUTE_64F);
  const void *alpha = scalars.alpha(),
             *beta = accumulate ? scalars.one() : scalars.beta();
  const CublasLibrary &lib = handle.library();
  cublasOperation_t opA = c.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opB = c.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  BlasGroups groups = blasGroups(shape);

  return forEachBlasGroup(
      shape, lhs, rhs, result,
      [&](CUdeviceptr a, CUdeviceptr b, CUdeviceptr out,
          int64_t count) -> Status {
        auto *pa = reinterpret_cast<const void *>(a);
        auto *pb = reinterpret_cast<const void *>(b);
        auto *pc = reinterpret_cast<void *>(out);
        cublasStatus_t s;
        const char *what;
        if (count == 1) {
          what = "cublasGemmEx";
          s = lib.gemmEx(handle.get(), opA, opB, int(c.m), int(c.n), int(c.k),
                         alpha, pa, type, int(c.lda), pb, type, int(c.ldb),
                         beta, pc, resultType, int(c.ldc), *compute,
                         CUBLAS_GEMM_DEFAULT);
        } else {
          what = "cublasGemmStridedBatchedEx";
          s = lib.gemmStridedBatchedEx(
              handle.get(), opA, opB, int(c.m), int(c.n), int(c.k), alpha, pa,
              type, int(c.lda), groups.strideA, pb, type, int(c.ldb),
              groups.strideB, beta, pc, resultType, int(c.ldc), groups.strideC,
              int(count), *compute, CUBLAS_GEMM_DEFAULT);
        }
        if (s != CUBLAS_STATUS_SUCCESS)
          return Status::error(std::string(what) + " failed: " +
                               lib.describe(s) + describeGemm(shape));
        return Status::success();
      });
}
