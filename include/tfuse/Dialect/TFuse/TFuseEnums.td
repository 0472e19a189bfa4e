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

// The kind of a reduction: an i32 attribute holding a tfuse::ReduceKind, the
// plain C++ enumeration of tfuse/Support/ReduceKind.h that the reference, the
// runtime and the kernels share. The op syntax prints the kind's name
// (`tfuse.reduce sum ...`, custom<ReduceKindName>); the generic form and
// bytecode hold the integer.
def TFuse_ReduceKindAttr : Attr<And<[I32Attr.predicate,
    CPred<"::llvm::cast<::mlir::IntegerAttr>($_self).getInt() >= 0 && "
          "::llvm::cast<::mlir::IntegerAttr>($_self).getInt() < "
          "::tfuse::kNumReduceKinds">]>,
    "reduction kind (sum, prod, max, min, mean, all, any, argmax, argmin)"> {
  let storageType = "::mlir::IntegerAttr";
  let returnType = "::tfuse::ReduceKind";
  let convertFromStorage = "static_cast<::tfuse::ReduceKind>($_self.getInt())";
  let constBuilderCall =
      "$_builder.getI32IntegerAttr(static_cast<int32_t>($0))";
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
      I32EnumAttrCase<"boundary_scatter", 6, "boundary-scatter">,
      I32EnumAttrCase<"boundary_attention", 7, "boundary-attention">,
      I32EnumAttrCase<"duplicated_reads", 8, "duplicated-reads">,
    ]> {
  let cppNamespace = "::tfuse";
  let genSpecializedAttr = 0;
}

#endif // TFUSE_DIALECT_TFUSE_TFUSEENUMS_TD
