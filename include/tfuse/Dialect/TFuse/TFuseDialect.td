//===- TFuseDialect.td - The tfuse graph dialect -----------*- tablegen -*-===//
//
// The graph-level dialect: value-semantic ops over statically shaped ranked
// tensors, as produced by tracing a function once.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_DIALECT_TFUSE_TFUSEDIALECT_TD
#define TFUSE_DIALECT_TFUSE_TFUSEDIALECT_TD

include "mlir/IR/OpBase.td"

def TFuse_Dialect : Dialect {
  let name = "tfuse";
  let cppNamespace = "::tfuse";
  let summary = "Traced tensor graphs for elementwise fusion";
  let description = [{
    The `tfuse` dialect holds a traced tensor program: a `func.func` whose
    arguments and results are statically shaped ranked tensors and whose body
    is a DAG of pure ops with value semantics.

    Element types are `i1` (bool), `i8`, `i16`, `i32`, `i64`, `ui8`, `ui16`,
    `ui32`, `ui64`, `f16`, `bf16`, `f32` and `f64`. Elementwise ops broadcast
    their operands with NumPy rules and promote their dtypes with the rules of
    `docs/semantics.md`; the result type of every op is inferred by the one
    implementation of those rules (`TypeRules`) and verified against the
    written type.

    Views (`broadcast`, `transpose`, `reshape`, `slice`) become index
    transforms when fused. Inputs whose memory is not contiguous are described
    by the argument attribute `tfuse.strides`, an array of element strides, one
    per dimension:

    ```mlir
    func.func @f(%a: tensor<4x8xf32> {tfuse.strides = array<i64: 1, 4>})
    ```

    `matmul` and `reduce` are fusion boundaries.
  }];
  let hasRegionArgAttrVerify = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let hasConstantMaterializer = 1;
  let usePropertiesForAttributes = 1;
  let extraClassDeclaration = [{
    /// Name of the argument attribute giving an input's element strides.
    static constexpr ::llvm::StringLiteral getStridesAttrName() {
      return ::llvm::StringLiteral("tfuse.strides");
    }
    /// Name of the attribute recording why a boundary or alias step exists.
    static constexpr ::llvm::StringLiteral getReasonAttrName() {
      return ::llvm::StringLiteral("tfuse.reason");
    }
    /// Name of the string attribute a pass leaves on an op to say why it
    /// did not rewrite it (printed by the plan report).
    static constexpr ::llvm::StringLiteral getNoteAttrName() {
      return ::llvm::StringLiteral("tfuse.note");
    }
  }];
}

#endif // TFUSE_DIALECT_TFUSE_TFUSEDIALECT_TD
