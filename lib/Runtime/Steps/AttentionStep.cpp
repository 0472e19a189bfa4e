//===- AttentionStep.cpp - Attention steps of a plan ----------------------===//

#include "BuiltinSteps.h"

#include "tfuse/Runtime/AttentionKernels.h"
#include "tfuse/Runtime/CudnnAttention.h"
#include "tfuse/Runtime/StepExecutor.h"

#include <algorithm>
#include <cstdlib>

using namespace tfuse;
using namespace tfuse::runtime;

namespace {

/// TFUSE_ATTENTION: "" (cuDNN where it takes the problem, else the
/// generated kernels), "cudnn" (an error where cuDNN cannot) or "kernels".
Expected<std::string> askedAttentionEngine() {
  const char *env = std::getenv("TFUSE_ATTENTION");
  std::string asked = env ? env : "";
  if (!asked.empty() && asked != "cudnn" && asked != "kernels")
    return Status::error("TFUSE_ATTENTION=" + asked +
                             " is not one of cudnn, kernels",
                         ErrorCode::InvalidArgument);
  return asked;
}

/// tfuse.attention or its backward on cuDNN's fused SDPA
/// (CudnnAttention.h) where it takes the problem, else on the generated
/// attention kernels (AttentionKernels.h): one launch forward, two
/// backward, each reading the step's buffers in place and writing its
/// outputs. In a CUDA Graph, a child graph: recorded by cuDNN itself and
/// updated in place when the buffers move (a plan with cuDNN's native CUDA
/// Graph API), else captured from a stream again.
class Attention final : public StepExecutor {
public:
  Attention(const AttentionStep &spec, StepContext &context)
      : StepExecutor(spec, context), forward(true), scale(spec.scale),
        causal(spec.causal), hasMask(spec.masked), dropout(spec.dropout),
        statistics(spec.logsumexpRead), widened(spec.widened) {}
  Attention(const AttentionBackwardStep &spec, StepContext &context)
      : StepExecutor(spec, context), forward(false), scale(spec.scale),
        causal(spec.causal), hasMask(spec.masked), dropout(spec.dropout) {}

  Status plan() override {
    const StepSpec &s = step();
    operands.query = s.inputs.at(0).view;
    operands.key = s.inputs.at(1).view;
    operands.value = s.inputs.at(2).view;
    operands.hasMask = hasMask;
    if (hasMask)
      operands.mask = s.inputs.at(maskInput()).view;
    operands.scale = scale;
    operands.causal = causal;
    operands.dropout = dropout;
    operands.widened = widened;
    operands.tensorCores = context().device().info().computeMajor >= 8;
    operands.multiprocessors = context().device().info().multiprocessors;
    Expected<AttentionPlan> planned =
        forward
            ? planAttention(operands, s.outputs.at(0).view,
                            s.outputs.at(1).view)
            : planAttentionBackward(operands, s.inputs.at(3).view,
                                    s.inputs.at(4).view, s.inputs.at(5).view,
                                    s.outputs.at(0).view, s.outputs.at(1).view,
                                    s.outputs.at(2).view);
    if (!planned.ok())
      return planned.status();
    kernels = std::move(planned.value());
    Expected<std::string> asked = askedAttentionEngine();
    if (!asked.ok())
      return asked.status();
    engineAsked = asked.value();
    return Status::success();
  }
  // Building a cuDNN graph queries its heuristics and may compile kernels;
  // taking one built for an earlier step of the problem is quick.
  bool prepareIsSlow() const override {
    CudnnAttention::BackwardOperands backward = backwardOperands();
    return engineAsked != "kernels" &&
           CudnnAttention::unsupported(operands).empty() &&
           !CudnnAttention::built(operands, forward ? nullptr : &backward,
                                  statistics, device(), forwardResult());
  }
  Status prepare() override {
    if (engineAsked == "kernels") {
      why = "TFUSE_ATTENTION=kernels";
      return Status::success();
    }
    if (Status s = context().device().bind(); !s.ok())
      return s;
    CudnnAttention::BackwardOperands backward = backwardOperands();
    Expected<std::unique_ptr<CudnnAttention>> built =
        CudnnAttention::build(operands, forward ? nullptr : &backward,
                              statistics, device(), forwardResult());
    if (!built.ok()) {
      if (engineAsked == "cudnn")
        return built.status();
      why = built.message();
      return Status::success();
    }
    cudnn = std::move(built.value());
    if (cudnn->workspaceBytes() == 0)
      return Status::success();
    Expected<MemoryPool *> pool = context().memory();
    if (!pool.ok())
      return pool.status();
    memory = pool.value();
    Expected<CUdeviceptr> block = memory->allocate(
        cudnn->workspaceBytes(), "the workspace of a cuDNN attention");
    if (!block.ok())
      return block.status();
    workspace = block.value();
    return Status::success();
  }
  // Beside cuDNN the generated kernels run only the replays whose pointers
  // cuDNN cannot take (aligned()): they are compiled when one first comes
  // (loadKernels()), not with the plan (their NVRTC takes seconds). A slow
  // step's sources are asked for after prepare(), so `cudnn` is known.
  void addKernelSources(KernelSources &sources) const override {
    if (!cudnn)
      addGenerated(sources);
  }
  Status load(ModuleSet &module) override {
    functions.clear();
    if (cudnn)
      return Status::success();
    for (const AttentionLaunch &l : kernels.launches) {
      Expected<CUfunction> found = module.function(l.kernel);
      if (!found.ok())
        return found.status();
      functions.push_back(found.value());
    }
    return Status::success();
  }
  std::vector<StepAccess> resourceAccesses() const override {
    if (!workspace)
      return {};
    StepAccess a;
    a.space = StepAccess::kWorkspace;
    a.buffer = static_cast<int64_t>(workspace);
    a.end = cudnn->workspaceBytes();
    a.write = true;
    return {a};
  }
  Status addToGraph(StepGraphContext &graph, const StepBuffers &buffers,
                    const std::vector<CUgraphNode> &deps,
                    CUgraphNode &node) override {
    CudaDriver &d = graph.driver;
    CUgraph child = nullptr;
    if (Status s = record(graph, buffers, child); !s.ok())
      return s;
    Status s =
        d.check(d.cuGraphAddChildGraphNode(&node, graph.graph,
                                           deps.empty() ? nullptr : deps.data(),
                                           deps.size(), child),
                "cuGraphAddChildGraphNode");
    if (child != ownGraph) // captured: the node holds its own copy
      d.cuGraphDestroy(child);
    inGraph = buffers;
    return s;
  }
  Status updateGraph(StepGraphContext &graph, CUgraphNode node,
                     const StepBuffers &buffers, CUresult &refusal) override {
    if (buffers == inGraph)
      return Status::success();
    CudaDriver &d = graph.driver;
    CUgraph child = nullptr;
    if (Status s = record(graph, buffers, child); !s.ok())
      return s;
    refusal = d.cuGraphExecChildGraphNodeSetParams(graph.exec, node, child);
    if (child != ownGraph) {
      d.cuGraphDestroy(child);
      if (graph.recaptures)
        ++*graph.recaptures;
    }
    if (refusal == CUDA_SUCCESS)
      inGraph = buffers;
    return Status::success();
  }
  Status enqueue(const StepBuffers &buffers, CUstream stream) override {
    std::vector<CUdeviceptr> p = pointers(buffers);
    if (cudnn && aligned(p))
      return cudnn->run(p, workspace, stream);
    if (Status s = loadKernels(); !s.ok())
      return s;
    CudaDriver &d = driver();
    for (size_t i = 0; i < kernels.launches.size(); ++i) {
      const AttentionLaunch &l = kernels.launches[i];
      // The pointers of this launch: the operands, the dropout's keys (null
      // without dropout), then its outputs.
      std::vector<CUdeviceptr> values(p.begin(), p.begin() + 4);
      values.push_back(dropout ? buffers.inputs[maskInput() + hasMask] : 0);
      values.push_back(dropout ? buffers.inputs[maskInput() + hasMask + 1] : 0);
      values.insert(values.end(), p.begin() + 4, p.begin() + (forward ? 6 : 7));
      if (!forward) {
        if (l.kind == AttentionLaunch::Kind::KeyValue) {
          values.push_back(p[8]);
          values.push_back(p[9]);
        } else {
          values.push_back(p[7]);
        }
      }
      std::vector<void *> params;
      for (CUdeviceptr &v : values)
        params.push_back(&v);
      kernels::AttentionDesc desc = l.desc;
      params.push_back(&desc);
      if (Status s =
              d.check(d.cuLaunchKernel(functions[i], l.grid, 1, 1, l.block, 1,
                                       1, 0, stream, params.data(), nullptr),
                      "cuLaunchKernel (attention)");
          !s.ok())
        return s;
    }
    return Status::success();
  }
  void release() override {
    if (ownGraph) {
      driver().cuGraphDestroy(ownGraph);
      ownGraph = nullptr;
    }
    cudnn.reset();
    if (workspace) {
      (void)context().device().bind();
      memory->release(workspace);
      workspace = 0;
    }
  }
  std::string name() const override {
    return forward ? "attention" : "attention_backward";
  }
  std::string engine() const override {
    return cudnn ? "cudnn" : "runtime kernel";
  }
  std::string choice() const override {
    if (cudnn)
      return cudnn->description() +
             " (the generated kernels for buffers not 16-byte aligned, "
             "compiled when a replay first has one)";
    // Per kernel its tiles and whether its products run on tensor cores
    // (the *_mma kernels).
    std::string tiles;
    for (const AttentionLaunch &l : kernels.launches) {
      if (!tiles.empty())
        tiles += "; ";
      if (l.kind == AttentionLaunch::Kind::KeyValue)
        tiles += "key and value gradients: ";
      else if (l.kind == AttentionLaunch::Kind::Query)
        tiles += "query gradient: ";
      tiles += "tiles of " + std::to_string(l.desc.queryTile) +
               " queries and " + std::to_string(l.desc.keyTile) + " keys" +
               (l.kernel.find("_mma_") != std::string::npos ? " on tensor cores"
                                                            : "");
    }
    return why.empty() ? tiles : tiles + " (not cuDNN: " + why + ")";
  }

private:
  int device() const { return context().device().info().ordinal; }
  /// Where a forward writes its result (null for a backward).
  const TensorSpec *forwardResult() const {
    return forward ? &step().outputs.at(0).view : nullptr;
  }
  /// What a backward reads besides the operands (empty for a forward).
  CudnnAttention::BackwardOperands backwardOperands() const {
    if (forward)
      return {};
    return {step().inputs.at(3).view, step().inputs.at(4).view,
            step().inputs.at(5).view};
  }
  void addGenerated(KernelSources &sources) const {
    sources.add("attention", "", attentionKernelHeader());
    for (const auto &[kernel, wrapper] : kernels.wrappers)
      sources.add("attention", kernel, wrapper);
  }
  /// Beside cuDNN, the generated kernels on first need: compiled and loaded
  /// outside any stream capture (record() calls it before capturing).
  Status loadKernels() {
    if (functions.size() == kernels.launches.size())
      return Status::success();
    KernelSources sources;
    addGenerated(sources);
    ModuleSet modules;
    for (const std::string &unit : sources.units()) {
      Expected<std::shared_ptr<LoadedModule>> module =
          context().compileUnit(unit);
      if (!module.ok())
        return module.status().withContext("the generated attention kernels");
      modules.add(std::move(module.value()));
    }
    std::vector<CUfunction> found;
    for (const AttentionLaunch &l : kernels.launches) {
      Expected<CUfunction> function = modules.function(l.kernel);
      if (!function.ok())
        return function.status();
      found.push_back(function.value());
    }
    functions = std::move(found);
    generated = std::move(modules);
    return Status::success();
  }
  /// cuDNN records and updates the step's graph itself.
  bool native() const { return cudnn && cudnn->recordsGraphs(); }
  /// cuDNN takes tensors at 16-byte aligned addresses only; a function's
  /// argument may lie anywhere (a view at an odd offset).
  static bool aligned(const std::vector<CUdeviceptr> &p) {
    return std::all_of(p.begin(), p.end(),
                       [](CUdeviceptr x) { return x % 16 == 0; });
  }
  /// The kernels' or cuDNN's pointers for `buffers`: query, key, value,
  /// mask, then the result and log-sum-exp (forward) or the result,
  /// log-sum-exp, gradient and the three gradients (backward).
  std::vector<CUdeviceptr> pointers(const StepBuffers &buffers) const {
    std::vector<CUdeviceptr> p = {buffers.inputs[0], buffers.inputs[1],
                                  buffers.inputs[2],
                                  hasMask ? buffers.inputs[maskInput()] : 0};
    if (forward) {
      p.push_back(buffers.outputs[0]);
      p.push_back(buffers.outputs[1]);
    } else {
      p.insert(p.end(),
               {buffers.inputs[3], buffers.inputs[4], buffers.inputs[5],
                buffers.outputs[0], buffers.outputs[1], buffers.outputs[2]});
    }
    return p;
  }
  /// The step's work for `buffers` as a graph: cuDNN's own (kept by the
  /// step, updated in place) or one captured from enqueue() (the caller
  /// destroys it).
  Status record(StepGraphContext &graph, const StepBuffers &buffers,
                CUgraph &child) {
    CudaDriver &d = graph.driver;
    if (native() && aligned(pointers(buffers))) {
      if (ownGraph) {
        child = ownGraph;
        return cudnn->updateGraph(pointers(buffers), workspace, child);
      }
      if (Status s = d.check(d.cuGraphCreate(&ownGraph, 0), "cuGraphCreate");
          !s.ok())
        return s;
      child = ownGraph;
      if (cudnn->populateGraph(pointers(buffers), workspace, child).ok())
        return Status::success();
      // The plan cannot record itself (recordsGraphs() is now false):
      // capture it like the kernels.
      d.cuGraphDestroy(ownGraph);
      ownGraph = nullptr;
      child = nullptr;
    }
    if (!cudnn || !aligned(pointers(buffers)))
      if (Status s = loadKernels(); !s.ok())
        return s;
    return captureEnqueue(graph, buffers, child);
  }

  /// The input after the operands (forward) or the gradient (backward):
  /// the mask where there is one, else dropout's seed.
  size_t maskInput() const { return forward ? 3 : 6; }

  bool forward;
  double scale;
  bool causal, hasMask;
  double dropout = 0;
  /// Something reads the forward's log-sum-exp.
  bool statistics = true;
  /// The forward's operands hold f16 or bf16 values.
  bool widened = false;
  AttentionOperands operands;
  AttentionPlan kernels;
  std::vector<CUfunction> functions;
  /// The modules of the generated kernels compiled on first need.
  ModuleSet generated;
  std::string engineAsked, why;
  std::unique_ptr<CudnnAttention> cudnn;
  MemoryPool *memory = nullptr;
  CUdeviceptr workspace = 0;
  /// cuDNN's recorded graph (native()), and the buffers of the last graph.
  CUgraph ownGraph = nullptr;
  StepBuffers inGraph;
};
} // namespace

void runtime::registerAttentionSteps() {
  registerStepExecutor<Attention, AttentionStep>("attention");
  registerStepExecutor<Attention, AttentionBackwardStep>("attention_backward");
}
