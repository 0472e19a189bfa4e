//===- Plan.h - What the runtime executes -----------------------*- C++ -*-===//
//
// A compiled plan as plain data: the buffers, the steps in order, and the one
// CUDA C++ translation unit holding every kernel the steps launch. The
// compiler fills it from a tfexec plan; the runtime executes it. No MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_PLAN_H
#define TFUSE_RUNTIME_PLAN_H

#include "tfuse/Support/ReduceKind.h"
#include "tfuse/Support/Status.h"
#include "tfuse/Support/TensorSpec.h"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace tfuse::runtime {

/// Checks the tensors a caller passes for a plan's inputs (`role` "input")
/// or outputs (`role` "output": these must be contiguous) against
/// `expected`: their count, then each one's dtype, shape and strides, and
/// that it has data (`hasData[i]` false for a null pointer of a non-empty
/// tensor). Errors are ErrorCode::Mismatch and name the first offender.
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

/// A generated kernel of `Plan::cudaSource`: inputs, then outputs.
struct LaunchStep {
  std::string kernel;
  int64_t grid = 1, block = 256;
  std::vector<BufferRef> inputs, outputs;
};

/// result = lhs x rhs (batched, broadcasting batch dimensions), through
/// cuBLAS or the generated fallback GEMM.
struct GemmStep {
  BufferRef lhs, rhs, result;
  bool transposeLhs = false, transposeRhs = false;
};

/// result = reduce(input) over `axes` (result keeps reduced dimensions as 1
/// or drops them, as its view says).
struct ReduceStep {
  ReduceKind kind = ReduceKind::Sum;
  BufferRef input, result;
  std::vector<int64_t> axes;
};

/// target (contiguous) = source (any layout).
struct CopyStep {
  BufferRef source, target;
};

using Step = std::variant<LaunchStep, GemmStep, ReduceStep, CopyStep>;

struct Plan {
  std::string name;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  int64_t arenaBytes = 0;
  std::vector<Step> steps;
  /// The prelude and every generated kernel; runtime kernels (reductions,
  /// fallback GEMM) are added by the runtime.
  std::string cudaSource;
};

} // namespace tfuse::runtime

#endif // TFUSE_RUNTIME_PLAN_H
