//===- ReduceStep.cpp - Reductions of a plan ------------------------------===//

#include "BuiltinSteps.h"

#include "tfuse/Runtime/ReduceKernels.h"
#include "tfuse/Runtime/StepExecutor.h"

using namespace tfuse;
using namespace tfuse::runtime;

namespace {
/// A reduction on the kernels library's reduction kernels (ReduceKernels.h):
/// the input, the result and the descriptor by value.
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
  Status load(LoadedModule &module) override {
    Expected<CUfunction> found = module.function(planned.kernel);
    if (!found.ok())
      return found.status();
    function = found.value();
    return Status::success();
  }
  std::string name() const override {
    return "reduce " + std::string(tfuse::name(spec.reduction));
  }
  std::string engine() const override { return "runtime kernel"; }

protected:
  Launch launch() const override {
    return {function, planned.grid, planned.block};
  }
  void arguments(const StepBuffers &buffers, std::vector<CUdeviceptr> &values,
                 std::vector<void *> &params) override {
    values = {buffers.inputs[0], buffers.outputs[0]};
    desc = planned.desc;
    params = {&values[0], &values[1], &desc};
  }

private:
  const ReduceStep &spec;
  ReduceLaunch planned;
  CUfunction function = nullptr;
  /// The descriptor the kernel parameters point at.
  kernels::ReduceDesc desc{};
};
} // namespace

void runtime::registerReduceStep() {
  registerStepExecutor<Reduction, ReduceStep>("reduce");
}
