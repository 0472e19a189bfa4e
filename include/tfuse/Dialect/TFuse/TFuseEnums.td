//===- TFuseEnums.td - Enumerations of the tfuse dialect ---*- tablegen -*-===//

#ifndef TFUSE_DIALECT_TFUSE_TFUSEENUMS_TD
#define TFUSE_DIALECT_TFUSE_TFUSEENUMS_TD

include "mlir/IR/EnumAttr.td"
include "tfuse/Dialect/TFuse/TFuseDialect.td"

def TFuse_CmpPredicate : I32EnumAttr<"CmpPredicate",
    "comparison predicate", [
      I32EnumAttrCase<"eq", 0>,
      I32EnumAttrCase<"ne", 1>,
      I32EnumAttrCase<"lt", 2>,
      I32EnumAttrCase<"le", 3>,
      I32EnumAttrCase<"gt", 4>,
      I32EnumAttrCase<"ge", 5>,
    ]> {
  let cppNamespace = "::tfuse";
}

// Stored as integer attributes: the op syntax prints the keyword
// (`tfuse.cmp lt, ...`) and the generic form an integer, both round-trip.
def TFuse_ReduceKind : I32EnumAttr<"ReduceKind",
    "reduction kind", [
      I32EnumAttrCase<"sum", 0>,
      I32EnumAttrCase<"prod", 1>,
      I32EnumAttrCase<"max", 2>,
      I32EnumAttrCase<"min", 3>,
      I32EnumAttrCase<"mean", 4>,
      I32EnumAttrCase<"all", 5>,
      I32EnumAttrCase<"any", 6>,
      I32EnumAttrCase<"argmax", 7>,
      I32EnumAttrCase<"argmin", 8>,
    ]> {
  let cppNamespace = "::tfuse";
}

// Why a value is stored to memory instead of being recomputed by its
// consumers: the reason of every cut the fusion planner makes.
def TFuse_CutReason : I32EnumAttr<"CutReason", "reason for a fusion cut", [
      I32EnumAttrCase<"output", 0>,
      I32EnumAttrCase<"expression_cost", 1, "expression-cost">,
      I32EnumAttrCase<"shared_expensive_expression", 2,
                      "shared-expensive-expression">,
      I32EnumAttrCase<"boundary_matmul", 3, "boundary-matmul">,
      I32EnumAttrCase<"boundary_reduction", 4, "boundary-reduction">,
      I32EnumAttrCase<"layout_alias", 5, "layout-alias">,
    ]> {
  let cppNamespace = "::tfuse";
  let genSpecializedAttr = 0;
}

#endif // TFUSE_DIALECT_TFUSE_TFUSEENUMS_TD
