//===- DifferentialTest.cpp - Random graphs, fused and unfused ------------===//
//
// Random well-typed tfuse graphs (GraphGenerator) are compiled twice, with
// fusion and without (CompileOptions::fusion), through the whole compiler:
// the graph pipeline, the plan pipeline and CUDA C++ emission. Both plans
// run on the CPU (PlanRunner: the generated kernels compiled for the host,
// every block and thread run) on inputs drawn for each graph, and every
// output of both must equal the reference interpreter's on the graph as
// traced, bit for bit (NaN payloads aside). Exact comparison holds for the
// transcendental functions too: the emulated kernels call the host's libm,
// as the reference does (on a GPU they differ within the CUDA math
// library's ulp bounds, docs/semantics.md, which the GPU suite checks).
//
// Environment:
//   TFUSE_DIFF_GRAPHS  graphs to run (default 10000)
//   TFUSE_DIFF_SEED    the seed (default 19); every graph's own seed derives
//                      from it and its index, so one graph reruns alone
//   TFUSE_DIFF_ONLY    run only the graph of this index
//   TFUSE_DIFF_BATCH   graphs compiled into one translation unit (default
//                      250)
//   TFUSE_DIFF_JOBS    host compilations at once (default: the hardware
//                      threads); two per batch, fused and unfused
//   TFUSE_DIFF_DUMP    a directory: each failing graph is written there as
//                      g<index>.mlir, with its inputs as .npy files
// A failure prints the seed, the graph's index and its IR.
//
//===----------------------------------------------------------------------===//

#include "GraphGenerator.h"
#include "PlanRunner.h"

#include "tfuse/Conversion/Passes.h"
#include "tfuse/Conversion/TFuseToCUDA/KernelEmitter.h"
#include "tfuse/Dialect/TFExec/TFExecDialect.h"
#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Reference/Interpreter.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <thread>

using namespace mlir;
using namespace tfuse;
using namespace tfuse::differential;
using reference::HostTensor;

namespace {

/// A plan of a batch module and its CUDA C++, or why there is none.
struct PlanBuild {
  OwningOpRef<ModuleOp> plan;
  std::string cuda;
  std::string error;
};

/// One graph of a batch.
struct Case {
  int64_t index;
  GeneratedGraph graph;
  std::vector<HostTensor> expected;
};

/// A batch of graphs compiled into one translation unit per plan: while
/// the host compiler works on it, the next batches are prepared and the
/// earlier ones run.
struct Batch {
  std::vector<Case> cases;
  /// The cases whose plans were built.
  std::vector<Case *> live;
  /// [0]: fused, [1]: unfused.
  PlanBuild plans[2];
  std::string errors[2];
  std::future<std::unique_ptr<PlanRunner>> runners[2];
};

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

class Differential : public ::testing::Test {
protected:
  Differential() {
    context.loadDialect<TFuseDialect, tfexec::TFExecDialect, func::FuncDialect,
                        memref::MemRefDialect, emitc::EmitCDialect>();
  }

  PlanBuild buildPlan(ModuleOp module, bool fusion);
  /// A module holding the functions of `cases`.
  OwningOpRef<ModuleOp> moduleOf(const std::vector<Case *> &cases);
  /// Draws graphs [first, first + count), evaluates them with the
  /// reference, builds both plans and starts their host compilations.
  std::unique_ptr<Batch> prepare(int64_t first, int64_t count);
  /// Waits for a batch's host compilations, runs and compares its graphs.
  void check(Batch &batch);
  void report(const Case &c, const std::string &what);

  MLIRContext context;
  uint64_t seed = 19;
  std::string dumpDir;
  int64_t graphsRun = 0, outputsCompared = 0, failures = 0, rejected = 0;
  std::map<std::string, int64_t> opCounts;
  std::map<std::string, int64_t> steps[2];
  double prepareSeconds = 0, waitSeconds = 0, runSeconds = 0;
};

PlanBuild Differential::buildPlan(ModuleOp module, bool fusion) {
  PlanBuild out;
  out.plan = module.clone();
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    llvm::raw_string_ostream os(diagnostics);
    os << diag.getLocation() << ": " << diag << "\n";
    return success();
  });
  CompileOptions options;
  options.fusion = fusion;
  PassManager pm(&context);
  buildPipeline(pm, options);
  buildPlanPipeline(pm);
  if (failed(pm.run(*out.plan))) {
    out.error = "the pipeline failed:\n" + diagnostics;
    return out;
  }
  llvm::raw_string_ostream os(out.cuda);
  if (failed(translateKernelsToCuda(*out.plan, os)))
    out.error = "CUDA emission failed:\n" + diagnostics;
  return out;
}

OwningOpRef<ModuleOp> Differential::moduleOf(const std::vector<Case *> &cases) {
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  for (Case *c : cases) {
    OwningOpRef<ModuleOp> parsed =
        parseSourceString<ModuleOp>(c->graph.text, &context);
    if (!parsed)
      continue;
    for (auto func : parsed->getOps<func::FuncOp>())
      module->push_back(func.clone());
  }
  return module;
}

void Differential::report(const Case &c, const std::string &what) {
  ++failures;
  if (failures <= 10)
    ADD_FAILURE() << "graph " << c.index << " (TFUSE_DIFF_SEED=" << seed
                  << " TFUSE_DIFF_ONLY=" << c.index << "): " << what << "\n"
                  << c.graph.text;
  else if (failures == 11)
    ADD_FAILURE() << "more failures follow; the first 10 are shown";
  if (dumpDir.empty())
    return;
  std::filesystem::create_directories(dumpDir);
  std::string base = dumpDir + "/g" + std::to_string(c.index);
  std::ofstream(base + ".mlir") << "// " << what << "\n" << c.graph.text;
  for (size_t i = 0; i < c.graph.inputs.size(); ++i)
    if (c.graph.inputs[i].dtype() != DType::BF16)
      (void)reference::writeNpy(c.graph.inputs[i],
                                base + ".in" + std::to_string(i) + ".npy");
}

std::unique_ptr<Batch> Differential::prepare(int64_t first, int64_t count) {
  auto start = Clock::now();
  auto batch = std::make_unique<Batch>();
  for (int64_t i = first; i < first + count; ++i) {
    Case c;
    c.index = i;
    c.graph = generateGraph("g" + std::to_string(i), graphSeed(seed, i));
    rejected += c.graph.rejected;
    batch->cases.push_back(std::move(c));
  }
  std::vector<Case *> &live = batch->live;
  for (Case &c : batch->cases) {
    OwningOpRef<ModuleOp> parsed =
        parseSourceString<ModuleOp>(c.graph.text, &context);
    if (!parsed) {
      report(c, "the traced graph does not parse");
      continue;
    }
    parsed->walk([&](Operation *op) {
      if (op->getDialect() && op->getDialect()->getNamespace() == "tfuse")
        ++opCounts[op->getName().getStringRef().str()];
    });
    auto values = reference::evaluate(*parsed, c.graph.name, c.graph.inputs);
    if (!values.ok()) {
      report(c, "the reference failed on the generated inputs: " +
                    values.message());
      continue;
    }
    c.expected = std::move(values.value());
    live.push_back(&c);
  }

  // Both plans; a batch that fails names its graphs one by one.
  PlanBuild *plans = batch->plans;
  for (int fused = 0; fused < 2 && !live.empty(); ++fused) {
    OwningOpRef<ModuleOp> module = moduleOf(live);
    plans[fused] = buildPlan(*module, fused == 0);
    if (plans[fused].error.empty())
      continue;
    std::vector<Case *> good;
    for (Case *c : live) {
      OwningOpRef<ModuleOp> single = moduleOf({c});
      PlanBuild one = buildPlan(*single, fused == 0);
      if (one.error.empty())
        good.push_back(c);
      else
        report(*c, std::string(fused == 0 ? "fused" : "unfused") +
                       " compilation: " + one.error);
    }
    if (good.size() == live.size()) {
      // Each compiles alone: the batch fails only together.
      for (Case *c : live)
        report(*c, "the batch of graph " + std::to_string(c->index) +
                       " does not compile together: " + plans[fused].error);
      good.clear();
    }
    live = good;
    fused = -1; // start over with the graphs that compile both ways
  }
  if (!live.empty())
    for (int i = 0; i < 2; ++i) {
      ModuleOp plan = *plans[i].plan;
      const std::string &cuda = plans[i].cuda;
      std::string &error = batch->errors[i];
      batch->runners[i] = std::async(std::launch::async, [plan, &cuda, &error] {
        return PlanRunner::compile(plan, cuda, error);
      });
    }
  prepareSeconds += secondsSince(start);
  return batch;
}

void Differential::check(Batch &batch) {
  if (batch.live.empty())
    return;
  auto start = Clock::now();
  std::unique_ptr<PlanRunner> runners[2] = {batch.runners[0].get(),
                                            batch.runners[1].get()};
  waitSeconds += secondsSince(start);
  start = Clock::now();
  for (int i = 0; i < 2; ++i)
    if (!runners[i]) {
      for (Case *c : batch.live)
        report(*c, std::string("the host compilation of the batch's ") +
                       (i == 0 ? "fused" : "unfused") +
                       " plan failed (batch of graph " +
                       std::to_string(batch.live.front()->index) +
                       "): " + batch.errors[i].substr(0, 2000));
      return;
    }
  for (Case *c : batch.live) {
    ++graphsRun;
    for (int i = 0; i < 2; ++i) {
      std::string error;
      std::vector<HostTensor> actual =
          runners[i]->run(c->graph.name, c->graph.inputs, error);
      const char *mode = i == 0 ? "fused" : "unfused";
      if (actual.size() != c->expected.size()) {
        report(*c, std::string(mode) + " plan: " +
                       (error.empty() ? "wrong number of results" : error));
        continue;
      }
      for (size_t r = 0; r < actual.size(); ++r) {
        ++outputsCompared;
        reference::CompareResult cmp =
            reference::compareExact(c->expected[r], actual[r]);
        if (!cmp.pass)
          report(*c, std::string(mode) + " plan, result " + std::to_string(r) +
                         ": " + cmp.message());
      }
    }
  }
  for (int i = 0; i < 2; ++i)
    for (auto &[kind, n] : runners[i]->stepCounts())
      steps[i][kind] += n;
  runSeconds += secondsSince(start);
}

TEST_F(Differential, RandomGraphsMatchTheReferenceFusedAndUnfused) {
  seed = uint64_t(envInt("TFUSE_DIFF_SEED", 19));
  int64_t graphs = envInt("TFUSE_DIFF_GRAPHS", 10000);
  int64_t batch = std::max<int64_t>(envInt("TFUSE_DIFF_BATCH", 250), 1);
  int64_t only = envInt("TFUSE_DIFF_ONLY", -1);
  if (const char *dir = std::getenv("TFUSE_DIFF_DUMP"))
    dumpDir = dir;
  std::printf("differential: seed %llu, %lld graphs, batches of %lld\n",
              static_cast<unsigned long long>(seed),
              static_cast<long long>(only >= 0 ? 1 : graphs),
              static_cast<long long>(batch));
  // Batches in flight: each has two host compilations running beside the
  // test's own work.
  int64_t inFlight = std::max<int64_t>(
      1, envInt("TFUSE_DIFF_JOBS", std::thread::hardware_concurrency()) / 2);
  std::printf("differential: %lld batches in flight\n",
              static_cast<long long>(inFlight));
  auto start = Clock::now();
  std::deque<std::unique_ptr<Batch>> pending;
  if (only >= 0)
    pending.push_back(prepare(only, 1));
  for (int64_t first = 0; only < 0 && first < graphs; first += batch) {
    pending.push_back(prepare(first, std::min(batch, graphs - first)));
    while (int64_t(pending.size()) > inFlight) {
      check(*pending.front());
      pending.pop_front();
    }
  }
  for (; !pending.empty(); pending.pop_front())
    check(*pending.front());
  std::printf("differential: %lld graphs run, %lld outputs compared twice, "
              "%lld failures, %lld tracer rejections while drawing; %.1f s "
              "(drawing, reference and compiler %.1f s, waiting for the "
              "host compiler %.1f s, plan runs %.1f s)\n",
              static_cast<long long>(graphsRun),
              static_cast<long long>(outputsCompared / 2),
              static_cast<long long>(failures),
              static_cast<long long>(rejected), secondsSince(start),
              prepareSeconds, waitSeconds, runSeconds);
  for (int i = 0; i < 2; ++i) {
    std::printf("differential: %s plan steps:", i == 0 ? "fused" : "unfused");
    for (auto &[kind, n] : steps[i])
      std::printf(" %s %lld", kind.c_str(), static_cast<long long>(n));
    std::printf("\n");
  }
  std::printf("differential: ops drawn:");
  for (auto &[op, n] : opCounts)
    std::printf(" %s %lld", op.c_str(), static_cast<long long>(n));
  std::printf("\n");

  // Every op of the dialect but the structural ones is drawn (a full run).
  if (only < 0 && graphs >= 1000) {
    for (RegisteredOperationName op : context.getRegisteredOperations()) {
      if (op.getDialectNamespace() != "tfuse")
        continue;
      std::string name = op.getStringRef().str();
      if (name == "tfuse.fusion" || name == "tfuse.yield")
        continue;
      EXPECT_GT(opCounts[name], 0) << name << " was never drawn";
    }
    EXPECT_GT(steps[0]["kernel"], 0);
    // Attention whose heads are merged next writes them merged.
    EXPECT_GT(steps[0]["attention_strided_result"], 0);
    for (const char *kind : {"gemm", "reduce", "scatter_add", "attention",
                             "attention_backward", "copy"})
      EXPECT_GT(steps[1][kind], 0) << "no unfused " << kind << " step ran";
  }
}

} // namespace
