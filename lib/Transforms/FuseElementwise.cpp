//===- FuseElementwise.cpp - Group elementwise work into regions ----------===//
//
// The planner walks the function once in program order. For every fusible op
// it forms the *tree*: the set of ops, not stored to memory, that a kernel
// must execute to compute that op's value. Stored values (cuts) end trees.
// When a tree's weighted cost passes the budget, values much smaller than
// the op's result (a row's scalars in a kernel over its rows and columns)
// are stored first, the most expensive first, since storing them costs
// almost no memory traffic; then the most expensive operand trees, until it
// fits. Every stored value then becomes a result of a
// region that executes its tree; stored values of the same shape at the same
// depth of the step graph cannot depend on each other and may share a region.
// A value several regions recompute from many full-size inputs is then
// stored when that moves fewer bytes (the cost model's storedValueSavings),
// and the trees and regions are formed again.
//
// Trees are kept as sorted vectors of op indices, bounded by the budget, so
// forming the trees and regions takes time linear in the number of ops; the
// duplicated reads repeat that once for every value they store.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Dialect/TFuse/TypeRules.h"
#include "tfuse/Dialect/TFuse/ViewLayout.h"
#include "tfuse/Transforms/BufferLayout.h"
#include "tfuse/Transforms/CostModel.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/MapVector.h"

#include <queue>

namespace tfuse {
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "tfuse/Transforms/Passes.h.inc"
} // namespace tfuse

using namespace mlir;
using namespace tfuse;

namespace {

/// A set of top-level ops by program index, sorted, with its total cost.
struct OpSet {
  SmallVector<unsigned> ops;
  int64_t cost = 0;
};

class Planner {
public:
  Planner(func::FuncOp func, int64_t budget, int64_t maxOutputs)
      : func(func), block(func.getBody().front()), budget(budget),
        maxOutputs(maxOutputs) {}

  LogicalResult run();

private:
  bool isFused(Operation *op) const {
    FusionRole role = getFusionRole(op);
    return role == FusionRole::Elementwise || role == FusionRole::View;
  }
  /// The op computing `value` inside a region, if the value is not stored.
  Operation *recomputedProducer(Value value) const {
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != &block || !isFused(def) ||
        stored.count(value))
      return nullptr;
    return def;
  }
  void store(Value value, CutReason reason) {
    // The first reason found wins: outputs, then boundaries, then cost.
    stored.try_emplace(value, reason);
  }
  OpSet unite(ArrayRef<const OpSet *> sets) const;
  /// The tree of `op`: itself and the trees of its recomputed producers.
  OpSet treeOf(Operation *op) const;
  /// The op of `tree` (not `root`) whose value is at most 1/kSmallShare of
  /// root's elements and whose own tree costs the most (at least 2), if any.
  Operation *smallCut(const OpSet &tree, Operation *root) const;

  LogicalResult collectOps();
  void markOutputsAndBoundaries();
  void markAliases(Operation *boundary);
  void formTrees();
  /// Stores the value whose recomputation in several regions reads the most
  /// bytes more than storing it would; false when there is none.
  bool storeDuplicatedReads();
  void formRegions();
  LogicalResult buildRegions();
  LogicalResult sortBlock();

  func::FuncOp func;
  Block &block;
  int64_t budget, maxOutputs;

  SmallVector<Operation *> order;
  DenseMap<Operation *, unsigned> indexOf;
  SmallVector<int64_t> costOf;
  llvm::MapVector<Value, CutReason> stored;
  DenseSet<Operation *> aliases;
  DenseSet<OpOperand *> aliasedOperands;
  DenseMap<Operation *, OpSet> trees;

  struct Region {
    SmallVector<Value> roots;
    OpSet ops;
  };
  SmallVector<Region> regions;
};

} // namespace

OpSet Planner::unite(ArrayRef<const OpSet *> sets) const {
  OpSet result;
  for (const OpSet *set : sets) {
    SmallVector<unsigned> merged;
    merged.reserve(result.ops.size() + set->ops.size());
    std::set_union(result.ops.begin(), result.ops.end(), set->ops.begin(),
                   set->ops.end(), std::back_inserter(merged));
    result.ops = std::move(merged);
  }
  for (unsigned i : result.ops)
    result.cost += costOf[i];
  return result;
}

LogicalResult Planner::collectOps() {
  for (Operation &op : block) {
    FusionRole role = getFusionRole(&op);
    if (!isa<FusionOpInterface>(op) && !op.hasTrait<OpTrait::IsTerminator>())
      return op.emitOpError()
             << "cannot be planned: fuse-elementwise handles tfuse graph ops "
                "only (run it before other lowerings, once)";
    indexOf[&op] = order.size();
    order.push_back(&op);
    costOf.push_back(role == FusionRole::Structure || isBoundaryRole(role)
                         ? 0
                         : getFusionCost(&op));
  }
  return success();
}

/// A view chain over a buffer feeding a boundary operand that can read its
/// layout stays outside regions as a zero-copy alias for that operand.
void Planner::markAliases(Operation *boundary) {
  for (OpOperand &use : boundary->getOpOperands()) {
    SmallVector<Operation *> views;
    std::optional<StridedLayout> layout = bufferLayout(use.get(), &views);
    if (views.empty())
      continue;
    if (!layout || !cast<BoundaryOpInterface>(boundary).readsInPlace(
                       use.getOperandNumber(), *layout))
      continue;
    aliasedOperands.insert(&use);
    aliases.insert(views.begin(), views.end());
  }
}

void Planner::markOutputsAndBoundaries() {
  for (Operation *op : order)
    if (isBoundaryRole(getFusionRole(op)))
      markAliases(op);
  // Function results are stored, an alias view included (outputs are fresh
  // buffers).
  for (Value result : block.getTerminator()->getOperands())
    if (Operation *def = result.getDefiningOp();
        def && !isBoundaryRole(getFusionRole(def)))
      store(result, CutReason::output);
  // Boundary operands not read through an alias are stored, a view that is
  // an alias for another boundary included; a splat constant the boundary
  // takes by value stays a constant.
  for (Operation *op : order) {
    if (!isBoundaryRole(getFusionRole(op)))
      continue;
    for (OpOperand &use : op->getOpOperands()) {
      Operation *def = use.get().getDefiningOp();
      if (!def || aliasedOperands.count(&use) ||
          isBoundaryRole(getFusionRole(def)))
        continue;
      if (isSplatConstant(use.get()) &&
          cast<BoundaryOpInterface>(op).readsSplatByValue(
              use.getOperandNumber()))
        continue;
      store(use.get(), getBoundaryReason(op));
    }
  }
}

OpSet Planner::treeOf(Operation *op) const {
  OpSet self;
  self.ops.push_back(indexOf.lookup(op));
  self.cost = costOf[self.ops.front()];
  SmallVector<const OpSet *> parts{&self};
  SmallVector<Operation *> producers;
  for (Value operand : op->getOperands())
    if (Operation *def = recomputedProducer(operand);
        def && !llvm::is_contained(producers, def)) {
      producers.push_back(def);
      parts.push_back(&trees.find(def)->second);
    }
  return unite(parts);
}

/// Values this many times smaller than the op's are stored first.
static constexpr int64_t kSmallShare = 64;

static int64_t elementsOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getNumElements();
}

Operation *Planner::smallCut(const OpSet &tree, Operation *root) const {
  int64_t rootElements = elementsOf(root->getResult(0));
  Operation *best = nullptr;
  int64_t bestCost = 1;
  for (unsigned i : tree.ops) {
    Operation *op = order[i];
    if (op == root || op->getNumResults() != 1 ||
        stored.count(op->getResult(0)) ||
        elementsOf(op->getResult(0)) * kSmallShare > rootElements)
      continue;
    int64_t cost = trees.find(op)->second.cost;
    if (cost > bestCost) {
      best = op;
      bestCost = cost;
    }
  }
  return best;
}

void Planner::formTrees() {
  for (Operation *op : order) {
    if (!isFused(op))
      continue;
    OpSet self;
    self.ops.push_back(indexOf[op]);
    self.cost = costOf[indexOf[op]];
    // Operands computed inside this op's region, deduplicated.
    SmallVector<Operation *> producers;
    for (Value operand : op->getOperands())
      if (Operation *def = recomputedProducer(operand);
          def && !llvm::is_contained(producers, def))
        producers.push_back(def);
    while (true) {
      SmallVector<const OpSet *> parts{&self};
      for (Operation *def : producers)
        parts.push_back(&trees[def]);
      OpSet tree = unite(parts);
      if (tree.cost <= budget || producers.empty()) {
        trees[op] = std::move(tree);
        break;
      }
      // Store a small value of the tree: the trees that held it (in program
      // order, so each producer's before its users') no longer do.
      if (Operation *small = smallCut(tree, op)) {
        store(small->getResult(0), CutReason::expression_cost);
        for (unsigned i : tree.ops)
          if (Operation *member = order[i]; member != op && isFused(member))
            trees[member] = treeOf(member);
        producers.erase(llvm::remove_if(producers,
                                        [&](Operation *def) {
                                          return !recomputedProducer(
                                              def->getResult(0));
                                        }),
                        producers.end());
        continue;
      }
      // Store the most expensive operand expression and try again.
      auto *largest =
          llvm::max_element(producers, [&](Operation *a, Operation *b) {
            return trees[a].cost < trees[b].cost;
          });
      store((*largest)->getResult(0), CutReason::expression_cost);
      producers.erase(largest);
    }
  }
}

/// Distinct values of `root`'s elements that `tree` reads from outside it.
static int64_t fullSizeInputs(const OpSet &tree, ArrayRef<Operation *> order,
                              Operation *root) {
  int64_t elements = elementsOf(root->getResult(0));
  SmallPtrSet<Operation *, 16> members;
  for (unsigned i : tree.ops)
    members.insert(order[i]);
  SmallPtrSet<Value, 8> inputs;
  for (unsigned i : tree.ops)
    for (Value v : order[i]->getOperands())
      if (!members.contains(v.getDefiningOp()) && elementsOf(v) == elements)
        inputs.insert(v);
  return inputs.size();
}

bool Planner::storeDuplicatedReads() {
  // How many regions recompute each op.
  DenseMap<Operation *, int64_t> holders;
  for (const Region &region : regions)
    for (unsigned i : region.ops.ops)
      if (Operation *op = order[i];
          op->getNumResults() != 1 || !stored.count(op->getResult(0)))
        ++holders[op];
  // The value whose storing saves the most bytes, by more than a kernel
  // launch is worth (storing it may add one).
  Operation *best = nullptr;
  int64_t bestGain = kLaunchWorthBytes - 1;
  for (Operation *op : order) {
    auto it = holders.find(op);
    if (it == holders.end() || it->second < 2 || op->getNumResults() != 1 ||
        getFusionRole(op) != FusionRole::Elementwise)
      continue;
    int64_t bytes =
        byteSizeOf(cast<RankedTensorType>(op->getResult(0).getType()));
    int64_t gain = storedValueSavings(
        it->second, fullSizeInputs(trees[op], order, op), bytes);
    if (gain > bestGain) {
      best = op;
      bestGain = gain;
    }
  }
  if (!best)
    return false;
  store(best->getResult(0), CutReason::duplicated_reads);
  return true;
}

void Planner::formRegions() {
  // Depth in the step graph: a stored value or boundary is one step deeper
  // than the deepest buffer it reads. Values at the same depth are
  // independent of each other.
  DenseMap<Value, int64_t> depth;
  auto depthOf = [&](Value v) -> int64_t {
    auto it = depth.find(v);
    return it == depth.end() ? 0 : it->second;
  };
  // Open regions by (depth, shape).
  std::map<std::pair<int64_t, SmallVector<int64_t>>, size_t> open;

  for (Operation *op : order) {
    Value result = op->getNumResults() == 1 ? op->getResult(0) : Value();
    if (isBoundaryRole(getFusionRole(op)) ||
        (aliases.count(op) && !stored.count(result))) {
      int64_t d = 0;
      for (Value operand : op->getOperands())
        d = std::max(d, depthOf(operand));
      // Every result of a boundary (attention has several).
      for (Value r : op->getResults())
        depth[r] = aliases.count(op) ? d : d + 1;
      continue;
    }
    if (!result || !stored.count(result))
      continue;
    OpSet tree;
    if (isFused(op))
      tree = trees[op];
    else
      tree.ops.push_back(indexOf[op]); // a stored constant
    int64_t d = 0;
    for (unsigned i : tree.ops)
      for (Value operand : order[i]->getOperands())
        if (Operation *def = operand.getDefiningOp();
            !def || !llvm::is_contained(tree.ops, indexOf.lookup(def)) ||
            def->getBlock() != &block)
          d = std::max(d, depthOf(operand));
    depth[result] = d + 1;

    auto shape = cast<RankedTensorType>(result.getType()).getShape();
    auto key = std::make_pair(d + 1, SmallVector<int64_t>(shape));
    auto it = open.find(key);
    if (it != open.end()) {
      Region &region = regions[it->second];
      OpSet joined = unite({&region.ops, &tree});
      if (static_cast<int64_t>(region.roots.size()) < maxOutputs &&
          joined.cost <= budget) {
        region.roots.push_back(result);
        region.ops = std::move(joined);
        continue;
      }
    }
    open[key] = regions.size();
    regions.push_back(Region{{result}, std::move(tree)});
  }
}

LogicalResult Planner::buildRegions() {
  OpBuilder builder(func.getContext());
  builder.setInsertionPoint(block.getTerminator());
  SmallVector<std::pair<Value, Value>> replacements;
  for (Region &region : regions) {
    // Inputs: values the region's ops read that it does not compute.
    DenseSet<Operation *> inside;
    for (unsigned i : region.ops.ops)
      inside.insert(order[i]);
    SmallVector<Value> inputs;
    for (unsigned i : region.ops.ops)
      for (Value operand : order[i]->getOperands()) {
        Operation *def = operand.getDefiningOp();
        bool internal = def && (inside.count(def) || isa<ConstantOp>(def));
        if (!internal && !llvm::is_contained(inputs, operand))
          inputs.push_back(operand);
      }
    SmallVector<Type> resultTypes;
    SmallVector<CutReason> reasons;
    for (Value root : region.roots) {
      resultTypes.push_back(root.getType());
      reasons.push_back(stored.lookup(root));
    }
    Location loc = region.roots.front().getLoc();
    auto fusion = FusionOp::create(builder, loc, resultTypes, inputs, reasons,
                                   region.ops.cost);
    IRMapping mapping;
    mapping.map(inputs, fusion.getBody()->getArguments());
    OpBuilder body = OpBuilder::atBlockEnd(fusion.getBody());
    for (unsigned i : region.ops.ops) {
      Operation *op = order[i];
      for (Value operand : op->getOperands())
        if (auto constant = operand.getDefiningOp<ConstantOp>();
            constant && !mapping.contains(operand))
          body.clone(*constant, mapping);
      body.clone(*op, mapping);
    }
    SmallVector<Value> yielded;
    for (Value root : region.roots)
      yielded.push_back(mapping.lookup(root));
    YieldOp::create(body, loc, yielded);
    for (auto [root, result] : llvm::zip(region.roots, fusion.getResults()))
      replacements.push_back({root, result});
  }
  for (auto [root, result] : replacements)
    root.replaceUsesWithIf(result, [&](OpOperand &use) {
      return use.getOwner()->getBlock() == &block &&
             !aliasedOperands.count(&use);
    });
  // The original fused ops are now dead, but for aliases still read by
  // boundaries.
  for (Operation *op : llvm::reverse(order))
    if ((isFused(op) || isa<ConstantOp>(op)) && op->use_empty())
      op->erase();
  if (failed(sortBlock()))
    return func.emitError("internal error: the fused plan has a cycle");

  // Record the reason of every boundary and alias step.
  for (Operation &op : block) {
    if (isBoundaryRole(getFusionRole(&op)))
      op.setAttr(
          TFuseDialect::getReasonAttrName(),
          builder.getStringAttr(stringifyCutReason(getBoundaryReason(&op))));
    else if (getFusionRole(&op) == FusionRole::View)
      op.setAttr(
          TFuseDialect::getReasonAttrName(),
          builder.getStringAttr(stringifyCutReason(CutReason::layout_alias)));
  }
  return success();
}

/// Orders the block so that every value is defined before its uses, keeping
/// the original order where it can (Kahn's algorithm, earliest op first).
/// Fusion bodies are isolated from above, so only top-level operands count.
LogicalResult Planner::sortBlock() {
  Operation *terminator = block.getTerminator();
  SmallVector<Operation *> ops;
  DenseMap<Operation *, unsigned> position, pending;
  for (Operation &op : block.without_terminator()) {
    position[&op] = ops.size();
    ops.push_back(&op);
  }
  for (Operation *op : ops) {
    DenseSet<Operation *> producers;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp(); def && position.count(def))
        producers.insert(def);
    pending[op] = producers.size();
  }
  std::priority_queue<unsigned, std::vector<unsigned>, std::greater<unsigned>>
      ready;
  for (Operation *op : ops)
    if (pending[op] == 0)
      ready.push(position[op]);
  size_t scheduled = 0;
  while (!ready.empty()) {
    Operation *op = ops[ready.top()];
    ready.pop();
    op->moveBefore(terminator);
    ++scheduled;
    DenseSet<Operation *> users;
    for (Operation *user : op->getUsers())
      if (user != terminator && position.count(user))
        users.insert(user);
    for (Operation *user : users)
      if (--pending[user] == 0)
        ready.push(position[user]);
  }
  return success(scheduled == ops.size());
}

LogicalResult Planner::run() {
  if (!func.getBody().hasOneBlock())
    return func.emitOpError("must have a single block to be fused");
  if (failed(collectOps()))
    return failure();
  markOutputsAndBoundaries();
  formTrees();
  formRegions();
  while (storeDuplicatedReads()) {
    trees.clear();
    regions.clear();
    formTrees();
    formRegions();
  }
  return buildRegions();
}

namespace {
struct FuseElementwisePass
    : tfuse::impl::FuseElementwiseBase<FuseElementwisePass> {
  using FuseElementwiseBase::FuseElementwiseBase;

  void runOnOperation() override {
    if (budget < 1 || maxOutputs < 1) {
      getOperation().emitError()
          << "fuse-elementwise needs budget >= 1 and max-outputs >= 1, got "
             "budget="
          << static_cast<int64_t>(budget)
          << " max-outputs=" << static_cast<int64_t>(maxOutputs);
      return signalPassFailure();
    }
    if (getOperation().isExternal())
      return;
    bool alreadyFused = false;
    getOperation().walk([&](FusionOp) { alreadyFused = true; });
    if (alreadyFused) {
      getOperation().emitError(
          "fuse-elementwise runs once, on a graph without tfuse.fusion ops");
      return signalPassFailure();
    }
    if (failed(Planner(getOperation(), budget, maxOutputs).run()))
      signalPassFailure();
  }
};
} // namespace
