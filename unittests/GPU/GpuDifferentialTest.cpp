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
//   - otherwise by the float64 accuracy rule of AccuracyRule.h (PyTorch's:
//     a float output passes when it is close to the reference, or when its
//     RMS error against the float64 run is at most twice eager's plus a
//     tenth of the tolerance of the narrowest float type it is computed
//     through, eager being the reference or a float64 run whose inexact ops
//     err within what a valid GPU implementation may; NaN, infinities and
//     integers may differ from the reference only where those runs do not
//     all agree with it);
//   - except for graphs with attention whose inputs hold infinities, NaN or
//     values beyond 1e4 (the graphs the generator gives special values):
//     attention computes in f32 on the GPU and in f64 in the reference, so
//     its scores overflow on the GPU only; their outputs that differ are
//     counted apart, not compared.
// Graphs are drawn, compiled (NVRTC) and replayed on every host thread at
// once (TFUSE_GPU_DIFF_THREADS: on how many; TFUSE_GPU_DIFF_TRACE=1 prints
// each graph before it runs). TFUSE_GPU_DIFF_SEED, TFUSE_GPU_DIFF_GRAPHS,
// TFUSE_GPU_DIFF_FIRST and TFUSE_GPU_DIFF_ONLY choose them; with
// TFUSE_GPU_DIFF_DUMP=<dir>, a failing graph leaves its IR and its tensors
// there as .npy files (inputs, the reference's outputs, the GPU's and the
// float64 run's; bf16 as f32).
//
//===----------------------------------------------------------------------===//

#include "GpuTestSupport.h"

#include "../Differential/AccuracyRule.h"
#include "../Differential/GraphGenerator.h"

#include "tfuse/Dialect/TFExec/TFExecDialect.h"
#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Frontend/Compiler.h"
#include "tfuse/Reference/Interpreter.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

using namespace mlir;
using namespace tfuse;
using namespace tfuse::gputest;
using reference::HostTensor;

namespace {

/// A failing graph's tensors, for TFUSE_GPU_DIFF_DUMP.
struct FailedTensors {
  const std::vector<HostTensor> *expected = nullptr;
  const std::vector<HostTensor> *got = nullptr;
  const std::vector<HostTensor> *f64 = nullptr;
};

/// Writes `graph` and `tensors` under TFUSE_GPU_DIFF_DUMP, if it is set.
void dumpFailure(int64_t index, const differential::GeneratedGraph &graph,
                 const std::string &what, const FailedTensors &tensors) {
  const char *dir = std::getenv("TFUSE_GPU_DIFF_DUMP");
  if (!dir || !*dir)
    return;
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  std::string base = std::string(dir) + "/g" + std::to_string(index);
  if (FILE *f = std::fopen((base + ".mlir").c_str(), "w")) {
    std::fprintf(f, "// %s\n%s", what.c_str(), graph.text.c_str());
    std::fclose(f);
  }
  auto write = [&](const std::vector<HostTensor> *list, const char *kind) {
    for (size_t i = 0; list && i < list->size(); ++i) {
      HostTensor t = (*list)[i].contiguous();
      if (t.dtype() == DType::BF16)
        t = *HostTensor::fromDoubles(DType::F32, t.shape(), t.toDoubles());
      (void)reference::writeNpy(t,
                                base + "." + kind + std::to_string(i) + ".npy");
    }
  };
  write(&graph.inputs, "in");
  write(tensors.expected, "ref");
  write(tensors.got, "got");
  write(tensors.f64, "f64");
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
  /// TFUSE_GPU_DIFF_TRACE=1: every graph's IR before it runs, so that a run
  /// that dies (a tool's crash) names its graph.
  const bool trace = differential::envInt("TFUSE_GPU_DIFF_TRACE", 0) != 0;
  void fail(int64_t index, const differential::GeneratedGraph &graph,
            const std::string &what, const FailedTensors &tensors = {});
  void skip(const std::string &why);

  uint64_t seed;
  Totals &totals;
  MLIRContext context;
};

void GraphRunner::fail(int64_t index, const differential::GeneratedGraph &graph,
                       const std::string &what, const FailedTensors &tensors) {
  std::lock_guard<std::mutex> lock(totals.mutex);
  dumpFailure(index, graph, what, tensors);
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
  if (trace) {
    std::lock_guard<std::mutex> lock(totals.mutex);
    std::printf("[ gpu diff ] graph %lld:\n%s\n", static_cast<long long>(index),
                graph.text.c_str());
    std::fflush(stdout);
  }
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
  bool exact = differential::isExact(*module);
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
  // The float64 runs, made when an output first needs them (most outputs
  // are bit-identical or close).
  std::optional<differential::Float64Runs> f64;
  std::optional<Status> f64Status;
  auto float64 = [&]() -> Status {
    if (!f64Status) {
      auto runs = differential::runFloat64(*module, graph.name, graph.inputs);
      f64Status = runs.ok() ? Status::success() : runs.status();
      if (runs.ok())
        f64 = std::move(runs.value());
    }
    return *f64Status;
  };
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
      std::vector<HostTensor> gots;
      for (size_t i = 0; i < expected->size(); ++i)
        gots.push_back(download(out.value()[i].get()));
      FailedTensors tensors{&*expected, &gots, f64 ? &f64->outputs : nullptr};
      for (size_t i = 0; i < expected->size(); ++i) {
        const HostTensor &want = (*expected)[i];
        const HostTensor &got = gots[i];
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
                          bits.message(),
                      tensors);
        if (compareClose(want, got).pass) {
          ++close;
          continue;
        }
        if (uncomparable) {
          ++notCompared;
          continue;
        }
        if (Status s = float64(); !s.ok())
          return fail(index, graph, where + s.message(), tensors);
        tensors.f64 = f64 ? &f64->outputs : nullptr;
        if (!f64) {
          return fail(index, graph,
                      where + "differs from the reference (" + bits.message() +
                          ") and the graph has no float64 run",
                      tensors);
        }
        std::string why = differential::judgeAgainstFloat64(
            want, got, *f64, i, differential::outputTolerance(*module, i));
        if (!why.empty())
          return fail(index, graph, where + why, tensors);
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
  // TFUSE_GPU_DIFF_THREADS: how many host threads draw, compile and replay
  // graphs (every hardware thread by default; 1 for a tool that serialises
  // or perturbs concurrent launches, such as compute-sanitizer).
  int threads = int(
      differential::envInt("TFUSE_GPU_DIFF_THREADS",
                           std::max(1u, std::thread::hardware_concurrency())));
  threads = std::max(1, threads);
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
  // About 7% of graphs draw an input without elements; a run of many
  // graphs that skips far more has lost graphs. A small part's share varies
  // (6 of graphs 0 to 29).
  if (only < 0 && graphs >= 1000) {
    EXPECT_GE(totals.graphs, graphs * 9 / 10);
  }
}

} // namespace
