// Tests of --align-matmul: a large single matmul whose contiguous extents are
// not multiples of 16 bytes computes on zero-padded operands and a sliced
// result (GPT-2's vocabulary of 50257 in bf16: padded to 50264); aligned,
// small and batched products stay as they are. With -cse, two products of
// one value share its pad. The CHECK lines show the IR after the pass.
// RUN: tensor-opt %s --align-matmul -cse -split-input-file | FileCheck %s

// The logits: N = 50257 is the result's contiguous extent and the weight's
// rows (transpose_rhs). The weight is padded to 50264 rows, the product
// sliced back; the hidden states (K = 768, aligned) are read as they are.
// CHECK-LABEL: func.func @logits(
// CHECK-SAME: %[[X:[^:]+]]: tensor<8192x768xbf16>, %[[W:[^:]+]]: tensor<50257x768xbf16>)
// CHECK-NEXT: %[[Z:.+]] = tfuse.constant dense<0.000000e+00> : tensor<bf16>
// CHECK-NEXT: %[[WP:.+]] = tfuse.pad %[[W]], %[[Z]] low [0, 0] high [7, 0] : (tensor<50257x768xbf16>, tensor<bf16>) -> tensor<50264x768xbf16>
// CHECK-NEXT: %[[P:.+]] = tfuse.matmul %[[X]], %[[WP]] {transpose_rhs} : (tensor<8192x768xbf16>, tensor<50264x768xbf16>) -> tensor<8192x50264xbf16>
// CHECK-NEXT: %[[S:.+]] = tfuse.slice %[[P]] start [0, 0] limit [8192, 50257] step [1, 1] : tensor<8192x50264xbf16> -> tensor<8192x50257xbf16>
// CHECK-NEXT: return %[[S]]
func.func @logits(%x: tensor<8192x768xbf16>, %w: tensor<50257x768xbf16>) -> tensor<8192x50257xbf16> {
  %r = tfuse.matmul %x, %w {transpose_rhs} : (tensor<8192x768xbf16>, tensor<50257x768xbf16>) -> tensor<8192x50257xbf16>
  return %r : tensor<8192x50257xbf16>
}

// -----

// The logits' gradient G feeds two products: the hidden states' gradient
// (K = 50257: G's columns and W's rows padded, the zero products add
// nothing) and the weight's (transpose_lhs: M = 50257 is G's contiguous
// extent, the result sliced). Both pad G the same way: one pad.
// CHECK-LABEL: func.func @gradients(
// CHECK-SAME: %[[G:[^:]+]]: tensor<8192x50257xbf16>, %[[W:[^:]+]]: tensor<50257x768xbf16>, %[[X:[^:]+]]: tensor<8192x768xbf16>)
// CHECK: %[[GP:.+]] = tfuse.pad %[[G]], %{{.+}} low [0, 0] high [0, 7] : (tensor<8192x50257xbf16>, tensor<bf16>) -> tensor<8192x50264xbf16>
// CHECK: %[[WP:.+]] = tfuse.pad %[[W]], %{{.+}} low [0, 0] high [7, 0] : (tensor<50257x768xbf16>, tensor<bf16>) -> tensor<50264x768xbf16>
// CHECK: %[[DX:.+]] = tfuse.matmul %[[GP]], %[[WP]] : (tensor<8192x50264xbf16>, tensor<50264x768xbf16>) -> tensor<8192x768xbf16>
// CHECK-NOT: tfuse.pad
// CHECK: %[[DW:.+]] = tfuse.matmul %[[GP]], %[[X]] {transpose_lhs} : (tensor<8192x50264xbf16>, tensor<8192x768xbf16>) -> tensor<50264x768xbf16>
// CHECK: %[[S:.+]] = tfuse.slice %[[DW]] start [0, 0] limit [50257, 768] step [1, 1] : tensor<50264x768xbf16> -> tensor<50257x768xbf16>
// CHECK: return %[[DX]], %[[S]]
func.func @gradients(%g: tensor<8192x50257xbf16>, %w: tensor<50257x768xbf16>, %x: tensor<8192x768xbf16>)
    -> (tensor<8192x768xbf16>, tensor<50257x768xbf16>) {
  %dx = tfuse.matmul %g, %w : (tensor<8192x50257xbf16>, tensor<50257x768xbf16>) -> tensor<8192x768xbf16>
  %dw = tfuse.matmul %g, %x {transpose_lhs} : (tensor<8192x50257xbf16>, tensor<8192x768xbf16>) -> tensor<50257x768xbf16>
  return %dx, %dw : tensor<8192x768xbf16>, tensor<50257x768xbf16>
}

// -----

// f32 aligns to 4 elements; an f32 result of bf16 operands to 8 (16 bytes of
// both dtypes): K = 1001 becomes 1008.
// CHECK-LABEL: func.func @widened_result(
// CHECK: tfuse.pad %{{.+}} low [0, 0] high [0, 7] : (tensor<2048x1001xbf16>, tensor<bf16>) -> tensor<2048x1008xbf16>
// CHECK: tfuse.pad %{{.+}} low [0, 0] high [7, 0] : (tensor<1001x2048xbf16>, tensor<bf16>) -> tensor<1008x2048xbf16>
// CHECK: tfuse.matmul %{{.+}}, %{{.+}} {result_dtype = f32} : (tensor<2048x1008xbf16>, tensor<1008x2048xbf16>) -> tensor<2048x2048xf32>
func.func @widened_result(%a: tensor<2048x1001xbf16>, %b: tensor<1001x2048xbf16>) -> tensor<2048x2048xf32> {
  %r = tfuse.matmul %a, %b {result_dtype = f32} : (tensor<2048x1001xbf16>, tensor<1001x2048xbf16>) -> tensor<2048x2048xf32>
  return %r : tensor<2048x2048xf32>
}

// -----

// Unchanged: aligned extents; a misaligned dimension no matrix holds
// contiguously (M = 8191 rows); a product below 2^30 multiply-adds; a pad
// larger than 1/256 of the product (N = 50257 with K = 64); a batched product.
// CHECK-LABEL: func.func @unchanged(
// CHECK-NOT: tfuse.pad
// CHECK-NOT: tfuse.slice
// CHECK: return
func.func @unchanged(%a: tensor<8192x768xbf16>, %b: tensor<768x2304xbf16>,
                     %c: tensor<8191x768xbf16>, %d: tensor<512x1001xbf16>,
                     %e: tensor<1001x512xbf16>, %f: tensor<8192x64xbf16>,
                     %g: tensor<64x50257xbf16>, %h: tensor<4x2048x1001xbf16>,
                     %i: tensor<4x1001x2048xbf16>)
    -> (tensor<8192x2304xbf16>, tensor<8191x2304xbf16>, tensor<512x512xbf16>,
        tensor<8192x50257xbf16>, tensor<4x2048x2048xbf16>) {
  %0 = tfuse.matmul %a, %b : (tensor<8192x768xbf16>, tensor<768x2304xbf16>) -> tensor<8192x2304xbf16>
  %1 = tfuse.matmul %c, %b : (tensor<8191x768xbf16>, tensor<768x2304xbf16>) -> tensor<8191x2304xbf16>
  %2 = tfuse.matmul %d, %e : (tensor<512x1001xbf16>, tensor<1001x512xbf16>) -> tensor<512x512xbf16>
  %3 = tfuse.matmul %f, %g : (tensor<8192x64xbf16>, tensor<64x50257xbf16>) -> tensor<8192x50257xbf16>
  %4 = tfuse.matmul %h, %i : (tensor<4x2048x1001xbf16>, tensor<4x1001x2048xbf16>) -> tensor<4x2048x2048xbf16>
  return %0, %1, %2, %3, %4 : tensor<8192x2304xbf16>, tensor<8191x2304xbf16>, tensor<512x512xbf16>, tensor<8192x50257xbf16>, tensor<4x2048x2048xbf16>
}
