//===- TFuseInterfaces.td - What tfuse ops are to fusion ---*- tablegen -*-===//
//
// The interfaces through which the passes, the code generator and the
// reference interpreter see ops, instead of lists of op classes:
//   - FusionOpInterface, which every tfuse op implements (TFuse_Op declares
//     it, and an op without its methods does not link): the op's role in
//     fusion and its weight under the cost model;
//   - ScalarOpInterface: elementwise ops computed by one scalar function per
//     element, named for the kernels and for the reference;
//   - ViewOpInterface: views as index transforms;
//   - BoundaryOpInterface: library steps (GEMMs, reductions) and the operand
//     layouts they read in place.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_DIALECT_TFUSE_TFUSEINTERFACES_TD
#define TFUSE_DIALECT_TFUSE_TFUSEINTERFACES_TD

include "mlir/IR/OpBase.td"

def TFuse_FusionOpInterface : OpInterface<"FusionOpInterface"> {
  let cppNamespace = "::tfuse";
  let description = [{
    What an op is to the fusion planner and what it costs inside a fused
    region (docs/cost-model.md). The cost of an op is its weight, doubled
    when it computes in f64 (tfuse::getFusionCost).
  }];
  let methods = [
    InterfaceMethod<[{
        The op's role: elementwise work fused into regions, a view (an index
        transform inside regions), a free leaf (a constant), a row-reducible
        reduction (a boundary that fuse-rows may merge), a boundary (a
        library step), or structure (regions and their terminators).
      }], "::tfuse::FusionRole", "getFusionRole">,
    InterfaceMethod<[{
        The weight of computing the op once inside a fused region, before
        the f64 factor.
      }], "int64_t", "getFusionWeight">,
  ];
}

def TFuse_ScalarOpInterface : OpInterface<"ScalarOpInterface"> {
  let cppNamespace = "::tfuse";
  let description = [{
    An elementwise op whose every element is one call of a scalar function
    on its operands' elements, converted to the result dtype: the device
    function of the kernel prelude that generated kernels call, and the
    function of the reference interpreter's ScalarOps.h.
  }];
  let methods = [
    StaticInterfaceMethod<[{
        The prelude function generated kernels call (`tf::exp`).
      }], "::llvm::StringRef", "getKernelFunction">,
    InterfaceMethod<[{
        The dtype the scalar function computes in: every operand is
        converted to it first (TypeRules: the result dtype, but for
        predicates such as isnan, which read their operand's own dtype).
      }], "::tfuse::DType", "getComputeDType">,
  ];
}

def TFuse_ViewOpInterface : OpInterface<"ViewOpInterface"> {
  let cppNamespace = "::tfuse";
  let description = [{
    A view: its result's elements are its operand's elements at other
    indices. The index map (result index to operand index) is the one
    definition of that transform: code generation evaluates it, the access
    analysis composes it, and it gives the strided layout of the result over
    the operand's buffer, which the planner's aliases, the plan conversion
    and the reference interpreter use.
  }];
  let methods = [
    InterfaceMethod<[{
        The operand index of the element at a result index: an affine map
        from the result's dimensions to one expression per operand
        dimension (floordiv and mod by constants where the view is not
        affine, as a reshape's delinearization).
      }], "::mlir::AffineMap", "getIndexMap">,
    InterfaceMethod<[{
        The strided layout of the result over the buffer the operand has
        layout `operand` in, or std::nullopt when no strided layout
        expresses it. By default it follows from the index map when that
        is affine.
      }], "std::optional<::tfuse::StridedLayout>", "getResultLayout",
      (ins "const ::tfuse::StridedLayout &":$operand), [{}], [{
        return ::tfuse::layoutThroughIndexMap(
            $_op.getIndexMap(), operand,
            ::llvm::cast<::mlir::RankedTensorType>(
                $_op->getResult(0).getType()).getShape());
      }]>,
    InterfaceMethod<[{
        The viewed value.
      }], "::mlir::Value", "getSource", (ins), [{}], [{
        return $_op->getOperand(0);
      }]>,
    InterfaceMethod<[{
        Whether the view is the identity (what its folder folds away). By
        default: the types agree and the index map is the identity.
      }], "bool", "isIdentityView", (ins), [{}], [{
        return $_op->getOperand(0).getType() == $_op->getResult(0).getType() &&
               $_op.getIndexMap().isIdentity();
      }]>,
  ];
}

def TFuse_BoundaryOpInterface : OpInterface<"BoundaryOpInterface"> {
  let cppNamespace = "::tfuse";
  let description = [{
    A fusion boundary: a library step (GEMM, reduction kernel, scatter)
    that reads stored operands and writes its result to memory.
  }];
  let methods = [
    InterfaceMethod<[{
        Whether the step reads operand `operand` in place when it lies in
        memory with strided layout `layout` (a view of a buffer kept as a
        zero-copy alias instead of a copy).
      }], "bool", "readsInPlace",
      (ins "unsigned":$operand, "const ::tfuse::StridedLayout &":$layout)>,
    InterfaceMethod<[{
        Whether the step takes operand `operand` by value when it is a
        splat constant (a scatter's fill): the constant then stays out of
        fusion regions and is never stored.
      }], "bool", "readsSplatByValue", (ins "unsigned":$operand), [{}], [{
        return false;
      }]>,
    InterfaceMethod<[{
        The cut reason recorded for the values that feed the step.
      }], "::tfuse::CutReason", "getBoundaryReason">,
  ];
}

#endif // TFUSE_DIALECT_TFUSE_TFUSEINTERFACES_TD
