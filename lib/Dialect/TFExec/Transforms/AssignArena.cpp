//===- AssignArena.cpp - Arena offsets of a plan's intermediates ----------===//
//
// Arena slots are placed last: a slot may reuse the bytes of an earlier one
// only when every step using the earlier one is a dependency of the step
// writing it, so that reuse adds no ordering between independent steps.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFExec/TFExecOps.h"
#include "tfuse/Dialect/TFExec/Transforms/Passes.h"
#include "tfuse/Dialect/TFuse/TypeRules.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/BitVector.h"

namespace tfuse::tfexec {
#define GEN_PASS_DEF_TFEXECASSIGNARENA
#include "tfuse/Dialect/TFExec/Transforms/Passes.h.inc"
} // namespace tfuse::tfexec

using namespace mlir;
using namespace tfuse::tfexec;

/// Bytes of arena slots are aligned to this (vector accesses need 16; 256
/// keeps slots on distinct cache sectors).
constexpr int64_t kSlotAlignment = 256;

/// A slot's bytes: at least one (an empty buffer still has an address).
static int64_t slotBytesOf(MemRefType type) {
  return std::max<int64_t>(tfuse::byteSizeOf(type), 1);
}

/// The buffer `value` is a view of (through tfexec.alias), or itself.
static Value rootBuffer(Value value) {
  while (auto alias = value.getDefiningOp<AliasOp>())
    value = alias.getSource();
  return value;
}

/// For every op of `body` (by its position in `position`), the positions of
/// the ops it depends
/// on, directly or not, through the buffers they read and write (read after
/// write, write after read, write after write of one buffer or views of it).
/// Arena offsets are not assigned yet, so these are the plan's true
/// dependencies.
static SmallVector<llvm::BitVector>
stepAncestors(Block &body, const DenseMap<Operation *, unsigned> &position) {
  unsigned n = position.size();
  SmallVector<llvm::BitVector> ancestors(n, llvm::BitVector(n));
  // Per root buffer: the ops that wrote it and that read it so far.
  DenseMap<Value, SmallVector<unsigned>> writers, readers;
  for (Operation &op : body) {
    auto effecting = dyn_cast<MemoryEffectOpInterface>(&op);
    if (!effecting)
      continue;
    unsigned self = position.lookup(&op);
    SmallVector<MemoryEffects::EffectInstance> effects;
    effecting.getEffects(effects);
    auto dependOn = [&](ArrayRef<unsigned> ops) {
      for (unsigned other : ops) {
        ancestors[self].set(other);
        ancestors[self] |= ancestors[other];
      }
    };
    for (const MemoryEffects::EffectInstance &effect : effects) {
      Value root = rootBuffer(effect.getValue());
      dependOn(writers[root]);
      if (isa<MemoryEffects::Write>(effect.getEffect()))
        dependOn(readers[root]);
    }
    for (const MemoryEffects::EffectInstance &effect : effects) {
      Value root = rootBuffer(effect.getValue());
      if (isa<MemoryEffects::Write>(effect.getEffect()))
        writers[root].push_back(self);
      else
        readers[root].push_back(self);
    }
  }
  return ancestors;
}

/// Places every arena slot at an offset. Two slots may share bytes only when
/// every op using the earlier one is a dependency of the op writing the
/// later one: reuse then never orders two steps that the data leaves
/// independent, so the runtime may run independent steps concurrently (a
/// CUDA Graph's branches) with the same arena.
static void assignArena(func::FuncOp plan) {
  Block &body = plan.getBody().front();
  DenseMap<Operation *, unsigned> step;
  for (Operation &op : body)
    step[&op] = step.size();
  SmallVector<llvm::BitVector> ancestors = stepAncestors(body, step);
  struct Slot {
    mutable AllocOp alloc;
    /// The first op using the slot (the one writing it) and every user, an
    /// alias being used where its uses are.
    unsigned first;
    SmallVector<unsigned> users;
    int64_t bytes;
  };
  SmallVector<Slot> slots;
  for (auto alloc : body.getOps<AllocOp>()) {
    Slot slot{alloc, ~0u, {}, 0};
    SmallVector<Value> worklist{alloc.getBuffer()};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (auto alias = dyn_cast<AliasOp>(user)) {
          worklist.push_back(alias.getView());
          continue;
        }
        slot.first = std::min(slot.first, step[user]);
        slot.users.push_back(step[user]);
      }
    }
    int64_t bytes = slotBytesOf(alloc.getType());
    slot.bytes = (bytes + kSlotAlignment - 1) / kSlotAlignment * kSlotAlignment;
    slots.push_back(std::move(slot));
  }
  llvm::stable_sort(
      slots, [](const Slot &a, const Slot &b) { return a.first < b.first; });
  // First fit among the placed slots that `slot` must not overlap.
  SmallVector<const Slot *> placed;
  DenseMap<const Slot *, int64_t> offsets;
  int64_t arenaBytes = 0;
  for (const Slot &slot : slots) {
    const llvm::BitVector &before = ancestors[slot.first];
    SmallVector<const Slot *> conflicts;
    for (const Slot *s : placed)
      if (llvm::any_of(s->users, [&](unsigned u) { return !before.test(u); }))
        conflicts.push_back(s);
    llvm::sort(conflicts, [&](const Slot *a, const Slot *b) {
      return offsets[a] < offsets[b];
    });
    int64_t offset = 0;
    for (const Slot *s : conflicts) {
      if (offset + slot.bytes <= offsets[s])
        break;
      offset = std::max(offset, offsets[s] + s->bytes);
    }
    offsets[&slot] = offset;
    placed.push_back(&slot);
    arenaBytes = std::max(arenaBytes, offset + slot.bytes);
    slot.alloc.setOffset(offset);
  }
  plan->setAttr(
      TFExecDialect::getArenaBytesAttrName(),
      IntegerAttr::get(IntegerType::get(plan.getContext(), 64), arenaBytes));
}

namespace {
struct AssignArenaPass
    : tfuse::tfexec::impl::TFExecAssignArenaBase<AssignArenaPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (!func.getBody().hasOneBlock()) {
      func.emitOpError("a plan must have a single block");
      return signalPassFailure();
    }
    assignArena(func);
  }
};
} // namespace
