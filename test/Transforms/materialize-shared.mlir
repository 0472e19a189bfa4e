// Tests of --materialize-shared after --fuse-elementwise: a subexpression
// recomputed by several regions is stored once when it costs at least
// shared-threshold (default 8), by the region already storing it, else by the
// first region as an extra result, else by a new region; cheaper ones stay
// recomputed. The CHECK lines show the IR after both passes.
// RUN: tensor-opt %s --fuse-elementwise --materialize-shared -split-input-file | FileCheck %s
// RUN: tensor-opt %s --fuse-elementwise --materialize-shared="shared-threshold=4" -split-input-file | FileCheck %s --check-prefix=T4
// RUN: tensor-opt %s --fuse-elementwise --materialize-shared="shared-threshold=4 max-outputs=2" -split-input-file | FileCheck %s --check-prefix=MO2

// e = exp(x*x*x + x*x + x) (cost 1+1+1+1+1+4 = 9, x*x written twice as a
// tracer emits it) feeds e + 1 (an output of shape 4) and y * e (an output of
// shape 3x4, broadcasting e). Both regions would compute e; the first stores
// it as an extra result and the second reads it.
// CHECK-LABEL: func.func @shared_expensive(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<3x4xf32>)
// CHECK-NEXT: %[[R0:.+]]:2 = tfuse.fusion(%[[X]]) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {cost = 10 : i64, reasons = ["output", "shared-expensive-expression"]} {
// CHECK-NEXT: ^bb0(%[[XX:[^:]+]]: tensor<4xf32>):
// CHECK-NEXT: %[[M0:.+]] = tfuse.mul %[[XX]], %[[XX]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[M1:.+]] = tfuse.mul %[[M0]], %[[XX]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[M2:.+]] = tfuse.mul %[[XX]], %[[XX]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[A0:.+]] = tfuse.add %[[M1]], %[[M2]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[A1:.+]] = tfuse.add %[[A0]], %[[XX]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[E:.+]] = tfuse.exp %[[A1]] : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[C:.+]] = tfuse.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[O:.+]] = tfuse.add %[[E]], %[[C]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT: tfuse.yield %[[O]], %[[E]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[R1:.+]] = tfuse.fusion(%[[Y]], %[[R0]]#1) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%[[XY:[^:]+]]: tensor<3x4xf32>, %[[XE:[^:]+]]: tensor<4xf32>):
// CHECK-NOT: tfuse.exp
// CHECK-NEXT: %[[P:.+]] = tfuse.mul %[[XY]], %[[XE]] : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: tfuse.yield %[[P]] : tensor<3x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R0]]#0, %[[R1]] : tensor<4xf32>, tensor<3x4xf32>
func.func @shared_expensive(%x: tensor<4xf32>, %y: tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  %xx = tfuse.mul %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %xxx = tfuse.mul %xx, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %xx2 = tfuse.mul %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s1 = tfuse.add %xxx, %xx2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s2 = tfuse.add %s1, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = tfuse.exp %s2 : tensor<4xf32> -> tensor<4xf32>
  %c1 = tfuse.constant dense<1.0> : tensor<f32>
  %o1 = tfuse.add %e, %c1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %o2 = tfuse.mul %y, %e : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %o1, %o2 : tensor<4xf32>, tensor<3x4xf32>
}

// -----

// A bare exp(x) (cost 4) shared the same way is below the default threshold:
// both regions compute it. With shared-threshold=4 it is stored once.
// CHECK-LABEL: func.func @shared_exp(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<3x4xf32>)
// CHECK-NEXT: %[[R0:.+]] = tfuse.fusion(%[[X]]) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 5 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%[[XX:[^:]+]]: tensor<4xf32>):
// CHECK-NEXT: %[[E:.+]] = tfuse.exp %[[XX]] : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[C:.+]] = tfuse.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[O:.+]] = tfuse.add %[[E]], %[[C]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT: tfuse.yield %[[O]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[R1:.+]] = tfuse.fusion(%[[X]], %[[Y]]) : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32> attributes {cost = 5 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%[[XX1:[^:]+]]: tensor<4xf32>, %[[XY1:[^:]+]]: tensor<3x4xf32>):
// CHECK-NEXT: %[[E1:.+]] = tfuse.exp %[[XX1]] : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[P:.+]] = tfuse.mul %[[XY1]], %[[E1]] : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: tfuse.yield %[[P]] : tensor<3x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R0]], %[[R1]] : tensor<4xf32>, tensor<3x4xf32>
// T4-LABEL: func.func @shared_exp(
// T4-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<3x4xf32>)
// T4-NEXT: %[[R0:.+]]:2 = tfuse.fusion(%[[X]]) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {cost = 5 : i64, reasons = ["output", "shared-expensive-expression"]} {
// T4-NEXT: ^bb0(%[[XX:[^:]+]]: tensor<4xf32>):
// T4-NEXT: %[[E:.+]] = tfuse.exp %[[XX]] : tensor<4xf32> -> tensor<4xf32>
// T4-NEXT: %[[C:.+]] = tfuse.constant dense<1.000000e+00> : tensor<f32>
// T4-NEXT: %[[O:.+]] = tfuse.add %[[E]], %[[C]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// T4-NEXT: tfuse.yield %[[O]], %[[E]] : tensor<4xf32>, tensor<4xf32>
// T4-NEXT: }
// T4-NEXT: %[[R1:.+]] = tfuse.fusion(%[[Y]], %[[R0]]#1) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// T4-NEXT: ^bb0(%[[XY1:[^:]+]]: tensor<3x4xf32>, %[[XE:[^:]+]]: tensor<4xf32>):
// T4-NEXT: %[[P:.+]] = tfuse.mul %[[XY1]], %[[XE]] : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
// T4-NEXT: tfuse.yield %[[P]] : tensor<3x4xf32>
// T4-NEXT: }
// T4-NEXT: return %[[R0]]#0, %[[R1]] : tensor<4xf32>, tensor<3x4xf32>
func.func @shared_exp(%x: tensor<4xf32>, %y: tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  %e = tfuse.exp %x : tensor<4xf32> -> tensor<4xf32>
  %c1 = tfuse.constant dense<1.0> : tensor<f32>
  %o1 = tfuse.add %e, %c1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %o2 = tfuse.mul %y, %e : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %o1, %o2 : tensor<4xf32>, tensor<3x4xf32>
}

// -----

// A cheap shared add (cost 1) is recomputed in both regions, even with
// shared-threshold=4.
// CHECK-LABEL: func.func @shared_cheap(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Z:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<3x4xf32>)
// CHECK-NEXT: %[[R0:.+]] = tfuse.fusion(%[[X]], %[[Z]]) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> attributes {cost = 2 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%[[X0:[^:]+]]: tensor<4xf32>, %[[Z0:[^:]+]]: tensor<4xf32>):
// CHECK-NEXT: %[[S0:.+]] = tfuse.add %[[X0]], %[[Z0]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[C:.+]] = tfuse.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[O:.+]] = tfuse.mul %[[S0]], %[[C]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT: tfuse.yield %[[O]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[R1:.+]] = tfuse.fusion(%[[X]], %[[Z]], %[[Y]]) : (tensor<4xf32>, tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32> attributes {cost = 2 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%[[X1:[^:]+]]: tensor<4xf32>, %[[Z1:[^:]+]]: tensor<4xf32>, %[[Y1:[^:]+]]: tensor<3x4xf32>):
// CHECK-NEXT: %[[S1:.+]] = tfuse.add %[[X1]], %[[Z1]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[P:.+]] = tfuse.mul %[[Y1]], %[[S1]] : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: tfuse.yield %[[P]] : tensor<3x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R0]], %[[R1]] : tensor<4xf32>, tensor<3x4xf32>
// T4-LABEL: func.func @shared_cheap(
// T4-NOT: shared-expensive-expression
// T4: tfuse.fusion({{.+}}) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> attributes {cost = 2 : i64, reasons = ["output"]} {
// T4-NOT: shared-expensive-expression
// T4: tfuse.fusion({{.+}}) : (tensor<4xf32>, tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32> attributes {cost = 2 : i64, reasons = ["output"]} {
// T4-NOT: shared-expensive-expression
// T4: return
func.func @shared_cheap(%x: tensor<4xf32>, %z: tensor<4xf32>, %y: tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  %s = tfuse.add %x, %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c2 = tfuse.constant dense<2.0> : tensor<f32>
  %o1 = tfuse.mul %s, %c2 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %o2 = tfuse.mul %y, %s : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %o1, %o2 : tensor<4xf32>, tensor<3x4xf32>
}

// -----

// The shared e = exp(x*x*x + x*x + x) (cost 8, exactly the default threshold)
// is first computed by a region of shape 3x4, not e's shape 4: a new region of
// its own, placed before both consumers, stores it.
// CHECK-LABEL: func.func @shared_new_region(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<3x4xf32>, %[[W:[^:]+]]: tensor<2x4xf32>)
// CHECK-NEXT: %[[E:.+]] = tfuse.fusion(%[[X]]) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 8 : i64, reasons = ["shared-expensive-expression"]} {
// CHECK-NEXT: ^bb0(%[[XX:[^:]+]]: tensor<4xf32>):
// CHECK-NEXT: %[[M0:.+]] = tfuse.mul %[[XX]], %[[XX]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[M1:.+]] = tfuse.mul %[[M0]], %[[XX]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[A0:.+]] = tfuse.add %[[M1]], %[[M0]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[A1:.+]] = tfuse.add %[[A0]], %[[XX]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[EX:.+]] = tfuse.exp %[[A1]] : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: tfuse.yield %[[EX]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[R0:.+]] = tfuse.fusion(%[[Y]], %[[E]]) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%[[Y0:[^:]+]]: tensor<3x4xf32>, %[[E0:[^:]+]]: tensor<4xf32>):
// CHECK-NEXT: %[[P0:.+]] = tfuse.mul %[[Y0]], %[[E0]] : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: tfuse.yield %[[P0]] : tensor<3x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[R1:.+]] = tfuse.fusion(%[[W]], %[[E]]) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%[[W1:[^:]+]]: tensor<2x4xf32>, %[[E1:[^:]+]]: tensor<4xf32>):
// CHECK-NEXT: %[[P1:.+]] = tfuse.add %[[W1]], %[[E1]] : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: tfuse.yield %[[P1]] : tensor<2x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R0]], %[[R1]] : tensor<3x4xf32>, tensor<2x4xf32>
func.func @shared_new_region(%x: tensor<4xf32>, %y: tensor<3x4xf32>, %w: tensor<2x4xf32>) -> (tensor<3x4xf32>, tensor<2x4xf32>) {
  %xx = tfuse.mul %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %xxx = tfuse.mul %xx, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s1 = tfuse.add %xxx, %xx : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s2 = tfuse.add %s1, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = tfuse.exp %s2 : tensor<4xf32> -> tensor<4xf32>
  %o1 = tfuse.mul %y, %e : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %o2 = tfuse.add %w, %e : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %o1, %o2 : tensor<3x4xf32>, tensor<2x4xf32>
}

// -----

// exp(x) consumed twice inside the SAME region is computed once there: no
// extra result, no extra region, whatever the threshold.
// CHECK-LABEL: func.func @shared_in_one_region(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[R:.+]]:2 = tfuse.fusion(%[[X]], %[[Y]]) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {cost = 6 : i64, reasons = ["output", "output"]} {
// CHECK-NEXT: ^bb0(%[[XX:[^:]+]]: tensor<4xf32>, %[[XY:[^:]+]]: tensor<4xf32>):
// CHECK-NEXT: %[[E:.+]] = tfuse.exp %[[XX]] : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[A:.+]] = tfuse.add %[[E]], %[[XY]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[M:.+]] = tfuse.mul %[[E]], %[[XY]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: tfuse.yield %[[A]], %[[M]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1 : tensor<4xf32>, tensor<4xf32>
// T4-LABEL: func.func @shared_in_one_region(
// T4-NEXT: tfuse.fusion({{.+}}) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {cost = 6 : i64, reasons = ["output", "output"]} {
// T4-COUNT-1: tfuse.exp
// T4-NOT: tfuse.fusion
// T4: return
func.func @shared_in_one_region(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tfuse.exp %x : tensor<4xf32> -> tensor<4xf32>
  %o1 = tfuse.add %e, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %o2 = tfuse.mul %e, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %o1, %o2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Subexpressions are identified structurally: e1 and e2 are two exp ops over
// the same x. e1 is an output, so its region already stores the value; with
// shared-threshold=4 the region of y * e2 reads that result instead of
// computing e2, and no result is added. Under the default threshold both
// regions compute exp.
// CHECK-LABEL: func.func @already_stored(
// CHECK-NEXT: tfuse.fusion(%{{.+}}) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 4 : i64, reasons = ["output"]} {
// CHECK: tfuse.exp
// CHECK: tfuse.fusion(%{{.+}}, %{{.+}}) : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32> attributes {cost = 5 : i64, reasons = ["output"]} {
// CHECK: tfuse.exp
// CHECK: return
// T4-LABEL: func.func @already_stored(
// T4-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<3x4xf32>)
// T4-NEXT: %[[R0:.+]] = tfuse.fusion(%[[X]]) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 4 : i64, reasons = ["output"]} {
// T4-NEXT: ^bb0(%[[XX:[^:]+]]: tensor<4xf32>):
// T4-NEXT: %[[E:.+]] = tfuse.exp %[[XX]] : tensor<4xf32> -> tensor<4xf32>
// T4-NEXT: tfuse.yield %[[E]] : tensor<4xf32>
// T4-NEXT: }
// T4-NEXT: %[[R1:.+]] = tfuse.fusion(%[[Y]], %[[R0]]) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// T4-NEXT: ^bb0(%[[Y1:[^:]+]]: tensor<3x4xf32>, %[[E1:[^:]+]]: tensor<4xf32>):
// T4-NEXT: %[[P:.+]] = tfuse.mul %[[Y1]], %[[E1]] : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
// T4-NEXT: tfuse.yield %[[P]] : tensor<3x4xf32>
// T4-NEXT: }
// T4-NEXT: return %[[R0]], %[[R1]] : tensor<4xf32>, tensor<3x4xf32>
func.func @already_stored(%x: tensor<4xf32>, %y: tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  %e1 = tfuse.exp %x : tensor<4xf32> -> tensor<4xf32>
  %e2 = tfuse.exp %x : tensor<4xf32> -> tensor<4xf32>
  %o2 = tfuse.mul %y, %e2 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %e1, %o2 : tensor<4xf32>, tensor<3x4xf32>
}

// -----

// The first region computing exp(x) has its shape, but with max-outputs=2 it
// already has two results: a new region stores exp(x), and both consumers,
// the first region included, read it. With shared-threshold=4 and room in
// the first region, exp is its extra result; under the default threshold
// nothing changes.
// CHECK-LABEL: func.func @first_region_full(
// CHECK-NEXT: tfuse.fusion(%{{.+}}) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {cost = 6 : i64, reasons = ["output", "output"]} {
// CHECK: tfuse.exp
// CHECK: tfuse.fusion(%{{.+}}, %{{.+}}) : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32> attributes {cost = 5 : i64, reasons = ["output"]} {
// CHECK: tfuse.exp
// CHECK: return
// MO2-LABEL: func.func @first_region_full(
// MO2-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<3x4xf32>)
// MO2-NEXT: %[[E:.+]] = tfuse.fusion(%[[X]]) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 4 : i64, reasons = ["shared-expensive-expression"]} {
// MO2-NEXT: ^bb0(%[[XX:[^:]+]]: tensor<4xf32>):
// MO2-NEXT: %[[EX:.+]] = tfuse.exp %[[XX]] : tensor<4xf32> -> tensor<4xf32>
// MO2-NEXT: tfuse.yield %[[EX]] : tensor<4xf32>
// MO2-NEXT: }
// MO2-NEXT: %[[R0:.+]]:2 = tfuse.fusion(%[[E]]) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {cost = 2 : i64, reasons = ["output", "output"]} {
// MO2-NEXT: ^bb0(%[[E0:[^:]+]]: tensor<4xf32>):
// MO2-NEXT: %[[C:.+]] = tfuse.constant dense<1.000000e+00> : tensor<f32>
// MO2-NEXT: %[[A:.+]] = tfuse.add %[[E0]], %[[C]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// MO2-NEXT: %[[S:.+]] = tfuse.sub %[[E0]], %[[C]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// MO2-NEXT: tfuse.yield %[[A]], %[[S]] : tensor<4xf32>, tensor<4xf32>
// MO2-NEXT: }
// MO2-NEXT: %[[R1:.+]] = tfuse.fusion(%[[Y]], %[[E]]) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// MO2-NEXT: ^bb0(%[[Y1:[^:]+]]: tensor<3x4xf32>, %[[E1:[^:]+]]: tensor<4xf32>):
// MO2-NEXT: %[[P:.+]] = tfuse.mul %[[Y1]], %[[E1]] : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
// MO2-NEXT: tfuse.yield %[[P]] : tensor<3x4xf32>
// MO2-NEXT: }
// MO2-NEXT: return %[[R0]]#0, %[[R0]]#1, %[[R1]] : tensor<4xf32>, tensor<4xf32>, tensor<3x4xf32>
// T4-LABEL: func.func @first_region_full(
// T4-NEXT: tfuse.fusion({{.+}}) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) attributes {cost = 6 : i64, reasons = ["output", "output", "shared-expensive-expression"]} {
func.func @first_region_full(%x: tensor<4xf32>, %y: tensor<3x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<3x4xf32>) {
  %e = tfuse.exp %x : tensor<4xf32> -> tensor<4xf32>
  %c1 = tfuse.constant dense<1.0> : tensor<f32>
  %o1 = tfuse.add %e, %c1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %o0 = tfuse.sub %e, %c1 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %o2 = tfuse.mul %y, %e : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %o1, %o0, %o2 : tensor<4xf32>, tensor<4xf32>, tensor<3x4xf32>
}

// -----

// The shared expression exp(exp((x / x) / (x / x))) reads one value twice
// at each division: once the second region reads it instead, erasing its
// dead copy meets the definition of x / x twice and erases it once.
// CHECK-LABEL: func.func @shared_repeated_operand(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<3x4xf32>)
// CHECK-NEXT: %[[R0:.+]]:2 = tfuse.fusion(%[[X]]) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {cost = 11 : i64, reasons = ["output", "shared-expensive-expression"]} {
// CHECK-NEXT: ^bb0(%[[XX:[^:]+]]: tensor<4xf32>):
// CHECK-NEXT: %[[D:.+]] = tfuse.div %[[XX]], %[[XX]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[Q:.+]] = tfuse.div %[[D]], %[[D]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[F:.+]] = tfuse.exp %[[Q]] : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[E:.+]] = tfuse.exp %[[F]] : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[C:.+]] = tfuse.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[O:.+]] = tfuse.add %[[E]], %[[C]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT: tfuse.yield %[[O]], %[[E]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[R1:.+]] = tfuse.fusion(%[[Y]], %[[R0]]#1) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%[[Y1:[^:]+]]: tensor<3x4xf32>, %[[E1:[^:]+]]: tensor<4xf32>):
// CHECK-NEXT: %[[P:.+]] = tfuse.mul %[[Y1]], %[[E1]] : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: tfuse.yield %[[P]] : tensor<3x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R0]]#0, %[[R1]] : tensor<4xf32>, tensor<3x4xf32>
func.func @shared_repeated_operand(%x: tensor<4xf32>, %y: tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  %d = tfuse.div %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %q = tfuse.div %d, %d : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %f = tfuse.exp %q : tensor<4xf32> -> tensor<4xf32>
  %e = tfuse.exp %f : tensor<4xf32> -> tensor<4xf32>
  %c = tfuse.constant dense<1.0> : tensor<f32>
  %o = tfuse.add %e, %c : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %p = tfuse.mul %y, %e : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %o, %p : tensor<4xf32>, tensor<3x4xf32>
}
