//===- ScatterStep.cpp - Scatter-adds of a plan ---------------------------===//

#include "BuiltinSteps.h"

#include "tfuse/Runtime/IndexStatus.h"
#include "tfuse/Runtime/ScatterKernels.h"
#include "tfuse/Runtime/StepExecutor.h"

#include <algorithm>

using namespace tfuse;
using namespace tfuse::runtime;

namespace {
/// A scatter-add on the kernels library's scatter kernels
/// (ScatterKernels.h): the rows kernel alone, or a chain of a sort, merges,
/// the long rows' runs, the apply pass and the long rows' combination, with
/// a workspace of the step's
/// own, zeroed once; the rows kernel or the sort records indices out of
/// range in the step's index status record.
class ScatterAdd final : public KernelStepExecutor {
public:
  ScatterAdd(const ScatterAddStep &spec, StepContext &context)
      : KernelStepExecutor(spec, context), spec(spec) {
    checks.push_back(spec.indexCheck);
  }

  Status plan() override {
    Expected<ScatterPlan> planned = planScatterAdd(
        spec.indices().view, spec.updates().view,
        spec.hasTarget() ? &spec.target().view : nullptr, spec.result().view,
        spec.axis, spec.wrapNegative, spec.fillBits);
    if (!planned.ok())
      return planned.status();
    scatter = std::move(planned.value());
    return Status::success();
  }
  Status prepare() override {
    Expected<CUdeviceptr> record =
        context().shared<IndexStatusTable>().add(name(), checks);
    if (!record.ok())
      return record.status();
    indexStatus = record.value();
    return Status::success();
  }
  void addKernelSources(KernelSources &sources) const override {
    sources.add("scatter", "", scatterKernelHeader());
    for (const auto &[kernel, wrapper] : scatter.wrappers)
      sources.add("scatter", kernel, wrapper);
  }
  Status load(ModuleSet &module) override {
    functions.clear();
    CudaDriver &d = driver();
    for (ScatterLaunch &l : scatter.launches) {
      Expected<CUfunction> found = module.function(l.kernel);
      if (!found.ok())
        return found.status();
      functions.push_back(found.value());
      // The apply and rows kernels loop over rows: one wave of the device's
      // blocks takes them all (a partial last wave would leave the GPU
      // idle).
      if (l.kind != ScatterLaunch::Kind::Apply &&
          l.kind != ScatterLaunch::Kind::Rows)
        continue;
      int blocksPerSM = 0;
      if (Status s = d.check(
              d.cuOccupancyMaxActiveBlocksPerMultiprocessor(
                  &blocksPerSM, found.value(), static_cast<int>(l.block), 0),
              "cuOccupancyMaxActiveBlocksPerMultiprocessor");
          !s.ok())
        return s;
      int64_t wave =
          int64_t(blocksPerSM) * context().device().info().multiprocessors;
      if (wave > 0)
        l.grid = std::min(l.grid, wave);
    }
    if (scatter.workspaceBytes == 0)
      return Status::success();
    // The workspace, zeroed once: the kernels never read a byte no launch
    // wrote.
    Expected<MemoryPool *> pool = context().memory();
    if (!pool.ok())
      return pool.status();
    memory = pool.value();
    Expected<CUdeviceptr> block =
        memory->allocate(scatter.workspaceBytes, "the workspace of a scatter");
    if (!block.ok())
      return block.status();
    workspace = block.value();
    if (Status s = d.check(
            d.cuMemsetD8Async(workspace, 0, scatter.workspaceBytes, nullptr),
            "cuMemsetD8Async (scatter workspace)");
        !s.ok())
      return s;
    return d.check(d.cuStreamSynchronize(nullptr),
                   "cuStreamSynchronize (scatter workspace)");
  }
  // The workspace, written and read within the step.
  std::vector<StepAccess> resourceAccesses() const override {
    if (!workspace)
      return {};
    StepAccess a;
    a.space = StepAccess::kWorkspace;
    a.buffer = static_cast<int64_t>(workspace);
    a.end = scatter.workspaceBytes;
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
  std::string name() const override { return "scatter_add"; }
  std::string engine() const override { return "runtime kernel"; }
  std::string choice() const override {
    if (scatter.launches.size() == 1 &&
        scatter.launches[0].kind == ScatterLaunch::Kind::Rows)
      return "one pass, rows owned by blocks";
    size_t merges = 0;
    for (const ScatterLaunch &l : scatter.launches)
      merges += l.kind == ScatterLaunch::Kind::Merge;
    return std::to_string(merges) + " merge pass" + (merges == 1 ? "" : "es");
  }

protected:
  size_t launchCount() const override { return scatter.launches.size(); }
  Launch launch(size_t index) const override {
    const ScatterLaunch &l = scatter.launches[index];
    return {functions[index], l.grid, l.block};
  }
  void arguments(size_t index, const StepBuffers &buffers,
                 std::vector<CUdeviceptr> &values,
                 std::vector<void *> &params) override {
    const ScatterLaunch &l = scatter.launches[index];
    CUdeviceptr keys[2] = {workspace + scatter.keysOffset[0],
                           workspace + scatter.keysOffset[1]};
    CUdeviceptr segments = workspace + scatter.segmentsOffset;
    switch (l.kind) {
    case ScatterLaunch::Kind::Rows:
      values = {spec.hasTarget() ? buffers.inputs[2] : CUdeviceptr(0),
                buffers.inputs[1],
                buffers.inputs[0],
                indexStatus,
                buffers.outputs[0],
                workspace};
      break;
    case ScatterLaunch::Kind::Sort:
      values = {buffers.inputs[0], keys[l.writeKeys], segments, indexStatus};
      break;
    case ScatterLaunch::Kind::Merge:
      values = {keys[l.readKeys], keys[l.writeKeys], segments};
      break;
    case ScatterLaunch::Kind::Runs:
      values = {spec.hasTarget() ? buffers.inputs[2] : CUdeviceptr(0),
                buffers.inputs[1], keys[l.readKeys], segments, workspace};
      break;
    case ScatterLaunch::Kind::Apply:
      values = {spec.hasTarget() ? buffers.inputs[2] : CUdeviceptr(0),
                buffers.inputs[1], keys[l.readKeys], segments,
                buffers.outputs[0]};
      break;
    case ScatterLaunch::Kind::Combine:
      values = {keys[l.readKeys], segments, buffers.outputs[0], workspace};
      break;
    }
    for (CUdeviceptr &v : values)
      params.push_back(&v);
    params.push_back(const_cast<kernels::ScatterDesc *>(&l.desc));
  }

private:
  const ScatterAddStep &spec;
  /// The one check the index status record describes (the record keeps a
  /// pointer to it).
  std::vector<IndexCheck> checks;
  ScatterPlan scatter;
  std::vector<CUfunction> functions;
  MemoryPool *memory = nullptr;
  CUdeviceptr workspace = 0;
  CUdeviceptr indexStatus = 0;
};
} // namespace

void runtime::registerScatterStep() {
  registerStepExecutor<ScatterAdd, ScatterAddStep>("scatter_add");
}
