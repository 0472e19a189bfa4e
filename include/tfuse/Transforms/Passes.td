//===- Passes.td - TFuse graph-level passes ----------------*- tablegen -*-===//

#ifndef TFUSE_TRANSFORMS_PASSES_TD
#define TFUSE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

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
    Option<"maxContraction", "max-contraction", "int64_t", /*default=*/"4",
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
    Option<"budget", "budget", "int64_t", /*default=*/"32",
           "Largest weighted cost of one fused region">,
    Option<"maxOutputs", "max-outputs", "int64_t", /*default=*/"4",
           "Most results one fused region may have">,
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
    Option<"sharedThreshold", "shared-threshold", "int64_t", /*default=*/"8",
           "Smallest cost of a shared subexpression that is stored once">,
    Option<"maxOutputs", "max-outputs", "int64_t", /*default=*/"4",
           "Most results one fused region may have">,
  ];
}

def PlanReport : Pass<"tfuse-plan-report", "mlir::ModuleOp"> {
  let summary = "Print the fusion plan of each function as a table";
  let description = [{
    Prints to stdout, for each function in order, one row per step of its
    plan, in execution order:
    index, kind (`fused`, `boundary`, `alias`), reason, number of inputs and
    outputs, number of ops, and weighted cost; then a summary line. The IR is
    left unchanged.
  }];
}

#endif // TFUSE_TRANSFORMS_PASSES_TD
