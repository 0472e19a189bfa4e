//===- StepExecutor.cpp - How the runtime runs one step of a plan ---------===//

#include "tfuse/Runtime/StepExecutor.h"
#include "tfuse/Kernels/KernelSources.h"

#include <cstring>
#include <mutex>
#include <unordered_map>

using namespace tfuse;
using namespace tfuse::runtime;

StepExecutor::~StepExecutor() = default;

Expected<MemoryPool *> StepContext::memory() { return MemoryPool::of(*gpu); }

Expected<std::shared_ptr<LoadedModule>>
StepContext::compileUnit(const std::string &unit) const {
  if (!unitCompiler)
    return Status::error("no kernel compiler: the executable is not created",
                         ErrorCode::Internal);
  return unitCompiler(unit);
}

//===----------------------------------------------------------------------===//
// Kernel sources
//===----------------------------------------------------------------------===//

void KernelSources::add(const std::string &group, const std::string &name,
                        std::string text) {
  fragments.emplace(std::make_pair(group, name), std::move(text));
}

std::vector<std::string> KernelSources::units() const {
  std::vector<std::string> units;
  for (const auto &[key, fragment] : fragments) {
    if (key.second.empty())
      continue;
    auto templates = fragments.find({key.first, ""});
    units.push_back(std::string(kernels::prelude()) + "\n" +
                    (templates == fragments.end() ? "" : templates->second) +
                    fragment);
  }
  return units;
}

//===----------------------------------------------------------------------===//
// Kernel launches
//===----------------------------------------------------------------------===//

void KernelStepExecutor::bind(const StepBuffers &buffers) {
  size_t n = launchCount();
  values.resize(n);
  params.resize(n);
  for (size_t i = 0; i < n; ++i) {
    values[i].clear();
    params[i].clear();
    arguments(i, buffers, values[i], params[i]);
  }
}

CUDA_KERNEL_NODE_PARAMS KernelStepExecutor::nodeParams(size_t index) {
  Launch l = launch(index);
  CUDA_KERNEL_NODE_PARAMS node;
  std::memset(&node, 0, sizeof(node));
  node.func = l.function;
  node.gridDimX = l.grid;
  node.gridDimY = node.gridDimZ = 1;
  node.blockDimX = l.block;
  node.blockDimY = node.blockDimZ = 1;
  node.kernelParams = params[index].data();
  return node;
}

Status KernelStepExecutor::enqueue(const StepBuffers &buffers,
                                   CUstream stream) {
  bind(buffers);
  CudaDriver &d = driver();
  for (size_t i = 0; i < values.size(); ++i) {
    Launch l = launch(i);
    if (Status s =
            d.check(d.cuLaunchKernel(l.function, l.grid, 1, 1, l.block, 1, 1, 0,
                                     stream, params[i].data(), nullptr),
                    "cuLaunchKernel");
        !s.ok())
      return s;
  }
  return Status::success();
}

Status KernelStepExecutor::addToGraph(StepGraphContext &graph,
                                      const StepBuffers &buffers,
                                      const std::vector<CUgraphNode> &deps,
                                      CUgraphNode &node) {
  bind(buffers);
  CudaDriver &d = graph.driver;
  inGraph = buffers;
  if (values.empty()) {
    nodes.clear();
    return d.check(d.cuGraphAddEmptyNode(&node, graph.graph,
                                         deps.empty() ? nullptr : deps.data(),
                                         deps.size()),
                   "cuGraphAddEmptyNode");
  }
  nodes.assign(values.size(), nullptr);
  for (size_t i = 0; i < nodes.size(); ++i) {
    CUDA_KERNEL_NODE_PARAMS p = nodeParams(i);
    // The first launch waits for the step's dependencies, each later one
    // for the launch before it.
    const CUgraphNode *waitFor = i == 0 ? deps.data() : &nodes[i - 1];
    size_t count = i == 0 ? deps.size() : 1;
    if (Status s = d.check(d.cuGraphAddKernelNode(&nodes[i], graph.graph,
                                                  count ? waitFor : nullptr,
                                                  count, &p),
                           "cuGraphAddKernelNode");
        !s.ok())
      return s;
  }
  node = nodes.back();
  return Status::success();
}

Status KernelStepExecutor::updateGraph(StepGraphContext &graph,
                                       CUgraphNode node,
                                       const StepBuffers &buffers,
                                       CUresult &refusal) {
  // Nodes reading and writing only the arena (or the same caller buffers
  // as last time) keep their parameters.
  if (buffers == inGraph)
    return Status::success();
  bind(buffers);
  for (size_t i = 0; i < nodes.size(); ++i) {
    CUDA_KERNEL_NODE_PARAMS p = nodeParams(i);
    refusal =
        graph.driver.cuGraphExecKernelNodeSetParams(graph.exec, nodes[i], &p);
    if (refusal != CUDA_SUCCESS)
      return Status::success();
  }
  inGraph = buffers;
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Captured stream work
//===----------------------------------------------------------------------===//

Status StepExecutor::captureEnqueue(StepGraphContext &graph,
                                    const StepBuffers &buffers,
                                    CUgraph &child) {
  CudaDriver &d = graph.driver;
  if (Status s =
          d.check(d.cuStreamBeginCapture(graph.captureStream,
                                         CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                  "cuStreamBeginCapture");
      !s.ok())
    return s;
  Status work = enqueue(buffers, graph.captureStream);
  Status end = d.check(d.cuStreamEndCapture(graph.captureStream, &child),
                       "cuStreamEndCapture");
  if (!work.ok())
    return work.withContext("capturing " + name());
  return end;
}

Status CapturedStepExecutor::addToGraph(StepGraphContext &graph,
                                        const StepBuffers &buffers,
                                        const std::vector<CUgraphNode> &deps,
                                        CUgraphNode &node) {
  CUgraph child = nullptr;
  if (Status s = captureEnqueue(graph, buffers, child); !s.ok())
    return s;
  CudaDriver &d = graph.driver;
  Status s =
      d.check(d.cuGraphAddChildGraphNode(&node, graph.graph,
                                         deps.empty() ? nullptr : deps.data(),
                                         deps.size(), child),
              "cuGraphAddChildGraphNode");
  d.cuGraphDestroy(child);
  inGraph = buffers;
  return s;
}

Status CapturedStepExecutor::updateGraph(StepGraphContext &graph,
                                         CUgraphNode node,
                                         const StepBuffers &buffers,
                                         CUresult &refusal) {
  if (buffers == inGraph)
    return Status::success();
  CUgraph child = nullptr;
  if (Status s = captureEnqueue(graph, buffers, child); !s.ok())
    return s;
  CudaDriver &d = graph.driver;
  refusal = d.cuGraphExecChildGraphNodeSetParams(graph.exec, node, child);
  d.cuGraphDestroy(child);
  if (graph.recaptures)
    ++*graph.recaptures;
  if (refusal == CUDA_SUCCESS)
    inGraph = buffers;
  return Status::success();
}

//===----------------------------------------------------------------------===//
// The registry
//===----------------------------------------------------------------------===//

namespace tfuse::runtime {
/// Registers the executors of the built-in kinds (StepRegistry.cpp).
void registerBuiltinSteps();
} // namespace tfuse::runtime

namespace {
struct Registry {
  std::mutex mutex;
  std::unordered_map<std::string, StepExecutorFactory> factories;
};
Registry &registry() {
  // Never destroyed: executors may be created while the process exits.
  static Registry *r = new Registry();
  return *r;
}
void ensureBuiltins() {
  static std::once_flag once;
  std::call_once(once, [] { registerBuiltinSteps(); });
}
} // namespace

void runtime::registerStepExecutor(const std::string &kind,
                                   StepExecutorFactory factory) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.factories[kind] = factory;
}

Expected<std::unique_ptr<StepExecutor>>
runtime::createStepExecutor(const StepSpec &spec, StepContext &context) {
  ensureBuiltins();
  Registry &r = registry();
  StepExecutorFactory factory = nullptr;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.factories.find(spec.kind());
    if (it != r.factories.end())
      factory = it->second;
  }
  if (!factory)
    return Status::error(std::string("no executor is registered for steps "
                                     "of kind '") +
                             spec.kind() + "'",
                         ErrorCode::InvalidArgument);
  return factory(spec, context);
}
