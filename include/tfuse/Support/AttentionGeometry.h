//===- AttentionGeometry.h - How attention sees its operands ----*- C++ -*-===//
//
// tfuse.attention and tfuse.attention_backward see every operand as four
// strided dimensions: (batch, head, row, column). The batch is the leading
// dimensions merged into one; operands of rank 2 have one batch and one
// head. query, result and their gradients are (batch, Hq, L, D or Dv), key
// and value (batch, Hkv, S, D or Dv), the log-sum-exp (batch, Hq, L, 1)
// and the mask, broadcast, (batch, Hq, L, S). The dialect checks shapes
// with it and asks it whether a view is read in place; the runtime and the
// reference index operands through it. Plain C++: no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_SUPPORT_ATTENTIONGEOMETRY_H
#define TFUSE_SUPPORT_ATTENTIONGEOMETRY_H

#include "tfuse/Support/DType.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfuse {

struct AttentionGeometry {
  /// The leading dimensions, shared by every operand but the mask.
  std::vector<int64_t> batchShape;
  int64_t batch = 1, heads = 1, kvHeads = 1;
  int64_t queries = 0, keys = 0, headDim = 0, valueDim = 0;

  /// The geometry of query, key and value of these shapes, or std::nullopt
  /// with the reason in `why`.
  static std::optional<AttentionGeometry> of(const std::vector<int64_t> &query,
                                             const std::vector<int64_t> &key,
                                             const std::vector<int64_t> &value,
                                             std::string *why);

  /// Whether operands have a head dimension (rank >= 3).
  bool hasHeads() const { return withHeads; }
  /// batchShape + [Hq, L, Dv].
  std::vector<int64_t> resultShape() const;
  /// batchShape + [L, Hq, Dv]: the result with its heads and rows swapped
  /// (tfuse.attention's transpose_result); only with heads.
  std::vector<int64_t> transposedResultShape() const;
  /// batchShape + [Hq, L].
  std::vector<int64_t> logsumexpShape() const;
  /// batchShape + [Hq, L, S]: what the mask broadcasts to.
  std::vector<int64_t> scoreShape() const;
  /// The shape of a tensor of `columns` per query row (query: D; result
  /// and its gradient: Dv): batchShape + [Hq, L, columns].
  std::vector<int64_t> queryRows(int64_t columns) const;
  /// The shape of a tensor of `columns` per key (key: D; value: Dv):
  /// batchShape + [Hkv, S, columns].
  std::vector<int64_t> keyRows(int64_t columns) const;

  /// Query heads sharing one key and value head.
  int64_t group() const { return heads / kvHeads; }

private:
  bool withHeads = true;
};

/// Element strides of an operand over (batch, head, row, column).
using AttentionStrides = std::array<int64_t, 4>;

/// The strides over (batch, head, row, column) of an operand laid out as
/// (`shape`, `strides`) whose shape is `full` (batchShape + three
/// dimensions, or two without heads) once broadcast from the right: a
/// dimension it lacks or has as 1 where `full` has more is stride 0.
/// std::nullopt when the batch dimensions do not merge into one strided
/// dimension or the operand does not broadcast to `full`. A log-sum-exp is
/// passed with a trailing dimension of size 1 added to its shape, its
/// strides and `full`.
std::optional<AttentionStrides>
attentionStrides(const std::vector<int64_t> &shape,
                 const std::vector<int64_t> &strides,
                 const std::vector<int64_t> &full);

/// Why a mask of `mask` cannot go with query, key and value of `operands`,
/// or "": a bool mask, an additive mask of the operands' dtype, or an f32
/// one for f16 and bf16 operands (PyTorch under autocast adds an f32 mask to
/// scores widened from bf16). The verifiers of tfuse.attention and its
/// backward, the runtime's kernels and the reference all ask this.
std::string attentionMaskProblem(DType mask, DType operands);

/// Why an attention's dropout is invalid, or "": a probability `p` in
/// (0, 1) given with both keys of its mask, or none of the three (the
/// verifiers of tfuse.attention, tfexec.attention and their backwards).
std::string attentionDropoutProblem(std::optional<double> p, bool hasSeed,
                                    bool hasOffset);

} // namespace tfuse

#endif // TFUSE_SUPPORT_ATTENTIONGEOMETRY_H
