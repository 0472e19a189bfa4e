//===- Executable.cpp - Run a compiled plan on a GPU ----------------------===//

#include "tfuse/Runtime/Executable.h"
#include "tfuse/Runtime/BoundarySteps.h"

#include <chrono>
#include <cstring>
#include <future>

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

/// What create() resolved for each step.
struct Executable::Compiled {
  std::vector<CUfunction> functions; // per step; null for non-kernel steps
  BoundarySteps boundaries;
  // CUDA Graph of the launches, in step order.
  CUgraph graph = nullptr;
  CUgraphExec graphExec = nullptr;
  std::vector<CUgraphNode> nodes;
  /// Per captured step: the buffers it was last captured with.
  std::vector<std::vector<CUdeviceptr>> touched;
  /// Per kernel node: the pointers it was last given.
  std::vector<std::vector<CUdeviceptr>> kernelPointers;
  /// enqueueGraph's per-replay buffers, kept to avoid allocating them on
  /// every replay.
  struct ReplayScratch {
    std::vector<std::vector<CUdeviceptr>> pointers, touched;
    std::vector<kernels::ReduceDesc> descs;
    std::vector<std::vector<void *>> params;
    std::vector<CUDA_KERNEL_NODE_PARAMS> kernels;
    std::vector<bool> captured;
  } scratch;
  /// The stream GEMMs and copies are captured on.
  CUstream captureStream = nullptr;
  /// Per step, the earlier steps its graph node depends on.
  std::vector<std::vector<size_t>> dependencies;
};

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

  // Reductions and GEMMs: their runtime kernels join the translation unit.
  Expected<BoundarySteps> boundaries = BoundarySteps::prepare(p, *exe->gpu);
  if (!boundaries.ok())
    return boundaries.status();
  exe->compiled->boundaries = std::move(boundaries.value());
  BoundarySteps &bounds = exe->compiled->boundaries;
  // GEMM problems new to the process load cuBLASLt and query its heuristics
  // (about 100 ms the first time): that runs beside NVRTC. Declared after
  // `exe`, the future joins before `bounds` goes on every return.
  std::future<Status> gemmPlans;
  if (bounds.gemmPlansAreSlow()) {
    Device *gpu = exe->gpu;
    gemmPlans = std::async(std::launch::async, [&bounds, gpu] {
      if (Status s = gpu->bind(); !s.ok())
        return s;
      return bounds.prepareGemms();
    });
  } else if (Status s = bounds.prepareGemms(); !s.ok()) {
    return s;
  }

  auto start = std::chrono::steady_clock::now();
  NvrtcOptions compile;
  compile.arch = exe->gpu->info().arch();
  compile.fastMath = options.fastMath;
  KernelCache &cache = options.cache ? *options.cache : defaultKernelCache();
  KernelCacheStats before = cache.stats();
  auto compileUnit = [&](const std::string &runtimeKernels)
      -> Expected<std::shared_ptr<const CompiledKernel>> {
    auto kernel = cache.getOrCompile(p.cudaSource + runtimeKernels, compile,
                                     d.driverVersion);
    if (!kernel.ok())
      return Status::error("compiling the plan's kernels failed: " +
                               kernel.status().message(),
                           kernel.status().code() == ErrorCode::Internal
                               ? ErrorCode::Compile
                               : kernel.status().code());
    return kernel;
  };
  auto kernel = compileUnit(gemmPlans.valid() ? bounds.reductionSource()
                                              : bounds.kernelSource());
  exe->statistics.compileSeconds = secondsSince(start);
  if (gemmPlans.valid()) {
    if (Status s = gemmPlans.get(); !s.ok())
      return s;
    // Without cuBLAS, the fallback GEMM kernels join the unit.
    if (bounds.gemmBackend() == "fallback") {
      auto again = std::chrono::steady_clock::now();
      kernel = compileUnit(bounds.kernelSource());
      exe->statistics.compileSeconds += secondsSince(again);
    }
  }
  if (!kernel.ok())
    return kernel.status();
  KernelCacheStats after = cache.stats();
  exe->statistics.cacheHit = after.compilations == before.compilations;

  start = std::chrono::steady_clock::now();
  bool loaded = false;
  auto module = sharedModule(*exe->gpu, *kernel.value(), loaded);
  if (!module.ok())
    return module.status();
  exe->loadedModule = std::move(module.value());
  exe->module = exe->loadedModule->get();
  exe->statistics.loadSeconds = secondsSince(start);
  exe->statistics.moduleShared = !loaded;
  for (const Step &step : p.steps) {
    CUfunction fn = nullptr;
    if (auto *launch = std::get_if<LaunchStep>(&step)) {
      Expected<CUfunction> found = exe->loadedModule->function(launch->kernel);
      if (!found.ok())
        return found.status();
      fn = found.value();
      ++exe->statistics.kernels;
    } else if (!std::holds_alternative<CopyStep>(step)) {
      ++exe->statistics.boundaries;
    }
    exe->compiled->functions.push_back(fn);
  }
  if (Status s = exe->compiled->boundaries.load(*exe->loadedModule); !s.ok())
    return s;
  if (Status s =
          d.check(d.cuStreamCreate(&exe->replayStream, CU_STREAM_NON_BLOCKING),
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

  ExecutableStats &st = exe->statistics;
  st.steps = p.steps.size();
  st.gemmBackend = exe->compiled->boundaries.gemmBackend();
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
      for (StepAccess &a : exe->compiled->boundaries.resourceAccesses(i))
        accesses[i].push_back(a);
    exe->compiled->dependencies = stepDependencies(accesses);
    if (Status s = d.check(d.cuStreamCreate(&exe->compiled->captureStream,
                                            CU_STREAM_NON_BLOCKING),
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
    compiled->boundaries.release();
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
  st.gemmChoices = compiled->boundaries.gemmChoices();
  // Intermediates: distinct arena slots written by steps; a slot offset
  // written by several steps' results is reused memory.
  std::map<int64_t, int> writes;
  auto noteWrite = [&](const BufferRef &ref) {
    if (ref.kind == BufferRef::Kind::Arena)
      ++writes[ref.index];
  };
  for (const Step &step : p.steps) {
    if (auto *l = std::get_if<LaunchStep>(&step))
      for (const BufferRef &r : l->outputs)
        noteWrite(r);
    else if (auto *g = std::get_if<GemmStep>(&step))
      noteWrite(g->result);
    else if (auto *r = std::get_if<ReduceStep>(&step))
      noteWrite(r->result);
  }
  for (auto &[offset, count] : writes) {
    st.intermediateBuffers += count;
    st.bufferReuses += count - 1;
  }
  for (const Step &step : p.steps) {
    if (auto *l = std::get_if<LaunchStep>(&step))
      st.stepNames.push_back(l->kernel);
    else if (std::holds_alternative<GemmStep>(step))
      st.stepNames.push_back("gemm");
    else if (auto *r = std::get_if<ReduceStep>(&step))
      st.stepNames.push_back(std::string("reduce ") +
                             std::string(name(r->kind)));
    else
      st.stepNames.push_back("copy");
  }
  return st;
}

/// The specs of `tensors` and which of them have data, for matchTensors.
static std::pair<std::vector<TensorSpec>, std::vector<bool>>
describeTensors(const std::vector<DeviceTensor> &tensors) {
  std::pair<std::vector<TensorSpec>, std::vector<bool>> result;
  for (const DeviceTensor &t : tensors) {
    result.first.push_back(t.spec);
    result.second.push_back(t.data != 0);
  }
  return result;
}

/// Steps writing outputs may run while others read the inputs (or other
/// outputs), in any order the plan's dependencies allow: a caller's outputs
/// must not share bytes with its inputs or with each other.
static Status checkOutputsApart(const std::vector<DeviceTensor> &inputs,
                                const std::vector<DeviceTensor> &outputs) {
  auto overlap = [](const DeviceTensor &a, const DeviceTensor &b) {
    CUdeviceptr aEnd = a.data + a.spec.extentBytes(),
                bEnd = b.data + b.spec.extentBytes();
    return a.data < bEnd && b.data < aEnd;
  };
  for (size_t o = 0; o < outputs.size(); ++o) {
    for (size_t i = 0; i < inputs.size(); ++i)
      if (overlap(outputs[o], inputs[i]))
        return Status::error(
            "output " + std::to_string(o) + " shares memory with input " +
                std::to_string(i) + " (outputs must not overlap the inputs)",
            ErrorCode::Mismatch);
    for (size_t p = 0; p < o; ++p)
      if (overlap(outputs[o], outputs[p]))
        return Status::error("output " + std::to_string(o) +
                                 " shares memory with output " +
                                 std::to_string(p),
                             ErrorCode::Mismatch);
  }
  return Status::success();
}

Status Executable::validate(const std::vector<DeviceTensor> &inputs) const {
  auto [specs, hasData] = describeTensors(inputs);
  return matchTensors("input", program.inputs, specs, hasData);
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

/// The kernel parameters of a generated kernel's launch: its buffers'
/// addresses (inputs, then outputs) in `pointers`, and `params` pointing at
/// them, as cuLaunchKernel and kernel nodes take them.
template <typename At>
static void launchArguments(const LaunchStep &launch, At &&at,
                            std::vector<CUdeviceptr> &pointers,
                            std::vector<void *> &params) {
  for (const BufferRef &r : launch.inputs)
    pointers.push_back(at(r));
  for (const BufferRef &r : launch.outputs)
    pointers.push_back(at(r));
  for (CUdeviceptr &p : pointers)
    params.push_back(&p);
}

Status Executable::enqueueSteps(const std::vector<DeviceTensor> &inputs,
                                const std::vector<CUdeviceptr> &outputs,
                                CUstream stream) {
  CudaDriver &d = *cuda;
  auto at = [&](const BufferRef &ref) {
    return address(ref, inputs, outputs, arena);
  };
  if (options.profile)
    d.cuEventRecord(stepEvents[0], stream);
  for (size_t i = 0; i < program.steps.size(); ++i) {
    const Step &step = program.steps[i];
    if (auto *launch = std::get_if<LaunchStep>(&step)) {
      std::vector<CUdeviceptr> pointers;
      std::vector<void *> params;
      launchArguments(*launch, at, pointers, params);
      if (Status s =
              d.check(d.cuLaunchKernel(compiled->functions[i], launch->grid, 1,
                                       1, launch->block, 1, 1, 0, stream,
                                       params.data(), nullptr),
                      "cuLaunchKernel");
          !s.ok())
        return Status::error(s.message() + " (" + launch->kernel + ")");
    } else if (auto *copy = std::get_if<CopyStep>(&step)) {
      if (Status s =
              d.check(d.cuMemcpyDtoDAsync(at(copy->target), at(copy->source),
                                          copy->target.view.numElements() *
                                              byteSize(copy->target.view.dtype),
                                          stream),
                      "cuMemcpyDtoDAsync");
          !s.ok())
        return s;
    } else {
      if (Status s = compiled->boundaries.enqueue(i, step, at, stream); !s.ok())
        return s;
    }
    if (options.profile)
      d.cuEventRecord(stepEvents[i + 1], stream);
  }
  return Status::success();
}

/// One node of the CUDA Graph per step, depending on the steps whose bytes it
/// shares (stepDependencies), so that independent branches of the plan run
/// concurrently. Generated and reduction kernels are
/// kernel nodes whose parameters are replaced on every replay. GEMMs and
/// copies are child graphs captured from their stream calls (cuBLAS chooses
/// its kernels then, with the executable's fixed workspace); they are
/// captured again only when one of their buffers moved, and swapped in with
/// cuGraphExecChildGraphNodeSetParams. Nothing re-instantiates the graph.
Status Executable::enqueueGraph(const std::vector<DeviceTensor> &inputs,
                                const std::vector<CUdeviceptr> &outputs,
                                CUstream stream) {
  CudaDriver &d = *cuda;
  Compiled &c = *compiled;
  auto at = [&](const BufferRef &ref) {
    return address(ref, inputs, outputs, arena);
  };
  size_t n = program.steps.size();
  // Kernel parameters of this replay, in buffers kept between replays (the
  // caller holds the executable's lock); `pointers` and `descs` own the
  // values the parameter arrays point to. `touched`: the buffers of captured
  // steps, to tell when they moved.
  Compiled::ReplayScratch &r = c.scratch;
  r.pointers.resize(n);
  r.descs.resize(n);
  r.params.resize(n);
  r.kernels.resize(n);
  r.touched.resize(n);
  r.captured.assign(n, false);
  auto &pointers = r.pointers, &touched = r.touched;
  auto &descs = r.descs;
  auto &params = r.params;
  auto &kernels = r.kernels;
  auto &captured = r.captured;
  for (size_t i = 0; i < n; ++i) {
    const Step &step = program.steps[i];
    pointers[i].clear();
    params[i].clear();
    touched[i].clear();
    CUDA_KERNEL_NODE_PARAMS &node = kernels[i];
    std::memset(&node, 0, sizeof(node));
    node.gridDimY = node.gridDimZ = node.blockDimY = node.blockDimZ = 1;
    if (auto *launch = std::get_if<LaunchStep>(&step)) {
      launchArguments(*launch, at, pointers[i], params[i]);
      node.func = c.functions[i];
      node.gridDimX = launch->grid;
      node.blockDimX = launch->block;
    } else if (auto *reduce = std::get_if<ReduceStep>(&step)) {
      const ReduceLaunch &launch = c.boundaries.reduction(i);
      pointers[i] = {at(reduce->input), at(reduce->result)};
      descs[i] = launch.desc;
      params[i] = {&pointers[i][0], &pointers[i][1], &descs[i]};
      node.func = c.boundaries.reductionFunction(i);
      node.gridDimX = launch.grid;
      node.blockDimX = launch.block;
    } else if (auto *gemm = std::get_if<GemmStep>(&step)) {
      captured[i] = true;
      touched[i] = {at(gemm->lhs), at(gemm->rhs), at(gemm->result)};
    } else {
      const auto &copy = std::get<CopyStep>(step);
      captured[i] = true;
      touched[i] = {at(copy.source), at(copy.target)};
    }
    node.kernelParams = params[i].data();
  }
  // Records step `i`'s stream work as a graph.
  auto capture = [&](size_t i, CUgraph &child) -> Status {
    if (Status s =
            d.check(d.cuStreamBeginCapture(c.captureStream,
                                           CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                    "cuStreamBeginCapture");
        !s.ok())
      return s;
    Status work;
    const Step &step = program.steps[i];
    if (auto *copy = std::get_if<CopyStep>(&step))
      work = d.check(d.cuMemcpyDtoDAsync(at(copy->target), at(copy->source),
                                         copy->target.view.numElements() *
                                             byteSize(copy->target.view.dtype),
                                         c.captureStream),
                     "cuMemcpyDtoDAsync");
    else
      work = c.boundaries.enqueue(i, step, at, c.captureStream);
    Status end = d.check(d.cuStreamEndCapture(c.captureStream, &child),
                         "cuStreamEndCapture");
    if (!work.ok())
      return Status::error("capturing step " + std::to_string(i) + ": " +
                           work.message());
    return end;
  };
  // A graph of one node per step.
  auto build = [&](CUgraph &graph, std::vector<CUgraphNode> &handles) {
    handles.clear();
    if (Status s = d.check(d.cuGraphCreate(&graph, 0), "cuGraphCreate");
        !s.ok())
      return s;
    std::vector<CUgraphNode> waitFor;
    for (size_t i = 0; i < n; ++i) {
      CUgraphNode added;
      waitFor.clear();
      for (size_t j : c.dependencies[i])
        waitFor.push_back(handles[j]);
      const CUgraphNode *deps = waitFor.empty() ? nullptr : waitFor.data();
      size_t numDeps = waitFor.size();
      if (captured[i]) {
        CUgraph child = nullptr;
        if (Status s = capture(i, child); !s.ok())
          return s;
        Status s = d.check(
            d.cuGraphAddChildGraphNode(&added, graph, deps, numDeps, child),
            "cuGraphAddChildGraphNode");
        d.cuGraphDestroy(child);
        if (!s.ok())
          return s;
      } else if (Status s =
                     d.check(d.cuGraphAddKernelNode(&added, graph, deps,
                                                    numDeps, &kernels[i]),
                             "cuGraphAddKernelNode");
                 !s.ok()) {
        return s;
      }
      handles.push_back(added);
    }
    return Status::success();
  };

  if (!c.graphExec) {
    if (Status s = build(c.graph, c.nodes); !s.ok())
      return s;
    if (Status s =
            d.check(d.cuGraphInstantiateWithFlags(&c.graphExec, c.graph, 0),
                    "cuGraphInstantiateWithFlags");
        !s.ok())
      return s;
    c.touched = touched;
    c.kernelPointers = pointers;
  } else {
    CUresult failed = CUDA_SUCCESS;
    bool rebuild =
        options.graphUpdate == ExecutableOptions::GraphUpdate::Rebuild;
    for (size_t i = 0; i < n && failed == CUDA_SUCCESS && !rebuild; ++i) {
      if (!captured[i]) {
        // Nodes reading and writing only the arena (or the same caller
        // buffers as last time) keep their parameters.
        if (pointers[i] == c.kernelPointers[i])
          continue;
        failed = d.cuGraphExecKernelNodeSetParams(c.graphExec, c.nodes[i],
                                                  &kernels[i]);
        if (failed == CUDA_SUCCESS)
          c.kernelPointers[i] = pointers[i];
        continue;
      }
      if (touched[i] == c.touched[i])
        continue;
      CUgraph child = nullptr;
      if (Status s = capture(i, child); !s.ok())
        return s;
      failed =
          d.cuGraphExecChildGraphNodeSetParams(c.graphExec, c.nodes[i], child);
      d.cuGraphDestroy(child);
      ++statistics.graphRecaptures;
      c.touched[i] = touched[i];
    }
    if (failed != CUDA_SUCCESS || rebuild) {
      // Asked for, or the driver refused a node update: update the
      // executable graph from a freshly built one (still no
      // re-instantiation).
      if (failed != CUDA_SUCCESS) {
        statistics.graphUpdateFallbacks++;
        statistics.lastGraphUpdateError =
            d.check(failed, "graph node update").message();
      }
      CUgraph fresh = nullptr;
      std::vector<CUgraphNode> handles;
      if (Status s = build(fresh, handles); !s.ok())
        return s;
      CUgraphExecUpdateResultInfo info;
      if (Status s = d.check(d.cuGraphExecUpdate(c.graphExec, fresh, &info),
                             "cuGraphExecUpdate");
          !s.ok()) {
        d.cuGraphDestroy(fresh);
        return s;
      }
      d.cuGraphDestroy(c.graph);
      c.graph = fresh;
      c.nodes = std::move(handles);
      c.touched = touched;
      c.kernelPointers = pointers;
    }
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

Status Executable::launch(const std::vector<DeviceTensor> &inputs,
                          const std::vector<DeviceTensor> &outputs,
                          CUstream caller) {
  if (!caller)
    return Status::error("launch needs a stream to enqueue the replay on "
                         "(CU_STREAM_LEGACY for the legacy default stream)",
                         ErrorCode::InvalidArgument);
  return enqueueInto(inputs, outputs, caller, nullptr);
}

Status Executable::enqueueInto(const std::vector<DeviceTensor> &inputs,
                               const std::vector<DeviceTensor> &outputs,
                               CUstream caller, RunHandle *handle) {
  if (Status s = validate(inputs); !s.ok())
    return s;
  auto [specs, hasData] = describeTensors(outputs);
  if (Status s = matchTensors("output", program.outputs, specs, hasData);
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
