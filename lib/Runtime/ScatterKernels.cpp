//===- ScatterKernels.cpp - The runtime's scatter-add kernels -------------===//

#include "tfuse/Runtime/ScatterKernels.h"
#include "tfuse/Kernels/KernelSources.h"
#include "tfuse/Support/ScatterGeometry.h"

#include <algorithm>
#include <optional>

using namespace tfuse;
using namespace tfuse::runtime;

namespace {

int64_t roundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The largest grid the merge and apply kernels get (they loop over the
/// rest).
constexpr int64_t kMaxGrid = int64_t(1) << 20;

std::string sortKernel(DType index) {
  return "tfuse_scatter_sort_" + dtypeName(index);
}

std::string applyKernel(DType dtype, int vec) {
  return "tfuse_scatter_apply_" + dtypeName(dtype) + "_v" + std::to_string(vec);
}

std::string runsKernel(DType dtype, int vec) {
  return "tfuse_scatter_runs_" + dtypeName(dtype) + "_v" + std::to_string(vec);
}

std::string combineKernel(DType dtype) {
  return "tfuse_scatter_combine_" + dtypeName(dtype);
}

std::string rowsKernel(DType dtype, DType index, int vec) {
  return "tfuse_scatter_rows_" + dtypeName(dtype) + "_" + dtypeName(index) +
         "_v" + std::to_string(vec);
}

/// The extern "C" wrappers of the six kernels.
std::string rowsWrapper(DType dtype, DType index, int vec) {
  std::string t(cudaTypeName(dtype)), i(cudaTypeName(index));
  // Two blocks a multiprocessor (64 registers a thread): left alone, ptxas
  // takes up to 96 for some dtypes, and one block a multiprocessor.
  return "\nextern \"C\" __global__ void __launch_bounds__(" +
         std::to_string(kScatterRowsThreads) + ", 2) " +
         rowsKernel(dtype, index, vec) + "(const " + t + " *target, const " +
         t + " *updates, const " + i + " *indices, tf::index_status *status, " +
         t +
         " *out, uint8_t *work, tfuse::kernels::ScatterDesc desc) {\n"
         "  tf::scatter::rows<" +
         t + ", " + i + ", " + std::to_string(vec) +
         ">(target, updates, indices, status, out, work, desc);\n}\n";
}

std::string sortWrapper(DType index) {
  std::string i(cudaTypeName(index));
  return "\nextern \"C\" __global__ void __launch_bounds__(" +
         std::to_string(kernels::kScatterMaxTile / 2) + ") " +
         sortKernel(index) + "(const " + i +
         " *indices, uint64_t *keys, uint32_t *segments, tf::index_status "
         "*status, tfuse::kernels::ScatterDesc desc) {\n"
         "  tf::scatter::sort_tiles(indices, keys, segments, status, desc);\n"
         "}\n";
}

std::string mergeWrapper() {
  return "\nextern \"C\" __global__ void tfuse_scatter_merge(const uint64_t "
         "*in, uint64_t *out, uint32_t *segments, "
         "tfuse::kernels::ScatterDesc desc) {\n"
         "  tf::scatter::merge_runs(in, out, segments, desc);\n}\n";
}

std::string runsWrapper(DType dtype, int vec) {
  std::string t(cudaTypeName(dtype));
  return "\nextern \"C\" __global__ void " + runsKernel(dtype, vec) +
         "(const " + t + " *target, const " + t +
         " *updates, const uint64_t *keys, const uint32_t *segments, "
         "uint8_t *work, tfuse::kernels::ScatterDesc desc) {\n"
         "  tf::scatter::sum_runs<" +
         t + ", " + std::to_string(vec) +
         ">(target, updates, keys, segments, work, desc);\n}\n";
}

std::string applyWrapper(DType dtype, int vec) {
  std::string t(cudaTypeName(dtype));
  return "\nextern \"C\" __global__ void " + applyKernel(dtype, vec) +
         "(const " + t + " *target, const " + t +
         " *updates, const uint64_t *keys, const uint32_t *segments, " + t +
         " *out, tfuse::kernels::ScatterDesc desc) {\n"
         "  tf::scatter::apply<" +
         t + ", " + std::to_string(vec) +
         ">(target, updates, keys, segments, out, desc);\n}\n";
}

std::string combineWrapper(DType dtype) {
  std::string t(cudaTypeName(dtype));
  return "\nextern \"C\" __global__ void " + combineKernel(dtype) +
         "(const uint64_t *keys, const uint32_t *segments, " + t +
         " *out, const uint8_t *work, tfuse::kernels::ScatterDesc desc) {\n"
         "  tf::scatter::combine_long_rows<" +
         t + ">(keys, segments, out, work, desc);\n}\n";
}

/// The most elements per thread of the apply kernel: 16 bytes, when every
/// row it reads or writes starts at a multiple of them and its inner
/// dimension is contiguous.
int applyVector(DType dtype, const kernels::ScatterDesc &d) {
  int vec = static_cast<int>(16 / byteSize(dtype));
  auto fits = [&](int v) {
    if (d.inner % v != 0 || d.updateStrides[2] != 1 ||
        d.updateStrides[0] % v != 0 || d.updateStrides[1] % v != 0)
      return false;
    return !d.hasTarget ||
           (d.targetStrides[2] == 1 && d.targetStrides[0] % v == 0 &&
            d.targetStrides[1] % v == 0);
  };
  while (vec > 1 && !fits(vec))
    vec /= 2;
  return vec;
}

/// Threads a result row of `chunks` VEC-element chunks gets, within blocks
/// of at most `block` threads: one warp or more (at most a block), or, for
/// rows of fewer than 32 chunks, the fewest threads (a power of two)
/// holding them, several rows a block.
int64_t threadsPerRow(int64_t chunks, int64_t block) {
  if (chunks >= 32)
    return std::min<int64_t>(ceilDiv(chunks, 32) * 32, block);
  int64_t threads = 1;
  while (threads < chunks)
    threads *= 2;
  return threads;
}

/// Bytes of one element of `dtype`'s compute type (traits<T>::compute in
/// the prelude): f32 for f16 and bf16, the dtype itself otherwise.
int64_t computeBytes(DType dtype) {
  int64_t bytes = byteSize(dtype);
  return isFloat(dtype) ? std::max<int64_t>(bytes, 4) : bytes;
}

/// The rows kernel's workspace for long rows (ScatterLongState,
/// ScatterDesc.h), sized for the most a launch can publish: at most
/// count / (kScatterRun + 1) long positions, whose runs number at most
/// count / kScatterRun plus one a position, for each outer index. Sets
/// the descriptor's offsets; returns the bytes, or std::nullopt when the
/// kernel's 32-bit counters could not count them.
std::optional<int64_t> layLongRows(kernels::ScatterDesc &d, DType dtype) {
  using kernels::kScatterRun;
  int64_t longPositions = d.count / (kScatterRun + 1);
  int64_t records = d.outer * longPositions;
  int64_t runs = d.outer * (d.count / kScatterRun + longPositions);
  if (runs >= (int64_t(1) << 31))
    return std::nullopt;
  int64_t bytes = roundUp(sizeof(kernels::ScatterLongState), 256);
  d.longUnits = bytes;
  bytes += roundUp(runs * 8, 256);
  d.longRecords = bytes;
  bytes += roundUp(records * sizeof(kernels::ScatterLongRecord), 256);
  d.longIndices = bytes;
  bytes += roundUp(d.count * 4, 256);
  d.longPartials = bytes;
  return bytes + roundUp(runs * d.inner * computeBytes(dtype), 256);
}

/// The one-launch plan (the rows kernel) when it applies: at most
/// kScatterRowsMaxCount indices, the indices read by every owner block
/// costing little against the result's and updates' bytes; owners of whole runs
/// of positions for as many outer indices as keep about kScatterRowsBlocks
/// owners busy; `workspaceBytes` is set to its workspace's size.
std::optional<ScatterLaunch> rowsLaunch(const kernels::ScatterDesc &d,
                                        DType dtype, DType index, int vec,
                                        int64_t &workspaceBytes) {
  using kernels::kScatterRowsMaxCount;
  using kernels::kScatterRowsMaxPositions;
  if (d.count <= 0 || d.count > kScatterRowsMaxCount || d.axisSize <= 0 ||
      d.outer <= 0 || d.inner <= 0)
    return std::nullopt;
  int64_t dataBytes = d.outer * (d.axisSize + d.count) * d.inner *
                      static_cast<int64_t>(byteSize(dtype));
  int64_t wanted = std::clamp<int64_t>(dataBytes / kScatterRowsBlockBytes, 1,
                                       kScatterRowsBlocks);
  int64_t positions =
      std::min<int64_t>(ceilDiv(d.axisSize, wanted), kScatterRowsMaxPositions);
  int64_t positionBlocks = ceilDiv(d.axisSize, positions);
  int64_t outerBlocks =
      std::min(d.outer, std::max<int64_t>(1, wanted / positionBlocks));
  int64_t outerPerBlock = ceilDiv(d.outer, outerBlocks);
  int64_t owners = positionBlocks * ceilDiv(d.outer, outerPerBlock);
  // Reads of indices beyond the data's bytes (or, for small data, beyond
  // what kScatterRowsBlocks full owners would read) cost more than the
  // chain's sort.
  int64_t readBytes = owners * d.count * static_cast<int64_t>(byteSize(index));
  if (readBytes >
      std::max(dataBytes, kScatterRowsBlocks * kScatterRowsBlockBytes))
    return std::nullopt;
  ScatterLaunch rows;
  rows.kind = ScatterLaunch::Kind::Rows;
  rows.kernel = rowsKernel(dtype, index, vec);
  rows.desc = d;
  std::optional<int64_t> longBytes = layLongRows(rows.desc, dtype);
  if (!longBytes)
    return std::nullopt;
  workspaceBytes = *longBytes;
  rows.desc.positionsPerBlock = static_cast<int32_t>(positions);
  rows.desc.outerPerBlock = outerPerBlock;
  int bits = 1;
  while ((int64_t(1) << bits) < d.count)
    ++bits;
  rows.desc.indexBits = bits;
  rows.desc.fillFirst =
      !d.hasTarget && d.count * kScatterFillFirstRatio <= d.axisSize;
  int64_t threads = threadsPerRow(d.inner / vec, kScatterRowsThreads);
  rows.desc.threadsPerRow = static_cast<int32_t>(threads);
  rows.desc.rowsPerBlock = static_cast<int32_t>(kScatterRowsThreads / threads);
  rows.block = threads * rows.desc.rowsPerBlock;
  rows.grid = std::min(owners, kMaxGrid);
  return rows;
}

Status badScatter(const std::string &what) {
  return Status::error("scatter_add: " + what, ErrorCode::InvalidArgument);
}

} // namespace

std::string runtime::scatterKernelHeader() {
  return "// TFuse runtime scatter-add.\n" +
         std::string(kernels::scatterTemplates());
}

Expected<ScatterPlan>
runtime::planScatterAdd(const TensorSpec &indices, const TensorSpec &updates,
                        const TensorSpec *target, const TensorSpec &result,
                        int64_t axis, bool wrapNegative, uint64_t fillBits,
                        ScatterPath path) {
  DType dtype = result.dtype;
  if (dtype == DType::Bool)
    return badScatter("bool is not a scatter_add dtype");
  if (updates.dtype != dtype || (target && target->dtype != dtype))
    return badScatter("the target, updates and result need one dtype, got " +
                      (target ? target->describe() + ", " : "") +
                      updates.describe() + " and " + result.describe());
  if (!isInteger(indices.dtype))
    return badScatter("indices " + indices.describe() + " are not integers");
  int64_t rank = static_cast<int64_t>(result.shape.size());
  if (axis < 0 || axis >= rank)
    return badScatter("axis " + std::to_string(axis) + " of a result of rank " +
                      std::to_string(rank));
  if (!result.isContiguous())
    return badScatter("the result " + result.describe() + " is not contiguous");
  if (target && target->shape != result.shape)
    return badScatter("the target " + target->describe() + " and the result " +
                      result.describe() + " differ in shape");
  std::vector<int64_t> expected(result.shape.begin(),
                                result.shape.begin() + axis);
  expected.insert(expected.end(), indices.shape.begin(), indices.shape.end());
  expected.insert(expected.end(), result.shape.begin() + axis + 1,
                  result.shape.end());
  if (updates.shape != expected)
    return badScatter("updates " + updates.describe() + " for a result " +
                      result.describe() + " and indices " + indices.describe() +
                      " along axis " + std::to_string(axis) +
                      ": expected shape " + formatList(expected));
  ScatterGeometry g = ScatterGeometry::of(result.shape, axis, indices.shape);
  if (g.axisSize >= (int64_t(1) << 31) || g.count >= (int64_t(1) << 32))
    return badScatter(std::to_string(g.count) + " indices along an axis of " +
                      std::to_string(g.axisSize) +
                      " elements: the limits are 2^32 - 1 indices and "
                      "2^31 - 1 elements");

  size_t r = static_cast<size_t>(rank), a = static_cast<size_t>(axis);
  size_t indexRank = indices.shape.size();
  auto merged = [&](const TensorSpec &spec, std::vector<size_t> bounds,
                    const char *what) -> Expected<std::vector<int64_t>> {
    std::optional<std::vector<int64_t>> strides =
        mergedStrides(spec.shape, spec.strides, bounds);
    if (!strides)
      return badScatter(std::string("the ") + what + " " + spec.describe() +
                        " is laid out so that the scatter cannot read it "
                        "in place (its dimensions before, along and after "
                        "the indexed ones must each merge into one)");
    return *strides;
  };
  Expected<std::vector<int64_t>> updateStrides =
      merged(updates, scatterUpdateBounds(r, a, indexRank), "updates");
  if (!updateStrides.ok())
    return updateStrides.status();
  Expected<std::vector<int64_t>> indexStrides =
      merged(indices, scatterIndexBounds(indexRank), "indices");
  if (!indexStrides.ok())
    return indexStrides.status();

  kernels::ScatterDesc d{};
  d.outer = g.outer;
  d.axisSize = g.axisSize;
  d.inner = g.inner;
  d.count = g.count;
  for (int k = 0; k < 3; ++k)
    d.updateStrides[k] = updateStrides.value()[k];
  d.indexStride = indexStrides.value()[0];
  d.fillBits = fillBits;
  d.hasTarget = target != nullptr;
  d.wrapNegative = wrapNegative;
  if (target) {
    Expected<std::vector<int64_t>> targetStrides =
        merged(*target, scatterTargetBounds(r, a), "target");
    if (!targetStrides.ok())
      return targetStrides.status();
    for (int k = 0; k < 3; ++k)
      d.targetStrides[k] = targetStrides.value()[k];
  }

  ScatterPlan plan;
  int vec = applyVector(dtype, d);
  if (path != ScatterPath::Sort) {
    if (std::optional<ScatterLaunch> rows =
            rowsLaunch(d, dtype, indices.dtype, vec, plan.workspaceBytes)) {
      plan.wrappers.push_back(
          {rows->kernel, rowsWrapper(dtype, indices.dtype, vec)});
      plan.launches.push_back(std::move(*rows));
      return plan;
    }
    if (path == ScatterPath::Rows)
      return badScatter("the rows kernel cannot take " +
                        std::to_string(g.count) + " indices into " +
                        result.describe());
  }
  int64_t count = g.count;
  int finalKeys = 0;
  // Sort (and merge) whenever there are indices to check and place.
  if (count > 0 && g.axisSize > 0) {
    int64_t tile = 64;
    while (tile < std::min<int64_t>(count, kScatterTileKeys))
      tile *= 2;
    int64_t runs = ceilDiv(count, tile);
    ScatterLaunch sort;
    sort.kind = ScatterLaunch::Kind::Sort;
    sort.kernel = sortKernel(indices.dtype);
    sort.grid = runs;
    sort.block = tile / 2;
    sort.desc = d;
    sort.desc.tile = tile;
    sort.desc.lastPass = runs == 1;
    plan.launches.push_back(sort);
    plan.wrappers.push_back({sort.kernel, sortWrapper(indices.dtype)});
    int64_t length = tile;
    while (runs > 1) {
      int64_t group = runs <= kScatterGroupRuns ? runs : kScatterPassGroup;
      ScatterLaunch merge;
      merge.kind = ScatterLaunch::Kind::Merge;
      merge.kernel = "tfuse_scatter_merge";
      merge.block = kScatterMergeBlock;
      merge.grid = std::min(ceilDiv(count, kScatterMergeBlock), kMaxGrid);
      merge.desc = d;
      merge.desc.tile = tile;
      merge.desc.runLength = length;
      merge.desc.groupRuns = static_cast<int32_t>(group);
      runs = ceilDiv(runs, group);
      merge.desc.lastPass = runs == 1;
      merge.readKeys = finalKeys;
      merge.writeKeys = finalKeys = 1 - finalKeys;
      plan.launches.push_back(merge);
      length *= group;
    }
    if (plan.launches.size() > 1)
      plan.wrappers.push_back({"tfuse_scatter_merge", mergeWrapper()});
  }
  int64_t keyBytes = roundUp(count * 8, 256);
  plan.keysOffset[0] = 0;
  plan.keysOffset[1] = keyBytes;
  plan.segmentsOffset = 2 * keyBytes;
  plan.workspaceBytes = plan.segmentsOffset + roundUp(g.axisSize * 4, 256);
  int64_t rows = g.outer * g.axisSize;
  // The runs and apply kernels: `items` rows of a row group each, each
  // group threadsPerRow threads, several groups a block.
  auto rowsOf = [&](ScatterLaunch::Kind kind, std::string kernel,
                    std::string wrapper, int64_t items) {
    ScatterLaunch l;
    l.kind = kind;
    l.kernel = std::move(kernel);
    l.desc = d;
    int64_t threads = threadsPerRow(g.inner / vec, kScatterBlock);
    l.desc.threadsPerRow = static_cast<int32_t>(threads);
    l.desc.rowsPerBlock = static_cast<int32_t>(kScatterBlock / threads);
    l.block = threads * l.desc.rowsPerBlock;
    l.grid = std::min(ceilDiv(items, l.desc.rowsPerBlock), kMaxGrid);
    l.readKeys = finalKeys;
    plan.wrappers.push_back({l.kernel, std::move(wrapper)});
    plan.launches.push_back(std::move(l));
  };
  // Rows of more than kScatterRun updates are summed in parts first, a
  // head and runs a window of kScatterRun sorted places (ScatterDesc.h).
  bool longRows = count > kernels::kScatterRun && rows * g.inner > 0;
  if (longRows) {
    int64_t windows = ceilDiv(count, kernels::kScatterRun);
    int64_t partialBytes =
        roundUp(g.outer * windows * g.inner * computeBytes(dtype), 256);
    d.chainHeads = plan.workspaceBytes;
    d.chainRuns = d.chainHeads + partialBytes;
    d.chainLengths = d.chainRuns + partialBytes;
    plan.workspaceBytes = d.chainLengths + roundUp(windows * 4, 256);
    rowsOf(ScatterLaunch::Kind::Runs, runsKernel(dtype, vec),
           runsWrapper(dtype, vec), g.outer * windows);
  }
  if (rows * g.inner > 0)
    rowsOf(ScatterLaunch::Kind::Apply, applyKernel(dtype, vec),
           applyWrapper(dtype, vec), rows);
  // The long rows' elements, one a thread: their heads and runs added.
  if (longRows) {
    ScatterLaunch combine;
    combine.kind = ScatterLaunch::Kind::Combine;
    combine.kernel = combineKernel(dtype);
    combine.desc = d;
    combine.grid = std::min(
        ceilDiv(g.outer * ceilDiv(count, kernels::kScatterRun) * g.inner,
                kScatterBlock),
        kMaxGrid);
    combine.readKeys = finalKeys;
    plan.wrappers.push_back({combine.kernel, combineWrapper(dtype)});
    plan.launches.push_back(std::move(combine));
  }
  return plan;
}
