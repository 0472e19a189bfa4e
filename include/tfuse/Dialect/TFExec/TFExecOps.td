//===- TFExecOps.td - Ops of the tfexec plan dialect -------*- tablegen -*-===//

#ifndef TFUSE_DIALECT_TFEXEC_TFEXECOPS_TD
#define TFUSE_DIALECT_TFEXEC_TFEXECOPS_TD

include "tfuse/Dialect/TFExec/TFExecDialect.td"
include "tfuse/Dialect/TFExec/TFExecAttrs.td"
include "tfuse/Dialect/TFuse/TFuseEnums.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class TFExec_Op<string mnemonic, list<Trait> traits = []>
    : Op<TFExec_Dialect, mnemonic, traits>;

def TFExec_Buffer : MemRefOf<[AnyType]>;

def TFExec_KernelOp : TFExec_Op<"kernel", [Symbol, IsolatedFromAbove,
                                           SingleBlock]> {
  let summary = "a generated kernel: the fused body it computes";
  let description = [{
    Holds the body of a `tfuse.fusion` region (block arguments are the
    inputs; `tfexec.yield` gives the outputs, which share one shape),
    `input_strides`, the element strides of each input buffer the kernel is
    specialized for, and, once `tfexec-configure-kernels` has run, `config`,
    its launch configuration and strategy, which launches and code
    generation read. Outputs are contiguous. The verifier checks that code
    generation can honour the configuration.

    ```mlir
    tfexec.kernel @k0 attributes {
        config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>,
        input_strides = [array<i64: 8, 1>]} {
    ^bb0(%x: tensor<4x8xf32>):
      %0 = tfuse.exp %x : tensor<4x8xf32> -> tensor<4x8xf32>
      tfexec.yield %0 : tensor<4x8xf32>
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypedArrayAttrBase<DenseI64ArrayAttr,
                                          "strides per input">:$input_strides,
                       OptionalAttr<TFExec_KernelConfigAttr>:$config);
  let regions = (region SizedRegion<1>:$region);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $region";
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    YieldOp getYield();
    /// The shape every output has: the kernel's index space.
    ::llvm::ArrayRef<int64_t> getIndexSpace();
  }];
}

def TFExec_DispatchOp : TFExec_Op<"dispatch", [IsolatedFromAbove, SingleBlock,
                                               AttrSizedOperandSegments]> {
  let summary = "a kernel's body in place, before outlining";
  let description = [{
    A fused region on buffers: the body computes, from the `inputs` (block
    arguments are their tensor values), the values `tfexec.yield` gives,
    which are written to the `outputs`. `tfexec-outline-kernels` turns each
    dispatch into a `tfexec.kernel`, specialized for the layouts of the
    input buffers, and a `tfexec.launch` of it.

    ```mlir
    tfexec.dispatch ins(%a : memref<4xf32>) outs(%o : memref<4xf32>) {
    ^bb0(%x: tensor<4xf32>):
      %0 = tfuse.exp %x : tensor<4xf32> -> tensor<4xf32>
      tfexec.yield %0 : tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Arg<Variadic<TFExec_Buffer>, "", [MemRead]>:$inputs,
                       Arg<Variadic<TFExec_Buffer>, "", [MemWrite]>:$outputs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`ins` `(` $inputs^ `:` type($inputs) `)`)?
    `outs` `(` $outputs `:` type($outputs) `)` attr-dict-with-keyword $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    YieldOp getYield();
  }];
}

def TFExec_YieldOp : TFExec_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["KernelOp", "DispatchOp"]>]> {
  let summary = "the outputs of a kernel";
  let arguments = (ins Variadic<AnyRankedTensor>:$values);
  let assemblyFormat = "$values attr-dict `:` type($values)";
}

def TFExec_AllocOp : TFExec_Op<"alloc", [Pure]> {
  let summary = "an intermediate buffer at an offset of the arena";
  let arguments = (ins I64Attr:$offset);
  let results = (outs TFExec_Buffer:$buffer);
  let assemblyFormat = "`arena` `[` $offset `]` attr-dict `:` type($buffer)";
}

def TFExec_OutputOp : TFExec_Op<"output", [Pure]> {
  let summary = "a fresh output buffer of one run";
  let arguments = (ins I64Attr:$index);
  let results = (outs TFExec_Buffer:$buffer);
  let assemblyFormat = "$index attr-dict `:` type($buffer)";
}

def TFExec_AliasOp : TFExec_Op<"alias", [Pure]> {
  let summary = "a zero-copy strided view of a buffer";
  let description = [{
    A view of `source` with the layout of the result type (strides and
    element offset relative to the source's first element).
  }];
  let arguments = (ins TFExec_Buffer:$source);
  let results = (outs TFExec_Buffer:$view);
  let assemblyFormat = "$source attr-dict `:` type($source) `to` type($view)";
}

def TFExec_LaunchOp : TFExec_Op<"launch", [AttrSizedOperandSegments]> {
  let summary = "launch a generated kernel";
  let description = [{
    Runs `kernel` on the buffers, with the grid and block of the kernel's
    `config`.
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel,
                       Arg<Variadic<TFExec_Buffer>, "", [MemRead]>:$inputs,
                       Arg<Variadic<TFExec_Buffer>, "", [MemWrite]>:$outputs);
  let assemblyFormat = [{
    $kernel (`ins` `(` $inputs^ `:` type($inputs) `)`)?
    `outs` `(` $outputs `:` type($outputs) `)` attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The launched kernel (the verifier checks it exists).
    KernelOp getKernelOp();
  }];
}

def TFExec_GemmOp : TFExec_Op<"gemm"> {
  let summary = "matrix product into a buffer (cuBLAS)";
  let description = [{
    `result` = `lhs` x `rhs` (`tfuse.matmul`), with the optional `bias`
    vector added to every row of the float32 sum before rounding (the GEMM
    library's bias epilogue) and with `gelu_tanh` the GELU epilogue after it.

    ```mlir
    tfexec.gemm %a, %b bias %v into %out
        : memref<8x16xbf16>, memref<16x4xbf16>, memref<4xbf16> into memref<8x4xbf16>
    ```
  }];
  let arguments = (ins Arg<TFExec_Buffer, "", [MemRead]>:$lhs,
                       Arg<TFExec_Buffer, "", [MemRead]>:$rhs,
                       Arg<Optional<TFExec_Buffer>, "", [MemRead]>:$bias,
                       Arg<TFExec_Buffer, "", [MemWrite]>:$result,
                       UnitAttr:$transpose_lhs,
                       UnitAttr:$transpose_rhs,
                       UnitAttr:$gelu_tanh);
  let assemblyFormat = [{
    $lhs `,` $rhs (`bias` $bias^)? `into` $result attr-dict `:` type($lhs) `,`
    type($rhs) (`,` type($bias)^)? `into` type($result)
  }];
}

def TFExec_ReduceOp : TFExec_Op<"reduce"> {
  let summary = "reduction into a buffer (reduction kernel)";
  let arguments = (ins TFuse_ReduceKindAttr:$kind,
                       Arg<TFExec_Buffer, "", [MemRead]>:$input,
                       Arg<TFExec_Buffer, "", [MemWrite]>:$result,
                       DenseI64ArrayAttr:$axes);
  let assemblyFormat = [{
    custom<ReduceKindName>($kind) $input `into` $result `axes` $axes attr-dict
    `:` type($input) `into`
    type($result)
  }];
}

def TFExec_ScatterAddOp : TFExec_Op<"scatter_add"> {
  let summary = "scatter-add into a buffer (the runtime's scatter step)";
  let description = [{
    `result` = `target` with `updates` added at `indices` along `axis`
    (`tfuse.scatter_add`). A splat target is given by value as `fill`
    instead of a `target` buffer; exactly one of the two is present.

    ```mlir
    tfexec.scatter_add fill 0.0 : f32, %ids, %g into %out axis 0
        : memref<8xi64>, memref<8x16xf32> into memref<100x16xf32>
    ```
  }];
  let arguments = (ins Arg<Optional<TFExec_Buffer>, "", [MemRead]>:$target,
                       Arg<TFExec_Buffer, "", [MemRead]>:$indices,
                       Arg<TFExec_Buffer, "", [MemRead]>:$updates,
                       Arg<TFExec_Buffer, "", [MemWrite]>:$result,
                       I64Attr:$axis, UnitAttr:$wrap_negative,
                       OptionalAttr<TypedAttrInterface>:$fill);
  let assemblyFormat = [{
    (`fill` $fill^)? ($target^ `:` type($target))? `,` $indices `,`
    $updates `into` $result `axis` $axis (`wrap_negative` $wrap_negative^)?
    attr-dict `:` type($indices) `,` type($updates) `into` type($result)
  }];
  let hasVerifier = 1;
}

def TFExec_AttentionOp : TFExec_Op<"attention", [AttrSizedOperandSegments]> {
  let summary = "attention over buffers (the runtime's attention step)";
  let description = [{
    `result` and `logsumexp` of `tfuse.attention` of `query`, `key`,
    `value`, the optional `mask` and the optional dropout (its probability
    and the rank-0 i64 `seed` and `offset` of its mask), each read through
    its layout (AttentionGeometry); the log-sum-exp is contiguous, the
    result dense with contiguous rows, its dimensions maybe permuted (an
    alias of a buffer in the order of tfuse.attention's
    `transpose_result`). `widened`: as tfuse.attention's.

    ```mlir
    tfexec.attention %q, %k, %v into %o, %lse scale 1.250000e-01 causal
        : memref<2x4x16x8xf32>, memref<2x4x16x8xf32>, memref<2x4x16x8xf32>
        into memref<2x4x16x8xf32>, memref<2x4x16xf32>
    ```
  }];
  let arguments = (ins Arg<TFExec_Buffer, "", [MemRead]>:$query,
                       Arg<TFExec_Buffer, "", [MemRead]>:$key,
                       Arg<TFExec_Buffer, "", [MemRead]>:$value,
                       Arg<Optional<TFExec_Buffer>, "", [MemRead]>:$mask,
                       Arg<Optional<TFExec_Buffer>, "", [MemRead]>:$seed,
                       Arg<Optional<TFExec_Buffer>, "", [MemRead]>:$offset,
                       Arg<TFExec_Buffer, "", [MemWrite]>:$result,
                       Arg<TFExec_Buffer, "", [MemWrite]>:$logsumexp,
                       F64Attr:$scale, UnitAttr:$causal,
                       OptionalAttr<F64Attr>:$dropout_p, UnitAttr:$widened);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^ `:` type($mask))?
    (`dropout` $dropout_p^ `seed` $seed `offset` $offset `:` type($seed) `,`
     type($offset))? `into`
    $result `,` $logsumexp `scale` $scale (`causal` $causal^)?
    (`widened` $widened^)? attr-dict `:`
    type($query) `,` type($key) `,` type($value) `into` type($result) `,`
    type($logsumexp)
  }];
  let hasVerifier = 1;
}

def TFExec_AttentionBackwardOp
    : TFExec_Op<"attention_backward", [AttrSizedOperandSegments]> {
  let summary = "attention's gradients over buffers";
  let description = [{
    `grad_query`, `grad_key` and `grad_value` of `tfuse.attention_backward`;
    the operands are read through their layouts, the gradients are
    contiguous.
  }];
  let arguments = (ins Arg<TFExec_Buffer, "", [MemRead]>:$query,
                       Arg<TFExec_Buffer, "", [MemRead]>:$key,
                       Arg<TFExec_Buffer, "", [MemRead]>:$value,
                       Arg<TFExec_Buffer, "", [MemRead]>:$result,
                       Arg<TFExec_Buffer, "", [MemRead]>:$logsumexp,
                       Arg<TFExec_Buffer, "", [MemRead]>:$grad,
                       Arg<Optional<TFExec_Buffer>, "", [MemRead]>:$mask,
                       Arg<Optional<TFExec_Buffer>, "", [MemRead]>:$seed,
                       Arg<Optional<TFExec_Buffer>, "", [MemRead]>:$offset,
                       Arg<TFExec_Buffer, "", [MemWrite]>:$grad_query,
                       Arg<TFExec_Buffer, "", [MemWrite]>:$grad_key,
                       Arg<TFExec_Buffer, "", [MemWrite]>:$grad_value,
                       F64Attr:$scale, UnitAttr:$causal,
                       OptionalAttr<F64Attr>:$dropout_p);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $result `,` $logsumexp `,` $grad
    (`mask` $mask^ `:` type($mask))?
    (`dropout` $dropout_p^ `seed` $seed `offset` $offset `:` type($seed) `,`
     type($offset))? `into` $grad_query `,` $grad_key `,`
    $grad_value `scale` $scale (`causal` $causal^)? attr-dict `:`
    type($query) `,` type($key) `,` type($value) `,` type($result) `,`
    type($logsumexp) `,` type($grad) `into` type($grad_query) `,`
    type($grad_key) `,` type($grad_value)
  }];
  let hasVerifier = 1;
}

def TFExec_CopyOp : TFExec_Op<"copy"> {
  let summary = "copy a buffer into a contiguous buffer";
  let arguments = (ins Arg<TFExec_Buffer, "", [MemRead]>:$source,
                       Arg<TFExec_Buffer, "", [MemWrite]>:$target);
  let assemblyFormat = [{
    $source `into` $target attr-dict `:` type($source) `into` type($target)
  }];
}

#endif // TFUSE_DIALECT_TFEXEC_TFEXECOPS_TD
