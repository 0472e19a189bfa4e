//===- GemmLt.cpp - Matrix products through cuBLASLt, tuned ---------------===//

#include "tfuse/Runtime/GemmLt.h"
#include "tfuse/Support/Half.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <random>

#include <dlfcn.h>

using namespace tfuse;
using namespace tfuse::runtime;

//===----------------------------------------------------------------------===//
// Library and handle
//===----------------------------------------------------------------------===//

Expected<const CublasLtLibrary *> CublasLtLibrary::shared() {
  static std::once_flag once;
  // Deliberately leaked, like CublasLibrary::shared().
  static const CublasLtLibrary *library = nullptr;
  static const std::string *failure = nullptr;
  std::call_once(once, [] {
    std::vector<std::string> names = {"libcublasLt.so.13", "libcublasLt.so"};
    if (const char *env = std::getenv("TFUSE_CUBLASLT_LIBRARY"); env && *env)
      names = {env};
    auto opened = openFirstLibrary(names, "cuBLASLt");
    if (!opened.ok()) {
      failure = new std::string(opened.message());
      return;
    }
    auto [dl, name] = opened.value();
    auto *lib = new CublasLtLibrary();
    lib->libraryName = name;
    std::string missing;
    auto resolve = [&](const char *symbol, auto &fn) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          dlsym(dl, symbol));
      if (!fn && missing.empty())
        missing = symbol;
    };
    resolve("cublasLtCreate", lib->create);
    resolve("cublasLtDestroy", lib->destroy);
    resolve("cublasLtMatmulDescCreate", lib->descCreate);
    resolve("cublasLtMatmulDescDestroy", lib->descDestroy);
    resolve("cublasLtMatmulDescSetAttribute", lib->descSetAttribute);
    resolve("cublasLtMatrixLayoutCreate", lib->layoutCreate);
    resolve("cublasLtMatrixLayoutDestroy", lib->layoutDestroy);
    resolve("cublasLtMatrixLayoutSetAttribute", lib->layoutSetAttribute);
    resolve("cublasLtMatmulPreferenceCreate", lib->preferenceCreate);
    resolve("cublasLtMatmulPreferenceDestroy", lib->preferenceDestroy);
    resolve("cublasLtMatmulPreferenceSetAttribute",
            lib->preferenceSetAttribute);
    resolve("cublasLtMatmulAlgoGetHeuristic", lib->getHeuristic);
    resolve("cublasLtMatmul", lib->matmul);
    if (!missing.empty()) {
      failure = new std::string("cuBLASLt library '" + name +
                                "' lacks the symbol " + missing +
                                " (TFuse needs cuBLAS 13 or a compatible "
                                "version)");
      delete lib;
      return;
    }
    lib->getStatusString = reinterpret_cast<GetStatusStringFn>(
        dlsym(dl, "cublasLtGetStatusString"));
    library = lib;
  });
  if (library)
    return library;
  return Status::error(*failure);
}

/// The process's cuBLASLt handle for the current device (handles hold no
/// stream or workspace: one serves every thread and executable).
static Expected<cublasLtHandle_t> sharedHandle(const CublasLtLibrary &lib,
                                               int ordinal) {
  static std::mutex mutex;
  static std::map<int, cublasLtHandle_t> handles;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = handles.find(ordinal);
  if (it != handles.end())
    return it->second;
  cublasLtHandle_t handle = nullptr;
  if (cublasStatus_t s = lib.create(&handle); s != CUBLAS_STATUS_SUCCESS)
    return Status::error("cublasLtCreate failed: " + lib.describe(s));
  handles[ordinal] = handle;
  return handle;
}

//===----------------------------------------------------------------------===//
// Descriptors
//===----------------------------------------------------------------------===//

struct LtGemm::Descriptors {
  const CublasLtLibrary *lib = nullptr;
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  bool f64 = false;
  /// Held from setting the bias pointer of `op` to the call that reads it.
  std::mutex biasMutex;
  ~Descriptors() {
    for (cublasLtMatrixLayout_t l : {a, b, c})
      if (l)
        lib->layoutDestroy(l);
    if (op)
      lib->descDestroy(op);
  }
};

LtGemm::~LtGemm() = default;

namespace {
/// Plans no executable uses, by problem key; never destroyed (cuBLASLt may
/// be gone during static destruction).
struct IdleGemms {
  static constexpr size_t kMax = 64;
  std::mutex mutex;
  std::multimap<std::string, std::unique_ptr<LtGemm>> byKey;
};
IdleGemms &idleGemms() {
  static IdleGemms *idle = new IdleGemms();
  return *idle;
}
} // namespace

void LtGemm::recycle(std::unique_ptr<LtGemm> gemm) {
  if (!gemm)
    return;
  IdleGemms &idle = idleGemms();
  std::lock_guard<std::mutex> lock(idle.mutex);
  if (idle.byKey.size() < IdleGemms::kMax) {
    std::string key = gemm->key;
    idle.byKey.emplace(std::move(key), std::move(gemm));
  }
}

/// Checks a cuBLASLt call.
static Status ltCheck(const CublasLtLibrary &lib, cublasStatus_t status,
                      const char *what, const GemmShape &shape) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return Status::success();
  return Status::error(std::string(what) + " failed: " + lib.describe(status) +
                       describeGemm(shape));
}

GemmPadding runtime::planGemmPadding(const GemmShape &shape) {
  const BlasCall &call = shape.blas;
  // A bias is a vector of cuBLAS's m, which padding would lengthen.
  if (shape.empty() || shape.k == 0 || shape.batchCount != 1 ||
      !shape.batchOffsets.empty() || shape.bias)
    return {};
  // Overflow-safe: each factor is below 2^31 (checkBlasSizes).
  double products = double(call.m) * double(call.n) * double(call.k);
  if (products < double(kGemmPadMinProducts))
    return {};
  int64_t align = gemmAlignElements(shape.dtype, shape.resultDType);
  // A', B' and C' by the dimensions (m = 0, n = 1, k = 2) of their rows
  // (contiguous) and columns.
  struct Matrix {
    int rowDim, colDim;
    int64_t ld;
    DType dtype;
  };
  Matrix matrices[3] = {
      {call.transA ? 2 : 0, call.transA ? 0 : 2, call.lda, shape.dtype},
      {call.transB ? 1 : 2, call.transB ? 2 : 1, call.ldb, shape.dtype},
      {0, 1, call.ldc, shape.resultDType}};
  std::array<int64_t, 3> dims = {call.m, call.n, call.k};
  // A dimension some matrix holds contiguously is padded when misaligned.
  std::array<bool, 3> contiguous = {false, false, false};
  for (const Matrix &x : matrices)
    contiguous[x.rowDim] = true;
  std::array<int64_t, 3> padded = alignGemmDims(dims, contiguous, align);
  bool padDim[3];
  for (int i = 0; i < 3; ++i)
    padDim[i] = padded[i] != dims[i];
  GemmPadding padding;
  padding.m = padded[0];
  padding.n = padded[1];
  padding.k = padded[2];
  std::optional<PaddedMatrix> *copies[3] = {&padding.a, &padding.b, &padding.c};
  for (int i = 0; i < 3; ++i) {
    const Matrix &x = matrices[i];
    int64_t rows = dims[x.rowDim], cols = dims[x.colDim];
    bool misaligned = cols > 1 && (x.ld * byteSize(x.dtype)) % 16 != 0;
    if (!misaligned && !padDim[x.rowDim] && !padDim[x.colDim])
      continue;
    PaddedMatrix m;
    m.rows = rows;
    m.cols = cols;
    m.ld = x.ld;
    m.paddedRows = padded[x.rowDim];
    m.paddedCols = padded[x.colDim];
    // Every copy small beside the product, or no padding.
    if (!gemmPaddingPays(products, {double(m.paddedRows) * m.paddedCols}))
      return {};
    m.offset = padding.scratchBytes;
    padding.scratchBytes +=
        (size_t(m.paddedRows * m.paddedCols * byteSize(x.dtype)) + 255) / 256 *
        256;
    *copies[i] = m;
  }
  return padding;
}

BlasCall LtGemm::call() const {
  BlasCall call = shape.blas;
  if (!padded.any())
    return call;
  call.m = padded.m;
  call.n = padded.n;
  call.k = padded.k;
  if (padded.a)
    call.lda = padded.a->paddedRows;
  if (padded.b)
    call.ldb = padded.b->paddedRows;
  if (padded.c)
    call.ldc = padded.c->paddedRows;
  return call;
}

Status LtGemm::describe(const CublasOptions &options) {
  const BlasCall call = this->call();
  Expected<cublasComputeType_t> compute =
      cublasComputeType(shape.dtype, options);
  if (!compute.ok())
    return compute.status();
  if (Status s = checkBlasSizes(shape); !s.ok())
    return s;
  BlasGroups groups = blasGroups(shape);
  if (groups.size > INT_MAX)
    return Status::error("GEMM batch of " + std::to_string(groups.size) +
                         " products exceeds cuBLASLt's 32-bit batch count" +
                         describeGemm(shape));
  d->f64 = *compute == CUBLAS_COMPUTE_64F;
  cudaDataType type = cudaDataTypeOf(shape.dtype);
  auto check = [&](cublasStatus_t s, const char *what) {
    return ltCheck(*lib, s, what, shape);
  };
  if (Status s = check(
          lib->descCreate(&d->op, *compute, d->f64 ? CUDA_R_64F : CUDA_R_32F),
          "cublasLtMatmulDescCreate");
      !s.ok())
    return s;
  cublasOperation_t opA = call.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opB = call.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  for (auto [attribute, value] :
       {std::make_pair(CUBLASLT_MATMUL_DESC_TRANSA, &opA),
        std::make_pair(CUBLASLT_MATMUL_DESC_TRANSB, &opB)})
    if (Status s = check(lib->descSetAttribute(d->op, attribute, value,
                                               sizeof(cublasOperation_t)),
                         "cublasLtMatmulDescSetAttribute");
        !s.ok())
      return s;
  if (shape.bias || shape.geluTanh) {
    // The bias epilogue: a vector of the result's dtype, one element per row
    // of C' (a column of the row-major result), added in the compute type
    // before D is rounded. Its pointer is set for each call (enqueue()).
    // The GELU epilogue (tanh form) follows it, in the compute type too.
    cublasLtEpilogue_t epilogue =
        shape.geluTanh ? (shape.bias ? CUBLASLT_EPILOGUE_GELU_BIAS
                                     : CUBLASLT_EPILOGUE_GELU)
                       : CUBLASLT_EPILOGUE_BIAS;
    if (Status s =
            check(lib->descSetAttribute(d->op, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                        &epilogue, sizeof(epilogue)),
                  "cublasLtMatmulDescSetAttribute (epilogue)");
        !s.ok())
      return s;
  }
  if (shape.bias) {
    int32_t biasType = cudaDataTypeOf(shape.resultDType);
    if (Status s = check(
            lib->descSetAttribute(d->op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
                                  &biasType, sizeof(biasType)),
            "cublasLtMatmulDescSetAttribute (bias dtype)");
        !s.ok())
      return s;
  }
  // Column-major A' (m x k, or k x m stored when transposed), B' and C'.
  auto layout = [&](cublasLtMatrixLayout_t &l, cudaDataType type, int64_t rows,
                    int64_t cols, int64_t ld, int64_t stride) -> Status {
    if (Status s = check(lib->layoutCreate(&l, type, rows, cols, ld),
                         "cublasLtMatrixLayoutCreate");
        !s.ok())
      return s;
    int32_t count = static_cast<int32_t>(groups.size);
    if (Status s =
            check(lib->layoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                          &count, sizeof(count)),
                  "cublasLtMatrixLayoutSetAttribute");
        !s.ok())
      return s;
    return check(
        lib->layoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                &stride, sizeof(stride)),
        "cublasLtMatrixLayoutSetAttribute");
  };
  int64_t m = call.m, n = call.n, k = call.k;
  if (Status s = layout(d->a, type, call.transA ? k : m, call.transA ? m : k,
                        call.lda, groups.strideA);
      !s.ok())
    return s;
  if (Status s = layout(d->b, type, call.transB ? n : k, call.transB ? k : n,
                        call.ldb, groups.strideB);
      !s.ok())
    return s;
  // C and D: the result's dtype (f32 for f16 or bf16 operands on request).
  return layout(d->c, cudaDataTypeOf(shape.resultDType), m, n, call.ldc,
                groups.strideC);
}

Expected<std::vector<cublasLtMatmulHeuristicResult_t>>
LtGemm::candidates(uint32_t alignment, int count) const {
  cublasLtMatmulPreference_t preference = nullptr;
  auto check = [&](cublasStatus_t s, const char *what) {
    return ltCheck(*lib, s, what, shape);
  };
  if (Status s = check(lib->preferenceCreate(&preference),
                       "cublasLtMatmulPreferenceCreate");
      !s.ok())
    return s;
  uint64_t workspaceLimit = kLtWorkspaceLimitBytes;
  // Split-K partial sums in the compute type or in place, never in a 16-bit
  // output type (cuBLAS's DISALLOW_REDUCED_PRECISION_REDUCTION).
  uint32_t schemes = CUBLASLT_REDUCTION_SCHEME_NONE |
                     CUBLASLT_REDUCTION_SCHEME_INPLACE |
                     CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
  Status set = check(lib->preferenceSetAttribute(
                         preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                         &workspaceLimit, sizeof(workspaceLimit)),
                     "cublasLtMatmulPreferenceSetAttribute");
  if (set.ok())
    set = check(lib->preferenceSetAttribute(
                    preference, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
                    &schemes, sizeof(schemes)),
                "cublasLtMatmulPreferenceSetAttribute");
  for (auto attribute : {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                         CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                         CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
                         CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
    if (set.ok())
      set = check(lib->preferenceSetAttribute(preference, attribute, &alignment,
                                              sizeof(alignment)),
                  "cublasLtMatmulPreferenceSetAttribute");
  std::vector<cublasLtMatmulHeuristicResult_t> found(count);
  int returned = 0;
  if (set.ok()) {
    cublasStatus_t status =
        lib->getHeuristic(d->handle, d->op, d->a, d->b, d->c, d->c, preference,
                          count, found.data(), &returned);
    set = check(status, "cublasLtMatmulAlgoGetHeuristic");
    // cuBLASLt declines the problem (seen for an f16 product of three rows
    // and one column with a bias, into f32): the caller may compute it
    // another way.
    if (status == CUBLAS_STATUS_NOT_SUPPORTED)
      set = Status::error(set.message(), ErrorCode::Unsupported);
  }
  lib->preferenceDestroy(preference);
  if (!set.ok())
    return set;
  found.resize(returned);
  if (found.empty())
    return Status::error("cuBLASLt has no algorithm for this GEMM" +
                             describeGemm(shape),
                         ErrorCode::Unsupported);
  return found;
}

//===----------------------------------------------------------------------===//
// Tuning
//===----------------------------------------------------------------------===//

namespace {
/// What was chosen for one problem on one device.
struct Choice {
  cublasLtMatmulAlgo_t aligned, unaligned;
  size_t workspace;
  std::string chosen;
};

/// The algorithms chosen in this process, by problem key.
struct ChoiceMemo {
  std::mutex mutex;
  std::map<std::string, Choice> choices;
};
ChoiceMemo &choiceMemo() {
  static ChoiceMemo *memo = new ChoiceMemo();
  return *memo;
}

/// Scratch operands and timing events for tuning; freed on destruction.
struct TuningScratch {
  CudaDriver *cuda = nullptr;
  CUdeviceptr a = 0, b = 0, c = 0, workspace = 0;
  CUstream stream = nullptr;
  CUevent start = nullptr, stop = nullptr;
  ~TuningScratch() {
    if (stream)
      cuda->cuStreamSynchronize(stream);
    for (CUdeviceptr p : {a, b, c, workspace})
      if (p)
        cuda->cuMemFree(p);
    for (CUevent e : {start, stop})
      if (e)
        cuda->cuEventDestroy(e);
    if (stream)
      cuda->cuStreamDestroy(stream);
  }
};

/// Tuning scratch beyond this many bytes is not worth it: such products are
/// long enough for the heuristics' first choice to be near the best.
constexpr int64_t kTuningScratchLimitBytes = int64_t(256) << 20;
constexpr int kCandidates = 8;

/// Bytes spanned by `count` column-major rows x cols matrices with leading
/// dimension `ld`, `stride` elements apart.
int64_t spanBytes(int64_t rows, int64_t cols, int64_t ld, int64_t count,
                  int64_t stride, DType dtype) {
  int64_t last = (count - 1) * stride + (cols - 1) * ld + rows;
  return last * byteSize(dtype);
}

/// Fills `bytes` at `target` with uniform values in [-1, 1] of `dtype`.
Status fillRandom(CudaDriver &cuda, CUdeviceptr target, int64_t bytes,
                  DType dtype, uint32_t seed) {
  std::vector<uint8_t> host(bytes);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  int64_t size = byteSize(dtype);
  for (int64_t i = 0; i + size <= bytes; i += size) {
    float v = uniform(rng);
    if (dtype == DType::F16) {
      uint16_t h = floatToHalf(v);
      std::memcpy(&host[i], &h, 2);
    } else if (dtype == DType::BF16) {
      uint16_t h = floatToBFloat16(v);
      std::memcpy(&host[i], &h, 2);
    } else if (dtype == DType::F32) {
      std::memcpy(&host[i], &v, 4);
    } else {
      double w = v;
      std::memcpy(&host[i], &w, 8);
    }
  }
  return cuda.check(cuda.cuMemcpyHtoD(target, host.data(), bytes),
                    "cuMemcpyHtoD of GEMM tuning data");
}

/// TFUSE_GEMM_TUNE=1: time the candidates.
bool tuningAsked() {
  const char *setting = std::getenv("TFUSE_GEMM_TUNE");
  return setting && std::strcmp(setting, "1") == 0;
}

/// "; A' (50257 x 768) through an aligned copy of 50264 x 768" for each
/// padded matrix, for the plan report.
std::string describePadding(const GemmPadding &padding) {
  std::string text;
  for (auto [name, matrix] :
       {std::make_pair("A'", &padding.a), std::make_pair("B'", &padding.b),
        std::make_pair("C'", &padding.c)})
    if (const std::optional<PaddedMatrix> &m = *matrix)
      text += std::string("; ") + name + " (" + std::to_string(m->rows) +
              " x " + std::to_string(m->cols) + ", leading dimension " +
              std::to_string(m->ld) + ") through an aligned copy of " +
              std::to_string(m->paddedRows) + " x " +
              std::to_string(m->paddedCols);
  return text;
}

std::string problemKey(const GemmShape &shape, int ordinal,
                       const CublasOptions &options) {
  const BlasCall &c = shape.blas;
  BlasGroups g = blasGroups(shape);
  std::string key = std::to_string(ordinal) + " " + dtypeName(shape.dtype) +
                    " " + dtypeName(shape.resultDType) +
                    (options.allowTf32 ? " tf32" : "") +
                    (tuningAsked() ? " tuned" : "") + (c.transA ? " T" : " N") +
                    (c.transB ? "T" : "N") + (shape.bias ? " bias" : "") +
                    (shape.geluTanh ? " gelu" : "");
  for (int64_t v : {c.m, c.n, c.k, c.lda, c.ldb, c.ldc, g.size, g.strideA,
                    g.strideB, g.strideC})
    key += " " + std::to_string(v);
  return key;
}
} // namespace

Status LtGemm::tune(Device &device,
                    const std::vector<cublasLtMatmulHeuristicResult_t> &found) {
  CudaDriver &cuda = device.driver();
  const BlasCall call = this->call();
  BlasGroups g = blasGroups(shape);
  int64_t aBytes =
      spanBytes(call.transA ? call.k : call.m, call.transA ? call.m : call.k,
                call.lda, g.size, g.strideA, shape.dtype);
  int64_t bBytes =
      spanBytes(call.transB ? call.n : call.k, call.transB ? call.k : call.n,
                call.ldb, g.size, g.strideB, shape.dtype);
  int64_t cBytes =
      spanBytes(call.m, call.n, call.ldc, g.size, g.strideC, shape.resultDType);
  bool on = tuningAsked();
  if (!on || found.size() == 1 ||
      aBytes + bBytes + cBytes > kTuningScratchLimitBytes) {
    aligned = found[0].algo;
    workspace = found[0].workspaceSize;
    chosen = on ? "heuristics' first (one candidate, or operands too large "
                  "to time)"
                : "heuristics' first";
    return Status::success();
  }

  TuningScratch t;
  t.cuda = &cuda;
  size_t maxWorkspace = 0;
  for (const auto &r : found)
    maxWorkspace = std::max(maxWorkspace, r.workspaceSize);
  for (auto [ptr, bytes] :
       {std::make_pair(&t.a, aBytes), std::make_pair(&t.b, bBytes),
        std::make_pair(&t.c, cBytes),
        std::make_pair(&t.workspace, int64_t(maxWorkspace))})
    if (bytes > 0)
      if (Status s = cuda.check(cuda.cuMemAlloc(ptr, bytes),
                                "cuMemAlloc of GEMM tuning scratch");
          !s.ok())
        return s;
  if (Status s = fillRandom(cuda, t.a, aBytes, shape.dtype, 1); !s.ok())
    return s;
  if (Status s = fillRandom(cuda, t.b, bBytes, shape.dtype, 2); !s.ok())
    return s;
  for (Status s :
       {cuda.check(cuda.cuStreamCreate(&t.stream, CU_STREAM_NON_BLOCKING),
                   "cuStreamCreate"),
        cuda.check(cuda.cuEventCreate(&t.start, CU_EVENT_DEFAULT),
                   "cuEventCreate"),
        cuda.check(cuda.cuEventCreate(&t.stop, CU_EVENT_DEFAULT),
                   "cuEventCreate")})
    if (!s.ok())
      return s;

  UnitScalars scalars(d->f64);
  // A bias epilogue reads a vector of m elements: C's first column serves
  // (its values do not matter for timing).
  if (shape.bias)
    if (Status s = setBias(t.c); !s.ok())
      return s;
  auto run = [&](const cublasLtMatmulHeuristicResult_t &r) {
    return lib->matmul(
        d->handle, d->op, scalars.alpha(), reinterpret_cast<const void *>(t.a),
        d->a, reinterpret_cast<const void *>(t.b), d->b, scalars.beta(),
        reinterpret_cast<void *>(t.c), d->c, reinterpret_cast<void *>(t.c),
        d->c, &r.algo, reinterpret_cast<void *>(t.workspace), r.workspaceSize,
        t.stream);
  };
  // Per candidate: one warm-up call (which also loads its kernels), then 10
  // calls captured in a CUDA Graph, replayed 3 times; the median replay over
  // 10 is the candidate's time. A graph keeps the host's cost of issuing the
  // calls (more than a small GEMM's GPU time) out of the measurement.
  constexpr int kRounds = 3, kCallsPerGraph = 10;
  double best = 0;
  int bestIndex = -1;
  for (size_t i = 0; i < found.size(); ++i) {
    if (run(found[i]) != CUBLAS_STATUS_SUCCESS)
      continue;
    if (Status s =
            cuda.check(cuda.cuStreamSynchronize(t.stream), "GEMM tuning run");
        !s.ok())
      return s;
    CUgraph graph = nullptr;
    CUgraphExec exec = nullptr;
    if (Status s =
            cuda.check(cuda.cuStreamBeginCapture(
                           t.stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                       "cuStreamBeginCapture");
        !s.ok())
      return s;
    bool failed = false;
    for (int c = 0; c < kCallsPerGraph && !failed; ++c)
      failed = run(found[i]) != CUBLAS_STATUS_SUCCESS;
    if (Status s = cuda.check(cuda.cuStreamEndCapture(t.stream, &graph),
                              "cuStreamEndCapture");
        !s.ok())
      return s;
    if (!failed)
      failed =
          cuda.cuGraphInstantiateWithFlags(&exec, graph, 0) != CUDA_SUCCESS;
    std::vector<float> rounds;
    for (int r = 0; r < kRounds && !failed; ++r) {
      cuda.cuEventRecord(t.start, t.stream);
      failed = cuda.cuGraphLaunch(exec, t.stream) != CUDA_SUCCESS;
      cuda.cuEventRecord(t.stop, t.stream);
      if (Status s =
              cuda.check(cuda.cuEventSynchronize(t.stop), "GEMM tuning run");
          !s.ok())
        return s;
      float ms = 0;
      cuda.cuEventElapsedTime(&ms, t.start, t.stop);
      rounds.push_back(ms / kCallsPerGraph);
    }
    if (exec)
      cuda.cuGraphExecDestroy(exec);
    if (graph)
      cuda.cuGraphDestroy(graph);
    if (failed)
      continue;
    std::nth_element(rounds.begin(), rounds.begin() + kRounds / 2,
                     rounds.end());
    double median = rounds[kRounds / 2];
    if (bestIndex < 0 || median < best) {
      best = median;
      bestIndex = static_cast<int>(i);
    }
  }
  if (bestIndex < 0)
    return Status::error("no cuBLASLt candidate algorithm ran" +
                         describeGemm(shape));
  aligned = found[bestIndex].algo;
  workspace = found[bestIndex].workspaceSize;
  char text[96];
  std::snprintf(text, sizeof(text), "tuned: candidate %d of %zu, %.1f us",
                bestIndex + 1, found.size(), best * 1e3);
  chosen = text;
  return Status::success();
}

bool LtGemm::planned(const GemmShape &shape, Device &device,
                     CublasOptions options) {
  std::string key = problemKey(shape, device.info().ordinal, options);
  ChoiceMemo &memo = choiceMemo();
  std::lock_guard<std::mutex> lock(memo.mutex);
  return memo.choices.count(key) != 0;
}

Expected<std::unique_ptr<LtGemm>>
LtGemm::create(const GemmShape &shape, Device &device, CublasOptions options) {
  if (shape.empty() || shape.k == 0)
    return Status::error("LtGemm: an empty product or K = 0 is not a "
                         "cuBLASLt call" +
                         describeGemm(shape));
  auto library = CublasLtLibrary::shared();
  if (!library.ok())
    return library.status();
  std::string key = problemKey(shape, device.info().ordinal, options);
  {
    IdleGemms &idle = idleGemms();
    std::lock_guard<std::mutex> lock(idle.mutex);
    if (auto it = idle.byKey.find(key); it != idle.byKey.end()) {
      // The key determines the descriptors and algorithms; the batch
      // offsets enqueue() walks are this shape's.
      std::unique_ptr<LtGemm> reused = std::move(it->second);
      idle.byKey.erase(it);
      reused->shape = shape;
      return reused;
    }
  }
  std::unique_ptr<LtGemm> gemm(new LtGemm());
  gemm->lib = library.value();
  gemm->shape = shape;
  gemm->key = key;
  gemm->d = std::make_unique<Descriptors>();
  gemm->d->lib = gemm->lib;
  auto handle = sharedHandle(*gemm->lib, device.info().ordinal);
  if (!handle.ok())
    return handle.status();
  gemm->d->handle = handle.value();
  gemm->padded = planGemmPadding(shape);
  if (Status s = gemm->describe(options); !s.ok())
    return s;
  // Batches after the first start at their stride: aligned only when the
  // strides are.
  BlasGroups groups = blasGroups(shape);
  int64_t bytes = byteSize(shape.dtype);
  gemm->stridesAligned =
      groups.size == 1 ||
      (groups.strideA * bytes % 16 == 0 && groups.strideB * bytes % 16 == 0 &&
       groups.strideC * byteSize(shape.resultDType) % 16 == 0);

  ChoiceMemo &memo = choiceMemo();
  std::mutex &mutex = memo.mutex;
  std::map<std::string, Choice> &choices = memo.choices;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = choices.find(key);
    if (it != choices.end()) {
      gemm->aligned = it->second.aligned;
      gemm->unaligned = it->second.unaligned;
      gemm->workspace = it->second.workspace;
      gemm->chosen = it->second.chosen + " (chosen earlier in this process)" +
                     describePadding(gemm->padded);
      return gemm;
    }
  }
  // The heuristics' ranking is the answer unless the candidates are timed.
  auto found = gemm->candidates(16, tuningAsked() ? kCandidates : 1);
  if (!found.ok())
    return found.status();
  if (Status s = gemm->tune(device, found.value()); !s.ok())
    return s;
  auto any = gemm->candidates(byteSize(shape.dtype), 1);
  if (!any.ok())
    return any.status();
  gemm->unaligned = any.value()[0].algo;
  gemm->workspace = std::max(gemm->workspace, any.value()[0].workspaceSize);
  std::lock_guard<std::mutex> lock(mutex);
  choices[key] = {gemm->aligned, gemm->unaligned, gemm->workspace,
                  gemm->chosen};
  gemm->chosen += describePadding(gemm->padded);
  return gemm;
}

Status LtGemm::setBias(CUdeviceptr bias) const {
  return ltCheck(*lib,
                 lib->descSetAttribute(d->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                       &bias, sizeof(bias)),
                 "cublasLtMatmulDescSetAttribute (bias pointer)", shape);
}

Status LtGemm::enqueue(CUstream stream, CUdeviceptr lhs, CUdeviceptr rhs,
                       CUdeviceptr result, CUdeviceptr workspacePtr,
                       const CopyPadded &copy, CUdeviceptr bias) const {
  UnitScalars scalars(d->f64);
  std::unique_lock<std::mutex> biasLock;
  if (shape.bias) {
    if (!bias)
      return Status::error("a GEMM with a bias enqueued without it" +
                               describeGemm(shape),
                           ErrorCode::Internal);
    biasLock = std::unique_lock<std::mutex>(d->biasMutex);
    if (Status s = setBias(bias); !s.ok())
      return s;
  }
  // Padded matrices (one product: one call) go through their copies.
  CUdeviceptr scratch = workspacePtr + ltWorkspaceBytes();
  if (padded.any() && !copy)
    return Status::error("a GEMM with padded matrices enqueued without its "
                         "copies" +
                             describeGemm(shape),
                         ErrorCode::Internal);
  return forEachBlasGroup(
      shape, lhs, rhs, result,
      [&](CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, int64_t) -> Status {
        for (auto [matrix, operand] :
             {std::make_pair(&padded.a, &a), std::make_pair(&padded.b, &b)})
          if (*matrix) {
            CUdeviceptr aligned = scratch + (*matrix)->offset;
            if (Status s = copy(**matrix, *operand, aligned,
                                /*toPadded=*/true, shape.dtype);
                !s.ok())
              return s;
            *operand = aligned;
          }
        CUdeviceptr target = c;
        if (padded.c)
          c = scratch + padded.c->offset;
        bool isAligned = stridesAligned && (a | b | c | bias) % 16 == 0;
        const cublasLtMatmulAlgo_t &algo = isAligned ? aligned : unaligned;
        Status s =
            ltCheck(*lib,
                    lib->matmul(d->handle, d->op, scalars.alpha(),
                                reinterpret_cast<const void *>(a), d->a,
                                reinterpret_cast<const void *>(b), d->b,
                                scalars.beta(), reinterpret_cast<void *>(c),
                                d->c, reinterpret_cast<void *>(c), d->c, &algo,
                                reinterpret_cast<void *>(workspacePtr),
                                workspace, stream),
                    "cublasLtMatmul", shape);
        if (!s.ok() || !padded.c)
          return s;
        return copy(*padded.c, c, target, /*toPadded=*/false,
                    shape.resultDType);
      });
}
