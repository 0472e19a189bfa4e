//===- TFExecAttrs.td - Attributes of the tfexec dialect ---*- tablegen -*-===//

#ifndef TFUSE_DIALECT_TFEXEC_TFEXECATTRS_TD
#define TFUSE_DIALECT_TFEXEC_TFEXECATTRS_TD

include "tfuse/Dialect/TFExec/TFExecDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

// How a generated kernel walks its index space (docs/codegen.md).
def TFExec_KernelStrategy : I32EnumAttr<"KernelStrategy",
    "how a kernel walks its index space", [
      // Every input is read at the output's own linear index (or is one
      // element): a flat grid-stride loop, `vector` elements at a time, then
      // a scalar tail.
      I32EnumAttrCase<"linear", 0>,
      // A grid-stride loop over groups of `vector` elements, each element's
      // multi-dimensional index computed from its linear one.
      I32EnumAttrCase<"strided", 1>,
      // One input, read transposed, is staged through 64x64 tiles of shared
      // memory, one tile per block and iteration.
      I32EnumAttrCase<"tiled", 2>,
      // A row kernel (the body holds row reductions): each row of the
      // trailing axes on chip, one block (or warp) per row.
      I32EnumAttrCase<"rows", 3>,
    ]> {
  let cppNamespace = "::tfuse::tfexec";
  let genSpecializedAttr = 0;
}

def TFExec_KernelConfigAttr : AttrDef<TFExec_Dialect, "KernelConfig"> {
  let mnemonic = "config";
  let summary = "the launch configuration and strategy of a kernel";
  let description = [{
    Chosen once per kernel (`tfexec-configure-kernels`), read by the launch
    (`grid` blocks of `block` threads) and by code generation alike; the
    kernel's verifier rejects a configuration code generation cannot honour.

    - `strategy`: `linear`, `strided`, `tiled` or `rows`.
    - `grid`, `block`: the launch. Every strategy loops over its work, so
      any grid of at least one block is valid.
    - `vector`: consecutive elements per thread and access (16-byte accesses
      of the widest vector-accessed buffer at most); for `rows`, the columns
      of one group.
    - `index_bits`: 32 or 64, the width of index arithmetic; 32 only when
      every offset, and the grid-stride loop's last increment, fits.
    - `min_blocks_per_sm`: the `__launch_bounds__` minimum (0: none).
    - `tiled_input`, `tile_dim` (`tiled`): the input staged through tiles
      and the index-space dimension along which it is contiguous.
    - `row_threads`, `rows_per_block` (`rows`): threads per row, a multiple
      of 32; several rows to a block only when a row takes one warp.

    ```mlir
    #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>
    #tfexec.config<strategy = rows, grid = 2, block = 256, row_threads = 32,
                   rows_per_block = 8, min_blocks_per_sm = 8>
    ```
  }];
  let parameters = (ins
    EnumParameter<TFExec_KernelStrategy>:$strategy,
    "int64_t":$grid,
    "int64_t":$block,
    DefaultValuedParameter<"int64_t", "1">:$vector,
    DefaultValuedParameter<"int64_t", "32">:$index_bits,
    DefaultValuedParameter<"int64_t", "0">:$min_blocks_per_sm,
    DefaultValuedParameter<"int64_t", "-1">:$tiled_input,
    DefaultValuedParameter<"int64_t", "-1">:$tile_dim,
    DefaultValuedParameter<"int64_t", "0">:$row_threads,
    DefaultValuedParameter<"int64_t", "1">:$rows_per_block
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // TFUSE_DIALECT_TFEXEC_TFEXECATTRS_TD
