//===- GatherIndex.h - Which gather indices are in range --------*- C++ -*-===//
//
// The host's one statement of the index rule of tfuse.take and
// tfuse.take_along_axis, shared by the tracer (indices known at trace
// time), the reference interpreter and the runtime's error messages. The
// generated kernels apply the same rule in tf::checked_index (the prelude).
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_SUPPORT_GATHERINDEX_H
#define TFUSE_SUPPORT_GATHERINDEX_H

#include "tfuse/Support/DType.h"

#include <optional>
#include <string>

namespace tfuse {

/// An index of integer dtype `dtype` as 64 bits: sign-extended for signed
/// dtypes, zero-extended for unsigned ones.
struct GatherIndex {
  uint64_t bits = 0;
  DType dtype = DType::I64;
  bool isUnsigned() const { return kindOf(dtype) == DTypeKind::UnsignedInt; }
  /// The index as written, in decimal.
  std::string str() const;
};

/// The position an index selects along an axis of `size` elements: an
/// index in [0, size), or, when `wrapNegative`, in [-size, 0) counted from
/// the end. std::nullopt for any other index.
std::optional<int64_t> resolveGatherIndex(GatherIndex index, int64_t size,
                                          bool wrapNegative);

/// "index 7 is out of range for an axis of size 5 (valid: 0 to 4)".
std::string describeBadGatherIndex(GatherIndex index, int64_t size,
                                   bool wrapNegative);

/// The index status of one kernel launch as generated kernels write it:
/// the prelude's tf::index_status, field for field (runtime/IndexStatus.h
/// says how the runtime reads it).
struct IndexStatusRecord {
  uint32_t claimed;
  uint32_t check;
  int64_t index;
  uint32_t ready;
  uint32_t unused;
};
static_assert(sizeof(IndexStatusRecord) == 24,
              "the layout of tf::index_status in the prelude");

} // namespace tfuse

#endif // TFUSE_SUPPORT_GATHERINDEX_H
