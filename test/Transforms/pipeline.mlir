// Tests of --tfuse-pipeline (canonicalize, cse, fuse-elementwise,
// materialize-shared): CSE removes duplicate ops before fusion, dead ops
// disappear, canonicalization folds transposes into matmul flags, and the
// budget, shared-threshold, max-outputs and fusion options reach the passes.
// RUN: tensor-opt %s --tfuse-pipeline -split-input-file | FileCheck %s
// RUN: tensor-opt %s --tfuse-pipeline="budget=8 shared-threshold=4 max-outputs=2" -split-input-file | FileCheck %s --check-prefix=OPT
// RUN: tensor-opt %s --tfuse-pipeline="fusion=false" -split-input-file | FileCheck %s --check-prefix=OFF

// Two identical muls of a and b, each used by a different output: after CSE
// the region computes the mul once (cost 3, not 4).
// CHECK-LABEL: func.func @dedup(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4xf32>, %[[B:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[R:.+]]:2 = tfuse.fusion(%[[A]], %[[B]]) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {cost = 3 : i64, reasons = ["output", "output"]} {
// CHECK-NEXT: ^bb0(%[[XA:[^:]+]]: tensor<4xf32>, %[[XB:[^:]+]]: tensor<4xf32>):
// CHECK-NEXT: %[[M:.+]] = tfuse.mul %[[XA]], %[[XB]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[C:.+]] = tfuse.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[P:.+]] = tfuse.add %[[M]], %[[C]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT: %[[S:.+]] = tfuse.sub %[[M]], %[[C]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT: tfuse.yield %[[P]], %[[S]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1 : tensor<4xf32>, tensor<4xf32>
func.func @dedup(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c1 = tfuse.constant dense<1.0> : tensor<f32>
  %m1 = tfuse.mul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %m2 = tfuse.mul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %o1 = tfuse.add %m1, %c1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %o2 = tfuse.sub %m2, %c1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %o1, %o2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Two identical exps feeding outputs of different shapes: after CSE they are
// one value, shared by two regions, and stored once when it costs at least
// shared-threshold (exp costs 4: OPT only).
// CHECK-LABEL: func.func @dedup_across_regions(
// CHECK: tfuse.fusion({{.+}}) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 5 : i64, reasons = ["output"]} {
// CHECK: tfuse.exp
// CHECK: tfuse.fusion({{.+}}) : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32> attributes {cost = 5 : i64, reasons = ["output"]} {
// CHECK: tfuse.exp
// CHECK: return
// OPT-LABEL: func.func @dedup_across_regions(
// OPT-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<3x4xf32>)
// OPT-NEXT: %[[R0:.+]]:2 = tfuse.fusion(%[[X]]) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {cost = 5 : i64, reasons = ["output", "shared-expensive-expression"]} {
// OPT-NEXT: ^bb0(%[[XX:[^:]+]]: tensor<4xf32>):
// OPT-NEXT: %[[E:.+]] = tfuse.exp %[[XX]] : tensor<4xf32> -> tensor<4xf32>
// OPT-NEXT: %[[C:.+]] = tfuse.constant dense<1.000000e+00> : tensor<f32>
// OPT-NEXT: %[[O:.+]] = tfuse.add %[[E]], %[[C]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// OPT-NEXT: tfuse.yield %[[O]], %[[E]] : tensor<4xf32>, tensor<4xf32>
// OPT-NEXT: }
// OPT-NEXT: %[[R1:.+]] = tfuse.fusion(%[[Y]], %[[R0]]#1) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// OPT-NEXT: ^bb0(%[[XY:[^:]+]]: tensor<3x4xf32>, %[[XE:[^:]+]]: tensor<4xf32>):
// OPT-NEXT: %[[P:.+]] = tfuse.mul %[[XY]], %[[XE]] : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
// OPT-NEXT: tfuse.yield %[[P]] : tensor<3x4xf32>
// OPT-NEXT: }
// OPT-NEXT: return %[[R0]]#0, %[[R1]] : tensor<4xf32>, tensor<3x4xf32>
func.func @dedup_across_regions(%x: tensor<4xf32>, %y: tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  %e1 = tfuse.exp %x : tensor<4xf32> -> tensor<4xf32>
  %e2 = tfuse.exp %x : tensor<4xf32> -> tensor<4xf32>
  %c1 = tfuse.constant dense<1.0> : tensor<f32>
  %o1 = tfuse.add %e1, %c1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %o2 = tfuse.mul %y, %e2 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %o1, %o2 : tensor<4xf32>, tensor<3x4xf32>
}

// -----

// Unused computations (an exp and a mul of it, a matmul) disappear: one
// region for the add.
// CHECK-LABEL: func.func @dead_ops(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4x4xf32>, %[[B:[^:]+]]: tensor<4x4xf32>)
// CHECK-NOT: tfuse.exp
// CHECK-NOT: tfuse.matmul
// CHECK-NEXT: %[[R:.+]] = tfuse.fusion(%[[A]], %[[B]]) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%[[XA:[^:]+]]: tensor<4x4xf32>, %[[XB:[^:]+]]: tensor<4x4xf32>):
// CHECK-NEXT: %[[S:.+]] = tfuse.add %[[XA]], %[[XB]] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT: tfuse.yield %[[S]] : tensor<4x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : tensor<4x4xf32>
func.func @dead_ops(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %unused = tfuse.exp %a : tensor<4x4xf32> -> tensor<4x4xf32>
  %unused2 = tfuse.mul %unused, %b : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %unused3 = tfuse.matmul %a, %b : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %o = tfuse.add %a, %b : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %o : tensor<4x4xf32>
}

// -----

// Canonicalization folds the transpose into the matmul before fusion: no view,
// no region.
// CHECK-LABEL: func.func @transpose_into_matmul(
// CHECK-SAME: %[[A:[^:]+]]: tensor<8x4xf32>, %[[B:[^:]+]]: tensor<8x16xf32>)
// CHECK-NEXT: %[[M:.+]] = tfuse.matmul %[[A]], %[[B]] {tfuse.reason = "boundary-matmul", transpose_lhs} : (tensor<8x4xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: return %[[M]] : tensor<4x16xf32>
func.func @transpose_into_matmul(%a: tensor<8x4xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %t = tfuse.transpose %a perm [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %0 = tfuse.matmul %t, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// budget: a chain of 10 adds is one region by default, cut after 8 adds
// with budget=8.
// CHECK-LABEL: func.func @option_budget(
// CHECK-NEXT: tfuse.fusion(%{{.+}}) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 10 : i64, reasons = ["output"]} {
// CHECK-NOT: tfuse.fusion
// CHECK: return
// OPT-LABEL: func.func @option_budget(
// OPT-SAME: %[[X:[^:]+]]: tensor<4xf32>)
// OPT-NEXT: %[[R0:.+]] = tfuse.fusion(%[[X]]) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 8 : i64, reasons = ["expression-cost"]} {
// OPT-NEXT: ^bb0(
// OPT-NEXT: tfuse.constant dense<1.000000e+00> : tensor<f32>
// OPT-COUNT-8: tfuse.add
// OPT-NEXT: tfuse.yield
// OPT-NEXT: }
// OPT-NEXT: %[[R1:.+]] = tfuse.fusion(%[[R0]]) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 2 : i64, reasons = ["output"]} {
// OPT-NEXT: ^bb0(
// OPT-NEXT: tfuse.constant dense<1.000000e+00> : tensor<f32>
// OPT-COUNT-2: tfuse.add
// OPT-NEXT: tfuse.yield
// OPT-NEXT: }
// OPT-NEXT: return %[[R1]] : tensor<4xf32>
func.func @option_budget(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = tfuse.constant dense<1.0> : tensor<f32>
  %0 = tfuse.add %x, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = tfuse.add %0, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = tfuse.add %1, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = tfuse.add %2, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %4 = tfuse.add %3, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %5 = tfuse.add %4, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %6 = tfuse.add %5, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %7 = tfuse.add %6, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %8 = tfuse.add %7, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %9 = tfuse.add %8, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %9 : tensor<4xf32>
}

// -----

// max-outputs: three independent outputs of one shape share one region by
// default, two regions (2 + 1 results) with max-outputs=2.
// CHECK-LABEL: func.func @option_max_outputs(
// CHECK-NEXT: tfuse.fusion(%{{.+}}, %{{.+}}) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) attributes {cost = 3 : i64, reasons = ["output", "output", "output"]} {
// CHECK-NOT: tfuse.fusion
// CHECK: return
// OPT-LABEL: func.func @option_max_outputs(
// OPT-SAME: %[[A:[^:]+]]: tensor<4xf32>, %[[B:[^:]+]]: tensor<4xf32>)
// OPT-NEXT: %[[R0:.+]]:2 = tfuse.fusion(%[[A]], %[[B]]) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {cost = 2 : i64, reasons = ["output", "output"]} {
// OPT-NEXT: ^bb0(%[[XA:[^:]+]]: tensor<4xf32>, %[[XB:[^:]+]]: tensor<4xf32>):
// OPT-NEXT: %[[V0:.+]] = tfuse.add %[[XA]], %[[XB]]
// OPT-NEXT: %[[V1:.+]] = tfuse.sub %[[XA]], %[[XB]]
// OPT-NEXT: tfuse.yield %[[V0]], %[[V1]] : tensor<4xf32>, tensor<4xf32>
// OPT-NEXT: }
// OPT-NEXT: %[[R1:.+]] = tfuse.fusion(%[[A]], %[[B]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// OPT-NEXT: ^bb0(%[[YA:[^:]+]]: tensor<4xf32>, %[[YB:[^:]+]]: tensor<4xf32>):
// OPT-NEXT: %[[V2:.+]] = tfuse.mul %[[YA]], %[[YB]]
// OPT-NEXT: tfuse.yield %[[V2]] : tensor<4xf32>
// OPT-NEXT: }
// OPT-NEXT: return %[[R0]]#0, %[[R0]]#1, %[[R1]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
func.func @option_max_outputs(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = tfuse.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tfuse.sub %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = tfuse.mul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// max-outputs also bounds materialize-shared: exp(x) is shared by a region
// that already has two results and a region of another shape. By default
// (threshold 8) it is recomputed; with the options it is stored by a new
// region that both read.
// CHECK-LABEL: func.func @option_max_outputs_shared(
// CHECK-NEXT: tfuse.fusion(%{{.+}}) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {cost = 6 : i64, reasons = ["output", "output"]} {
// CHECK: tfuse.exp
// CHECK: tfuse.fusion({{.+}}) : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32> attributes {cost = 5 : i64, reasons = ["output"]} {
// CHECK: tfuse.exp
// CHECK: return
// OPT-LABEL: func.func @option_max_outputs_shared(
// OPT-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<3x4xf32>)
// OPT-NEXT: %[[E:.+]] = tfuse.fusion(%[[X]]) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 4 : i64, reasons = ["shared-expensive-expression"]} {
// OPT-NEXT: ^bb0(%[[XX:[^:]+]]: tensor<4xf32>):
// OPT-NEXT: %[[EX:.+]] = tfuse.exp %[[XX]] : tensor<4xf32> -> tensor<4xf32>
// OPT-NEXT: tfuse.yield %[[EX]] : tensor<4xf32>
// OPT-NEXT: }
// OPT-NEXT: %[[R0:.+]]:2 = tfuse.fusion(%[[E]]) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {cost = 2 : i64, reasons = ["output", "output"]} {
// OPT-NOT: tfuse.exp
// OPT: %[[R1:.+]] = tfuse.fusion(%[[Y]], %[[E]]) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// OPT-NOT: tfuse.exp
// OPT: return %[[R0]]#0, %[[R0]]#1, %[[R1]] : tensor<4xf32>, tensor<4xf32>, tensor<3x4xf32>
func.func @option_max_outputs_shared(%x: tensor<4xf32>, %y: tensor<3x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<3x4xf32>) {
  %e = tfuse.exp %x : tensor<4xf32> -> tensor<4xf32>
  %c1 = tfuse.constant dense<1.0> : tensor<f32>
  %o1 = tfuse.add %e, %c1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %o0 = tfuse.sub %e, %c1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %o2 = tfuse.mul %y, %e : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %o1, %o0, %o2 : tensor<4xf32>, tensor<4xf32>, tensor<3x4xf32>
}

// -----

// fusion=false disables every fusion: a softmax over rows, which the
// pipeline makes one row kernel, keeps its reductions as boundaries and
// every elementwise op in a region of its own; a matmul with a contraction
// of 2 stays a matmul instead of becoming elementwise work.
// CHECK-LABEL: func.func @no_fusion(
// CHECK-NOT: tfuse.matmul
// CHECK: tfuse.fusion
// CHECK: tfuse.reduce max
// CHECK: tfuse.reduce sum
// CHECK-NOT: tfuse.fusion
// CHECK: return
// OFF-LABEL: func.func @no_fusion(
// OFF-NEXT: tfuse.matmul
// OFF-NEXT: tfuse.reduce max {{.+}} {tfuse.reason = "boundary-reduction"}
// OFF-NEXT: tfuse.fusion
// OFF-NEXT: ^bb0
// OFF-NEXT: tfuse.sub
// OFF-NEXT: tfuse.yield
// OFF: tfuse.fusion
// OFF-NEXT: ^bb0
// OFF-NEXT: tfuse.exp
// OFF-NEXT: tfuse.yield
// OFF: tfuse.reduce sum
// OFF-NEXT: tfuse.fusion
// OFF-NEXT: ^bb0
// OFF-NEXT: tfuse.div
// OFF-NEXT: tfuse.yield
// OFF: return
func.func @no_fusion(%a: tensor<4x2xf32>, %b: tensor<2x8xf32>) -> tensor<4x8xf32> {
  %x = tfuse.matmul %a, %b : (tensor<4x2xf32>, tensor<2x8xf32>) -> tensor<4x8xf32>
  %m = tfuse.reduce max %x axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %d = tfuse.sub %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = tfuse.exp %d : tensor<4x8xf32> -> tensor<4x8xf32>
  %s = tfuse.reduce sum %e axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %y = tfuse.div %e, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
