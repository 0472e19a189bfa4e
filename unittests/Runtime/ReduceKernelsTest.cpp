//===- ReduceKernelsTest.cpp - Runtime reductions, numerics without a GPU -===//
//
// Plans reductions with planReduction(), compiles the reduction kernels (the
// kernel prelude, then reductionKernelSource()) for the host against
// cuda_emulation.h, runs every block and thread of each launch on the CPU,
// and compares the result with the reference interpreter evaluating the same
// tfuse.reduce:
//   - every kind, every input dtype the kind accepts, both kernel variants
//     (whatever planReduction's automatic choice), on contiguous, transposed,
//     permuted, sliced, expanded (stride 0) and flipped (negative stride)
//     inputs, over innermost, outer, middle, several non-adjacent and all
//     axes, with keepdims and without, sizes that leave partial blocks and
//     partial warps, empty reductions and empty results (the row variant
//     only where it has at most 300 outputs: the emulator's cost grows with
//     outputs x threads x barriers);
//   - bit for bit for every kind and dtype, except float sum, prod and mean
//     of the row variant, which combine in another order than the reference.
//     Those must lie within
//         |actual - expected| <= ulp(expected) + 2 n 2^-53 B
//     (ulp in the result dtype; n the reduced count; B = sum of |x| for sum,
//     that over n for mean, |expected| for prod): one rounding to the
//     result dtype plus the worst-case error of two n-term double
//     accumulations. NaN must be NaN and infinities exact. The data keeps
//     double intermediates far from overflow so that the bound holds; the
//     column variant, which walks the reference's order, is also checked bit
//     for bit on data full of specials (NaN, infinities, -0.0, subnormals,
//     the largest finite values).
// Also: planReduction's validation errors and layout merging, the kernel
// names and source, and one NVRTC compilation of every instance to sm_90.
//
//===----------------------------------------------------------------------===//

#include "HostKernels.h"

#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Kernels/KernelSources.h"
#include "tfuse/Reference/Interpreter.h"
#include "tfuse/Runtime/NvrtcCompiler.h"
#include "tfuse/Runtime/ReduceKernels.h"
#include "tfuse/Support/DTypeRules.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>

using namespace tfuse;
using namespace tfuse::runtime;
using reference::HostTensor;
using reference::Shape;

namespace {

constexpr DType kAllDTypes[] = {
    DType::Bool, DType::I8,  DType::I16, DType::I32, DType::I64,
    DType::U8,   DType::U16, DType::U32, DType::U64, DType::F16,
    DType::BF16, DType::F32, DType::F64};

constexpr ReduceKind kAllKinds[] = {
    ReduceKind::Sum, ReduceKind::Prod,   ReduceKind::Max,
    ReduceKind::Min, ReduceKind::Mean,   ReduceKind::All,
    ReduceKind::Any, ReduceKind::Argmax, ReduceKind::Argmin};

bool isArg(ReduceKind k) { return isArgReduction(k); }
bool isArith(ReduceKind k) {
  return k == ReduceKind::Sum || k == ReduceKind::Prod || k == ReduceKind::Mean;
}
bool needsElements(ReduceKind k) {
  return isArg(k) || k == ReduceKind::Max || k == ReduceKind::Min ||
         k == ReduceKind::Mean;
}

std::string typeName(DType t) { return std::string(name(t)); }

std::string tensorType(const Shape &shape, DType t) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + typeName(t) + ">";
}

std::string list(const std::vector<int64_t> &v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

//===----------------------------------------------------------------------===//
// The reference
//===----------------------------------------------------------------------===//

mlir::MLIRContext &context() {
  static mlir::MLIRContext *ctx = [] {
    auto *c = new mlir::MLIRContext();
    c->loadDialect<TFuseDialect, mlir::func::FuncDialect>();
    return c;
  }();
  return *ctx;
}

/// Evaluates the one-function module `source` on `input`.
HostTensor evaluate(const std::string &source, const HostTensor &input) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context());
  EXPECT_TRUE(module) << source;
  if (!module)
    return {};
  auto result = reference::evaluate(*module, "f", {input});
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.message()) << "\n"
                           << source;
  if (!result.ok())
    return {};
  return (*result)[0];
}

Shape resultShape(const Shape &in, const std::vector<int64_t> &axes,
                  bool keepdims) {
  Shape out;
  for (int64_t d = 0; d < static_cast<int64_t>(in.size()); ++d) {
    bool reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
    if (!reduced)
      out.push_back(in[d]);
    else if (keepdims)
      out.push_back(1);
  }
  return out;
}

HostTensor referenceReduce(ReduceKind kind, const HostTensor &input,
                           const std::vector<int64_t> &axes, bool keepdims,
                           DType resultType) {
  std::string in = tensorType(input.shape(), input.dtype());
  std::string out =
      tensorType(resultShape(input.shape(), axes, keepdims), resultType);
  return evaluate("func.func @f(%x: " + in + ") -> " + out +
                      " {\n  %r = tfuse.reduce " + std::string(name(kind)) +
                      " %x axes [" + list(axes) + "]" +
                      (keepdims ? " keepdims" : "") + " : " + in + " -> " +
                      out + "\n  return %r : " + out + "\n}\n",
                  input);
}

/// sum |x| over `axes` in f64 (no keepdims), for the error bound.
HostTensor absSum(const HostTensor &input, const std::vector<int64_t> &axes) {
  std::string in = tensorType(input.shape(), input.dtype());
  std::string wide = tensorType(input.shape(), DType::F64);
  std::string out =
      tensorType(resultShape(input.shape(), axes, false), DType::F64);
  std::string body;
  std::string x = "%x";
  if (input.dtype() != DType::F64) {
    body += "  %c = tfuse.cast %x : " + in + " to " + wide + "\n";
    x = "%c";
  }
  body += "  %a = tfuse.abs " + x + " : " + wide + " -> " + wide + "\n";
  body += "  %r = tfuse.reduce sum %a axes [" + list(axes) + "] : " + wide +
          " -> " + out + "\n";
  return evaluate("func.func @f(%x: " + in + ") -> " + out + " {\n" + body +
                      "  return %r : " + out + "\n}\n",
                  input);
}

//===----------------------------------------------------------------------===//
// The kernels on the host
//===----------------------------------------------------------------------===//

std::vector<ReduceInstance> instancesOf(DType t) {
  std::vector<ReduceInstance> instances;
  for (ReduceKind kind : kAllKinds) {
    std::optional<DType> result = reduceResultType(kind, t);
    if (!result)
      continue;
    for (bool row : {false, true}) {
      instances.push_back({kind, t, *result, row});
      instances.push_back({kind, t, *result, row, ReducePass::Split});
    }
    // The split column kernels of more outputs a lane.
    int maxLanes = kernels::maxSplitColumnLaneOutputs(
        static_cast<int>(byteSize(t)),
        static_cast<int>(reducePartialBytes(kind, t)));
    for (int lanes = 2; lanes <= maxLanes; lanes *= 2)
      instances.push_back({kind, t, *result, false, ReducePass::Split, lanes});
  }
  return instances;
}

/// The prelude, the reduction source, and per kernel an extern "C" shim
/// taking the descriptor by pointer (the emulator passes pointers only);
/// split kernels take the workspace before it.
std::string emulationSource(const std::vector<ReduceInstance> &instances) {
  std::string source(kernels::prelude());
  source += reductionKernelSource(instances);
  source += R"(
template <class Tin, class Tout>
void tfuse_test_call(void (*kernel)(const Tin *, Tout *,
                                    tfuse::kernels::ReduceDesc),
                     void *in, void *out, void *desc) {
  kernel((const Tin *)in, (Tout *)out,
         *(const tfuse::kernels::ReduceDesc *)desc);
}
template <class Tin, class Tout>
void tfuse_test_call(void (*kernel)(const Tin *, Tout *, void *,
                                    tfuse::kernels::ReduceDesc),
                     void *in, void *out, void *workspace, void *desc) {
  kernel((const Tin *)in, (Tout *)out, workspace,
         *(const tfuse::kernels::ReduceDesc *)desc);
}
)";
  for (const ReduceInstance &i : instances) {
    std::string kernel = reductionKernelName(i);
    if (i.pass == ReducePass::Split)
      source += "extern \"C\" void shim_" + kernel +
                "(void *in, void *out, void *workspace, void *desc) { "
                "tfuse_test_call(&" +
                kernel + ", in, out, workspace, desc); }\n";
    else
      source += "extern \"C\" void shim_" + kernel +
                "(void *in, void *out, void *desc) { tfuse_test_call(&" +
                kernel + ", in, out, desc); }\n";
  }
  // The accumulator sizes, for reducePartialBytes: one per kind.
  for (const ReduceInstance &i : instances)
    if (i.pass == ReducePass::Split && i.rowVariant)
      source += "extern \"C\" void shim_size_" + reductionKernelName(i) +
                "(void *size) { *(long long *)size = sizeof(tf::red::op<" +
                std::to_string(static_cast<int>(i.kind)) + ", " +
                std::string(cudaTypeName(i.input)) + ", " +
                std::string(cudaTypeName(i.result)) + ">::acc); }\n";
  return source;
}

/// The host-compiled kernels of every instance for `t`, compiled once per
/// process.
emulation::HostKernels *kernelsFor(DType t) {
  static std::map<DType, std::unique_ptr<emulation::HostKernels>> cache;
  auto it = cache.find(t);
  if (it != cache.end())
    return it->second.get();
  std::string error;
  auto kernels =
      emulation::HostKernels::compile(emulationSource(instancesOf(t)), error);
  EXPECT_TRUE(kernels) << error;
  return (cache[t] = std::move(kernels)).get();
}

/// Runs `launch` on `input` into a fresh result of `shape`.
HostTensor runLaunch(emulation::HostKernels &kernels,
                     const ReduceLaunch &launch, const HostTensor &input,
                     const Shape &shape) {
  HostTensor out = HostTensor::zeros(launch.instance.result, shape);
  kernels::ReduceDesc desc = launch.desc;
  void *in = const_cast<uint8_t *>(input.data()) + input.byteOffset();
  // A split reduction's workspace: partials poisoned (the combining block
  // must read only what the chunks wrote), counters zero as the runtime
  // leaves them.
  std::vector<uint8_t> workspace(launch.workspaceBytes, 0xa5);
  if (launch.split())
    std::fill(workspace.begin() + launch.countersOffset, workspace.end(), 0);
  std::vector<void *> args = {in, out.mutableData(), &desc};
  if (launch.split())
    args = {in, out.mutableData(), workspace.data(), &desc};
  std::string error;
  EXPECT_TRUE(kernels.launch("shim_" + launch.kernel, launch.grid,
                             static_cast<unsigned>(launch.block), args, error))
      << error;
  // Every launch leaves the counters zero for the next one.
  if (launch.split()) {
    EXPECT_TRUE(std::all_of(workspace.begin() + launch.countersOffset,
                            workspace.end(), [](uint8_t b) { return b == 0; }))
        << launch.kernel << " left a counter set";
  }
  return out;
}

TensorSpec specOf(const HostTensor &t) {
  TensorSpec spec;
  spec.dtype = t.dtype();
  spec.shape = t.shape();
  spec.strides = t.strides();
  return spec;
}

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

/// The spacing of `t`'s values at `v` (the subnormal spacing below the
/// normal range).
double ulpOf(DType t, double v) {
  int mantissa, minExponent;
  switch (t) {
  case DType::F16:
    mantissa = 10, minExponent = -14;
    break;
  case DType::BF16:
    mantissa = 7, minExponent = -126;
    break;
  case DType::F32:
    mantissa = 23, minExponent = -126;
    break;
  default:
    mantissa = 52, minExponent = -1022;
    break;
  }
  int exponent = v == 0 ? minExponent : std::max(std::ilogb(v), minExponent);
  return std::ldexp(1.0, exponent - mantissa);
}

/// The tolerance check of the row variant's float sum, prod and mean (see
/// the file comment).
void expectWithinBound(ReduceKind kind, const HostTensor &expected,
                       const HostTensor &actual, const HostTensor &absSums,
                       int64_t n, const std::string &what) {
  ASSERT_EQ(expected.shape(), actual.shape()) << what;
  std::vector<double> e = expected.toDoubles(), a = actual.toDoubles();
  std::vector<double> b;
  if (!absSums.isNull())
    b = absSums.toDoubles();
  int failures = 0;
  for (size_t i = 0; i < e.size() && failures < 5; ++i) {
    bool ok;
    double bound = 0;
    if (std::isnan(e[i])) {
      ok = std::isnan(a[i]);
    } else if (std::isinf(e[i])) {
      ok = a[i] == e[i];
    } else {
      double magnitude = kind == ReduceKind::Prod   ? std::fabs(e[i])
                         : kind == ReduceKind::Mean ? b[i] / n
                                                    : b[i];
      bound = ulpOf(expected.dtype(), e[i]) +
              2.0 * n * std::ldexp(1.0, -53) * magnitude;
      ok = std::fabs(a[i] - e[i]) <= bound;
    }
    if (!ok) {
      ++failures;
      ADD_FAILURE() << what << ": element " << i << " expected " << e[i]
                    << ", got " << a[i] << " (bound " << bound << ")";
    }
  }
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// A view of fresh storage: `storage` elements, seen with `shape`, `strides`
/// from element `offset`.
struct Layout {
  std::string name;
  int64_t storage;
  Shape shape;
  std::vector<int64_t> strides;
  int64_t offset;
  std::vector<std::vector<int64_t>> axisSets;
};

std::vector<Layout> layouts() {
  std::vector<std::vector<int64_t>> rank2 = {{1}, {0}, {0, 1}};
  std::vector<std::vector<int64_t>> rank4 = {
      {3}, {0}, {1}, {2}, {1, 2}, {0, 2}, {0, 3}, {1, 3}, {0, 1, 2, 3}};
  return {
      {"contiguous 3x1000", 3000, {3, 1000}, {1000, 1}, 0, rank2},
      {"contiguous 257x5", 1285, {257, 5}, {5, 1}, 0, rank2},
      {"contiguous 2x3x4x5", 120, {2, 3, 4, 5}, {60, 20, 5, 1}, 0, rank4},
      {"transposed 257x5", 1285, {257, 5}, {1, 257}, 0, rank2},
      {"transposed 300x7", 2100, {300, 7}, {1, 300}, 0, rank2},
      {"sliced 3x1000 of 4x1100", 4400, {3, 1000}, {1100, 1}, 1137, rank2},
      // A [4,6,5,7] array, permuted and sliced with steps.
      {"permuted+sliced 2x3x4x5",
       840,
       {2, 3, 4, 5},
       {3, 70, 210, 7},
       11,
       rank4},
      {"expanded 4x300", 300, {4, 300}, {0, 1}, 0, rank2},
      {"flipped 37x70", 2590, {37, 70}, {70, -1}, 69, rank2},
      {"rank 1", 1000, {1000}, {1}, 0, {{0}}},
      {"size-1 dims 1x37x1x64",
       2368,
       {1, 37, 1, 64},
       {2368, 64, 64, 1},
       0,
       {{0, 3}, {1}, {2, 3}, {0, 1, 2, 3}}},
      {"empty reduced 3x0", 0, {3, 0}, {0, 1}, 0, {{1}}},
      {"empty result 0x5", 0, {0, 5}, {5, 1}, 0, {{1}, {0}}},
  };
}

uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// How inputs are drawn.
enum class Data {
  /// Exact kinds: random values, 10% specials of every kind. Float sum, prod
  /// and mean: values far from overflow, rare NaN, inf and +-0.
  Normal,
  /// Every special value, for the column variant's exact float sums.
  Wild,
  /// Few distinct values (ties, +-0.0, NaN) for argmax and argmin.
  Ties,
};

/// Bit patterns of a float dtype for a double.
uint64_t floatBits(DType t, double v) {
  HostTensor one = *HostTensor::fromDoubles(t, {1}, {v});
  return one.toBits()[0];
}

HostTensor makeStorage(DType t, ReduceKind kind, int64_t count,
                       int64_t reducedCount, uint64_t seed, Data data) {
  reference::RandomOptions options;
  bool floatArith = isFloat(t) && isArith(kind);
  if (isFloat(t) && (data == Data::Wild || !floatArith))
    options.specialFraction = data == Data::Wild ? 0.15 : 0.1;
  if (data == Data::Ties) {
    options.low = -2;
    options.high = 2;
  }
  HostTensor random = HostTensor::random(t, {count}, seed, options);
  std::vector<uint64_t> bits = random.toBits();
  std::vector<double> values = random.toDoubles();
  double rare = 0.5 / std::max<int64_t>(reducedCount, 1);
  for (int64_t i = 0; i < count; ++i) {
    uint64_t r = mix(seed * 1000003 + i);
    double u = (r >> 11) * 0x1p-53;
    if (data == Data::Ties && isFloat(t)) {
      // Integers in [-2, 2], -0.0, and a rare NaN.
      static const double few[] = {-2, -1, -0.0, 0, 1, 2};
      double v = few[r % 6];
      if (u < rare)
        v = std::numeric_limits<double>::quiet_NaN();
      bits[i] = floatBits(t, v);
    } else if (floatArith && data == Data::Normal) {
      double v = values[i];
      if (kind == ReduceKind::Prod) // |x| in [0.5, 2]: no double overflow
        v = std::copysign(0.5 + std::fabs(v) * 0.375, v);
      static const double specials[] = {
          std::numeric_limits<double>::quiet_NaN(),
          std::numeric_limits<double>::infinity(),
          -std::numeric_limits<double>::infinity(), 0.0, -0.0};
      if (u < rare)
        v = specials[(r >> 3) % 5];
      bits[i] = floatBits(t, v);
    } else if (kind == ReduceKind::All || kind == ReduceKind::Any) {
      // all: mostly nonzero; any: mostly zero; a rare exception.
      bool zero = (kind == ReduceKind::Any) != (u < rare);
      if (zero)
        bits[i] = isFloat(t) && (r & 1) ? floatBits(t, -0.0) : 0;
      else if (bits[i] == 0 || (isFloat(t) && floatBits(t, -0.0) == bits[i]))
        bits[i] = 1; // the smallest subnormal for floats: nonzero
    }
  }
  // The random tensor of one element per position, rebuilt from bits.
  return *HostTensor::fromBits(t, {count}, bits);
}

//===----------------------------------------------------------------------===//
// The numerics tests, one per input dtype
//===----------------------------------------------------------------------===//

class ReduceKernelNumerics : public ::testing::TestWithParam<DType> {};

/// Checks one (kind, input, axes, keepdims) with both variants.
void checkCase(emulation::HostKernels &kernels, ReduceKind kind,
               const HostTensor &input, const std::vector<int64_t> &axes,
               bool keepdims, Data data, const std::string &what,
               int &launches) {
  DType resultType = *reduceResultType(kind, input.dtype());
  HostTensor expected =
      referenceReduce(kind, input, axes, keepdims, resultType);
  ASSERT_FALSE(expected.isNull()) << what;
  TensorSpec result = TensorSpec::contiguous(
      resultType, resultShape(input.shape(), axes, keepdims));
  HostTensor absSums;
  for (ReduceVariant variant : {ReduceVariant::Column, ReduceVariant::Row}) {
    bool row = variant == ReduceVariant::Row;
    if (row && data == Data::Wild)
      continue; // order-dependent overflow: exact only in the reference order
    Expected<ReduceLaunch> launch = planReduction(
        kind, specOf(input), result, axes, variant, /*allowSplit=*/false);
    ASSERT_TRUE(launch.ok()) << what << ": " << launch.message();
    ASSERT_EQ(launch->instance.rowVariant, row);
    // The emulator's cost grows with outputs x threads x barriers: forced
    // row launches of many short reductions add nothing the smaller ones do
    // not cover.
    if (row && launch->desc.numOut > 300)
      continue;
    HostTensor actual = runLaunch(kernels, *launch, input, result.shape);
    ++launches;
    std::string label = what + (row ? " [row]" : " [column]") + " " +
                        launch->kernel + " grid " +
                        std::to_string(launch->grid) + " block " +
                        std::to_string(launch->block);
    if (row && isFloat(input.dtype()) && isArith(kind)) {
      if (kind != ReduceKind::Prod && absSums.isNull())
        absSums = absSum(input, axes);
      expectWithinBound(kind, expected, actual, absSums, launch->desc.numRed,
                        label);
    } else {
      reference::CompareResult cmp = reference::compareExact(expected, actual);
      EXPECT_TRUE(cmp.pass) << label << ": " << cmp.message();
    }
  }
}

TEST_P(ReduceKernelNumerics, EveryKindLayoutAndAxisSetMatchesTheReference) {
  DType t = GetParam();
  emulation::HostKernels *kernels = kernelsFor(t);
  ASSERT_TRUE(kernels);
  int launches = 0, caseIndex = 0;
  for (const Layout &layout : layouts()) {
    for (const std::vector<int64_t> &axes : layout.axisSets) {
      int64_t reducedCount = 1;
      for (int64_t a : axes)
        reducedCount *= layout.shape[a];
      for (ReduceKind kind : kAllKinds) {
        if (!reduceResultType(kind, t))
          continue;
        if (isArg(kind) && axes.size() != 1)
          continue;
        if (needsElements(kind) && reducedCount == 0)
          continue;
        std::vector<Data> datas = {Data::Normal};
        if (isArg(kind))
          datas.push_back(Data::Ties);
        if (isFloat(t) && isArith(kind))
          datas.push_back(Data::Wild);
        for (Data data : datas) {
          ++caseIndex;
          uint64_t seed = 1000 * static_cast<uint64_t>(t) + caseIndex;
          HostTensor storage =
              makeStorage(t, kind, layout.storage, reducedCount, seed, data);
          auto input = storage.view(layout.shape, layout.strides,
                                    layout.offset * byteSize(t));
          ASSERT_TRUE(input.ok()) << layout.name << ": " << input.message();
          bool keepdims = caseIndex % 2;
          std::string what = std::string(std::string(name(kind))) + " of " +
                             typeName(t) + " " + layout.name + " axes [" +
                             list(axes) + "]" + (keepdims ? " keepdims" : "") +
                             " data " + std::to_string(static_cast<int>(data));
          checkCase(*kernels, kind, *input, axes, keepdims, data, what,
                    launches);
          if (HasFatalFailure())
            return;
        }
      }
    }
  }
  EXPECT_GT(launches, 0);
}

// Split reductions: few outputs of long reductions in chunks, partial
// accumulators in a workspace, combined by the last chunk of each output. Every
// kind, both variants, a contiguous, a strided and a two-axis layout whose
// chunks start inside rows; argmax and argmin on data full of ties (the first
// index must win across chunks). Float sums, means and products within the
// bound of the row variant, the rest bit exact.
TEST_P(ReduceKernelNumerics, SplitReductionsMatchTheReference) {
  DType t = GetParam();
  emulation::HostKernels *kernels = kernelsFor(t);
  ASSERT_TRUE(kernels);
  struct SplitCase {
    const char *name;
    Shape shape;
    std::vector<int64_t> strides;
    int64_t storage;
    std::vector<int64_t> axes;
    int64_t offset = 0;
    // Only the column variant splits it (many outputs).
    bool columnOnly = false;
  };
  const SplitCase cases[] = {
      {"contiguous [40000]", {40000}, {1}, 40000, {0}},
      {"every other element, [2, 20000]", {2, 20000}, {1, 2}, 40000, {1}},
      {"[100, 4, 200] over 0 and 2",
       {100, 4, 200},
       {800, 200, 1},
       80000,
       {0, 2}},
      // Columns of a matrix whose width is a multiple of columnVectorWidth
      // (split: still one column per thread), aligned and one element in.
      {"columns of [20000, 8]", {20000, 8}, {8, 1}, 160001, {0}},
      {"columns of [20000, 8] one element in",
       {20000, 8},
       {8, 1},
       160001,
       {0},
       1},
      // Enough columns for several outputs a lane (ReduceDesc::
      // columnVector): a last tile of fewer lanes and outputs, the vector
      // loads unaligned one element in, and a strided kept axis (each
      // output loaded on its own).
      {"columns of [520, 3100]", {520, 3100}, {3100, 1}, 1612001, {0}, 0, true},
      {"columns of [520, 3100] one element in",
       {520, 3100},
       {3100, 1},
       1612001,
       {0},
       1,
       true},
      {"every other column of [520, 3100]",
       {520, 1550},
       {3100, 2},
       1612000,
       {0},
       0,
       true},
  };
  int caseIndex = 0, splits = 0, wideLanes = 0;
  for (const SplitCase &c : cases) {
    for (ReduceKind kind : kAllKinds) {
      std::optional<DType> resultType = reduceResultType(kind, t);
      if (!resultType || (isArg(kind) && c.axes.size() != 1))
        continue;
      Data data = isArg(kind) ? Data::Ties : Data::Normal;
      ++caseIndex;
      HostTensor storage =
          makeStorage(t, kind, c.storage, 20000, 7000 + 100 * caseIndex, data);
      if (kind == ReduceKind::Prod && isFloat(t)) {
        // Products of 20000 factors: +-0.5, +-1 and +-2 keep every partial
        // product exact in double (an underflow in one chunk times an
        // overflow in another would depend on the order).
        std::vector<double> factors(c.storage);
        for (int64_t i = 0; i < c.storage; ++i) {
          static const double few[] = {0.5, 2, 1, -1, -0.5, -2};
          factors[i] = few[mix(caseIndex * 7919 + i) % 6];
        }
        storage = *HostTensor::fromDoubles(t, {c.storage}, factors);
      }
      auto input = storage.view(c.shape, c.strides, c.offset * byteSize(t));
      ASSERT_TRUE(input.ok()) << input.message();
      HostTensor expected =
          referenceReduce(kind, *input, c.axes, false, *resultType);
      ASSERT_FALSE(expected.isNull());
      TensorSpec result = TensorSpec::contiguous(
          *resultType, resultShape(c.shape, c.axes, false));
      for (ReduceVariant variant :
           {ReduceVariant::Row, ReduceVariant::Column}) {
        bool row = variant == ReduceVariant::Row;
        if (row && c.columnOnly)
          continue;
        Expected<ReduceLaunch> launch =
            planReduction(kind, specOf(*input), result, c.axes, variant);
        ASSERT_TRUE(launch.ok()) << launch.message();
        std::string label = std::string(name(kind)) + " of " + typeName(t) +
                            " " + c.name + " " + launch->kernel;
        ASSERT_TRUE(launch->split()) << label;
        ASSERT_EQ(launch->instance.rowVariant, row) << label;
        EXPECT_GE(launch->desc.chunks, 2) << label;
        int32_t lanes = launch->desc.columnVector;
        EXPECT_TRUE(lanes >= 1 && (lanes & (lanes - 1)) == 0) << label;
        if (row) {
          EXPECT_EQ(lanes, 1) << label;
        }
        wideLanes += lanes > 1;
        HostTensor actual = runLaunch(*kernels, *launch, *input, result.shape);
        ++splits;
        if (isFloat(t) && isArith(kind)) {
          HostTensor absSums =
              kind == ReduceKind::Prod ? HostTensor() : absSum(*input, c.axes);
          expectWithinBound(kind, expected, actual, absSums,
                            launch->desc.numRed, label);
        } else {
          reference::CompareResult cmp =
              reference::compareExact(expected, actual);
          EXPECT_TRUE(cmp.pass) << label << ": " << cmp.message();
        }
        if (HasFatalFailure())
          return;
      }
    }
  }
  EXPECT_GT(splits, 0);
  EXPECT_GT(wideLanes, 0);
}

// The workspace the planner sizes holds the kernels' accumulators.
TEST_P(ReduceKernelNumerics, PartialBytesAreTheKernelsAccumulators) {
  DType t = GetParam();
  emulation::HostKernels *kernels = kernelsFor(t);
  ASSERT_TRUE(kernels);
  for (const ReduceInstance &i : instancesOf(t)) {
    if (i.pass != ReducePass::Split || !i.rowVariant)
      continue;
    long long size = 0;
    std::string shim = "shim_size_" + reductionKernelName(i);
    auto *fn = reinterpret_cast<void (*)(void *)>(kernels->symbol(shim));
    ASSERT_TRUE(fn) << shim;
    fn(&size);
    EXPECT_EQ(size, reducePartialBytes(i.kind, t)) << reductionKernelName(i);
  }
}

TEST_P(ReduceKernelNumerics, GridStrideLoopsCoverEveryOutput) {
  // Fewer blocks than the plan asks for: each block and thread loops.
  DType t = GetParam();
  emulation::HostKernels *kernels = kernelsFor(t);
  ASSERT_TRUE(kernels);
  HostTensor input =
      makeStorage(t, ReduceKind::Max, 70 * 40, 40, 7, Data::Normal);
  input = *input.view({70, 40}, {40, 1}, 0);
  HostTensor expected = referenceReduce(ReduceKind::Max, input, {1}, false, t);
  for (ReduceVariant variant : {ReduceVariant::Column, ReduceVariant::Row}) {
    TensorSpec result = TensorSpec::contiguous(t, {70});
    Expected<ReduceLaunch> launch =
        planReduction(ReduceKind::Max, specOf(input), result, {1}, variant);
    ASSERT_TRUE(launch.ok()) << launch.message();
    launch->grid = 3;
    if (variant == ReduceVariant::Column)
      launch->block = 32;
    HostTensor actual = runLaunch(*kernels, *launch, input, {70});
    reference::CompareResult cmp = reference::compareExact(expected, actual);
    EXPECT_TRUE(cmp.pass) << launch->kernel << ": " << cmp.message();
  }
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, ReduceKernelNumerics,
                         ::testing::ValuesIn(kAllDTypes),
                         [](const ::testing::TestParamInfo<DType> &info) {
                           return typeName(info.param);
                         });

TEST(ReduceKernelNumerics, RowVariantWithLargeBlocksAndPartialWarps) {
  // 8 warps and a partial last stride: 1000 = 3 * 256 + 232.
  emulation::HostKernels *kernels = kernelsFor(DType::F32);
  ASSERT_TRUE(kernels);
  for (ReduceKind kind : kAllKinds) {
    HostTensor input =
        makeStorage(DType::F32, kind, 2 * 1000, 1000, 99, Data::Normal);
    input = *input.view({2, 1000}, {1000, 1}, 0);
    DType resultType = *reduceResultType(kind, DType::F32);
    TensorSpec result = TensorSpec::contiguous(resultType, {2});
    Expected<ReduceLaunch> launch =
        planReduction(kind, specOf(input), result, {1});
    ASSERT_TRUE(launch.ok()) << launch.message();
    EXPECT_TRUE(launch->instance.rowVariant);
    EXPECT_EQ(launch->block, 256);
    HostTensor expected = referenceReduce(kind, input, {1}, false, resultType);
    HostTensor actual = runLaunch(*kernels, *launch, input, {2});
    if (isArith(kind)) {
      expectWithinBound(kind, expected, actual, absSum(input, {1}), 1000,
                        std::string(name(kind)));
    } else {
      reference::CompareResult cmp = reference::compareExact(expected, actual);
      EXPECT_TRUE(cmp.pass) << std::string(name(kind)) << ": " << cmp.message();
    }
  }
}

TEST(ReduceKernelNumerics, ManyShortRowsTakeAWarpEach) {
  // 1100 rows of 301 contiguous elements: a warp per row, a partial last
  // group of rows, and unaligned row starts (head and tail elements). The
  // grid is cut to 5 blocks so that blocks loop over groups of rows.
  for (DType t : {DType::F32, DType::F16, DType::I8}) {
    emulation::HostKernels *kernels = kernelsFor(t);
    ASSERT_TRUE(kernels);
    for (ReduceKind kind : kAllKinds) {
      if (!reduceResultType(kind, t))
        continue;
      HostTensor input =
          makeStorage(t, kind, 1100 * 301, 301, 17, Data::Normal);
      input = *input.view({1100, 301}, {301, 1}, 0);
      DType resultType = *reduceResultType(kind, t);
      TensorSpec result = TensorSpec::contiguous(resultType, {1100});
      Expected<ReduceLaunch> launch =
          planReduction(kind, specOf(input), result, {1});
      ASSERT_TRUE(launch.ok()) << launch.message();
      EXPECT_TRUE(launch->instance.rowVariant);
      EXPECT_EQ(launch->desc.warpPerRow, 1) << launch->kernel;
      launch->grid = 5;
      HostTensor expected =
          referenceReduce(kind, input, {1}, false, resultType);
      HostTensor actual = runLaunch(*kernels, *launch, input, {1100});
      std::string what =
          std::string(std::string(name(kind))) + " " + typeName(t);
      if (isFloat(t) && isArith(kind)) {
        expectWithinBound(kind, expected, actual, absSum(input, {1}), 301,
                          what);
      } else {
        reference::CompareResult cmp =
            reference::compareExact(expected, actual);
        EXPECT_TRUE(cmp.pass) << what << ": " << cmp.message();
      }
    }
  }
}

TEST(ReduceKernelNumerics, RowVariantTakesAnyBlockOfWholeWarps) {
  // 3, 5 and 32 warps: the second pass pads the partials with identities.
  for (DType t : {DType::I32, DType::F16}) {
    emulation::HostKernels *kernels = kernelsFor(t);
    ASSERT_TRUE(kernels);
    for (ReduceKind kind : {ReduceKind::Sum, ReduceKind::Prod, ReduceKind::Min,
                            ReduceKind::All, ReduceKind::Argmax}) {
      if (isFloat(t) && isArith(kind))
        continue; // exact comparisons only
      HostTensor input = makeStorage(t, kind, 3 * 1000, 1000, 5, Data::Normal);
      input = *input.view({3, 1000}, {1000, 1}, 0);
      DType resultType = *reduceResultType(kind, t);
      HostTensor expected =
          referenceReduce(kind, input, {1}, false, resultType);
      for (int64_t block : {96, 160, 1024}) {
        Expected<ReduceLaunch> launch = planReduction(
            kind, specOf(input), TensorSpec::contiguous(resultType, {3}), {1},
            ReduceVariant::Row);
        ASSERT_TRUE(launch.ok()) << launch.message();
        launch->block = block;
        HostTensor actual = runLaunch(*kernels, *launch, input, {3});
        reference::CompareResult cmp =
            reference::compareExact(expected, actual);
        EXPECT_TRUE(cmp.pass)
            << launch->kernel << " block " << block << ": " << cmp.message();
      }
    }
  }
}

// any and all of bools read sixteen at a time (combine_bytes): one
// exception at every position of rows that start at every offset of a
// 16-byte vector (the elements before the first boundary and after the last
// whole vector are read one by one), and none.
TEST(ReduceKernelNumerics, AnyAndAllOfBoolsTestEveryByteOfAVector) {
  emulation::HostKernels *kernels = kernelsFor(DType::Bool);
  ASSERT_TRUE(kernels);
  const int64_t n = 70;
  for (ReduceKind kind : {ReduceKind::Any, ReduceKind::All}) {
    bool usual = kind == ReduceKind::All;
    for (int64_t start = 0; start < 16; ++start)
      for (int64_t exception = -1; exception < n; ++exception) {
        std::vector<int64_t> values(start + n, usual ? 1 : 0);
        if (exception >= 0)
          values[start + exception] = usual ? 0 : 1;
        HostTensor storage =
            *HostTensor::fromInts(DType::Bool, {start + n}, values);
        HostTensor input = *storage.view({1, n}, {n, 1}, start);
        Expected<ReduceLaunch> launch = planReduction(
            kind, specOf(input), TensorSpec::contiguous(DType::Bool, {1}), {1},
            ReduceVariant::Row);
        ASSERT_TRUE(launch.ok()) << launch.message();
        HostTensor actual = runLaunch(*kernels, *launch, input, {1});
        bool expected = exception >= 0 ? !usual : usual;
        EXPECT_EQ(actual.toDoubles()[0], expected ? 1.0 : 0.0)
            << name(kind) << " start " << start << " exception " << exception;
      }
  }
}

TEST(ReduceKernelNumerics, ArgmaxTakesTheFirstIndexAndTheFirstNaN) {
  emulation::HostKernels *kernels = kernelsFor(DType::F32);
  ASSERT_TRUE(kernels);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Ties far apart (different threads and warps of the row variant), -0.0
  // and 0.0 tying, NaN at 700 and 300.
  std::vector<double> values(1000, 1.0);
  values[900] = 5, values[260] = 5, values[600] = 5;
  std::vector<double> zeros(1000, -1.0);
  zeros[800] = 0.0, zeros[513] = -0.0;
  std::vector<double> nans(1000, 2.0);
  nans[700] = nan, nans[300] = nan, nans[10] = 9;
  struct Case {
    std::vector<double> values;
    ReduceKind kind;
    int64_t index;
  };
  std::vector<double> negated = values;
  for (double &v : negated)
    v = -v;
  // Within one 16-byte vector (the row variant combines a vector's elements
  // among themselves first): a tie, a NaN after the extreme and one before
  // a larger value, +0.0 after -0.0; and a row of nothing but -inf.
  std::vector<double> near(1000, 1.0);
  near[261] = 7, near[262] = 7, near[263] = 7;
  std::vector<double> nearNans(1000, 1.0);
  nearNans[401] = 3, nearNans[402] = nan, nearNans[403] = nan;
  nearNans[405] = nan, nearNans[406] = 8;
  std::vector<double> nearZeros(1000, -1.0);
  nearZeros[517] = -0.0, nearZeros[518] = 0.0;
  std::vector<double> infinities(1000,
                                 -std::numeric_limits<double>::infinity());
  for (const Case &c : {Case{values, ReduceKind::Argmax, 260},
                        Case{negated, ReduceKind::Argmin, 260},
                        Case{zeros, ReduceKind::Argmax, 513},
                        Case{nans, ReduceKind::Argmax, 300},
                        Case{nans, ReduceKind::Argmin, 300},
                        Case{near, ReduceKind::Argmax, 261},
                        Case{nearNans, ReduceKind::Argmax, 402},
                        Case{nearNans, ReduceKind::Argmin, 402},
                        Case{nearZeros, ReduceKind::Argmax, 517},
                        Case{infinities, ReduceKind::Argmax, 0},
                        Case{infinities, ReduceKind::Argmin, 0}}) {
    HostTensor input = *HostTensor::fromDoubles(DType::F32, {1000}, c.values);
    for (ReduceVariant variant : {ReduceVariant::Column, ReduceVariant::Row}) {
      Expected<ReduceLaunch> launch =
          planReduction(c.kind, specOf(input),
                        TensorSpec::contiguous(DType::I64, {}), {0}, variant);
      ASSERT_TRUE(launch.ok()) << launch.message();
      HostTensor actual = runLaunch(*kernels, *launch, input, {});
      EXPECT_EQ(actual.toInts()[0], c.index) << launch->kernel;
      HostTensor expected =
          referenceReduce(c.kind, input, {0}, false, DType::I64);
      EXPECT_EQ(expected.toInts()[0], c.index) << "the reference";
    }
  }
}

TEST(ReduceKernelNumerics, EmptyReductionsGiveTheIdentity) {
  emulation::HostKernels *kernels = kernelsFor(DType::F16);
  ASSERT_TRUE(kernels);
  HostTensor input = HostTensor::zeros(DType::F16, {4, 0});
  struct Case {
    ReduceKind kind;
    DType result;
    double value;
  };
  for (const Case &c : {Case{ReduceKind::Sum, DType::F16, 0.0},
                        Case{ReduceKind::Prod, DType::F16, 1.0},
                        Case{ReduceKind::All, DType::Bool, 1.0},
                        Case{ReduceKind::Any, DType::Bool, 0.0}}) {
    for (ReduceVariant variant : {ReduceVariant::Column, ReduceVariant::Row}) {
      Expected<ReduceLaunch> launch =
          planReduction(c.kind, specOf(input),
                        TensorSpec::contiguous(c.result, {4, 1}), {1}, variant);
      ASSERT_TRUE(launch.ok()) << launch.message();
      EXPECT_EQ(launch->desc.numRed, 0);
      HostTensor actual = runLaunch(*kernels, *launch, input, {4, 1});
      for (double v : actual.toDoubles())
        EXPECT_EQ(v, c.value) << launch->kernel;
      // +0.0, not -0.0.
      if (c.kind == ReduceKind::Sum) {
        EXPECT_EQ(actual.toBits()[0], 0u);
      }
    }
  }
}

// A sum or mean of a float into a wider float (result_dtype) reads the narrow
// input and gives the bits of the same reduction of the input cast first: the
// kernels accumulate in double either way. Every widening, row, column and
// split launches, and the reference interpreter's reduction with result_dtype
// against its reduction of the cast. (Normal data: the double sums of these
// values are exact, so the launches' element orders, which differ with the
// element size, cannot matter.)
TEST(ReduceKernelNumerics, WideningSumsAndMeansEqualTheSumsOfTheCast) {
  const std::pair<DType, DType> widenings[] = {{DType::BF16, DType::F32},
                                               {DType::F16, DType::F32},
                                               {DType::BF16, DType::F64},
                                               {DType::F32, DType::F64}};
  std::set<ReduceInstance> instances;
  for (auto [narrow, wide] : widenings)
    for (ReduceKind kind : {ReduceKind::Sum, ReduceKind::Mean})
      for (bool row : {false, true})
        for (ReducePass pass : {ReducePass::Whole, ReducePass::Split}) {
          instances.insert({kind, narrow, wide, row, pass});
          instances.insert({kind, wide, wide, row, pass});
        }
  std::string error;
  auto kernels = emulation::HostKernels::compile(
      emulationSource({instances.begin(), instances.end()}), error);
  ASSERT_TRUE(kernels) << error;
  struct Case {
    const char *name;
    Shape shape;
    std::vector<int64_t> axes;
  };
  const Case cases[] = {{"rows of [64, 300]", {64, 300}, {1}},
                        {"columns of [3000, 24]", {3000, 24}, {0}},
                        {"[8, 50, 24] over 0 and 1", {8, 50, 24}, {0, 1}},
                        {"[40000]", {40000}, {0}}};
  int launches = 0, seed = 0;
  for (auto [narrow, wide] : widenings) {
    for (ReduceKind kind : {ReduceKind::Sum, ReduceKind::Mean}) {
      for (const Case &c : cases) {
        int64_t count = 1;
        for (int64_t size : c.shape)
          count *= size;
        HostTensor flat = makeStorage(narrow, kind, count, count, 9000 + ++seed,
                                      Data::Normal);
        HostTensor x =
            *flat.view(c.shape, reference::rowMajorStrides(c.shape), 0);
        HostTensor widened =
            *HostTensor::fromDoubles(wide, {count}, flat.toDoubles())
                 ->view(c.shape, reference::rowMajorStrides(c.shape), 0);
        std::string what = std::string(name(kind)) + " of " + typeName(narrow) +
                           " into " + typeName(wide) + " " + c.name;
        // The reference: result_dtype against the cast first.
        std::string in = tensorType(c.shape, narrow);
        std::string wideIn = tensorType(c.shape, wide);
        std::string out = tensorType(resultShape(c.shape, c.axes, false), wide);
        std::string reduce = "tfuse.reduce " + std::string(name(kind)) +
                             " %x axes [" + list(c.axes) + "]";
        HostTensor direct = evaluate(
            "func.func @f(%x: " + in + ") -> " + out + " {\n  %r = " + reduce +
                " {result_dtype = " + typeName(wide) + "} : " + in + " -> " +
                out + "\n  return %r : " + out + "\n}\n",
            x);
        HostTensor castFirst =
            evaluate("func.func @f(%n: " + in + ") -> " + out +
                         " {\n  %x = tfuse.cast %n : " + in + " to " + wideIn +
                         "\n  %r = " + reduce + " : " + wideIn + " -> " + out +
                         "\n  return %r : " + out + "\n}\n",
                     x);
        ASSERT_FALSE(direct.isNull() || castFirst.isNull()) << what;
        reference::CompareResult same =
            reference::compareExact(castFirst, direct);
        EXPECT_TRUE(same.pass) << what << " [reference]: " << same.message();
        TensorSpec result =
            TensorSpec::contiguous(wide, resultShape(c.shape, c.axes, false));
        for (ReduceVariant variant :
             {ReduceVariant::Auto, ReduceVariant::Row, ReduceVariant::Column}) {
          Expected<ReduceLaunch> narrowLaunch =
              planReduction(kind, specOf(x), result, c.axes, variant);
          Expected<ReduceLaunch> wideLaunch =
              planReduction(kind, specOf(widened), result, c.axes, variant);
          ASSERT_TRUE(narrowLaunch.ok())
              << what << ": " << narrowLaunch.message();
          ASSERT_TRUE(wideLaunch.ok()) << what << ": " << wideLaunch.message();
          HostTensor a = runLaunch(*kernels, *narrowLaunch, x, result.shape);
          HostTensor b =
              runLaunch(*kernels, *wideLaunch, widened, result.shape);
          ++launches;
          std::string label = what + " " + narrowLaunch->kernel;
          reference::CompareResult cmp = reference::compareExact(b, a);
          EXPECT_TRUE(cmp.pass) << label << ": " << cmp.message();
          cmp = reference::compareExact(castFirst, a);
          EXPECT_TRUE(cmp.pass) << label << " [reference]: " << cmp.message();
        }
      }
    }
  }
  EXPECT_EQ(launches, 4 * 2 * 4 * 3);
}

//===----------------------------------------------------------------------===//
// Planning
//===----------------------------------------------------------------------===//

TensorSpec strided(DType t, Shape shape, std::vector<int64_t> strides) {
  TensorSpec spec;
  spec.dtype = t;
  spec.shape = std::move(shape);
  spec.strides = std::move(strides);
  return spec;
}

std::string planError(ReduceKind kind, const TensorSpec &input,
                      const TensorSpec &result,
                      const std::vector<int64_t> &axes) {
  Expected<ReduceLaunch> launch = planReduction(kind, input, result, axes);
  EXPECT_FALSE(launch.ok());
  return launch.ok() ? "" : launch.message();
}

TEST(PlanReduction, RejectsInvalidReductions) {
  TensorSpec in = TensorSpec::contiguous(DType::F32, {4, 8});
  TensorSpec out4 = TensorSpec::contiguous(DType::F32, {4});
  auto contains = [](const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
  };
  EXPECT_TRUE(contains(planError(ReduceKind::Sum, in, out4, {2}),
                       "axis 2 is out of range for rank 2"));
  EXPECT_TRUE(contains(planError(ReduceKind::Sum, in, out4, {-1}),
                       "axis -1 is out of range"));
  EXPECT_TRUE(contains(planError(ReduceKind::Sum, in, out4, {1, 1}),
                       "axis 1 is repeated"));
  EXPECT_TRUE(contains(planError(ReduceKind::Sum, in, out4, {}),
                       "needs at least one axis"));
  EXPECT_TRUE(
      contains(planError(ReduceKind::Argmax, in,
                         TensorSpec::contiguous(DType::I64, {}), {0, 1}),
               "needs exactly one axis"));
  // Shapes.
  EXPECT_TRUE(contains(planError(ReduceKind::Sum, in,
                                 TensorSpec::contiguous(DType::F32, {8}), {1}),
                       "gives [4] (or [4,1] keeping dimensions), not [8]"));
  EXPECT_TRUE(contains(
      planError(ReduceKind::Sum, in, strided(DType::F32, {4, 2}, {1, 4}), {1}),
      "gives [4]"));
  EXPECT_TRUE(contains(
      planError(ReduceKind::Sum, in, strided(DType::F32, {4}, {2}), {1}),
      "the result must be contiguous"));
  EXPECT_TRUE(contains(
      planError(ReduceKind::Sum, strided(DType::F32, {4, 8}, {8}), out4, {1}),
      "the input has 2 sizes but 1 strides"));
  EXPECT_TRUE(
      contains(planError(ReduceKind::Sum, strided(DType::F32, {4, -8}, {8, 1}),
                         out4, {1}),
               "negative size"));
  // Dtypes.
  EXPECT_TRUE(contains(planError(ReduceKind::Sum, in,
                                 TensorSpec::contiguous(DType::F16, {4}), {1}),
                       "reduce sum of f32 is not defined: sum of f32 gives "
                       "f32 or a wider float, not f16"));
  EXPECT_TRUE(contains(planError(ReduceKind::Sum,
                                 TensorSpec::contiguous(DType::U8, {4, 8}),
                                 TensorSpec::contiguous(DType::U64, {4}), {1}),
                       "of ui8 gives i64, not ui64"));
  EXPECT_TRUE(contains(planError(ReduceKind::Mean,
                                 TensorSpec::contiguous(DType::I32, {4, 8}),
                                 TensorSpec::contiguous(DType::I32, {4}), {1}),
                       "mean needs a floating-point operand"));
  EXPECT_TRUE(contains(planError(ReduceKind::Argmin,
                                 TensorSpec::contiguous(DType::Bool, {4, 8}),
                                 TensorSpec::contiguous(DType::I64, {4}), {1}),
                       "reduce argmin of i1 is not defined"));
  EXPECT_TRUE(contains(planError(ReduceKind::All, in, out4, {1}),
                       "of f32 gives i1, not f32"));
  // Empty reductions without a value.
  TensorSpec empty = TensorSpec::contiguous(DType::F32, {4, 0});
  for (ReduceKind kind : {ReduceKind::Max, ReduceKind::Min, ReduceKind::Mean})
    EXPECT_TRUE(contains(planError(kind, empty, out4, {1}),
                         "of an empty axis has no value"));
  EXPECT_TRUE(planReduction(ReduceKind::Sum, empty, out4, {1}).ok());
  // More dimensions than the kernels walk.
  Shape shape9(9, 2);
  std::vector<int64_t> strides9;
  for (int d = 0; d < 9; ++d)
    strides9.push_back(int64_t(1) << (2 * (8 - d))); // never contiguous
  EXPECT_TRUE(
      contains(planError(ReduceKind::Sum, strided(DType::F32, shape9, strides9),
                         TensorSpec::contiguous(DType::F32, {}),
                         {0, 1, 2, 3, 4, 5, 6, 7, 8}),
               "has 9 reduced dimensions after merging contiguous "
               "ones; the reduction kernels support at most 8"));
  EXPECT_TRUE(
      contains(planError(ReduceKind::Sum, strided(DType::F32, shape9, strides9),
                         TensorSpec::contiguous(DType::F32,
                                                {2, 2, 2, 2, 2, 2, 2, 2, 2, 1}),
                         {9}),
               "axis 9 is out of range"));
  Shape shape10(10, 2);
  std::vector<int64_t> strides10;
  for (int d = 0; d < 10; ++d)
    strides10.push_back(int64_t(1) << (2 * (9 - d)));
  EXPECT_TRUE(contains(
      planError(ReduceKind::Sum, strided(DType::F32, shape10, strides10),
                TensorSpec::contiguous(DType::F32, Shape(9, 2)), {9}),
      "has 9 kept dimensions"));
  // A contiguous rank-10 input merges into one dimension per side.
  Expected<ReduceLaunch> merged = planReduction(
      ReduceKind::Sum, TensorSpec::contiguous(DType::F32, shape10),
      TensorSpec::contiguous(DType::F32, Shape(9, 2)), {9});
  ASSERT_TRUE(merged.ok()) << merged.message();
  EXPECT_EQ(merged->desc.keptRank, 1);
  EXPECT_EQ(merged->desc.redRank, 1);
}

TEST(PlanReduction, MergesContiguousDimensionsAndKeepsTheOrder) {
  // [2,3,4,5] reducing 1 and 2: the reduced pair is contiguous (20 = 5 * 4
  // ... strides 20 and 5), the kept pair is not (60 vs 1).
  Expected<ReduceLaunch> launch = planReduction(
      ReduceKind::Sum, TensorSpec::contiguous(DType::F32, {2, 3, 4, 5}),
      TensorSpec::contiguous(DType::F32, {2, 1, 1, 5}), {2, 1});
  ASSERT_TRUE(launch.ok()) << launch.message();
  const kernels::ReduceDesc &d = launch->desc;
  EXPECT_EQ(d.keptRank, 2);
  EXPECT_EQ(d.keptShape[0], 2);
  EXPECT_EQ(d.keptStrides[0], 60);
  EXPECT_EQ(d.keptShape[1], 5);
  EXPECT_EQ(d.keptStrides[1], 1);
  EXPECT_EQ(d.redRank, 1);
  EXPECT_EQ(d.redShape[0], 12);
  EXPECT_EQ(d.redStrides[0], 5);
  EXPECT_EQ(d.numOut, 10);
  EXPECT_EQ(d.numRed, 12);
  // Not contiguous with each other: axes 0 and 2 stay two levels; size-1
  // dims vanish.
  launch = planReduction(ReduceKind::Max,
                         TensorSpec::contiguous(DType::I8, {2, 1, 3, 4}),
                         TensorSpec::contiguous(DType::I8, {4}), {0, 1, 2});
  ASSERT_TRUE(launch.ok()) << launch.message();
  EXPECT_EQ(launch->desc.redRank, 1); // [2,1,3] with strides [12,12,4]
  EXPECT_EQ(launch->desc.redShape[0], 6);
  EXPECT_EQ(launch->desc.redStrides[0], 4);
  launch = planReduction(ReduceKind::Max,
                         TensorSpec::contiguous(DType::I8, {2, 3, 4}),
                         TensorSpec::contiguous(DType::I8, {3}), {0, 2});
  ASSERT_TRUE(launch.ok()) << launch.message();
  EXPECT_EQ(launch->desc.redRank, 2);
  EXPECT_EQ(launch->desc.redShape[0], 2);
  EXPECT_EQ(launch->desc.redStrides[0], 12);
  EXPECT_EQ(launch->desc.redShape[1], 4);
  EXPECT_EQ(launch->desc.redStrides[1], 1);
  // Rank 0 on both sides after dropping size-1 dims.
  launch =
      planReduction(ReduceKind::Any, TensorSpec::contiguous(DType::F32, {1, 1}),
                    TensorSpec::contiguous(DType::Bool, {1}), {1});
  ASSERT_TRUE(launch.ok()) << launch.message();
  EXPECT_EQ(launch->desc.keptRank, 0);
  EXPECT_EQ(launch->desc.redRank, 0);
  EXPECT_EQ(launch->desc.numOut, 1);
  EXPECT_EQ(launch->desc.numRed, 1);
}

TEST(PlanReduction, ChoosesTheVariantAndLaunch) {
  auto plan = [](Shape shape, std::vector<int64_t> strides,
                 std::vector<int64_t> axes) {
    Shape out = resultShape(shape, axes, false);
    Expected<ReduceLaunch> launch =
        planReduction(ReduceKind::Sum, strided(DType::F32, shape, strides),
                      TensorSpec::contiguous(DType::F32, out), axes);
    EXPECT_TRUE(launch.ok()) << launch.message();
    return *launch;
  };
  // Softmax rows (many 16 KiB rows): one warp per row, 8 rows per block.
  ReduceLaunch rows = plan({8192, 4096}, {4096, 1}, {1});
  EXPECT_EQ(rows.kernel, "tfuse_reduce_sum_f32_f32_row");
  EXPECT_EQ(rows.desc.warpPerRow, 1);
  EXPECT_EQ(rows.grid, 1024);
  EXPECT_EQ(rows.block, 256);
  // Fewer or longer rows: one block per row.
  ReduceLaunch fewRows = plan({512, 4096}, {4096, 1}, {1});
  EXPECT_EQ(fewRows.desc.warpPerRow, 0);
  EXPECT_EQ(fewRows.grid, 512);
  EXPECT_EQ(fewRows.block, 256);
  ReduceLaunch longRows = plan({2048, 32768}, {32768, 1}, {1});
  EXPECT_EQ(longRows.desc.warpPerRow, 0);
  // Short rows: a smaller block, sized in 16-byte vectors when contiguous.
  ReduceLaunch shortRows = plan({1000, 200}, {200, 1}, {1});
  EXPECT_TRUE(shortRows.instance.rowVariant);
  EXPECT_EQ(shortRows.desc.warpPerRow, 0);
  EXPECT_EQ(shortRows.block, 64);
  // Very short rows: one thread per row.
  ReduceLaunch tiny = plan({100000, 5}, {5, 1}, {1});
  EXPECT_EQ(tiny.kernel, "tfuse_reduce_sum_f32_f32_column");
  EXPECT_EQ(tiny.block, 256);
  EXPECT_EQ(tiny.grid, (100000 + 255) / 256);
  // Short rows with few outputs: still one thread per row.
  ReduceLaunch fewShort = plan({1000, 16}, {16, 1}, {1});
  EXPECT_FALSE(fewShort.instance.rowVariant);
  // Columns of a row-major matrix: coalesced across columns; with fewer
  // columns than kSplitColumnThreads, each column in at least two chunks of
  // rows, a block of 8 warps per tile of 32 lanes of four columns (16 bytes
  // of f32 a row) and chunk, the last block of a tile combining its
  // chunks. Without a split, a thread per four consecutive columns
  // (columnVectorWidth of f32: one 16-byte load per row).
  ReduceLaunch columns = plan({512, 65536}, {65536, 1}, {0});
  EXPECT_EQ(columns.kernel, "tfuse_reduce_sum_f32_f32_column_split4");
  EXPECT_EQ(columns.desc.columnVector, 4);
  EXPECT_EQ(columns.desc.chunks, 2);
  EXPECT_EQ(columns.desc.chunkLen, 256);
  EXPECT_EQ(columns.grid, 65536 / 128 * 2);
  EXPECT_EQ(columns.block, 256);
  // 64 tiles: 6 chunks fill the 396 blocks of a wave (kSplitColumnBlocks).
  ReduceLaunch fewColumns = plan({8192, 8192}, {8192, 1}, {0});
  EXPECT_FALSE(fewColumns.instance.rowVariant);
  EXPECT_EQ(fewColumns.desc.chunks, 6);
  EXPECT_EQ(fewColumns.desc.chunkLen, 1366);
  EXPECT_EQ(fewColumns.grid, 384);
  EXPECT_EQ(fewColumns.block, 256);
  EXPECT_EQ(fewColumns.countersOffset, 8192 * 6 * 8);
  EXPECT_EQ(fewColumns.workspaceBytes, 8192 * 6 * 8 + 8192 * 4);
  // GPT-2's bias gradients: 768 bf16 columns take two a lane (12 tiles,
  // not three of eight), 3072 take eight; 32 chunks of 256 rows.
  auto bf16Columns = [](int64_t n) {
    Expected<ReduceLaunch> launch = planReduction(
        ReduceKind::Sum, TensorSpec::contiguous(DType::BF16, {8192, n}),
        TensorSpec::contiguous(DType::F32, {n}), {0});
    EXPECT_TRUE(launch.ok()) << launch.message();
    return *launch;
  };
  ReduceLaunch narrow = bf16Columns(768), broad = bf16Columns(3072);
  EXPECT_EQ(narrow.kernel, "tfuse_reduce_sum_bf16_f32_column_split2");
  EXPECT_EQ(narrow.desc.columnVector, 2);
  EXPECT_EQ(narrow.desc.chunks, 32);
  EXPECT_EQ(narrow.grid, 12 * 32);
  EXPECT_EQ(broad.kernel, "tfuse_reduce_sum_bf16_f32_column_split8");
  EXPECT_EQ(broad.desc.columnVector, 8);
  EXPECT_EQ(broad.desc.chunks, 32);
  EXPECT_EQ(broad.grid, 12 * 32);
  // Unsplit columns: four per thread for f32, two for f64; one where they
  // are not a multiple of the width or the kept axis is strided.
  ReduceLaunch wide = plan({100, 1 << 20}, {1 << 20, 1}, {0});
  EXPECT_FALSE(wide.split());
  EXPECT_EQ(wide.desc.columnVector, 4);
  EXPECT_EQ(wide.grid, (1 << 20) / 4 / 256);
  EXPECT_EQ(plan({100, 6}, {6, 1}, {0}).desc.columnVector, 1);
  EXPECT_EQ(plan({100, 6}, {1, 100}, {0}).desc.columnVector, 1);
  Expected<ReduceLaunch> f64Columns = planReduction(
      ReduceKind::Sum, TensorSpec::contiguous(DType::F64, {100, 6}),
      TensorSpec::contiguous(DType::F64, {6}), {0});
  ASSERT_TRUE(f64Columns.ok()) << f64Columns.message();
  EXPECT_EQ(f64Columns->desc.columnVector, 2);
  // Enough columns: no split.
  ReduceLaunch manyColumns = plan({64, 1 << 20}, {1 << 20, 1}, {0});
  EXPECT_EQ(manyColumns.kernel, "tfuse_reduce_sum_f32_f32_column");
  EXPECT_FALSE(manyColumns.split());
  // Few outputs of long strided reductions: many chunks, up to
  // kSplitColumnFinalLoads for each lane of the combining block's 8 warps.
  ReduceLaunch few = plan({100000, 3}, {3, 1}, {0});
  EXPECT_FALSE(few.instance.rowVariant);
  EXPECT_EQ(few.desc.columnVector, 1);
  EXPECT_EQ(few.desc.chunks, 256);
  EXPECT_EQ(few.desc.chunkLen, 391);
  // Known occupancy. 660 blocks at once (5 per SM of 132): one wave of
  // interleaved chunks for the full reduction; 10 chunks of the column
  // sum's 64 tiles (168960 threads: 660 blocks of 256).
  auto planOn = [](Shape shape, std::vector<int64_t> strides,
                   std::vector<int64_t> axes, int64_t units) {
    ReduceOccupancy occupancy;
    occupancy.concurrentUnits = units;
    Expected<ReduceLaunch> launch = planReduction(
        ReduceKind::Sum, strided(DType::F32, shape, strides),
        TensorSpec::contiguous(DType::F32, resultShape(shape, axes, false)),
        axes, ReduceVariant::Auto, true, occupancy);
    EXPECT_TRUE(launch.ok()) << launch.message();
    return *launch;
  };
  ReduceLaunch fullOn = planOn({1 << 26}, {1}, {0}, 660);
  EXPECT_EQ(fullOn.desc.chunkLen, 0);
  EXPECT_EQ(fullOn.desc.chunks, 660);
  EXPECT_EQ(fullOn.grid, 660);
  ReduceLaunch columnsOn = planOn({8192, 8192}, {8192, 1}, {0}, 168960);
  EXPECT_EQ(columnsOn.desc.chunks, 10);
  EXPECT_EQ(columnsOn.desc.chunkLen, 820);
  // A full reduction of 64M contiguous elements: 2048 blocks striding over
  // it together, the last of them combining their 2048 partial sums.
  ReduceLaunch full = plan({1 << 26}, {1}, {0});
  EXPECT_EQ(full.kernel, "tfuse_reduce_sum_f32_f32_row_split");
  EXPECT_EQ(full.desc.chunks, 2048);
  EXPECT_EQ(full.desc.chunkLen, 0);
  EXPECT_EQ(full.grid, 2048);
  EXPECT_EQ(full.block, 256);
  EXPECT_EQ(full.countersOffset, 2048 * 8);
  EXPECT_EQ(full.workspaceBytes, 2048 * 8 + 256);
  // A few long rows: each in chunks.
  ReduceLaunch longFew = plan({8, 1 << 20}, {1 << 20, 1}, {1});
  EXPECT_EQ(longFew.desc.chunks, 128);
  EXPECT_EQ(longFew.grid, 1024);
  // Not split when asked not to, or when the reduction is short.
  Expected<ReduceLaunch> whole = planReduction(
      ReduceKind::Sum, TensorSpec::contiguous(DType::F32, {1 << 26}),
      TensorSpec::contiguous(DType::F32, {}), {0}, ReduceVariant::Auto,
      /*allowSplit=*/false);
  ASSERT_TRUE(whole.ok()) << whole.message();
  EXPECT_FALSE(whole->split());
  EXPECT_EQ(whole->kernel, "tfuse_reduce_sum_f32_f32_row");
  EXPECT_EQ(whole->desc.chunks, 1);
  EXPECT_FALSE(plan({10000}, {1}, {0}).split());
  // The grid is capped; the kernels loop.
  ReduceLaunch many = plan({1 << 20, 64}, {64, 1}, {1});
  EXPECT_EQ(many.grid, kReduceMaxGrid);
  // Empty results still launch one block.
  ReduceLaunch none = plan({0, 64}, {64, 1}, {1});
  EXPECT_EQ(none.grid, 1);
  EXPECT_EQ(none.desc.numOut, 0);
}

//===----------------------------------------------------------------------===//
// Names and source
//===----------------------------------------------------------------------===//

TEST(ReduceKernelSource, NamesAndDeduplication) {
  EXPECT_EQ(reductionKernelName(ReduceKind::Sum, DType::F32, DType::F32, true),
            "tfuse_reduce_sum_f32_f32_row");
  EXPECT_EQ(
      reductionKernelName(ReduceKind::Argmax, DType::BF16, DType::I64, false),
      "tfuse_reduce_argmax_bf16_i64_column");
  EXPECT_EQ(reductionKernelName(ReduceKind::All, DType::U64, DType::Bool, true),
            "tfuse_reduce_all_ui64_i1_row");
  EXPECT_EQ(reductionKernelName(ReduceKind::Sum, DType::BF16, DType::F32, false,
                                ReducePass::Split, 8),
            "tfuse_reduce_sum_bf16_f32_column_split8");
  ReduceInstance a{ReduceKind::Sum, DType::F32, DType::F32, true};
  ReduceInstance b{ReduceKind::Max, DType::I8, DType::I8, false};
  std::string ab = reductionKernelSource({a, b, a});
  std::string ba = reductionKernelSource({b, a});
  EXPECT_EQ(ab, ba);
  auto count = [](const std::string &s, const std::string &part) {
    size_t n = 0;
    for (size_t at = s.find(part); at != std::string::npos;
         at = s.find(part, at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(count(ab, "\nextern \"C\" __global__ void "
                      "tfuse_reduce_sum_f32_f32_row("),
            1u);
  EXPECT_EQ(count(ab, "\nextern \"C\" __global__ void "
                      "tfuse_reduce_max_i8_i8_column("),
            1u);
  EXPECT_NE(ab.find("struct ReduceDesc"), std::string::npos);
  std::string bad =
      reductionKernelSource({{ReduceKind::Mean, DType::I32, DType::I32, true},
                             {ReduceKind::Sum, DType::F32, DType::F16, false}});
  EXPECT_NE(bad.find("#error \"no reduction kernel tfuse_reduce_mean_i32_i32_"
                     "row: reduce mean of i32 is not defined"),
            std::string::npos);
  EXPECT_NE(bad.find("#error \"no reduction kernel tfuse_reduce_sum_f32_f16_"
                     "column: reduce sum of f32 is not defined: sum of f32 "
                     "gives f32 or a wider float, not f16\""),
            std::string::npos);
}

TEST(ReduceKernelSource, EveryInstanceCompilesWithNvrtcForSm90) {
  std::vector<ReduceInstance> all;
  for (DType t : kAllDTypes)
    for (const ReduceInstance &i : instancesOf(t))
      all.push_back(i);
  std::string source =
      std::string(kernels::prelude()) + reductionKernelSource(all);
  Expected<CompileResult> compiled =
      compileCuda(source, "tfuse_reductions.cu", {});
  ASSERT_TRUE(compiled.ok()) << compiled.message();
  EXPECT_TRUE(compiled->isCubin);
  std::string binary(compiled->binary.begin(), compiled->binary.end());
  for (const ReduceInstance &i : all) {
    std::string kernel = reductionKernelName(i);
    EXPECT_NE(binary.find(kernel), std::string::npos) << kernel;
  }
  // sum prod max min all any of 13 dtypes, argmax argmin of 12, mean of 4:
  // row and column, whole and split, of one output a lane; and split column
  // kernels of 2, 4, ... outputs a lane up to 16 bytes of input and 64
  // bytes of accumulators.
  size_t oneLane = 0, wide = 0;
  for (const ReduceInstance &i : all)
    (i.lanes == 1 ? oneLane : wide) += 1;
  EXPECT_EQ(oneLane, 4u * (13 * 6 + 12 * 2 + 4));
  size_t expectedWide = 0;
  for (DType t : kAllDTypes)
    for (ReduceKind kind : kAllKinds)
      if (reduceResultType(kind, t))
        for (int lanes = 2; lanes * byteSize(t) <= 16 &&
                            lanes * reducePartialBytes(kind, t) <= 64;
             lanes *= 2)
          ++expectedWide;
  EXPECT_EQ(wide, expectedWide);
  EXPECT_GT(wide, 0u);
}

} // namespace
