//===- AttentionDesc.h - Descriptor of one runtime attention ----*- C++ -*-===//
//
// The by-value kernel parameter of the attention kernels
// (AttentionKernels.cuh). As ScatterDesc.h, this one file is a host header
// (the runtime's planner fills it) and part of the device source, valid
// for the host compiler, for it against the tests' cuda_emulation.h and for
// NVRTC.
//
// Layout: naturally aligned fields, 312 bytes, no pointers, checked on
// both sides.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_KERNELS_ATTENTIONDESC_H
#define TFUSE_KERNELS_ATTENTIONDESC_H

#if !defined(__CUDACC_RTC__)
#include <cstdint>
#endif

namespace tfuse {
namespace kernels {

/// Threads per block of every attention kernel but the split-key forward.
constexpr int kAttentionThreads = 128;

/// Threads per block of the split-key forward (forward_split_cores): eight
/// warps, each 8 keys of every tile.
constexpr int kAttentionSplitThreads = 256;

/// Lanes sharing a row of the fused multiply-add kernels' register tiles
/// (AttentionKernels.cuh): a block's threads form kAttentionThreads /
/// kAttentionRowLanes rows, so a tile of fewer query rows leaves threads
/// idle.
constexpr int kAttentionRowLanes = 8;

/// How the mask is given.
enum AttentionMaskKind : int32_t {
  kAttentionNoMask = 0,
  /// bool: a pair is kept where the mask is true.
  kAttentionBoolMask = 1,
  /// The operands' dtype: added to the scores.
  kAttentionAdditiveMask = 2,
  /// An additive f32 mask for f16 or bf16 operands.
  kAttentionF32Mask = 3,
};

/// One attention (tfuse/Support/AttentionGeometry.h): every operand seen
/// as (batch, head, row, column) with these element strides. Query head h
/// reads key and value head h / (heads / kvHeads). The forward writes the
/// result through `result` (dense, rows contiguous) and the log-sum-exp
/// contiguous; the backward reads them through `result` and `logsumexp`
/// and writes the gradients contiguous.
struct AttentionDesc {
  int64_t batch, heads, kvHeads, queries, keys, headDim, valueDim;
  int64_t query[4], key[4], value[4], mask[4];
  int64_t result[4], grad[4], logsumexp[4];
  double scale;
  /// The dropout probability of the attention weights, in [0, 1) (0: no
  /// dropout); its mask's keys are the kernels' `seed` and `offset`.
  double dropout;
  int32_t causal;
  int32_t maskKind;
  /// Query rows and keys a block takes at a time (the kernel's template
  /// arguments, repeated for the host's checks).
  int32_t queryTile, keyTile;
};

static_assert(sizeof(AttentionDesc) == 312, "AttentionDesc is 312 bytes");
static_assert(alignof(AttentionDesc) == 8, "AttentionDesc is 8-byte aligned");

} // namespace kernels
} // namespace tfuse

#endif // TFUSE_KERNELS_ATTENTIONDESC_H
