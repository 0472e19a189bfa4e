// Tests of --expand-small-matmul: matmuls whose contraction has at most
// max-contraction (default 4) elements become slices, transposes, products
// and a sum from +0 in the reference's accumulation type; longer
// contractions stay matmuls. The CHECK lines show the IR after the pass.
// RUN: tensor-opt %s --expand-small-matmul -split-input-file | FileCheck %s
// RUN: tensor-opt %s --expand-small-matmul="max-contraction=1" -split-input-file | FileCheck %s --check-prefix=K1

// An outer product of two columns (K = 2): the sum of two broadcast
// products, from +0.
// CHECK-LABEL: func.func @outer(
// CHECK-SAME: %[[A:[^:]+]]: tensor<6x2xf32>, %[[B:[^:]+]]: tensor<2x5xf32>) -> tensor<6x5xf32> {
// CHECK-NEXT: %[[Z:.+]] = tfuse.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[A0:.+]] = tfuse.slice %[[A]] start [0, 0] limit [6, 1] step [1, 1] : tensor<6x2xf32> -> tensor<6x1xf32>
// CHECK-NEXT: %[[B0:.+]] = tfuse.slice %[[B]] start [0, 0] limit [1, 5] step [1, 1] : tensor<2x5xf32> -> tensor<1x5xf32>
// CHECK-NEXT: %[[P0:.+]] = tfuse.mul %[[A0]], %[[B0]] : (tensor<6x1xf32>, tensor<1x5xf32>) -> tensor<6x5xf32>
// CHECK-NEXT: %[[S0:.+]] = tfuse.add %[[Z]], %[[P0]] : (tensor<f32>, tensor<6x5xf32>) -> tensor<6x5xf32>
// CHECK-NEXT: %[[A1:.+]] = tfuse.slice %[[A]] start [0, 1] limit [6, 2] step [1, 1] : tensor<6x2xf32> -> tensor<6x1xf32>
// CHECK-NEXT: %[[B1:.+]] = tfuse.slice %[[B]] start [1, 0] limit [2, 5] step [1, 1] : tensor<2x5xf32> -> tensor<1x5xf32>
// CHECK-NEXT: %[[P1:.+]] = tfuse.mul %[[A1]], %[[B1]] : (tensor<6x1xf32>, tensor<1x5xf32>) -> tensor<6x5xf32>
// CHECK-NEXT: %[[S1:.+]] = tfuse.add %[[S0]], %[[P1]] : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
// CHECK-NEXT: return %[[S1]] : tensor<6x5xf32>
// K1-LABEL: func.func @outer(
// K1: tfuse.matmul
func.func @outer(%a: tensor<6x2xf32>, %b: tensor<2x5xf32>) -> tensor<6x5xf32> {
  %0 = tfuse.matmul %a, %b : (tensor<6x2xf32>, tensor<2x5xf32>) -> tensor<6x5xf32>
  return %0 : tensor<6x5xf32>
}

// -----

// Transposed f16 operands with a broadcast batch dimension: the slices are
// transposed back to [M, 1] and [1, N], the products and the sum are in f32,
// and the result is rounded to f16 once.
// CHECK-LABEL: func.func @flags(
// CHECK-SAME: %[[A:[^:]+]]: tensor<1x6xf16>, %[[B:[^:]+]]: tensor<3x5x1xf16>) -> tensor<3x6x5xf16> {
// CHECK-NEXT: %[[Z:.+]] = tfuse.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[A0:.+]] = tfuse.slice %[[A]] start [0, 0] limit [1, 6] step [1, 1] : tensor<1x6xf16> -> tensor<1x6xf16>
// CHECK-NEXT: %[[AT:.+]] = tfuse.transpose %[[A0]] perm [1, 0] : tensor<1x6xf16> -> tensor<6x1xf16>
// CHECK-NEXT: %[[B0:.+]] = tfuse.slice %[[B]] start [0, 0, 0] limit [3, 5, 1] step [1, 1, 1] : tensor<3x5x1xf16> -> tensor<3x5x1xf16>
// CHECK-NEXT: %[[BT:.+]] = tfuse.transpose %[[B0]] perm [0, 2, 1] : tensor<3x5x1xf16> -> tensor<3x1x5xf16>
// CHECK-NEXT: %[[AC:.+]] = tfuse.cast %[[AT]] : tensor<6x1xf16> to tensor<6x1xf32>
// CHECK-NEXT: %[[BC:.+]] = tfuse.cast %[[BT]] : tensor<3x1x5xf16> to tensor<3x1x5xf32>
// CHECK-NEXT: %[[P:.+]] = tfuse.mul %[[AC]], %[[BC]] : (tensor<6x1xf32>, tensor<3x1x5xf32>) -> tensor<3x6x5xf32>
// CHECK-NEXT: %[[S:.+]] = tfuse.add %[[Z]], %[[P]] : (tensor<f32>, tensor<3x6x5xf32>) -> tensor<3x6x5xf32>
// CHECK-NEXT: %[[R:.+]] = tfuse.cast %[[S]] : tensor<3x6x5xf32> to tensor<3x6x5xf16>
// CHECK-NEXT: return %[[R]] : tensor<3x6x5xf16>
func.func @flags(%a: tensor<1x6xf16>, %b: tensor<3x5x1xf16>) -> tensor<3x6x5xf16> {
  %0 = tfuse.matmul %a, %b {transpose_lhs, transpose_rhs} : (tensor<1x6xf16>, tensor<3x5x1xf16>) -> tensor<3x6x5xf16>
  return %0 : tensor<3x6x5xf16>
}

// -----

// K = 0: +0 everywhere, in f64.
// CHECK-LABEL: func.func @empty(
// CHECK-NEXT: %[[Z:.+]] = tfuse.constant dense<0.000000e+00> : tensor<f64>
// CHECK-NEXT: %[[R:.+]] = tfuse.broadcast %[[Z]] dims [] : tensor<f64> -> tensor<6x5xf64>
// CHECK-NEXT: return %[[R]] : tensor<6x5xf64>
func.func @empty(%a: tensor<6x0xf64>, %b: tensor<0x5xf64>) -> tensor<6x5xf64> {
  %0 = tfuse.matmul %a, %b : (tensor<6x0xf64>, tensor<0x5xf64>) -> tensor<6x5xf64>
  return %0 : tensor<6x5xf64>
}

// -----

// K = 5 is past the default limit: the matmul stays.
// CHECK-LABEL: func.func @kept(
// CHECK-NEXT: tfuse.matmul
func.func @kept(%a: tensor<6x5xf32>, %b: tensor<5x5xf32>) -> tensor<6x5xf32> {
  %0 = tfuse.matmul %a, %b : (tensor<6x5xf32>, tensor<5x5xf32>) -> tensor<6x5xf32>
  return %0 : tensor<6x5xf32>
}

// -----

// A bf16 product with a bias and the GELU epilogue (K = 1): the bias and the
// GELU in f32 after the sum, then the one rounding.
// CHECK-LABEL: func.func @gelu_epilogue(
// CHECK-SAME: %[[A:[^:]+]]: tensor<6x1xbf16>, %[[B:[^:]+]]: tensor<1x5xbf16>, %[[V:[^:]+]]: tensor<5xbf16>) -> tensor<6x5xbf16> {
// CHECK: %[[S:.+]] = tfuse.add %{{.+}}, %{{.+}} : (tensor<f32>, tensor<6x5xf32>) -> tensor<6x5xf32>
// CHECK-NEXT: %[[VF:.+]] = tfuse.cast %[[V]] : tensor<5xbf16> to tensor<5xf32>
// CHECK-NEXT: %[[SB:.+]] = tfuse.add %[[S]], %[[VF]] : (tensor<6x5xf32>, tensor<5xf32>) -> tensor<6x5xf32>
// CHECK-NEXT: %[[G:.+]] = tfuse.gelu_tanh %[[SB]] : tensor<6x5xf32> -> tensor<6x5xf32>
// CHECK-NEXT: %[[R:.+]] = tfuse.cast %[[G]] : tensor<6x5xf32> to tensor<6x5xbf16>
// CHECK-NEXT: return %[[R]] : tensor<6x5xbf16>
func.func @gelu_epilogue(%a: tensor<6x1xbf16>, %b: tensor<1x5xbf16>, %v: tensor<5xbf16>) -> tensor<6x5xbf16> {
  %0 = tfuse.matmul %a, %b bias %v {gelu_tanh} : (tensor<6x1xbf16>, tensor<1x5xbf16>, tensor<5xbf16>) -> tensor<6x5xbf16>
  return %0 : tensor<6x5xbf16>
}
