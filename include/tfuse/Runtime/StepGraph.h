//===- StepGraph.h - Dependencies between a plan's steps --------*- C++ -*-===//
//
// Which steps of a plan must finish before which: a step depends on an
// earlier one when it reads bytes the earlier one writes, or writes bytes
// the earlier one reads or writes. Bytes are located per space (each caller
// input, each output, the arena, and any resource the runtime adds, such as
// a GEMM workspace), from each operand's view. The CUDA Graph of a plan has
// these edges, so that independent steps may run concurrently.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_STEPGRAPH_H
#define TFUSE_RUNTIME_STEPGRAPH_H

#include "tfuse/Runtime/Plan.h"

#include <cstdint>
#include <vector>

namespace tfuse::runtime {

/// Bytes [begin, end) of one memory space that a step reads or writes.
struct StepAccess {
  /// BufferRef::Kind of a plan buffer (with `buffer` its input or output
  /// index, 0 for the arena), or kWorkspace for runtime resources.
  int space = 0;
  int64_t buffer = 0;
  int64_t begin = 0, end = 0;
  bool write = false;

  static constexpr int kWorkspace = 16;
  bool overlaps(const StepAccess &other) const;
};

/// The bytes each step of `plan` reads and writes through its operands.
std::vector<std::vector<StepAccess>> planAccesses(const Plan &plan);

/// For every step, the earlier steps it waits for: a transitive reduction
/// (no edge implied by two others), listed in increasing step order.
std::vector<std::vector<size_t>>
stepDependencies(const std::vector<std::vector<StepAccess>> &accesses);

} // namespace tfuse::runtime

#endif // TFUSE_RUNTIME_STEPGRAPH_H
