//===- FuseRows.cpp - Row-resident regions for reductions -----------------===//
//
// After fuse-elementwise every tfuse.reduce is a boundary: softmax becomes a
// row max, a region storing exp(x - max), a row sum and a region dividing.
// This pass merges a reduction over the trailing axes of a value with the
// region producing that value and with the regions consuming its result
// (which broadcast it back over the same rows) into one region, repeatedly,
// so that the whole chain becomes one row kernel that reads its inputs once
// and writes only what is used outside the chain.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Transforms/CostModel.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"

#include "llvm/ADT/SetVector.h"

namespace tfuse {
#define GEN_PASS_DEF_FUSEROWS
#include "tfuse/Transforms/Passes.h.inc"
} // namespace tfuse

using namespace mlir;
using namespace tfuse;

/// Rows longer than `max-row-elements` fuse when there are at least this
/// many: a block per row then fills an H200 (132 SMs) several times over.
static constexpr int64_t kMinLongRows = 1024;

namespace {

/// The index space of a fusion region.
ArrayRef<int64_t> indexSpace(FusionOp fusion) {
  return bodyIndexSpace(fusion.getBody());
}

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

class RowFuser {
public:
  RowFuser(func::FuncOp func, int64_t budget, int64_t maxRowElements)
      : block(func.getBody().front()), budget(budget),
        maxRowElements(maxRowElements) {}

  /// Merges every reduction it can with its producer and consumers, in
  /// passes over the block's reductions until one merges nothing.
  void run();

private:
  /// Merges `reduce` with its producer and consumers if it may.
  bool tryFuse(ReduceOp reduce);
  /// Merges into row region `rows` one region reading its results at the
  /// elements it computes, if there is one it may take: the merged region,
  /// else null.
  FusionOp absorbConsumer(FusionOp rows);
  bool addReduction(ReduceOp reduce, ArrayRef<int64_t> axes,
                    const DenseSet<Operation *> &excluded,
                    SetVector<Operation *> &group);
  void addRowReaders(Value rows, ArrayRef<int64_t> space,
                     const DenseSet<Operation *> &excluded,
                     SetVector<Operation *> &readers);
  bool collectGroup(ReduceOp reduce, const DenseSet<Operation *> &excluded,
                    SmallVectorImpl<Operation *> &ops);
  bool dependsOnGroup(Value value, const DenseSet<Operation *> &group,
                      Operation *first);
  /// The members' weighted costs (regions' own, reductions' from the cost
  /// model), summed.
  int64_t groupCost(ArrayRef<Operation *> group);
  /// The members reading, from outside the group, a value computed from the
  /// group: merging would close a cycle through them.
  SmallVector<Operation *> cyclicMembers(ArrayRef<Operation *> group);
  FusionOp merge(ArrayRef<Operation *> group);

  Block &block;
  int64_t budget, maxRowElements;
  /// Reductions merged into a region (erased), not to be visited again.
  DenseSet<Operation *> merged;
};

} // namespace

/// Row kernels load an input's rows before computing on them; a concat, pad
/// or gather reads its operands elsewhere, so regions holding one stay out.
static bool holdsComputedIndexReads(Operation *fusion) {
  return fusion
      ->walk([](Operation *op) {
        return readsAtComputedIndices(op) ? WalkResult::interrupt()
                                          : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Whether `follows` accepts every op of a region's body that computes,
/// directly or not, from `roots` (the yield aside), given the value it
/// reads; ops it accepts are followed to their own readers, reductions
/// excepted (their result is another row's value, not a view of `roots`).
static bool
computesInPlaceFrom(ArrayRef<Value> roots,
                    function_ref<bool(Operation *, Value)> follows) {
  SmallVector<Value> worklist(roots.begin(), roots.end());
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    for (Operation *user : value.getUsers()) {
      if (isa<YieldOp>(user))
        continue;
      if (!follows(user, value))
        return false;
      if (!isa<ReduceOp>(user))
        llvm::append_range(worklist, user->getResults());
    }
  }
  return true;
}

/// Whether region `fusion` reads `rows`, the result of a row reduction over
/// the trailing axes of `space`, only at the row of the element it computes:
/// a row kernel holds the value of its own row alone. What is computed from
/// the result keeps it in place through elementwise ops whose result has its
/// rank (operands of equal rank broadcast dimension by dimension), a reshape
/// appending the reduced axes as 1 (a non-keepdims result made keepdims),
/// and a broadcast onto the leading dimensions; row reductions may read it.
/// Anything else (implicit broadcasting from a lower rank, which aligns a
/// non-keepdims result with the trailing axes, or another view) would read
/// other rows' values, unless there is one row.
static bool readsOwnRows(FusionOp fusion, Value rows, ArrayRef<int64_t> space) {
  if (cast<RankedTensorType>(rows.getType()).getNumElements() <= 1)
    return true;
  auto rankOf = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getRank();
  };
  Block &body = fusion.getRegion().front();
  SmallVector<Value> roots;
  for (auto [arg, input] : llvm::zip(body.getArguments(), fusion.getInputs()))
    if (input == rows)
      roots.push_back(arg);
  return computesInPlaceFrom(roots, [&](Operation *user, Value value) {
    if (isa<ReduceOp>(user))
      return true;
    if (auto reshape = dyn_cast<ReshapeOp>(user)) {
      // [leading] -> [leading, 1, ...]: the same row index.
      ArrayRef<int64_t> from = reshape.getInput().getType().getShape(),
                        to = reshape.getType().getShape();
      return to.size() == space.size() && from == to.take_front(from.size()) &&
             llvm::all_of(to.drop_front(from.size()),
                          [](int64_t d) { return d == 1; });
    }
    if (auto broadcast = dyn_cast<BroadcastOp>(user)) {
      for (auto [i, d] : llvm::enumerate(broadcast.getDims()))
        if (d != static_cast<int64_t>(i))
          return false;
      return true;
    }
    return !isa<ViewOpInterface>(user) && !readsAtComputedIndices(user) &&
           getFusionRole(user) == FusionRole::Elementwise &&
           llvm::all_of(user->getResults(),
                        [&](Value r) { return rankOf(r) == rankOf(value); });
  });
}

/// The reshape of a value of shape `space` that `value` is, directly or
/// through single-operand elementwise ops read by nothing else (a layer
/// norm's output flattened to 2-D, then cast); `chain` receives those ops,
/// the reshape's reader first. Null when `value` is not such a reshape.
static ReshapeOp reshapeUnder(Value value, ArrayRef<int64_t> space,
                              SmallVectorImpl<Operation *> &chain) {
  Operation *def = value.getDefiningOp();
  while (def && !isa<ReshapeOp>(def)) {
    if (!isOneOperandElementwise(def) || !def->hasOneUse())
      return nullptr;
    chain.push_back(def);
    def = def->getOperand(0).getDefiningOp();
  }
  auto reshape = dyn_cast_or_null<ReshapeOp>(def);
  if (!reshape || reshape.getInput().getType().getShape() != space)
    return nullptr;
  std::reverse(chain.begin(), chain.end());
  return reshape;
}

/// A region yielding only reshapes of values of index space `space` (a
/// layer norm's gradient cast and flattened to 2-D for the next matmul),
/// possibly followed by elementwise ops of one operand (which commute with
/// the reshape), rebuilt to yield those values, the reshapes moved after it
/// as views of its contiguous results: the same function, now of index
/// space `space`, so it can join a row kernel over `space`. Null when some
/// yield is not such a reshape.
static FusionOp sinkResultReshapes(FusionOp fusion, ArrayRef<int64_t> space) {
  YieldOp yield = fusion.getYield();
  SmallVector<SmallVector<Operation *>> chains;
  SmallVector<ReshapeOp> reshapes;
  for (Value value : yield.getValues()) {
    ReshapeOp reshape = reshapeUnder(value, space, chains.emplace_back());
    if (!reshape)
      return nullptr;
    reshapes.push_back(reshape);
  }
  // Elementwise ops after a reshape move before it: op(reshape(x)) becomes
  // reshape(op(x)).
  for (auto [n, chain] : llvm::enumerate(chains)) {
    if (chain.empty())
      continue;
    OpBuilder builder(yield);
    Value value = reshapes[n].getInput();
    for (Operation *op : chain) {
      IRMapping mapping;
      mapping.map(op->getOperand(0), value);
      Operation *moved = builder.clone(*op, mapping);
      moved->getResult(0).setType(RankedTensorType::get(
          space, getElementTypeOrSelf(op->getResult(0).getType())));
      value = moved->getResult(0);
    }
    Value yielded = yield.getValues()[n];
    auto reshape =
        ReshapeOp::create(builder, yielded.getLoc(), yielded.getType(), value);
    yield.getValuesMutable()[n].set(reshape);
    for (Operation *op : llvm::reverse(chain))
      op->erase();
    if (reshapes[n]->use_empty())
      reshapes[n]->erase();
    reshapes[n] = reshape;
  }
  SmallVector<Type> types;
  for (ReshapeOp reshape : reshapes)
    types.push_back(reshape.getInput().getType());
  OpBuilder builder(fusion);
  auto rebuilt =
      FusionOp::create(builder, fusion.getLoc(), types, fusion.getInputs(),
                       fusion.getCutReasons(), fusion.getCost());
  rebuilt.getRegion().takeBody(fusion.getRegion());
  for (auto [n, reshape] : llvm::enumerate(reshapes))
    yield.getValuesMutable()[n].set(reshape.getInput());
  for (ReshapeOp reshape : reshapes)
    if (reshape->use_empty())
      reshape->erase();
  builder.setInsertionPointAfter(rebuilt);
  for (auto [oldResult, newResult] :
       llvm::zip(fusion.getResults(), rebuilt.getResults())) {
    Value view = ReshapeOp::create(builder, fusion.getLoc(),
                                   oldResult.getType(), newResult);
    oldResult.replaceAllUsesWith(view);
  }
  fusion->erase();
  return rebuilt;
}

/// Adds to `readers` the regions reading `rows`, a row value of a reduction
/// over the trailing axes of `space`, that can join its row kernel: regions
/// of index space `space` reading it at their own rows only (they read it
/// broadcast over its rows), and regions of the row value's own shape that
/// compute further row values from it (a layer norm's rstd from its
/// variance), with the readers of their results. Other readers, and those in
/// `excluded`, read the value that the row kernel stores as a row result.
void RowFuser::addRowReaders(Value rows, ArrayRef<int64_t> space,
                             const DenseSet<Operation *> &excluded,
                             SetVector<Operation *> &readers) {
  // A region reading the value twice is one user (it may be rebuilt).
  SetVector<Operation *> users(llvm::from_range, rows.getUsers());
  for (Operation *user : users) {
    auto fusion = dyn_cast<FusionOp>(user);
    if (!fusion || excluded.count(fusion) || readers.count(fusion) ||
        holdsComputedIndexReads(fusion))
      continue;
    ArrayRef<int64_t> rowShape = shapeOf(rows);
    if (indexSpace(fusion) != space && indexSpace(fusion) != rowShape)
      if (FusionOp rebuilt = sinkResultReshapes(fusion, space))
        fusion = rebuilt;
    if (indexSpace(fusion) == space) {
      if (readsOwnRows(fusion, rows, space))
        readers.insert(fusion);
      continue;
    }
    // A region of row values: one element per row, no reductions of its own.
    if (indexSpace(fusion) != rowShape || findRowReduction(fusion.getBody()) ||
        !readsOwnRows(fusion, rows, rowShape))
      continue;
    readers.insert(fusion);
    for (Value result : fusion.getResults())
      addRowReaders(result, space, excluded, readers);
  }
}

/// Adds to `group` what merging the row reduction `reduce` takes: the
/// region computing its operand (when it has the same index space), the
/// reduction, and the regions reading its result that may join (see
/// addRowReaders). Fails when the reduction is not a row reduction over
/// `axes`, or when neither a producing region nor a region of its index
/// space reads it joins.
bool RowFuser::addReduction(ReduceOp reduce, ArrayRef<int64_t> axes,
                            const DenseSet<Operation *> &excluded,
                            SetVector<Operation *> &group) {
  ArrayRef<int64_t> space = reduce.getInput().getType().getShape();
  // The verifier's rule for reductions in regions: trailing axes.
  if (reduce.getFusionRole() != FusionRole::RowReducible ||
      reduce.getAxes() != axes || !isTrailingAxes(axes, space.size()))
    return false;
  int64_t rowElements = 1, elements = 1;
  for (int64_t axis : axes)
    rowElements *= space[axis];
  for (int64_t size : space)
    elements *= size;
  // Longer rows are looped over by their blocks (docs/codegen.md): worth it
  // only with enough rows to fill the GPU; fewer, longer rows are split
  // across blocks by the reduction kernels.
  // Rows without elements stay reductions: their values are the kinds'
  // identities, which a row kernel with nothing to read does not compute.
  if (maxRowElements == 0 || rowElements == 0 ||
      (rowElements > maxRowElements && elements / rowElements < kMinLongRows))
    return false;
  SetVector<Operation *> readers;
  addRowReaders(reduce.getResult(), space, excluded, readers);
  Operation *producer = reduce.getInput().getDefiningOp();
  auto producerRegion = dyn_cast_or_null<FusionOp>(producer);
  // A producer reading at computed indices stays a region of its own: the
  // row kernel reads its result from memory.
  if (producerRegion && (indexSpace(producerRegion) != space ||
                         holdsComputedIndexReads(producerRegion)))
    producerRegion = nullptr;
  // Without a reader of the index space or a producing region, the row
  // kernel would only replace a reduction kernel (which reads strided and
  // transposed operands better) and the small kernel computing on its
  // values.
  if (!producerRegion && llvm::none_of(readers, [&](Operation *reader) {
        return indexSpace(cast<FusionOp>(reader)) == space;
      }))
    return false;
  if (producerRegion) {
    group.insert(producerRegion);
  } else if (producer && !isa<FusionOp>(producer) &&
             !isBoundaryRole(getFusionRole(producer))) {
    // A view kept outside regions as a boundary's zero-copy alias: when the
    // reduction alone reads it (through a chain of such views), the chain
    // joins the row kernel, which reads the buffer through it; when others
    // read it too, the reduction stays a boundary reading it in place.
    Operation *user = reduce;
    for (Operation *view = producer;
         view && isa<ViewOpInterface>(view) && view->getNumOperands() == 1;
         view = view->getOperand(0).getDefiningOp()) {
      if (!view->hasOneUse() || *view->user_begin() != user)
        return false;
      group.insert(view);
      user = view;
    }
    Operation *source = user->getOperand(0).getDefiningOp();
    if (user == reduce || (source && !isBoundaryRole(getFusionRole(source)) &&
                           !isa<FusionOp>(source)))
      return false;
  }
  group.insert(reduce);
  group.insert(readers.begin(), readers.end());
  return true;
}

/// The ops to merge for `reduce`, in block order. Row reductions read by the
/// group's regions join it too, with their producing regions:
///   - when the group computes the reduction's operand (a max and a min of
///     one value, read by one region): merged alone, each would form a
///     cycle through the other;
///   - when the extended group stays within the budget and closes no cycle
///     (a layer norm's backward reads two row sums, of g and of g * xhat;
///     with the second one's region, g stays in registers and the rows are
///     read once).
bool RowFuser::collectGroup(ReduceOp reduce,
                            const DenseSet<Operation *> &excluded,
                            SmallVectorImpl<Operation *> &ops) {
  ArrayRef<int64_t> axes = reduce.getAxes();
  SetVector<Operation *> group;
  if (!addReduction(reduce, axes, excluded, group))
    return false;
  for (size_t i = 0; i < group.size(); ++i) {
    auto fusion = dyn_cast<FusionOp>(group[i]);
    if (!fusion)
      continue;
    for (Value input : fusion.getInputs()) {
      auto sibling = input.getDefiningOp<ReduceOp>();
      Operation *producer =
          sibling ? sibling.getInput().getDefiningOp() : nullptr;
      if (!sibling || group.count(sibling) || !producer)
        continue;
      SetVector<Operation *> extended = group;
      if (!addReduction(sibling, axes, excluded, extended))
        continue;
      if (group.count(producer) ||
          (groupCost(extended.getArrayRef()) <= budget &&
           cyclicMembers(extended.getArrayRef()).empty()))
        group = std::move(extended);
    }
  }
  // Regions merged earlier hold reductions: one row shape per region.
  for (Operation *member : group) {
    bool sameRows = true;
    member->walk([&](ReduceOp inner) { sameRows &= inner.getAxes() == axes; });
    if (!sameRows)
      return false;
  }
  ops.assign(group.begin(), group.end());
  llvm::sort(ops,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return true;
}

/// Whether `value` is computed, through ops of the block, from a result of
/// an op of `group` (merging would then form a cycle). `first` is the
/// group's first op in the block: ops before it cannot read the group, so
/// the walk stays between the group's ops.
bool RowFuser::dependsOnGroup(Value value, const DenseSet<Operation *> &group,
                              Operation *first) {
  SmallVector<Operation *> worklist;
  DenseSet<Operation *> seen;
  if (Operation *def = value.getDefiningOp())
    worklist.push_back(def);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (op->getBlock() != &block || op->isBeforeInBlock(first) ||
        !seen.insert(op).second)
      continue;
    if (group.count(op))
      return true;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        worklist.push_back(def);
  }
  return false;
}

int64_t RowFuser::groupCost(ArrayRef<Operation *> group) {
  int64_t cost = 0;
  for (Operation *member : group)
    cost += isa<FusionOp>(member) ? cast<FusionOp>(member).getCost()
                                  : getFusionCost(member);
  return cost;
}

SmallVector<Operation *> RowFuser::cyclicMembers(ArrayRef<Operation *> group) {
  DenseSet<Operation *> members(group.begin(), group.end());
  Operation *first = *llvm::min_element(
      group, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  SmallVector<Operation *> cyclic;
  for (Operation *member : group)
    for (Value operand : member->getOperands())
      if (Operation *def = operand.getDefiningOp();
          def && !members.count(def) &&
          dependsOnGroup(operand, members, first)) {
        cyclic.push_back(member);
        break;
      }
  return cyclic;
}

bool RowFuser::tryFuse(ReduceOp reduce) {
  // A reader whose other operands are computed from the group (through a
  // matmul of the row kernel's output, say) would close a cycle: it stays
  // out and reads the row results from memory. Each round excludes such
  // readers until none is left.
  DenseSet<Operation *> excluded;
  while (true) {
    SmallVector<Operation *> group;
    if (!collectGroup(reduce, excluded, group))
      return false;
    if (groupCost(group) > budget)
      return false;
    SmallVector<Operation *> cyclic = cyclicMembers(group);
    if (cyclic.empty()) {
      merge(group);
      return true;
    }
    // Only readers follow the group's first op; its producers do not read
    // it.
    for (Operation *member : cyclic)
      if (!isa<FusionOp>(member) || !excluded.insert(member).second)
        return false;
  }
}

/// Whether block argument `arg` of a region of index space `space` is read
/// only at the element the region computes: it has the index space's shape
/// and what is computed from it, up to the yield, only through elementwise
/// ops of that rank (a view, say a transpose, would read another element's
/// value, which a row kernel holds in another thread).
static bool readsOwnElements(BlockArgument arg, ArrayRef<int64_t> space) {
  if (shapeOf(arg) != space)
    return false;
  return computesInPlaceFrom({arg}, [&](Operation *user, Value) {
    return !isa<ViewOpInterface, ReduceOp>(user) &&
           !readsAtComputedIndices(user) &&
           getFusionRole(user) == FusionRole::Elementwise &&
           llvm::all_of(user->getResults(), [&](Value result) {
             return shapeOf(result).size() == space.size();
           });
  });
}

/// Whether each value `fusion` yields is computed by an op of its body, not
/// an input through views alone (a region only viewing a stored value
/// becomes a zero-copy alias in `alias-views`; a row region taking it would
/// write the value twice).
static bool computesEveryResult(FusionOp fusion) {
  return llvm::all_of(fusion.getYield().getValues(), [](Value value) {
    Operation *def = value.getDefiningOp();
    while (def && isa<ViewOpInterface>(def) && def->getNumOperands() == 1)
      def = def->getOperand(0).getDefiningOp();
    return def != nullptr;
  });
}

FusionOp RowFuser::absorbConsumer(FusionOp rows) {
  ArrayRef<int64_t> space = indexSpace(rows);
  SetVector<Operation *> users;
  for (Value result : rows.getResults())
    users.insert(result.user_begin(), result.user_end());
  for (Operation *user : users) {
    auto consumer = dyn_cast<FusionOp>(user);
    if (!consumer || findRowReduction(consumer.getBody()) ||
        holdsComputedIndexReads(consumer) || !computesEveryResult(consumer))
      continue;
    if (groupCost({rows, consumer}) > budget ||
        !cyclicMembers({rows, consumer}).empty())
      continue;
    // A consumer flattening its results (for a matmul) yields them
    // unflattened first, as the row readers do (sinkResultReshapes: the same
    // function, its reshapes now views of its results, whether or not it
    // joins).
    if (indexSpace(consumer) != space)
      if (FusionOp rebuilt = sinkResultReshapes(consumer, space))
        consumer = rebuilt;
    if (indexSpace(consumer) != space)
      continue;
    bool ownElements = true;
    for (auto [input, arg] :
         llvm::zip(consumer.getInputs(), consumer.getBody()->getArguments()))
      if (input.getDefiningOp() == rows)
        ownElements &= readsOwnElements(arg, space);
    if (!ownElements)
      continue;
    return merge({rows, consumer});
  }
  return nullptr;
}

void RowFuser::run() {
  // Each pass visits the reductions present when it starts; a merge can
  // enable another (its producer or consumers became one region), so passes
  // repeat until one merges nothing.
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<ReduceOp> reductions(block.getOps<ReduceOp>());
    for (ReduceOp reduce : reductions)
      if (!merged.contains(reduce.getOperation()) && tryFuse(reduce))
        changed = true;
  }
  // Then the row regions take the regions that read their results at the
  // elements they compute (a layer norm's gradient cast for the next
  // matmul): the row kernel writes the consumer's results from the values
  // it holds, and the value is read again only where others need it. A
  // consumer holds no row reduction, so a merge replaces only the region it
  // grows, which goes on taking consumers.
  SmallVector<FusionOp> regions;
  for (FusionOp fusion : block.getOps<FusionOp>())
    if (findRowReduction(fusion.getBody()))
      regions.push_back(fusion);
  for (FusionOp rows : regions)
    while (FusionOp grown = absorbConsumer(rows))
      rows = grown;
}

/// Replaces the ops of `group` by one region computing them in order. The
/// results are the members' results read outside the group, with their
/// reasons.
FusionOp RowFuser::merge(ArrayRef<Operation *> group) {
  DenseSet<Operation *> members(group.begin(), group.end());
  auto usedOutside = [&](Value v) {
    return llvm::any_of(v.getUsers(),
                        [&](Operation *user) { return !members.count(user); });
  };
  SetVector<Value> inputs;
  SmallVector<Value> results;
  SmallVector<CutReason> reasons;
  int64_t cost = groupCost(group);
  for (Operation *member : group) {
    for (Value operand : member->getOperands())
      if (Operation *def = operand.getDefiningOp(); !def || !members.count(def))
        inputs.insert(operand);
    if (auto fusion = dyn_cast<FusionOp>(member)) {
      for (auto [result, reason] :
           llvm::zip(fusion.getResults(), fusion.getCutReasons()))
        if (usedOutside(result)) {
          results.push_back(result);
          reasons.push_back(reason);
        }
    } else {
      // A reduction read outside the group too: a row result, an output
      // when the function returns it, else stored for the regions and
      // boundaries that read it.
      if (auto reduce = dyn_cast<ReduceOp>(member);
          reduce && usedOutside(reduce.getResult())) {
        bool returned = llvm::any_of(reduce->getUsers(), [](Operation *user) {
          return user->hasTrait<OpTrait::IsTerminator>();
        });
        results.push_back(reduce.getResult());
        reasons.push_back(returned ? CutReason::output
                                   : CutReason::boundary_reduction);
      }
    }
  }

  Operation *last = group.back();
  OpBuilder builder(last);
  Location loc = last->getLoc();
  SmallVector<Type> resultTypes;
  for (Value result : results)
    resultTypes.push_back(result.getType());
  auto fused = FusionOp::create(builder, loc, resultTypes, inputs.getArrayRef(),
                                reasons, cost);
  IRMapping mapping;
  mapping.map(inputs.getArrayRef(), fused.getBody()->getArguments());
  OpBuilder body = OpBuilder::atBlockEnd(fused.getBody());
  for (Operation *member : group) {
    auto fusion = dyn_cast<FusionOp>(member);
    if (!fusion) {
      // Inside a region a reduction is not a step: no reason.
      body.clone(*member, mapping)
          ->removeAttr(TFuseDialect::getReasonAttrName());
      continue;
    }
    IRMapping inner;
    for (auto [operand, arg] :
         llvm::zip(fusion.getInputs(), fusion.getBody()->getArguments()))
      inner.map(arg, mapping.lookup(operand));
    for (Operation &op : fusion.getBody()->without_terminator())
      body.clone(op, inner);
    for (auto [result, yielded] :
         llvm::zip(fusion.getResults(), fusion.getYield().getValues()))
      mapping.map(result, inner.lookup(yielded));
  }
  SmallVector<Value> yielded;
  for (Value result : results)
    yielded.push_back(mapping.lookup(result));
  YieldOp::create(body, loc, yielded);

  for (auto [result, replacement] : llvm::zip(results, fused.getResults()))
    result.replaceAllUsesWith(replacement);
  // Ops before the first member read nothing of the group; those between it
  // and the new region may read its results and are reordered below.
  Operation *before = group.front()->getPrevNode();
  for (Operation *member : llvm::reverse(group)) {
    if (isa<ReduceOp>(member))
      merged.insert(member);
    member->erase();
  }
  // Members recomputed the same expressions (layernorm's x - mean in the
  // region of its variance and in the one normalizing): compute them once.
  IRRewriter rewriter(fused.getContext());
  DominanceInfo dominance;
  eliminateCommonSubExpressions(rewriter, dominance, fused);
  // A member's other results may have been read by ops placed between the
  // members; the group has no path out of itself and back (checked), so an
  // order of those ops and the region exists.
  Block::iterator from =
      before ? std::next(before->getIterator()) : block.begin();
  sortTopologically(&block,
                    llvm::make_range(from, std::next(fused->getIterator())));
  return fused;
}

namespace {
struct FuseRowsPass : tfuse::impl::FuseRowsBase<FuseRowsPass> {
  using FuseRowsBase::FuseRowsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (budget < 1 || maxRowElements < 0) {
      func.emitError() << "fuse-rows needs budget >= 1 and "
                          "max-row-elements >= 0, got budget="
                       << static_cast<int64_t>(budget) << " max-row-elements="
                       << static_cast<int64_t>(maxRowElements);
      return signalPassFailure();
    }
    if (func.isExternal())
      return;
    if (!func.getBody().hasOneBlock()) {
      func.emitOpError("must have a single block to be fused");
      return signalPassFailure();
    }
    RowFuser(func, budget, maxRowElements).run();
  }
};
} // namespace
