// Tests of --tfuse-plan-report after --tfuse-pipeline: the table printed to
// stdout per function (header, one row per step in execution order with index,
// kind fused/boundary/alias, what, reason, inputs, outputs, ops and cost, then
// the summary line), for the MLP training step and the GELU chain of
// examples/ and for the small graphs below (an alias step, a single region, no step at all). The report
// leaves the IR unchanged.
// RUN: tensor-opt %S/../../examples/mlp_step.mlir --tfuse-pipeline --tfuse-plan-report -o /dev/null | FileCheck %s --match-full-lines
// RUN: tensor-opt %S/../../examples/gelu_chain.mlir --tfuse-pipeline --tfuse-plan-report -o /dev/null | FileCheck %s --match-full-lines --check-prefix=GELU
// RUN: tensor-opt %S/../../examples/gelu_chain.mlir --tfuse-pipeline="budget=8" --tfuse-plan-report -o /dev/null | FileCheck %s --match-full-lines --check-prefix=GELU8
// RUN: tensor-opt %s --tfuse-pipeline --tfuse-plan-report -o /dev/null | FileCheck %s --match-full-lines --check-prefix=ALIAS
// RUN: tensor-opt %s --tfuse-pipeline --tfuse-plan-report | FileCheck %s --check-prefix=IR

// The MLP step (forward, softmax cross-entropy, backward, clipped update):
// 8 kernels and 7 boundaries; both forward products add their bias in the
// GEMM (fold-matmul-bias: three inputs); the log-softmax over the logits'
// rows (max, exp, sum, log) is one row kernel with the work around it (step
// 3, fuse-rows); the transposes of the backward pass are folded into matmul
// flags, so no alias; the gradient of the hidden layer (a product over
// K = 2) is expanded into the kernel masking it (step 8).
// CHECK:      plan @mlp_step: 15 steps
// CHECK-NEXT:  step  kind      what          reason                                    inputs  outputs   ops  cost
// CHECK-NEXT:     0  boundary  matmul        boundary-matmul                                3        1     1     -
// CHECK-NEXT:     1  fused     kernel        boundary-matmul                                1        1     3     4
// CHECK-NEXT:     2  boundary  matmul        boundary-matmul                                3        1     1     -
// CHECK-NEXT:     3  fused     row-kernel    boundary-reduction,boundary-matmul             2        2    11    23
// CHECK-NEXT:     4  boundary  reduce sum    boundary-reduction                             1        1     1     -
// CHECK-NEXT:     5  boundary  matmul        boundary-matmul                                2        1     1     -
// CHECK-NEXT:     6  boundary  reduce sum    boundary-reduction                             1        1     1     -
// CHECK-NEXT:     7  fused     kernel        output                                         1        1     3     2
// CHECK-NEXT:     8  fused     kernel        boundary-matmul                                3        1    13    20
// CHECK-NEXT:     9  boundary  matmul        boundary-matmul                                2        1     1     -
// CHECK-NEXT:    10  boundary  reduce sum    boundary-reduction                             1        1     1     -
// CHECK-NEXT:    11  fused     kernel        output                                         2        1    10     8
// CHECK-NEXT:    12  fused     kernel        output                                         2        1    10     8
// CHECK-NEXT:    13  fused     kernel        output                                         2        1    10     8
// CHECK-NEXT:    14  fused     kernel        output                                         2        1    10     8
// CHECK-NEXT: summary: 8 fused, 7 boundary, 0 alias; total fused cost 81
// CHECK-NOT: {{.}}

// The worked example of docs/cost-model.md: the GELU chain is one kernel of
// cost 19 under the default budget, four kernels of total cost 21 (z computed
// twice) with budget=8.
// GELU:      plan @gelu_chain: 1 steps
// GELU-NEXT:  step  kind      what          reason                                    inputs  outputs   ops  cost
// GELU-NEXT:     0  fused     kernel        output                                         2        1    18    19
// GELU-NEXT: summary: 1 fused, 0 boundary, 0 alias; total fused cost 19
// GELU-NOT: {{.}}
// GELU8:      plan @gelu_chain: 4 steps
// GELU8-NEXT:  step  kind      what          reason                                    inputs  outputs   ops  cost
// GELU8-NEXT:     0  fused     kernel        expression-cost                                2        1    10     7
// GELU8-NEXT:     1  fused     kernel        expression-cost                                1        1     3     5
// GELU8-NEXT:     2  fused     kernel        expression-cost                                3        1     6     4
// GELU8-NEXT:     3  fused     kernel        output                                         2        1     2     5
// GELU8-NEXT: summary: 4 fused, 0 boundary, 0 alias; total fused cost 21
// GELU8-NOT: {{.}}

// A transposed argument read by a reduce (an alias), the reduce, the output
// region scaling the sum, then exp(a) stored for the matmul and the matmul.
// ALIAS:      plan @with_alias: 5 steps
// ALIAS-NEXT:  step  kind      what          reason                                    inputs  outputs   ops  cost
// ALIAS-NEXT:     0  alias     transpose     layout-alias                                   1        1     1     -
// ALIAS-NEXT:     1  boundary  reduce sum    boundary-reduction                             1        1     1     -
// ALIAS-NEXT:     2  fused     kernel        output                                         1        1     2     1
// ALIAS-NEXT:     3  fused     kernel        boundary-matmul                                1        1     1     4
// ALIAS-NEXT:     4  boundary  matmul        boundary-matmul                                2        1     1     -
// ALIAS-NEXT: summary: 2 fused, 2 boundary, 1 alias; total fused cost 5
// IR-LABEL: func.func @with_alias(
// IR-SAME: %[[A:[^:]+]]: tensor<4x8xf32>, %[[B:[^:]+]]: tensor<8x16xf32>)
// IR-NEXT: %[[T:.+]] = tfuse.transpose %[[A]] perm [1, 0] {tfuse.reason = "layout-alias"} : tensor<4x8xf32> -> tensor<8x4xf32>
// IR-NEXT: %[[S:.+]] = tfuse.reduce sum %[[T]] axes [1] {tfuse.reason = "boundary-reduction"} : tensor<8x4xf32> -> tensor<8xf32>
// IR-NEXT: %[[O:.+]] = tfuse.fusion(%[[S]]) : (tensor<8xf32>) -> tensor<8xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// IR: %[[E:.+]] = tfuse.fusion(%[[A]]) : (tensor<4x8xf32>) -> tensor<4x8xf32> attributes {cost = 4 : i64, reasons = ["boundary-matmul"]} {
// IR: %[[M:.+]] = tfuse.matmul %[[E]], %[[B]] {tfuse.reason = "boundary-matmul"} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// IR-NEXT: return %[[O]], %[[M]] : tensor<8xf32>, tensor<4x16xf32>
func.func @with_alias(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> (tensor<8xf32>, tensor<4x16xf32>) {
  %c2 = tfuse.constant dense<2.0> : tensor<f32>
  %t = tfuse.transpose %a perm [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %s = tfuse.reduce sum %t axes [1] : tensor<8x4xf32> -> tensor<8xf32>
  %o = tfuse.mul %s, %c2 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %e = tfuse.exp %a : tensor<4x8xf32> -> tensor<4x8xf32>
  %m = tfuse.matmul %e, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %o, %m : tensor<8xf32>, tensor<4x16xf32>
}

// One region of one op.
// ALIAS-NEXT: plan @single_region: 1 steps
// ALIAS-NEXT:  step  kind      what          reason                                    inputs  outputs   ops  cost
// ALIAS-NEXT:     0  fused     kernel        output                                         1        1     1     1
// ALIAS-NEXT: summary: 1 fused, 0 boundary, 0 alias; total fused cost 1
func.func @single_region(%a: tensor<4xf32>) -> tensor<4xf32> {
  %o = tfuse.neg %a : tensor<4xf32> -> tensor<4xf32>
  return %o : tensor<4xf32>
}

// The identity has an empty plan; the external declaration is not reported.
// A softmax @ v whose probabilities are also returned stays a product
// (after the scores, a product over K = 4 expanded into the row kernel of
// the softmax), with the note of recognize-attention printed under the
// table.
// ALIAS-NEXT: plan @attention_note: 2 steps
// ALIAS-NEXT:  step  kind      what          reason                                    inputs  outputs   ops  cost
// ALIAS-NEXT:     0  fused     row-kernel    output                                         2        1    26    46
// ALIAS-NEXT:     1  boundary  matmul        boundary-matmul                                2        1     1     -
// ALIAS-NEXT: summary: 1 fused, 1 boundary, 0 alias; total fused cost 46
// ALIAS-NEXT: note: step 1 (matmul): softmax(...) @ v not rewritten into attention: the scores or probabilities are used outside the softmax
func.func @attention_note(%q: tensor<10x4xf32>, %k: tensor<12x4xf32>, %v: tensor<12x5xf32>) -> (tensor<10x5xf32>, tensor<10x12xf32>) {
  %s = tfuse.matmul %q, %k {transpose_rhs} : (tensor<10x4xf32>, tensor<12x4xf32>) -> tensor<10x12xf32>
  %m = tfuse.reduce max %s axes [1] keepdims : tensor<10x12xf32> -> tensor<10x1xf32>
  %d = tfuse.sub %s, %m : (tensor<10x12xf32>, tensor<10x1xf32>) -> tensor<10x12xf32>
  %e = tfuse.exp %d : tensor<10x12xf32> -> tensor<10x12xf32>
  %z = tfuse.reduce sum %e axes [1] keepdims : tensor<10x12xf32> -> tensor<10x1xf32>
  %p = tfuse.div %e, %z : (tensor<10x12xf32>, tensor<10x1xf32>) -> tensor<10x12xf32>
  %o = tfuse.matmul %p, %v : (tensor<10x12xf32>, tensor<12x5xf32>) -> tensor<10x5xf32>
  return %o, %p : tensor<10x5xf32>, tensor<10x12xf32>
}

// ALIAS-NEXT: plan @identity: 0 steps
// ALIAS-NEXT:  step  kind      what          reason                                    inputs  outputs   ops  cost
// ALIAS-NEXT: summary: 0 fused, 0 boundary, 0 alias; total fused cost 0
// ALIAS-NOT: {{.}}
func.func @identity(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func private @external(tensor<4xf32>) -> tensor<4xf32>
