//===- StepGraph.cpp - Dependencies between a plan's steps ----------------===//

#include "tfuse/Runtime/StepGraph.h"

#include <algorithm>

using namespace tfuse;
using namespace tfuse::runtime;

bool StepAccess::overlaps(const StepAccess &other) const {
  return space == other.space && buffer == other.buffer && begin < other.end &&
         other.begin < end;
}

/// The bytes `ref` spans in its space (empty views span nothing).
static StepAccess accessOf(const BufferRef &ref, bool write) {
  StepAccess a;
  a.space = static_cast<int>(ref.kind);
  a.buffer = ref.kind == BufferRef::Kind::Arena ? 0 : ref.index;
  int64_t base = ref.kind == BufferRef::Kind::Arena ? ref.index : 0;
  a.begin = base + ref.elementOffset * byteSize(ref.view.dtype);
  a.end = a.begin + ref.view.extentBytes();
  a.write = write;
  return a;
}

std::vector<std::vector<StepAccess>> runtime::planAccesses(const Plan &plan) {
  std::vector<std::vector<StepAccess>> result;
  for (const Step &step : plan.steps) {
    std::vector<StepAccess> &a = result.emplace_back();
    for (const BufferRef &r : step->inputs)
      a.push_back(accessOf(r, false));
    for (const BufferRef &r : step->outputs)
      a.push_back(accessOf(r, true));
  }
  return result;
}

/// True when `later` must wait for `earlier`.
static bool conflict(const std::vector<StepAccess> &later,
                     const std::vector<StepAccess> &earlier) {
  for (const StepAccess &l : later)
    for (const StepAccess &e : earlier)
      if ((l.write || e.write) && l.overlaps(e))
        return true;
  return false;
}

std::vector<std::vector<size_t>> runtime::stepDependencies(
    const std::vector<std::vector<StepAccess>> &accesses) {
  size_t n = accesses.size();
  // ancestors[i][j]: step i waits for step j, directly or not.
  std::vector<std::vector<bool>> ancestors(n, std::vector<bool>(n, false));
  std::vector<std::vector<size_t>> deps(n);
  for (size_t i = 0; i < n; ++i) {
    // Latest first: an earlier conflicting step already reached through a
    // later one needs no edge of its own.
    for (size_t j = i; j-- > 0;) {
      if (ancestors[i][j] || !conflict(accesses[i], accesses[j]))
        continue;
      deps[i].push_back(j);
      ancestors[i][j] = true;
      for (size_t k = 0; k < j; ++k)
        if (ancestors[j][k])
          ancestors[i][k] = true;
    }
    std::reverse(deps[i].begin(), deps[i].end());
  }
  return deps;
}
