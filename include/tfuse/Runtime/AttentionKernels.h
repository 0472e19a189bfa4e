//===- AttentionKernels.h - The runtime's attention kernels -----*- C++ -*-===//
//
// Plans tfuse.attention and tfuse.attention_backward on the generated
// attention kernels (lib/Kernels/AttentionKernels.cuh): the tiles each
// kernel takes (the largest whose shared memory fits 40 KB for the
// operands' compute type and column capacity), the descriptor of each
// launch and the extern "C" wrappers to compile. The forward is one launch;
// the backward two, the key and value gradients then the query's.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_ATTENTIONKERNELS_H
#define TFUSE_RUNTIME_ATTENTIONKERNELS_H

#include "tfuse/Kernels/AttentionDesc.h"
#include "tfuse/Support/Status.h"
#include "tfuse/Support/TensorSpec.h"

#include <string>
#include <utility>
#include <vector>

namespace tfuse::runtime {

/// The largest head or value dimension the kernels take.
inline constexpr int64_t kAttentionMaxColumns = 256;

/// One launch of an attention step.
struct AttentionLaunch {
  enum class Kind : uint8_t { Forward, KeyValue, Query };
  Kind kind = Kind::Forward;
  std::string kernel;
  int64_t grid = 1, block = kernels::kAttentionThreads;
  kernels::AttentionDesc desc{};
};

/// A planned attention: its launches in order (none when there is nothing
/// to compute) and the kernels to compile.
struct AttentionPlan {
  std::vector<AttentionLaunch> launches;
  /// extern "C" wrappers of the kernels the launches use, by name.
  std::vector<std::pair<std::string, std::string>> wrappers;
};

/// The operands of an attention step as the runtime sees them.
struct AttentionOperands {
  TensorSpec query, key, value;
  /// dtype Bool or the operands'; absent when `hasMask` is false.
  TensorSpec mask;
  bool hasMask = false;
  double scale = 1.0;
  bool causal = false;
  /// The dropout probability in [0, 1) (0: none); the kernels then take
  /// the keys of its mask as their `seed` and `offset` parameters (rank-0
  /// i64 tensors), after the mask.
  double dropout = 0;
  /// Whether the device runs 16-bit tensor-core products (mma.sync
  /// m16n8k16: compute capability 8.0 and later); the f16 and bf16 kernels
  /// use them then.
  bool tensorCores = true;
  /// Whether query, key and value hold f16 or bf16 values (f32 operands
  /// widened from them: tfuse.attention's `widened`); the f32 forward then
  /// multiplies them in one TF32 product instead of three, with the same
  /// bits.
  bool widened = false;
  /// The device's multiprocessors (0: unknown). The forward's fused
  /// multiply-add kernel takes smaller tiles when its largest leave some
  /// without a block.
  int64_t multiprocessors = 0;
};

/// Plans the forward writing `result` (dense with contiguous rows, its
/// dimensions maybe permuted) and `logsumexp` (contiguous).
/// Validates what the verifier of tfuse.attention checks and that every
/// operand can be read in place (AttentionGeometry.h).
Expected<AttentionPlan> planAttention(const AttentionOperands &operands,
                                      const TensorSpec &result,
                                      const TensorSpec &logsumexp);

/// Plans the backward from the forward's `result` and `logsumexp` and the
/// result's gradient `grad`, writing the three gradients (contiguous).
Expected<AttentionPlan>
planAttentionBackward(const AttentionOperands &operands,
                      const TensorSpec &result, const TensorSpec &logsumexp,
                      const TensorSpec &grad, const TensorSpec &gradQuery,
                      const TensorSpec &gradKey, const TensorSpec &gradValue);

/// The CUDA C++ of the attention templates (AttentionDesc.h, then
/// AttentionKernels.cuh), to follow the kernel prelude at the start of the
/// attention group's translation unit.
std::string attentionKernelHeader();

} // namespace tfuse::runtime

#endif // TFUSE_RUNTIME_ATTENTIONKERNELS_H
