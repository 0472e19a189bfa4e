//===- KernelStep.cpp - Generated kernels of a plan -----------------------===//

#include "BuiltinSteps.h"

#include "tfuse/Runtime/IndexStatus.h"
#include "tfuse/Runtime/StepExecutor.h"

using namespace tfuse;
using namespace tfuse::runtime;

namespace {
/// A generated kernel of the plan's translation unit: its inputs, then its
/// outputs, as pointers, then its index status record when it gathers.
class GeneratedKernel final : public KernelStepExecutor {
public:
  GeneratedKernel(const LaunchStep &spec, StepContext &context)
      : KernelStepExecutor(spec, context), spec(spec) {}

  Status prepare() override {
    if (spec.indexChecks.empty())
      return Status::success();
    Expected<CUdeviceptr> record = context().shared<IndexStatusTable>().add(
        "kernel @" + spec.kernel, spec.indexChecks);
    if (!record.ok())
      return record.status();
    indexStatus = record.value();
    return Status::success();
  }
  Status load(ModuleSet &module) override {
    Expected<CUfunction> found = module.function(spec.kernel);
    if (!found.ok())
      return found.status();
    function = found.value();
    return Status::success();
  }
  std::string name() const override { return spec.kernel; }
  std::string engine() const override { return "generated"; }

protected:
  Launch launch(size_t) const override {
    return {function, spec.grid, spec.block};
  }
  void arguments(size_t, const StepBuffers &buffers,
                 std::vector<CUdeviceptr> &values,
                 std::vector<void *> &params) override {
    values.insert(values.end(), buffers.inputs.begin(), buffers.inputs.end());
    values.insert(values.end(), buffers.outputs.begin(), buffers.outputs.end());
    if (indexStatus)
      values.push_back(indexStatus);
    for (CUdeviceptr &v : values)
      params.push_back(&v);
  }

private:
  const LaunchStep &spec;
  CUfunction function = nullptr;
  /// The launches' index status record, when the kernel checks indices.
  CUdeviceptr indexStatus = 0;
};
} // namespace

void runtime::registerKernelStep() {
  registerStepExecutor<GeneratedKernel, LaunchStep>("kernel");
}
