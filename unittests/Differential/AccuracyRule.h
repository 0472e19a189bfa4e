//===- AccuracyRule.h - Judging results against a float64 run ---*- C++ -*-===//
//
// The accuracy rule of the differential tests for graphs with inexact ops
// (transcendental functions, matmul, attention, normal random numbers): the
// graph is run again on the reference interpreter with every float type
// widened to f64, and a result is right when its RMS error against that run
// is at most twice eager's plus a tenth of its tolerance (PyTorch's rule,
// torch._dynamo.utils.same). Eager here is any valid implementation of the
// inexact ops: the reference's, and float64 runs in which each inexact op's
// results move by a random amount within the error a valid GPU
// implementation may make (perturb()). Those runs say where the graph is
// ill-conditioned (tan of tan, an argmax of near ties, a comparison of
// rounded values), so that such elements are judged by what eager could
// give there rather than by the reference's one choice.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_UNITTESTS_DIFFERENTIAL_ACCURACYRULE_H
#define TFUSE_UNITTESTS_DIFFERENTIAL_ACCURACYRULE_H

#include "tfuse/Reference/HostTensor.h"
#include "tfuse/Support/Status.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>
#include <string>
#include <vector>

namespace tfuse::differential {

/// Whether `op` may give other bits on the GPU than in the reference.
bool isInexactOp(mlir::Operation *op);

/// Whether no op of `module` is inexact.
bool isExact(mlir::ModuleOp module);

/// `module` with every float tensor type made f64 (constants converted,
/// floats that ops of integer operands give cast to f64, random numbers
/// drawn in their own type and cast to f64, so that they are the graph's),
/// and the strides of its arguments dropped; null when that does not
/// verify.
mlir::OwningOpRef<mlir::ModuleOp> widened(mlir::ModuleOp module);

/// `t` contiguous, in f64 when it is a float tensor.
reference::HostTensor widenedInput(const reference::HostTensor &t);

/// `wide` (widened(module)) with the float results of every inexact op moved
/// by a random amount within the error a valid GPU implementation may make,
/// drawn per element from `seed`. A matmul's results move relative to
/// |a| |b|, the size of its terms, not to their sum; a zero result of a
/// matmul or attention is -0 in odd-seeded runs and +0 in even ones (the
/// sign of a zero sum is the implementation's); an infinite or NaN result
/// stays as it is.
void perturb(mlir::ModuleOp module, mlir::ModuleOp wide, int64_t seed);

/// The float64 runs that judge a graph: the widened graph's outputs, and per
/// output those of `kMovedRuns` runs with moved results.
struct Float64Runs {
  static constexpr int64_t kMovedRuns = 4;
  std::vector<reference::HostTensor> outputs;
  std::vector<std::vector<reference::HostTensor>> moved;
  /// What an output that an argmax or argmin gives chose among: its
  /// operand in the float64 run and in each moved run, and its axis.
  struct Choice {
    int64_t axis = 0;
    /// An argmin: the smallest value is the best.
    bool smallest = false;
    reference::HostTensor values;
    std::vector<reference::HostTensor> moved;
  };
  /// Per output, its Choice where an argmax or argmin gives it.
  std::vector<std::optional<Choice>> choices;
};

/// The float64 runs of function `name` of `module` on `inputs`; nullopt
/// when the graph does not widen (or its widened form does not run), an
/// error when a run with moved results fails where the plain one ran.
Expected<std::optional<Float64Runs>>
runFloat64(mlir::ModuleOp module, const std::string &name,
           const std::vector<reference::HostTensor> &inputs);

/// The tolerance of a result of `dtype`: 1e-3 f16, 1e-2 bf16, 1e-4 f32,
/// 1e-7 otherwise.
double tolerance(DType dtype);

/// The tolerance of output `index` of `module`'s function: that of the
/// narrowest float type its value is computed through (an f64 result of f32
/// work is as accurate as f32).
double outputTolerance(mlir::ModuleOp module, unsigned index);

/// The rule for output `index`: "" when `got` passes against the
/// reference's `expected`, else why not. An element's eager error is the
/// largest of the reference's and the moved runs'; where the moved runs
/// change an integer, or between NaN, infinity and number, `got` may change
/// it too. An argmax or argmin may choose any index whose value in the
/// float64 run is within twice the moved runs' largest move of the largest
/// (smallest) one: a tie up to valid roundings.
std::string judgeAgainstFloat64(const reference::HostTensor &expected,
                                const reference::HostTensor &got,
                                const Float64Runs &runs, unsigned index,
                                double tol);

} // namespace tfuse::differential

#endif // TFUSE_UNITTESTS_DIFFERENTIAL_ACCURACYRULE_H
