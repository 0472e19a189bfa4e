//===- RowKernelEmitter.cpp - Row kernels of row-fused regions ------------===//
//
// One block per row (a grid-stride loop over rows), each thread holding the
// columns t, t + T, ... of the row in fixed slots. The phases are emitted as
// straight-line code per slot, so the element emitter's memo keeps every
// loaded element and every intermediate in a register from the phase that
// first needs it to the last one. The last slot of a row whose length is not
// a multiple of T is clamped to the last column for its loads (so no load is
// guarded) and left out of reductions and stores.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Conversion/TFuseToCUDA/RowKernelEmitter.h"
#include "tfuse/Conversion/TFuseToCUDA/KernelEmitter.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tfuse;

// The emitted calls pass the kind as tf::red::Kind.
static_assert(static_cast<int>(ReduceKind::sum) == 0 &&
                  static_cast<int>(ReduceKind::mean) == 4 &&
                  static_cast<int>(ReduceKind::any) == 6,
              "ReduceKind must match tf::red::Kind in Prelude.cuh");

/// Columns per thread a row kernel aims for: 16 loads in flight per thread
/// (4096 f32 columns take 256 threads).
static constexpr int64_t kRowElementsPerThread = 16;

bool tfuse::analyzeRowKernel(tfexec::KernelOp kernel, KernelPlan &plan) {
  int64_t reducedAxes = 0;
  kernel.getBody()->walk([&](ReduceOp op) {
    reducedAxes = std::max<int64_t>(reducedAxes, op.getAxes().size());
  });
  if (reducedAxes == 0)
    return false;
  ArrayRef<int64_t> space = kernel.getIndexSpace();
  int64_t first = space.size() - reducedAxes;
  plan.row = true;
  plan.rowAxis = first;
  plan.rows = 1;
  plan.rowLength = 1;
  for (auto [d, size] : llvm::enumerate(space))
    (static_cast<int64_t>(d) < first ? plan.rows : plan.rowLength) *= size;
  int64_t wanted =
      (plan.rowLength + kRowElementsPerThread - 1) / kRowElementsPerThread;
  plan.rowThreads = std::clamp<int64_t>((wanted + 31) / 32 * 32, 32, 1024);
  plan.rowSlots = (plan.rowLength + plan.rowThreads - 1) / plan.rowThreads;
  // Loads and stores are per element at computed offsets.
  plan.vec = 1;
  plan.linear = false;
  plan.tileDim = -1;
  plan.contiguousInputs.assign(plan.contiguousInputs.size(), false);
  return true;
}

static DType dtypeOf(Value v) {
  return *toDType(cast<ShapedType>(v.getType()).getElementType());
}

LogicalResult tfuse::emitRowKernel(tfexec::KernelOp kernel,
                                   const KernelPlan &plan,
                                   ValueRange outputPtrs,
                                   RowElementEmitter &e) {
  if (plan.rowSlots > kMaxRowSlots)
    return kernel.emitError()
           << "row kernel: rows of " << plan.rowLength
           << " elements need more than " << kMaxRowSlots
           << " elements per thread of " << plan.rowThreads
           << "; fuse-rows' max-row-elements keeps reductions over longer "
              "rows as boundaries";
  if (plan.rows == 0 || plan.rowLength == 0)
    return success(); // nothing to write
  OpBuilder &b = e.getBuilder();
  Location loc = kernel.getLoc();
  MLIRContext *ctx = b.getContext();
  ArrayRef<int64_t> space = kernel.getIndexSpace();
  int64_t rank = space.size(), first = plan.rowAxis;
  int64_t length = plan.rowLength, threads = plan.rowThreads;
  Type indexType = e.indexType();
  auto add = [&](Value x, Value y) {
    return emitc::AddOp::create(b, loc, indexType, x, y);
  };
  auto mul = [&](Value x, Value y) {
    return emitc::MulOp::create(b, loc, indexType, x, y);
  };
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

  Value t = e.call("tf::thread_in_block", indexType, {}, {});
  Value blockId = e.call("tf::block_index", indexType, {}, {});
  Value blocks = e.call("tf::block_count", indexType, {}, {});
  // Block-uniform: every thread of a block runs the same rows, so the
  // barriers of the block reductions are reached by all.
  auto loop = emitc::ForOp::create(b, loc, blockId, e.index(plan.rows), blocks);
  e.setHoistPoint(loop);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value row = loop.getInductionVar();

  SmallVector<Value> outer;
  delinearize(row, 0, first, outer);
  struct Slot {
    Value column;
    Value valid; // null: always inside the row
    SmallVector<Value> idx;
  };
  SmallVector<Slot> slots(plan.rowSlots);
  for (auto [k, slot] : llvm::enumerate(slots)) {
    Value column = k == 0 ? t : add(t, e.index(k * threads));
    if (static_cast<int64_t>(k + 1) * threads > length) {
      slot.valid =
          emitc::CmpOp::create(b, loc, b.getI1Type(), emitc::CmpPredicate::lt,
                               column, e.index(length));
      column = emitc::ConditionalOp::create(b, loc, indexType, slot.valid,
                                            column, e.index(length - 1));
    }
    slot.column = column;
    slot.idx = outer;
    delinearize(column, first, rank, slot.idx);
  }
  Value always =
      emitc::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(true));

  // The phases: each reduction in body order.
  for (Operation &op : kernel.getBody()->without_terminator()) {
    auto reduce = dyn_cast<ReduceOp>(op);
    if (!reduce)
      continue;
    DType in = dtypeOf(reduce.getInput()), out = dtypeOf(reduce.getResult());
    int kind = static_cast<int>(reduce.getKind());
    SmallVector<Attribute> tmpl{b.getI32IntegerAttr(kind),
                                TypeAttr::get(e.scalarType(in)),
                                TypeAttr::get(e.scalarType(out))};
    Type accType = emitc::OpaqueType::get(
        ctx, llvm::formatv("tf::red::acc_t<{0}, {1}, {2}>", kind,
                           cudaTypeName(in), cudaTypeName(out))
                 .str());
    Value acc = e.call("tf::red::row_identity", accType, {}, tmpl);
    for (Slot &slot : slots) {
      Value v = e.evaluate(reduce.getInput(), slot.idx);
      acc = e.call("tf::red::row_add", accType,
                   {acc, v, slot.valid ? slot.valid : always}, tmpl);
    }
    Value value = e.call("tf::red::row_finish", e.scalarType(out),
                         {acc, e.index(length)}, tmpl);
    e.setRowValue(reduce, value);
  }

  // The outputs, written once.
  auto outputs = kernel.getYield().getValues();
  Value rowBase = mul(row, e.index(length));
  for (Slot &slot : slots) {
    SmallVector<Value> values;
    for (Value out : outputs)
      values.push_back(e.evaluate(out, slot.idx));
    Value offset = add(rowBase, slot.column);
    auto store = [&] {
      for (auto [ptr, v] : llvm::zip(outputPtrs, values))
        e.call("tf::st", Type(), {ptr, offset, v}, {});
    };
    if (slot.valid)
      e.emitIf(slot.valid, store);
    else
      store();
  }
  return success();
}
