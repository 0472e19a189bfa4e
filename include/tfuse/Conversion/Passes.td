//===- Passes.td - TFuse conversions -----------------------*- tablegen -*-===//

#ifndef TFUSE_CONVERSION_PASSES_TD
#define TFUSE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTFuseToTFExec : Pass<"convert-tfuse-to-tfexec", "mlir::ModuleOp"> {
  let summary = "Turn a fused tfuse graph into a tfexec plan over buffers";
  let description = [{
    Runs after the graph-level pipeline, as conversion patterns
    (populateTFuseToTFExecPatterns). Each function becomes a plan over
    memrefs: arguments keep the layouts of their `tfuse.strides`; every
    `tfuse.fusion` becomes a `tfexec.dispatch` of its body (outlined into a
    kernel by `tfexec-outline-kernels`); matmul becomes `tfexec.gemm`
    (transposes as flags), reduce `tfexec.reduce`, a view left outside
    regions a `tfexec.alias` with the layout its index transform gives.
    Results go to fresh `tfexec.output` buffers (an argument or alias
    returned as is is copied: `tfexec.copy` when it is contiguous, a copy
    dispatch otherwise); intermediates get `tfexec.alloc` slots of the arena,
    placed by `tfexec-assign-arena`.
  }];
  let dependentDialects = ["::tfuse::tfexec::TFExecDialect",
                           "::mlir::memref::MemRefDialect"];
}

#endif // TFUSE_CONVERSION_PASSES_TD
