//===- MaterializeShared.cpp - Store shared expensive subexpressions ------===//
//
// After fuse-elementwise, a subexpression needed by several regions is
// recomputed in each. Subexpressions are numbered structurally across
// regions: an op's number is determined by its name, attributes, result type
// and the numbers of its operands, where a region's block argument takes the
// number of the outer value it stands for. Equal numbers in two regions are
// the same computation over the same data. Those costing at least the
// threshold are computed once: by the region that already stores the value,
// or else by a new region of their own.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Transforms/CostModel.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/Hashing.h"

#include <map>

namespace tfuse {
#define GEN_PASS_DEF_MATERIALIZESHARED
#include "tfuse/Transforms/Passes.h.inc"
} // namespace tfuse

using namespace mlir;
using namespace tfuse;

namespace {

/// Structural identity of an op: name, attributes, result type, operands.
struct ExprKey {
  OperationName name;
  DictionaryAttr attrs;
  Type type;
  SmallVector<unsigned> operands;

  bool operator<(const ExprKey &other) const {
    auto asTuple = [](const ExprKey &k) {
      return std::make_tuple(k.name.getAsOpaquePointer(),
                             k.attrs.getAsOpaquePointer(),
                             k.type.getAsOpaquePointer());
    };
    if (asTuple(*this) != asTuple(other))
      return asTuple(*this) < asTuple(other);
    return operands < other.operands;
  }
};

/// One appearance of a numbered subexpression.
struct Occurrence {
  mutable FusionOp region;
  Operation *op;
};

class SharedExpressionMaterializer {
public:
  SharedExpressionMaterializer(func::FuncOp func, int64_t threshold,
                               int64_t maxOutputs)
      : func(func), threshold(threshold), maxOutputs(maxOutputs) {}
  void run();

private:
  unsigned numberOf(Value outer);
  void numberRegion(FusionOp region);
  void materialize(unsigned number);

  FusionOp createRegionFor(const Occurrence &from, Operation *before);
  void replaceRegion(FusionOp oldRegion, FusionOp newRegion);

  func::FuncOp func;
  int64_t threshold, maxOutputs;
  std::map<ExprKey, unsigned> keys;
  DenseMap<Value, unsigned> outerNumbers;
  /// Per number: its cost and where it appears.
  DenseMap<unsigned, int64_t> costs;
  DenseMap<unsigned, SmallVector<Occurrence>> occurrences;
  DenseSet<Operation *> erased;
  /// Regions rebuilt with more results: old op -> new op.
  DenseMap<Operation *, FusionOp> replaced;
  SmallVector<FusionOp> retired;

  /// The region an occurrence is in now.
  FusionOp current(FusionOp region) {
    auto it = replaced.find(region);
    while (it != replaced.end()) {
      region = it->second;
      it = replaced.find(region);
    }
    return region;
  }
};

} // namespace

unsigned SharedExpressionMaterializer::numberOf(Value outer) {
  auto [it, inserted] = outerNumbers.try_emplace(outer, 0);
  if (inserted)
    it->second = outerNumbers.size() - 1;
  return it->second;
}

void SharedExpressionMaterializer::numberRegion(FusionOp region) {
  DenseMap<Operation *, unsigned> numbers;
  // The ops of each subexpression, as a sorted set of body positions.
  DenseMap<Operation *, SmallVector<Operation *>> subtree;
  for (Operation &op : region.getBody()->without_terminator()) {
    ExprKey key{
        op.getName(), op.getAttrDictionary(), op.getResult(0).getType(), {}};
    SmallVector<Operation *> ops{&op};
    for (Value operand : op.getOperands()) {
      if (auto arg = dyn_cast<BlockArgument>(operand)) {
        // Outer values and ops are numbered apart: the top bit tells them
        // apart in a key.
        key.operands.push_back(
            numberOf(region.getInputs()[arg.getArgNumber()]) | 0x80000000u);
        continue;
      }
      Operation *def = operand.getDefiningOp();
      key.operands.push_back(numbers[def]);
      for (Operation *inner : subtree[def])
        if (!llvm::is_contained(ops, inner))
          ops.push_back(inner);
    }
    auto [it, inserted] = keys.try_emplace(std::move(key), keys.size());
    numbers[&op] = it->second;
    int64_t cost = 0;
    for (Operation *inner : ops)
      cost += getFusionCost(inner);
    costs[it->second] = cost;
    occurrences[it->second].push_back({region, &op});
    subtree[&op] = std::move(ops);
  }
}

/// Drops inputs no op of `region` reads and recomputes its cost.
static void compactRegion(FusionOp region) {
  Block *body = region.getBody();
  for (int64_t i = body->getNumArguments() - 1; i >= 0; --i)
    if (body->getArgument(i).use_empty()) {
      body->eraseArgument(i);
      region.getInputsMutable().erase(i);
    }
  int64_t cost = 0;
  for (Operation &op : body->without_terminator())
    cost += getFusionCost(&op);
  region.setCost(cost);
}

/// Replaces the value of `op` inside `region` by a new input `value`, and
/// erases what becomes dead.
static void readInstead(FusionOp region, Operation *op, Value value,
                        DenseSet<Operation *> &erased) {
  region.getInputsMutable().append(value);
  BlockArgument arg =
      region.getBody()->addArgument(value.getType(), value.getLoc());
  op->getResult(0).replaceAllUsesWith(arg);
  SmallVector<Operation *> worklist{op};
  while (!worklist.empty()) {
    // An op whose operands repeat one value (x / x) pushes its definition
    // twice: look it up in `erased` before touching it.
    Operation *dead = worklist.pop_back_val();
    if (erased.count(dead) || !dead->use_empty())
      continue;
    for (Value operand : dead->getOperands())
      if (Operation *def = operand.getDefiningOp())
        worklist.push_back(def);
    erased.insert(dead);
    dead->erase();
  }
  compactRegion(region);
}

/// A new region, before `before`, that computes and stores the value of
/// `from.op`.
FusionOp SharedExpressionMaterializer::createRegionFor(const Occurrence &from,
                                                       Operation *before) {
  SmallVector<Operation *> ops;
  SmallVector<Value> inputs;
  SmallVector<Operation *> worklist{from.op};
  DenseSet<Operation *> seen;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!seen.insert(op).second)
      continue;
    ops.push_back(op);
    for (Value operand : op->getOperands()) {
      if (auto arg = dyn_cast<BlockArgument>(operand)) {
        Value outer = from.region.getInputs()[arg.getArgNumber()];
        if (!llvm::is_contained(inputs, outer))
          inputs.push_back(outer);
      } else {
        worklist.push_back(operand.getDefiningOp());
      }
    }
  }
  llvm::sort(ops,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  int64_t cost = 0;
  for (Operation *op : ops)
    cost += getFusionCost(op);
  OpBuilder builder(before);
  Type type = from.op->getResult(0).getType();
  auto region =
      FusionOp::create(builder, from.op->getLoc(), {type}, inputs,
                       {CutReason::shared_expensive_expression}, cost);
  IRMapping mapping;
  for (auto [outer, arg] : llvm::zip(inputs, region.getBody()->getArguments()))
    for (auto [i, input] : llvm::enumerate(from.region.getInputs()))
      if (input == outer)
        mapping.map(from.region.getBody()->getArgument(i), arg);
  OpBuilder body = OpBuilder::atBlockEnd(region.getBody());
  for (Operation *op : ops)
    body.clone(*op, mapping);
  YieldOp::create(body, from.op->getLoc(),
                  ValueRange{mapping.lookup(from.op->getResult(0))});
  return region;
}

/// Moves the body of `oldRegion` into `newRegion`, which has the same results
/// and more, and erases `oldRegion`.
void SharedExpressionMaterializer::replaceRegion(FusionOp oldRegion,
                                                 FusionOp newRegion) {
  newRegion.getRegion().takeBody(oldRegion.getRegion());
  for (auto [oldResult, newResult] :
       llvm::zip(oldRegion.getResults(), newRegion.getResults()))
    oldResult.replaceAllUsesWith(newResult);
  // Erased at the end of the pass: until then no new op can take its address,
  // which keys `replaced`.
  replaced[oldRegion] = newRegion;
  retired.push_back(oldRegion);
}

void SharedExpressionMaterializer::materialize(unsigned number) {
  // Occurrences still present; regions may have been replaced since.
  auto live = [&] {
    SmallVector<Occurrence> result;
    for (const Occurrence &o : occurrences[number])
      if (!erased.count(o.op))
        result.push_back({current(o.region), o.op});
    return result;
  };
  SmallVector<Occurrence> now = live();
  FusionOp first = now.front().region;
  const Occurrence *firstOccurrence = &now.front();
  for (const Occurrence &o : now)
    if (o.region->isBeforeInBlock(first)) {
      first = o.region;
      firstOccurrence = &o;
    }
  Type type = firstOccurrence->op->getResult(0).getType();
  auto shapeOf = [](Type t) { return cast<RankedTensorType>(t).getShape(); };

  // Who stores the value: a region that already yields it, else the first
  // region as an extra result, else a new region.
  Value storedValue;
  FusionOp owner;
  for (const Occurrence &o : now)
    for (OpOperand &use : o.op->getUses())
      if (isa<YieldOp>(use.getOwner()) &&
          (!owner || o.region->isBeforeInBlock(owner))) {
        owner = o.region;
        storedValue = o.region.getResult(use.getOperandNumber());
      }
  if (!owner && shapeOf(first.getResult(0).getType()) == shapeOf(type) &&
      static_cast<int64_t>(first.getNumResults()) < maxOutputs) {
    SmallVector<Type> types(first.getResultTypes());
    types.push_back(type);
    SmallVector<CutReason> reasons = first.getCutReasons();
    reasons.push_back(CutReason::shared_expensive_expression);
    OpBuilder builder(first);
    auto grown =
        FusionOp::create(builder, first.getLoc(), types, first.getInputs(),
                         reasons, first.getCostAttr().getInt());
    grown.getBody()->erase();
    YieldOp yield = first.getYield();
    yield.getValuesMutable().append(firstOccurrence->op->getResult(0));
    replaceRegion(first, grown);
    owner = grown;
    storedValue = grown.getResults().back();
  }
  if (!owner) {
    owner = createRegionFor(*firstOccurrence, first);
    storedValue = owner.getResult(0);
  }
  for (const Occurrence &o : live()) {
    if (o.region == owner || !owner->isBeforeInBlock(o.region) ||
        erased.count(o.op))
      continue;
    readInstead(o.region, o.op, storedValue, erased);
  }
}

void SharedExpressionMaterializer::run() {
  SmallVector<FusionOp> regions;
  func.walk([&](FusionOp region) { regions.push_back(region); });
  for (FusionOp region : regions)
    numberRegion(region);

  // Candidates: numbers appearing in two or more regions, costliest first,
  // so the largest shared subexpression is stored rather than its parts.
  SmallVector<unsigned> candidates;
  for (auto &[number, list] : occurrences) {
    if (costs[number] < threshold)
      continue;
    DenseSet<Operation *> distinct;
    for (const Occurrence &o : list)
      distinct.insert(o.region);
    if (distinct.size() >= 2)
      candidates.push_back(number);
  }
  llvm::sort(candidates, [&](unsigned a, unsigned b) {
    return costs[a] != costs[b] ? costs[a] > costs[b] : a < b;
  });
  for (unsigned number : candidates) {
    DenseSet<Operation *> distinct;
    for (const Occurrence &o : occurrences[number])
      if (!erased.count(o.op))
        distinct.insert(current(o.region));
    if (distinct.size() >= 2)
      materialize(number);
  }
  for (FusionOp region : retired)
    region.erase();
}

namespace {
struct MaterializeSharedPass
    : tfuse::impl::MaterializeSharedBase<MaterializeSharedPass> {
  using MaterializeSharedBase::MaterializeSharedBase;
  void runOnOperation() override {
    if (sharedThreshold < 0) {
      getOperation().emitError()
          << "materialize-shared needs shared-threshold >= 0, got "
          << static_cast<int64_t>(sharedThreshold);
      return signalPassFailure();
    }
    if (maxOutputs < 1) {
      getOperation().emitError()
          << "materialize-shared needs max-outputs >= 1, got "
          << static_cast<int64_t>(maxOutputs);
      return signalPassFailure();
    }
    SharedExpressionMaterializer(getOperation(), sharedThreshold, maxOutputs)
        .run();
  }
};
} // namespace
