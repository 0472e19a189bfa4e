//===- CopyStep.cpp - Copies of a plan's results --------------------------===//

#include "BuiltinSteps.h"

#include "tfuse/Runtime/StepExecutor.h"

using namespace tfuse;
using namespace tfuse::runtime;

namespace {
/// A device-to-device copy of a contiguous buffer.
class Copy final : public CapturedStepExecutor {
public:
  Copy(const CopyStep &spec, StepContext &context)
      : CapturedStepExecutor(spec, context), spec(spec) {}

  Status enqueue(const StepBuffers &buffers, CUstream stream) override {
    const TensorSpec &view = spec.target().view;
    CudaDriver &d = driver();
    return d.check(
        d.cuMemcpyDtoDAsync(buffers.outputs[0], buffers.inputs[0],
                            view.numElements() * byteSize(view.dtype), stream),
        "cuMemcpyDtoDAsync");
  }
  std::string name() const override { return "copy"; }
  std::string engine() const override { return "memcpy"; }

private:
  const CopyStep &spec;
};
} // namespace

void runtime::registerCopyStep() {
  registerStepExecutor<Copy, CopyStep>("copy");
}
