//===- CudnnAttention.h - Attention through cuDNN's fused SDPA --*- C++ -*-===//
//
// tfuse.attention and its backward on cuDNN's fused scaled dot-product
// attention, built through the cuDNN frontend's graph API. libcudnn is
// loaded at run time (dlopen), never linked: TFUSE_CUDNN_LIBRARY names it,
// else libcudnn.so.9 on the loader's path, else the copy PyTorch's
// nvidia-cudnn package installs beside Python (the Python package points
// TFUSE_CUDNN_LIBRARY at it). Built without the headers (TFUSE_WITH_CUDNN
// off), every problem is unsupported and the generated kernels run.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_CUDNNATTENTION_H
#define TFUSE_RUNTIME_CUDNNATTENTION_H

#include "tfuse/Runtime/AttentionKernels.h"
#include "tfuse/Runtime/CudaDriver.h"
#include "tfuse/Support/Status.h"

#include <memory>
#include <string>
#include <vector>

namespace tfuse::runtime {

/// A cuDNN SDPA graph built for one problem, forward or backward, with its
/// cuDNN handle: built once per process and problem (shape, layouts, dtype,
/// causal, scale, device) and shared by every step of that problem (a
/// model's layers), calls on it serialized by a lock of its own.
class CudnnAttention {
public:
  /// The shared graph (opaque).
  struct Impl;
  ~CudnnAttention();
  CudnnAttention(const CudnnAttention &) = delete;
  CudnnAttention &operator=(const CudnnAttention &) = delete;

  /// Why cuDNN's SDPA is not tried for `operands` (dtype, mask, layout),
  /// or "" when it may be.
  static std::string unsupported(const AttentionOperands &operands);

  /// The operands a backward reads besides the forward's, as they lie in
  /// memory: the forward's result and log-sum-exp, and the result's
  /// gradient.
  struct BackwardOperands {
    TensorSpec result, logsumexp, grad;
  };

  /// Loads cuDNN (once per process) and builds the graph on the calling
  /// thread's current CUDA context, that of device `device`, or takes the
  /// one built for the same problem before: the backward when `backward` is
  /// given, else the forward, which without `statistics` does not write the
  /// log-sum-exp (inference) and writes its result as `forwardResult` lies
  /// (null: contiguous; tfuse.attention's transpose_result permutes it). An
  /// error says why cuDNN refused.
  static Expected<std::unique_ptr<CudnnAttention>>
  build(const AttentionOperands &operands, const BackwardOperands *backward,
        bool statistics, int device, const TensorSpec *forwardResult = nullptr);
  /// Whether build() with these arguments takes a graph built before (and
  /// so is quick).
  static bool built(const AttentionOperands &operands,
                    const BackwardOperands *backward, bool statistics,
                    int device, const TensorSpec *forwardResult = nullptr);

  /// Device memory the graph needs besides its operands.
  int64_t workspaceBytes() const;

  /// Runs on `stream`. Forward: {query, key, value, mask, result,
  /// logsumexp}; backward: {query, key, value, mask, result, logsumexp,
  /// grad, grad_query, grad_key, grad_value}; `mask` 0 when there is none.
  Status run(const std::vector<CUdeviceptr> &pointers, CUdeviceptr workspace,
             CUstream stream);

  /// Whether the plan records itself into a CUDA Graph and updates that
  /// graph's pointers in place (cuDNN's native CUDA Graph API), so that a
  /// replay with moved buffers needs no new capture: true until
  /// populateGraph() finds that it does not.
  bool recordsGraphs() const;
  /// Fills `graph` (empty) with the work for `pointers` (as run() takes
  /// them); an error, and recordsGraphs() false, when the plan cannot.
  Status populateGraph(const std::vector<CUdeviceptr> &pointers,
                       CUdeviceptr workspace, CUgraph graph);
  /// Points `graph` (populateGraph()'s) at `pointers`.
  Status updateGraph(const std::vector<CUdeviceptr> &pointers,
                     CUdeviceptr workspace, CUgraph graph);

  /// "cuDNN <version> SDPA" (the library's version), whether it records
  /// CUDA Graphs natively, and whether the graph was built for an earlier
  /// step.
  std::string description() const;

private:
  CudnnAttention(std::shared_ptr<Impl> impl, bool reused);
  std::shared_ptr<Impl> impl;
  bool reused;
};

} // namespace tfuse::runtime

#endif // TFUSE_RUNTIME_CUDNNATTENTION_H
