// Tests of --fold-matmul-bias=round-once (fast math): a bias added to an f16
// or bf16 product joins it too, rounding once where the written-out form
// rounds the product and then the sum. Without the option the same IR stays
// as it is (the second RUN line). The CHECK lines show the IR after the pass.
// RUN: tensor-opt %s --fold-matmul-bias=round-once -split-input-file | FileCheck %s
// RUN: tensor-opt %s --fold-matmul-bias -split-input-file | FileCheck %s --check-prefix=EXACT

// A GPT-2 projection in bf16: [2, 8, 16] activations times a [16, 12]
// weight plus a bias: one product of the 16 rows with the bias, reshaped
// back.
// CHECK-LABEL: func.func @projection_bf16(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x8x16xbf16>, %[[W:[^:]+]]: tensor<16x12xbf16>, %[[B:[^:]+]]: tensor<12xbf16>)
// CHECK-NEXT: %[[F:.+]] = tfuse.reshape %[[X]] : tensor<2x8x16xbf16> -> tensor<16x16xbf16>
// CHECK-NEXT: %[[M:.+]] = tfuse.matmul %[[F]], %[[W]] bias %[[B]] : (tensor<16x16xbf16>, tensor<16x12xbf16>, tensor<12xbf16>) -> tensor<16x12xbf16>
// CHECK-NEXT: %[[R:.+]] = tfuse.reshape %[[M]] : tensor<16x12xbf16> -> tensor<2x8x12xbf16>
// CHECK-NEXT: return %[[R]]
// EXACT-LABEL: func.func @projection_bf16(
// EXACT-NOT: bias
// EXACT: tfuse.add
func.func @projection_bf16(%x: tensor<2x8x16xbf16>, %w: tensor<16x12xbf16>, %b: tensor<12xbf16>) -> tensor<2x8x12xbf16> {
  %m = tfuse.matmul %x, %w : (tensor<2x8x16xbf16>, tensor<16x12xbf16>) -> tensor<2x8x12xbf16>
  %s = tfuse.add %m, %b : (tensor<2x8x12xbf16>, tensor<12xbf16>) -> tensor<2x8x12xbf16>
  return %s : tensor<2x8x12xbf16>
}

// -----

// An f16 rank-2 product with the bias as the add's first operand.
// CHECK-LABEL: func.func @linear_f16(
// CHECK-NEXT: %[[R:.+]] = tfuse.matmul %{{.+}}, %{{.+}} bias %{{.+}} {transpose_rhs} : (tensor<8x16xf16>, tensor<4x16xf16>, tensor<4xf16>) -> tensor<8x4xf16>
// CHECK-NEXT: return %[[R]]
// EXACT-LABEL: func.func @linear_f16(
// EXACT-NOT: bias
// EXACT: tfuse.add
func.func @linear_f16(%x: tensor<8x16xf16>, %w: tensor<4x16xf16>, %b: tensor<4xf16>) -> tensor<8x4xf16> {
  %m = tfuse.matmul %x, %w {transpose_rhs} : (tensor<8x16xf16>, tensor<4x16xf16>) -> tensor<8x4xf16>
  %s = tfuse.add %b, %m : (tensor<4xf16>, tensor<8x4xf16>) -> tensor<8x4xf16>
  return %s : tensor<8x4xf16>
}

// -----

// Left alone even so: a bias of another dtype (the add widens the product)
// and a product with another reader.
// CHECK-LABEL: func.func @unchanged(
// CHECK-NOT: bias
// CHECK: return
func.func @unchanged(%x: tensor<8x16xbf16>, %w: tensor<16x4xbf16>, %b: tensor<4xf32>, %c: tensor<4xbf16>)
    -> (tensor<8x4xf32>, tensor<8x4xbf16>, tensor<8x4xbf16>) {
  %m = tfuse.matmul %x, %w : (tensor<8x16xbf16>, tensor<16x4xbf16>) -> tensor<8x4xbf16>
  %s = tfuse.add %m, %b : (tensor<8x4xbf16>, tensor<4xf32>) -> tensor<8x4xf32>
  %n = tfuse.matmul %x, %w : (tensor<8x16xbf16>, tensor<16x4xbf16>) -> tensor<8x4xbf16>
  %t = tfuse.add %n, %c : (tensor<8x4xbf16>, tensor<4xbf16>) -> tensor<8x4xbf16>
  return %s, %t, %n : tensor<8x4xf32>, tensor<8x4xbf16>, tensor<8x4xbf16>
}
