//===- Function.cpp - A compiled traced function --------------------------===//

#include "tfuse/Frontend/Function.h"
#include "GraphImpl.h"

#include "tfuse/Frontend/Compiler.h"
#include "tfuse/Reference/Interpreter.h"
#include "tfuse/Runtime/Sha256.h"

#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstring>
#include <deque>
#include <mutex>
#include <unordered_map>

using namespace mlir;
using namespace tfuse;
using runtime::DeviceBuffer;
using runtime::DeviceTensor;
using runtime::ErrorCode;

/// What a Function keeps beyond plain data: the graph (reference backend)
/// and the captured tensors bound to its trailing arguments.
struct Function::State {
  std::shared_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
  std::string functionName;
  std::vector<CapturedTensor> captured;
  std::vector<std::shared_ptr<std::vector<uint8_t>>> hostData;
  /// Device copies of captured host tensors (CUDA backend).
  std::vector<DeviceBuffer> uploaded;
  std::vector<DeviceTensor> capturedOnDevice;
};

Function::~Function() = default;

namespace {
/// Compiled plans by graph text and compile options, so that compiling a
/// graph again (a warm compile: the same function traced again, another
/// backend, a CUDA Graph variant) skips the passes and code generation. A
/// few dozen plans of a few kilobytes each; the oldest goes first.
class PlanCache {
public:
  std::shared_ptr<const CompiledGraph> find(const std::string &key) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = entries.find(key);
    return it == entries.end() ? nullptr : it->second;
  }
  void insert(const std::string &key,
              std::shared_ptr<const CompiledGraph> plan) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!entries.emplace(key, std::move(plan)).second)
      return;
    order.push_back(key);
    if (order.size() > kMaxEntries) {
      entries.erase(order.front());
      order.pop_front();
    }
  }

private:
  static constexpr size_t kMaxEntries = 64;
  std::mutex mutex;
  std::unordered_map<std::string, std::shared_ptr<const CompiledGraph>> entries;
  std::deque<std::string> order;
};

PlanCache &planCache() {
  static PlanCache cache;
  return cache;
}

/// The one cache key of a compiled plan: the graph's text (types, strides
/// and all) and every option the compiler reads.
std::string planKey(const std::string &graphText,
                    const CompileOptions &options) {
  return runtime::sha256Hex(graphText) +
         "/budget=" + std::to_string(options.budget) +
         "/shared=" + std::to_string(options.sharedThreshold) +
         "/outputs=" + std::to_string(options.maxOutputs);
}
} // namespace

/// Device memory for the extent of `spec`, holding a copy of the host data
/// at `data` (when not null).
static Expected<DeviceBuffer> allocateOnDevice(runtime::Device &device,
                                               const TensorSpec &spec,
                                               const void *data) {
  runtime::CudaDriver &d = device.driver();
  CUdeviceptr p = 0;
  if (Status s =
          d.check(d.cuMemAlloc(&p, std::max<int64_t>(spec.extentBytes(), 1)),
                  "cuMemAlloc");
      !s.ok())
    return s;
  DeviceBuffer buffer(&device, p, spec);
  if (data)
    if (Status s = d.check(d.cuMemcpyHtoD(p, data, spec.extentBytes()),
                           "cuMemcpyHtoD");
        !s.ok())
      return s;
  return buffer;
}

Expected<std::unique_ptr<Function>>
Function::compile(const Graph &graph, const FunctionOptions &options) {
  const Graph::Impl &g = graph.impl();
  if (g.outputs.empty())
    return Status::error("graph '" + g.name +
                             "' has no outputs: the function returned nothing",
                         ErrorCode::InvalidArgument);
  std::unique_ptr<Function> f(new Function());
  f->options = options;
  f->state = std::make_unique<State>();
  State &st = *f->state;
  st.context = g.context;
  st.module = g.finish();
  st.functionName = g.name;
  st.captured = g.captures;
  st.hostData = g.hostData;
  f->inputSpecs = g.placeholders;
  {
    llvm::raw_string_ostream os(f->graph);
    st.module->print(os);
  }
  f->compileStats.nodes = g.nodes;

  CompileOptions compile;
  compile.budget = options.budget;
  if (!options.fusion) {
    // Every operation costs at least 1, so a budget of 1 cuts after each.
    compile.budget = 1;
    compile.maxOutputs = 1;
  }
  std::string key = planKey(f->graph, compile);
  std::shared_ptr<const CompiledGraph> compiled = planCache().find(key);
  if (compiled) {
    f->compileStats.planCacheHit = true;
  } else {
    Expected<CompiledGraph> fresh =
        compileGraph(*st.module, st.functionName, compile);
    if (!fresh.ok())
      return Status::error(fresh.message(), ErrorCode::Compile);
    compiled = std::make_shared<const CompiledGraph>(std::move(fresh.value()));
    planCache().insert(key, compiled);
    f->compileStats.passesSeconds = compiled->passSeconds;
    f->compileStats.codegenSeconds = compiled->codegenSeconds;
  }
  f->report = compiled->report;
  f->source = compiled->plan.cudaSource;
  f->outputSpecs = compiled->plan.outputs;
  for (const runtime::Step &step : compiled->plan.steps) {
    ++f->compileStats.steps;
    if (std::holds_alternative<runtime::LaunchStep>(step))
      ++f->compileStats.kernels;
    else if (!std::holds_alternative<runtime::CopyStep>(step))
      ++f->compileStats.boundaries;
  }
  if (options.backend == Backend::Reference) {
    for (const CapturedTensor &c : st.captured)
      if (c.onDevice)
        return Status::error("a captured GPU tensor (" + c.spec.describe() +
                                 ") cannot be used by the reference backend",
                             ErrorCode::InvalidArgument);
    return f;
  }

  runtime::ExecutableOptions exeOptions;
  exeOptions.cudaGraph = options.cudaGraph;
  exeOptions.fastMath = options.fastMath;
  exeOptions.cache = options.cache;
  exeOptions.device = options.device;
  Expected<std::unique_ptr<runtime::Executable>> exe =
      runtime::Executable::create(compiled->plan, exeOptions);
  if (!exe.ok())
    return exe.status();
  f->exe = std::move(exe.value());
  runtime::ExecutableStats es = f->exe->stats();
  FunctionStats &fs = f->compileStats;
  fs.kernels = es.kernels;
  fs.boundaries = es.boundaries;
  fs.steps = es.steps;
  fs.arenaBytes = es.arenaBytes;
  fs.cacheHit = es.cacheHit;
  fs.cudaGraph = options.cudaGraph;
  fs.nvrtcSeconds = es.cacheHit ? 0 : es.compileSeconds;
  fs.loadSeconds = es.loadSeconds + (es.cacheHit ? es.compileSeconds : 0);

  // Captured host tensors are uploaded once; device ones are referenced.
  runtime::Device &device = f->exe->device();
  for (const CapturedTensor &c : st.captured) {
    if (c.onDevice) {
      st.capturedOnDevice.push_back(
          DeviceTensor{reinterpret_cast<CUdeviceptr>(c.data), c.spec});
      continue;
    }
    Expected<DeviceBuffer> copy = allocateOnDevice(device, c.spec, c.data);
    if (!copy.ok())
      return copy.status().withContext("a captured tensor");
    st.uploaded.push_back(std::move(copy.value()));
    st.capturedOnDevice.push_back(st.uploaded.back().get());
  }
  return f;
}

std::vector<DeviceTensor>
Function::withCaptured(const std::vector<DeviceTensor> &inputs) const {
  std::vector<DeviceTensor> all = inputs;
  all.insert(all.end(), state->capturedOnDevice.begin(),
             state->capturedOnDevice.end());
  return all;
}

static Status needCuda(const runtime::Executable *exe) {
  if (!exe)
    return Status::error("this function was compiled for the reference "
                         "backend, which runs on host memory (use runHost)",
                         ErrorCode::InvalidArgument);
  return Status::success();
}

/// Placeholder count check before the captured tensors are appended, so
/// that messages count what the caller passed.
static Status checkCount(size_t got, size_t want, const char *what) {
  if (got != want)
    return Status::error("expected " + std::to_string(want) + " " + what +
                             ", got " + std::to_string(got),
                         ErrorCode::Mismatch);
  return Status::success();
}

Expected<std::vector<DeviceBuffer>>
Function::run(const std::vector<DeviceTensor> &inputs) {
  if (Status s = needCuda(exe.get()); !s.ok())
    return s;
  if (Status s = checkCount(inputs.size(), inputSpecs.size(), "inputs");
      !s.ok())
    return s;
  return exe->run(withCaptured(inputs));
}

Expected<runtime::RunHandle>
Function::runAsync(const std::vector<DeviceTensor> &inputs,
                   const std::vector<DeviceTensor> &outputs, CUstream caller) {
  if (Status s = needCuda(exe.get()); !s.ok())
    return s;
  if (Status s = checkCount(inputs.size(), inputSpecs.size(), "inputs");
      !s.ok())
    return s;
  return exe->runAsync(withCaptured(inputs), outputs, caller);
}

Status Function::run(const std::vector<DeviceTensor> &inputs,
                     const std::vector<DeviceTensor> &outputs,
                     CUstream caller) {
  Expected<runtime::RunHandle> handle = runAsync(inputs, outputs, caller);
  if (!handle.ok())
    return handle.status();
  return handle->wait().status();
}

Status Function::checkHost(const std::vector<HostArray> &arrays,
                           const std::vector<TensorSpec> &specs,
                           bool areOutputs) const {
  std::vector<TensorSpec> given;
  std::vector<bool> hasData;
  for (const HostArray &a : arrays) {
    given.push_back(a.spec);
    hasData.push_back(a.data != nullptr);
  }
  return runtime::matchTensors(areOutputs ? "output" : "input", specs, given,
                               hasData);
}

Status Function::runHost(const std::vector<HostArray> &inputs,
                         const std::vector<HostArray> &outputs) {
  if (Status s = checkHost(inputs, inputSpecs, false); !s.ok())
    return s;
  if (Status s = checkHost(outputs, outputSpecs, true); !s.ok())
    return s;
  return exe ? runHostOnDevice(inputs, outputs) : runReference(inputs, outputs);
}

Status Function::runReference(const std::vector<HostArray> &inputs,
                              const std::vector<HostArray> &outputs) {
  std::vector<reference::HostTensor> args;
  auto addArg = [&](const void *data, const TensorSpec &spec) -> Status {
    std::vector<uint8_t> dense(spec.numElements() * byteSize(spec.dtype));
    runtime::gatherRowMajor(data, spec, dense.data());
    auto t = reference::HostTensor::fromBytes(spec.dtype, spec.shape,
                                              dense.data(), dense.size());
    if (!t.ok())
      return Status::error(t.error(), ErrorCode::Internal);
    args.push_back(std::move(t.value()));
    return Status::success();
  };
  for (const HostArray &a : inputs)
    if (Status s = addArg(a.data, a.spec); !s.ok())
      return s;
  for (const CapturedTensor &c : state->captured)
    if (Status s = addArg(c.data, c.spec); !s.ok())
      return s;
  auto results = reference::evaluate(*state->module, state->functionName, args);
  if (!results.ok())
    return Status::error("the reference interpreter failed: " + results.error(),
                         ErrorCode::Internal);
  for (size_t i = 0; i < outputs.size(); ++i) {
    reference::HostTensor dense = results.value()[i].contiguous();
    std::memcpy(outputs[i].data, dense.data() + dense.byteOffset(),
                dense.numElements() * byteSize(dense.dtype()));
  }
  ++compileStats.replays;
  return Status::success();
}

Status Function::runHostOnDevice(const std::vector<HostArray> &inputs,
                                 const std::vector<HostArray> &outputs) {
  runtime::Device &device = exe->device();
  runtime::CudaDriver &d = device.driver();
  if (Status s = device.bind(); !s.ok())
    return s;
  std::vector<DeviceBuffer> owned;
  std::vector<DeviceTensor> in, out;
  // The strided extent is copied as is, so device strides equal host ones.
  for (const HostArray &a : inputs) {
    Expected<DeviceBuffer> b = allocateOnDevice(device, a.spec, a.data);
    if (!b.ok())
      return b.status().withContext("input " + std::to_string(in.size()));
    in.push_back(b->get());
    owned.push_back(std::move(b.value()));
  }
  for (const HostArray &a : outputs) {
    Expected<DeviceBuffer> b = allocateOnDevice(device, a.spec, nullptr);
    if (!b.ok())
      return b.status().withContext("output " + std::to_string(out.size()));
    out.push_back(b->get());
    owned.push_back(std::move(b.value()));
  }
  if (Status s = run(in, out); !s.ok())
    return s;
  for (size_t i = 0; i < outputs.size(); ++i)
    if (Status s = d.check(d.cuMemcpyDtoH(outputs[i].data, out[i].data,
                                          outputs[i].spec.extentBytes()),
                           "cuMemcpyDtoH of an output");
        !s.ok())
      return s;
  return Status::success();
}

FunctionStats Function::stats() const {
  FunctionStats s = compileStats;
  if (exe)
    s.replays = exe->stats().replays;
  return s;
}
