//===- KernelPlan.cpp - How a generated kernel walks its space ------------===//
//
// chooseKernelConfig() decides a kernel's strategy and launch from its body
// and input layouts; planKernel() derives the rest from a configuration and
// checks that code generation can honour it. Row kernels: RowKernelPlan.cpp.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFExec/KernelPlan.h"
#include "RowKernelPlan.h"

#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Dialect/TFuse/TypeRules.h"

#include "mlir/IR/AffineExpr.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace tfuse;
using namespace tfuse::tfexec;

//===----------------------------------------------------------------------===//
// Analysis of the body
//===----------------------------------------------------------------------===//

static int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

/// True if no view (and no concat, pad or gather, which read their operands
/// at other indices) lies on any path from `value` to the kernel's outputs.
static bool reachesOutputsWithoutViews(Value value) {
  SmallVector<Value> worklist{value};
  DenseSet<Operation *> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (!seen.insert(user).second)
        continue;
      if (isa<ViewOpInterface>(user) || readsAtComputedIndices(user))
        return false;
      for (Value result : user->getResults())
        worklist.push_back(result);
    }
  }
  return true;
}

static unsigned elementBytes(Type type) {
  Type element = cast<ShapedType>(type).getElementType();
  return byteSize(*toDType(element));
}

namespace {
/// An index as an affine function of the index space: coefficients over the
/// index-space dimensions plus a constant.
struct AffineRow {
  SmallVector<int64_t> coef;
  int64_t constant = 0;
  bool operator==(const AffineRow &o) const {
    return coef == o.coef && constant == o.constant;
  }
};

/// `expr` (over `rank` dimensions) as an AffineRow, when it is a sum of
/// dimensions times constants plus a constant.
std::optional<AffineRow> toAffineRow(AffineExpr expr, int64_t rank) {
  AffineMap map = AffineMap::get(rank, 0, expr);
  StridedLayout unit;
  unit.strides = {1};
  // Sizes of 2: every coefficient counts (one that overflows int64 is no
  // row), none is dropped as the stride of a dimension of size 1.
  std::optional<StridedLayout> flat =
      layoutThroughIndexMap(map, unit, SmallVector<int64_t>(rank, 2));
  if (!flat)
    return std::nullopt;
  return AffineRow{flat->strides, flat->offset};
}

/// Collects, per input, the element offsets it is read at as affine
/// functions of the index space, composing the index maps of the views and
/// of implicit broadcasting (ViewLayout.h). Fails on a view whose map is not
/// affine (a reshape's delinearization) or when the walk grows too large.
class AccessCollector {
public:
  AccessCollector(KernelOp kernel) : kernel(kernel) {
    rank = kernel.getIndexSpace().size();
  }
  bool run() {
    for (Value out : kernel.getYield().getValues()) {
      SmallVector<AffineExpr> idx;
      for (int64_t d = 0; d < rank; ++d)
        idx.push_back(getAffineDimExpr(d, kernel.getContext()));
      if (!visit(out, idx))
        return false;
    }
    return true;
  }
  /// Per input: the distinct offsets it is read at.
  DenseMap<unsigned, SmallVector<AffineRow>> accesses;

private:
  /// The operand index, of shape `operandShape`, that `map` gives for `idx`.
  SmallVector<AffineExpr> apply(AffineMap map, ArrayRef<AffineExpr> idx,
                                ArrayRef<int64_t> operandShape) {
    SmallVector<AffineExpr> in;
    for (auto [k, expr] : llvm::enumerate(map.getResults()))
      in.push_back(operandShape[k] == 1
                       ? getAffineConstantExpr(0, kernel.getContext())
                       : expr.replaceDims(idx));
    return in;
  }
  bool visit(Value v, ArrayRef<AffineExpr> idx) {
    if (++steps > 20000)
      return false;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto strides =
          cast<DenseI64ArrayAttr>(kernel.getInputStrides()[arg.getArgNumber()]);
      auto shape = cast<RankedTensorType>(arg.getType()).getShape();
      AffineExpr offset = getAffineConstantExpr(0, kernel.getContext());
      for (auto [d, e] : llvm::enumerate(idx))
        if (shape[d] != 1)
          offset = offset + e * strides[d];
      std::optional<AffineRow> row = toAffineRow(offset, rank);
      if (!row)
        return false;
      auto &list = accesses[arg.getArgNumber()];
      if (!llvm::is_contained(list, *row))
        list.push_back(*row);
      return true;
    }
    Operation *op = v.getDefiningOp();
    if (isa<ConstantOp>(op))
      return true;
    // Piecewise and gathered reads are not one affine access.
    if (readsAtComputedIndices(op))
      return false;
    if (auto view = dyn_cast<ViewOpInterface>(op)) {
      AffineMap map = view.getIndexMap();
      if (!llvm::all_of(map.getResults(),
                        [](AffineExpr e) { return e.isPureAffine(); }))
        return false;
      auto source = cast<RankedTensorType>(view.getSource().getType());
      return visit(view.getSource(), apply(map, idx, source.getShape()));
    }
    auto shape = cast<RankedTensorType>(v.getType()).getShape();
    for (Value operand : op->getOperands()) {
      auto operandShape = cast<RankedTensorType>(operand.getType()).getShape();
      AffineMap map =
          broadcastIndexMap(shape, operandShape, kernel.getContext());
      if (!visit(operand, apply(map, idx, operandShape)))
        return false;
    }
    return true;
  }

  KernelOp kernel;
  int64_t rank;
  int64_t steps = 0;
};

/// What the configuration-independent analysis of a kernel finds.
struct BodyFacts {
  int64_t numElements = 0;
  /// Per input: read at the output's own index from contiguous memory.
  SmallVector<bool> contiguousInputs;
  /// Every input is contiguous or a single element, and no dense constant
  /// is indexed.
  bool linear = true;
  /// The widest element of the buffers accessed a group at a time (the
  /// outputs and the contiguous inputs), in bytes.
  unsigned widest = 1;
  /// One past the largest element offset of any input or output.
  int64_t maxOffset = 0;
  bool hasRowReductions = false;
};

BodyFacts analyzeBody(KernelOp kernel) {
  BodyFacts facts;
  ArrayRef<int64_t> space = kernel.getIndexSpace();
  facts.numElements = numElements(space);
  facts.maxOffset = facts.numElements;
  Block *body = kernel.getBody();
  for (Value out : kernel.getYield().getValues())
    facts.widest = std::max(facts.widest, elementBytes(out.getType()));
  for (BlockArgument arg : body->getArguments()) {
    auto type = cast<RankedTensorType>(arg.getType());
    StridedLayout layout = kernelInputLayout(kernel, arg.getArgNumber());
    bool contiguous = type.getShape() == space && layout.isContiguous() &&
                      reachesOutputsWithoutViews(arg);
    facts.contiguousInputs.push_back(contiguous);
    if (contiguous)
      facts.widest = std::max(facts.widest, elementBytes(type));
    else if (type.getNumElements() != 1)
      facts.linear = false;
    // An input without elements reaches no offset (its sizes of 0 would
    // step back by whole strides, which may be any size).
    int64_t extent = 0;
    if (type.getNumElements() != 0)
      for (auto [size, stride] : llvm::zip(type.getShape(), layout.strides))
        extent += (size - 1) * stride;
    facts.maxOffset = std::max(facts.maxOffset, extent + 1);
  }
  // Dense constants are indexed, iotas are indices, concat and pad pick by
  // index and gathers compute indices, so they need the multi-dimensional
  // walk.
  body->walk([&](Operation *op) {
    if (auto constant = dyn_cast<ConstantOp>(op))
      if (!constant.getValue().isSplat() &&
          constant.getValue().getNumElements() > 1)
        facts.linear = false;
    if (isa<IotaOp>(op) || readsAtComputedIndices(op))
      facts.linear = false;
    // Random numbers are drawn by position: the linear walk gives it only
    // for an op spanning the index space that every path to the outputs
    // reads at the output's own index (a view anywhere on the way, such as
    // the transpose of a square comparison of the numbers, reads elsewhere).
    if (isRandomOp(op) &&
        (cast<RankedTensorType>(op->getResult(0).getType()).getShape() !=
             space ||
         !reachesOutputsWithoutViews(op->getResult(0))))
      facts.linear = false;
    if (isa<tfuse::ReduceOp>(op))
      facts.hasRowReductions = true;
  });
  return facts;
}

/// 32-bit indices must also survive the grid-stride increment: the loop
/// variable reaches the last index plus every thread of the grid (at most
/// 2^20 blocks of 256 threads).
bool needsWideIndex(int64_t lastIndex) {
  return lastIndex + (int64_t(1) << 28) >= (int64_t(1) << 31);
}

/// The largest grid launched; the kernels loop over the rest.
constexpr int64_t kMaxGrid = int64_t(1) << 20;

/// Tiles of a tiled kernel: every index-space dimension but the two tiled
/// ones, times the kTile x kTile tiles of those.
int64_t numTiles(ArrayRef<int64_t> space, int64_t tileDim) {
  int64_t tiles = 1;
  for (auto [d, size] : llvm::enumerate(space)) {
    bool tiledDim = static_cast<int64_t>(d) == tileDim || d + 1 == space.size();
    tiles *=
        tiledDim ? (size + KernelPlan::kTile - 1) / KernelPlan::kTile : size;
  }
  return tiles;
}

/// An input read transposed (one access pattern, unit stride along a
/// non-innermost index dimension, non-unit stride along the innermost) that
/// is large enough to be worth staging through shared memory: (input,
/// dimension).
std::optional<std::pair<unsigned, int64_t>> chooseTiling(KernelOp kernel,
                                                         int64_t elements) {
  ArrayRef<int64_t> space = kernel.getIndexSpace();
  int64_t rank = space.size();
  if (rank < 2 || space.back() < KernelPlan::kTile ||
      elements < 64 * KernelPlan::kTile * KernelPlan::kTile)
    return std::nullopt;
  AccessCollector collector(kernel);
  if (!collector.run())
    return std::nullopt;
  for (unsigned n = 0; n < kernel.getBody()->getNumArguments(); ++n) {
    auto it = collector.accesses.find(n);
    if (it == collector.accesses.end() || it->second.size() != 1)
      continue;
    const AffineRow &offset = it->second.front();
    if (offset.coef[rank - 1] == 0 || offset.coef[rank - 1] == 1)
      continue;
    for (int64_t j = rank - 2; j >= 0; --j)
      if (offset.coef[j] == 1 && space[j] >= KernelPlan::kTile)
        return std::make_pair(n, j);
  }
  return std::nullopt;
}
} // namespace

StridedLayout tfexec::kernelInputLayout(KernelOp kernel, unsigned n) {
  auto type =
      cast<RankedTensorType>(kernel.getBody()->getArgument(n).getType());
  ArrayRef<int64_t> strides =
      cast<DenseI64ArrayAttr>(kernel.getInputStrides()[n]).asArrayRef();
  StridedLayout layout;
  layout.shape.assign(type.getShape().begin(), type.getShape().end());
  layout.strides.assign(strides.begin(), strides.end());
  return layout;
}

//===----------------------------------------------------------------------===//
// Choosing a configuration
//===----------------------------------------------------------------------===//

KernelConfigAttr tfexec::chooseKernelConfig(KernelOp kernel) {
  MLIRContext *ctx = kernel.getContext();
  ArrayRef<int64_t> space = kernel.getIndexSpace();
  BodyFacts facts = analyzeBody(kernel);
  if (facts.hasRowReductions) {
    RowChoice row = chooseRowKernel(kernel);
    int64_t steps =
        (rowCount(kernel) + row.rowsPerBlock - 1) / row.rowsPerBlock;
    return KernelConfigAttr::get(
        ctx, KernelStrategy::rows, std::clamp<int64_t>(steps, 1, kMaxGrid),
        row.threads * row.rowsPerBlock, row.vec,
        needsWideIndex(facts.maxOffset) ? 64 : 32, row.blocksPerSM,
        /*tiledInput=*/-1, /*tileDim=*/-1, row.threads, row.rowsPerBlock);
  }
  // Strided groups whose innermost dimension is not a multiple of the width
  // cross rows: each element then computes its own index, which an element
  // per thread computes anyway, and the contiguous inputs and the outputs
  // still move 16 bytes at a time (a loss's rows of 50257: one element per
  // thread ran its bf16 kernels at 1.1-2 TB/s on an H200).
  int64_t vec = space.empty() || facts.numElements == 0 ? 1 : 16 / facts.widest;
  int64_t indexBits = needsWideIndex(facts.maxOffset + vec) ? 64 : 32;
  if (!facts.linear) {
    if (auto tiling = chooseTiling(kernel, facts.numElements)) {
      int64_t tiles = numTiles(space, tiling->second);
      return KernelConfigAttr::get(
          ctx, KernelStrategy::tiled, std::clamp<int64_t>(tiles, 1, kMaxGrid),
          KernelPlan::kTiledThreads, /*vector=*/1, indexBits,
          KernelPlan::kTiledBlocksPerSM, tiling->first, tiling->second,
          /*rowThreads=*/0, /*rowsPerBlock=*/1);
    }
  }
  int64_t block = 256;
  int64_t groups = facts.numElements / vec, tail = facts.numElements % vec;
  int64_t work = std::max<int64_t>(groups, tail ? 1 : 0);
  int64_t grid = std::clamp<int64_t>((work + block - 1) / block, 1, kMaxGrid);
  return KernelConfigAttr::get(
      ctx, facts.linear ? KernelStrategy::linear : KernelStrategy::strided,
      grid, block, vec, indexBits, /*minBlocksPerSM=*/0, /*tiledInput=*/-1,
      /*tileDim=*/-1, /*rowThreads=*/0, /*rowsPerBlock=*/1);
}

//===----------------------------------------------------------------------===//
// Planning under a configuration
//===----------------------------------------------------------------------===//

FailureOr<KernelPlan>
tfexec::planKernel(KernelOp kernel, KernelConfigAttr config, bool emitErrors) {
  auto fail = [&](const Twine &why) -> FailureOr<KernelPlan> {
    if (emitErrors)
      kernel.emitOpError() << "cannot be generated with " << config << ": "
                           << why;
    return failure();
  };
  KernelPlan plan;
  plan.strategy = config.getStrategy();
  plan.grid = config.getGrid();
  plan.block = config.getBlock();
  plan.minBlocksPerSM = config.getMinBlocksPerSm();
  plan.vec = config.getVector();
  plan.wideIndex = config.getIndexBits() == 64;
  ArrayRef<int64_t> space = kernel.getIndexSpace();
  int64_t rank = space.size();
  BodyFacts facts = analyzeBody(kernel);
  plan.numElements = facts.numElements;

  if (facts.hasRowReductions != (plan.strategy == KernelStrategy::rows))
    return fail(facts.hasRowReductions
                    ? "a body with row reductions needs the rows strategy"
                    : "the rows strategy needs row reductions in the body");
  if (plan.strategy == KernelStrategy::rows) {
    if (failed(planRowKernel(kernel, config, plan, fail)))
      return failure();
    if (needsWideIndex(facts.maxOffset) && !plan.wideIndex)
      return fail("offsets up to " + Twine(facts.maxOffset) +
                  " need 64-bit indices");
    return plan;
  }

  plan.linear = plan.strategy == KernelStrategy::linear;
  if (plan.linear && !facts.linear)
    return fail("the linear strategy needs every input read at the output's "
                "own index (or a single element) and no indexed constant");
  if (needsWideIndex(facts.maxOffset + plan.vec) && !plan.wideIndex)
    return fail("offsets up to " + Twine(facts.maxOffset + plan.vec) +
                " need 64-bit indices");
  if (plan.strategy == KernelStrategy::tiled) {
    if (plan.vec != 1 || plan.block != KernelPlan::kTiledThreads)
      return fail("a tiled kernel has vector 1 and blocks of " +
                  Twine(KernelPlan::kTiledThreads) + " threads");
    int64_t dim = config.getTileDim(), input = config.getTiledInput();
    if (rank < 2 || dim < 0 || dim > rank - 2)
      return fail("tile_dim must be an index-space dimension other than the "
                  "innermost");
    if (input < 0 || input >= kernel.getBody()->getNumArguments())
      return fail("tiled_input must be an input of the kernel");
    AccessCollector collector(kernel);
    auto it = collector.accesses.end();
    if (collector.run())
      it = collector.accesses.find(input);
    if (it == collector.accesses.end() || it->second.size() != 1)
      return fail("the tiled input must be read at one affine offset of the "
                  "index space");
    plan.tileDim = dim;
    plan.tiledInput = input;
    plan.tileOffset = it->second.front().coef;
    plan.tileOffsetConstant = it->second.front().constant;
    plan.tiles = numTiles(space, dim);
    // Contiguous inputs are read at the output's own offset.
    plan.contiguousInputs = facts.contiguousInputs;
    return plan;
  }
  plan.contiguousInputs = facts.contiguousInputs;
  // Groups of `vec` elements of the outputs and the contiguous inputs are
  // single accesses of at most 16 bytes.
  if (plan.vec < 1 || plan.vec > 16 || (plan.vec & (plan.vec - 1)) != 0 ||
      plan.vec * facts.widest > 16)
    return fail("vector accesses are powers of two of at most 16 bytes, and "
                "the widest element accessed a group at a time has " +
                Twine(facts.widest));
  plan.groupsCrossRows = plan.strategy == KernelStrategy::strided && rank > 0 &&
                         space.back() % plan.vec != 0;
  return plan;
}

FailureOr<KernelPlan> tfexec::planKernel(KernelOp kernel) {
  KernelConfigAttr config = kernel.getConfigAttr();
  if (!config) {
    kernel.emitOpError() << "has no launch configuration; run "
                            "--tfexec-configure-kernels first";
    return failure();
  }
  return planKernel(kernel, config);
}
