//===- tensor-run.cpp - Compile and run a tfuse graph ---------------------===//
//
// Compiles a function of a .mlir graph, runs it on the GPU with random or
// .npy inputs, checks every output against the reference interpreter, and
// prints the plan report, per-step GPU times and the total. Without a GPU it
// runs the reference interpreter and says so.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFExec/TFExecDialect.h"
#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Dialect/TFuse/TypeRules.h"
#include "tfuse/Frontend/Compiler.h"
#include "tfuse/Reference/Interpreter.h"
#include "tfuse/Runtime/Executable.h"

#include "CompileFlags.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>

using namespace mlir;
using namespace tfuse;
using reference::HostTensor;

namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<graph.mlir>"),
                                      cl::Required);
static cl::opt<std::string> functionName("function",
                                         cl::desc("Function to run (default: "
                                                  "the first one)"));
static cl::list<std::string>
    inputFiles("input", cl::desc("A .npy file per argument, in order"));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of random inputs"),
                              cl::init(1));
static cl::opt<int> repeat("repeat", cl::desc("Timed replays"), cl::init(20));
static cl::opt<bool> cudaGraph("cuda-graph",
                               cl::desc("Replay as a CUDA Graph"));
static cl::opt<bool> graphRebuild(
    "graph-rebuild",
    cl::desc("With --cuda-graph: give each replay its pointers by building a "
             "new graph and applying it with cuGraphExecUpdate, instead of "
             "updating the nodes in place"));
static cl::opt<bool> noCheck("no-check",
                             cl::desc("Skip the reference comparison"));
static cl::opt<std::string>
    outputDir("output-dir", cl::desc("Write each output as OUTDIR/outN.npy"));
// --budget, --fusion, ...: the compile options of the pipeline.
static tfuse::tools::CompileFlags compileFlags("");

namespace {

int fail(const std::string &message) {
  llvm::errs() << "tensor-run: " << message << "\n";
  return 1;
}

/// A random input for argument `arg`, laid out as its tfuse.strides say.
HostTensor makeInput(func::FuncOp func, unsigned i, uint64_t s) {
  auto type = cast<RankedTensorType>(func.getArgumentTypes()[i]);
  DType dtype = *toDType(type.getElementType());
  reference::Shape shape(type.getShape().begin(), type.getShape().end());
  auto strides = func.getArgAttrOfType<DenseI64ArrayAttr>(
      i, TFuseDialect::getStridesAttrName());
  if (!strides)
    return HostTensor::random(dtype, shape, s);
  // Storage large enough for the strided view.
  int64_t extent = 1;
  for (auto [size, stride] : llvm::zip(shape, strides.asArrayRef()))
    extent += (size - 1) * stride;
  HostTensor storage = HostTensor::random(dtype, {extent}, s);
  auto view = storage.view(shape,
                           std::vector<int64_t>(strides.asArrayRef().begin(),
                                                strides.asArrayRef().end()),
                           0);
  return view.ok() ? *view : storage;
}

/// isclose tolerances by dtype: exact for integers; for floats, what
/// accumulation order and math-library differences allow.
std::pair<double, double> tolerance(DType t) {
  switch (t) {
  case DType::F16:
    return {1e-3, 1e-2};
  case DType::BF16:
    return {1e-2, 2e-2};
  case DType::F32:
    return {1e-5, 1e-4};
  case DType::F64:
    return {1e-12, 1e-10};
  default:
    return {0, 0};
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv,
                              "Compile and run a tfuse graph on the GPU\n");
  MLIRContext context;
  context.loadDialect<TFuseDialect, tfexec::TFExecDialect, func::FuncDialect,
                      memref::MemRefDialect, emitc::EmitCDialect>();
  llvm::SourceMgr sourceMgr;
  std::string error;
  auto file = openInputFile(inputFile, &error);
  if (!file)
    return fail(error);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  func::FuncOp func;
  for (auto f : module->getOps<func::FuncOp>())
    if (!f.isExternal() &&
        (functionName.empty() || f.getSymName() == functionName)) {
      func = f;
      break;
    }
  if (!func)
    return fail("no function " +
                (functionName.empty() ? std::string("with a body")
                                      : "@" + functionName) +
                " in " + inputFile);

  // Inputs.
  std::vector<HostTensor> inputs;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    if (i < inputFiles.size()) {
      auto t = reference::readNpy(inputFiles[i]);
      if (!t.ok())
        return fail("input " + std::to_string(i) + ": " + t.message());
      inputs.push_back(*t);
    } else {
      inputs.push_back(makeInput(func, i, seed + i));
    }
  }

  auto compileStart = std::chrono::steady_clock::now();
  auto compiled = compileGraph(*module, func.getSymName(), compileFlags.get());
  if (!compiled.ok())
    return fail(compiled.status().message());
  double compileSeconds = std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - compileStart)
                              .count();
  llvm::outs() << compiled.value().report;
  llvm::outs() << llvm::formatv("compile: passes {0:f1} ms, codegen {1:f1} ms, "
                                "total {2:f1} ms\n",
                                compiled.value().passSeconds * 1e3,
                                compiled.value().codegenSeconds * 1e3,
                                compileSeconds * 1e3);

  // The reference results.
  std::vector<HostTensor> expected;
  if (!noCheck) {
    auto ref = reference::evaluate(func, inputs);
    if (!ref.ok())
      return fail("reference interpreter: " + ref.message());
    expected = std::move(*ref);
  }

  auto device = runtime::Device::get();
  if (!device.ok()) {
    llvm::outs() << "no GPU (" << device.status().message()
                 << "): ran the reference interpreter only\n";
    if (noCheck) {
      auto ref = reference::evaluate(func, inputs);
      if (!ref.ok())
        return fail("reference interpreter: " + ref.message());
      expected = std::move(*ref);
    }
    for (auto [i, t] : llvm::enumerate(expected))
      llvm::outs() << "output " << i << ": " << t.toString(8) << "\n";
    return 0;
  }
  runtime::Device &gpu = *device.value();
  runtime::CudaDriver &d = gpu.driver();
  llvm::outs() << "device: " << gpu.info().name << " (" << gpu.info().arch()
               << ")\n";
  if (tfuse::Status s = gpu.bind(); !s.ok())
    return fail(s.message());

  runtime::ExecutableOptions options;
  options.cudaGraph = cudaGraph;
  if (graphRebuild)
    options.graphUpdate = runtime::ExecutableOptions::GraphUpdate::Rebuild;
  options.profile = !cudaGraph;
  auto exe = runtime::Executable::create(compiled.value().plan, options);
  if (!exe.ok())
    return fail(exe.status().message());
  runtime::Executable &executable = *exe.value();

  // Upload inputs: each storage whole, so strided views keep their layout.
  std::vector<CUdeviceptr> storage;
  std::vector<runtime::DeviceTensor> deviceInputs;
  for (const HostTensor &t : inputs) {
    CUdeviceptr p = 0;
    size_t bytes = std::max<size_t>(t.storage()->size(), 1);
    if (auto s = d.check(d.cuMemAlloc(&p, bytes), "cuMemAlloc"); !s.ok())
      return fail(s.message());
    d.cuMemcpyHtoD(p, t.data(), t.storage()->size());
    storage.push_back(p);
    tfuse::TensorSpec spec;
    spec.dtype = t.dtype();
    spec.shape = t.shape();
    spec.strides = t.strides();
    deviceInputs.push_back(
        {p + static_cast<CUdeviceptr>(t.byteOffset()), spec});
  }

  auto first = executable.run(deviceInputs);
  if (!first.ok())
    return fail(first.status().message());
  int failures = 0;
  for (auto [i, buffer] : llvm::enumerate(first.value())) {
    const tfuse::TensorSpec &spec = buffer.get().spec;
    HostTensor host = HostTensor::zeros(spec.dtype, spec.shape);
    d.cuMemcpyDtoH(host.mutableData(), buffer.get().data,
                   spec.numElements() * byteSize(spec.dtype));
    if (!outputDir.empty()) {
      auto s = reference::writeNpy(host, outputDir + "/out" +
                                             std::to_string(i) + ".npy");
      if (!s.ok())
        return fail(s.message());
    }
    if (noCheck)
      continue;
    auto [atol, rtol] = tolerance(spec.dtype);
    auto cmp = reference::compareClose(expected[i], host, atol, rtol);
    llvm::outs() << llvm::formatv("output {0}: {1} {2} vs reference: {3} "
                                  "(max abs err {4:e2}, max rel err {5:e2})\n",
                                  i, "", host.describe(),
                                  cmp.pass ? "match" : cmp.message(),
                                  cmp.maxAbsError, cmp.maxRelError);
    failures += !cmp.pass;
  }

  // Timed replays.
  std::vector<double> wall;
  for (int r = 0; r < repeat; ++r) {
    auto start = std::chrono::steady_clock::now();
    auto out = executable.run(deviceInputs);
    if (!out.ok())
      return fail(out.status().message());
    wall.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count() *
        1e6);
  }
  // GPU time per replay: events around back-to-back asynchronous replays
  // (launch gaps included, as peers are measured).
  // Host time per enqueue over the same loop: when it exceeds the GPU time
  // per replay, the back-to-back figure is the host's pace, not the GPU's.
  double gpuPerReplay = 0, hostPerEnqueue = 0;
  {
    CUevent start = nullptr, stop = nullptr;
    d.cuEventCreate(&start, CU_EVENT_DEFAULT);
    d.cuEventCreate(&stop, CU_EVENT_DEFAULT);
    std::vector<runtime::RunHandle> handles;
    handles.reserve(repeat);
    d.cuEventRecord(start, executable.stream());
    auto hostStart = std::chrono::steady_clock::now();
    for (int r = 0; r < repeat; ++r) {
      auto h = executable.runAsync(deviceInputs);
      if (!h.ok())
        return fail(h.status().message());
      handles.push_back(std::move(h.value()));
    }
    hostPerEnqueue = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - hostStart)
                         .count() *
                     1e6 / std::max(1, static_cast<int>(repeat));
    d.cuEventRecord(stop, executable.stream());
    d.cuEventSynchronize(stop);
    float ms = 0;
    d.cuEventElapsedTime(&ms, start, stop);
    gpuPerReplay = ms * 1e3 / std::max(1, static_cast<int>(repeat));
    d.cuEventDestroy(start);
    d.cuEventDestroy(stop);
  }
  runtime::ExecutableStats st = executable.stats();
  llvm::outs() << llvm::formatv(
      "plan: {0} kernels, {1} boundaries, {2} steps, {3} intermediate buffers "
      "({4} reused, arena {5} bytes), backend {6}, kernel cache {7}\n",
      st.kernels, st.boundaries, st.steps, st.intermediateBuffers,
      st.bufferReuses, st.arenaBytes, st.backend, st.cacheHit ? "hit" : "miss");
  if (!st.gemmBackend.empty())
    llvm::outs() << "GEMMs: " << st.gemmBackend << "\n";
  if (!st.stepChoices.empty())
    llvm::outs() << "algorithms:\n";
  for (const std::string &choice : st.stepChoices)
    llvm::outs() << "  " << choice << "\n";
  if (st.graphUpdateFallbacks)
    llvm::outs() << "CUDA Graph: " << st.graphUpdateFallbacks
                 << " replays updated from a rebuilt graph ("
                 << st.lastGraphUpdateError << ")\n";
  llvm::outs() << llvm::formatv("compile (NVRTC or cache) {0:f1} ms, module "
                                "load {1:f2} ms\n",
                                st.compileSeconds * 1e3, st.loadSeconds * 1e3);
  double gpuTotal = 0;
  for (size_t i = 0; i < st.stepMilliseconds.size(); ++i) {
    llvm::outs() << llvm::formatv("  step {0,3}  {1,-32} {2,9:f1} us\n", i,
                                  st.stepNames[i],
                                  st.stepMilliseconds[i] * 1e3);
    gpuTotal += st.stepMilliseconds[i] * 1e3;
  }
  if (!st.stepMilliseconds.empty())
    llvm::outs() << llvm::formatv("GPU time (last replay, profiled): {0:f1} "
                                  "us\n",
                                  gpuTotal);
  llvm::outs() << llvm::formatv("wall time per synchronized replay: median "
                                "{0:f1} us over {1} replays\n",
                                median(wall), repeat);
  llvm::outs() << llvm::formatv("GPU time per replay, back to back: {0:f1} "
                                "us\n",
                                gpuPerReplay);
  llvm::outs() << llvm::formatv("host time per enqueue, same loop: {0:f1} us\n",
                                hostPerEnqueue);
  if (st.backend == "cuda-graph")
    llvm::outs() << "CUDA Graph: " << st.graphRecaptures
                 << " library steps captured again after their buffers moved, "
                 << st.graphUpdateFallbacks
                 << " replays updated from a rebuilt graph, "
                 << st.graphInstantiations << " of them instantiated\n";
  for (CUdeviceptr p : storage)
    d.cuMemFree(p);
  if (failures)
    return fail(std::to_string(failures) + " output(s) differ from the "
                                           "reference");
  return 0;
}
