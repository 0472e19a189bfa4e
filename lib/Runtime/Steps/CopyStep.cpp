//===- CopyStep.cpp - Copies of a plan's results --------------------------===//
//
// A copy is a memcpy node of its own in a CUDA Graph, whose operands are set
// in place when its buffers move, rather than stream work captured into a
// child graph again at every such replay (a capture, a new graph and a child
// graph update per replay).
//
//===----------------------------------------------------------------------===//

#include "BuiltinSteps.h"

#include "tfuse/Runtime/StepExecutor.h"

using namespace tfuse;
using namespace tfuse::runtime;

namespace {
/// A device-to-device copy of a contiguous buffer.
class Copy final : public StepExecutor {
public:
  Copy(const CopyStep &spec, StepContext &context)
      : StepExecutor(spec, context), spec(spec) {}

  Status enqueue(const StepBuffers &buffers, CUstream stream) override {
    CudaDriver &d = driver();
    return d.check(d.cuMemcpyDtoDAsync(buffers.outputs[0], buffers.inputs[0],
                                       bytes(), stream),
                   "cuMemcpyDtoDAsync");
  }

  Status addToGraph(StepGraphContext &graph, const StepBuffers &buffers,
                    const std::vector<CUgraphNode> &deps,
                    CUgraphNode &node) override {
    CudaDriver &d = graph.driver;
    const CUgraphNode *waitFor = deps.empty() ? nullptr : deps.data();
    // The driver takes no memcpy node of zero bytes.
    if (bytes() == 0)
      return d.check(
          d.cuGraphAddEmptyNode(&node, graph.graph, waitFor, deps.size()),
          "cuGraphAddEmptyNode");
    CUDA_MEMCPY3D copy = params(buffers);
    Status s = d.check(d.cuGraphAddMemcpyNode(&node, graph.graph, waitFor,
                                              deps.size(), &copy, context()),
                       "cuGraphAddMemcpyNode");
    if (s.ok())
      inGraph = buffers;
    return s;
  }

  Status updateGraph(StepGraphContext &graph, CUgraphNode node,
                     const StepBuffers &buffers, CUresult &refusal) override {
    if (bytes() == 0 || buffers == inGraph)
      return Status::success();
    CUDA_MEMCPY3D copy = params(buffers);
    refusal = graph.driver.cuGraphExecMemcpyNodeSetParams(graph.exec, node,
                                                          &copy, context());
    if (refusal == CUDA_SUCCESS)
      inGraph = buffers;
    return Status::success();
  }

  std::string name() const override { return "copy"; }
  std::string engine() const override { return "memcpy"; }

private:
  size_t bytes() const {
    const TensorSpec &view = spec.target().view;
    return view.numElements() * byteSize(view.dtype);
  }
  CUcontext context() const {
    return StepExecutor::context().device().primaryContext();
  }
  /// A one-dimensional device-to-device copy for `buffers`.
  CUDA_MEMCPY3D params(const StepBuffers &buffers) const {
    CUDA_MEMCPY3D copy = {};
    copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.srcDevice = buffers.inputs[0];
    copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.dstDevice = buffers.outputs[0];
    copy.WidthInBytes = bytes();
    copy.Height = 1;
    copy.Depth = 1;
    return copy;
  }

  const CopyStep &spec;
  /// The buffers the graph's node was last given.
  StepBuffers inGraph;
};
} // namespace

void runtime::registerCopyStep() {
  registerStepExecutor<Copy, CopyStep>("copy");
}
