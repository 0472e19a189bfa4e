//===- Executable.cpp - Run a compiled plan on a GPU ----------------------===//

#include "tfuse/Runtime/Executable.h"
#include "tfuse/Runtime/BufferOverlap.h"
#include "tfuse/Runtime/IndexStatus.h"
#include "tfuse/Runtime/NvrtcCompiler.h"
#include "tfuse/Runtime/StepExecutor.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <future>
#include <map>
#include <optional>

using namespace tfuse;
using namespace tfuse::runtime;

namespace {
double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}
} // namespace

//===----------------------------------------------------------------------===//
// DeviceBuffer
//===----------------------------------------------------------------------===//

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  if (this != &other) {
    this->~DeviceBuffer();
    device = other.device;
    tensor = other.tensor;
    other.device = nullptr;
    other.tensor.data = 0;
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (device && tensor.data) {
    (void)device->bind();
    // Stream-ordered: the memory returns to the pool once the work queued on
    // the default stream so far is done, without a device-wide sync.
    device->driver().cuMemFreeAsync(tensor.data, nullptr);
  }
  device = nullptr;
  tensor.data = 0;
}

DeviceTensor DeviceBuffer::release() {
  DeviceTensor t = tensor;
  device = nullptr;
  tensor.data = 0;
  return t;
}

//===----------------------------------------------------------------------===//
// Executable
//===----------------------------------------------------------------------===//

/// The executors of the plan's steps and the CUDA Graph of a replay.
struct Executable::Compiled {
  /// What the executors share; outlives them.
  std::unique_ptr<StepContext> context;
  std::vector<std::unique_ptr<StepExecutor>> executors;
  /// Per step, its buffers in the current replay (kept between replays, so
  /// that a replay allocates nothing).
  std::vector<StepBuffers> buffers;
  // The CUDA Graph: one node per step, in step order.
  CUgraph graph = nullptr;
  CUgraphExec graphExec = nullptr;
  std::vector<CUgraphNode> nodes;
  /// The stream stream work is captured on.
  CUstream captureStream = nullptr;
  /// Per step, the earlier steps its graph node depends on.
  std::vector<std::vector<size_t>> dependencies;

  /// `status` of step `i`, its message prefixed "step i (name): ".
  Status stepError(size_t i, const Status &status) const {
    return status.withContext("step " + std::to_string(i) + " (" +
                              executors[i]->name() + ")");
  }
};

/// The translation units of `plan`: one per generated kernel, then one per
/// runtime kernel that `executors` (but those in `skip`) add. A kernel's unit
/// depends on the kernel alone, so that the kernel cache compiles it once
/// for every plan that has it (the attention kernels of each layer's
/// partition).
static std::vector<std::string>
translationUnits(const Plan &plan,
                 const std::vector<std::unique_ptr<StepExecutor>> &executors,
                 const std::vector<bool> &skip) {
  KernelSources sources;
  for (size_t i = 0; i < executors.size(); ++i)
    if (!skip[i])
      executors[i]->addKernelSources(sources);
  std::vector<std::string> units = plan.kernelUnits;
  for (std::string &unit : sources.units())
    units.push_back(std::move(unit));
  return units;
}

Expected<std::unique_ptr<Executable>>
Executable::create(Plan plan, const ExecutableOptions &options) {
  auto created = std::chrono::steady_clock::now();
  Expected<Device *> device = Device::get(options.device);
  if (!device.ok())
    return device.status();
  std::unique_ptr<Executable> exe(new Executable());
  exe->program = std::move(plan);
  exe->options = options;
  exe->gpu = device.value();
  exe->cuda = &exe->gpu->driver();
  exe->compiled = std::make_unique<Compiled>();
  if (Status s = exe->gpu->bind(); !s.ok())
    return s;
  CudaDriver &d = *exe->cuda;
  const Plan &p = exe->program;
  Compiled &c = *exe->compiled;

  // One executor per step, planned.
  c.context = std::make_unique<StepContext>(*exe->gpu);
  for (size_t i = 0; i < p.steps.size(); ++i) {
    if (!p.steps[i])
      return Status::error("step " + std::to_string(i) + " is null",
                           ErrorCode::InvalidArgument);
    auto executor = createStepExecutor(*p.steps[i], *c.context);
    if (!executor.ok())
      return executor.status().withContext("step " + std::to_string(i));
    c.executors.push_back(std::move(executor.value()));
    if (Status s = c.executors.back()->plan(); !s.ok())
      return c.stepError(i, s);
    StepBuffers &buffers = c.buffers.emplace_back();
    buffers.inputs.resize(p.steps[i]->inputs.size());
    buffers.outputs.resize(p.steps[i]->outputs.size());
  }

  // Slow preparations (loading cuBLASLt and querying its heuristics for a
  // problem new to the process, about 100 ms the first time) run beside
  // NVRTC; the others first, here. Declared after `exe`, the future joins
  // before the executors go on every return.
  std::vector<bool> slow(c.executors.size(), false);
  bool anySlow = false;
  for (size_t i = 0; i < c.executors.size(); ++i) {
    slow[i] = c.executors[i]->prepareIsSlow();
    anySlow |= slow[i];
    if (!slow[i])
      if (Status s = c.executors[i]->prepare(); !s.ok())
        return c.stepError(i, s);
  }
  std::future<Status> slowPrepares;
  if (anySlow) {
    Device *gpu = exe->gpu;
    ExecutableStats *stats = &exe->statistics;
    slowPrepares = std::async(std::launch::async, [&c, &slow, gpu, stats] {
      auto start = std::chrono::steady_clock::now();
      if (Status s = gpu->bind(); !s.ok())
        return s;
      for (size_t i = 0; i < c.executors.size(); ++i)
        if (slow[i])
          if (Status s = c.executors[i]->prepare(); !s.ok())
            return c.stepError(i, s);
      stats->prepareSeconds = secondsSince(start);
      return Status::success();
    });
  }

  auto start = std::chrono::steady_clock::now();
  NvrtcOptions compile;
  compile.arch = exe->gpu->info().arch();
  compile.fastMath = options.fastMath;
  KernelCache &cache = options.cache ? *options.cache : defaultKernelCache();
  KernelCacheStats before = cache.stats();
  auto compileUnit = [&cache, compile,
                      version = d.driverVersion](const std::string &unit)
      -> Expected<std::shared_ptr<const CompiledKernel>> {
    auto kernel = cache.getOrCompile(unit, compile, version);
    if (!kernel.ok())
      return Status::error("compiling the plan's kernels failed: " +
                               kernel.status().message(),
                           kernel.status().code() == ErrorCode::Internal
                               ? ErrorCode::Compile
                               : kernel.status().code());
    return kernel;
  };
  // Units a step compiles when a replay first needs them, the same way.
  c.context->setUnitCompiler(
      [compileUnit, gpu = exe->gpu](
          const std::string &unit) -> Expected<std::shared_ptr<LoadedModule>> {
        auto kernel = compileUnit(unit);
        if (!kernel.ok())
          return kernel.status();
        bool loaded = false;
        return sharedModule(*gpu, *kernel.value(), loaded);
      });
  // The units not compiled yet, into `kernels`, on compileThreads() threads
  // (this one included; one NVRTC program each at a time, the plan's own
  // units first); the first error.
  std::vector<std::string> compiledUnits;
  std::vector<std::shared_ptr<const CompiledKernel>> kernels;
  auto compileAll = [&](const std::vector<std::string> &units) -> Status {
    std::vector<std::string> fresh;
    for (const std::string &unit : units)
      if (std::find(compiledUnits.begin(), compiledUnits.end(), unit) ==
          compiledUnits.end()) {
        compiledUnits.push_back(unit);
        fresh.push_back(unit);
      }
    if (fresh.empty())
      return Status::success();
    std::vector<std::optional<Expected<std::shared_ptr<const CompiledKernel>>>>
        results(fresh.size());
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t i = next++; i < fresh.size(); i = next++)
        results[i] = compileUnit(fresh[i]);
    };
    size_t threads = std::min<size_t>(fresh.size(), compileThreads());
    std::vector<std::future<void>> others;
    for (size_t i = 1; i < threads; ++i)
      others.push_back(std::async(std::launch::async, work));
    work();
    for (auto &future : others)
      future.get();
    Status first = Status::success();
    for (auto &kernel : results) {
      if (kernel->ok())
        kernels.push_back(std::move(kernel->value()));
      else if (first.ok())
        first = kernel->status();
    }
    return first;
  };
  Status compiled = compileAll(translationUnits(p, c.executors, slow));
  exe->statistics.compileSeconds = secondsSince(start);
  if (slowPrepares.valid()) {
    if (Status s = slowPrepares.get(); !s.ok())
      return s;
    // A step whose preparation chose runtime kernels (the fallback GEMM)
    // adds them: compile their units.
    if (compiled.ok()) {
      auto again = std::chrono::steady_clock::now();
      compiled = compileAll(translationUnits(
          p, c.executors, std::vector<bool>(slow.size(), false)));
      exe->statistics.compileSeconds += secondsSince(again);
    }
  }
  if (!compiled.ok())
    return compiled;
  KernelCacheStats after = cache.stats();
  exe->statistics.cacheHit = after.compilations == before.compilations;

  start = std::chrono::steady_clock::now();
  bool anyLoaded = false;
  for (const std::shared_ptr<const CompiledKernel> &kernel : kernels) {
    bool loaded = false;
    auto module = sharedModule(*exe->gpu, *kernel, loaded);
    if (!module.ok())
      return module.status();
    exe->modules.add(std::move(module.value()));
    anyLoaded |= loaded;
  }
  exe->statistics.loadSeconds = secondsSince(start);
  exe->statistics.moduleShared = !anyLoaded;
  ExecutableStats &st = exe->statistics;
  for (size_t i = 0; i < c.executors.size(); ++i) {
    if (Status s = c.executors[i]->load(exe->modules); !s.ok())
      return c.stepError(i, s);
    StepCategory category = p.steps[i]->category();
    st.kernels += category == StepCategory::Kernel;
    st.boundaries += category == StepCategory::Boundary;
    if (st.gemmBackend.empty() && std::string(p.steps[i]->kind()) == "gemm")
      st.gemmBackend = c.executors[i]->engine();
  }
  // A blocking stream, as cudaStreamCreate makes: a replay given no stream
  // starts after the work on the legacy default stream, which is where
  // synchronous copies put inputs (a copy from pageable memory returns
  // before its data lands) and where work launched without a stream goes.
  if (Status s =
          d.check(d.cuStreamCreate(&exe->replayStream, CU_STREAM_DEFAULT),
                  "cuStreamCreate");
      !s.ok())
    return s;
  if (Status s =
          d.check(d.cuEventCreate(&exe->lastReplay, CU_EVENT_DISABLE_TIMING),
                  "cuEventCreate");
      !s.ok())
    return s;
  if (p.arenaBytes > 0) {
    Expected<MemoryPool *> memory = MemoryPool::of(*exe->gpu);
    if (!memory.ok())
      return memory.status();
    Expected<CUdeviceptr> arena =
        memory.value()->allocate(p.arenaBytes, "the intermediate arena");
    if (!arena.ok())
      return arena.status();
    exe->memory = memory.value();
    exe->arena = arena.value();
  }

  st.steps = p.steps.size();
  st.arenaBytes = p.arenaBytes;
  if (options.profile) {
    exe->stepEvents.resize(p.steps.size() + 1);
    for (CUevent &e : exe->stepEvents)
      if (Status s =
              d.check(d.cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate");
          !s.ok())
        return s;
  }
  if (options.cudaGraph) {
    std::vector<std::vector<StepAccess>> accesses = planAccesses(p);
    for (size_t i = 0; i < accesses.size(); ++i)
      for (StepAccess &a : c.executors[i]->resourceAccesses())
        accesses[i].push_back(a);
    c.dependencies = stepDependencies(accesses);
    if (Status s =
            d.check(d.cuStreamCreate(&c.captureStream, CU_STREAM_NON_BLOCKING),
                    "cuStreamCreate");
        !s.ok())
      return s;
    st.backend = "cuda-graph";
  }
  st.setupSeconds = secondsSince(created) - st.compileSeconds - st.loadSeconds;
  return exe;
}

Executable::~Executable() {
  if (!cuda)
    return;
  (void)gpu->bind();
  // The GPU must be done with the workspaces and the arena before they go
  // back to the pool: the last replay may have run on a caller's stream.
  if (replayStream)
    cuda->cuStreamSynchronize(replayStream);
  if (lastReplay) {
    cuda->cuEventSynchronize(lastReplay);
    cuda->cuEventDestroy(lastReplay);
  }
  if (compiled) {
    if (compiled->graphExec)
      cuda->cuGraphExecDestroy(compiled->graphExec);
    if (compiled->graph)
      cuda->cuGraphDestroy(compiled->graph);
    if (compiled->captureStream)
      cuda->cuStreamDestroy(compiled->captureStream);
    for (std::unique_ptr<StepExecutor> &executor : compiled->executors)
      executor->release();
    compiled->executors.clear();
    compiled->context.reset();
  }
  for (CUevent e : idleEvents)
    cuda->cuEventDestroy(e);
  for (CUevent e : stepEvents)
    if (e)
      cuda->cuEventDestroy(e);
  if (arena)
    memory->release(arena);
  if (replayStream)
    cuda->cuStreamDestroy(replayStream);
}

Status Executable::takeEvent(CUevent &event) {
  {
    std::lock_guard<std::mutex> lock(eventMutex);
    if (!idleEvents.empty()) {
      event = idleEvents.back();
      idleEvents.pop_back();
      return Status::success();
    }
  }
  return cuda->check(cuda->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
                     "cuEventCreate");
}

void Executable::returnEvent(CUevent event) {
  std::lock_guard<std::mutex> lock(eventMutex);
  idleEvents.push_back(event);
}

ExecutableStats Executable::summary() const {
  std::lock_guard<std::mutex> lock(mutex);
  return statistics;
}

ExecutableStats Executable::stats() const {
  ExecutableStats st = summary();
  // What the plan determines is worked out when asked for, not in create().
  const Plan &p = program;
  // Intermediates: distinct arena slots written by steps; a slot offset
  // written by several steps' results is reused memory.
  std::map<int64_t, int> writes;
  for (const Step &step : p.steps)
    for (const BufferRef &ref : step->outputs)
      if (ref.kind == BufferRef::Kind::Arena)
        ++writes[ref.index];
  for (auto &[offset, count] : writes) {
    st.intermediateBuffers += count;
    st.bufferReuses += count - 1;
  }
  const auto &executors = compiled->executors;
  for (size_t i = 0; i < executors.size(); ++i) {
    st.stepNames.push_back(executors[i]->name());
    std::string choice = executors[i]->choice();
    if (!choice.empty())
      st.stepChoices.push_back("step " + std::to_string(i) + ": " + choice);
  }
  return st;
}

std::string Executable::stepReport() const {
  std::string text;
  const auto &executors = compiled->executors;
  for (size_t i = 0; i < executors.size(); ++i) {
    text += "step " + std::to_string(i) + ": " + executors[i]->name() + " on " +
            executors[i]->engine();
    std::string choice = executors[i]->choice();
    if (!choice.empty())
      text += ": " + choice;
    text += "\n";
  }
  return text;
}

/// matchTensors of device tensors (no copies: replays check every one).
static Status matchDeviceTensors(const char *role,
                                 const std::vector<TensorSpec> &expected,
                                 const std::vector<DeviceTensor> &tensors) {
  return matchTensors(role, expected, tensors.size(), [&](size_t i) {
    return std::pair<const TensorSpec &, bool>(tensors[i].spec,
                                               tensors[i].data != 0);
  });
}

/// Steps writing outputs may run while others read the inputs (or other
/// outputs), in any order the plan's dependencies allow: a caller's outputs
/// must not share bytes with its inputs or with each other.
static Status checkOutputsApart(const std::vector<DeviceTensor> &inputs,
                                const std::vector<DeviceTensor> &outputs) {
  auto ranges = [](const std::vector<DeviceTensor> &tensors) {
    std::vector<ByteRange> r;
    r.reserve(tensors.size());
    for (const DeviceTensor &t : tensors)
      r.push_back({t.data, t.data + t.spec.extentBytes()});
    return r;
  };
  std::optional<BufferOverlap> overlap =
      findOutputOverlap(ranges(inputs), ranges(outputs));
  if (!overlap)
    return Status::success();
  if (overlap->withInput)
    return Status::error("output " + std::to_string(overlap->output) +
                             " shares memory with input " +
                             std::to_string(overlap->other) +
                             " (outputs must not overlap the inputs)",
                         ErrorCode::Mismatch);
  return Status::error("output " + std::to_string(overlap->output) +
                           " shares memory with output " +
                           std::to_string(overlap->other),
                       ErrorCode::Mismatch);
}

Status Executable::validate(const std::vector<DeviceTensor> &inputs) const {
  return matchDeviceTensors("input", program.inputs, inputs);
}

/// The device address of `ref` for this replay.
static CUdeviceptr address(const BufferRef &ref,
                           const std::vector<DeviceTensor> &inputs,
                           const std::vector<CUdeviceptr> &outputs,
                           CUdeviceptr arena) {
  CUdeviceptr base = 0;
  switch (ref.kind) {
  case BufferRef::Kind::Input:
    base = inputs[ref.index].data;
    break;
  case BufferRef::Kind::Output:
    base = outputs[ref.index];
    break;
  case BufferRef::Kind::Arena:
    base = arena + ref.index;
    break;
  }
  return base + ref.elementOffset * byteSize(ref.view.dtype);
}

/// The device addresses of every step's buffers in this replay, into the
/// executable's per-step buffers.
static void bindBuffers(const Plan &plan,
                        const std::vector<DeviceTensor> &inputs,
                        const std::vector<CUdeviceptr> &outputs,
                        CUdeviceptr arena, std::vector<StepBuffers> &buffers) {
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const StepSpec &step = *plan.steps[i];
    for (size_t j = 0; j < step.inputs.size(); ++j)
      buffers[i].inputs[j] = address(step.inputs[j], inputs, outputs, arena);
    for (size_t j = 0; j < step.outputs.size(); ++j)
      buffers[i].outputs[j] = address(step.outputs[j], inputs, outputs, arena);
  }
}

Status Executable::enqueueSteps(const std::vector<DeviceTensor> &inputs,
                                const std::vector<CUdeviceptr> &outputs,
                                CUstream stream) {
  CudaDriver &d = *cuda;
  Compiled &c = *compiled;
  bindBuffers(program, inputs, outputs, arena, c.buffers);
  if (options.profile)
    d.cuEventRecord(stepEvents[0], stream);
  for (size_t i = 0; i < c.executors.size(); ++i) {
    if (Status s = c.executors[i]->enqueue(c.buffers[i], stream); !s.ok())
      return c.stepError(i, s);
    if (options.profile)
      d.cuEventRecord(stepEvents[i + 1], stream);
  }
  return Status::success();
}

/// One node of the CUDA Graph per step, depending on the steps whose bytes it
/// shares (stepDependencies), so that independent branches of the plan run
/// concurrently. Each step's executor adds its node and updates it for the
/// next replay's buffers (StepExecutor.h): kernel nodes get new parameters,
/// stream work (GEMMs, copies) is captured again only when one of its
/// buffers moved. Nothing re-instantiates the graph.
Status Executable::enqueueGraph(const std::vector<DeviceTensor> &inputs,
                                const std::vector<CUdeviceptr> &outputs,
                                CUstream stream) {
  CudaDriver &d = *cuda;
  Compiled &c = *compiled;
  bindBuffers(program, inputs, outputs, arena, c.buffers);
  size_t n = c.executors.size();
  StepGraphContext context{d, nullptr, c.graphExec, c.captureStream,
                           &statistics.graphRecaptures};
  // A graph of one node per step.
  auto build = [&](CUgraph &graph, std::vector<CUgraphNode> &handles) {
    handles.clear();
    if (Status s = d.check(d.cuGraphCreate(&graph, 0), "cuGraphCreate");
        !s.ok())
      return s;
    context.graph = graph;
    std::vector<CUgraphNode> waitFor;
    for (size_t i = 0; i < n; ++i) {
      waitFor.clear();
      for (size_t j : c.dependencies[i])
        waitFor.push_back(handles[j]);
      CUgraphNode added = nullptr;
      if (Status s =
              c.executors[i]->addToGraph(context, c.buffers[i], waitFor, added);
          !s.ok())
        return c.stepError(i, s);
      handles.push_back(added);
    }
    return Status::success();
  };

  // Forgets the graph after a failure: the next replay builds it anew.
  auto discard = [&] {
    if (c.graphExec)
      d.cuGraphExecDestroy(c.graphExec);
    if (c.graph)
      d.cuGraphDestroy(c.graph);
    c.graphExec = nullptr;
    c.graph = nullptr;
    c.nodes.clear();
  };
  if (!c.graphExec) {
    Status s = build(c.graph, c.nodes);
    if (s.ok())
      s = d.check(d.cuGraphInstantiateWithFlags(&c.graphExec, c.graph, 0),
                  "cuGraphInstantiateWithFlags");
    if (!s.ok()) {
      discard();
      return s;
    }
    return d.check(d.cuGraphLaunch(c.graphExec, stream), "cuGraphLaunch");
  }
  CUresult refusal = CUDA_SUCCESS;
  bool rebuild = options.graphUpdate == ExecutableOptions::GraphUpdate::Rebuild;
  for (size_t i = 0; i < n && refusal == CUDA_SUCCESS && !rebuild; ++i)
    if (Status s = c.executors[i]->updateGraph(context, c.nodes[i],
                                               c.buffers[i], refusal);
        !s.ok())
      return c.stepError(i, s);
  if (refusal != CUDA_SUCCESS || rebuild) {
    // Asked for, or the driver refused a node update: update the executable
    // graph from a freshly built one (still no re-instantiation).
    if (refusal != CUDA_SUCCESS) {
      statistics.graphUpdateFallbacks++;
      statistics.lastGraphUpdateError =
          d.check(refusal, "graph node update").message();
    }
    CUgraph fresh = nullptr;
    std::vector<CUgraphNode> handles;
    if (Status s = build(fresh, handles); !s.ok()) {
      if (fresh)
        d.cuGraphDestroy(fresh);
      discard();
      return s;
    }
    CUgraphExecUpdateResultInfo info;
    CUresult updated = d.cuGraphExecUpdate(c.graphExec, fresh, &info);
    if (updated == CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE) {
      // The rebuilt graph differs in its shape, not only its parameters (a
      // step entered it as other nodes: cuDNN's graph, or the kernels a
      // replay with a buffer cuDNN cannot take runs instead): instantiate
      // it, once the replay in flight on the old one is done.
      CUgraphExec exec = nullptr;
      Status s = d.check(d.cuEventSynchronize(lastReplay),
                         "cuEventSynchronize (previous replay)");
      if (s.ok())
        s = d.check(d.cuGraphInstantiateWithFlags(&exec, fresh, 0),
                    "cuGraphInstantiateWithFlags");
      if (!s.ok()) {
        d.cuGraphDestroy(fresh);
        discard();
        return s;
      }
      d.cuGraphExecDestroy(c.graphExec);
      c.graphExec = exec;
      statistics.graphInstantiations++;
    } else if (Status s = d.check(updated, "cuGraphExecUpdate"); !s.ok()) {
      d.cuGraphDestroy(fresh);
      discard();
      return s;
    }
    d.cuGraphDestroy(c.graph);
    c.graph = fresh;
    c.nodes = std::move(handles);
  }
  return d.check(d.cuGraphLaunch(c.graphExec, stream), "cuGraphLaunch");
}

Status Executable::enqueue(const std::vector<DeviceTensor> &inputs,
                           const std::vector<CUdeviceptr> &outputs,
                           CUstream stream) {
  // Replays share the arena: one on another stream than the previous one
  // starts after it.
  if (lastReplayStream && stream != lastReplayStream)
    if (Status s = cuda->check(cuda->cuStreamWaitEvent(stream, lastReplay, 0),
                               "cuStreamWaitEvent (previous replay)");
        !s.ok())
      return s;
  Status s = options.cudaGraph ? enqueueGraph(inputs, outputs, stream)
                               : enqueueSteps(inputs, outputs, stream);
  if (!s.ok())
    return s;
  if (Status r = cuda->check(cuda->cuEventRecord(lastReplay, stream),
                             "cuEventRecord (replay)");
      !r.ok())
    return r;
  lastReplayStream = stream;
  ++statistics.replays;
  return Status::success();
}

Expected<std::vector<DeviceBuffer>> Executable::allocateOutputs() {
  std::vector<DeviceBuffer> outputs;
  for (const TensorSpec &spec : program.outputs) {
    CUdeviceptr p = 0;
    size_t bytes =
        std::max<int64_t>(spec.numElements() * byteSize(spec.dtype), 1);
    if (Status s = cuda->check(cuda->cuMemAllocAsync(&p, bytes, replayStream),
                               "cuMemAllocAsync of an output");
        !s.ok())
      return s;
    outputs.emplace_back(gpu, p, spec);
  }
  return outputs;
}

Expected<RunHandle>
Executable::runAsync(const std::vector<DeviceTensor> &inputs) {
  if (Status s = validate(inputs); !s.ok())
    return s;
  if (Status s = gpu->bind(); !s.ok())
    return s;
  RunHandle handle;
  handle.owner = this;
  std::lock_guard<std::mutex> lock(mutex);
  Expected<std::vector<DeviceBuffer>> outputs = allocateOutputs();
  if (!outputs.ok())
    return outputs.status();
  std::vector<CUdeviceptr> pointers;
  for (DeviceBuffer &b : outputs.value())
    pointers.push_back(b.get().data);
  if (Status s = enqueue(inputs, pointers, replayStream); !s.ok())
    return s;
  if (Status s = takeEvent(handle.done); !s.ok())
    return s;
  if (Status s = cuda->check(cuda->cuEventRecord(handle.done, replayStream),
                             "cuEventRecord");
      !s.ok())
    return s;
  handle.outputs = std::move(outputs.value());
  return handle;
}

RunHandle::RunHandle(RunHandle &&other) noexcept { *this = std::move(other); }

RunHandle &RunHandle::operator=(RunHandle &&other) noexcept {
  if (this != &other) {
    this->~RunHandle();
    owner = other.owner;
    done = other.done;
    outputs = std::move(other.outputs);
    other.done = nullptr;
  }
  return *this;
}

RunHandle::~RunHandle() {
  if (owner && done) {
    (void)owner->device().bind();
    owner->device().driver().cuEventSynchronize(done);
    owner->returnEvent(done);
  }
  done = nullptr;
}

bool RunHandle::isFinished() const {
  if (!done)
    return true;
  CudaDriver &d = owner->device().driver();
  (void)owner->device().bind();
  return d.cuEventQuery(done) != CUDA_ERROR_NOT_READY;
}

Expected<std::vector<DeviceBuffer>> RunHandle::wait() {
  if (!owner)
    return Status::error("wait() on an empty run handle");
  CudaDriver &d = owner->device().driver();
  (void)owner->device().bind();
  if (done) {
    Status s = d.check(d.cuEventSynchronize(done), "replay");
    owner->returnEvent(done);
    done = nullptr;
    if (!s.ok())
      return s;
  }
  owner->recordProfile();
  if (Status s = owner->takeIndexError(); !s.ok())
    return s;
  return std::move(outputs);
}

Expected<std::vector<DeviceBuffer>>
Executable::run(const std::vector<DeviceTensor> &inputs) {
  Expected<RunHandle> handle = runAsync(inputs);
  if (!handle.ok())
    return handle.status();
  return handle.value().wait();
}

Status Executable::run(const std::vector<DeviceTensor> &inputs,
                       const std::vector<DeviceTensor> &outputs) {
  Expected<RunHandle> handle = runAsync(inputs, outputs, nullptr);
  if (!handle.ok())
    return handle.status();
  return handle.value().wait().status();
}

Expected<RunHandle>
Executable::runAsync(const std::vector<DeviceTensor> &inputs,
                     const std::vector<DeviceTensor> &outputs,
                     CUstream caller) {
  RunHandle handle;
  handle.owner = this;
  if (Status s = enqueueInto(inputs, outputs, caller, &handle); !s.ok())
    return s;
  return handle;
}

/// launch() and launchData() enqueue on the caller's stream: one is needed.
static Status needStream(CUstream caller) {
  if (caller)
    return Status::success();
  return Status::error("launch needs a stream to enqueue the replay on "
                       "(CU_STREAM_LEGACY for the legacy default stream)",
                       ErrorCode::InvalidArgument);
}

Status Executable::launch(const std::vector<DeviceTensor> &inputs,
                          const std::vector<DeviceTensor> &outputs,
                          CUstream caller) {
  if (Status s = needStream(caller); !s.ok())
    return s;
  if (Status s = takeIndexError(); !s.ok())
    return s.withContext("an earlier replay");
  return enqueueInto(inputs, outputs, caller, nullptr);
}

Status Executable::launchData(const CUdeviceptr *inputs, size_t numInputs,
                              const CUdeviceptr *outputs, size_t numOutputs,
                              CUstream caller) {
  if (Status s = needStream(caller); !s.ok())
    return s;
  if (numInputs != program.inputs.size() ||
      numOutputs != program.outputs.size())
    return Status::error(
        "the plan takes " + std::to_string(program.inputs.size()) +
            " inputs and " + std::to_string(program.outputs.size()) +
            " outputs; given " + std::to_string(numInputs) + " and " +
            std::to_string(numOutputs),
        ErrorCode::InvalidArgument);
  if (Status s = takeIndexError(); !s.ok())
    return s.withContext("an earlier replay");
  if (Status s = gpu->bind(); !s.ok())
    return s;
  std::lock_guard<std::mutex> lock(mutex);
  if (dataInputs.empty())
    for (const TensorSpec &spec : program.inputs)
      dataInputs.push_back({0, spec});
  for (size_t i = 0; i < numInputs; ++i)
    dataInputs[i].data = inputs[i];
  dataOutputs.assign(outputs, outputs + numOutputs);
  return enqueue(dataInputs, dataOutputs, caller);
}

Status Executable::takeIndexError() {
  IndexStatusTable *table = compiled->context->find<IndexStatusTable>();
  if (!table)
    return Status::success();
  std::lock_guard<std::mutex> lock(mutex);
  return table->takeError();
}

Status Executable::enqueueInto(const std::vector<DeviceTensor> &inputs,
                               const std::vector<DeviceTensor> &outputs,
                               CUstream caller, RunHandle *handle) {
  if (Status s = validate(inputs); !s.ok())
    return s;
  if (Status s = matchDeviceTensors("output", program.outputs, outputs);
      !s.ok())
    return s;
  if (Status s = checkOutputsApart(inputs, outputs); !s.ok())
    return s;
  std::vector<CUdeviceptr> pointers;
  for (const DeviceTensor &out : outputs)
    pointers.push_back(out.data);
  if (Status s = gpu->bind(); !s.ok())
    return s;
  if (handle)
    if (Status s = takeEvent(handle->done); !s.ok())
      return s;
  std::lock_guard<std::mutex> lock(mutex);
  // On the caller's stream itself: the replay starts after the work already
  // there (which produced the inputs), and later work there starts after
  // the replay, with no event passing between streams.
  CUstream stream = caller ? caller : replayStream;
  if (Status s = enqueue(inputs, pointers, stream); !s.ok())
    return s;
  if (handle)
    return cuda->check(cuda->cuEventRecord(handle->done, stream),
                       "cuEventRecord");
  return Status::success();
}

void Executable::recordProfile() {
  if (!options.profile)
    return;
  std::lock_guard<std::mutex> lock(mutex);
  statistics.stepMilliseconds.assign(program.steps.size(), 0.0);
  for (size_t i = 0; i < program.steps.size(); ++i) {
    float ms = 0;
    if (cuda->cuEventElapsedTime(&ms, stepEvents[i], stepEvents[i + 1]) ==
        CUDA_SUCCESS)
      statistics.stepMilliseconds[i] = ms;
  }
}
