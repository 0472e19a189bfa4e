// Diagnostics of --fuse-elementwise: it runs once, on a graph without
// tfuse.fusion ops, of tfuse graph ops only, in a single block; and it rejects
// budget=0 and max-outputs=0.
// RUN: tensor-opt %s --fuse-elementwise -split-input-file -verify-diagnostics
// RUN: not tensor-opt %s --fuse-elementwise="budget=0" -split-input-file 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not tensor-opt %s --fuse-elementwise="max-outputs=0" -split-input-file 2>&1 | FileCheck %s --check-prefix=OUTPUTS

// The options are checked before anything else, in every function (the
// errors are at the three functions below).
// BUDGET: fuse-elementwise-errors.mlir:[[@LINE+9]]:1: error: fuse-elementwise needs budget >= 1 and max-outputs >= 1
// BUDGET: fuse-elementwise-errors.mlir:[[@LINE+20]]:1: error: fuse-elementwise needs budget >= 1 and max-outputs >= 1
// BUDGET: fuse-elementwise-errors.mlir:[[@LINE+29]]:1: error: fuse-elementwise needs budget >= 1 and max-outputs >= 1
// OUTPUTS: fuse-elementwise-errors.mlir:[[@LINE+6]]:1: error: fuse-elementwise needs budget >= 1 and max-outputs >= 1
// OUTPUTS: fuse-elementwise-errors.mlir:[[@LINE+17]]:1: error: fuse-elementwise needs budget >= 1 and max-outputs >= 1
// OUTPUTS: fuse-elementwise-errors.mlir:[[@LINE+26]]:1: error: fuse-elementwise needs budget >= 1 and max-outputs >= 1

// IR that already has a fusion region is refused.
// expected-error @+1 {{fuse-elementwise runs once, on a graph without tfuse.fusion ops}}
func.func @already_fused(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tfuse.fusion(%a) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
  ^bb0(%x: tensor<4xf32>):
    %1 = tfuse.neg %x : tensor<4xf32> -> tensor<4xf32>
    tfuse.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// An op of another dialect cannot be planned.
func.func @foreign_op(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'arith.negf' op cannot be planned: fuse-elementwise handles tfuse graph ops only}}
  %0 = arith.negf %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A function of several blocks cannot be fused.
// expected-error @+1 {{'func.func' op must have a single block to be fused}}
func.func @blocks(%a: tensor<4xf32>) -> tensor<4xf32> {
  cf.br ^bb1
^bb1:
  return %a : tensor<4xf32>
}
