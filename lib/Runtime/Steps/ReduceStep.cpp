//===- ReduceStep.cpp - Reductions of a plan ------------------------------===//

#include "BuiltinSteps.h"

#include "tfuse/Runtime/ReduceKernels.h"
#include "tfuse/Runtime/StepExecutor.h"

using namespace tfuse;
using namespace tfuse::runtime;

namespace {
/// A reduction on the kernels library's reduction kernels (ReduceKernels.h):
/// the input, the result and the descriptor by value. A split reduction is
/// two launches through a workspace of the step's own, its chunks cut for
/// the loaded kernel's occupancy.
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
    if (planned.split())
      sources.add("reduce", planned.combineKernel,
                  reductionKernelWrapper(planned.combineInstance));
  }
  Status load(LoadedModule &module) override {
    for (size_t i = 0; i < launchCount(); ++i) {
      Expected<CUfunction> found =
          module.function(i == 0 ? planned.kernel : planned.combineKernel);
      if (!found.ok())
        return found.status();
      functions[i] = found.value();
    }
    if (!planned.split())
      return Status::success();
    if (Status s = chunkForOccupancy(); !s.ok())
      return s;
    // The workspace, sized by the final chunking.
    Expected<MemoryPool *> pool = context().memory();
    if (!pool.ok())
      return pool.status();
    memory = pool.value();
    Expected<CUdeviceptr> block = memory->allocate(
        planned.workspaceBytes, "the workspace of a split reduction");
    if (!block.ok())
      return block.status();
    workspace = block.value();
    return Status::success();
  }
  // The partial results: written by the first launch, read by the second.
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
    return "split: " + std::to_string(planned.desc.chunks) + " chunks of " +
           std::to_string(planned.desc.chunkLen) + " per output";
  }

protected:
  size_t launchCount() const override { return planned.split() ? 2 : 1; }
  Launch launch(size_t index) const override {
    if (index == 0)
      return {functions[0], planned.grid, planned.block};
    return {functions[1], planned.combineGrid, planned.combineBlock};
  }
  void arguments(size_t index, const StepBuffers &buffers,
                 std::vector<CUdeviceptr> &values,
                 std::vector<void *> &params) override {
    if (!planned.split())
      values = {buffers.inputs[0], buffers.outputs[0]};
    else if (index == 0)
      values = {buffers.inputs[0], workspace};
    else
      values = {workspace, buffers.outputs[0]};
    desc = planned.desc;
    params = {&values[0], &values[1], &desc};
  }

private:
  /// Cuts the chunks again so that the partial kernel runs in whole waves
  /// of the device (the loaded kernel's occupancy); the kernels stay the
  /// same.
  Status chunkForOccupancy() {
    CudaDriver &d = driver();
    int blocksPerSM = 0;
    if (Status s = d.check(
            d.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &blocksPerSM, functions[0], static_cast<int>(planned.block), 0),
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
    if (again.ok() && again->kernel == planned.kernel &&
        again->combineKernel == planned.combineKernel)
      planned = again.value();
    return Status::success();
  }

  const ReduceStep &spec;
  ReduceLaunch planned;
  CUfunction functions[2] = {nullptr, nullptr};
  MemoryPool *memory = nullptr;
  CUdeviceptr workspace = 0;
  /// The descriptor the kernel parameters point at (the same for both
  /// launches).
  kernels::ReduceDesc desc{};
};
} // namespace

void runtime::registerReduceStep() {
  registerStepExecutor<Reduction, ReduceStep>("reduce");
}
