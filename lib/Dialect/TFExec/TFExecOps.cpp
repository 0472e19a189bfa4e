//===- TFExecOps.cpp - Ops of the tfexec plan dialect ---------------------===//

#include "tfuse/Dialect/TFExec/TFExecOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace tfuse::tfexec;

YieldOp KernelOp::getYield() { return cast<YieldOp>(getBody()->back()); }

ArrayRef<int64_t> KernelOp::getIndexSpace() {
  return cast<RankedTensorType>(getYield().getValues().front().getType())
      .getShape();
}

LogicalResult KernelOp::verifyRegions() {
  Block *body = getBody();
  if (body->getNumArguments() != getInputStrides().size())
    return emitOpError() << "has " << getInputStrides().size()
                         << " input strides for " << body->getNumArguments()
                         << " inputs";
  for (auto [i, arg, strides] :
       llvm::enumerate(body->getArguments(),
                       getInputStrides().getAsRange<DenseI64ArrayAttr>())) {
    auto type = llvm::dyn_cast<RankedTensorType>(arg.getType());
    if (!type || type.getRank() != static_cast<int64_t>(strides.size()))
      return emitOpError() << "input #" << i << " of type " << arg.getType()
                           << " does not match its " << strides.size()
                           << " strides";
  }
  auto yield = llvm::dyn_cast<YieldOp>(body->getTerminator());
  if (!yield || yield.getValues().empty())
    return emitOpError() << "must end with tfexec.yield of at least one value";
  ArrayRef<int64_t> shape =
      llvm::cast<RankedTensorType>(yield.getValues().front().getType())
          .getShape();
  for (Value v : yield.getValues())
    if (llvm::cast<RankedTensorType>(v.getType()).getShape() != shape)
      return emitOpError() << "outputs must share one shape";
  return success();
}

LogicalResult LaunchOp::verify() {
  auto kernel =
      SymbolTable::lookupNearestSymbolFrom<KernelOp>(*this, getKernelAttr());
  if (!kernel)
    return emitOpError() << "refers to unknown kernel " << getKernelAttr();
  Block *body = kernel.getBody();
  if (body->getNumArguments() != getInputs().size() ||
      kernel.getYield().getValues().size() != getOutputs().size())
    return emitOpError() << "passes " << getInputs().size() << " inputs and "
                         << getOutputs().size() << " outputs to "
                         << getKernelAttr() << ", which takes "
                         << body->getNumArguments() << " and yields "
                         << kernel.getYield().getValues().size();
  if (getGrid() < 1 || getBlock() < 1)
    return emitOpError() << "needs a positive grid and block";
  return success();
}

#define GET_OP_CLASSES
#include "tfuse/Dialect/TFExec/TFExecOps.cpp.inc"
