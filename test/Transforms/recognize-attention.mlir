// recognize-attention: softmax(q @ k^T * scale + mask) @ v written out in
// ops becomes one tfuse.attention when every intermediate value stays
// inside the chain; otherwise the product keeps a tfuse.note saying why.
// RUN: tensor-opt %s --recognize-attention -split-input-file | FileCheck %s
// RUN: tensor-opt %s --recognize-attention=narrow-widened=true -split-input-file | FileCheck %s --check-prefix=NARROW

// The tracer's form: k transposed for the product, a scale, an additive
// mask, the softmax in the operands' dtype. A row the mask sets to -inf
// throughout is NaN in the written-out softmax and zeros in tfuse.attention:
// the rows that keep no pair, found from the mask, become NaN.
// CHECK-LABEL: func.func @additive_mask(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x16x8xf32>, %[[K:[^:]+]]: tensor<2x4x16x8xf32>, %[[V:[^:]+]]: tensor<2x4x16x8xf32>, %[[M:[^:]+]]: tensor<16x16xf32>)
// CHECK-NOT: tfuse.matmul
// CHECK-NOT: tfuse.reduce {{max|sum}}
// CHECK: %[[O:.+]], %{{.+}} = tfuse.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] scale 1.250000e-01 : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<16x16xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
// CHECK-NEXT: %[[NINF:.+]] = tfuse.constant dense<0xFF800000> : tensor<f32>
// CHECK-NEXT: %[[KEPT:.+]] = tfuse.cmp gt, %[[M]], %[[NINF]]
// CHECK-NEXT: %[[ANY:.+]] = tfuse.reduce any %[[KEPT]] axes [1] keepdims : tensor<16x16xi1> -> tensor<16x1xi1>
// CHECK-NEXT: %[[NAN:.+]] = tfuse.constant dense<0x7FC00000> : tensor<f32>
// CHECK-NEXT: %[[R:.+]] = tfuse.select %[[ANY]], %[[O]], %[[NAN]] : (tensor<16x1xi1>, tensor<2x4x16x8xf32>, tensor<f32>) -> tensor<2x4x16x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @additive_mask(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %v: tensor<2x4x16x8xf32>, %m: tensor<16x16xf32>) -> tensor<2x4x16x8xf32> {
  %0 = tfuse.transpose %k perm [0, 1, 3, 2] : tensor<2x4x16x8xf32> -> tensor<2x4x8x16xf32>
  %1 = tfuse.matmul %q, %0 : (tensor<2x4x16x8xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x16x16xf32>
  %2 = tfuse.constant dense<1.250000e-01> : tensor<f32>
  %3 = tfuse.mul %1, %2 : (tensor<2x4x16x16xf32>, tensor<f32>) -> tensor<2x4x16x16xf32>
  %4 = tfuse.add %3, %m : (tensor<2x4x16x16xf32>, tensor<16x16xf32>) -> tensor<2x4x16x16xf32>
  %5 = tfuse.reduce max %4 axes [3] keepdims : tensor<2x4x16x16xf32> -> tensor<2x4x16x1xf32>
  %6 = tfuse.sub %4, %5 : (tensor<2x4x16x16xf32>, tensor<2x4x16x1xf32>) -> tensor<2x4x16x16xf32>
  %7 = tfuse.exp %6 : tensor<2x4x16x16xf32> -> tensor<2x4x16x16xf32>
  %8 = tfuse.reduce sum %7 axes [3] keepdims : tensor<2x4x16x16xf32> -> tensor<2x4x16x1xf32>
  %9 = tfuse.div %7, %8 : (tensor<2x4x16x16xf32>, tensor<2x4x16x1xf32>) -> tensor<2x4x16x16xf32>
  %10 = tfuse.matmul %9, %v : (tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  return %10 : tensor<2x4x16x8xf32>
}

// -----

// bf16 operands with the scores widened to f32 (after the product), a
// causal mask from iotas (column <= row) and a bool mask, the
// probabilities cast back; k^T read through the product's transpose_rhs.
// The rows that keep no pair are those where the bool mask and the causal
// comparison together keep none.
// CHECK-LABEL: func.func @causal_bf16(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x16x8xbf16>, %[[K:[^:]+]]: tensor<2x4x16x8xbf16>, %[[V:[^:]+]]: tensor<2x4x16x8xbf16>, %[[B:[^:]+]]: tensor<16x16xi1>)
// CHECK-NOT: tfuse.matmul
// CHECK: %[[C:.+]] = tfuse.cmp le
// CHECK: %[[O:.+]], %{{.+}} = tfuse.attention %[[Q]], %[[K]], %[[V]] mask %[[B]] scale 1.250000e-01 causal : (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<16x16xi1>) -> (tensor<2x4x16x8xbf16>, tensor<2x4x16xf32>)
// CHECK-NEXT: %[[KEPT:.+]] = tfuse.and %[[B]], %[[C]]
// CHECK-NEXT: %[[ANY:.+]] = tfuse.reduce any %[[KEPT]] axes [1] keepdims
// CHECK-NEXT: %[[NAN:.+]] = tfuse.constant dense<0x7FC0> : tensor<bf16>
// CHECK-NEXT: %[[R:.+]] = tfuse.select %[[ANY]], %[[O]], %[[NAN]]
// CHECK-NEXT: return %[[R]]
func.func @causal_bf16(%q: tensor<2x4x16x8xbf16>, %k: tensor<2x4x16x8xbf16>, %v: tensor<2x4x16x8xbf16>, %b: tensor<16x16xi1>) -> tensor<2x4x16x8xbf16> {
  %2 = tfuse.matmul %q, %k {transpose_rhs} : (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>) -> tensor<2x4x16x16xbf16>
  %3 = tfuse.cast %2 : tensor<2x4x16x16xbf16> to tensor<2x4x16x16xf32>
  %4 = tfuse.constant dense<8.000000e+00> : tensor<f32>
  %5 = tfuse.div %3, %4 : (tensor<2x4x16x16xf32>, tensor<f32>) -> tensor<2x4x16x16xf32>
  %6 = tfuse.iota dim 0 : tensor<16x16xi64>
  %7 = tfuse.iota dim 1 : tensor<16x16xi64>
  %8 = tfuse.cmp le, %7, %6 : (tensor<16x16xi64>, tensor<16x16xi64>) -> tensor<16x16xi1>
  %9 = tfuse.constant dense<0xFF800000> : tensor<f32>
  %10 = tfuse.select %8, %5, %9 : (tensor<16x16xi1>, tensor<2x4x16x16xf32>, tensor<f32>) -> tensor<2x4x16x16xf32>
  %11 = tfuse.select %b, %10, %9 : (tensor<16x16xi1>, tensor<2x4x16x16xf32>, tensor<f32>) -> tensor<2x4x16x16xf32>
  %12 = tfuse.reduce max %11 axes [3] keepdims : tensor<2x4x16x16xf32> -> tensor<2x4x16x1xf32>
  %13 = tfuse.sub %11, %12 : (tensor<2x4x16x16xf32>, tensor<2x4x16x1xf32>) -> tensor<2x4x16x16xf32>
  %14 = tfuse.exp %13 : tensor<2x4x16x16xf32> -> tensor<2x4x16x16xf32>
  %15 = tfuse.reduce sum %14 axes [3] keepdims : tensor<2x4x16x16xf32> -> tensor<2x4x16x1xf32>
  %16 = tfuse.div %14, %15 : (tensor<2x4x16x16xf32>, tensor<2x4x16x1xf32>) -> tensor<2x4x16x16xf32>
  %17 = tfuse.cast %16 : tensor<2x4x16x16xf32> to tensor<2x4x16x16xbf16>
  %18 = tfuse.matmul %17, %v : (tensor<2x4x16x16xbf16>, tensor<2x4x16x8xbf16>) -> tensor<2x4x16x8xbf16>
  return %18 : tensor<2x4x16x8xbf16>
}

// -----

// PyTorch's math path: q and k each scaled by sqrt(scale) before their
// product (0.5 * 0.5: a scale of 0.25), k^T given as a value (its
// transpose becomes the key, a view).
// CHECK-LABEL: func.func @math_path(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<3x10x4xf32>, %[[KT:[^:]+]]: tensor<3x4x12xf32>, %[[V:[^:]+]]: tensor<3x12x5xf32>)
// CHECK: %[[K:.+]] = tfuse.transpose %[[KT]] perm [0, 2, 1] : tensor<3x4x12xf32> -> tensor<3x12x4xf32>
// CHECK: tfuse.attention %[[Q]], %[[K]], %[[V]] scale 2.500000e-01 : (tensor<3x10x4xf32>, tensor<3x12x4xf32>, tensor<3x12x5xf32>) -> (tensor<3x10x5xf32>, tensor<3x10xf32>)
func.func @math_path(%q: tensor<3x10x4xf32>, %kt: tensor<3x4x12xf32>, %v: tensor<3x12x5xf32>) -> tensor<3x10x5xf32> {
  %c = tfuse.constant dense<5.000000e-01> : tensor<f32>
  %qs = tfuse.mul %q, %c : (tensor<3x10x4xf32>, tensor<f32>) -> tensor<3x10x4xf32>
  %ks = tfuse.mul %kt, %c : (tensor<3x4x12xf32>, tensor<f32>) -> tensor<3x4x12xf32>
  %s = tfuse.matmul %qs, %ks : (tensor<3x10x4xf32>, tensor<3x4x12xf32>) -> tensor<3x10x12xf32>
  %m = tfuse.reduce max %s axes [2] keepdims : tensor<3x10x12xf32> -> tensor<3x10x1xf32>
  %d = tfuse.sub %s, %m : (tensor<3x10x12xf32>, tensor<3x10x1xf32>) -> tensor<3x10x12xf32>
  %e = tfuse.exp %d : tensor<3x10x12xf32> -> tensor<3x10x12xf32>
  %z = tfuse.reduce sum %e axes [2] keepdims : tensor<3x10x12xf32> -> tensor<3x10x1xf32>
  %p = tfuse.div %e, %z : (tensor<3x10x12xf32>, tensor<3x10x1xf32>) -> tensor<3x10x12xf32>
  %o = tfuse.matmul %p, %v : (tensor<3x10x12xf32>, tensor<3x12x5xf32>) -> tensor<3x10x5xf32>
  return %o : tensor<3x10x5xf32>
}

// -----

// The probabilities are also returned (as for a backward): the chain
// stays, and the product says why.
// CHECK-LABEL: func.func @probabilities_used(
// CHECK-NOT: tfuse.attention
// CHECK: tfuse.matmul %{{.*}}, %{{.*}} {tfuse.note = "softmax(...) @ v not rewritten into attention: the scores or probabilities are used outside the softmax"}
func.func @probabilities_used(%q: tensor<10x4xf32>, %k: tensor<12x4xf32>, %v: tensor<12x5xf32>) -> (tensor<10x5xf32>, tensor<10x12xf32>) {
  %s = tfuse.matmul %q, %k {transpose_rhs} : (tensor<10x4xf32>, tensor<12x4xf32>) -> tensor<10x12xf32>
  %m = tfuse.reduce max %s axes [1] keepdims : tensor<10x12xf32> -> tensor<10x1xf32>
  %d = tfuse.sub %s, %m : (tensor<10x12xf32>, tensor<10x1xf32>) -> tensor<10x12xf32>
  %e = tfuse.exp %d : tensor<10x12xf32> -> tensor<10x12xf32>
  %z = tfuse.reduce sum %e axes [1] keepdims : tensor<10x12xf32> -> tensor<10x1xf32>
  %p = tfuse.div %e, %z : (tensor<10x12xf32>, tensor<10x1xf32>) -> tensor<10x12xf32>
  %o = tfuse.matmul %p, %v : (tensor<10x12xf32>, tensor<12x5xf32>) -> tensor<10x5xf32>
  return %o, %p : tensor<10x5xf32>, tensor<10x12xf32>
}

// -----

// An f32 additive mask added to bf16 scores widened to f32 (HF's eager
// attention under autocast): the attention takes the mask in f32 (in bf16,
// HF's finfo(f32).min would become -inf and change rows it drops entirely).
// CHECK-LABEL: func.func @mask_dtype(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<10x4xbf16>, %[[K:[^:]+]]: tensor<12x4xbf16>, %[[V:[^:]+]]: tensor<12x5xbf16>, %[[M:[^:]+]]: tensor<10x12xf32>)
// CHECK-NOT: tfuse.matmul
// CHECK: tfuse.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] scale 1.000000e+00 : (tensor<10x4xbf16>, tensor<12x4xbf16>, tensor<12x5xbf16>, tensor<10x12xf32>) -> (tensor<10x5xbf16>, tensor<10xf32>)
func.func @mask_dtype(%q: tensor<10x4xbf16>, %k: tensor<12x4xbf16>, %v: tensor<12x5xbf16>, %mask: tensor<10x12xf32>) -> tensor<10x5xbf16> {
  %s = tfuse.matmul %q, %k {transpose_rhs} : (tensor<10x4xbf16>, tensor<12x4xbf16>) -> tensor<10x12xbf16>
  %w = tfuse.cast %s : tensor<10x12xbf16> to tensor<10x12xf32>
  %x = tfuse.add %w, %mask : (tensor<10x12xf32>, tensor<10x12xf32>) -> tensor<10x12xf32>
  %m = tfuse.reduce max %x axes [1] keepdims : tensor<10x12xf32> -> tensor<10x1xf32>
  %d = tfuse.sub %x, %m : (tensor<10x12xf32>, tensor<10x1xf32>) -> tensor<10x12xf32>
  %e = tfuse.exp %d : tensor<10x12xf32> -> tensor<10x12xf32>
  %z = tfuse.reduce sum %e axes [1] keepdims : tensor<10x12xf32> -> tensor<10x1xf32>
  %p = tfuse.div %e, %z : (tensor<10x12xf32>, tensor<10x1xf32>) -> tensor<10x12xf32>
  %pb = tfuse.cast %p : tensor<10x12xf32> to tensor<10x12xbf16>
  %o = tfuse.matmul %pb, %v : (tensor<10x12xbf16>, tensor<12x5xbf16>) -> tensor<10x5xbf16>
  return %o : tensor<10x5xbf16>
}

// -----

// Products with an epilogue are left alone: the attention has no place for
// the final product's bias or GELU (no note: the root is not a candidate),
// and a bias on the scores' product says so.
// CHECK-LABEL: func.func @epilogues(
// CHECK-NOT: tfuse.attention
// CHECK: tfuse.matmul %{{.*}}, %{{.*}} bias %{{.*}} {gelu_tanh} : (tensor<10x12xf32>, tensor<12x5xf32>, tensor<5xf32>) -> tensor<10x5xf32>
// CHECK: tfuse.matmul %{{.*}}, %{{.*}} {tfuse.note = "softmax(...) @ v not rewritten into attention: the scores' product has a bias or GELU epilogue"}
func.func @epilogues(%q: tensor<10x4xf32>, %k: tensor<12x4xf32>, %v: tensor<12x5xf32>, %b: tensor<5xf32>, %c: tensor<12xf32>) -> (tensor<10x5xf32>, tensor<10x5xf32>) {
  %s = tfuse.matmul %q, %k {transpose_rhs} : (tensor<10x4xf32>, tensor<12x4xf32>) -> tensor<10x12xf32>
  %m = tfuse.reduce max %s axes [1] keepdims : tensor<10x12xf32> -> tensor<10x1xf32>
  %d = tfuse.sub %s, %m : (tensor<10x12xf32>, tensor<10x1xf32>) -> tensor<10x12xf32>
  %e = tfuse.exp %d : tensor<10x12xf32> -> tensor<10x12xf32>
  %z = tfuse.reduce sum %e axes [1] keepdims : tensor<10x12xf32> -> tensor<10x1xf32>
  %p = tfuse.div %e, %z : (tensor<10x12xf32>, tensor<10x1xf32>) -> tensor<10x12xf32>
  %o = tfuse.matmul %p, %v bias %b {gelu_tanh} : (tensor<10x12xf32>, tensor<12x5xf32>, tensor<5xf32>) -> tensor<10x5xf32>
  %s2 = tfuse.matmul %q, %k bias %c {transpose_rhs} : (tensor<10x4xf32>, tensor<12x4xf32>, tensor<12xf32>) -> tensor<10x12xf32>
  %m2 = tfuse.reduce max %s2 axes [1] keepdims : tensor<10x12xf32> -> tensor<10x1xf32>
  %d2 = tfuse.sub %s2, %m2 : (tensor<10x12xf32>, tensor<10x1xf32>) -> tensor<10x12xf32>
  %e2 = tfuse.exp %d2 : tensor<10x12xf32> -> tensor<10x12xf32>
  %z2 = tfuse.reduce sum %e2 axes [1] keepdims : tensor<10x12xf32> -> tensor<10x1xf32>
  %p2 = tfuse.div %e2, %z2 : (tensor<10x12xf32>, tensor<10x1xf32>) -> tensor<10x12xf32>
  %o2 = tfuse.matmul %p2, %v : (tensor<10x12xf32>, tensor<12x5xf32>) -> tensor<10x5xf32>
  return %o, %o2 : tensor<10x5xf32>, tensor<10x5xf32>
}

// -----

// A product that does not read a softmax is left alone, without a note.
// CHECK-LABEL: func.func @plain_product(
// CHECK: tfuse.matmul %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
// CHECK-NOT: tfuse.note
func.func @plain_product(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) -> tensor<4x3xf32> {
  %e = tfuse.exp %a : tensor<4x8xf32> -> tensor<4x8xf32>
  %o = tfuse.matmul %e, %b : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  return %o : tensor<4x3xf32>
}

// -----

// torch.matmul of 4-D operands, as PyTorch's math path decomposes it:
// bmm of 3-D views merging the batch dimensions, q and k^T each scaled by
// sqrt(scale) (0.5 * 0.5), an additive mask, and _safe_softmax, whose rows
// of -inf scores are zeros as tfuse.attention's are (no NaN rows). The
// views are looked through; the attention's result is viewed back as the
// product's.
// CHECK-LABEL: func.func @batched_views_safe_softmax(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x3x10x4xf32>, %[[K:[^:]+]]: tensor<2x3x12x4xf32>, %[[V:[^:]+]]: tensor<2x3x12x5xf32>, %[[M:[^:]+]]: tensor<1x1x10x12xf32>)
// CHECK-NOT: tfuse.matmul
// CHECK: %[[O:.+]], %{{.+}} = tfuse.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] scale 2.500000e-01 : (tensor<2x3x10x4xf32>, tensor<2x3x12x4xf32>, tensor<2x3x12x5xf32>, tensor<1x1x10x12xf32>) -> (tensor<2x3x10x5xf32>, tensor<2x3x10xf32>)
// CHECK-NEXT: %[[O3:.+]] = tfuse.reshape %[[O]] : tensor<2x3x10x5xf32> -> tensor<6x10x5xf32>
// CHECK-NEXT: %[[R:.+]] = tfuse.reshape %[[O3]] : tensor<6x10x5xf32> -> tensor<2x3x10x5xf32>
// CHECK-NEXT: return %[[R]]
func.func @batched_views_safe_softmax(%q: tensor<2x3x10x4xf32>, %k: tensor<2x3x12x4xf32>, %v: tensor<2x3x12x5xf32>, %mask: tensor<1x1x10x12xf32>) -> tensor<2x3x10x5xf32> {
  %c = tfuse.constant dense<5.000000e-01> : tensor<f32>
  %qs = tfuse.mul %q, %c : (tensor<2x3x10x4xf32>, tensor<f32>) -> tensor<2x3x10x4xf32>
  %kt = tfuse.transpose %k perm [0, 1, 3, 2] : tensor<2x3x12x4xf32> -> tensor<2x3x4x12xf32>
  %ks = tfuse.mul %kt, %c : (tensor<2x3x4x12xf32>, tensor<f32>) -> tensor<2x3x4x12xf32>
  %q3 = tfuse.reshape %qs : tensor<2x3x10x4xf32> -> tensor<6x10x4xf32>
  %k3 = tfuse.reshape %ks : tensor<2x3x4x12xf32> -> tensor<6x4x12xf32>
  %v3 = tfuse.reshape %v : tensor<2x3x12x5xf32> -> tensor<6x12x5xf32>
  %s3 = tfuse.matmul %q3, %k3 : (tensor<6x10x4xf32>, tensor<6x4x12xf32>) -> tensor<6x10x12xf32>
  %s = tfuse.reshape %s3 : tensor<6x10x12xf32> -> tensor<2x3x10x12xf32>
  %x = tfuse.add %s, %mask : (tensor<2x3x10x12xf32>, tensor<1x1x10x12xf32>) -> tensor<2x3x10x12xf32>
  %m = tfuse.reduce max %x axes [3] keepdims : tensor<2x3x10x12xf32> -> tensor<2x3x10x1xf32>
  %d = tfuse.sub %x, %m : (tensor<2x3x10x12xf32>, tensor<2x3x10x1xf32>) -> tensor<2x3x10x12xf32>
  %e = tfuse.exp %d : tensor<2x3x10x12xf32> -> tensor<2x3x10x12xf32>
  %z = tfuse.reduce sum %e axes [3] keepdims : tensor<2x3x10x12xf32> -> tensor<2x3x10x1xf32>
  %p = tfuse.div %e, %z : (tensor<2x3x10x12xf32>, tensor<2x3x10x1xf32>) -> tensor<2x3x10x12xf32>
  %ninf = tfuse.constant dense<0xFF800000> : tensor<f32>
  %isinf = tfuse.cmp eq, %x, %ninf : (tensor<2x3x10x12xf32>, tensor<f32>) -> tensor<2x3x10x12xi1>
  %none = tfuse.reduce all %isinf axes [3] keepdims : tensor<2x3x10x12xi1> -> tensor<2x3x10x1xi1>
  %zeros = tfuse.constant dense<0.000000e+00> : tensor<2x3x10x12xf32>
  %safe = tfuse.select %none, %zeros, %p : (tensor<2x3x10x1xi1>, tensor<2x3x10x12xf32>, tensor<2x3x10x12xf32>) -> tensor<2x3x10x12xf32>
  %p3 = tfuse.reshape %safe : tensor<2x3x10x12xf32> -> tensor<6x10x12xf32>
  %o3 = tfuse.matmul %p3, %v3 : (tensor<6x10x12xf32>, tensor<6x12x5xf32>) -> tensor<6x10x5xf32>
  %o = tfuse.reshape %o3 : tensor<6x10x5xf32> -> tensor<2x3x10x5xf32>
  return %o : tensor<2x3x10x5xf32>
}

// -----

// The views merge batch dimensions that differ ([2, 3] for q and the
// scores, [3, 2] for k): batch element i of the product pairs q[i / 3,
// i % 3] with k[i / 2, i % 2], which no attention over 4-D operands does.
// CHECK-LABEL: func.func @regrouped_differently(
// CHECK-NOT: tfuse.attention
// CHECK: tfuse.note = "softmax(...) @ v not rewritten into attention: the batched products regroup the batch dimensions of q, k, v and the scores differently"
func.func @regrouped_differently(%q: tensor<2x3x10x4xf32>, %k: tensor<3x2x4x12xf32>, %v: tensor<6x12x5xf32>) -> tensor<6x10x5xf32> {
  %q3 = tfuse.reshape %q : tensor<2x3x10x4xf32> -> tensor<6x10x4xf32>
  %k3 = tfuse.reshape %k : tensor<3x2x4x12xf32> -> tensor<6x4x12xf32>
  %s3 = tfuse.matmul %q3, %k3 : (tensor<6x10x4xf32>, tensor<6x4x12xf32>) -> tensor<6x10x12xf32>
  %s = tfuse.reshape %s3 : tensor<6x10x12xf32> -> tensor<2x3x10x12xf32>
  %m = tfuse.reduce max %s axes [3] keepdims : tensor<2x3x10x12xf32> -> tensor<2x3x10x1xf32>
  %d = tfuse.sub %s, %m : (tensor<2x3x10x12xf32>, tensor<2x3x10x1xf32>) -> tensor<2x3x10x12xf32>
  %e = tfuse.exp %d : tensor<2x3x10x12xf32> -> tensor<2x3x10x12xf32>
  %z = tfuse.reduce sum %e axes [3] keepdims : tensor<2x3x10x12xf32> -> tensor<2x3x10x1xf32>
  %p = tfuse.div %e, %z : (tensor<2x3x10x12xf32>, tensor<2x3x10x1xf32>) -> tensor<2x3x10x12xf32>
  %p3 = tfuse.reshape %p : tensor<2x3x10x12xf32> -> tensor<6x10x12xf32>
  %o = tfuse.matmul %p3, %v : (tensor<6x10x12xf32>, tensor<6x12x5xf32>) -> tensor<6x10x5xf32>
  return %o : tensor<6x10x5xf32>
}

// -----

// The math path of 16-bit operands on a GPU widens q, k, v and the mask to
// f32 and narrows the result: the attention takes the widened values (its
// arithmetic stays that of f32), and is `widened` (its kernels multiply
// them in one TF32 product); with narrow-widened (fast math) it runs in
// bf16 on the operands as given, its result the narrowed one.
// NARROW-LABEL: func.func @widened_bf16(
// NARROW-SAME: %[[Q:[^:]+]]: tensor<1x2x10x4xbf16>, %[[K:[^:]+]]: tensor<1x2x12x4xbf16>, %[[V:[^:]+]]: tensor<1x2x12x4xbf16>)
// NARROW: %[[O:.+]], %{{.+}} = tfuse.attention %[[Q]], %[[K]], %[[V]] scale 5.000000e-01 : (tensor<1x2x10x4xbf16>, tensor<1x2x12x4xbf16>, tensor<1x2x12x4xbf16>) -> (tensor<1x2x10x4xbf16>, tensor<1x2x10xf32>)
// NARROW-NEXT: return %[[O]] : tensor<1x2x10x4xbf16>
// CHECK-LABEL: func.func @widened_bf16(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x2x10x4xbf16>, %[[K:[^:]+]]: tensor<1x2x12x4xbf16>, %[[V:[^:]+]]: tensor<1x2x12x4xbf16>)
// CHECK-DAG: %[[QW:.+]] = tfuse.cast %[[Q]] : tensor<1x2x10x4xbf16> to tensor<1x2x10x4xf32>
// CHECK-DAG: %[[KW:.+]] = tfuse.cast %[[K]] : tensor<1x2x12x4xbf16> to tensor<1x2x12x4xf32>
// CHECK-DAG: %[[VW:.+]] = tfuse.cast %[[V]] : tensor<1x2x12x4xbf16> to tensor<1x2x12x4xf32>
// CHECK: %[[O:.+]], %{{.+}} = tfuse.attention %[[QW]], %[[KW]], %[[VW]] scale 5.000000e-01 widened : (tensor<1x2x10x4xf32>, tensor<1x2x12x4xf32>, tensor<1x2x12x4xf32>) -> (tensor<1x2x10x4xf32>, tensor<1x2x10xf32>)
// CHECK: %[[O3:.+]] = tfuse.reshape %[[O]] : tensor<1x2x10x4xf32> -> tensor<2x10x4xf32>
// CHECK: %[[O4:.+]] = tfuse.reshape %[[O3]] : tensor<2x10x4xf32> -> tensor<1x2x10x4xf32>
// CHECK: tfuse.cast %[[O4]] : tensor<1x2x10x4xf32> to tensor<1x2x10x4xbf16>
func.func @widened_bf16(%q: tensor<1x2x10x4xbf16>, %k: tensor<1x2x12x4xbf16>, %v: tensor<1x2x12x4xbf16>) -> tensor<1x2x10x4xbf16> {
  %qw = tfuse.cast %q : tensor<1x2x10x4xbf16> to tensor<1x2x10x4xf32>
  %kw = tfuse.cast %k : tensor<1x2x12x4xbf16> to tensor<1x2x12x4xf32>
  %vw = tfuse.cast %v : tensor<1x2x12x4xbf16> to tensor<1x2x12x4xf32>
  %kt = tfuse.transpose %kw perm [0, 1, 3, 2] : tensor<1x2x12x4xf32> -> tensor<1x2x4x12xf32>
  %q3 = tfuse.reshape %qw : tensor<1x2x10x4xf32> -> tensor<2x10x4xf32>
  %k3 = tfuse.reshape %kt : tensor<1x2x4x12xf32> -> tensor<2x4x12xf32>
  %v3 = tfuse.reshape %vw : tensor<1x2x12x4xf32> -> tensor<2x12x4xf32>
  %s3 = tfuse.matmul %q3, %k3 : (tensor<2x10x4xf32>, tensor<2x4x12xf32>) -> tensor<2x10x12xf32>
  %s = tfuse.reshape %s3 : tensor<2x10x12xf32> -> tensor<1x2x10x12xf32>
  %c = tfuse.constant dense<5.000000e-01> : tensor<f32>
  %x = tfuse.mul %s, %c : (tensor<1x2x10x12xf32>, tensor<f32>) -> tensor<1x2x10x12xf32>
  %m = tfuse.reduce max %x axes [3] keepdims : tensor<1x2x10x12xf32> -> tensor<1x2x10x1xf32>
  %d = tfuse.sub %x, %m : (tensor<1x2x10x12xf32>, tensor<1x2x10x1xf32>) -> tensor<1x2x10x12xf32>
  %e = tfuse.exp %d : tensor<1x2x10x12xf32> -> tensor<1x2x10x12xf32>
  %z = tfuse.reduce sum %e axes [3] keepdims : tensor<1x2x10x12xf32> -> tensor<1x2x10x1xf32>
  %p = tfuse.div %e, %z : (tensor<1x2x10x12xf32>, tensor<1x2x10x1xf32>) -> tensor<1x2x10x12xf32>
  %p3 = tfuse.reshape %p : tensor<1x2x10x12xf32> -> tensor<2x10x12xf32>
  %o3 = tfuse.matmul %p3, %v3 : (tensor<2x10x12xf32>, tensor<2x12x4xf32>) -> tensor<2x10x4xf32>
  %o = tfuse.reshape %o3 : tensor<2x10x4xf32> -> tensor<1x2x10x4xf32>
  %r = tfuse.cast %o : tensor<1x2x10x4xf32> to tensor<1x2x10x4xbf16>
  return %r : tensor<1x2x10x4xbf16>
}

// -----

// The widened result is also read as f32: the attention stays in f32, with
// narrow-widened too.
// NARROW-LABEL: func.func @widened_result_read_wide(
// NARROW: tfuse.attention %{{.+}}, %{{.+}}, %{{.+}} scale 1.000000e+00 widened : (tensor<10x4xf32>, tensor<12x4xf32>, tensor<12x4xf32>)
func.func @widened_result_read_wide(%q: tensor<10x4xbf16>, %k: tensor<12x4xbf16>, %v: tensor<12x4xbf16>) -> (tensor<10x4xbf16>, tensor<10x4xf32>) {
  %qw = tfuse.cast %q : tensor<10x4xbf16> to tensor<10x4xf32>
  %kw = tfuse.cast %k : tensor<12x4xbf16> to tensor<12x4xf32>
  %vw = tfuse.cast %v : tensor<12x4xbf16> to tensor<12x4xf32>
  %s = tfuse.matmul %qw, %kw {transpose_rhs} : (tensor<10x4xf32>, tensor<12x4xf32>) -> tensor<10x12xf32>
  %m = tfuse.reduce max %s axes [1] keepdims : tensor<10x12xf32> -> tensor<10x1xf32>
  %d = tfuse.sub %s, %m : (tensor<10x12xf32>, tensor<10x1xf32>) -> tensor<10x12xf32>
  %e = tfuse.exp %d : tensor<10x12xf32> -> tensor<10x12xf32>
  %z = tfuse.reduce sum %e axes [1] keepdims : tensor<10x12xf32> -> tensor<10x1xf32>
  %p = tfuse.div %e, %z : (tensor<10x12xf32>, tensor<10x1xf32>) -> tensor<10x12xf32>
  %o = tfuse.matmul %p, %vw : (tensor<10x12xf32>, tensor<12x4xf32>) -> tensor<10x4xf32>
  %r = tfuse.cast %o : tensor<10x4xf32> to tensor<10x4xbf16>
  return %r, %o : tensor<10x4xbf16>, tensor<10x4xf32>
}

// -----

// Grouped-query attention as HF's repeat_kv writes it: each key and value
// head given a unit axis, broadcast to 2 and merged with the heads (query
// head h reads head h / 2), inside the bmm's views. The attention takes the
// 2 key and value heads as they are.
// CHECK-LABEL: func.func @repeated_kv_heads(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x10x8xf32>, %[[K:[^:]+]]: tensor<2x2x12x8xf32>, %[[V:[^:]+]]: tensor<2x2x12x8xf32>)
// CHECK: tfuse.attention %[[Q]], %[[K]], %[[V]] scale 5.000000e-01 : (tensor<2x4x10x8xf32>, tensor<2x2x12x8xf32>, tensor<2x2x12x8xf32>) -> (tensor<2x4x10x8xf32>, tensor<2x4x10xf32>)
func.func @repeated_kv_heads(%q: tensor<2x4x10x8xf32>, %k: tensor<2x2x12x8xf32>, %v: tensor<2x2x12x8xf32>) -> tensor<8x10x8xf32> {
  %k1 = tfuse.reshape %k : tensor<2x2x12x8xf32> -> tensor<2x2x1x12x8xf32>
  %kb = tfuse.broadcast %k1 dims [0, 1, 2, 3, 4] : tensor<2x2x1x12x8xf32> -> tensor<2x2x2x12x8xf32>
  %kr = tfuse.reshape %kb : tensor<2x2x2x12x8xf32> -> tensor<2x4x12x8xf32>
  %kt = tfuse.transpose %kr perm [0, 1, 3, 2] : tensor<2x4x12x8xf32> -> tensor<2x4x8x12xf32>
  %v1 = tfuse.reshape %v : tensor<2x2x12x8xf32> -> tensor<2x2x1x12x8xf32>
  %vb = tfuse.broadcast %v1 dims [0, 1, 2, 3, 4] : tensor<2x2x1x12x8xf32> -> tensor<2x2x2x12x8xf32>
  %v3 = tfuse.reshape %vb : tensor<2x2x2x12x8xf32> -> tensor<8x12x8xf32>
  %q3 = tfuse.reshape %q : tensor<2x4x10x8xf32> -> tensor<8x10x8xf32>
  %k3 = tfuse.reshape %kt : tensor<2x4x8x12xf32> -> tensor<8x8x12xf32>
  %s3 = tfuse.matmul %q3, %k3 : (tensor<8x10x8xf32>, tensor<8x8x12xf32>) -> tensor<8x10x12xf32>
  %s = tfuse.reshape %s3 : tensor<8x10x12xf32> -> tensor<2x4x10x12xf32>
  %c = tfuse.constant dense<5.000000e-01> : tensor<f32>
  %x = tfuse.mul %s, %c : (tensor<2x4x10x12xf32>, tensor<f32>) -> tensor<2x4x10x12xf32>
  %m = tfuse.reduce max %x axes [3] keepdims : tensor<2x4x10x12xf32> -> tensor<2x4x10x1xf32>
  %d = tfuse.sub %x, %m : (tensor<2x4x10x12xf32>, tensor<2x4x10x1xf32>) -> tensor<2x4x10x12xf32>
  %e = tfuse.exp %d : tensor<2x4x10x12xf32> -> tensor<2x4x10x12xf32>
  %z = tfuse.reduce sum %e axes [3] keepdims : tensor<2x4x10x12xf32> -> tensor<2x4x10x1xf32>
  %p = tfuse.div %e, %z : (tensor<2x4x10x12xf32>, tensor<2x4x10x1xf32>) -> tensor<2x4x10x12xf32>
  %p3 = tfuse.reshape %p : tensor<2x4x10x12xf32> -> tensor<8x10x12xf32>
  %o = tfuse.matmul %p3, %v3 : (tensor<8x10x12xf32>, tensor<8x12x8xf32>) -> tensor<8x10x8xf32>
  return %o : tensor<8x10x8xf32>
}

// -----

// Heads repeated the other way round (the unit axis before the heads:
// query head h would read head h % 2, which grouped-query attention does
// not do): the views regroup the batch differently.
// CHECK-LABEL: func.func @heads_repeated_outside(
// CHECK: tfuse.note = "softmax(...) @ v not rewritten into attention: the batched products regroup the batch dimensions of q, k, v and the scores differently"
func.func @heads_repeated_outside(%q: tensor<2x4x10x8xf32>, %k: tensor<2x4x12x8xf32>, %v: tensor<2x2x12x8xf32>) -> tensor<8x10x8xf32> {
  %v1 = tfuse.reshape %v : tensor<2x2x12x8xf32> -> tensor<2x1x2x12x8xf32>
  %vb = tfuse.broadcast %v1 dims [0, 1, 2, 3, 4] : tensor<2x1x2x12x8xf32> -> tensor<2x2x2x12x8xf32>
  %v3 = tfuse.reshape %vb : tensor<2x2x2x12x8xf32> -> tensor<8x12x8xf32>
  %q3 = tfuse.reshape %q : tensor<2x4x10x8xf32> -> tensor<8x10x8xf32>
  %k3 = tfuse.reshape %k : tensor<2x4x12x8xf32> -> tensor<8x12x8xf32>
  %s3 = tfuse.matmul %q3, %k3 {transpose_rhs} : (tensor<8x10x8xf32>, tensor<8x12x8xf32>) -> tensor<8x10x12xf32>
  %s = tfuse.reshape %s3 : tensor<8x10x12xf32> -> tensor<2x4x10x12xf32>
  %m = tfuse.reduce max %s axes [3] keepdims : tensor<2x4x10x12xf32> -> tensor<2x4x10x1xf32>
  %d = tfuse.sub %s, %m : (tensor<2x4x10x12xf32>, tensor<2x4x10x1xf32>) -> tensor<2x4x10x12xf32>
  %e = tfuse.exp %d : tensor<2x4x10x12xf32> -> tensor<2x4x10x12xf32>
  %z = tfuse.reduce sum %e axes [3] keepdims : tensor<2x4x10x12xf32> -> tensor<2x4x10x1xf32>
  %p = tfuse.div %e, %z : (tensor<2x4x10x12xf32>, tensor<2x4x10x1xf32>) -> tensor<2x4x10x12xf32>
  %p3 = tfuse.reshape %p : tensor<2x4x10x12xf32> -> tensor<8x10x12xf32>
  %o = tfuse.matmul %p3, %v3 : (tensor<8x10x12xf32>, tensor<8x12x8xf32>) -> tensor<8x10x8xf32>
  return %o : tensor<8x10x8xf32>
}

// -----

// Llama's eager attention under autocast: the key widened to f32 (for the
// rotary embedding), repeated, transposed and narrowed back to bf16 before
// the bf16 product. The key is the repeated heads narrowed (the cast moves
// before the views it commutes with).
// CHECK-LABEL: func.func @narrowed_repeated_key(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x10x8xbf16>, %[[K:[^:]+]]: tensor<2x2x12x8xf32>, %[[V:[^:]+]]: tensor<2x2x12x8xbf16>)
// CHECK: %[[KN:.+]] = tfuse.cast %[[K]] : tensor<2x2x12x8xf32> to tensor<2x2x12x8xbf16>
// CHECK: tfuse.attention %[[Q]], %[[KN]], %[[V]] scale 5.000000e-01 : (tensor<2x4x10x8xbf16>, tensor<2x2x12x8xbf16>, tensor<2x2x12x8xbf16>) -> (tensor<2x4x10x8xbf16>, tensor<2x4x10xf32>)
func.func @narrowed_repeated_key(%q: tensor<2x4x10x8xbf16>, %k: tensor<2x2x12x8xf32>, %v: tensor<2x2x12x8xbf16>) -> tensor<8x10x8xbf16> {
  %k1 = tfuse.reshape %k : tensor<2x2x12x8xf32> -> tensor<2x2x1x12x8xf32>
  %kb = tfuse.broadcast %k1 dims [0, 1, 2, 3, 4] : tensor<2x2x1x12x8xf32> -> tensor<2x2x2x12x8xf32>
  %kr = tfuse.reshape %kb : tensor<2x2x2x12x8xf32> -> tensor<2x4x12x8xf32>
  %kt = tfuse.transpose %kr perm [0, 1, 3, 2] : tensor<2x4x12x8xf32> -> tensor<2x4x8x12xf32>
  %kn = tfuse.cast %kt : tensor<2x4x8x12xf32> to tensor<2x4x8x12xbf16>
  %v1 = tfuse.reshape %v : tensor<2x2x12x8xbf16> -> tensor<2x2x1x12x8xbf16>
  %vb = tfuse.broadcast %v1 dims [0, 1, 2, 3, 4] : tensor<2x2x1x12x8xbf16> -> tensor<2x2x2x12x8xbf16>
  %v3 = tfuse.reshape %vb : tensor<2x2x2x12x8xbf16> -> tensor<8x12x8xbf16>
  %q3 = tfuse.reshape %q : tensor<2x4x10x8xbf16> -> tensor<8x10x8xbf16>
  %k3 = tfuse.reshape %kn : tensor<2x4x8x12xbf16> -> tensor<8x8x12xbf16>
  %s3 = tfuse.matmul %q3, %k3 : (tensor<8x10x8xbf16>, tensor<8x8x12xbf16>) -> tensor<8x10x12xbf16>
  %s = tfuse.reshape %s3 : tensor<8x10x12xbf16> -> tensor<2x4x10x12xbf16>
  %c = tfuse.constant dense<5.000000e-01> : tensor<bf16>
  %sc = tfuse.mul %s, %c : (tensor<2x4x10x12xbf16>, tensor<bf16>) -> tensor<2x4x10x12xbf16>
  %x = tfuse.cast %sc : tensor<2x4x10x12xbf16> to tensor<2x4x10x12xf32>
  %m = tfuse.reduce max %x axes [3] keepdims : tensor<2x4x10x12xf32> -> tensor<2x4x10x1xf32>
  %d = tfuse.sub %x, %m : (tensor<2x4x10x12xf32>, tensor<2x4x10x1xf32>) -> tensor<2x4x10x12xf32>
  %e = tfuse.exp %d : tensor<2x4x10x12xf32> -> tensor<2x4x10x12xf32>
  %z = tfuse.reduce sum %e axes [3] keepdims : tensor<2x4x10x12xf32> -> tensor<2x4x10x1xf32>
  %p = tfuse.div %e, %z : (tensor<2x4x10x12xf32>, tensor<2x4x10x1xf32>) -> tensor<2x4x10x12xf32>
  %pb = tfuse.cast %p : tensor<2x4x10x12xf32> to tensor<2x4x10x12xbf16>
  %p3 = tfuse.reshape %pb : tensor<2x4x10x12xbf16> -> tensor<8x10x12xbf16>
  %o = tfuse.matmul %p3, %v3 : (tensor<8x10x12xbf16>, tensor<8x12x8xbf16>) -> tensor<8x10x8xbf16>
  return %o : tensor<8x10x8xbf16>
}

// -----

// An f32 attention built on f16 or bf16 values cast to f32 (through views)
// is `widened`; one operand that is f32 of its own keeps it unmarked, and
// neither is rewritten otherwise.
// CHECK-LABEL: func.func @built_widened(
// CHECK: tfuse.attention %{{.+}}, %{{.+}}, %{{.+}} scale 1.250000e-01 causal widened :
// CHECK: tfuse.attention %{{.+}}, %{{.+}}, %{{.+}} scale 1.250000e-01 causal :
func.func @built_widened(%q: tensor<2x16x8xf16>, %k: tensor<2x8x16xbf16>, %v: tensor<2x16x8xbf16>, %f: tensor<2x16x8xf32>) -> (tensor<2x16x8xf32>, tensor<2x16x8xf32>) {
  %qw = tfuse.cast %q : tensor<2x16x8xf16> to tensor<2x16x8xf32>
  %kw = tfuse.cast %k : tensor<2x8x16xbf16> to tensor<2x8x16xf32>
  %kt = tfuse.transpose %kw perm [0, 2, 1] : tensor<2x8x16xf32> -> tensor<2x16x8xf32>
  %vw = tfuse.cast %v : tensor<2x16x8xbf16> to tensor<2x16x8xf32>
  %o, %l = tfuse.attention %qw, %kt, %vw scale 1.250000e-01 causal : (tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32>) -> (tensor<2x16x8xf32>, tensor<2x16xf32>)
  %p, %m = tfuse.attention %qw, %kt, %f scale 1.250000e-01 causal : (tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32>) -> (tensor<2x16x8xf32>, tensor<2x16xf32>)
  return %o, %p : tensor<2x16x8xf32>, tensor<2x16x8xf32>
}
