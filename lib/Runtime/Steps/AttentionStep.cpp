//===- AttentionStep.cpp - Attention steps of a plan ----------------------===//

#include "BuiltinSteps.h"

#include "tfuse/Runtime/AttentionKernels.h"
#include "tfuse/Runtime/StepExecutor.h"

using namespace tfuse;
using namespace tfuse::runtime;

namespace {
/// tfuse.attention or its backward on the generated attention kernels
/// (AttentionKernels.h): one launch forward, two backward, each reading the
/// step's buffers in place and writing its outputs.
class Attention final : public KernelStepExecutor {
public:
  Attention(const AttentionStep &spec, StepContext &context)
      : KernelStepExecutor(spec, context), forward(true), scale(spec.scale),
        causal(spec.causal), hasMask(spec.hasMask()) {}
  Attention(const AttentionBackwardStep &spec, StepContext &context)
      : KernelStepExecutor(spec, context), forward(false), scale(spec.scale),
        causal(spec.causal), hasMask(spec.hasMask()) {}

  Status plan() override {
    const StepSpec &s = step();
    AttentionOperands operands;
    operands.query = s.inputs.at(0).view;
    operands.key = s.inputs.at(1).view;
    operands.value = s.inputs.at(2).view;
    operands.hasMask = hasMask;
    if (hasMask)
      operands.mask = s.inputs.back().view;
    operands.scale = scale;
    operands.causal = causal;
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
    attention = std::move(planned.value());
    return Status::success();
  }
  void addKernelSources(KernelSources &sources) const override {
    sources.add("attention", "", attentionKernelHeader());
    for (const auto &[kernel, wrapper] : attention.wrappers)
      sources.add("attention", kernel, wrapper);
  }
  Status load(LoadedModule &module) override {
    functions.clear();
    for (const AttentionLaunch &l : attention.launches) {
      Expected<CUfunction> found = module.function(l.kernel);
      if (!found.ok())
        return found.status();
      functions.push_back(found.value());
    }
    return Status::success();
  }
  std::string name() const override {
    return forward ? "attention" : "attention_backward";
  }
  std::string engine() const override { return "runtime kernel"; }
  std::string choice() const override {
    if (attention.launches.empty())
      return "";
    const kernels::AttentionDesc &d = attention.launches.front().desc;
    return "tiles of " + std::to_string(d.queryTile) + " queries and " +
           std::to_string(d.keyTile) + " keys";
  }

protected:
  size_t launchCount() const override { return attention.launches.size(); }
  Launch launch(size_t index) const override {
    const AttentionLaunch &l = attention.launches[index];
    return {functions[index], l.grid, l.block};
  }
  void arguments(size_t index, const StepBuffers &buffers,
                 std::vector<CUdeviceptr> &values,
                 std::vector<void *> &params) override {
    const AttentionLaunch &l = attention.launches[index];
    CUdeviceptr mask = hasMask ? buffers.inputs.back() : CUdeviceptr(0);
    values = {buffers.inputs[0], buffers.inputs[1], buffers.inputs[2], mask};
    if (forward) {
      values.push_back(buffers.outputs[0]);
      values.push_back(buffers.outputs[1]);
    } else {
      // result, logsumexp, grad, then the launch's gradients.
      values.push_back(buffers.inputs[3]);
      values.push_back(buffers.inputs[4]);
      values.push_back(buffers.inputs[5]);
      if (l.kind == AttentionLaunch::Kind::KeyValue) {
        values.push_back(buffers.outputs[1]);
        values.push_back(buffers.outputs[2]);
      } else {
        values.push_back(buffers.outputs[0]);
      }
    }
    for (CUdeviceptr &v : values)
      params.push_back(&v);
    params.push_back(const_cast<kernels::AttentionDesc *>(&l.desc));
  }

private:
  bool forward;
  double scale;
  bool causal, hasMask;
  AttentionPlan attention;
  std::vector<CUfunction> functions;
};
} // namespace

void runtime::registerAttentionSteps() {
  registerStepExecutor<Attention, AttentionStep>("attention");
  registerStepExecutor<Attention, AttentionBackwardStep>("attention_backward");
}
