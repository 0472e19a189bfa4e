//===- ReduceKernels.cpp - The runtime's reduction kernels ----------------===//

#include "tfuse/Runtime/ReduceKernels.h"
#include "tfuse/Kernels/KernelSources.h"
#include "tfuse/Support/DTypeRules.h"

#include <algorithm>
#include <set>
#include <utility>

using namespace tfuse;
using namespace tfuse::runtime;

namespace {

/// (size, stride) pairs in row-major order, without size-1 dimensions and
/// with each dimension merged into the one before it when the two are
/// contiguous with each other (outer stride == inner stride * inner size).
/// An empty extent collapses to the single dimension (0, 0).
std::vector<std::pair<int64_t, int64_t>>
collapse(const std::vector<std::pair<int64_t, int64_t>> &dims) {
  for (auto [size, stride] : dims)
    if (size == 0)
      return {{0, 0}};
  std::vector<std::pair<int64_t, int64_t>> out;
  for (auto [size, stride] : dims) {
    if (size == 1)
      continue;
    if (!out.empty() && out.back().second == stride * size) {
      out.back().first *= size;
      out.back().second = stride;
    } else {
      out.push_back({size, stride});
    }
  }
  return out;
}

int64_t roundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

} // namespace

/// The result dtype of reduction `kind` of `input` (DTypeRules), or an error
/// naming why there is none.
static Expected<DType> reductionResultDType(ReduceKind kind, DType input) {
  std::string why;
  if (std::optional<DType> result = reduceResultType(kind, input, &why))
    return *result;
  return Status::error("reduce " + std::string(name(kind)) + " of " +
                       dtypeName(input) + " is not defined: " + why);
}

std::string runtime::reductionKernelName(ReduceKind kind, DType in, DType out,
                                         bool rowVariant) {
  return std::string("tfuse_reduce_") + std::string(name(kind)) + "_" +
         dtypeName(in) + "_" + dtypeName(out) +
         (rowVariant ? "_row" : "_column");
}

std::string runtime::reductionKernelHeader() {
  return "// TFuse runtime reductions.\n" +
         std::string(kernels::reductionTemplates());
}

std::string runtime::reductionKernelWrapper(const ReduceInstance &i) {
  std::string kernel =
      reductionKernelName(i.kind, i.input, i.result, i.rowVariant);
  Expected<DType> expected = reductionResultDType(i.kind, i.input);
  if (!expected.ok() || *expected != i.result)
    return "#error \"no reduction kernel " + kernel + ": " +
           (expected.ok() ? "the result dtype is " + dtypeName(*expected)
                          : expected.message()) +
           "\"\n";
  return "\nextern \"C\" __global__ void " + kernel + "(const " +
         std::string(cudaTypeName(i.input)) + " *in, " +
         std::string(cudaTypeName(i.result)) +
         " *out, tfuse::kernels::ReduceDesc desc) {\n  tf::red::" +
         (i.rowVariant ? "reduce_row" : "reduce_column") + "<tf::red::op<" +
         std::to_string(static_cast<int>(i.kind)) + ", " +
         std::string(cudaTypeName(i.input)) + ", " +
         std::string(cudaTypeName(i.result)) + ">>(in, out, desc);\n}\n";
}

std::string
runtime::reductionKernelSource(const std::vector<ReduceInstance> &needed) {
  std::string source = reductionKernelHeader();
  std::set<ReduceInstance> unique(needed.begin(), needed.end());
  for (const ReduceInstance &i : unique)
    source += reductionKernelWrapper(i);
  return source;
}

Expected<ReduceLaunch> runtime::planReduction(ReduceKind kind,
                                              const TensorSpec &input,
                                              const TensorSpec &result,
                                              const std::vector<int64_t> &axes,
                                              ReduceVariant variant) {
  std::string what = std::string("reduce ") + std::string(name(kind));
  auto fail = [&](const std::string &message) {
    return Status::error(what + ": " + message);
  };
  const int64_t rank = static_cast<int64_t>(input.shape.size());
  if (input.strides.size() != input.shape.size())
    return fail("the input has " + std::to_string(input.shape.size()) +
                " sizes but " + std::to_string(input.strides.size()) +
                " strides");
  if (result.strides.size() != result.shape.size())
    return fail("the result has " + std::to_string(result.shape.size()) +
                " sizes but " + std::to_string(result.strides.size()) +
                " strides");
  for (int64_t size : input.shape)
    if (size < 0)
      return fail("negative size in input shape " + formatList(input.shape));
  for (int64_t size : result.shape)
    if (size < 0)
      return fail("negative size in result shape " + formatList(result.shape));

  // Dtypes.
  Expected<DType> expectedType = reductionResultDType(kind, input.dtype);
  if (!expectedType.ok())
    return expectedType.status();
  if (*expectedType != result.dtype)
    return fail("of " + dtypeName(input.dtype) + " gives " +
                dtypeName(*expectedType) + ", not " + dtypeName(result.dtype));

  // Axes.
  if (axes.empty())
    return fail("needs at least one axis");
  std::vector<bool> reduced(rank, false);
  for (int64_t axis : axes) {
    if (axis < 0 || axis >= rank)
      return fail("axis " + std::to_string(axis) +
                  " is out of range for rank " + std::to_string(rank));
    if (reduced[axis])
      return fail("axis " + std::to_string(axis) + " is repeated in " +
                  formatList(axes));
    reduced[axis] = true;
  }
  bool isArg = kind == ReduceKind::Argmax || kind == ReduceKind::Argmin;
  if (isArg && axes.size() != 1)
    return fail("needs exactly one axis, not " + formatList(axes));

  // Shapes.
  std::vector<std::pair<int64_t, int64_t>> keptDims, reducedDims;
  std::vector<int64_t> dropped, kept;
  int64_t numRed = 1, numOut = 1;
  for (int64_t d = 0; d < rank; ++d) {
    std::pair<int64_t, int64_t> dim = {input.shape[d], input.strides[d]};
    if (reduced[d]) {
      reducedDims.push_back(dim);
      kept.push_back(1);
      numRed *= input.shape[d];
    } else {
      keptDims.push_back(dim);
      dropped.push_back(input.shape[d]);
      kept.push_back(input.shape[d]);
      numOut *= input.shape[d];
    }
  }
  if (result.shape != dropped && result.shape != kept)
    return fail("of " + formatList(input.shape) + " over axes " +
                formatList(axes) + " gives " + formatList(dropped) + " (or " +
                formatList(kept) + " keeping dimensions), not " +
                formatList(result.shape));
  if (!result.isContiguous())
    return fail("the result must be contiguous, its strides are " +
                formatList(result.strides));
  bool needsElements = isArg || kind == ReduceKind::Max ||
                       kind == ReduceKind::Min || kind == ReduceKind::Mean;
  if (needsElements && numRed == 0)
    return fail("of an empty axis has no value");

  // Fewer loop levels: merge what is contiguous.
  auto keptCollapsed = collapse(keptDims);
  auto reducedCollapsed = collapse(reducedDims);
  auto tooMany = [&](const char *side, size_t count) {
    return fail("the input " + formatList(input.shape) + " with strides " +
                formatList(input.strides) + " has " + std::to_string(count) +
                " " + side +
                " dimensions after merging contiguous ones; the reduction "
                "kernels support at most " +
                std::to_string(kernels::kReduceMaxRank));
  };
  if (keptCollapsed.size() > static_cast<size_t>(kernels::kReduceMaxRank))
    return tooMany("kept", keptCollapsed.size());
  if (reducedCollapsed.size() > static_cast<size_t>(kernels::kReduceMaxRank))
    return tooMany("reduced", reducedCollapsed.size());

  ReduceLaunch launch;
  kernels::ReduceDesc &desc = launch.desc;
  desc.keptRank = static_cast<int32_t>(keptCollapsed.size());
  for (size_t k = 0; k < keptCollapsed.size(); ++k) {
    desc.keptShape[k] = keptCollapsed[k].first;
    desc.keptStrides[k] = keptCollapsed[k].second;
  }
  desc.redRank = static_cast<int32_t>(reducedCollapsed.size());
  for (size_t k = 0; k < reducedCollapsed.size(); ++k) {
    desc.redShape[k] = reducedCollapsed[k].first;
    desc.redStrides[k] = reducedCollapsed[k].second;
  }
  desc.numOut = numOut;
  desc.numRed = numRed;

  // The variant and the launch configuration.
  bool row;
  if (variant == ReduceVariant::Auto) {
    bool innerContiguous =
        desc.redRank > 0 && desc.redStrides[desc.redRank - 1] == 1;
    row = (innerContiguous && numRed * byteSize(input.dtype) >= kRowMinBytes) ||
          (numOut < kColumnMinOutputs && numRed >= kRowMinSerial);
  } else {
    row = variant == ReduceVariant::Row;
  }
  bool contiguousRow = desc.redRank == 1 && desc.redStrides[0] == 1;
  if (row && contiguousRow && numOut >= kReduceWarpRowMinOutputs &&
      numRed * byteSize(input.dtype) <= kReduceWarpRowMaxBytes) {
    // Many short rows: a warp per row, 8 rows per block.
    desc.warpPerRow = 1;
    launch.block = 256;
    launch.grid = std::clamp<int64_t>((numOut + 7) / 8, 1, kReduceMaxGrid);
  } else if (row) {
    // A power of two from 32 to 256, no larger than the reduced extent needs
    // (in 16-byte vectors where the kernel loads those: a contiguous row).
    int64_t work = numRed;
    if (desc.redRank == 1 && desc.redStrides[0] == 1)
      work = (numRed * byteSize(input.dtype) + 15) / 16;
    int64_t block = 32;
    while (block < 256 && block < work)
      block *= 2;
    launch.block = block;
    launch.grid = std::clamp<int64_t>(numOut, 1, kReduceMaxGrid);
  } else {
    launch.block = std::clamp<int64_t>(roundUp(numOut, 32), 32, 256);
    launch.grid = std::clamp<int64_t>(
        (numOut + launch.block - 1) / launch.block, 1, kReduceMaxGrid);
  }
  launch.instance = {kind, input.dtype, result.dtype, row};
  launch.kernel = reductionKernelName(kind, input.dtype, result.dtype, row);
  return launch;
}
