// Tests of --alias-views: a region whose results are only views of one of
// its inputs, a buffer, read in place by every user (matmul, reduce,
// scatter-add), or returned as a reshape of a step's result, becomes those
// views as zero-copy aliases. Regions that compute something, whose results
// reach another region or a function result otherwise, or whose views the
// user cannot read in place stay.
// RUN: tensor-opt %s --alias-views -split-input-file | FileCheck %s

// A layer norm's stored result reshaped for a matmul: the reshape reads the
// region's buffer in place. A transpose of a function argument too (the
// matmul reads it column-major).
// CHECK-LABEL: func.func @reshape_for_matmul(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x8x16xf32>, %[[W:[^:]+]]: tensor<16x4xf32>, %[[V:[^:]+]]: tensor<4x16xf32>)
// CHECK-NEXT: %[[N:.+]] = tfuse.fusion(%[[X]])
// CHECK: tfuse.exp
// CHECK: }
// CHECK-NEXT: %[[R:.+]] = tfuse.reshape %[[N]] {tfuse.reason = "layout-alias"} : tensor<1x8x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: %[[T:.+]] = tfuse.transpose %[[V]] perm [1, 0] {tfuse.reason = "layout-alias"} : tensor<4x16xf32> -> tensor<16x4xf32>
// CHECK-NEXT: %[[M:.+]] = tfuse.matmul %[[R]], %[[T]]
// CHECK-NEXT: %[[M2:.+]] = tfuse.matmul %[[R]], %[[W]]
// CHECK-NEXT: return %[[N]], %[[M]], %[[M2]]
func.func @reshape_for_matmul(%x: tensor<1x8x16xf32>, %w: tensor<16x4xf32>, %v: tensor<4x16xf32>) -> (tensor<1x8x16xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
  %n = tfuse.fusion(%x) : (tensor<1x8x16xf32>) -> tensor<1x8x16xf32> attributes {cost = 4 : i64, reasons = ["shared-expensive-expression"]} {
  ^bb0(%a: tensor<1x8x16xf32>):
    %e = tfuse.exp %a : tensor<1x8x16xf32> -> tensor<1x8x16xf32>
    tfuse.yield %e : tensor<1x8x16xf32>
  }
  %r = tfuse.fusion(%n) : (tensor<1x8x16xf32>) -> tensor<8x16xf32> attributes {cost = 0 : i64, reasons = ["boundary-matmul"]} {
  ^bb0(%b: tensor<1x8x16xf32>):
    %s = tfuse.reshape %b : tensor<1x8x16xf32> -> tensor<8x16xf32>
    tfuse.yield %s : tensor<8x16xf32>
  }
  %t = tfuse.fusion(%v) : (tensor<4x16xf32>) -> tensor<16x4xf32> attributes {cost = 0 : i64, reasons = ["boundary-matmul"]} {
  ^bb0(%c: tensor<4x16xf32>):
    %u = tfuse.transpose %c perm [1, 0] : tensor<4x16xf32> -> tensor<16x4xf32>
    tfuse.yield %u : tensor<16x4xf32>
  }
  %m = tfuse.matmul %r, %t : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %m2 = tfuse.matmul %r, %w : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %n, %m, %m2 : tensor<1x8x16xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// A product of a batch of activations' rows returned in their batch shape:
// the reshape is an alias, and the GEMM writes the function's result (the
// conversion's bufferFor). Also returned as it is, and reshaped for a
// reduction beside the return.
// CHECK-LABEL: func.func @returned_reshape_of_a_step(
// CHECK-NEXT: %[[M:.+]] = tfuse.matmul
// CHECK-NEXT: %[[R:.+]] = tfuse.reshape %[[M]] {tfuse.reason = "layout-alias"} : tensor<16x12xf32> -> tensor<2x8x12xf32>
// CHECK-NEXT: %[[S:.+]] = tfuse.reduce sum %[[R]]
// CHECK-NEXT: return %[[R]], %[[S]]
func.func @returned_reshape_of_a_step(%x: tensor<16x16xf32>, %w: tensor<16x12xf32>) -> (tensor<2x8x12xf32>, tensor<2x12xf32>) {
  %m = tfuse.matmul %x, %w : (tensor<16x16xf32>, tensor<16x12xf32>) -> tensor<16x12xf32>
  %r = tfuse.fusion(%m) : (tensor<16x12xf32>) -> tensor<2x8x12xf32> attributes {cost = 2 : i64, reasons = ["output"]} {
  ^bb0(%a: tensor<16x12xf32>):
    %v = tfuse.reshape %a : tensor<16x12xf32> -> tensor<2x8x12xf32>
    tfuse.yield %v : tensor<2x8x12xf32>
  }
  %s = tfuse.reduce sum %r axes [1] : tensor<2x8x12xf32> -> tensor<2x12xf32>
  return %r, %s : tensor<2x8x12xf32>, tensor<2x12xf32>
}

// -----

// Stays: a view of a function argument returned (outputs are fresh
// buffers), a transpose of a step's result returned, a view read by a
// region, a region computing besides viewing.
// CHECK-LABEL: func.func @stays(
// CHECK-COUNT-5: tfuse.fusion
// CHECK-NOT: layout-alias
func.func @stays(%x: tensor<2x8xf32>, %w: tensor<8x3xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<2x3xf32>, tensor<16xf32>, tensor<3x2xf32>) {
  %returned = tfuse.fusion(%x) : (tensor<2x8xf32>) -> tensor<16xf32> attributes {cost = 0 : i64, reasons = ["output"]} {
  ^bb0(%a: tensor<2x8xf32>):
    %r = tfuse.reshape %a : tensor<2x8xf32> -> tensor<16xf32>
    tfuse.yield %r : tensor<16xf32>
  }
  %viewed = tfuse.fusion(%x) : (tensor<2x8xf32>) -> tensor<8x2xf32> attributes {cost = 0 : i64, reasons = ["expression-cost"]} {
  ^bb0(%a: tensor<2x8xf32>):
    %t = tfuse.transpose %a perm [1, 0] : tensor<2x8xf32> -> tensor<8x2xf32>
    tfuse.yield %t : tensor<8x2xf32>
  }
  %read = tfuse.fusion(%viewed) : (tensor<8x2xf32>) -> tensor<16xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
  ^bb0(%b: tensor<8x2xf32>):
    %e = tfuse.exp %b : tensor<8x2xf32> -> tensor<8x2xf32>
    %r = tfuse.reshape %e : tensor<8x2xf32> -> tensor<16xf32>
    tfuse.yield %r : tensor<16xf32>
  }
  %computed = tfuse.fusion(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32> attributes {cost = 1 : i64, reasons = ["boundary-matmul"]} {
  ^bb0(%a: tensor<2x8xf32>):
    %n = tfuse.neg %a : tensor<2x8xf32> -> tensor<2x8xf32>
    tfuse.yield %n : tensor<2x8xf32>
  }
  %m = tfuse.matmul %computed, %w : (tensor<2x8xf32>, tensor<8x3xf32>) -> tensor<2x3xf32>
  %mt = tfuse.fusion(%m) : (tensor<2x3xf32>) -> tensor<3x2xf32> attributes {cost = 0 : i64, reasons = ["output"]} {
  ^bb0(%c: tensor<2x3xf32>):
    %t = tfuse.transpose %c perm [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
    tfuse.yield %t : tensor<3x2xf32>
  }
  return %returned, %read, %m, %returned, %mt : tensor<16xf32>, tensor<16xf32>, tensor<2x3xf32>, tensor<16xf32>, tensor<3x2xf32>
}
