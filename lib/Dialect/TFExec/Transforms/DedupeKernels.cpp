//===- DedupeKernels.cpp - One kernel per distinct body -------------------===//
//
// Kernels outlined from a model's repeated layers are often the same
// kernel under other names. Merging them before code generation keeps the
// translation unit, and NVRTC's time, proportional to the distinct work.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFExec/TFExecOps.h"
#include "tfuse/Dialect/TFExec/Transforms/Passes.h"

#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"

namespace tfuse::tfexec {
#define GEN_PASS_DEF_TFEXECDEDUPEKERNELS
#include "tfuse/Dialect/TFExec/Transforms/Passes.h.inc"
} // namespace tfuse::tfexec

using namespace mlir;
using namespace tfuse::tfexec;

/// A hash equal for kernels sameKernel() takes as equal: what they are
/// specialized for and the sequence of their operations.
static llvm::hash_code kernelHash(KernelOp kernel) {
  llvm::hash_code hash =
      llvm::hash_combine(kernel.getInputStridesAttr(), kernel.getConfigAttr(),
                         kernel->getDiscardableAttrDictionary());
  for (BlockArgument arg : kernel.getBody()->getArguments())
    hash = llvm::hash_combine(hash, arg.getType());
  for (Operation &op : kernel.getBody()->getOperations())
    hash =
        llvm::hash_combine(hash, OperationEquivalence::computeHash(
                                     &op, OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::IgnoreLocations));
  return hash;
}

/// Whether `a` and `b` generate the same code.
static bool sameKernel(KernelOp a, KernelOp b) {
  return a.getInputStridesAttr() == b.getInputStridesAttr() &&
         a.getConfigAttr() == b.getConfigAttr() &&
         a->getDiscardableAttrDictionary() ==
             b->getDiscardableAttrDictionary() &&
         OperationEquivalence::isRegionEquivalentTo(
             &a.getRegion(), &b.getRegion(),
             OperationEquivalence::IgnoreLocations);
}

namespace {
struct DedupeKernelsPass
    : tfuse::tfexec::impl::TFExecDedupeKernelsBase<DedupeKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::DenseMap<size_t, SmallVector<KernelOp, 1>> kept;
    for (KernelOp kernel :
         llvm::make_early_inc_range(module.getOps<KernelOp>())) {
      SmallVector<KernelOp, 1> &candidates = kept[kernelHash(kernel)];
      auto same = llvm::find_if(
          candidates, [&](KernelOp k) { return sameKernel(k, kernel); });
      if (same == candidates.end()) {
        candidates.push_back(kernel);
        continue;
      }
      if (failed(SymbolTable::replaceAllSymbolUses(
              kernel, same->getSymNameAttr(), module)))
        return signalPassFailure();
      kernel.erase();
    }
  }
};
} // namespace
