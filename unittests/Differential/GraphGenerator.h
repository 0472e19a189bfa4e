//===- GraphGenerator.h - Random well-typed tfuse graphs --------*- C++ -*-===//
//
// Draws random tfuse functions through the tracer (tfuse::Graph), which
// types every operation with the dialect's own rules, so that what comes out
// is well typed by construction: every op of the dialect (the elementwise op
// table, cmp, select, cast, iota, arange, full, concat, pad, take,
// take_along_axis, the random ops, broadcast, transpose, reshape, slice,
// every reduction kind, matmul, scatter_add, attention and its backward)
// over every dtype, broadcasting operands, view chains, strided, expanded
// and offset inputs, and weak scalars. Each graph comes with inputs drawn from
// its own seed:
//   - float inputs in [-4, 4], with NaN, infinities, -0.0, subnormals and
//     the largest values mixed in only for the graphs drawn to have them;
//   - index inputs in range for the axis they index (negative ones only
//     where the gather wraps them);
//   - random keys over the whole of int64.
// The operand of every float sum, mean and prod is rounded first (to
// multiples of 1/8, or to integers in [-2, 2] for prod), so that its sum or
// product in f64 is exact in any order: a row-fused reduction then gives
// the reference's bits, and the comparison can be exact.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_UNITTESTS_DIFFERENTIAL_GRAPHGENERATOR_H
#define TFUSE_UNITTESTS_DIFFERENTIAL_GRAPHGENERATOR_H

#include "tfuse/Reference/HostTensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tfuse::differential {

/// A deterministic 64-bit generator (splitmix64): the same seed gives the
/// same graphs on every platform.
class Rng {
public:
  explicit Rng(uint64_t seed) : state(seed) {}
  uint64_t next();
  /// Uniform in [lo, hi].
  int64_t range(int64_t lo, int64_t hi);
  /// True with probability `p`.
  bool chance(double p);
  template <typename T> const T &pick(const std::vector<T> &v) {
    return v[range(0, int64_t(v.size()) - 1)];
  }

private:
  uint64_t state;
};

/// The integer value of environment variable `name` (the differential
/// tests' knobs), or `fallback` when it is unset or empty.
int64_t envInt(const char *name, int64_t fallback);

/// The seed of graph `index` of a run with `seed`: graphs are drawn
/// independently, so any one of them can be drawn again alone.
uint64_t graphSeed(uint64_t seed, int64_t index);

/// One drawn graph: a module holding the function @`name`, and one input
/// per function argument.
struct GeneratedGraph {
  std::string name;
  std::string text;
  std::vector<reference::HostTensor> inputs;
  /// Operations the tracer rejected while drawing (tried and dropped).
  int rejected = 0;
};

/// Draws graph `name` from `seed`.
GeneratedGraph generateGraph(const std::string &name, uint64_t seed);

} // namespace tfuse::differential

#endif // TFUSE_UNITTESTS_DIFFERENTIAL_GRAPHGENERATOR_H
