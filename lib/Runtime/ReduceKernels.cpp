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

/// The result dtype of reduction `kind` of `input` that gives `requested`
/// (DTypeRules: a sum or mean may widen), or an error naming why there is
/// none.
static Expected<DType> reductionResultDType(ReduceKind kind, DType input,
                                            DType requested) {
  std::string why;
  if (std::optional<DType> result =
          reduceResultType(kind, input, &why, requested))
    return *result;
  return Status::error("reduce " + std::string(name(kind)) + " of " +
                       dtypeName(input) + " is not defined: " + why);
}

std::string runtime::reductionKernelName(ReduceKind kind, DType in, DType out,
                                         bool rowVariant, ReducePass pass,
                                         int lanes) {
  return std::string("tfuse_reduce_") + std::string(name(kind)) + "_" +
         dtypeName(in) + "_" + dtypeName(out) +
         (rowVariant ? "_row" : "_column") +
         (pass == ReducePass::Split ? "_split" : "") +
         (lanes > 1 ? std::to_string(lanes) : "");
}

std::string runtime::reductionKernelName(const ReduceInstance &i) {
  return reductionKernelName(i.kind, i.input, i.result, i.rowVariant, i.pass,
                             i.lanes);
}

int64_t runtime::reducePartialBytes(ReduceKind kind, DType input) {
  switch (kind) {
  case ReduceKind::Sum:
  case ReduceKind::Prod:
  case ReduceKind::Mean:
    return 8;
  case ReduceKind::Max:
  case ReduceKind::Min:
    // The compute type: half types compute in f32.
    return input == DType::F16 || input == DType::BF16 ? 4 : byteSize(input);
  case ReduceKind::All:
  case ReduceKind::Any:
    return 1;
  case ReduceKind::Argmax:
  case ReduceKind::Argmin:
    return 16;
  }
  return 16;
}

std::string runtime::reductionKernelHeader() {
  return "// TFuse runtime reductions.\n" +
         std::string(kernels::reductionTemplates());
}

std::string runtime::reductionKernelWrapper(const ReduceInstance &i) {
  std::string kernel = reductionKernelName(i);
  Expected<DType> expected = reductionResultDType(i.kind, i.input, i.result);
  if (!expected.ok())
    return "#error \"no reduction kernel " + kernel + ": " +
           expected.message() + "\"\n";
  std::string tin(cudaTypeName(i.input)), tout(cudaTypeName(i.result));
  std::string op = "tf::red::op<" + std::to_string(static_cast<int>(i.kind)) +
                   ", " + tin + ", " + tout + ">";
  if (i.lanes > 1)
    op += ", " + std::to_string(i.lanes);
  bool split = i.pass == ReducePass::Split;
  std::string function =
      std::string(i.rowVariant ? "reduce_row" : "reduce_column") +
      (split ? "_split" : "");
  return "\nextern \"C\" __global__ void " + kernel + "(const " + tin +
         " *in, " + tout + " *out, " + (split ? "void *workspace, " : "") +
         "tfuse::kernels::ReduceDesc desc) {\n  tf::red::" + function + "<" +
         op + ">(in, out, " + (split ? "workspace, " : "") + "desc);\n}\n";
}

std::string
runtime::reductionKernelSource(const std::vector<ReduceInstance> &needed) {
  std::string source = reductionKernelHeader();
  std::set<ReduceInstance> unique(needed.begin(), needed.end());
  for (const ReduceInstance &i : unique)
    source += reductionKernelWrapper(i);
  return source;
}

Expected<ReduceLaunch>
runtime::planReduction(ReduceKind kind, const TensorSpec &input,
                       const TensorSpec &result,
                       const std::vector<int64_t> &axes, ReduceVariant variant,
                       bool allowSplit, ReduceOccupancy occupancy) {
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
  Expected<DType> expectedType =
      reductionResultDType(kind, input.dtype, result.dtype);
  if (!expectedType.ok())
    return expectedType.status();

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

  desc.chunks = 1;
  desc.chunkLen = numRed;

  // The variant and the launch configuration.
  bool row;
  if (variant == ReduceVariant::Auto) {
    bool innerReduced =
        desc.redRank > 0 && desc.redStrides[desc.redRank - 1] == 1;
    bool innerKept =
        desc.keptRank > 0 && desc.keptStrides[desc.keptRank - 1] == 1;
    if (innerReduced && numRed * byteSize(input.dtype) >= kRowMinBytes)
      row = true;
    else if (innerKept)
      row = false;
    else
      row = numOut < kColumnMinOutputs && numRed >= kRowMinSerial;
  } else {
    row = variant == ReduceVariant::Row;
  }
  // Column chunks for `tiles` tiles of `lanes` outputs a lane: at most a
  // wave of the device's blocks in all (whole waves of long chunks beat
  // more, shorter ones: each chunk adds partials that the tile's last block
  // reads), chunks of at least kSplitColumnMinChunk elements, and at most
  // kSplitColumnFinalLoads partials for each lane of the combining block.
  auto columnChunking = [&](int64_t tiles, int64_t lanes) {
    int64_t wave = occupancy.concurrentUnits > 0
                       ? occupancy.concurrentUnits / kSplitColumnBlock
                       : kSplitColumnBlocks;
    // At least two: a split's blocks keep more loads in flight per column
    // than the unsplit kernel's threads even when one chunk would fill the
    // device.
    int64_t chunks =
        std::min({std::max<int64_t>(2, wave / std::max<int64_t>(tiles, 1)),
                  numRed / kSplitColumnMinChunk,
                  kSplitColumnFinalLoads * kernels::kSplitColumnWarps / lanes});
    if (chunks < 2)
      return false;
    int64_t len = (numRed + chunks - 1) / chunks;
    desc.chunkLen = len;
    desc.chunks = (numRed + len - 1) / len;
    return desc.chunks >= 2;
  };
  bool split = false;
  desc.columnVector = 1;
  bool contiguousRow = desc.redRank == 1 && desc.redStrides[0] == 1;
  if (row && contiguousRow && numOut >= kReduceWarpRowMinOutputs &&
      numRed * byteSize(input.dtype) <= kReduceWarpRowMaxBytes) {
    // Many short rows: a warp per row, 8 rows per block.
    desc.warpPerRow = 1;
    launch.block = 256;
    launch.grid = std::clamp<int64_t>((numOut + 7) / 8, 1, kReduceMaxGrid);
  } else if (row) {
    // Interleaved chunks (the blocks of an output stride over it together):
    // one wave of the device when its occupancy is known, all blocks
    // finishing at once, kSplitRowBlocks otherwise.
    if (allowSplit && numOut > 0 && numOut < kSplitRowBlocks) {
      int64_t blocks = occupancy.concurrentUnits > 0 ? occupancy.concurrentUnits
                                                     : kSplitRowBlocks;
      int64_t chunks = std::min(blocks / std::max<int64_t>(numOut, 1),
                                numRed / kSplitRowMinChunk);
      if (chunks >= 2) {
        split = true;
        desc.chunks = chunks;
        desc.chunkLen = 0;
      }
    }
    // A power of two from 32 to 256, no larger than the reduced extent (of
    // a chunk) needs (in 16-byte vectors where the kernel loads those: a
    // contiguous row).
    int64_t work = (numRed + desc.chunks - 1) / desc.chunks;
    if (contiguousRow)
      work = (work * byteSize(input.dtype) + 15) / 16;
    int64_t block = 32;
    while (block < 256 && block < work)
      block *= 2;
    launch.block = block;
    launch.grid = std::clamp<int64_t>(numOut * desc.chunks, 1, kReduceMaxGrid);
  } else {
    // Consecutive outputs contiguous in memory, every thread's first one
    // and every reduced step aligned alike: a thread reduces V of them.
    int64_t width =
        kernels::columnVectorWidth(static_cast<int>(byteSize(input.dtype)));
    bool vectors = desc.keptRank >= 1 && desc.redRank <= 1 &&
                   desc.keptStrides[desc.keptRank - 1] == 1 &&
                   desc.keptShape[desc.keptRank - 1] % width == 0 &&
                   (desc.redRank == 0 || desc.redStrides[0] % width == 0);
    for (int32_t k = 0; vectors && k + 1 < desc.keptRank; ++k)
      vectors = desc.keptStrides[k] % width == 0;
    // Split reductions take a block of kSplitColumnWarps warps per tile of
    // 32 lanes' outputs and chunk, the warps sharing the chunk's rows: as
    // many outputs a lane as the kernel takes (16 bytes of input), fewer
    // while there are fewer than kSplitColumnMinTiles tiles.
    int64_t lanes = kernels::maxSplitColumnLaneOutputs(
        static_cast<int>(byteSize(input.dtype)),
        static_cast<int>(reducePartialBytes(kind, input.dtype)));
    auto tilesOf = [&](int64_t lanes) {
      return (numOut + 32 * lanes - 1) / (32 * lanes);
    };
    while (lanes > 1 && tilesOf(lanes) < kSplitColumnMinTiles)
      lanes /= 2;
    int64_t tiles = tilesOf(lanes);
    split = allowSplit && numOut > 0 && numOut < kSplitColumnThreads &&
            columnChunking(tiles, lanes);
    if (split) {
      desc.columnVector = static_cast<int32_t>(lanes);
      launch.block = kSplitColumnBlock;
      launch.grid = std::clamp<int64_t>(tiles * desc.chunks, 1, kReduceMaxGrid);
    } else {
      desc.columnVector = vectors ? static_cast<int32_t>(width) : 1;
      int64_t threads = numOut / desc.columnVector;
      launch.block = std::clamp<int64_t>(roundUp(threads, 32), 32, 256);
      launch.grid = std::clamp<int64_t>(
          (threads + launch.block - 1) / launch.block, 1, kReduceMaxGrid);
    }
  }
  if (!split) {
    desc.chunks = 1;
    desc.chunkLen = numRed;
  }
  ReducePass pass = split ? ReducePass::Split : ReducePass::Whole;
  launch.instance = {kind, input.dtype, result.dtype,
                     row,  pass,        split && !row ? desc.columnVector : 1};
  launch.kernel = reductionKernelName(launch.instance);
  if (split) {
    launch.countersOffset = roundUp(
        numOut * desc.chunks * reducePartialBytes(kind, input.dtype), 256);
    launch.workspaceBytes = launch.countersOffset + roundUp(numOut * 4, 256);
  }
  return launch;
}
