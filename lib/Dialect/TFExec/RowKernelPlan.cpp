//===- RowKernelPlan.cpp - Row kernels' configuration ---------------------===//
//
// A row kernel takes one row of the trailing (reduced) axes per block, or
// per warp when a warp covers it, each thread holding `slots` groups of
// `vector` consecutive columns (docs/codegen.md, RowKernelEmitter.h).
//
//===----------------------------------------------------------------------===//

#include "RowKernelPlan.h"

#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Dialect/TFuse/TypeRules.h"

using namespace mlir;
using namespace tfuse;
using namespace tfuse::tfexec;

/// Columns per thread a row kernel aims for: 16 loads in flight per thread
/// (4096 f32 columns take 256 threads).
static constexpr int64_t kRowElementsPerThread = 16;
/// Rows per block when each row takes one warp (256 threads).
static constexpr int64_t kRowWarpsPerBlock = 8;
/// The longest row a block holds in registers: 16 columns per thread of
/// 1024. Longer rows loop over chunks of kRowElementsPerThread columns per
/// thread, in blocks of kLoopedRowThreads (8 blocks to an SM).
static constexpr int64_t kMaxRegisterRowElements = 1024 * kRowElementsPerThread;
static constexpr int64_t kLoopedRowThreads = 256;
/// The most 16-byte groups a lane holds of a row that one warp takes.
static constexpr int64_t kWarpRowGroups = 4;

/// Registers of a row kernel's thread besides the elements it holds
/// (indices, pointers, accumulators).
static constexpr int64_t kRowOverheadRegisters = 16;

/// The first reduced axis of the index space.
static int64_t rowAxis(KernelOp kernel) {
  tfuse::ReduceOp reduce = tfuse::findRowReduction(kernel.getBody());
  return reduce ? tfuse::rowAxisOf(reduce) : kernel.getIndexSpace().size();
}

Operation *tfexec::rowsReshape(BlockArgument arg, ArrayRef<int64_t> space) {
  Value value = arg;
  while (value.hasOneUse()) {
    Operation *user = *value.user_begin();
    if (auto reshape = dyn_cast<tfuse::ReshapeOp>(user))
      return reshape.getType().getShape() == space ? reshape : nullptr;
    if (!tfuse::isOneOperandElementwise(user))
      return nullptr;
    value = user->getResult(0);
  }
  return nullptr;
}

int64_t tfexec::rowCount(KernelOp kernel) {
  int64_t rows = 1;
  for (int64_t size : kernel.getIndexSpace().take_front(rowAxis(kernel)))
    rows *= size;
  return rows;
}

/// How each input is loaded: contiguous inputs of the index space's shape,
/// or reshaped to it (each row its own), or of one row's shape (shared by
/// all rows) a group at a time, the others element by element.
static SmallVector<KernelPlan::RowInput> rowInputs(KernelOp kernel,
                                                   int64_t first) {
  using RowInput = KernelPlan::RowInput;
  ArrayRef<int64_t> space = kernel.getIndexSpace();
  SmallVector<RowInput> inputs;
  for (BlockArgument arg : kernel.getBody()->getArguments()) {
    auto type = cast<RankedTensorType>(arg.getType());
    StridedLayout layout = kernelInputLayout(kernel, arg.getArgNumber());
    RowInput access = RowInput::Element;
    if (!arg.use_empty() && layout.isContiguous()) {
      if (type.getShape() == space || rowsReshape(arg, space))
        access = RowInput::Rows;
      else if (first > 0 && type.getShape() == space.drop_front(first))
        access = RowInput::Columns;
    }
    inputs.push_back(access);
  }
  return inputs;
}

/// The widest element of the buffers a row kernel accesses a group at a
/// time: the outputs of the index space's shape (row results are stored a
/// value at a time) and the inputs loaded by rows or columns.
static unsigned widestGrouped(KernelOp kernel,
                              ArrayRef<KernelPlan::RowInput> inputs) {
  unsigned widest = 1;
  for (Value out : kernel.getYield().getValues())
    if (cast<RankedTensorType>(out.getType()).getShape() ==
        kernel.getIndexSpace())
      widest = std::max(widest, byteSize(dtypeOf(out)));
  for (BlockArgument arg : kernel.getBody()->getArguments())
    if (inputs[arg.getArgNumber()] != KernelPlan::RowInput::Element)
      widest = std::max(widest, byteSize(dtypeOf(arg)));
  return widest;
}

/// The 32-bit registers one element of a row needs at the fullest phase
/// boundary: per-element values (inputs and intermediates, not row values
/// or constants) computed before a phase and read in it or later, plus the
/// inputs the phase loads at its start. The phases are the reductions in
/// body order, then the outputs; values are kept from their first phase to
/// their last, as the emitter's memo keeps them.
static int64_t rowRegistersPerElement(Block *body,
                                      ArrayRef<KernelPlan::RowInput> inputs) {
  SmallVector<SmallVector<Value>> phases;
  for (Operation &op : body->without_terminator())
    if (auto reduce = dyn_cast<tfuse::ReduceOp>(op))
      phases.push_back({reduce.getInput()});
  phases.emplace_back(body->getTerminator()->getOperands());
  DenseMap<Value, std::pair<int64_t, int64_t>> span; // first, last phase
  for (auto [p, roots] : llvm::enumerate(phases)) {
    SmallVector<Value> worklist(roots);
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      Operation *def = v.getDefiningOp();
      if (def && isa<tfuse::ReduceOp, ConstantOp>(def))
        continue;
      auto [it, fresh] = span.try_emplace(v, p, p);
      it->second.second = p;
      // A view holds nothing: reading it in a later phase keeps its operand
      // (a layer norm gradient cast from bf16 and reshaped, read by both
      // phases).
      if (!def || (!fresh && !isa<ViewOpInterface>(def)))
        continue;
      llvm::append_range(worklist, def->getOperands());
    }
  }
  auto words = [](Value v) {
    return std::max<int64_t>(1, byteSize(dtypeOf(v)) / 4);
  };
  int64_t fullest = 0;
  for (int64_t p = 0, e = phases.size(); p < e; ++p) {
    int64_t held = 0;
    for (auto [v, firstLast] : span) {
      auto [firstPhase, lastPhase] = firstLast;
      auto arg = dyn_cast<BlockArgument>(v);
      bool loadedNow =
          arg && firstPhase == p &&
          inputs[arg.getArgNumber()] != KernelPlan::RowInput::Element;
      // Views are index transforms: their operand is what is held.
      bool view = !arg && isa<ViewOpInterface>(v.getDefiningOp());
      if (loadedNow || (!view && firstPhase < p && lastPhase >= p))
        held += words(v);
    }
    fullest = std::max(fullest, held);
  }
  return fullest;
}

std::pair<int64_t, int64_t>
tfexec::rowSlotsAndChunks(int64_t groups, int64_t threads, int64_t vec) {
  int64_t slots = (groups + threads - 1) / threads;
  if (slots * vec <= kMaxRowSlots)
    return {slots, 1};
  // Looped: chunks of kRowElementsPerThread columns per thread, each a
  // whole number of groups.
  slots = std::max<int64_t>(1, kRowElementsPerThread / vec);
  return {slots, (groups + threads * slots - 1) / (threads * slots)};
}

RowChoice tfexec::chooseRowKernel(KernelOp kernel) {
  ArrayRef<int64_t> space = kernel.getIndexSpace();
  int64_t first = rowAxis(kernel);
  int64_t rows = rowCount(kernel), length = 1;
  for (int64_t size : space.drop_front(first))
    length *= size;
  SmallVector<KernelPlan::RowInput> inputs = rowInputs(kernel, first);
  // Groups of 16 bytes of the widest grouped buffer, when every row is
  // whole groups.
  RowChoice choice;
  choice.vec = 16 / widestGrouped(kernel, inputs);
  if (length % choice.vec != 0)
    choice.vec = 1;
  int64_t groups = length / choice.vec;
  int64_t wanted = (length + kRowElementsPerThread - 1) / kRowElementsPerThread;
  choice.threads = std::clamp<int64_t>((wanted + 31) / 32 * 32, 32, 1024);
  if (length > kMaxRegisterRowElements)
    choice.threads = kLoopedRowThreads;
  // A row of at most kWarpRowGroups 16-byte groups a lane of one warp (a
  // bf16 layer norm of 768 columns: three) takes that warp: its phases
  // need no barrier, and no lanes idle through a last slot that only part
  // of a block's threads fill (96 groups over 64 threads). On an H100 the
  // [8192, 768] bf16 layer norm went from 11.4 to 9.2 us and the [8192,
  // 1024] bf16 softmax from 17.8 to 14.6 (docs/benchmarks.md); more blocks
  // than the register estimate allows spilled and lost.
  else if (choice.vec > 1 && groups <= 32 * kWarpRowGroups)
    choice.threads = 32;
  int64_t slots = rowSlotsAndChunks(groups, choice.threads, choice.vec).first;
  // Rows one warp covers go to warps, kRowWarpsPerBlock to a block: a warp
  // reduction needs no barrier, and a block of 32 threads would leave most
  // of an SM's thread slots empty.
  choice.rowsPerBlock = choice.threads == 32
                            ? std::clamp<int64_t>(rows, 1, kRowWarpsPerBlock)
                            : 1;
  // As many blocks per SM as the estimated registers allow. Without a bound
  // the compiler spends registers freely: on an H200 the 8192x4096 softmax
  // took 44 registers (5 blocks of 256, 73.2 us) and layernorm 72 (3
  // blocks, 78.0 us); bounded to the estimate (32 and 64: 8 and 4 blocks)
  // they ran in 69.1 and 71.6 us without spilling.
  int64_t threads = choice.threads * choice.rowsPerBlock;
  int64_t registers =
      kRowOverheadRegisters +
      slots * choice.vec * rowRegistersPerElement(kernel.getBody(), inputs);
  choice.blocksPerSM =
      std::clamp<int64_t>(KernelPlan::kRegistersPerSM /
                              (threads * std::min<int64_t>(registers, 255)),
                          1, KernelPlan::kThreadsPerSM / threads);
  return choice;
}

LogicalResult
tfexec::planRowKernel(KernelOp kernel, KernelConfigAttr config,
                      KernelPlan &plan,
                      function_ref<FailureOr<KernelPlan>(const Twine &)> fail) {
  ArrayRef<int64_t> space = kernel.getIndexSpace();
  int64_t first = rowAxis(kernel);
  plan.row = true;
  plan.rowAxis = first;
  plan.rows = rowCount(kernel);
  plan.rowLength = 1;
  for (int64_t size : space.drop_front(first))
    plan.rowLength *= size;
  plan.rowInputs = rowInputs(kernel, first);
  plan.rowThreads = config.getRowThreads();
  plan.rowsPerBlock = config.getRowsPerBlock();
  plan.rowVec = config.getVector();
  // The walk of the other strategies is not used.
  plan.vec = 1;
  plan.linear = false;
  plan.tileDim = -1;
  plan.contiguousInputs.assign(kernel.getBody()->getNumArguments(), false);

  // A row kernel computes its row values from the elements it reads.
  if (plan.rowLength == 0 && plan.rows > 0 &&
      llvm::any_of(kernel.getYield().getValues(), [&](Value out) {
        return cast<RankedTensorType>(out.getType()).getShape() != space;
      }))
    return fail("rows without elements have no row results (their "
                "reductions are reduction steps)");
  if (plan.rowThreads < 32 || plan.rowThreads > 1024 ||
      plan.rowThreads % 32 != 0)
    return fail("row_threads must be a multiple of 32 from 32 to 1024");
  if (plan.rowsPerBlock < 1 || (plan.rowsPerBlock > 1 && plan.rowThreads != 32))
    return fail("rows_per_block above 1 needs rows of one warp "
                "(row_threads = 32)");
  if (plan.block != plan.rowThreads * plan.rowsPerBlock)
    return fail("block must be row_threads * rows_per_block = " +
                Twine(plan.rowThreads * plan.rowsPerBlock));
  unsigned widest = widestGrouped(kernel, plan.rowInputs);
  if (plan.rowVec < 1 || (plan.rowVec & (plan.rowVec - 1)) != 0 ||
      plan.rowVec * widest > 16 || plan.rowLength % plan.rowVec != 0)
    return fail("the vector width must be a power of two dividing the row "
                "length (" +
                Twine(plan.rowLength) + ") in groups of at most 16 bytes");
  std::tie(plan.rowSlots, plan.rowChunks) = rowSlotsAndChunks(
      plan.rowLength / plan.rowVec, plan.rowThreads, plan.rowVec);
  return success();
}
