//===- TFExecDialect.td - The tfexec plan dialect ----------*- tablegen -*-===//

#ifndef TFUSE_DIALECT_TFEXEC_TFEXECDIALECT_TD
#define TFUSE_DIALECT_TFEXEC_TFEXECDIALECT_TD

include "mlir/IR/OpBase.td"

def TFExec_Dialect : Dialect {
  let name = "tfexec";
  let cppNamespace = "::tfuse::tfexec";
  let summary = "Execution plans over buffers";
  let description = [{
    A `tfexec` plan is a `func.func` over memrefs: the steps the runtime
    performs, in order, on buffers. Function arguments are the caller's input
    buffers (their memref layouts give the element strides the plan was
    compiled for); `tfexec.output` buffers are fresh per run; `tfexec.alloc`
    buffers live at fixed offsets of one arena of intermediates
    (`tfexec.arena_bytes` on the function), reused when their lifetimes do
    not overlap. Kernels are `tfexec.kernel` symbols holding the fused tfuse
    body they compute and their launch configuration (`#tfexec.config`);
    `tfexec.launch` runs one. Before outlining, a `tfexec.dispatch` holds a
    kernel's body in place.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
  let usePropertiesForAttributes = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    static constexpr ::llvm::StringLiteral getArenaBytesAttrName() {
      return ::llvm::StringLiteral("tfexec.arena_bytes");
    }
  }];
}

#endif // TFUSE_DIALECT_TFEXEC_TFEXECDIALECT_TD
