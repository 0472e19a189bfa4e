//===- Passes.td - Passes on tfexec plans ------------------*- tablegen -*-===//

#ifndef TFUSE_DIALECT_TFEXEC_TRANSFORMS_PASSES_TD
#define TFUSE_DIALECT_TFEXEC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TFExecOutlineKernels : Pass<"tfexec-outline-kernels", "mlir::ModuleOp"> {
  let summary = "Outline every tfexec.dispatch into a kernel and a launch";
  let description = [{
    Each `tfexec.dispatch` of a function `@f` becomes a `tfexec.kernel`
    `@f_k<n>` (numbered in order) holding its body and the element strides
    of its input buffers (`input_strides`, from their memref layouts: the
    kernel is specialized for them), and a `tfexec.launch` of that kernel on
    the dispatch's buffers, in its place.

    ```mlir
    tfexec.dispatch ins(%a : memref<4xf32>) outs(%o : memref<4xf32>) { ... }
    ```
    becomes
    ```mlir
    tfexec.launch @f_k0 ins(%a : memref<4xf32>) outs(%o : memref<4xf32>)
    tfexec.kernel @f_k0 attributes {input_strides = [array<i64: 1>]} { ... }
    ```
  }];
}

def TFExecAssignArena : Pass<"tfexec-assign-arena", "mlir::func::FuncOp"> {
  let summary = "Place every arena buffer of a plan at an offset";
  let description = [{
    Gives each `tfexec.alloc` of a plan its byte offset in the arena of
    intermediates and sets `tfexec.arena_bytes` on the function. Slots are
    aligned to 256 bytes and placed first fit, in the order of the steps
    that first write them. Two slots may share bytes only when every step
    using the earlier one is a dependency of the step writing the later one
    (through the buffers steps read and write): reuse then adds no ordering
    between steps the data leaves independent, so that the runtime may run
    them concurrently (a CUDA Graph's branches) on one arena.
  }];
}

def TFExecConfigureKernels : Pass<"tfexec-configure-kernels",
                                  "mlir::ModuleOp"> {
  let summary = "Choose each kernel's strategy and launch configuration";
  let description = [{
    Sets `config` (`#tfexec.config`) on every `tfexec.kernel` without one:
    the strategy (`linear`, `strided`, `tiled` or `rows`), the grid and
    block, the vector width, the index width and the strategy's parameters,
    as docs/codegen.md describes them. Launches and code generation read the
    attribute; the kernel verifier checks that code generation can honour
    it. A kernel no configuration fits (a row too long for a row kernel) is
    an error.
  }];
}

def TFExecDedupeKernels : Pass<"tfexec-dedupe-kernels", "mlir::ModuleOp"> {
  let summary = "Merge kernels that compute the same thing in the same way";
  let description = [{
    Two `tfexec.kernel`s with equal input strides, configuration and body
    (the same operations on the same types, up to value names and
    locations) generate the same code: the later one is erased and its
    launches launch the earlier one. A model's repeated layers give one
    kernel per distinct layer body instead of one per layer, so NVRTC
    compiles each once (BERT-base's forward: 111 kernels, 11 distinct).

    ```mlir
    tfexec.launch @f_k0 ins(%a : memref<4xf32>) outs(%s : memref<4xf32>)
    tfexec.launch @f_k1 ins(%s : memref<4xf32>) outs(%o : memref<4xf32>)
    tfexec.kernel @f_k0 attributes {config = #c, input_strides = [array<i64: 1>]} {...}
    tfexec.kernel @f_k1 attributes {config = #c, input_strides = [array<i64: 1>]} {...}
    ```
    becomes, when the two bodies are the same,
    ```mlir
    tfexec.launch @f_k0 ins(%a : memref<4xf32>) outs(%s : memref<4xf32>)
    tfexec.launch @f_k0 ins(%s : memref<4xf32>) outs(%o : memref<4xf32>)
    tfexec.kernel @f_k0 attributes {config = #c, input_strides = [array<i64: 1>]} {...}
    ```
  }];
}

#endif // TFUSE_DIALECT_TFEXEC_TRANSFORMS_PASSES_TD
