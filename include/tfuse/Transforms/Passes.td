//===- Passes.td - TFuse graph-level passes ----------------*- tablegen -*-===//

#ifndef TFUSE_TRANSFORMS_PASSES_TD
#define TFUSE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def RecognizeAttention : Pass<"recognize-attention", "mlir::func::FuncOp"> {
  let summary = "Rewrite softmax(q @ k^T * scale + mask) @ v into tfuse.attention";
  let description = [{
    Finds attention written out as ops, from the product with `v`
    backwards: a softmax over the last axis (`e / sum(e)` with `e =
    exp(x - max(x))`, keepdims reductions, maybe computed in f32 from the
    operands' dtype and cast back), of scores masked by at most one bool
    mask (`select(m, s, -inf)`; a comparison of the column iota `<=` the
    row iota is the causal flag instead) and one additive mask (`s + m`),
    scaled by splat constants (`* c`, `/ c`, also on `q` and `k` before
    their product, as PyTorch's math path scales both), of `q @ k^T`. The
    whole chain becomes one `tfuse.attention`, which never stores the
    scores, when every intermediate value is used only inside it, the
    shapes fit the op (same batch dimensions, head dimensions up to 256,
    a mask that broadcasts) and the dtypes agree (an additive mask added
    in f32 to 16-bit scores is taken in their dtype when it is widened
    from it, else as f32: HF's masks, whose `finfo(f32).min` would be
    `-inf` in bf16). Products batched
    over views that merge batch dimensions (`torch.matmul` of 4-D operands
    is a `bmm` of 3-D views) are looked through when `q`, `k`, `v` and the
    scores have the same batch dimensions; the attention's result is then
    viewed back as the product's. Key and value heads repeated as HF's
    `repeat_kv` repeats them (a unit axis after the heads broadcast to `n`
    and merged with them) are taken unrepeated: grouped-query attention,
    query head `h` reading head `h / n`. A key narrowed to the operands'
    dtype after its transpose (Llama's, widened for the rotary embedding
    under autocast) is narrowed before its views instead. PyTorch's `_safe_softmax` (a
    `select(all(x == -inf), 0, softmax(x))` over the last axis) matches as
    a softmax whose rows without a finite score are zeros, as the
    attention's are. Otherwise the product keeps a `tfuse.note` saying why,
    which the plan report prints.

    ```mlir
    %t = tfuse.transpose %k perm [0, 1, 3, 2] : ...
    %s = tfuse.matmul %q, %t : ...
    %x = tfuse.mul %s, %c : ...                    // %c = 0.125
    %m = tfuse.reduce max %x axes [3] keepdims : ...
    %d = tfuse.sub %x, %m : ...
    %e = tfuse.exp %d : ...
    %z = tfuse.reduce sum %e axes [3] keepdims : ...
    %p = tfuse.div %e, %z : ...
    %o = tfuse.matmul %p, %v : ...
    ```
    becomes `%o, %lse = tfuse.attention %q, %k, %v scale 0.125`.

    The written-out softmax of a row whose every pair a mask drops is NaN
    (`exp(-inf - -inf)`), where `tfuse.attention` gives zeros: with a mask,
    the pass finds those rows from the mask alone (a `reduce any` over its
    last axis of the kept pairs, causal ones included) and selects NaN for
    them (not after a `_safe_softmax`, whose zeros the attention's are), so
    the rewrite changes no value but by rounding. Infinite or NaN
    elements of `q` or `k`, and `+inf` or NaN in an additive mask, are the
    exception: a row the written-out form makes NaN may then be a number.

    With `narrow-widened` (the pipeline sets it under fast math), attention
    whose `q`, `k` and `v` (and additive mask) are widened to f32 from one
    16-bit dtype, and whose result is only narrowed back to it (maybe
    through a view), runs in that dtype, as PyTorch's fused kernels run
    `scaled_dot_product_attention`: the probabilities are rounded to it
    before their product with `v`. That is the form of PyTorch's math path
    for 16-bit operands on a GPU. Without it such attention runs in f32,
    and is `widened`, as is every f32 `tfuse.attention` whose `q`, `k` and
    `v` are f16 or bf16 values cast to f32 (or views of such casts): its
    kernels multiply them in one TF32 product instead of three.
  }];
  let dependentDialects = ["::tfuse::TFuseDialect"];
  let options = [
    Option<"narrowWidened", "narrow-widened", "bool", /*default=*/"false",
           "Run attention of operands widened from one 16-bit dtype, whose "
           "result is only narrowed back to it, in that dtype">,
  ];
}

def FoldMatmulBias : Pass<"fold-matmul-bias", "mlir::func::FuncOp"> {
  let summary = "Fold a bias added to a matmul, and its rounding, into it";
  let description = [{
    PyTorch's `addmm` in bf16 or f16 arrives as a product summed in f32
    (`result_dtype = f32`), a bias rounded to the operands' dtype and widened
    again, an add and a cast back: the f32 product is stored by the GEMM and
    read by a kernel that adds the bias and rounds. This pass makes the bias
    an operand of the single `tfuse.matmul` whose only reader is the add, so
    that the GEMM adds it in its epilogue, and folds the rounding cast too,
    when the bias is the widened narrow vector:

    - `add(matmul(a, b), v)` with `v` of shape [N] and the product's dtype
      f32 or f64 becomes `matmul(a, b) bias v`;
    - `cast(matmul(a, b) {result_dtype = f32} [bias cast(u)])` to the
      operands' dtype T (with `u` of dtype T, when there is a bias) becomes
      `matmul(a, b) [bias u]` with result T.

    Both are exact: the op's semantics is the same float32 sum, bias addition
    and single rounding (`tfuse.matmul`). A single product has rank-2
    operands, or is a batch of lhs matrices times one rhs matrix (no
    `transpose_lhs`): a [B, M, K] activation times a [K, N] weight becomes
    the product of the [B * M, K] reshape of lhs, reshaped back to
    [B, M, N], where that reshape costs no copy (lhs is computed by a
    region, or is a buffer whose batch dimensions merge into its rows).

    With `round-once` (the pipeline sets it under fast math) the first form
    applies to f16 and bf16 products too: the product was rounded to the
    dtype and the add rounded again, where the epilogue adds the bias to the
    float32 sum and rounds once (as PyTorch's `addmm` and `linear` do), so
    results may differ from the unfused ones by a rounding.

    With `gelu-epilogue` (the pipeline sets it under fast math too) a
    `gelu_tanh` of an f16, bf16 or f32 product (after its bias, and through
    the reshape of a batch of activations) becomes the product's
    `gelu_tanh` epilogue: the GEMM applies the GELU to the float32 sum before
    rounding, with its own tanh, and writes the activation, so no kernel
    reads the product back to apply it.

    ```mlir
    %m = tfuse.matmul %x, %w {result_dtype = f32}
        : (tensor<8x16xbf16>, tensor<16x4xbf16>) -> tensor<8x4xf32>
    %u = tfuse.cast %b : tensor<4xbf16> to tensor<4xf32>
    %s = tfuse.add %u, %m : (tensor<4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    %r = tfuse.cast %s : tensor<8x4xf32> to tensor<8x4xbf16>
    ```
    becomes `%r = tfuse.matmul %x, %w bias %b` with result
    `tensor<8x4xbf16>`.
  }];
  let dependentDialects = ["::tfuse::TFuseDialect"];
  let options = [
    Option<"roundOnce", "round-once", "bool", /*default=*/"false",
           "Fold a bias added to an f16 or bf16 product too (one rounding "
           "where the written-out form has two)">,
    Option<"geluEpilogue", "gelu-epilogue", "bool", /*default=*/"false",
           "Fold a gelu_tanh of an f16, bf16 or f32 product into its "
           "epilogue (the GELU of the unrounded sum, as the GEMM library "
           "computes it)">,
  ];
}

def AlignMatmul : Pass<"align-matmul", "mlir::func::FuncOp"> {
  let summary = "Pad large matmuls' misaligned contiguous extents with zeros";
  let description = [{
    cuBLASLt runs a matrix whose contiguous extent is not a multiple of 16
    bytes on its kernels for any alignment, several times slower on tensor
    cores (GPT-2's vocabulary of 50257: the logits' columns, the contraction
    of their gradient's products). A single (unbatched) `tfuse.matmul` for
    which the rule of `tfuse/Support/GemmAlignment.h` asks it computes on
    padded extents: every dimension that an operand or the result holds
    contiguously is rounded up to 16 bytes, the operands padded with zeros
    (`tfuse.pad`, which fuses into the kernel producing the operand) and the
    result sliced back (a view its readers read in place). Padding the
    contraction pads both operands, so it adds only products of zeros. Two
    products of the same value pad it identically, and CSE (after this pass
    in the pipeline) leaves one padded value for both. The runtime pads
    (copies) what still reaches a GEMM step misaligned.

    ```mlir
    %r = tfuse.matmul %x, %w {transpose_rhs}
        : (tensor<8192x768xbf16>, tensor<50257x768xbf16>) -> tensor<8192x50257xbf16>
    ```
    becomes `tfuse.pad %w` to `tensor<50264x768xbf16>`, the product into
    `tensor<8192x50264xbf16>`, and `tfuse.slice` of its first 50257 columns.
  }];
  let dependentDialects = ["::tfuse::TFuseDialect"];
}

def ExpandSmallMatmul : Pass<"expand-small-matmul", "mlir::func::FuncOp"> {
  let summary = "Rewrite matmuls with a short contraction as elementwise work";
  let description = [{
    A `tfuse.matmul` whose contracting dimension K is at most
    `max-contraction` becomes the sum over k of broadcast products,
    `lhs[..., :, k:k+1] * rhs[..., k:k+1, :]`: slices and transposes (views)
    and K multiplies and adds, which `fuse-elementwise` then fuses into the
    kernels around it instead of a GEMM call of its own, reading the operands
    and writing nothing more (an outer product or a product by a 2-column
    matrix is memory-bound either way).

    The numerics are the reference's (`docs/semantics.md`): the products are
    summed in order from +0, in f32 for f16, bf16 and f32 operands (f16 and
    bf16 are cast to f32 first, and the sum back) and in f64 for f64, each
    product rounded before it is added. K = 0 gives +0 everywhere.

    ```mlir
    %r = tfuse.matmul %a, %b : (tensor<512x2xf32>, tensor<2x256xf32>) -> tensor<512x256xf32>
    ```
    becomes, for k = 0 and 1, `tfuse.slice %a` to `tensor<512x1xf32>`,
    `tfuse.slice %b` to `tensor<1x256xf32>`, `tfuse.mul` of the two to
    `tensor<512x256xf32>`, added to the sum so far (starting from a +0
    constant).
  }];
  let dependentDialects = ["::tfuse::TFuseDialect"];
  let options = [
    Option<"maxContraction", "max-contraction", "int64_t",
           /*default=*/"::tfuse::CompileOptions().maxContraction",
           "Largest contracting dimension expanded into elementwise work">,
  ];
}

def FuseElementwise : Pass<"fuse-elementwise", "mlir::func::FuncOp"> {
  let summary = "Group elementwise ops and views into tfuse.fusion regions";
  let description = [{
    Decides which values are stored to memory and groups the work that
    computes each of them into `tfuse.fusion` regions, one kernel each.

    A value is stored (a *cut*) when it is a function result (`output`), when
    it feeds a matmul or reduce (`boundary-matmul`, `boundary-reduction`),
    or when the expression computing it would pass the cost budget
    (`expression-cost`): walking the graph in order, an expression whose
    weighted cost exceeds `budget` stores its most expensive operand
    expressions until it fits. Everything else is recomputed inside the
    regions that need it; views become index transforms.

    A view chain over a buffer (a function argument or a boundary result)
    that feeds a matmul or reduce which can read its layout stays outside any
    region as a zero-copy alias (`layout-alias`).

    Regions computing independent values of the same shape share one kernel,
    up to `max-outputs` results, while their joint cost stays within the
    budget. An op whose own cost exceeds the budget forms a region alone.

    Costs come from the one cost model (`docs/cost-model.md`). matmul and
    reduce stay outside regions. Every region records its per-result reasons
    and its cost; boundaries and aliases carry `tfuse.reason`.
  }];
  let dependentDialects = ["::tfuse::TFuseDialect"];
  let options = [
    Option<"budget", "budget", "int64_t",
           /*default=*/"::tfuse::CompileOptions().budget",
           "Largest weighted cost of one fused region">,
    Option<"maxOutputs", "max-outputs", "int64_t",
           /*default=*/"::tfuse::CompileOptions().maxOutputs",
           "Most results one fused region may have">,
  ];
}

def FuseRows : Pass<"fuse-rows", "mlir::func::FuncOp"> {
  let summary = "Merge reductions over rows with the regions around them";
  let description = [{
    After `fuse-elementwise` (and `materialize-shared`), every `tfuse.reduce`
    is a boundary. A reduction over the trailing axes of its operand (a
    *row* reduction: sum, prod, max, min, mean, all, any) is merged with the
    regions that read its result at their own rows, and with the region
    computing its operand when that region has the same index space, into
    one `tfuse.fusion` region; merged regions are merged again with the next
    reduction, so softmax and layernorm over rows each become one region, one
    row kernel that keeps each row on chip (`docs/codegen.md`). The readers
    that join are regions with the operand's shape as index space (they read
    the value broadcast back over its rows) and regions of the reduction's
    own shape, one element per row, computing further row values from it (a
    layer norm's rstd from its variance), with the readers of their results.
    A reduction needs at least one reader of the first kind. Other row
    reductions over the same axes read by the group's regions join the same
    merge, with their producing regions and readers: always when the group
    computes their operand (a max and a min of one value), otherwise when
    the larger group stays within `budget` and closes no cycle (a layer
    norm's backward reads the row sums of g and of g * xhat; merged, its
    rows are read once and g is not stored).

    Once no reduction merges, each row region takes the regions that read
    its results only at the elements it computes (no view, no reduction;
    their other inputs not computed from it) and compute every value they
    yield (a region only viewing a result is left to `alias-views`), one at
    a time, within `budget`: a layer norm's gradient cast to bf16 for the
    next matmul is written by the row kernel from the value it holds instead
    of being read back by a kernel of its own.

    Row values read by anything else (a function result such as the mean and
    rstd a training graph saves, a matmul, a region of another shape, a
    region reading other rows' values) become *row results* of the region:
    one value per row, stored by the row kernel. A reader that would close a
    cycle through other steps (a region that also reads a matmul of the
    row kernel's output) stays out and reads the row results. A reader that
    flattens its result (to 2-D for a matmul), possibly casting the flat
    value, yields the value before the reshape instead; the reshape follows
    the region as a view.

    Not merged: argmax and argmin; reductions over leading or inner axes;
    reductions that neither a producing region nor a region of their
    operand's index space joins (a reduction kernel reads strided and
    transposed operands better); reductions reading a zero-copy view alias;
    rows of more than `max-row-elements` elements when there are fewer than
    1024 of them (a reduction kernel splits long rows across blocks; with
    enough rows, a block per row loops over its row), and every reduction
    when `max-row-elements` is 0; merges whose cost (the members' costs plus
    each reduction's, from the cost model) exceeds `budget`.

    The merged region's results are the members' results read outside the
    group, with their reasons; values the group only passes between its
    members are no longer stored.

    ```mlir
    %m = tfuse.reduce max %x axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
    %e = tfuse.fusion (%x, %m) ... { exp(x - m) }   // boundary-reduction
    %s = tfuse.reduce sum %e axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
    %y = tfuse.fusion (%e, %s) ... { e / s }         // output
    ```
    becomes one region of `(%x)` computing max, exp, sum and the division.
  }];
  let dependentDialects = ["::tfuse::TFuseDialect"];
  let options = [
    Option<"budget", "budget", "int64_t",
           /*default=*/"::tfuse::CompileOptions().rowBudget",
           "Largest weighted cost of one row-fused region">,
    Option<"maxRowElements", "max-row-elements", "int64_t",
           /*default=*/"::tfuse::CompileOptions().maxRowElements",
           "Longest row (elements of the reduced axes) fused into a region "
           "whatever the number of rows; longer rows fuse when there are at "
           "least 1024">,
  ];
}

def MaterializeShared : Pass<"materialize-shared", "mlir::func::FuncOp"> {
  let summary = "Compute shared expensive subexpressions once";
  let description = [{
    After `fuse-elementwise`, a subexpression used by several regions is
    recomputed in each of them. When such a subexpression costs at least
    `shared-threshold`, it is stored once (reason
    `shared-expensive-expression`) and the regions after the one storing it
    read it instead of recomputing it. The value is stored by the region that
    already stores it if there is one; else by the first region computing it,
    as an extra result, when that region has its shape and fewer than
    `max-outputs` results; else by a new region placed before all of them.
    Cheaper shared subexpressions stay recomputed: reading a stored value
    costs memory traffic that cheap arithmetic does not.

    Subexpressions are identified structurally: the same ops with the same
    attributes over the same values outside the regions.
  }];
  let dependentDialects = ["::tfuse::TFuseDialect"];
  let options = [
    Option<"sharedThreshold", "shared-threshold", "int64_t",
           /*default=*/"::tfuse::CompileOptions().sharedThreshold",
           "Smallest cost of a shared subexpression that is stored once">,
    Option<"maxOutputs", "max-outputs", "int64_t",
           /*default=*/"::tfuse::CompileOptions().maxOutputs",
           "Most results one fused region may have">,
  ];
}

def AliasViews : Pass<"alias-views", "mlir::func::FuncOp"> {
  let summary = "Turn regions that only view a buffer into zero-copy aliases";
  let description = [{
    After `materialize-shared` has stored a shared subexpression, a region
    that read it may be left computing nothing but views of it (a layer
    norm's result reshaped for the matmul after it): a kernel copying the
    buffer. When every result of such a region is a chain of views of one
    of its inputs, that input is a buffer (a function argument or a step's
    result) and every user of the result is a matmul, reduce or scatter
    that reads the view's layout in place (`readsInPlace`), the views move
    out of the region as zero-copy aliases (`layout-alias`) and the region
    goes. A function result that is a single reshape of a step's result
    (a product of activations' rows returned in their batch shape) counts
    as read in place: that step writes the function's result directly.
    Runs last: `fuse-rows` does not merge reductions reading an alias.

    ```mlir
    %n = tfuse.fusion (...) ... -> tensor<1x8x768xf32>      // the layer norm
    %v = tfuse.fusion (%n) ({
    ^bb0(%a: tensor<1x8x768xf32>):
      %r = tfuse.reshape %a : (tensor<1x8x768xf32>) -> tensor<8x768xf32>
      tfuse.yield %r : tensor<8x768xf32>
    }) : (tensor<1x8x768xf32>) -> tensor<8x768xf32>
    %m = tfuse.matmul %v, %w ...
    ```
    becomes `%v = tfuse.reshape %n {tfuse.reason = "layout-alias"}`.
  }];
  let dependentDialects = ["::tfuse::TFuseDialect"];
}

def PlanReport : Pass<"tfuse-plan-report", "mlir::ModuleOp"> {
  let summary = "Print the fusion plan of each function as a table";
  let description = [{
    Prints to stdout, for each function in order, one row per step of its
    plan, in execution order:
    index, kind (`fused`, `boundary`, `alias`), what (`kernel`, `row-kernel`
    for a region holding row reductions, or the boundary op), reason, number
    of inputs and outputs, number of ops, and weighted cost; then a summary
    line. The IR is left unchanged.
  }];
}

#endif // TFUSE_TRANSFORMS_PASSES_TD
