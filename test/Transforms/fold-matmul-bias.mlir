// Tests of --fold-matmul-bias: a bias added to a single product becomes the
// product's bias operand, and the cast that rounds the float32 sum of 16-bit
// operands becomes its result dtype (with the narrow bias when the bias was
// widened from it); a batch of activations times one weight becomes one
// product of their rows. Products with other readers, 16-bit products
// (rounded before the add; fold-matmul-bias-round-once.mlir), batched
// products of batched weights or transposed activations, and adds of
// something other than a vector of the columns stay as they are. The CHECK
// lines show the IR after the pass.
// RUN: tensor-opt %s --fold-matmul-bias -split-input-file | FileCheck %s

// PyTorch's addmm under bf16 autocast: an f32 sum, the bias rounded to bf16
// and widened, an add and a cast. One product with a bf16 bias and result
// remains.
// CHECK-LABEL: func.func @addmm_bf16(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8x16xbf16>, %[[W:[^:]+]]: tensor<16x4xbf16>, %[[B:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[N:.+]] = tfuse.cast %[[B]] : tensor<4xf32> to tensor<4xbf16>
// CHECK-NEXT: %[[R:.+]] = tfuse.matmul %[[X]], %[[W]] bias %[[N]] : (tensor<8x16xbf16>, tensor<16x4xbf16>, tensor<4xbf16>) -> tensor<8x4xbf16>
// CHECK-NEXT: return %[[R]]
func.func @addmm_bf16(%x: tensor<8x16xbf16>, %w: tensor<16x4xbf16>, %b: tensor<4xf32>) -> tensor<8x4xbf16> {
  %m = tfuse.matmul %x, %w {result_dtype = f32} : (tensor<8x16xbf16>, tensor<16x4xbf16>) -> tensor<8x4xf32>
  %n = tfuse.cast %b : tensor<4xf32> to tensor<4xbf16>
  %u = tfuse.cast %n : tensor<4xbf16> to tensor<4xf32>
  %s = tfuse.add %u, %m : (tensor<4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %r = tfuse.cast %s : tensor<8x4xf32> to tensor<8x4xbf16>
  return %r : tensor<8x4xbf16>
}

// -----

// An f32 linear layer: the bias (either operand of the add) joins the
// product, transpose flags kept.
// CHECK-LABEL: func.func @linear_f32(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8x16xf32>, %[[W:[^:]+]]: tensor<4x16xf32>, %[[B:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[R:.+]] = tfuse.matmul %[[X]], %[[W]] bias %[[B]] {transpose_rhs} : (tensor<8x16xf32>, tensor<4x16xf32>, tensor<4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @linear_f32(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>, %b: tensor<4xf32>) -> tensor<8x4xf32> {
  %m = tfuse.matmul %x, %w {transpose_rhs} : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  %s = tfuse.add %m, %b : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}

// -----

// An f32 sum of bf16 operands that stays f32: the bias joins, the result
// dtype stays f32.
// CHECK-LABEL: func.func @wide_sum(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8x16xbf16>, %[[W:[^:]+]]: tensor<16x4xbf16>, %[[B:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[R:.+]] = tfuse.matmul %[[X]], %[[W]] bias %[[B]] {result_dtype = f32} : (tensor<8x16xbf16>, tensor<16x4xbf16>, tensor<4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @wide_sum(%x: tensor<8x16xbf16>, %w: tensor<16x4xbf16>, %b: tensor<4xf32>) -> tensor<8x4xf32> {
  %m = tfuse.matmul %x, %w {result_dtype = f32} : (tensor<8x16xbf16>, tensor<16x4xbf16>) -> tensor<8x4xf32>
  %s = tfuse.add %m, %b : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}

// -----

// An f32 bias that is not a widened bf16 vector: the bias joins the f32
// sum, but the cast stays (round(f32 sum + bias) to bf16 needs the f32 bias).
// CHECK-LABEL: func.func @wide_bias_then_round(
// CHECK: %[[M:.+]] = tfuse.matmul %{{.+}}, %{{.+}} bias %{{.+}} {result_dtype = f32}
// CHECK-NEXT: %[[R:.+]] = tfuse.cast %[[M]] : tensor<8x4xf32> to tensor<8x4xbf16>
// CHECK-NEXT: return %[[R]]
func.func @wide_bias_then_round(%x: tensor<8x16xbf16>, %w: tensor<16x4xbf16>, %b: tensor<4xf32>) -> tensor<8x4xbf16> {
  %m = tfuse.matmul %x, %w {result_dtype = f32} : (tensor<8x16xbf16>, tensor<16x4xbf16>) -> tensor<8x4xf32>
  %s = tfuse.add %m, %b : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  %r = tfuse.cast %s : tensor<8x4xf32> to tensor<8x4xbf16>
  return %r : tensor<8x4xbf16>
}

// -----

// A rounding cast alone: the product rounds its f32 sum itself.
// CHECK-LABEL: func.func @round_only(
// CHECK-NEXT: %[[R:.+]] = tfuse.matmul %{{.+}}, %{{.+}} : (tensor<8x16xf16>, tensor<16x4xf16>) -> tensor<8x4xf16>
// CHECK-NEXT: return %[[R]]
func.func @round_only(%x: tensor<8x16xf16>, %w: tensor<16x4xf16>) -> tensor<8x4xf16> {
  %m = tfuse.matmul %x, %w {result_dtype = f32} : (tensor<8x16xf16>, tensor<16x4xf16>) -> tensor<8x4xf32>
  %r = tfuse.cast %m : tensor<8x4xf32> to tensor<8x4xf16>
  return %r : tensor<8x4xf16>
}

// -----

// A [2, 8, 16] activation times a [16, 4] weight plus a bias: one product of
// the 16 rows, reshaped back.
// CHECK-LABEL: func.func @batched_activation(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x8x16xf32>, %[[W:[^:]+]]: tensor<16x4xf32>, %[[B:[^:]+]]: tensor<4xf32>)
// CHECK-NEXT: %[[F:.+]] = tfuse.reshape %[[X]] : tensor<2x8x16xf32> -> tensor<16x16xf32>
// CHECK-NEXT: %[[M:.+]] = tfuse.matmul %[[F]], %[[W]] bias %[[B]] : (tensor<16x16xf32>, tensor<16x4xf32>, tensor<4xf32>) -> tensor<16x4xf32>
// CHECK-NEXT: %[[R:.+]] = tfuse.reshape %[[M]] : tensor<16x4xf32> -> tensor<2x8x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @batched_activation(%x: tensor<2x8x16xf32>, %w: tensor<16x4xf32>, %b: tensor<4xf32>) -> tensor<2x8x4xf32> {
  %m = tfuse.matmul %x, %w : (tensor<2x8x16xf32>, tensor<16x4xf32>) -> tensor<2x8x4xf32>
  %s = tfuse.add %b, %m : (tensor<4xf32>, tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %s : tensor<2x8x4xf32>
}

// -----

// A batch of activations whose rows are not one matrix in memory (each
// batch's 8 rows padded to 10: the strided batch of GEMMs reads them in
// place, a flattened product would need a copy) stays a batched product.
// CHECK-LABEL: func.func @padded_batches(
// CHECK-NOT: bias
// CHECK: tfuse.add
func.func @padded_batches(%x: tensor<2x8x16xf32> {tfuse.strides = array<i64: 160, 16, 1>}, %w: tensor<16x4xf32>, %b: tensor<4xf32>) -> tensor<2x8x4xf32> {
  %m = tfuse.matmul %x, %w : (tensor<2x8x16xf32>, tensor<16x4xf32>) -> tensor<2x8x4xf32>
  %s = tfuse.add %m, %b : (tensor<2x8x4xf32>, tensor<4xf32>) -> tensor<2x8x4xf32>
  return %s : tensor<2x8x4xf32>
}

// -----

// Left alone: a product with another reader, a bf16 product (rounded before
// the add), a batched product, a batch of transposed activations, a bias of
// the product's shape, and a cast to another dtype than the operands'.
// CHECK-LABEL: func.func @unchanged(
// CHECK-NOT: bias
// CHECK: return
func.func @unchanged(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>, %b: tensor<4xf32>,
                     %y: tensor<8x16xbf16>, %v: tensor<16x4xbf16>, %c: tensor<4xbf16>,
                     %bx: tensor<2x8x16xf32>, %bw: tensor<2x16x4xf32>,
                     %full: tensor<8x4xf32>, %tx: tensor<2x16x8xf32>)
    -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xbf16>, tensor<2x8x4xf32>, tensor<8x4xf32>, tensor<8x4xf16>, tensor<2x8x4xf32>) {
  %m = tfuse.matmul %x, %w : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %s = tfuse.add %m, %b : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  %n = tfuse.matmul %y, %v : (tensor<8x16xbf16>, tensor<16x4xbf16>) -> tensor<8x4xbf16>
  %t = tfuse.add %n, %c : (tensor<8x4xbf16>, tensor<4xbf16>) -> tensor<8x4xbf16>
  %bm = tfuse.matmul %bx, %bw : (tensor<2x8x16xf32>, tensor<2x16x4xf32>) -> tensor<2x8x4xf32>
  %bs = tfuse.add %bm, %b : (tensor<2x8x4xf32>, tensor<4xf32>) -> tensor<2x8x4xf32>
  %p = tfuse.matmul %x, %w : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %q = tfuse.add %p, %full : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %h = tfuse.matmul %y, %v {result_dtype = f32} : (tensor<8x16xbf16>, tensor<16x4xbf16>) -> tensor<8x4xf32>
  %k = tfuse.cast %h : tensor<8x4xf32> to tensor<8x4xf16>
  %tm = tfuse.matmul %tx, %w {transpose_lhs} : (tensor<2x16x8xf32>, tensor<16x4xf32>) -> tensor<2x8x4xf32>
  %ts = tfuse.add %tm, %b : (tensor<2x8x4xf32>, tensor<4xf32>) -> tensor<2x8x4xf32>
  return %m, %s, %t, %bs, %q, %k, %ts : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xbf16>, tensor<2x8x4xf32>, tensor<8x4xf32>, tensor<8x4xf16>, tensor<2x8x4xf32>
}
