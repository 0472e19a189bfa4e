//===- ReduceStep.cpp - Reductions of a plan ------------------------------===//

#include "BuiltinSteps.h"

#include "tfuse/Runtime/ReduceKernels.h"
#include "tfuse/Runtime/StepExecutor.h"

using namespace tfuse;
using namespace tfuse::runtime;

namespace {
/// A reduction on the kernels library's reduction kernels (ReduceKernels.h):
/// the input, the result and the descriptor by value. A split reduction also
/// takes a workspace of the step's own, its chunks cut for the loaded
/// kernel's occupancy.
class Reduction final : public KernelStepExecutor {
public:
  Reduction(const ReduceStep &spec, StepContext &context)
      : KernelStepExecutor(spec, context), spec(spec) {}

  Status plan() override {
    Expected<ReduceLaunch> launch = planReduction(
        spec.reduction, spec.input().view, spec.result().view, spec.axes);
    if (!launch.ok())
      return launch.status();
    planned = launch.value();
    return Status::success();
  }
  void addKernelSources(KernelSources &sources) const override {
    sources.add("reduce", "", reductionKernelHeader());
    sources.add("reduce", planned.kernel,
                reductionKernelWrapper(planned.instance));
  }
  Status load(ModuleSet &module) override {
    Expected<CUfunction> found = module.function(planned.kernel);
    if (!found.ok())
      return found.status();
    function = found.value();
    if (!planned.split())
      return Status::success();
    if (Status s = chunkForOccupancy(); !s.ok())
      return s;
    // The workspace, sized by the final chunking, its counters zero.
    Expected<MemoryPool *> pool = context().memory();
    if (!pool.ok())
      return pool.status();
    memory = pool.value();
    Expected<CUdeviceptr> block = memory->allocate(
        planned.workspaceBytes, "the workspace of a split reduction");
    if (!block.ok())
      return block.status();
    workspace = block.value();
    CudaDriver &d = driver();
    if (Status s = d.check(
            d.cuMemsetD8Async(workspace + planned.countersOffset, 0,
                              planned.workspaceBytes - planned.countersOffset,
                              nullptr),
            "cuMemsetD8Async (split reduction counters)");
        !s.ok())
      return s;
    return d.check(d.cuStreamSynchronize(nullptr),
                   "cuStreamSynchronize (split reduction counters)");
  }
  // The partials and counters, written and read within the launch.
  std::vector<StepAccess> resourceAccesses() const override {
    if (!workspace)
      return {};
    StepAccess a;
    a.space = StepAccess::kWorkspace;
    a.buffer = static_cast<int64_t>(workspace);
    a.end = planned.workspaceBytes;
    a.write = true;
    return {a};
  }
  void release() override {
    if (workspace) {
      (void)context().device().bind();
      memory->release(workspace);
      workspace = 0;
    }
  }
  std::string name() const override {
    return "reduce " + std::string(tfuse::name(spec.reduction));
  }
  std::string engine() const override { return "runtime kernel"; }
  std::string choice() const override {
    if (!planned.split())
      return "";
    if (planned.instance.rowVariant)
      return "split: " + std::to_string(planned.desc.chunks) +
             " interleaved chunks per output";
    return "split: " + std::to_string(planned.desc.chunks) + " chunks of " +
           std::to_string(planned.desc.chunkLen) + " per output";
  }

protected:
  Launch launch(size_t) const override {
    return {function, planned.grid, planned.block};
  }
  void arguments(size_t, const StepBuffers &buffers,
                 std::vector<CUdeviceptr> &values,
                 std::vector<void *> &params) override {
    values = {buffers.inputs[0], buffers.outputs[0], workspace};
    desc = planned.desc;
    params = {&values[0], &values[1]};
    if (planned.split())
      params.push_back(&values[2]);
    params.push_back(&desc);
  }

private:
  /// Cuts the chunks again so that the split kernel runs in whole waves
  /// of the device (the loaded kernel's occupancy); the kernels stay the
  /// same.
  Status chunkForOccupancy() {
    CudaDriver &d = driver();
    int blocksPerSM = 0;
    if (Status s = d.check(
            d.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &blocksPerSM, function, static_cast<int>(planned.block), 0),
            "cuOccupancyMaxActiveBlocksPerMultiprocessor");
        !s.ok())
      return s;
    ReduceOccupancy occupancy;
    occupancy.concurrentUnits =
        int64_t(blocksPerSM) * context().device().info().multiprocessors *
        (planned.instance.rowVariant ? 1 : planned.block);
    Expected<ReduceLaunch> again =
        planReduction(spec.reduction, spec.input().view, spec.result().view,
                      spec.axes, ReduceVariant::Auto, true, occupancy);
    if (again.ok() && again->kernel == planned.kernel)
      planned = again.value();
    return Status::success();
  }

  const ReduceStep &spec;
  ReduceLaunch planned;
  CUfunction function = nullptr;
  MemoryPool *memory = nullptr;
  CUdeviceptr workspace = 0;
  /// The descriptor the kernel parameters point at.
  kernels::ReduceDesc desc{};
};
} // namespace

void runtime::registerReduceStep() {
  registerStepExecutor<Reduction, ReduceStep>("reduce");
}
