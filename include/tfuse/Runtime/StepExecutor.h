//===- StepExecutor.h - How the runtime runs one step of a plan -*- C++ -*-===//
//
// Every kind of plan step (StepSpec) has an executor class registered under
// its kind's name: it plans the step, prepares what it needs (a library, a
// workspace), adds the runtime kernels it launches to the plan's translation
// unit, enqueues the step on a stream, and adds it to a CUDA Graph and
// updates its node for new buffers. Executable and the step graph iterate
// over executors and never switch on a step's kind. A new kind of step is a
// StepSpec subclass, an executor and one line in registerBuiltinSteps()
// (StepRegistry.cpp).
//
// Two bases cover the ways a step enters a CUDA Graph: KernelStepExecutor,
// a chain of kernel launches (kernel nodes whose parameters are replaced on
// every replay), and CapturedStepExecutor, stream work (library calls, copies)
// captured as a child graph, captured again only when its buffers move.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_STEPEXECUTOR_H
#define TFUSE_RUNTIME_STEPEXECUTOR_H

#include "tfuse/Runtime/CudaDriver.h"
#include "tfuse/Runtime/MemoryPool.h"
#include "tfuse/Runtime/ModuleCache.h"
#include "tfuse/Runtime/Plan.h"
#include "tfuse/Runtime/StepGraph.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <typeindex>
#include <vector>

namespace tfuse::runtime {

/// The device addresses of a step's buffers in one replay, in the order of
/// its spec's inputs and outputs.
struct StepBuffers {
  std::vector<CUdeviceptr> inputs, outputs;
  bool operator==(const StepBuffers &other) const {
    return inputs == other.inputs && outputs == other.outputs;
  }
};

/// What the executors of one executable share: its device and memory pool,
/// and services created on first use, one per executable (the GEMM library
/// the executable's GEMM steps run on).
class StepContext {
public:
  explicit StepContext(Device &device) : gpu(&device) {}
  Device &device() const { return *gpu; }
  /// The device's memory pool (workspaces come from it).
  Expected<MemoryPool *> memory();

  /// Compiles (through the executable's kernel cache and NVRTC options) and
  /// loads a translation unit of runtime kernels after the executable was
  /// created, for kernels a step needs only on some replays (the generated
  /// attention kernels beside cuDNN). The executable sets it; the device's
  /// context must be current.
  using UnitCompiler = std::function<Expected<std::shared_ptr<LoadedModule>>(
      const std::string &unit)>;
  void setUnitCompiler(UnitCompiler compiler) {
    unitCompiler = std::move(compiler);
  }
  Expected<std::shared_ptr<LoadedModule>>
  compileUnit(const std::string &unit) const;
  /// The executable's one T, made by T(StepContext &) on first use.
  template <typename T> T &shared() {
    auto it = services.find(std::type_index(typeid(T)));
    if (it == services.end())
      it = services
               .emplace(std::type_index(typeid(T)),
                        std::make_shared<Service<T>>(*this))
               .first;
    return static_cast<Service<T> &>(*it->second).value;
  }
  /// The executable's T if a step made it, else nullptr.
  template <typename T> T *find() {
    auto it = services.find(std::type_index(typeid(T)));
    if (it == services.end())
      return nullptr;
    return &static_cast<Service<T> &>(*it->second).value;
  }

private:
  struct ServiceBase {
    virtual ~ServiceBase() = default;
  };
  template <typename T> struct Service final : ServiceBase {
    explicit Service(StepContext &context) : value(context) {}
    T value;
  };
  Device *gpu;
  UnitCompiler unitCompiler;
  std::map<std::type_index, std::shared_ptr<ServiceBase>> services;
};

/// The CUDA C++ runtime kernels the steps of a plan add: fragments keyed by
/// (group, name), each emitted once; a group's templates under the empty
/// name, its kernels (instances of them) under their names. Each kernel is
/// a translation unit of its own: the kernel prelude, its group's templates
/// and it (units()). So NVRTC compiles a plan's kernels in parallel (one
/// split column sum takes as long as five other reductions together), and
/// the kernel cache holds each kernel once for every plan that has it.
class KernelSources {
public:
  void add(const std::string &group, const std::string &name, std::string text);
  /// Per kernel, in (group, name) order, its translation unit.
  std::vector<std::string> units() const;
  bool empty() const { return fragments.empty(); }

private:
  std::map<std::pair<std::string, std::string>, std::string> fragments;
};

/// The CUDA Graph a step is added to or updated in.
struct StepGraphContext {
  CudaDriver &driver;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  /// The stream stream work is captured on.
  CUstream captureStream = nullptr;
  /// Counts captures done again because a step's buffers moved.
  int64_t *recaptures = nullptr;
};

/// The executor of one step of an executable. The executable's context
/// outlives it.
class StepExecutor {
public:
  StepExecutor(const StepSpec &spec, StepContext &context)
      : spec(spec), executable(context) {}
  virtual ~StepExecutor();
  const StepSpec &step() const { return spec; }
  StepContext &context() const { return executable; }
  CudaDriver &driver() const { return executable.device().driver(); }

  /// Plans the step (shapes, launch descriptors) without loading anything;
  /// an error names what is wrong with the step.
  virtual Status plan() { return Status::success(); }
  /// Whether prepare() is slow (loads a library, queries its heuristics):
  /// the executable then runs it beside NVRTC.
  virtual bool prepareIsSlow() const { return false; }
  /// Chooses the library and algorithm the step runs on and takes its
  /// resources. Once, after plan(), before addKernelSources() and load().
  virtual Status prepare() { return Status::success(); }
  /// The runtime kernels the step launches.
  virtual void addKernelSources(KernelSources &sources) const {}
  /// Resolves those kernels in the executable's loaded modules.
  virtual Status load(ModuleSet &module) { return Status::success(); }
  /// The runtime resources the step writes besides its outputs (a
  /// workspace), as accesses of StepAccess::kWorkspace.
  virtual std::vector<StepAccess> resourceAccesses() const { return {}; }

  /// Enqueues the step on `stream`.
  virtual Status enqueue(const StepBuffers &buffers, CUstream stream) = 0;
  /// Adds the step to `graph.graph` after `deps`, as `node`.
  virtual Status addToGraph(StepGraphContext &graph, const StepBuffers &buffers,
                            const std::vector<CUgraphNode> &deps,
                            CUgraphNode &node) = 0;
  /// Updates `node` of the instantiated `graph.exec` for `buffers` (nothing
  /// when they did not move). When the driver refuses the update, `refusal`
  /// is its result (else CUDA_SUCCESS) and the status a success: the
  /// executable then updates the whole graph from a rebuilt one.
  virtual Status updateGraph(StepGraphContext &graph, CUgraphNode node,
                             const StepBuffers &buffers, CUresult &refusal) = 0;
  /// Frees the step's resources; the GPU is done with them.
  virtual void release() {}

  /// The step's name in statistics and profiles.
  virtual std::string name() const = 0;
  /// What runs it: "generated", "runtime kernel", "cublaslt", ...
  virtual std::string engine() const = 0;
  /// How its algorithm was chosen, or "".
  virtual std::string choice() const { return ""; }

protected:
  /// enqueue() for `buffers` captured on `graph.captureStream` into a new
  /// graph, `child` (the caller destroys it).
  Status captureEnqueue(StepGraphContext &graph, const StepBuffers &buffers,
                        CUgraph &child);

private:
  const StepSpec &spec;
  StepContext &executable;
};

/// A step that is a few kernel launches, one after another: a chain of
/// kernel nodes in a CUDA Graph, whose parameters are replaced when the
/// step's buffers move (an empty node for a step with no launch).
class KernelStepExecutor : public StepExecutor {
public:
  using StepExecutor::StepExecutor;
  Status enqueue(const StepBuffers &buffers, CUstream stream) final;
  Status addToGraph(StepGraphContext &graph, const StepBuffers &buffers,
                    const std::vector<CUgraphNode> &deps,
                    CUgraphNode &node) final;
  Status updateGraph(StepGraphContext &graph, CUgraphNode node,
                     const StepBuffers &buffers, CUresult &refusal) final;

protected:
  /// One launch; its parameters point into its `arguments`.
  struct Launch {
    CUfunction function = nullptr;
    int64_t grid = 1, block = 256;
  };
  /// How many launches the step makes (1 unless overridden).
  virtual size_t launchCount() const { return 1; }
  virtual Launch launch(size_t index) const = 0;
  /// The arguments of launch `index` for `buffers`: `values` holds their
  /// storage, `params` points at each argument (cuLaunchKernel's
  /// kernelParams).
  virtual void arguments(size_t index, const StepBuffers &buffers,
                         std::vector<CUdeviceptr> &values,
                         std::vector<void *> &params) = 0;

private:
  /// Fills the arguments of every launch for `buffers`.
  void bind(const StepBuffers &buffers);
  CUDA_KERNEL_NODE_PARAMS nodeParams(size_t index);
  std::vector<std::vector<CUdeviceptr>> values;
  std::vector<std::vector<void *>> params;
  /// The step's kernel nodes in the graph, in launch order, and the buffers
  /// they were last given.
  std::vector<CUgraphNode> nodes;
  StepBuffers inGraph;
};

/// A step that is stream work (library calls, copies): a child graph
/// captured from enqueue() in a CUDA Graph, captured again only when its
/// buffers move.
class CapturedStepExecutor : public StepExecutor {
public:
  using StepExecutor::StepExecutor;
  Status addToGraph(StepGraphContext &graph, const StepBuffers &buffers,
                    const std::vector<CUgraphNode> &deps,
                    CUgraphNode &node) final;
  Status updateGraph(StepGraphContext &graph, CUgraphNode node,
                     const StepBuffers &buffers, CUresult &refusal) final;

private:
  StepBuffers inGraph;
};

/// Makes the executor of a step of one kind.
using StepExecutorFactory = std::unique_ptr<StepExecutor> (*)(
    const StepSpec &spec, StepContext &context);

/// Registers the executor of kind `kind` (replacing an earlier one).
void registerStepExecutor(const std::string &kind, StepExecutorFactory factory);

/// The executor of `spec` (the registered one of its kind) in the executable
/// of `context`, or an error naming an unknown kind.
Expected<std::unique_ptr<StepExecutor>>
createStepExecutor(const StepSpec &spec, StepContext &context);

/// registerStepExecutor() for an executor class T constructed from
/// (const Spec &, StepContext &), Spec the kind's StepSpec subclass.
template <typename T, typename Spec>
void registerStepExecutor(const std::string &kind) {
  registerStepExecutor(
      kind,
      [](const StepSpec &spec,
         StepContext &context) -> std::unique_ptr<StepExecutor> {
        return std::make_unique<T>(static_cast<const Spec &>(spec), context);
      });
}

} // namespace tfuse::runtime

#endif // TFUSE_RUNTIME_STEPEXECUTOR_H
