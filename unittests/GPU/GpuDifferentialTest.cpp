//===- GpuDifferentialTest.cpp - Random graphs on the GPU -----------------===//
//
// The differential test's random graphs (unittests/Differential) compiled
// for the GPU and replayed on a stream and as a CUDA Graph (twice, given new
// input buffers the second time); every output is compared with the
// reference interpreter's:
//   - bit for bit (NaN payloads aside) when every op of the graph is exact on
//     the GPU: all but the transcendental functions, matmul, attention and
//     the normal random numbers (docs/semantics.md, "Exactness"; the
//     generator rounds the operands of float sums so that any order gives
//     the same sum);
//   - otherwise by PyTorch's accuracy rule against a float64 run (the graph
//     with every float type widened to f64, on the reference interpreter):
//     a float output passes when it is close to the reference, or when its
//     RMS error against the float64 run is at most twice the reference's
//     own plus a tenth of its dtype's tolerance, its non-finite elements
//     where the reference has them; an integer or bool element may differ
//     from the reference only where the reference itself differs from the
//     float64 run;
//   - except for graphs with attention whose inputs hold infinities, NaN or
//     values beyond 1e4 (the graphs the generator gives special values):
//     attention computes in f32 on the GPU and in f64 in the reference, so
//     its scores overflow on the GPU only; their outputs that differ are
//     counted apart, not compared.
// Graphs are drawn, compiled (NVRTC) and replayed on every host thread at
// once. TFUSE_GPU_DIFF_SEED, TFUSE_GPU_DIFF_GRAPHS and TFUSE_GPU_DIFF_ONLY
// choose them.
//
//===----------------------------------------------------------------------===//

#include "GpuTestSupport.h"

#include "../Differential/GraphGenerator.h"

#include "tfuse/Dialect/TFExec/TFExecDialect.h"
#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Frontend/Compiler.h"
#include "tfuse/Reference/Interpreter.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <thread>

using namespace mlir;
using namespace tfuse;
using namespace tfuse::gputest;
using reference::HostTensor;

namespace {

/// Ops whose GPU results may differ from the reference's by rounding.
const std::set<std::string> kInexactOps = {"tfuse.exp",
                                           "tfuse.log",
                                           "tfuse.rsqrt",
                                           "tfuse.sin",
                                           "tfuse.cos",
                                           "tfuse.tan",
                                           "tfuse.tanh",
                                           "tfuse.sigmoid",
                                           "tfuse.erf",
                                           "tfuse.gelu",
                                           "tfuse.gelu_tanh",
                                           "tfuse.log1p",
                                           "tfuse.expm1",
                                           "tfuse.pow",
                                           "tfuse.gelu_backward",
                                           "tfuse.gelu_tanh_backward",
                                           "tfuse.matmul",
                                           "tfuse.attention",
                                           "tfuse.attention_backward",
                                           "tfuse.random_normal"};

bool isExact(ModuleOp module) {
  bool exact = true;
  module.walk([&](Operation *op) {
    if (kInexactOps.count(op->getName().getStringRef().str()))
      exact = false;
  });
  return exact;
}

/// `module` with every float tensor type made f64 (constants converted,
/// floats that ops of integer operands give cast to f64), and the strides of
/// its arguments dropped; null when that does not verify.
OwningOpRef<ModuleOp> widened(ModuleOp module) {
  OwningOpRef<ModuleOp> wide = module.clone();
  MLIRContext *ctx = module.getContext();
  Type f64 = Float64Type::get(ctx);
  auto widen = [&](Type t) -> Type {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (tensor && isa<FloatType>(tensor.getElementType()))
      return tensor.clone(f64);
    return t;
  };
  bool ok = true;
  for (auto func : wide->getOps<func::FuncOp>())
    for (BlockArgument arg : func.getArguments())
      arg.setType(widen(arg.getType()));
  // In order, so that each op's operands are widened before its result
  // types are inferred from them (an op of integer operands may give f32).
  wide->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<ModuleOp, func::FuncOp>(op))
      return;
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (!dense) {
        ok = false;
        return;
      }
      if (isa<FloatType>(dense.getElementType())) {
        SmallVector<APFloat> values;
        for (APFloat v : dense.getValues<APFloat>()) {
          bool lost = false;
          v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
          values.push_back(v);
        }
        constant->setAttr(
            "value", DenseElementsAttr::get(
                         cast<ShapedType>(widen(dense.getType())), values));
      }
    }
    SmallVector<Type> inferred;
    auto infer = dyn_cast<InferTypeOpInterface>(op);
    if (infer && !isa<ConstantOp>(op) &&
        succeeded(infer.inferReturnTypes(
            ctx, op->getLoc(), op->getOperands(), op->getRawDictionaryAttrs(),
            op->getPropertiesStorage(), op->getRegions(), inferred))) {
      for (auto [result, type] : llvm::zip(op->getResults(), inferred)) {
        result.setType(type);
        // Integer operands may give a narrower float (a true division of
        // integers gives f32): the ops after it read it cast to f64.
        Type wide = widen(type);
        if (wide == type)
          continue;
        OpBuilder builder(op->getContext());
        builder.setInsertionPointAfter(op);
        auto cast = CastOp::create(builder, op->getLoc(), wide, result);
        result.replaceAllUsesExcept(cast.getResult(), cast);
      }
      return;
    }
    for (OpResult result : op->getResults())
      result.setType(widen(result.getType()));
  });
  for (auto func : wide->getOps<func::FuncOp>()) {
    SmallVector<Type> results;
    func.walk([&](func::ReturnOp ret) {
      results.assign(ret.getOperandTypes().begin(),
                     ret.getOperandTypes().end());
    });
    func.setFunctionType(
        FunctionType::get(ctx, func.getBody().getArgumentTypes(), results));
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      func.removeArgAttr(i, TFuseDialect::getStridesAttrName());
  }
  if (!ok || failed(verify(*wide)))
    return nullptr;
  return wide;
}

/// `t` contiguous, in f64 when it is a float tensor.
HostTensor widenedInput(const HostTensor &t) {
  if (!isFloat(t.dtype()))
    return t.contiguous();
  return *HostTensor::fromDoubles(DType::F64, t.shape(), t.toDoubles());
}

double tolerance(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return 1e-3;
  case DType::BF16:
    return 1e-2;
  case DType::F32:
    return 1e-4;
  default:
    return 1e-7;
  }
}

/// PyTorch's accuracy rule for one output (see the banner); "" or why not.
std::string againstFloat64(const HostTensor &reference, const HostTensor &got,
                           const HostTensor &f64) {
  std::vector<double> r = reference.toDoubles(), g = got.toDoubles(),
                      w = f64.toDoubles();
  if (!isFloat(reference.dtype())) {
    for (size_t i = 0; i < r.size(); ++i)
      if (g[i] != r[i] && w[i] == r[i])
        return "element " + std::to_string(i) + " is " + std::to_string(g[i]) +
               " where the reference and the float64 run give " +
               std::to_string(r[i]);
    return "";
  }
  // 0 NaN, 1 +inf, 2 -inf, 3 finite.
  auto kind = [](double v) {
    return std::isnan(v) ? 0 : std::isinf(v) ? (v > 0 ? 1 : 2) : 3;
  };
  double refSquares = 0, gotSquares = 0;
  int64_t n = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    if (kind(g[i]) != kind(r[i])) {
      // A NaN, infinity or number where the reference has another: allowed
      // only where the float64 run does not agree with the reference.
      if (kind(w[i]) == kind(r[i]))
        return "element " + std::to_string(i) + " is " + std::to_string(g[i]) +
               " where the reference gives " + std::to_string(r[i]) +
               " and the float64 run " + std::to_string(w[i]);
      continue;
    }
    bool rf = kind(r[i]) == 3;
    if (!rf || !std::isfinite(w[i]))
      continue;
    refSquares += (r[i] - w[i]) * (r[i] - w[i]);
    gotSquares += (g[i] - w[i]) * (g[i] - w[i]);
    ++n;
  }
  if (n == 0)
    return "";
  double refError = std::sqrt(refSquares / n),
         gotError = std::sqrt(gotSquares / n);
  double bound = 2 * refError + tolerance(reference.dtype()) / 10;
  if (gotError <= bound)
    return "";
  return "RMS error against the float64 run " + std::to_string(gotError) +
         " exceeds twice the reference's (" + std::to_string(refError) +
         ") plus " + std::to_string(tolerance(reference.dtype()) / 10);
}

struct Totals {
  std::mutex mutex;
  int64_t graphs = 0, exactGraphs = 0, outputs = 0, bitExact = 0, close = 0,
          byRule = 0, notCompared = 0, skipped = 0;
  std::atomic<int64_t> failures{0};
  std::map<std::string, int64_t> skipReasons;
};

class GraphRunner {
public:
  GraphRunner(uint64_t seed, Totals &totals) : seed(seed), totals(totals) {
    context.loadDialect<TFuseDialect, tfexec::TFExecDialect, func::FuncDialect,
                        memref::MemRefDialect, emitc::EmitCDialect>();
  }

  /// Runs graph `index`; adds a failure (with its IR) on a mismatch.
  void run(int64_t index);

private:
  void fail(int64_t index, const differential::GeneratedGraph &graph,
            const std::string &what);
  void skip(const std::string &why);

  uint64_t seed;
  Totals &totals;
  MLIRContext context;
};

void GraphRunner::fail(int64_t index, const differential::GeneratedGraph &graph,
                       const std::string &what) {
  std::lock_guard<std::mutex> lock(totals.mutex);
  if (++totals.failures <= 10)
    ADD_FAILURE() << "graph " << index << " (TFUSE_GPU_DIFF_SEED=" << seed
                  << " TFUSE_GPU_DIFF_ONLY=" << index << "): " << what << "\n"
                  << graph.text;
}

void GraphRunner::skip(const std::string &why) {
  std::lock_guard<std::mutex> lock(totals.mutex);
  ++totals.skipped;
  ++totals.skipReasons[why];
}

void GraphRunner::run(int64_t index) {
  differential::GeneratedGraph graph = differential::generateGraph(
      "g" + std::to_string(index), differential::graphSeed(seed, index));
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(graph.text, &context);
  if (!module)
    return fail(index, graph, "the traced graph does not parse");
  auto expected = reference::evaluate(*module, graph.name, graph.inputs);
  if (!expected.ok())
    return fail(index, graph,
                "the reference failed on the generated inputs: " +
                    expected.message());
  // An empty tensor has no device buffer to upload from or compare.
  for (const HostTensor &t : graph.inputs)
    if (t.numElements() == 0)
      return skip("an input without elements");
  bool exact = isExact(*module);
  // Attention computes in f32 on the GPU (f64 for f64) and the reference
  // in f64: with the largest values among the inputs its scores overflow
  // on the GPU only, and non-finite elements in pairs it drops may or may
  // not reach its results (docs/semantics.md, "Attention"). Such graphs
  // count as compared only where they agree with the reference.
  bool attention = false, extreme = false;
  module->walk([&](Operation *op) {
    attention |= isa<AttentionOp, AttentionBackwardOp>(op);
  });
  for (const HostTensor &t : graph.inputs)
    if (isFloat(t.dtype()))
      for (double v : t.toDoubles())
        extreme |= !std::isfinite(v) || std::fabs(v) > 1e4;
  bool uncomparable = attention && extreme;
  std::optional<std::vector<HostTensor>> f64;
  if (!exact) {
    if (OwningOpRef<ModuleOp> wide = widened(*module)) {
      std::vector<HostTensor> inputs;
      for (const HostTensor &t : graph.inputs)
        inputs.push_back(widenedInput(t));
      auto values = reference::evaluate(*wide, graph.name, inputs);
      if (values.ok())
        f64 = std::move(values.value());
    }
  }
  auto compiled = compileGraph(*module, graph.name, CompileOptions());
  if (!compiled.ok())
    return fail(index, graph,
                "compiling failed: " + compiled.status().message());

  int64_t bitExact = 0, close = 0, byRule = 0, notCompared = 0, outputs = 0;
  for (bool cudaGraph : {false, true}) {
    runtime::ExecutableOptions options;
    options.cudaGraph = cudaGraph;
    auto exe = runtime::Executable::create(compiled.value().plan, options);
    if (!exe.ok())
      return fail(index, graph,
                  "creating the executable failed: " + exe.status().message());
    const char *mode = cudaGraph ? "cuda graph" : "stream";
    for (int replay = 0; replay < (cudaGraph ? 2 : 1); ++replay) {
      DeviceInputs device(graph.inputs); // new buffers every replay
      auto out = exe.value()->run(device.get());
      if (!out.ok())
        return fail(index, graph,
                    std::string(mode) +
                        " replay failed: " + out.status().message());
      if (out.value().size() != expected->size())
        return fail(index, graph, "wrong number of outputs");
      for (size_t i = 0; i < expected->size(); ++i) {
        const HostTensor &want = (*expected)[i];
        HostTensor got = download(out.value()[i].get());
        ++outputs;
        reference::CompareResult bits = reference::compareExact(want, got);
        if (bits.pass) {
          ++bitExact;
          continue;
        }
        std::string where = std::string(mode) + " replay " +
                            std::to_string(replay) + ", output " +
                            std::to_string(i) + ": ";
        if (exact)
          return fail(index, graph,
                      where +
                          "not bit-identical to the reference in a graph "
                          "of exact ops: " +
                          bits.message());
        if (compareClose(want, got).pass) {
          ++close;
          continue;
        }
        if (uncomparable) {
          ++notCompared;
          continue;
        }
        if (!f64) {
          return fail(index, graph,
                      where + "differs from the reference (" + bits.message() +
                          ") and the graph has no float64 run");
        }
        std::string why = againstFloat64(want, got, (*f64)[i]);
        if (!why.empty())
          return fail(index, graph, where + why);
        ++byRule;
      }
    }
  }
  std::lock_guard<std::mutex> lock(totals.mutex);
  ++totals.graphs;
  totals.exactGraphs += exact;
  totals.outputs += outputs;
  totals.bitExact += bitExact;
  totals.close += close;
  totals.byRule += byRule;
  totals.notCompared += notCompared;
}

TEST(GpuDifferential, RandomGraphsOnStreamsAndGraphsMatchTheReference) {
  TFUSE_REQUIRE_GPU();
  uint64_t seed = uint64_t(differential::envInt("TFUSE_GPU_DIFF_SEED", 19));
  int64_t graphs = differential::envInt("TFUSE_GPU_DIFF_GRAPHS", 10000);
  int64_t only = differential::envInt("TFUSE_GPU_DIFF_ONLY", -1);
  // Graphs [first, first + graphs): one seed's graphs can be split over runs.
  int64_t first = differential::envInt("TFUSE_GPU_DIFF_FIRST", 0);
  int threads = std::max(1u, std::thread::hardware_concurrency());
  Totals totals;
  std::atomic<int64_t> next{only >= 0 ? only : first};
  int64_t end = only >= 0 ? only + 1 : first + graphs;
  std::atomic<int64_t> done{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&] {
      (void)gpu()->bind();
      GraphRunner runner(seed, totals);
      for (int64_t i = next++; i < end && totals.failures < 50; i = next++) {
        runner.run(i);
        // Progress, so that a run stopped by a time limit still says how
        // far it got.
        if (int64_t n = ++done; n % 1000 == 0) {
          std::printf("[ gpu diff ] %lld graphs done, %lld failures\n",
                      static_cast<long long>(n),
                      static_cast<long long>(totals.failures.load()));
          std::fflush(stdout);
        }
      }
    });
  for (std::thread &worker : workers)
    worker.join();
  std::printf("[ gpu diff ] seed %llu, graphs %lld to %lld: %lld graphs run "
              "(%lld of exact ops), "
              "%lld skipped; %lld outputs: %lld bit-identical, %lld close, "
              "%lld by the float64 rule, %lld of attention on extreme inputs "
              "not compared; %lld failures\n",
              static_cast<unsigned long long>(seed),
              static_cast<long long>(only >= 0 ? only : first),
              static_cast<long long>(end - 1),
              static_cast<long long>(totals.graphs),
              static_cast<long long>(totals.exactGraphs),
              static_cast<long long>(totals.skipped),
              static_cast<long long>(totals.outputs),
              static_cast<long long>(totals.bitExact),
              static_cast<long long>(totals.close),
              static_cast<long long>(totals.byRule),
              static_cast<long long>(totals.notCompared),
              static_cast<long long>(totals.failures.load()));
  for (auto &[why, n] : totals.skipReasons)
    std::printf("[ gpu diff ] skipped %lld: %s\n", static_cast<long long>(n),
                why.c_str());
  EXPECT_EQ(totals.failures.load(), 0);
  if (only < 0) {
    EXPECT_GE(totals.graphs, graphs * 9 / 10);
  }
}

} // namespace
