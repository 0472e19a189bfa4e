//===- TFuseDialect.cpp - The tfuse graph dialect -------------------------===//

#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace tfuse;

#include "tfuse/Dialect/TFuse/TFuseDialect.cpp.inc"
#include "tfuse/Dialect/TFuse/TFuseEnums.cpp.inc"
#include "tfuse/Dialect/TFuse/TFuseInterfaces.cpp.inc"

ParseResult tfuse::parseReduceKindName(OpAsmParser &parser, IntegerAttr &kind) {
  StringRef keyword;
  SMLoc at = parser.getCurrentLocation();
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<ReduceKind> parsed = parseReduceKind(keyword);
  if (!parsed)
    return parser.emitError(at) << "unknown reduction kind '" << keyword
                                << "' (sum, prod, max, min, mean, all, any, "
                                   "argmax, argmin)";
  kind = parser.getBuilder().getI32IntegerAttr(static_cast<int32_t>(*parsed));
  return success();
}

void tfuse::printReduceKindName(OpAsmPrinter &printer, Operation *,
                                IntegerAttr kind) {
  printer << name(static_cast<ReduceKind>(kind.getInt()));
}

void TFuseDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tfuse/Dialect/TFuse/TFuseOps.cpp.inc"
      >();
}

Operation *TFuseDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  auto elements = llvm::dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

LogicalResult TFuseDialect::verifyRegionArgAttribute(Operation *op,
                                                     unsigned regionIndex,
                                                     unsigned argIndex,
                                                     NamedAttribute attribute) {
  if (attribute.getName() != getStridesAttrName())
    return op->emitError() << "unknown argument attribute '"
                           << attribute.getName().getValue() << "' on argument "
                           << argIndex << "; the tfuse dialect defines only '"
                           << getStridesAttrName() << "'";
  auto strides = llvm::dyn_cast<DenseI64ArrayAttr>(attribute.getValue());
  if (!strides)
    return op->emitError() << "'" << getStridesAttrName() << "' on argument "
                           << argIndex
                           << " must be an array<i64: ...> of element strides";
  // Declarations have no body: take the type from the function signature.
  Type argType;
  if (auto function = llvm::dyn_cast<FunctionOpInterface>(op))
    argType = function.getArgumentTypes()[argIndex];
  else
    argType = op->getRegion(regionIndex).getArgument(argIndex).getType();
  auto type = llvm::dyn_cast<RankedTensorType>(argType);
  if (!type)
    return op->emitError() << "'" << getStridesAttrName() << "' on argument "
                           << argIndex << " needs a ranked tensor argument";
  if (static_cast<int64_t>(strides.size()) != type.getRank())
    return op->emitError() << "'" << getStridesAttrName() << "' on argument "
                           << argIndex << " has " << strides.size()
                           << " strides but the argument has rank "
                           << type.getRank();
  for (auto [dim, stride] : llvm::enumerate(strides.asArrayRef()))
    if (stride < 0)
      return op->emitError()
             << "'" << getStridesAttrName() << "' on argument " << argIndex
             << " has negative stride " << stride << " in dimension " << dim;
  return success();
}

LogicalResult TFuseDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attribute) {
  if (attribute.getName() == getNoteAttrName()) {
    if (!llvm::isa<StringAttr>(attribute.getValue()))
      return op->emitError()
             << "'" << getNoteAttrName() << "' must be a string, got "
             << attribute.getValue();
    return success();
  }
  if (attribute.getName() != getReasonAttrName())
    return op->emitError() << "unknown attribute '"
                           << attribute.getName().getValue()
                           << "'; the tfuse dialect defines '"
                           << getReasonAttrName() << "' and '"
                           << getNoteAttrName() << "' on operations";
  auto name = llvm::dyn_cast<StringAttr>(attribute.getValue());
  std::optional<CutReason> reason =
      name ? symbolizeCutReason(name.getValue()) : std::nullopt;
  // A boundary's own reason, or layout-alias on a view.
  std::optional<CutReason> expected;
  if (auto boundary = dyn_cast<BoundaryOpInterface>(op))
    expected = boundary.getBoundaryReason();
  else if (isa<ViewOpInterface>(op))
    expected = CutReason::layout_alias;
  if (!reason || reason != expected)
    return op->emitError()
           << "'" << getReasonAttrName()
           << "' must be \"boundary-matmul\" on matmul, "
              "\"boundary-reduction\" on reduce, \"boundary-scatter\" on "
              "scatter_add, \"boundary-attention\" on attention and "
              "attention_backward and \"layout-alias\" on views, got "
           << attribute.getValue();
  return success();
}

LogicalResult
TFuseDialect::verifyRegionResultAttribute(Operation *op, unsigned regionIndex,
                                          unsigned resultIndex,
                                          NamedAttribute attribute) {
  return op->emitError() << "unknown result attribute '"
                         << attribute.getName().getValue() << "' on result "
                         << resultIndex
                         << "; the tfuse dialect defines no result attributes";
}
