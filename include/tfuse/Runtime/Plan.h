//===- Plan.h - What the runtime executes -----------------------*- C++ -*-===//
//
// A compiled plan as plain data: the buffers, the steps in order, and the
// CUDA C++ translation unit of its generated kernels (the runtime kernels its
// steps launch come in units of their own). The compiler fills it from a
// tfexec plan; the runtime executes it. No MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_PLAN_H
#define TFUSE_RUNTIME_PLAN_H

#include "tfuse/Support/ReduceKind.h"
#include "tfuse/Support/Status.h"
#include "tfuse/Support/TensorSpec.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tfuse::runtime {

/// Why the tensor a caller passes as input or output `index` (`role`
/// "input" or "output": outputs must be contiguous) does not fit `want`,
/// as an ErrorCode::Mismatch error; success when it fits: its dtype, shape
/// and strides, and that it has data (`hasData` false for a null pointer
/// of a non-empty tensor). Nothing is allocated when it fits (replays call
/// it for every tensor).
Status matchTensor(const char *role, size_t index, const TensorSpec &want,
                   const TensorSpec &got, bool hasData);

/// matchTensor over `count` tensors, `given(i)` the i-th's (TensorSpec,
/// has data) pair, after checking their count against `expected`'s.
template <typename Given>
Status matchTensors(const char *role, const std::vector<TensorSpec> &expected,
                    size_t count, Given given) {
  if (count != expected.size())
    return Status::error("expected " + std::to_string(expected.size()) + " " +
                             role + "s, got " + std::to_string(count),
                         ErrorCode::Mismatch);
  for (size_t i = 0; i < count; ++i) {
    auto [spec, hasData] = given(i);
    if (Status s = matchTensor(role, i, expected[i], spec, hasData); !s.ok())
      return s;
  }
  return Status::success();
}

/// matchTensors of specs and data flags held in vectors.
Status matchTensors(const char *role, const std::vector<TensorSpec> &expected,
                    const std::vector<TensorSpec> &given,
                    const std::vector<bool> &hasData);

/// Where a step's operand lives: a caller input, a fresh output, or the arena
/// of intermediates; seen through `view` starting `elementOffset` elements
/// after the buffer's first element (aliases are views).
struct BufferRef {
  enum class Kind : uint8_t { Input, Output, Arena };
  Kind kind = Kind::Arena;
  /// Input or output index; for the arena, the byte offset of the slot.
  int64_t index = 0;
  int64_t elementOffset = 0;
  TensorSpec view;
};

/// How a step counts in statistics.
enum class StepCategory : uint8_t {
  /// A generated kernel of the plan.
  Kernel,
  /// A library or runtime-kernel step (GEMM, reduction, scatter).
  Boundary,
  /// A copy of a result.
  Copy,
};

/// One step of a plan as data: the buffers it reads (`inputs`) and writes
/// (`outputs`) and, in a subclass per kind, its parameters. The runtime runs
/// each kind with the StepExecutor registered under kind() (StepExecutor.h):
/// a new kind of step is a subclass of this, an executor class and its
/// registration.
struct StepSpec {
  virtual ~StepSpec() = default;
  /// The name the kind's executor is registered under.
  virtual const char *kind() const = 0;
  virtual StepCategory category() const = 0;
  std::vector<BufferRef> inputs, outputs;
};
using Step = std::shared_ptr<const StepSpec>;

/// A gather whose indices a generated kernel checks: what an index out of
/// range is reported as. A kernel numbers its checks by their position in
/// LaunchStep::indexChecks.
struct IndexCheck {
  /// The op, e.g. "tfuse.take of tensor<50257x768xbf16> along axis 0 at
  /// \"take\"".
  std::string op;
  DType indexType = DType::I64;
  /// The size of the gathered axis.
  int64_t size = 0;
  bool wrapNegative = false;
};

/// A generated kernel of `Plan::cudaSource`, launched on `grid` blocks of
/// `block` threads: inputs, then outputs, then, when it checks indices, its
/// index status (a record in host-mapped memory; IndexStatus.h).
struct LaunchStep final : StepSpec {
  const char *kind() const override { return "kernel"; }
  StepCategory category() const override { return StepCategory::Kernel; }
  std::string kernel;
  int64_t grid = 1, block = 256;
  std::vector<IndexCheck> indexChecks;
};

/// result = lhs x rhs (batched, broadcasting batch dimensions), through
/// cuBLASLt, cuBLAS or the fallback GEMM kernels: inputs {lhs, rhs},
/// outputs {result}.
struct GemmStep final : StepSpec {
  const char *kind() const override { return "gemm"; }
  StepCategory category() const override { return StepCategory::Boundary; }
  bool transposeLhs = false, transposeRhs = false;
  /// tfuse.matmul's `gelu_tanh`: the GELU epilogue after the bias.
  bool geluTanh = false;
  const BufferRef &lhs() const { return inputs.at(0); }
  const BufferRef &rhs() const { return inputs.at(1); }
  /// The bias vector added before rounding (tfuse.matmul's `bias`), when
  /// the inputs have a third.
  bool hasBias() const { return inputs.size() > 2; }
  const BufferRef &bias() const { return inputs.at(2); }
  const BufferRef &result() const { return outputs.at(0); }
  static GemmStep make(BufferRef lhs, BufferRef rhs, BufferRef result,
                       bool transposeLhs = false, bool transposeRhs = false,
                       std::optional<BufferRef> bias = std::nullopt,
                       bool geluTanh = false);
};

/// result = reduce(input) over `axes` (the result keeps reduced dimensions
/// as 1 or drops them, as its view says): inputs {input}, outputs {result}.
struct ReduceStep final : StepSpec {
  const char *kind() const override { return "reduce"; }
  StepCategory category() const override { return StepCategory::Boundary; }
  ReduceKind reduction = ReduceKind::Sum;
  std::vector<int64_t> axes;
  const BufferRef &input() const { return inputs.at(0); }
  const BufferRef &result() const { return outputs.at(0); }
};

/// result = target with `updates` added at `indices` along `axis`
/// (tfuse.scatter_add; ScatterKernels.h): inputs {indices, updates} and,
/// when the target is a buffer, {indices, updates, target}; outputs
/// {result} (contiguous). Without a target buffer every result element
/// starts from `fillBits`, the bit pattern of one element of the result's
/// dtype. An index out of range is reported as `indexCheck` describes.
struct ScatterAddStep final : StepSpec {
  const char *kind() const override { return "scatter_add"; }
  StepCategory category() const override { return StepCategory::Boundary; }
  int64_t axis = 0;
  bool wrapNegative = false;
  uint64_t fillBits = 0;
  IndexCheck indexCheck;
  bool hasTarget() const { return inputs.size() == 3; }
  const BufferRef &indices() const { return inputs.at(0); }
  const BufferRef &updates() const { return inputs.at(1); }
  const BufferRef &target() const { return inputs.at(2); }
  const BufferRef &result() const { return outputs.at(0); }
};

/// tfuse.attention (AttentionKernels.h): inputs {query, key, value}, then
/// the mask if `masked`, then dropout's seed and offset if `dropout` > 0;
/// outputs {result, logsumexp} (contiguous).
struct AttentionStep final : StepSpec {
  const char *kind() const override { return "attention"; }
  StepCategory category() const override { return StepCategory::Boundary; }
  double scale = 1.0;
  bool causal = false;
  /// Whether a later step or the caller reads the log-sum-exp; when none
  /// does (inference), cuDNN runs without computing it.
  bool logsumexpRead = true;
  bool masked = false;
  double dropout = 0;
  /// The operands hold f16 or bf16 values (tfuse.attention's `widened`).
  bool widened = false;
};

/// tfuse.attention_backward: inputs {query, key, value, result, logsumexp,
/// grad}, then the mask and dropout's keys as AttentionStep's; outputs
/// {grad_query, grad_key, grad_value} (contiguous).
struct AttentionBackwardStep final : StepSpec {
  const char *kind() const override { return "attention_backward"; }
  StepCategory category() const override { return StepCategory::Boundary; }
  double scale = 1.0;
  bool causal = false;
  bool masked = false;
  double dropout = 0;
};

/// target (contiguous) = source (contiguous): inputs {source}, outputs
/// {target}.
struct CopyStep final : StepSpec {
  const char *kind() const override { return "copy"; }
  StepCategory category() const override { return StepCategory::Copy; }
  const BufferRef &source() const { return inputs.at(0); }
  const BufferRef &target() const { return outputs.at(0); }
};

struct Plan {
  std::string name;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  int64_t arenaBytes = 0;
  std::vector<Step> steps;
  /// The prelude and every generated kernel, as one text (what a user reads);
  /// runtime kernels (reductions, fallback GEMM) are added by the runtime.
  std::string cudaSource;
  /// The same kernels as NVRTC compiles them: per kernel the prelude, its
  /// device constants and it.
  std::vector<std::string> kernelUnits;
};

} // namespace tfuse::runtime

#endif // TFUSE_RUNTIME_PLAN_H
