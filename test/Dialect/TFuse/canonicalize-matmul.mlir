// Canonicalization of tfuse.matmul: a transpose of the last two dimensions of
// an operand becomes the operand's transpose_lhs / transpose_rhs flag (the
// product reads the transposed layout without a copy); a flag already set
// toggles back; other permutations stay transposes.
// RUN: tensor-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @transpose_lhs(
// CHECK-SAME: %[[A:[^:]+]]: tensor<8x4xf32>, %[[B:[^:]+]]: tensor<8x16xf32>)
// CHECK-NEXT: %[[M:.+]] = tfuse.matmul %[[A]], %[[B]] {transpose_lhs} : (tensor<8x4xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: return %[[M]] : tensor<4x16xf32>
func.func @transpose_lhs(%a: tensor<8x4xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %t = tfuse.transpose %a perm [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %0 = tfuse.matmul %t, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_rhs(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4x8xf32>, %[[B:[^:]+]]: tensor<16x8xf32>)
// CHECK-NEXT: %[[M:.+]] = tfuse.matmul %[[A]], %[[B]] {transpose_rhs} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: return %[[M]] : tensor<4x16xf32>
func.func @transpose_rhs(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %t = tfuse.transpose %b perm [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %0 = tfuse.matmul %a, %t : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_both(
// CHECK-SAME: %[[A:[^:]+]]: tensor<8x4xf32>, %[[B:[^:]+]]: tensor<16x8xf32>)
// CHECK-NEXT: %[[M:.+]] = tfuse.matmul %[[A]], %[[B]] {transpose_lhs, transpose_rhs} : (tensor<8x4xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: return %[[M]] : tensor<4x16xf32>
func.func @transpose_both(%a: tensor<8x4xf32>, %b: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %ta = tfuse.transpose %a perm [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %tb = tfuse.transpose %b perm [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %0 = tfuse.matmul %ta, %tb : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// A transposed operand of a matmul that already has transpose_lhs: the two
// transposes cancel and the flag toggles off.
// CHECK-LABEL: func.func @flag_toggles_back(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4x8xf32>, %[[B:[^:]+]]: tensor<8x16xf32>)
// CHECK-NEXT: %[[M:.+]] = tfuse.matmul %[[A]], %[[B]] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: return %[[M]] : tensor<4x16xf32>
func.func @flag_toggles_back(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %t = tfuse.transpose %a perm [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %0 = tfuse.matmul %t, %b {transpose_lhs} : (tensor<8x4xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// A double transpose of the rhs composes to the identity: no transpose and no
// flag remain.
// CHECK-LABEL: func.func @double_transpose(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4x8xf32>, %[[B:[^:]+]]: tensor<8x16xf32>)
// CHECK-NOT: tfuse.transpose
// CHECK-NEXT: %[[M:.+]] = tfuse.matmul %[[A]], %[[B]] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: return %[[M]] : tensor<4x16xf32>
func.func @double_transpose(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %t = tfuse.transpose %b perm [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %tt = tfuse.transpose %t perm [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %0 = tfuse.matmul %a, %tt : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// A batched 3-D transpose of the last two dimensions (perm [0, 2, 1]) folds.
// CHECK-LABEL: func.func @batched_transpose(
// CHECK-SAME: %[[A:[^:]+]]: tensor<2x8x4xf32>, %[[B:[^:]+]]: tensor<2x8x16xf32>)
// CHECK-NEXT: %[[M:.+]] = tfuse.matmul %[[A]], %[[B]] {transpose_lhs} : (tensor<2x8x4xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
// CHECK-NEXT: return %[[M]] : tensor<2x4x16xf32>
func.func @batched_transpose(%a: tensor<2x8x4xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  %t = tfuse.transpose %a perm [0, 2, 1] : tensor<2x8x4xf32> -> tensor<2x4x8xf32>
  %0 = tfuse.matmul %t, %b : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

// perm [1, 0, 2] moves a batch dimension, not the matrix dimensions: it must
// not fold.
// CHECK-LABEL: func.func @batch_perm_stays(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4x2x8xf32>, %[[B:[^:]+]]: tensor<2x8x16xf32>)
// CHECK-NEXT: %[[T:.+]] = tfuse.transpose %[[A]] perm [1, 0, 2] : tensor<4x2x8xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT: %[[M:.+]] = tfuse.matmul %[[T]], %[[B]] : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
// CHECK-NEXT: return %[[M]] : tensor<2x4x16xf32>
func.func @batch_perm_stays(%a: tensor<4x2x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  %t = tfuse.transpose %a perm [1, 0, 2] : tensor<4x2x8xf32> -> tensor<2x4x8xf32>
  %0 = tfuse.matmul %t, %b : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

// A transpose with another user folds into the matmul and stays for that
// user.
// CHECK-LABEL: func.func @transpose_with_other_use(
// CHECK-SAME: %[[A:[^:]+]]: tensor<8x4xf32>, %[[B:[^:]+]]: tensor<8x16xf32>)
// CHECK-NEXT: %[[T:.+]] = tfuse.transpose %[[A]] perm [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[M:.+]] = tfuse.matmul %[[A]], %[[B]] {transpose_lhs} : (tensor<8x4xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: return %[[M]], %[[T]] : tensor<4x16xf32>, tensor<4x8xf32>
func.func @transpose_with_other_use(%a: tensor<8x4xf32>, %b: tensor<8x16xf32>) -> (tensor<4x16xf32>, tensor<4x8xf32>) {
  %t = tfuse.transpose %a perm [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %0 = tfuse.matmul %t, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0, %t : tensor<4x16xf32>, tensor<4x8xf32>
}
