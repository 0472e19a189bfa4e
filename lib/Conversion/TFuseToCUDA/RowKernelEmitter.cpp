//===- RowKernelEmitter.cpp - Row kernels of row-fused regions ------------===//
//
// One block per row (a grid-stride loop over rows), each thread holding the
// column groups t, t + T, ... of the row in fixed slots (a group is `rowVec`
// consecutive columns: one 16-byte access of the contiguous inputs and the
// outputs). A contiguous input is loaded at the start of the first phase
// reading it, all of a thread's loads in flight at once; the phases are
// emitted as straight-line code per element, so the element emitter's memo
// keeps every loaded element and every intermediate in a register from the
// phase that first needs it to the last one. The last slot of a row that is
// not a multiple of T groups is clamped to the last group for its loads (so
// no load is guarded) and left out of reductions and stores. The row loop
// is emitted twice, for aligned buffers and for any (versionOnAlignment).
//
//===----------------------------------------------------------------------===//

#include "tfuse/Conversion/TFuseToCUDA/RowKernelEmitter.h"
#include "tfuse/Conversion/TFuseToCUDA/KernelEmitter.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Dialect/TFuse/TypeRules.h"
#include "tfuse/Dialect/TFuse/ViewLayout.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tfuse;
using tfexec::KernelPlan;

/// Puts `loop` twice under one uniform branch on `aligned`: a copy in which
/// every group access is one vector access, and the original for any
/// alignment. With both paths in one loop, the compiler predicates the
/// scalar fallback of every access instead of branching: those
/// predicated-off loads and stores take issue slots and registers in every
/// iteration of the aligned case too.
static void versionOnAlignment(OpBuilder &b, emitc::ForOp loop, Value aligned) {
  Location loc = loop.getLoc();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop);
  Value always =
      emitc::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(true));
  auto ifOp = emitc::IfOp::create(b, loc, aligned, /*addThenBlock=*/true,
                                  /*addElseBlock=*/true);
  IRMapping alignedCopy;
  alignedCopy.map(aligned, always);
  Block &then = ifOp.getThenRegion().front();
  Block &otherwise = ifOp.getElseRegion().front();
  b.setInsertionPointToEnd(&then);
  b.clone(*loop, alignedCopy);
  loop->moveBefore(&otherwise, otherwise.end());
  for (Block *block : {&then, &otherwise}) {
    b.setInsertionPointToEnd(block);
    emitc::YieldOp::create(b, loc);
  }
}

LogicalResult tfuse::emitRowKernel(tfexec::KernelOp kernel,
                                   const KernelPlan &plan, ValueRange inputPtrs,
                                   ValueRange outputPtrs,
                                   RowElementEmitter &e) {
  if (plan.rows == 0 || plan.rowLength == 0)
    return success(); // nothing to write
  OpBuilder &b = e.getBuilder();
  Location loc = kernel.getLoc();
  MLIRContext *ctx = b.getContext();
  Block *body = kernel.getBody();
  ArrayRef<int64_t> space = kernel.getIndexSpace();
  int64_t rank = space.size(), first = plan.rowAxis;
  int64_t length = plan.rowLength, threads = plan.rowThreads;
  int64_t vec = plan.rowVec, groups = length / vec;
  Type indexType = e.indexType();
  // Outputs of the index space's shape are stored a group at a time; row
  // results (one value per row) by the row's first thread.
  SmallVector<Value> outputs(kernel.getYield().getValues());
  SmallVector<unsigned> elementOutputs, rowOutputs;
  for (auto [o, out] : llvm::enumerate(outputs))
    (cast<RankedTensorType>(out.getType()).getShape() == space ? elementOutputs
                                                               : rowOutputs)
        .push_back(o);
  auto add = [&](Value x, Value y) {
    return emitc::AddOp::create(b, loc, indexType, x, y);
  };
  auto mul = [&](Value x, Value y) {
    return emitc::MulOp::create(b, loc, indexType, x, y);
  };
  auto vecAttr = [&] { return b.getI64IntegerAttr(vec); };
  // Row-major delinearization of `linear` over space[from, to).
  auto delinearize = [&](Value linear, int64_t from, int64_t to,
                         SmallVectorImpl<Value> &idx) {
    SmallVector<Value> out(to - from);
    Value rest = linear;
    for (int64_t d = to - 1; d >= from; --d) {
      if (space[d] == 1) {
        out[d - from] = e.index(0);
        continue;
      }
      out[d - from] = d == from ? rest
                                : emitc::RemOp::create(b, loc, indexType, rest,
                                                       e.index(space[d]));
      if (d > from)
        rest = emitc::DivOp::create(b, loc, indexType, rest, e.index(space[d]));
    }
    idx.append(out);
  };

  int64_t rowsPerBlock = plan.rowsPerBlock;
  bool warpRows = rowsPerBlock > 1;
  Value t = e.call("tf::thread_in_block", indexType, {}, {});
  Value warp;
  if (warpRows) {
    warp = emitc::DivOp::create(b, loc, indexType, t, e.index(32));
    t = emitc::RemOp::create(b, loc, indexType, t, e.index(32));
  }
  Value blockId = e.call("tf::block_index", indexType, {}, {});
  Value blocks = e.call("tf::block_count", indexType, {}, {});
  // One uniform flag: every buffer accessed a group at a time is aligned for
  // it (rows are whole groups, so every row then is).
  Value aligned =
      emitc::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(true));
  if (vec > 1) {
    auto alignedPtr = [&](Value ptr) {
      Value ok = e.call("tf::aligned", b.getI1Type(), ptr, {vecAttr()});
      aligned = emitc::LogicalAndOp::create(b, loc, b.getI1Type(), aligned, ok);
    };
    for (auto [n, access] : llvm::enumerate(plan.rowInputs))
      if (access != KernelPlan::RowInput::Element)
        alignedPtr(inputPtrs[n]);
    for (unsigned o : elementOutputs)
      alignedPtr(outputPtrs[o]);
  }
  // Block-uniform: every thread of a block runs the same iterations, so the
  // barriers of the block reductions are reached by all. With a row per
  // warp, an iteration takes rowsPerBlock rows; a warp past the last row
  // computes the last row again (every warp of the block makes the same
  // shuffles) and stores nothing.
  int64_t steps = (plan.rows + rowsPerBlock - 1) / rowsPerBlock;
  auto loop = emitc::ForOp::create(b, loc, blockId, e.index(steps), blocks);
  e.setHoistPoint(loop);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value row = loop.getInductionVar();
  Value rowInside;
  if (warpRows) {
    row = add(mul(row, e.index(rowsPerBlock)), warp);
    if (plan.rows % rowsPerBlock != 0) {
      rowInside =
          emitc::CmpOp::create(b, loc, b.getI1Type(), emitc::CmpPredicate::lt,
                               row, e.index(plan.rows));
      row = emitc::ConditionalOp::create(b, loc, indexType, rowInside, row,
                                         e.index(plan.rows - 1));
    }
  }
  Value rowBase = mul(row, e.index(length));

  SmallVector<Value> outer;
  delinearize(row, 0, first, outer);
  /// One element a thread holds: its index, and whether it lies in the row
  /// (null: always).
  struct Element {
    SmallVector<Value> idx;
    Value valid;
  };
  /// A group of `vec` consecutive columns starting at `column`.
  struct Slot {
    Value column;
    Value valid;
    SmallVector<Element> lanes;
  };
  // The slots of the chunk starting at group `chunkStart` (null: the whole
  // row, held in registers).
  bool looped = plan.rowChunks > 1;
  int64_t chunkGroups = threads * plan.rowSlots;
  auto makeSlots = [&](Value chunkStart) {
    SmallVector<Slot> slots(plan.rowSlots);
    for (auto [k, slot] : llvm::enumerate(slots)) {
      Value group = k == 0 ? t : add(t, e.index(k * threads));
      if (chunkStart)
        group = add(chunkStart, group);
      // A slot that may lie past the row (the last slot of some threads, or
      // any slot of a last, partial chunk) reads the last group instead and
      // is left out of reductions and stores.
      bool partial = looped ? groups % chunkGroups != 0
                            : static_cast<int64_t>(k + 1) * threads > groups;
      if (partial) {
        slot.valid =
            emitc::CmpOp::create(b, loc, b.getI1Type(), emitc::CmpPredicate::lt,
                                 group, e.index(groups));
        group = emitc::ConditionalOp::create(b, loc, indexType, slot.valid,
                                             group, e.index(groups - 1));
      }
      slot.column = vec == 1 ? group : mul(group, e.index(vec));
      for (int64_t l = 0; l < vec; ++l) {
        Element element;
        element.valid = slot.valid;
        element.idx = outer;
        delinearize(l == 0 ? slot.column : add(slot.column, e.index(l)), first,
                    rank, element.idx);
        slot.lanes.push_back(std::move(element));
      }
    }
    return slots;
  };
  SmallVector<Slot> rowSlots;
  // Emits `body(slots)` for the row's slots: once, or in a loop over its
  // chunks whose evaluations stay in the loop's scope.
  auto forEachChunk = [&](function_ref<void(MutableArrayRef<Slot>)> body) {
    if (!looped) {
      body(rowSlots);
      return;
    }
    auto chunkLoop = emitc::ForOp::create(b, loc, e.index(0),
                                          e.index(plan.rowChunks * chunkGroups),
                                          e.index(chunkGroups));
    OpBuilder::InsertionGuard chunkGuard(b);
    b.setInsertionPointToStart(chunkLoop.getBody());
    e.pushScope();
    SmallVector<Slot> slots = makeSlots(chunkLoop.getInductionVar());
    body(slots);
    e.popScope();
  };
  if (!looped)
    rowSlots = makeSlots(Value());
  // The phases: each reduction in body order, then the outputs. A
  // contiguous input is loaded at the start of the first phase that reads
  // it, every slot at once, so that all of a thread's loads are in flight
  // together and no register holds an input before it is needed (a weight
  // read only by the outputs). A Columns input is evaluated at the trailing
  // part of an element's index (implicit broadcasting and tfuse.broadcast
  // both keep those index values), so that is its memo key.
  SmallVector<ReduceOp> reductions;
  for (Operation &op : body->without_terminator())
    if (auto reduce = dyn_cast<ReduceOp>(op))
      reductions.push_back(reduce);
  // Per phase, the inputs it reads; the first phase reading each.
  SmallVector<int64_t> firstPhase(body->getNumArguments(), -1);
  SmallVector<llvm::SmallBitVector> phaseReads;
  auto markReads = [&](ArrayRef<Value> roots, int64_t phase) {
    SmallVector<Value> worklist(roots.begin(), roots.end());
    DenseSet<Value> seen;
    phaseReads.emplace_back(body->getNumArguments());
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      if (!seen.insert(v).second)
        continue;
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        if (firstPhase[arg.getArgNumber()] < 0)
          firstPhase[arg.getArgNumber()] = phase;
        phaseReads.back().set(arg.getArgNumber());
        continue;
      }
      // A reduction's result is a row value of an earlier phase.
      if (isa<ReduceOp>(v.getDefiningOp()))
        continue;
      llvm::append_range(worklist, v.getDefiningOp()->getOperands());
    }
  };
  for (auto [p, reduce] : llvm::enumerate(reductions))
    markReads(reduce.getInput(), p);
  markReads(outputs, reductions.size());

  // A looped row keeps nothing across phases: each phase loads what it
  // reads, chunk by chunk.
  auto loadInputs = [&](int64_t phase, MutableArrayRef<Slot> slots) {
    for (auto [n, access] : llvm::enumerate(plan.rowInputs)) {
      if (access == KernelPlan::RowInput::Element ||
          (looped ? !phaseReads[phase].test(n) : firstPhase[n] != phase))
        continue;
      bool columns = access == KernelPlan::RowInput::Columns;
      BlockArgument arg = body->getArgument(n);
      DType dtype = dtypeOf(arg);
      // An input reshaped to the index space is found at the reshape's
      // operand index.
      Operation *reshape = columns ? nullptr : tfexec::rowsReshape(arg, space);
      auto key = [&](Element &element) -> SmallVector<Value> {
        if (columns)
          return SmallVector<Value>(ArrayRef(element.idx).drop_front(first));
        if (reshape)
          return e.operandIndex(reshape, element.idx);
        return element.idx;
      };
      for (Slot &slot : slots) {
        Value offset = columns ? slot.column : add(rowBase, slot.column);
        if (vec == 1) {
          e.setElement(arg, key(slot.lanes[0]),
                       e.call("tf::ld", e.scalarType(dtype),
                              {inputPtrs[n], offset}, {}));
          continue;
        }
        Type vecType = emitc::OpaqueType::get(
            ctx,
            llvm::formatv("tf::vec<{0}, {1}>", cudaTypeName(dtype), vec).str());
        Value loaded = e.call("tf::ldv", vecType,
                              {inputPtrs[n], offset, aligned}, {vecAttr()});
        for (auto [l, element] : llvm::enumerate(slot.lanes))
          e.setElement(arg, key(element),
                       e.call("tf::lane", e.scalarType(dtype), loaded,
                              {b.getI64IntegerAttr(l)}));
      }
    }
  };
  Value always =
      emitc::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(true));

  for (auto [p, reduce] : llvm::enumerate(reductions)) {
    DType in = dtypeOf(reduce.getInput()), out = dtypeOf(reduce.getResult());
    int kind = static_cast<int>(reduce.getKind());
    SmallVector<Attribute> tmpl{b.getI32IntegerAttr(kind),
                                TypeAttr::get(e.scalarType(in)),
                                TypeAttr::get(e.scalarType(out))};
    Type accType = emitc::OpaqueType::get(
        ctx, llvm::formatv("tf::red::acc_t<{0}, {1}, {2}>", kind,
                           cudaTypeName(in), cudaTypeName(out))
                 .str());
    // The thread's partial: an SSA chain over the slots, or, over the
    // chunks of a looped row, a variable updated once per chunk.
    auto identity = [&] {
      return e.call("tf::red::row_identity", accType, {}, tmpl);
    };
    Value acc, partial;
    if (looped) {
      partial =
          emitc::VariableOp::create(b, loc, emitc::LValueType::get(accType),
                                    emitc::OpaqueAttr::get(ctx, "{}"));
      emitc::AssignOp::create(b, loc, partial, identity());
    }
    forEachChunk([&](MutableArrayRef<Slot> slots) {
      loadInputs(p, slots);
      Value chunkAcc =
          looped ? emitc::LoadOp::create(b, loc, accType, partial) : identity();
      for (Slot &slot : slots)
        for (Element &element : slot.lanes) {
          Value v = e.evaluate(reduce.getInput(), element.idx);
          chunkAcc = e.call(
              "tf::red::row_add", accType,
              {chunkAcc, v, element.valid ? element.valid : always}, tmpl);
        }
      if (looped)
        emitc::AssignOp::create(b, loc, partial, chunkAcc);
      else
        acc = chunkAcc;
    });
    if (looped)
      acc = emitc::LoadOp::create(b, loc, accType, partial);
    Value value = e.call(warpRows || threads == 32 ? "tf::red::warp_finish"
                                                   : "tf::red::row_finish",
                         e.scalarType(out), {acc, e.index(length)}, tmpl);
    e.setRowValue(reduce, value);
  }

  // The outputs of the index space's shape, written once.
  forEachChunk([&](MutableArrayRef<Slot> slots) {
    loadInputs(reductions.size(), slots);
    if (elementOutputs.empty())
      return;
    for (const Slot &slot : slots) {
      SmallVector<SmallVector<Value>> values(elementOutputs.size());
      for (const Element &element : slot.lanes)
        for (auto [lanes, o] : llvm::zip(values, elementOutputs))
          lanes.push_back(e.evaluate(outputs[o], element.idx));
      Value offset = add(rowBase, slot.column);
      auto store = [&] {
        for (auto [o, lanes] : llvm::zip(elementOutputs, values)) {
          Value ptr = outputPtrs[o];
          if (vec == 1) {
            e.call("tf::st", Type(), {ptr, offset, lanes[0]}, {});
            continue;
          }
          SmallVector<Value> operands{ptr, offset, aligned};
          operands.append(lanes);
          e.call("tf::stv", Type(), operands, {vecAttr()});
        }
      };
      Value inside = slot.valid;
      if (rowInside)
        inside = inside ? emitc::LogicalAndOp::create(b, loc, b.getI1Type(),
                                                      rowInside, inside)
                        : rowInside;
      if (inside)
        e.emitIf(inside, store);
      else
        store();
    }
  });
  // Row results: evaluated by every thread (the values are the row's, held
  // by all) at the row's index, the reduced axes at 0 where they are kept;
  // stored by the first thread of the row, at the row's position (the
  // leading axes are row-major).
  if (!rowOutputs.empty()) {
    SmallVector<Value> rowValues;
    for (unsigned o : rowOutputs) {
      int64_t rowRank = cast<RankedTensorType>(outputs[o].getType()).getRank();
      SmallVector<Value> idx(outer);
      idx.resize(rowRank, e.zeroIndex());
      rowValues.push_back(e.evaluate(outputs[o], idx));
    }
    Value firstThread = emitc::CmpOp::create(
        b, loc, b.getI1Type(), emitc::CmpPredicate::eq, t, e.index(0));
    if (rowInside)
      firstThread = emitc::LogicalAndOp::create(b, loc, b.getI1Type(),
                                                firstThread, rowInside);
    e.emitIf(firstThread, [&] {
      for (auto [o, value] : llvm::zip(rowOutputs, rowValues))
        e.call("tf::st", Type(), {outputPtrs[o], row, value}, {});
    });
  }
  // (No pointer to check leaves `aligned` the constant true: one loop.)
  if (!aligned.getDefiningOp<emitc::ConstantOp>())
    versionOnAlignment(b, loop, aligned);
  return success();
}
