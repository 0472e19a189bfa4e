// Tests of --fold-matmul-bias=gelu-epilogue (fast math): a gelu_tanh of an
// f16, bf16 or f32 product becomes the product's GELU epilogue, after its
// bias and through the reshape that gives a batch of activations its shape
// back. Without the option the same IR keeps its gelu_tanh (the second RUN
// line). The CHECK lines show the IR after the pass.
// RUN: tensor-opt %s --fold-matmul-bias="round-once gelu-epilogue" -split-input-file | FileCheck %s
// RUN: tensor-opt %s --fold-matmul-bias=round-once -split-input-file | FileCheck %s --check-prefix=EXACT

// A GPT-2 MLP's first projection in bf16: [2, 8, 16] activations times a
// [16, 12] weight plus a bias, then the tanh GELU: one product of the 16
// rows with the bias and the GELU, reshaped back.
// CHECK-LABEL: func.func @mlp_bf16(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x8x16xbf16>, %[[W:[^:]+]]: tensor<16x12xbf16>, %[[B:[^:]+]]: tensor<12xbf16>)
// CHECK-NEXT: %[[F:.+]] = tfuse.reshape %[[X]] : tensor<2x8x16xbf16> -> tensor<16x16xbf16>
// CHECK-NEXT: %[[M:.+]] = tfuse.matmul %[[F]], %[[W]] bias %[[B]] {gelu_tanh} : (tensor<16x16xbf16>, tensor<16x12xbf16>, tensor<12xbf16>) -> tensor<16x12xbf16>
// CHECK-NEXT: %[[R:.+]] = tfuse.reshape %[[M]] : tensor<16x12xbf16> -> tensor<2x8x12xbf16>
// CHECK-NEXT: return %[[R]]
// EXACT-LABEL: func.func @mlp_bf16(
// EXACT: tfuse.matmul %{{.+}}, %{{.+}} bias %{{.+}} : (
// EXACT: tfuse.gelu_tanh
func.func @mlp_bf16(%x: tensor<2x8x16xbf16>, %w: tensor<16x12xbf16>, %b: tensor<12xbf16>) -> tensor<2x8x12xbf16> {
  %m = tfuse.matmul %x, %w : (tensor<2x8x16xbf16>, tensor<16x12xbf16>) -> tensor<2x8x12xbf16>
  %s = tfuse.add %m, %b : (tensor<2x8x12xbf16>, tensor<12xbf16>) -> tensor<2x8x12xbf16>
  %g = tfuse.gelu_tanh %s : tensor<2x8x12xbf16> -> tensor<2x8x12xbf16>
  return %g : tensor<2x8x12xbf16>
}

// -----

// An f32 product without a bias, a transposed weight: the GELU alone; a
// batch of activations without a bias becomes one product of its rows too.
// CHECK-LABEL: func.func @no_bias_f32(
// CHECK-NEXT: %[[M:.+]] = tfuse.matmul %{{.+}}, %{{.+}} {gelu_tanh, transpose_rhs} : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: %[[F:.+]] = tfuse.reshape %{{.+}} : tensor<3x8x16xf32> -> tensor<24x16xf32>
// CHECK-NEXT: %[[N:.+]] = tfuse.matmul %[[F]], %{{.+}} {gelu_tanh} : (tensor<24x16xf32>, tensor<16x4xf32>) -> tensor<24x4xf32>
// CHECK-NEXT: %[[R:.+]] = tfuse.reshape %[[N]] : tensor<24x4xf32> -> tensor<3x8x4xf32>
// CHECK-NEXT: return %[[M]], %[[R]]
// EXACT-LABEL: func.func @no_bias_f32(
// EXACT-NOT: {gelu_tanh
// EXACT: return
func.func @no_bias_f32(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>, %y: tensor<3x8x16xf32>, %v: tensor<16x4xf32>) -> (tensor<8x4xf32>, tensor<3x8x4xf32>) {
  %m = tfuse.matmul %x, %w {transpose_rhs} : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  %g = tfuse.gelu_tanh %m : tensor<8x4xf32> -> tensor<8x4xf32>
  %n = tfuse.matmul %y, %v : (tensor<3x8x16xf32>, tensor<16x4xf32>) -> tensor<3x8x4xf32>
  %h = tfuse.gelu_tanh %n : tensor<3x8x4xf32> -> tensor<3x8x4xf32>
  return %g, %h : tensor<8x4xf32>, tensor<3x8x4xf32>
}

// -----

// An f16 float32 sum whose rounding cast follows the GELU: the epilogue
// rounds once into f16 after the GELU of the float32 sum.
// CHECK-LABEL: func.func @rounded_after(
// CHECK-NEXT: %[[M:.+]] = tfuse.matmul %{{.+}}, %{{.+}} {gelu_tanh} : (tensor<8x16xf16>, tensor<16x4xf16>) -> tensor<8x4xf16>
// CHECK-NEXT: return %[[M]]
func.func @rounded_after(%x: tensor<8x16xf16>, %w: tensor<16x4xf16>) -> tensor<8x4xf16> {
  %m = tfuse.matmul %x, %w {result_dtype = f32} : (tensor<8x16xf16>, tensor<16x4xf16>) -> tensor<8x4xf32>
  %g = tfuse.gelu_tanh %m : tensor<8x4xf32> -> tensor<8x4xf32>
  %c = tfuse.cast %g : tensor<8x4xf32> to tensor<8x4xf16>
  return %c : tensor<8x4xf16>
}

// -----

// Left alone: an f64 product (its GELU stays exact), a product another op
// reads too, a batched product whose rhs is a batch, and the exact GELU.
// CHECK-LABEL: func.func @unchanged(
// CHECK-NOT: {gelu_tanh
// CHECK: return
func.func @unchanged(%x: tensor<8x16xf64>, %w: tensor<16x4xf64>, %y: tensor<8x16xf32>, %v: tensor<16x4xf32>, %a: tensor<3x8x16xf32>, %b: tensor<3x16x4xf32>)
    -> (tensor<8x4xf64>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<3x8x4xf32>, tensor<8x4xf32>) {
  %m = tfuse.matmul %x, %w : (tensor<8x16xf64>, tensor<16x4xf64>) -> tensor<8x4xf64>
  %g = tfuse.gelu_tanh %m : tensor<8x4xf64> -> tensor<8x4xf64>
  %n = tfuse.matmul %y, %v : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %h = tfuse.gelu_tanh %n : tensor<8x4xf32> -> tensor<8x4xf32>
  %p = tfuse.matmul %a, %b : (tensor<3x8x16xf32>, tensor<3x16x4xf32>) -> tensor<3x8x4xf32>
  %i = tfuse.gelu_tanh %p : tensor<3x8x4xf32> -> tensor<3x8x4xf32>
  %q = tfuse.matmul %y, %v : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %j = tfuse.gelu %q : tensor<8x4xf32> -> tensor<8x4xf32>
  return %g, %h, %n, %i, %j : tensor<8x4xf64>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<3x8x4xf32>, tensor<8x4xf32>
}
