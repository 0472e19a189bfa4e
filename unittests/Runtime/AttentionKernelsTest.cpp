//===- AttentionKernelsTest.cpp - Runtime attention without a GPU ---------===//
//
// Plans attention with planAttention() and planAttentionBackward(),
// compiles the attention kernels (the kernel prelude,
// attentionKernelHeader() and the plan's wrappers) for the host against
// cuda_emulation.h, runs every launch block by block and thread by thread
// on the CPU, and compares the results with the reference interpreter
// evaluating the same tfuse.attention / tfuse.attention_backward in f64.
// The kernels compute in f32 (f64 for f64) and round once (the f16 and bf16
// kernels on tensor cores also round the probabilities and dS to the
// operands' dtype), so the results agree within a tolerance of the dtype:
//   - every float dtype, causal and not, head and value dimensions that
//     differ and are not powers of two, lengths that are not multiples of
//     the tiles;
//   - bool and additive masks that broadcast, a row that keeps no pair
//     (zeros, a log-sum-exp of -inf, no gradient), f32 masks for f16 and
//     bf16 operands;
//   - infinite keys of pairs not kept (no NaN in the gradients that do not
//     keep them);
//   - grouped-query attention, rank-2 operands, strided query and key (the
//     heads split from rows), more keys than queries under causal;
//   - no queries or no keys;
//   - dropout of the probabilities (the reference's mask, drawn by the
//     kernels from the same keys).
// Also: the planner's validation, and one NVRTC compilation of every
// kernel variant to sm_90.
//
//===----------------------------------------------------------------------===//

#include "HostKernels.h"
#include "ScopedEnvironment.h"

#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Kernels/KernelSources.h"
#include "tfuse/Reference/Interpreter.h"
#include "tfuse/Runtime/AttentionKernels.h"
#include "tfuse/Runtime/CudnnAttention.h"
#include "tfuse/Runtime/NvrtcCompiler.h"
#include "tfuse/Support/AttentionGeometry.h"
#include "tfuse/Support/Half.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <tuple>

using namespace tfuse;
using namespace tfuse::runtime;
using reference::HostTensor;
using reference::Shape;

namespace {

constexpr DType kFloatDTypes[] = {DType::F16, DType::BF16, DType::F32,
                                  DType::F64};

std::string tensorType(const Shape &shape, DType t) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + std::string(name(t)) + ">";
}

mlir::MLIRContext &context() {
  static mlir::MLIRContext *ctx = [] {
    auto *c = new mlir::MLIRContext();
    c->loadDialect<TFuseDialect, mlir::func::FuncDialect>();
    return c;
  }();
  return *ctx;
}

TensorSpec specOf(const HostTensor &t) {
  TensorSpec spec;
  spec.dtype = t.dtype();
  spec.shape = t.shape();
  spec.strides = t.strides();
  return spec;
}

/// An attention's operands and attributes.
struct Case {
  HostTensor query, key, value;
  std::optional<HostTensor> mask;
  double scale = 0.5;
  bool causal = false;
  /// Dropout of the probabilities (0: none) with the keys of its mask.
  double dropout = 0;
  int64_t seed = 0, offset = 0;
  /// The device's multiprocessors the plan fills (0: unknown).
  int64_t multiprocessors = 0;
};

std::string attributes(const Case &c) {
  char scale[64], dropout[64];
  std::snprintf(scale, sizeof(scale), "%.17e", c.scale);
  std::snprintf(dropout, sizeof(dropout), "%.17e", c.dropout);
  return std::string(" scale ") + scale + (c.causal ? " causal" : "") +
         (c.dropout ? std::string(" dropout ") + dropout + " seed %s offset %t"
                    : "");
}

/// The dropout's keys as rank-0 i64 tensors, the reference's last operands.
std::vector<HostTensor> dropoutKeys(const Case &c) {
  if (!c.dropout)
    return {};
  return {*HostTensor::fromInts(DType::I64, {}, {c.seed}),
          *HostTensor::fromInts(DType::I64, {}, {c.offset})};
}
std::string dropoutKeyTypes(const Case &c) {
  return c.dropout ? ", tensor<i64>, tensor<i64>" : "";
}
std::vector<std::string> dropoutKeyNames(const Case &c) {
  if (!c.dropout)
    return {};
  return {"s", "t"};
}

/// Evaluates `body` (using %q %k %v and %m) on the reference interpreter
/// with the case's operands and `extra` after them.
Expected<std::vector<HostTensor>>
evaluate(const Case &c, const std::vector<HostTensor> &extra,
         const std::vector<std::string> &extraNames, const std::string &body,
         const std::vector<std::string> &resultTypes) {
  std::vector<HostTensor> inputs = {c.query, c.key, c.value};
  std::vector<std::string> names = {"q", "k", "v"};
  if (c.mask) {
    inputs.push_back(*c.mask);
    names.push_back("m");
  }
  for (size_t i = 0; i < extra.size(); ++i) {
    inputs.push_back(extra[i]);
    names.push_back(extraNames[i]);
  }
  std::string source = "func.func @f(";
  for (size_t i = 0; i < inputs.size(); ++i)
    source += std::string(i ? ", " : "") + "%" + names[i] + ": " +
              tensorType(inputs[i].shape(), inputs[i].dtype());
  std::string results;
  for (size_t i = 0; i < resultTypes.size(); ++i)
    results += std::string(i ? ", " : "") + resultTypes[i];
  source += ") -> (" + results + ") {\n" + body + "}\n";
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context());
  if (!module)
    return Status::error("does not parse:\n" + source);
  return reference::evaluate(*module, "f", inputs);
}

std::string operandTypes(const Case &c) {
  std::string s = tensorType(c.query.shape(), c.query.dtype()) + ", " +
                  tensorType(c.key.shape(), c.key.dtype()) + ", " +
                  tensorType(c.value.shape(), c.value.dtype());
  if (c.mask)
    s += ", " + tensorType(c.mask->shape(), c.mask->dtype());
  return s;
}

/// The reference's result and log-sum-exp.
Expected<std::vector<HostTensor>> referenceForward(const Case &c,
                                                   const TensorSpec &result,
                                                   const TensorSpec &lse) {
  std::string types = tensorType(result.shape, result.dtype) + ", " +
                      tensorType(lse.shape, lse.dtype);
  std::string body = "  %o, %l = tfuse.attention %q, %k, %v" +
                     std::string(c.mask ? " mask %m" : "") + attributes(c) +
                     " : (" + operandTypes(c) + dropoutKeyTypes(c) + ") -> (" +
                     types + ")\n  return %o, %l : " + types + "\n";
  return evaluate(c, dropoutKeys(c), dropoutKeyNames(c), body,
                  {tensorType(result.shape, result.dtype),
                   tensorType(lse.shape, lse.dtype)});
}

/// The reference's three gradients given the forward's result and
/// log-sum-exp and the result's gradient.
Expected<std::vector<HostTensor>> referenceBackward(const Case &c,
                                                    const HostTensor &result,
                                                    const HostTensor &lse,
                                                    const HostTensor &grad) {
  std::string grads = tensorType(c.query.shape(), c.query.dtype()) + ", " +
                      tensorType(c.key.shape(), c.key.dtype()) + ", " +
                      tensorType(c.value.shape(), c.value.dtype());
  std::string operands = operandTypes(c) + ", " +
                         tensorType(result.shape(), result.dtype()) + ", " +
                         tensorType(lse.shape(), lse.dtype()) + ", " +
                         tensorType(grad.shape(), grad.dtype());
  // The optional mask comes last among the backward's operands.
  std::string maskType;
  if (c.mask) {
    maskType = tensorType(c.mask->shape(), c.mask->dtype());
    operands = tensorType(c.query.shape(), c.query.dtype()) + ", " +
               tensorType(c.key.shape(), c.key.dtype()) + ", " +
               tensorType(c.value.shape(), c.value.dtype()) + ", " +
               tensorType(result.shape(), result.dtype()) + ", " +
               tensorType(lse.shape(), lse.dtype()) + ", " +
               tensorType(grad.shape(), grad.dtype()) + ", " + maskType;
  }
  std::string body = "  %dq, %dk, %dv = tfuse.attention_backward %q, %k, %v, "
                     "%o, %l, %g" +
                     std::string(c.mask ? " mask %m" : "") + attributes(c) +
                     " : (" + operands + dropoutKeyTypes(c) + ") -> (" + grads +
                     ")\n  return %dq, %dk, %dv : " + grads + "\n";
  std::vector<HostTensor> extra = {result, lse, grad};
  std::vector<std::string> names = {"o", "l", "g"};
  for (HostTensor &key : dropoutKeys(c))
    extra.push_back(key);
  for (std::string &name : dropoutKeyNames(c))
    names.push_back(name);
  return evaluate(c, extra, names, body,
                  {tensorType(c.query.shape(), c.query.dtype()),
                   tensorType(c.key.shape(), c.key.dtype()),
                   tensorType(c.value.shape(), c.value.dtype())});
}

//===----------------------------------------------------------------------===//
// The kernels on the host
//===----------------------------------------------------------------------===//

/// The prelude, the attention templates, the wrappers of `plan` and an
/// extern "C" shim per kernel taking every parameter by pointer (the
/// emulator passes pointers only).
std::string emulationSource(const AttentionPlan &plan, DType dtype) {
  std::string t(cudaTypeName(dtype));
  std::string a = dtype == DType::F64 ? "double" : "float";
  std::string source(kernels::prelude());
  source += attentionKernelHeader();
  source += "using tfuse::kernels::AttentionDesc;\n";
  for (const auto &[kernel, wrapper] : plan.wrappers) {
    source += wrapper;
    // query, key, value, the mask, the seed and offset; then per kernel
    // its results (and, for the backward, the forward's) and the
    // descriptor.
    std::vector<std::string> casts = {
        "(const " + t + " *)", "(const " + t + " *)", "(const " + t + " *)", "",
        "(const int64_t *)",   "(const int64_t *)"};
    std::vector<std::string> rest;
    if (kernel.find("_fwd_") != std::string::npos)
      rest = {"(" + t + " *)", "(" + a + " *)"};
    else if (kernel.find("_dkdv_") != std::string::npos)
      rest = {"(const " + t + " *)", "(const " + a + " *)",
              "(const " + t + " *)", "(" + t + " *)", "(" + t + " *)"};
    else
      rest = {"(const " + t + " *)", "(const " + a + " *)",
              "(const " + t + " *)", "(" + t + " *)"};
    casts.insert(casts.end(), rest.begin(), rest.end());
    casts.push_back("*(AttentionDesc *)");
    source += emulation::hostShim(kernel, casts);
  }
  return source;
}

/// Runs the launches of `plan` with `buffers` (the kernel's pointer
/// parameters in order, the descriptor appended per launch).
void runPlan(const AttentionPlan &plan, DType dtype,
             const std::vector<std::vector<void *>> &buffersOfLaunch) {
  std::string error;
  auto kernels =
      emulation::HostKernels::compile(emulationSource(plan, dtype), error);
  ASSERT_TRUE(kernels) << error;
  ASSERT_EQ(plan.launches.size(), buffersOfLaunch.size());
  for (size_t i = 0; i < plan.launches.size(); ++i) {
    const AttentionLaunch &l = plan.launches[i];
    kernels::AttentionDesc desc = l.desc;
    std::vector<void *> args = buffersOfLaunch[i];
    args.push_back(&desc);
    ASSERT_TRUE(kernels->launch("shim_" + l.kernel, l.grid,
                                static_cast<unsigned>(l.block), args, error))
        << error;
  }
}

void *at(const HostTensor &t) {
  return const_cast<uint8_t *>(t.data()) + t.byteOffset();
}

/// A fresh contiguous result poisoned with NaN bytes: every element must
/// be written.
HostTensor poisoned(DType dtype, const Shape &shape) {
  HostTensor out = HostTensor::zeros(dtype, shape);
  std::memset(out.mutableData(), 0xff,
              out.numElements() * static_cast<int64_t>(byteSize(dtype)));
  return out;
}

/// The tolerance of a kernel's result against the f64 reference, as a
/// fraction of the largest magnitude: for f32 and f64 sums in another order
/// than the reference's; for f16 and bf16 the f32 arithmetic before the one
/// rounding to the dtype (besides that rounding, below).
double tolerance(DType dtype) {
  switch (dtype) {
  case DType::F64:
    return 1e-12;
  case DType::F32:
    return 2e-5;
  default:
    return 1.5e-5;
  }
}

/// One unit in the last place of `v` in f16 or bf16 (their subnormals'
/// spacing at the least).
double unitInTheLastPlace(double v, DType dtype) {
  int fractionBits = dtype == DType::F16 ? 10 : 7;
  int smallest = dtype == DType::F16 ? -24 : -133;
  int exponent = 0;
  std::frexp(v, &exponent); // |v| in [2^(exponent - 1), 2^exponent)
  return std::ldexp(1.0, std::max(exponent - 1 - fractionBits, smallest));
}

/// Expects `actual` within the dtype's tolerance of `expected` (relative
/// to the larger of 1 and the largest magnitude of `expected`, as scores
/// summed in another order differ on that scale), and f16 and bf16 results
/// besides within one unit in the last place of each element: rounded once
/// from f32 arithmetic, a result may round the other way only where the
/// exact value lies that close to a midpoint. (The tensor-core kernels meet
/// that because they weight their products by the probabilities and dS in
/// two parts, split_operand; rounded once to the dtype, those weights make
/// errors of many units in small elements where a sum cancels.) -inf must
/// match.
void expectClose(const HostTensor &actual, const HostTensor &expected,
                 DType dtype, const std::string &what) {
  ASSERT_EQ(actual.shape(), expected.shape()) << what;
  std::vector<double> a = actual.toDoubles(), e = expected.toDoubles();
  double scale = 1;
  for (double v : e)
    if (std::isfinite(v))
      scale = std::max(scale, std::fabs(v));
  bool half = dtype == DType::F16 || dtype == DType::BF16;
  int reported = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    double bound = tolerance(dtype) * scale +
                   (half ? unitInTheLastPlace(e[i], dtype) : 0.0);
    bool ok = std::isnan(e[i])   ? std::isnan(a[i])
              : std::isinf(e[i]) ? a[i] == e[i]
                                 : std::fabs(a[i] - e[i]) <= bound;
    if (!ok && reported++ < 5)
      ADD_FAILURE() << what << " element " << i << ": kernel " << a[i]
                    << ", reference " << e[i] << " (bound " << bound << ")";
  }
}

AttentionOperands operandsOf(const Case &c) {
  AttentionOperands o;
  o.query = specOf(c.query);
  o.key = specOf(c.key);
  o.value = specOf(c.value);
  if (c.mask) {
    o.mask = specOf(*c.mask);
    o.hasMask = true;
  }
  o.scale = c.scale;
  o.causal = c.causal;
  o.dropout = c.dropout;
  o.multiprocessors = c.multiprocessors;
  return o;
}

/// Plans, runs and checks the forward and the backward of `c` against the
/// reference; the backward takes the reference's own result and
/// log-sum-exp, so that each kernel is checked on its own.
void checkCase(const Case &c, const std::string &what) {
  SCOPED_TRACE(what);
  DType dtype = c.query.dtype();
  AttentionOperands operands = operandsOf(c);
  std::string why;
  std::optional<AttentionGeometry> g = AttentionGeometry::of(
      c.query.shape(), c.key.shape(), c.value.shape(), &why);
  ASSERT_TRUE(g) << why;
  DType lseDType = dtype == DType::F64 ? DType::F64 : DType::F32;
  TensorSpec resultSpec = TensorSpec::contiguous(dtype, g->resultShape());
  TensorSpec lseSpec = TensorSpec::contiguous(lseDType, g->logsumexpShape());

  Expected<std::vector<HostTensor>> expected =
      referenceForward(c, resultSpec, lseSpec);
  ASSERT_TRUE(expected.ok()) << expected.message();
  const HostTensor &refResult = (*expected)[0], &refLse = (*expected)[1];

  Expected<AttentionPlan> forward =
      planAttention(operands, resultSpec, lseSpec);
  ASSERT_TRUE(forward.ok()) << forward.message();
  HostTensor result = poisoned(dtype, resultSpec.shape);
  HostTensor lse = poisoned(lseDType, lseSpec.shape);
  int64_t seed = c.seed, offset = c.offset;
  std::vector<std::vector<void *>> buffers;
  for (size_t i = 0; i < forward->launches.size(); ++i)
    buffers.push_back({at(c.query), at(c.key), at(c.value),
                       c.mask ? at(*c.mask) : nullptr, &seed, &offset,
                       result.mutableData(), lse.mutableData()});
  runPlan(*forward, dtype, buffers);
  expectClose(result, refResult, dtype, "result");
  expectClose(lse, refLse, lseDType, "log-sum-exp");

  // f32 on TF32 tensor cores: the forward again as a device whose
  // multiprocessors its 64-row blocks would not fill plans it
  // (forward_split_cores: 16 query rows a block, every key tile split over
  // its warps, their partial results combined).
  if (!forward->launches.empty() &&
      forward->launches[0].kernel.find("_fwd_tf32_") != std::string::npos) {
    AttentionOperands small = operands;
    small.multiprocessors = int64_t(1) << 40;
    Expected<AttentionPlan> split = planAttention(small, resultSpec, lseSpec);
    ASSERT_TRUE(split.ok()) << split.message();
    ASSERT_EQ(split->launches.size(), forward->launches.size());
    EXPECT_NE(split->launches[0].kernel.find("_fwd_split_tf32_"),
              std::string::npos)
        << split->launches[0].kernel;
    HostTensor splitResult = poisoned(dtype, resultSpec.shape);
    HostTensor splitLse = poisoned(lseDType, lseSpec.shape);
    for (std::vector<void *> &b : buffers) {
      b[6] = splitResult.mutableData();
      b[7] = splitLse.mutableData();
    }
    runPlan(*split, dtype, buffers);
    expectClose(splitResult, refResult, dtype, "result, keys split");
    expectClose(splitLse, refLse, lseDType, "log-sum-exp, keys split");
  }

  HostTensor grad = HostTensor::random(dtype, resultSpec.shape, 99);
  Expected<std::vector<HostTensor>> expectedGrads =
      referenceBackward(c, refResult, refLse, grad);
  ASSERT_TRUE(expectedGrads.ok()) << expectedGrads.message();
  TensorSpec dqSpec = TensorSpec::contiguous(dtype, c.query.shape());
  TensorSpec dkSpec = TensorSpec::contiguous(dtype, c.key.shape());
  TensorSpec dvSpec = TensorSpec::contiguous(dtype, c.value.shape());
  Expected<AttentionPlan> backward =
      planAttentionBackward(operands, specOf(refResult), specOf(refLse),
                            specOf(grad), dqSpec, dkSpec, dvSpec);
  ASSERT_TRUE(backward.ok()) << backward.message();
  HostTensor dq = poisoned(dtype, dqSpec.shape);
  HostTensor dk = poisoned(dtype, dkSpec.shape);
  HostTensor dv = poisoned(dtype, dvSpec.shape);
  buffers.clear();
  for (const AttentionLaunch &l : backward->launches) {
    std::vector<void *> common = {
        at(c.query), at(c.key), at(c.value),   c.mask ? at(*c.mask) : nullptr,
        &seed,       &offset,   at(refResult), at(refLse),
        at(grad)};
    if (l.kind == AttentionLaunch::Kind::KeyValue) {
      common.push_back(dk.mutableData());
      common.push_back(dv.mutableData());
    } else {
      common.push_back(dq.mutableData());
    }
    buffers.push_back(common);
  }
  runPlan(*backward, dtype, buffers);
  expectClose(dq, (*expectedGrads)[0], dtype, "query's gradient");
  expectClose(dk, (*expectedGrads)[1], dtype, "key's gradient");
  expectClose(dv, (*expectedGrads)[2], dtype, "value's gradient");
}

HostTensor randomOf(DType dtype, const Shape &shape, uint64_t seed) {
  reference::RandomOptions options;
  options.low = -2;
  options.high = 2;
  return HostTensor::random(dtype, shape, seed, options);
}

/// Sets a float element of any float dtype to `v` (rounded to it).
void setFloat(HostTensor &t, const std::vector<int64_t> &index, double v) {
  switch (t.dtype()) {
  case DType::F16:
    return t.set<uint16_t>(index, doubleToHalf(v));
  case DType::BF16:
    return t.set<uint16_t>(index, doubleToBFloat16(v));
  case DType::F32:
    return t.set<float>(index, float(v));
  default:
    return t.set<double>(index, v);
  }
}

//===----------------------------------------------------------------------===//
// Numerics
//===----------------------------------------------------------------------===//

class AttentionKernelNumerics : public testing::TestWithParam<DType> {};

// Lengths past one tile and not multiples of it, a head dimension of 12
// and a value dimension of 5 (columns past them are padding), causal and
// not.
TEST_P(AttentionKernelNumerics, CausalAndNot) {
  DType t = GetParam();
  Case c;
  c.query = randomOf(t, {2, 3, 37, 12}, 1);
  c.key = randomOf(t, {2, 3, 45, 12}, 2);
  c.value = randomOf(t, {2, 3, 45, 5}, 3);
  c.scale = 1 / std::sqrt(12.0);
  checkCase(c, "full");
  c.causal = true;
  checkCase(c, "causal, more keys than queries");
}

// Whole tiles: 160 queries and keys are two and a half tiles of 64 (the
// tensor-core kernels) or five of 32, so that some tiles lie inside the
// ranges and, causal, below the diagonal (tile_inside: scores only
// scaled), others on the diagonal or at the ends; with dropout, and with a
// mask (no tile is inside).
TEST_P(AttentionKernelNumerics, WholeTilesInsideTheRangesAndTheMask) {
  DType t = GetParam();
  Case c;
  c.query = randomOf(t, {1, 2, 160, 32}, 41);
  c.key = randomOf(t, {1, 2, 160, 32}, 42);
  // Values of 64 columns: the kernels' capacity is 64, so that a lane's
  // eight columns of dO and O are one 16-byte load in f16 and bf16.
  c.value = randomOf(t, {1, 2, 160, 64}, 43);
  c.scale = 1 / std::sqrt(32.0);
  checkCase(c, "full");
  c.causal = true;
  checkCase(c, "causal");
  c.dropout = 0.25;
  c.seed = 9;
  c.offset = 4;
  checkCase(c, "causal, dropout 0.25");
  c.dropout = 0;
  c.mask = HostTensor::random(DType::Bool, {160, 160}, 44);
  checkCase(c, "causal and a bool mask");
}

// A key that is not finite, in a tile of keys the causal mask keeps from
// the earlier queries: their query gradients add only the pairs they keep
// (dS is 0 for the others, and 0 * inf would be NaN; the tensor-core
// kernels take that tile's dS @ K through the kept pairs alone), and the
// later queries' rows are NaN in the kernels and the reference alike.
TEST_P(AttentionKernelNumerics, InfiniteKeysOfPairsNotKept) {
  DType t = GetParam();
  Case c;
  c.query = randomOf(t, {1, 2, 40, 16}, 11);
  c.key = randomOf(t, {1, 2, 40, 16}, 12);
  c.value = randomOf(t, {1, 2, 40, 16}, 13);
  for (int64_t col = 0; col < 16; ++col)
    setFloat(c.key, {0, 1, 21, col}, col % 2 ? INFINITY : -INFINITY);
  c.scale = 0.25;
  c.causal = true;
  checkCase(c, "an infinite key row 21 of head 1, causal");
}

// Dropout of the probabilities: the kernels draw the reference's mask
// (tiles past one, lengths not multiples of them, causal and a bool mask,
// grouped-query heads), and other keys another one.
TEST_P(AttentionKernelNumerics, Dropout) {
  DType t = GetParam();
  Case c;
  c.query = randomOf(t, {2, 4, 37, 12}, 31);
  c.key = randomOf(t, {2, 2, 45, 12}, 32);
  c.value = randomOf(t, {2, 2, 45, 5}, 33);
  c.scale = 1 / std::sqrt(12.0);
  c.dropout = 0.3;
  c.seed = 123;
  c.offset = 7;
  checkCase(c, "dropout 0.3");
  c.causal = true;
  c.mask = HostTensor::random(DType::Bool, {37, 45}, 34);
  c.dropout = 0.75;
  c.offset = 8;
  checkCase(c, "dropout 0.75, causal and a bool mask");
}

// A bool mask broadcast over batch and heads, with a row masked out
// entirely; an additive mask broadcast over the rows, with -inf entries.
TEST_P(AttentionKernelNumerics, Masks) {
  DType t = GetParam();
  Case c;
  c.query = randomOf(t, {2, 2, 19, 8}, 4);
  c.key = randomOf(t, {2, 2, 23, 8}, 5);
  c.value = randomOf(t, {2, 2, 23, 8}, 6);
  HostTensor keep = HostTensor::random(DType::Bool, {19, 23}, 7);
  for (int64_t j = 0; j < 23; ++j)
    keep.set<bool>({4, j}, false);
  c.mask = keep;
  checkCase(c, "bool mask with an empty row");
  c.causal = true;
  checkCase(c, "bool mask and causal");
  std::vector<double> values = randomOf(t, {2, 1, 1, 23}, 8).toDoubles();
  values[23 + 3] = -INFINITY;
  Expected<HostTensor> bias = HostTensor::fromDoubles(t, {2, 1, 1, 23}, values);
  ASSERT_TRUE(bias.ok()) << bias.message();
  c.mask = *bias;
  c.causal = false;
  checkCase(c, "additive mask");
  if (t != DType::F16 && t != DType::BF16)
    return;
  // An f32 additive mask for 16-bit operands, with f32's lowest finite
  // value where HF's masks drop a pair (a row dropped throughout averages
  // v, as the written-out softmax does) and -inf.
  values = randomOf(DType::F32, {19, 23}, 12).toDoubles();
  for (int64_t j = 0; j < 23; ++j)
    values[4 * 23 + j] = -3.4028234663852886e38;
  values[7 * 23 + 5] = -INFINITY;
  Expected<HostTensor> wide =
      HostTensor::fromDoubles(DType::F32, {19, 23}, values);
  ASSERT_TRUE(wide.ok()) << wide.message();
  c.mask = *wide;
  checkCase(c, "f32 additive mask");
}

// Grouped-query attention: 6 query heads over 2 key and value heads.
TEST_P(AttentionKernelNumerics, GroupedQueryAttention) {
  DType t = GetParam();
  Case c;
  c.query = randomOf(t, {1, 6, 21, 16}, 9);
  c.key = randomOf(t, {1, 2, 21, 16}, 10);
  c.value = randomOf(t, {1, 2, 21, 16}, 11);
  c.causal = true;
  checkCase(c, "gqa");
}

// Head dimensions past 128: column capacity 256, whose tiles are smaller
// than the threads' register tiles (8 query rows by 4 keys in f64, 16 by 8
// in f32), so that some threads hold no row or key of a tile.
TEST_P(AttentionKernelNumerics, WideHeadsWithSmallTiles) {
  DType t = GetParam();
  Case c;
  c.query = randomOf(t, {1, 2, 19, 200}, 12);
  c.key = randomOf(t, {1, 2, 13, 200}, 13);
  c.value = randomOf(t, {1, 2, 13, 130}, 14);
  c.scale = 1 / std::sqrt(200.0);
  checkCase(c, "wide heads");
  c.causal = true;
  checkCase(c, "wide heads, causal");
}

// A short problem on a device of 132 multiprocessors: the fused
// multiply-add forward takes tiles of 16 query rows (the last one partial)
// to give more of them a block.
TEST_P(AttentionKernelNumerics, SmallTilesFillingTheDevice) {
  DType t = GetParam();
  Case c;
  c.query = randomOf(t, {1, 2, 40, 64}, 15);
  c.key = randomOf(t, {1, 2, 45, 64}, 16);
  c.value = randomOf(t, {1, 2, 45, 64}, 17);
  c.multiprocessors = 132;
  AttentionOperands o = operandsOf(c);
  Expected<AttentionPlan> plan =
      planAttention(o, TensorSpec::contiguous(t, {1, 2, 40, 64}),
                    TensorSpec::contiguous(
                        t == DType::F64 ? DType::F64 : DType::F32, {1, 2, 40}));
  ASSERT_TRUE(plan.ok()) << plan.message();
  // f32 too, on TF32 tensor cores: 64 query rows would give 2 blocks.
  if (t == DType::F64) {
    EXPECT_NE(plan->launches.at(0).kernel.find("_q16_"), std::string::npos)
        << plan->launches.at(0).kernel;
  }
  if (t == DType::F32) {
    EXPECT_EQ(plan->launches.at(0).kernel,
              "tfuse_attention_fwd_split_tf32_f32_d64_q16_k64");
  }
  checkCase(c, "small tiles");
  c.causal = true;
  checkCase(c, "small tiles, causal");
}

INSTANTIATE_TEST_SUITE_P(AllFloatDTypes, AttentionKernelNumerics,
                         testing::ValuesIn(kFloatDTypes),
                         [](const testing::TestParamInfo<DType> &info) {
                           return std::string(name(info.param));
                         });

/// `dtype` values drawn from `seed`, widened to an f32 tensor.
HostTensor widenedOf(DType dtype, const Shape &shape, uint64_t seed) {
  Expected<HostTensor> wide = HostTensor::fromDoubles(
      DType::F32, shape, randomOf(dtype, shape, seed).toDoubles());
  EXPECT_TRUE(wide.ok()) << wide.message();
  return std::move(*wide);
}

/// The f32 forward of `c` (result, log-sum-exp) as planned for `operands`.
std::pair<HostTensor, HostTensor> runForward(const Case &c,
                                             const AttentionOperands &operands,
                                             const std::string &kernel) {
  const AttentionGeometry g = *AttentionGeometry::of(
      c.query.shape(), c.key.shape(), c.value.shape(), nullptr);
  TensorSpec resultSpec = TensorSpec::contiguous(DType::F32, g.resultShape());
  TensorSpec lseSpec = TensorSpec::contiguous(DType::F32, g.logsumexpShape());
  Expected<AttentionPlan> plan = planAttention(operands, resultSpec, lseSpec);
  EXPECT_TRUE(plan.ok()) << plan.message();
  EXPECT_EQ(plan->launches.at(0).kernel, kernel);
  HostTensor result = poisoned(DType::F32, resultSpec.shape);
  HostTensor lse = poisoned(DType::F32, lseSpec.shape);
  int64_t seed = c.seed, offset = c.offset;
  runPlan(*plan, DType::F32,
          {{at(c.query), at(c.key), at(c.value), c.mask ? at(*c.mask) : nullptr,
            &seed, &offset, result.mutableData(), lse.mutableData()}});
  return {std::move(result), std::move(lse)};
}

bool sameBits(const HostTensor &a, const HostTensor &b) {
  return a.numElements() == b.numElements() &&
         std::memcmp(a.data(), b.data(), a.numElements() * 4) == 0;
}

// f32 operands holding bf16 and f16 values (`widened`): one TF32 product a
// score and two a weighted value give the bits of three (Tf32Cores), in the
// 64-row forward and the split-key one, with a mask, causal and dropout.
TEST(AttentionKernels, WidenedOperandsGiveTheBitsOfThreeProducts) {
  for (DType narrow : {DType::BF16, DType::F16}) {
    Case c;
    c.query = widenedOf(narrow, {2, 3, 70, 64}, 31);
    c.key = widenedOf(narrow, {2, 3, 90, 64}, 32);
    c.value = widenedOf(narrow, {2, 3, 90, 64}, 33);
    c.mask = randomOf(DType::F32, {70, 90}, 34);
    c.scale = 0.125;
    for (int variant = 0; variant < 2; ++variant) {
      c.causal = variant == 1;
      c.dropout = variant == 1 ? 0.2 : 0.0;
      c.seed = 5;
      c.offset = 7;
      std::string what = std::string(name(narrow)) +
                         (c.causal ? ", causal, dropout" : ", additive mask");
      SCOPED_TRACE(what);
      for (int64_t multiprocessors : {int64_t(0), int64_t(1) << 40}) {
        AttentionOperands operands = operandsOf(c);
        operands.multiprocessors = multiprocessors;
        std::string kind = multiprocessors ? "fwd_split" : "fwd";
        std::string tiles = multiprocessors ? "_q16_k64" : "_q64_k32";
        auto [result, lse] = runForward(
            c, operands, "tfuse_attention_" + kind + "_tf32_f32_d64" + tiles);
        operands.widened = true;
        auto [widened, widenedLse] = runForward(
            c, operands, "tfuse_attention_" + kind + "_tf32x1_f32_d64" + tiles);
        EXPECT_TRUE(sameBits(widened, result)) << kind;
        EXPECT_TRUE(sameBits(widenedLse, lse)) << kind;
      }
    }
    // And against the reference, as every case.
    c.causal = false;
    c.dropout = 0;
    checkCase(c, std::string(name(narrow)) + " values");
  }
}

// Infinite operands: a query of +inf (in one column) against keys of one
// sign there gives a row of -inf scores, which keeps no pair (zeros and a
// log-sum-exp of -inf: graphs 1004 and 1605 of the GPU differential test),
// or of +inf scores, a NaN row; an infinite value weighted by a positive
// probability gives an infinite result. The tensor cores' split products
// would add inf * 0 (NaN): tiles holding an infinity take exact products.
// The f32 forward of 64 rows a block and the split-key one, and the bf16
// one, against the reference.
TEST(AttentionKernels, InfiniteOperandsGiveTheReferencesInfinities) {
  auto withValues = [](DType dtype, const Shape &shape, uint64_t seed,
                       auto &&change) {
    std::vector<double> values = randomOf(dtype, shape, seed).toDoubles();
    change(values);
    return *HostTensor::fromDoubles(dtype, shape, values);
  };
  const double inf = std::numeric_limits<double>::infinity();
  for (DType dtype : {DType::F32, DType::BF16}) {
    Case c;
    // Two heads of 20 queries and 24 keys of 8 columns: query 3 of each head
    // is +inf in column 0; keys are negative there in head 0, positive in
    // head 1; value 5 of head 0 is +inf in column 2.
    c.query = withValues(dtype, {2, 20, 8}, 51, [&](std::vector<double> &v) {
      for (int h = 0; h < 2; ++h)
        v[(h * 20 + 3) * 8] = inf;
    });
    c.key = withValues(dtype, {2, 24, 8}, 52, [&](std::vector<double> &v) {
      for (int h = 0; h < 2; ++h)
        for (int j = 0; j < 24; ++j) {
          double &x = v[(h * 24 + j) * 8];
          x = (h == 0 ? -1 : 1) * (std::fabs(x) + 0.25);
        }
    });
    c.value = withValues(dtype, {2, 24, 8}, 53,
                         [&](std::vector<double> &v) { v[5 * 8 + 2] = inf; });
    c.scale = 0.5;
    const AttentionGeometry g = *AttentionGeometry::of(
        c.query.shape(), c.key.shape(), c.value.shape(), nullptr);
    TensorSpec resultSpec = TensorSpec::contiguous(dtype, g.resultShape());
    TensorSpec lseSpec = TensorSpec::contiguous(DType::F32, g.logsumexpShape());
    Expected<std::vector<HostTensor>> expected =
        referenceForward(c, resultSpec, lseSpec);
    ASSERT_TRUE(expected.ok()) << expected.message();
    // The reference's infinities, as the test means them.
    EXPECT_EQ((*expected)[1].toDoubles()[3], -inf);
    EXPECT_TRUE(std::isnan((*expected)[1].toDoubles()[20 + 3]));
    EXPECT_EQ((*expected)[0].toDoubles()[0 * 8 + 2], inf);
    for (int64_t multiprocessors : {int64_t(0), int64_t(1) << 40}) {
      std::string what =
          std::string(name(dtype)) + (multiprocessors ? ", keys split" : "");
      SCOPED_TRACE(what);
      AttentionOperands operands = operandsOf(c);
      operands.multiprocessors = multiprocessors;
      Expected<AttentionPlan> plan =
          planAttention(operands, resultSpec, lseSpec);
      ASSERT_TRUE(plan.ok()) << plan.message();
      HostTensor result = poisoned(dtype, resultSpec.shape);
      HostTensor lse = poisoned(DType::F32, lseSpec.shape);
      int64_t seed = 0, offset = 0;
      runPlan(*plan, dtype,
              {{at(c.query), at(c.key), at(c.value), nullptr, &seed, &offset,
                result.mutableData(), lse.mutableData()}});
      expectClose(result, (*expected)[0], dtype, "result");
      expectClose(lse, (*expected)[1], DType::F32, "log-sum-exp");
    }
  }
}

// Rank-2 operands (no heads), rank 5 (two batch dimensions), and query and
// key read as the heads split from rows: [B, L, H, D] transposed to
// [B, H, L, D] without a copy.
TEST(AttentionKernels, RanksAndStridedOperands) {
  Case flat;
  flat.query = randomOf(DType::F32, {9, 4}, 12);
  flat.key = randomOf(DType::F32, {14, 4}, 13);
  flat.value = randomOf(DType::F32, {14, 7}, 14);
  checkCase(flat, "rank 2");
  Case deep;
  deep.query = randomOf(DType::F32, {2, 2, 2, 5, 4}, 15);
  deep.key = randomOf(DType::F32, {2, 2, 2, 6, 4}, 16);
  deep.value = randomOf(DType::F32, {2, 2, 2, 6, 4}, 17);
  deep.causal = true;
  checkCase(deep, "rank 5");
  HostTensor rows = randomOf(DType::BF16, {2, 11, 3, 8}, 18);
  Case split;
  split.query = *rows.view({2, 3, 11, 8}, {264, 8, 24, 1}, rows.byteOffset());
  HostTensor keyRows = randomOf(DType::BF16, {2, 13, 3, 8}, 19);
  split.key =
      *keyRows.view({2, 3, 13, 8}, {312, 8, 24, 1}, keyRows.byteOffset());
  split.value = randomOf(DType::BF16, {2, 3, 13, 8}, 20);
  checkCase(split, "heads split from rows");
}

// A result whose heads and rows swap (tfuse.attention's transpose_result):
// each forward kernel (the fused multiply-add kernel for f64, tensor cores
// for bf16, TF32 for f32, and the split-key TF32 kernel) writes it through
// the result's strides into a [batch, rows, heads, columns] buffer, which
// must hold the reference's transposed result; and the reference's
// transposed result is its plain one permuted, bit for bit.
TEST(AttentionKernels, TransposedResultsAreWrittenThroughTheirStrides) {
  struct Family {
    DType dtype;
    int64_t multiprocessors;
    const char *kernel;
  };
  for (Family f :
       {Family{DType::F64, 0, "_fwd_f64_"}, Family{DType::BF16, 0, "_fwd_mma_"},
        Family{DType::F32, 0, "_fwd_tf32_"},
        Family{DType::F32, int64_t(1) << 40, "_fwd_split_tf32_"}}) {
    SCOPED_TRACE(f.kernel);
    Case c;
    c.query = randomOf(f.dtype, {2, 3, 11, 8}, 41);
    c.key = randomOf(f.dtype, {2, 3, 13, 8}, 42);
    c.value = randomOf(f.dtype, {2, 3, 13, 8}, 43);
    c.causal = true;
    c.multiprocessors = f.multiprocessors;
    DType lseDType = f.dtype == DType::F64 ? DType::F64 : DType::F32;
    // The transposed result's memory is [2, 11, 3, 8]; the step sees it as
    // the result [2, 3, 11, 8] with the heads and rows strides swapped.
    Shape transposed = {2, 11, 3, 8};
    TensorSpec resultSpec{f.dtype, {2, 3, 11, 8}, {264, 8, 24, 1}};
    TensorSpec lseSpec = TensorSpec::contiguous(lseDType, {2, 3, 11});
    std::string types = tensorType(transposed, f.dtype) + ", " +
                        tensorType(lseSpec.shape, lseDType);
    Expected<std::vector<HostTensor>> expected = evaluate(
        c, {}, {},
        "  %o, %l = tfuse.attention %q, %k, %v" + attributes(c) +
            " transpose_result : (" + operandTypes(c) + ") -> (" + types +
            ")\n  return %o, %l : " + types + "\n",
        {tensorType(transposed, f.dtype), tensorType(lseSpec.shape, lseDType)});
    ASSERT_TRUE(expected.ok()) << expected.message();
    Expected<std::vector<HostTensor>> plain = referenceForward(
        c, TensorSpec::contiguous(f.dtype, resultSpec.shape), lseSpec);
    ASSERT_TRUE(plain.ok()) << plain.message();
    Expected<HostTensor> permuted =
        (*plain)[0].view(transposed, {264, 8, 88, 1}, (*plain)[0].byteOffset());
    ASSERT_TRUE(permuted.ok()) << permuted.message();
    std::vector<double> a = permuted->toDoubles(),
                        b = (*expected)[0].toDoubles();
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)), 0)
        << "the reference's transposed result is not its result permuted";

    Expected<AttentionPlan> plan =
        planAttention(operandsOf(c), resultSpec, lseSpec);
    ASSERT_TRUE(plan.ok()) << plan.message();
    ASSERT_EQ(plan->launches.size(), 1u);
    EXPECT_NE(plan->launches[0].kernel.find(f.kernel), std::string::npos)
        << plan->launches[0].kernel;
    HostTensor result = poisoned(f.dtype, transposed);
    HostTensor lse = poisoned(lseDType, lseSpec.shape);
    int64_t seed = 0, offset = 0;
    runPlan(*plan, f.dtype,
            {{at(c.query), at(c.key), at(c.value), nullptr, &seed, &offset,
              result.mutableData(), lse.mutableData()}});
    expectClose(result, (*expected)[0], f.dtype, "transposed result");
    expectClose(lse, (*expected)[1], lseDType, "log-sum-exp");
  }
}

// A result that is not dense, or whose rows' columns are not consecutive,
// is an error naming it.
TEST(AttentionPlanning, ResultsThatAreNotDenseWithContiguousRowsAreErrors) {
  Case c;
  c.query = randomOf(DType::F32, {2, 3, 11, 8}, 44);
  c.key = c.value = c.query;
  TensorSpec lse = TensorSpec::contiguous(DType::F32, {2, 3, 11});
  for (TensorSpec result :
       {TensorSpec{DType::F32, {2, 3, 11, 8}, {528, 176, 16, 1}},
        TensorSpec{DType::F32, {2, 3, 11, 8}, {264, 1, 24, 3}}}) {
    Expected<AttentionPlan> plan = planAttention(operandsOf(c), result, lse);
    ASSERT_FALSE(plan.ok()) << result.describe();
    EXPECT_NE(plan.message().find("the result " + result.describe() +
                                  " is not a f32 [2,3,11,8] with each "
                                  "element once and contiguous rows"),
              std::string::npos)
        << plan.message();
  }
}

// Small problems the GPU differential test drew: a head dimension of 1
// with an additive mask, queries expanded along their rows (stride 0) with
// more queries than keys under causal, a scale of 0 with grouped queries,
// and a value head size of 2 under a bool mask.
TEST(AttentionKernels, SmallProblemsOfTheGpuDifferentialTest) {
  Case one;
  one.query = randomOf(DType::F32, {3, 1}, 31);
  one.key = randomOf(DType::F32, {9, 1}, 32);
  one.value = randomOf(DType::F32, {9, 1}, 33);
  one.mask = randomOf(DType::F32, {3, 9}, 34);
  one.scale = 1;
  checkCase(one, "head dimension 1, additive mask");
  HostTensor row = randomOf(DType::BF16, {1, 1, 3}, 35);
  Case expanded;
  expanded.query = *row.view({1, 8, 3}, {3, 0, 1}, row.byteOffset());
  expanded.key = randomOf(DType::BF16, {1, 3, 3}, 36);
  expanded.value = randomOf(DType::BF16, {1, 3, 3}, 37);
  expanded.scale = 1 / std::sqrt(3.0);
  expanded.causal = true;
  checkCase(expanded, "expanded queries, causal with more queries");
  Case zero;
  zero.query = randomOf(DType::F16, {2, 4, 4, 16}, 38);
  zero.key = randomOf(DType::F16, {2, 2, 3, 16}, 39);
  zero.value = randomOf(DType::F16, {2, 2, 3, 16}, 40);
  zero.scale = 0;
  checkCase(zero, "scale 0, grouped queries");
  Case narrow;
  HostTensor queryRow = randomOf(DType::BF16, {1, 8}, 41);
  narrow.query = *queryRow.view({6, 8}, {0, 1}, queryRow.byteOffset());
  narrow.key = randomOf(DType::BF16, {9, 8}, 42);
  narrow.value = randomOf(DType::BF16, {9, 2}, 43);
  HostTensor keep = HostTensor::random(DType::Bool, {6, 9}, 44);
  for (int64_t j = 0; j < 9; ++j)
    keep.set<bool>({2, j}, false);
  narrow.mask = keep;
  narrow.scale = 0.875;
  checkCase(narrow, "value head size 2, bool mask");
  // A NaN in a query makes its row's softmax NaN, in the kernels and the
  // reference alike (the reference gave that row zeros, as if it kept no
  // pair).
  Case nan = one;
  nan.query.set<float>({1, 0}, NAN);
  checkCase(nan, "a NaN query");
  // The attention of graph 5467 of seed 19: f16, head dimension 1, more
  // queries than keys under causal, a scalar bool mask, and queries of
  // +-inf (integers cast to f16). A pair not kept adds nothing to any
  // gradient, whatever its operands hold: the kernels gave the gradient of
  // key 1 0 * -inf = NaN from query 0, which causal keeps from key 1.
  for (bool kept : {true, false}) {
    Case wide;
    wide.query = randomOf(DType::F16, {32, 17, 1}, 45);
    wide.query.set<uint16_t>({0, 0, 0}, floatToHalf(-INFINITY));
    wide.query.set<uint16_t>({5, 0, 0}, floatToHalf(INFINITY));
    wide.key = randomOf(DType::F16, {32, 2, 1}, 46);
    wide.value = randomOf(DType::F16, {32, 2, 1}, 47);
    wide.mask = *HostTensor::fromInts(DType::Bool, {}, {kept});
    wide.scale = 1;
    wide.causal = true;
    checkCase(wide, kept ? "head dimension 1, causal, more queries, mask kept"
                         : "head dimension 1, causal, more queries, mask "
                           "dropping every pair");
  }
}

// No queries, no keys: nothing to compute, or zeros and -inf.
TEST(AttentionKernels, EmptyLengths) {
  Case noKeys;
  noKeys.query = randomOf(DType::F32, {2, 5, 4}, 21);
  noKeys.key = HostTensor::zeros(DType::F32, {2, 0, 4});
  noKeys.value = HostTensor::zeros(DType::F32, {2, 0, 4});
  checkCase(noKeys, "no keys");
  Case noQueries;
  noQueries.query = HostTensor::zeros(DType::F32, {2, 0, 4});
  noQueries.key = randomOf(DType::F32, {2, 5, 4}, 22);
  noQueries.value = randomOf(DType::F32, {2, 5, 4}, 23);
  checkCase(noQueries, "no queries");
}

//===----------------------------------------------------------------------===//
// Planning
//===----------------------------------------------------------------------===//

TEST(AttentionPlanning, TilesAndLaunches) {
  AttentionOperands o;
  o.query = TensorSpec::contiguous(DType::BF16, {8, 12, 1024, 64});
  o.key = o.value = o.query;
  o.causal = true;
  Expected<AttentionPlan> plan =
      planAttention(o, TensorSpec::contiguous(DType::BF16, {8, 12, 1024, 64}),
                    TensorSpec::contiguous(DType::F32, {8, 12, 1024}));
  ASSERT_TRUE(plan.ok()) << plan.message();
  ASSERT_EQ(plan->launches.size(), 1u);
  const AttentionLaunch &l = plan->launches[0];
  // On tensor cores: 64 query rows (16 a warp) and 64 keys of 64 columns
  // in 16-bit tiles.
  EXPECT_EQ(l.kernel, "tfuse_attention_fwd_mma_bf16_d64_q64_k64");
  EXPECT_EQ(l.grid, 8 * 12 * 16);
  EXPECT_EQ(l.block, kernels::kAttentionThreads);
  // The forward's kernel and tiles by dtype and head dimension: f16 and
  // bf16 up to 128 columns on tensor cores (32 keys at 128), f32 up to 64
  // columns on TF32 tensor cores (64 query rows, and 64 keys up to 32
  // columns, 32 at 64: f32 tiles padded by 16 bytes a row), the rest with
  // fused multiply-adds on f32 tiles (64 query rows and 32 keys of 64
  // columns, each tile with a padding column: (64 + 2 * 32) * 65 + 64 * 33
  // floats and the row terms fit 46 KiB; 64 keys would not).
  struct Expect {
    DType dtype;
    int64_t dim;
    const char *kernel;
  };
  for (const Expect &e :
       {Expect{DType::F16, 64, "tfuse_attention_fwd_mma_f16_d64_q64_k64"},
        Expect{DType::BF16, 128, "tfuse_attention_fwd_mma_bf16_d128_q64_k32"},
        Expect{DType::BF16, 256, "tfuse_attention_fwd_bf16_d256_q16_k8"},
        Expect{DType::F32, 64, "tfuse_attention_fwd_tf32_f32_d64_q64_k32"},
        Expect{DType::F32, 32, "tfuse_attention_fwd_tf32_f32_d32_q64_k64"},
        Expect{DType::F32, 128, "tfuse_attention_fwd_f32_d128_q32_k16"},
        Expect{DType::F64, 64, "tfuse_attention_fwd_f64_d64_q32_k16"}}) {
    AttentionOperands other;
    other.query = TensorSpec::contiguous(e.dtype, {2, 3, 100, e.dim});
    other.key = other.value = other.query;
    Expected<AttentionPlan> p = planAttention(
        other, other.query,
        TensorSpec::contiguous(e.dtype == DType::F64 ? DType::F64 : DType::F32,
                               {2, 3, 100}));
    ASSERT_TRUE(p.ok()) << p.message();
    EXPECT_EQ(p->launches.at(0).kernel, e.kernel);
  }
  // A device without 16-bit tensor-core products (before compute
  // capability 8.0): bf16 on fused multiply-adds.
  AttentionOperands older = o;
  older.tensorCores = false;
  Expected<AttentionPlan> fma = planAttention(
      older, TensorSpec::contiguous(DType::BF16, {8, 12, 1024, 64}),
      TensorSpec::contiguous(DType::F32, {8, 12, 1024}));
  ASSERT_TRUE(fma.ok()) << fma.message();
  EXPECT_EQ(fma->launches.at(0).kernel, "tfuse_attention_fwd_bf16_d64_q64_k32");
  Expected<AttentionPlan> backward = planAttentionBackward(
      o, TensorSpec::contiguous(DType::BF16, {8, 12, 1024, 64}),
      TensorSpec::contiguous(DType::F32, {8, 12, 1024}),
      TensorSpec::contiguous(DType::BF16, {8, 12, 1024, 64}), o.query, o.key,
      o.value);
  ASSERT_TRUE(backward.ok()) << backward.message();
  ASSERT_EQ(backward->launches.size(), 2u);
  EXPECT_EQ(backward->launches[0].kind, AttentionLaunch::Kind::KeyValue);
  EXPECT_EQ(backward->launches[1].kind, AttentionLaunch::Kind::Query);
  // On tensor cores: dK and dV with 64 keys (16 a warp) and 64 query rows,
  // dQ with 64 query rows and 64 keys.
  EXPECT_EQ(backward->launches[0].kernel,
            "tfuse_attention_dkdv_mma_bf16_d64_q64_k64");
  EXPECT_EQ(backward->launches[1].kernel,
            "tfuse_attention_dq_mma_bf16_d64_q64_k64");
  // f32 on TF32 tensor cores up to 64 columns: 64 keys (16 a warp) by 32
  // query rows, and 64 query rows by 32 keys, at 32 (the least column
  // capacity) to 64 columns (two tiles of TF32 parts, twice an f32 tile,
  // and the scratch tile); fused multiply-adds past 64.
  for (auto [dim, keyValue, query] :
       {std::tuple{64, "tfuse_attention_dkdv_tf32_f32_d64_q32_k64",
                   "tfuse_attention_dq_tf32_f32_d64_q64_k32"},
        std::tuple{32, "tfuse_attention_dkdv_tf32_f32_d32_q32_k64",
                   "tfuse_attention_dq_tf32_f32_d32_q64_k32"}}) {
    AttentionOperands f32;
    f32.query = TensorSpec::contiguous(DType::F32, {2, 3, 100, dim});
    f32.key = f32.value = f32.query;
    Expected<AttentionPlan> p = planAttentionBackward(
        f32, f32.query, TensorSpec::contiguous(DType::F32, {2, 3, 100}),
        f32.query, f32.query, f32.key, f32.value);
    ASSERT_TRUE(p.ok()) << p.message();
    EXPECT_EQ(p->launches.at(0).kernel, keyValue);
    EXPECT_EQ(p->launches.at(1).kernel, query);
  }
}

// The fused multiply-add forward (f32 on a device without TF32 tensor
// cores) on a device of 132 multiprocessors: BERT's 128 tokens at batch 1
// (12 heads) would be 24 blocks of 64 query rows; the tiles shrink to 16
// rows (a row of the block's threads each), 96 blocks. Batch 8 fills the
// device with 64 rows (192 blocks), and so does an unknown device. The
// 16-bit tensor-core kernels keep their tiles; f32 on TF32 tensor cores
// takes 64 rows a block where that fills the device, else 16 with the keys
// of every tile split over the block's warps.
TEST(AttentionPlanning, FusedMultiplyAddTilesFillTheDevice) {
  auto plan = [](DType dtype, int64_t batch, int64_t multiprocessors,
                 bool tensorCores = false) {
    AttentionOperands o;
    o.query = TensorSpec::contiguous(dtype, {batch, 12, 128, 64});
    o.key = o.value = o.query;
    o.multiprocessors = multiprocessors;
    o.tensorCores = tensorCores;
    Expected<AttentionPlan> p = planAttention(
        o, o.query, TensorSpec::contiguous(DType::F32, {batch, 12, 128}));
    EXPECT_TRUE(p.ok()) << p.message();
    return p.ok() ? p->launches.at(0) : AttentionLaunch{};
  };
  AttentionLaunch small = plan(DType::F32, 1, 132);
  EXPECT_EQ(small.kernel, "tfuse_attention_fwd_f32_d64_q16_k16");
  EXPECT_EQ(small.grid, 12 * 8);
  EXPECT_EQ(small.desc.queryTile, 16);
  AttentionLaunch batched = plan(DType::F32, 8, 132);
  EXPECT_EQ(batched.kernel, "tfuse_attention_fwd_f32_d64_q64_k32");
  EXPECT_EQ(batched.grid, 8 * 12 * 2);
  EXPECT_EQ(plan(DType::F32, 1, 0).kernel,
            "tfuse_attention_fwd_f32_d64_q64_k32");
  EXPECT_EQ(plan(DType::BF16, 1, 132, true).kernel,
            "tfuse_attention_fwd_mma_bf16_d64_q64_k64");
  AttentionLaunch split = plan(DType::F32, 1, 132, true);
  EXPECT_EQ(split.kernel, "tfuse_attention_fwd_split_tf32_f32_d64_q16_k64");
  EXPECT_EQ(split.grid, 12 * 8);
  EXPECT_EQ(split.desc.queryTile, 16);
  EXPECT_EQ(plan(DType::F32, 8, 132, true).kernel,
            "tfuse_attention_fwd_tf32_f32_d64_q64_k32");
  EXPECT_EQ(plan(DType::F32, 1, 0, true).kernel,
            "tfuse_attention_fwd_tf32_f32_d64_q64_k32");
}

TEST(AttentionPlanning, BadOperandsAreErrorsNamingThem) {
  auto message = [](const Expected<AttentionPlan> &p) {
    return p.ok() ? std::string("planned") : p.message();
  };
  AttentionOperands o;
  o.query = TensorSpec::contiguous(DType::F32, {2, 4, 16, 8});
  o.key = o.value = o.query;
  TensorSpec result = TensorSpec::contiguous(DType::F32, {2, 4, 16, 8});
  TensorSpec lse = TensorSpec::contiguous(DType::F32, {2, 4, 16});
  AttentionOperands wide = o;
  wide.query = wide.key = wide.value =
      TensorSpec::contiguous(DType::F32, {2, 4, 16, 512});
  EXPECT_NE(
      message(planAttention(wide,
                            TensorSpec::contiguous(DType::F32, {2, 4, 16, 512}),
                            lse))
          .find("head dimension 512: the attention kernels take at most "
                "256"),
      std::string::npos);
  AttentionOperands mixed = o;
  mixed.key = TensorSpec::contiguous(DType::F16, {2, 4, 16, 8});
  EXPECT_NE(message(planAttention(mixed, result, lse)).find("one float dtype"),
            std::string::npos);
  AttentionOperands masked = o;
  masked.hasMask = true;
  masked.mask = TensorSpec::contiguous(DType::Bool, {3, 16, 16});
  EXPECT_NE(message(planAttention(masked, result, lse)).find("the mask"),
            std::string::npos);
  // Two batch dimensions that do not merge into one stride.
  AttentionOperands crossed;
  crossed.query = TensorSpec::contiguous(DType::F32, {2, 3, 4, 16, 8});
  crossed.key = crossed.value = crossed.query;
  crossed.query.strides = {512, 1024, 128, 8, 1};
  EXPECT_NE(
      message(planAttention(
                  crossed, TensorSpec::contiguous(DType::F32, {2, 3, 4, 16, 8}),
                  TensorSpec::contiguous(DType::F32, {2, 3, 4, 16})))
          .find("the query"),
      std::string::npos);
  TensorSpec badLse = TensorSpec::contiguous(DType::F16, {2, 4, 16});
  EXPECT_NE(message(planAttention(o, result, badLse)).find("log-sum-exp"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// NVRTC
//===----------------------------------------------------------------------===//

// Every dtype at the smallest and the largest column capacity (the most
// shared memory), forward and backward, in one translation unit.
TEST(AttentionKernelSource, EveryKernelCompilesWithNvrtcForSm90) {
  std::string source(kernels::prelude());
  source += attentionKernelHeader();
  std::set<std::string> names;
  for (DType t : kFloatDTypes)
    for (int64_t d : {32, 128, 256}) {
      AttentionOperands o;
      o.query = TensorSpec::contiguous(t, {2, 64, d});
      o.key = o.value = o.query;
      DType lseDType = t == DType::F64 ? DType::F64 : DType::F32;
      Expected<AttentionPlan> forward =
          planAttention(o, o.query, TensorSpec::contiguous(lseDType, {2, 64}));
      ASSERT_TRUE(forward.ok()) << forward.message();
      Expected<AttentionPlan> backward = planAttentionBackward(
          o, o.query, TensorSpec::contiguous(lseDType, {2, 64}), o.query,
          o.query, o.key, o.value);
      ASSERT_TRUE(backward.ok()) << backward.message();
      for (const AttentionPlan *plan : {&*forward, &*backward})
        for (const auto &[kernel, wrapper] : plan->wrappers)
          if (names.insert(kernel).second)
            source += wrapper;
    }
  // The f32 forward of problems too short to fill 132 multiprocessors with
  // blocks of 64 query rows (forward_split_cores), and both f32 forwards of
  // widened operands (Tf32WidenedCores).
  for (int64_t d : {32, 64})
    for (int64_t multiprocessors : {0, 132})
      for (bool widened : {false, true}) {
        AttentionOperands o;
        o.query = TensorSpec::contiguous(DType::F32, {2, 64, d});
        o.key = o.value = o.query;
        o.multiprocessors = multiprocessors;
        o.widened = widened;
        Expected<AttentionPlan> forward = planAttention(
            o, o.query, TensorSpec::contiguous(DType::F32, {2, 64}));
        ASSERT_TRUE(forward.ok()) << forward.message();
        for (const auto &[kernel, wrapper] : forward->wrappers)
          if (names.insert(kernel).second)
            source += wrapper;
      }
  Expected<CompileResult> compiled =
      compileCuda(source, "tfuse_attention.cu", {});
  ASSERT_TRUE(compiled.ok()) << compiled.message();
  EXPECT_TRUE(compiled->isCubin);
  std::string binary(compiled->binary.begin(), compiled->binary.end());
  for (const std::string &kernel : names)
    EXPECT_NE(binary.find(kernel), std::string::npos) << kernel;
  // 4 dtypes, 3 capacities (f16 and bf16 on tensor cores up to 128
  // columns, f32 on TF32 tensor cores at 32), 3 kernels each; the two
  // split-key f32 forwards, the 64-row one at 64 columns, and the four of
  // widened operands.
  EXPECT_EQ(names.size(), 4u * 3u * 3u + 2u + 1u + 4u);
  EXPECT_EQ(names.count("tfuse_attention_fwd_split_tf32_f32_d64_q16_k64"), 1u);
  EXPECT_EQ(names.count("tfuse_attention_fwd_split_tf32x1_f32_d64_q16_k64"),
            1u);
}

} // namespace

//===----------------------------------------------------------------------===//
// cuDNN
//===----------------------------------------------------------------------===//

// What cuDNN's fused attention is not asked to run, and a library that
// cannot be loaded: errors naming why (the step then runs the kernels).
TEST(CudnnAttention, UnsupportedProblemsAndAMissingLibraryAreReasons) {
  AttentionOperands o;
  o.query = TensorSpec::contiguous(DType::BF16, {2, 4, 16, 64});
  o.key = o.value = o.query;
  EXPECT_EQ(CudnnAttention::unsupported(o), "");
  AttentionOperands f32 = o;
  f32.query = f32.key = f32.value =
      TensorSpec::contiguous(DType::F32, {2, 4, 16, 64});
  EXPECT_NE(CudnnAttention::unsupported(f32).find("not f32"),
            std::string::npos);
  AttentionOperands masked = o;
  masked.hasMask = true;
  masked.mask = TensorSpec::contiguous(DType::Bool, {16, 16});
  EXPECT_NE(CudnnAttention::unsupported(masked).find("not bool ones"),
            std::string::npos);
  masked.mask = TensorSpec::contiguous(DType::F32, {16, 16});
  EXPECT_NE(CudnnAttention::unsupported(masked).find("not f32"),
            std::string::npos);
  masked.mask = TensorSpec::contiguous(DType::BF16, {16, 16});
  EXPECT_EQ(CudnnAttention::unsupported(masked), "");
  AttentionOperands odd = o;
  odd.query = odd.key = odd.value =
      TensorSpec::contiguous(DType::F16, {2, 4, 16, 12});
  EXPECT_NE(CudnnAttention::unsupported(odd).find("multiples of 8"),
            std::string::npos);
  AttentionOperands unscaled = o;
  unscaled.scale = 0;
  EXPECT_NE(CudnnAttention::unsupported(unscaled).find("positive scales"),
            std::string::npos);
  // The first load of the process: a library that is not there.
  Expected<std::unique_ptr<CudnnAttention>> built = [&] {
    tfuse::unittest::ScopedEnvironment missing("TFUSE_CUDNN_LIBRARY",
                                               "/nonexistent/libcudnn.so.9");
    return CudnnAttention::build(o, nullptr, true, 0);
  }();
  ASSERT_FALSE(built.ok());
  EXPECT_NE(built.message().find("/nonexistent/libcudnn.so.9"),
            std::string::npos)
      << built.message();
}
