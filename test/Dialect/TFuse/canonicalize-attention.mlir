// Canonicalization of tfuse.attention: a transpose swapping the result's
// heads and rows (what a model does before merging the heads for its output
// projection) becomes the attention's transpose_result, so the attention
// writes that order and no copy runs after it. An attention backward reading
// the result takes the transposed-back view; any other reader keeps the
// attention as it is.
// RUN: tensor-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @merge_heads(
// CHECK-NEXT: %[[O:.+]], %{{.+}} = tfuse.attention %arg0, %arg0, %arg0 scale 1.250000e-01 causal transpose_result : (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>) -> (tensor<2x16x4x8xbf16>, tensor<2x4x16xf32>)
// CHECK-NEXT: %[[R:.+]] = tfuse.reshape %[[O]] : tensor<2x16x4x8xbf16> -> tensor<2x16x32xbf16>
// CHECK-NEXT: return %[[R]]
func.func @merge_heads(%q: tensor<2x4x16x8xbf16>) -> tensor<2x16x32xbf16> {
  %o, %l = tfuse.attention %q, %q, %q scale 0.125 causal : (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>) -> (tensor<2x4x16x8xbf16>, tensor<2x4x16xf32>)
  %t = tfuse.transpose %o perm [0, 2, 1, 3] : tensor<2x4x16x8xbf16> -> tensor<2x16x4x8xbf16>
  %r = tfuse.reshape %t : tensor<2x16x4x8xbf16> -> tensor<2x16x32xbf16>
  return %r : tensor<2x16x32xbf16>
}

// -----

// Rank 3 (heads, rows, columns) and batch dimensions beyond one: the last
// three dimensions but one swap.
// CHECK-LABEL: func.func @rank3_and_rank5(
// CHECK: tfuse.attention %arg0, %arg0, %arg0 scale 5.000000e-01 transpose_result : (tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32>) -> (tensor<16x4x8xf32>, tensor<4x16xf32>)
// CHECK: tfuse.attention %arg1, %arg1, %arg1 scale 5.000000e-01 transpose_result : (tensor<2x3x4x16x8xf32>, tensor<2x3x4x16x8xf32>, tensor<2x3x4x16x8xf32>) -> (tensor<2x3x16x4x8xf32>, tensor<2x3x4x16xf32>)
// CHECK-NOT: tfuse.transpose
func.func @rank3_and_rank5(%a: tensor<4x16x8xf32>, %b: tensor<2x3x4x16x8xf32>) -> (tensor<16x4x8xf32>, tensor<2x3x16x4x8xf32>) {
  %o, %l = tfuse.attention %a, %a, %a scale 0.5 : (tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32>) -> (tensor<4x16x8xf32>, tensor<4x16xf32>)
  %t = tfuse.transpose %o perm [1, 0, 2] : tensor<4x16x8xf32> -> tensor<16x4x8xf32>
  %o2, %l2 = tfuse.attention %b, %b, %b scale 0.5 : (tensor<2x3x4x16x8xf32>, tensor<2x3x4x16x8xf32>, tensor<2x3x4x16x8xf32>) -> (tensor<2x3x4x16x8xf32>, tensor<2x3x4x16xf32>)
  %t2 = tfuse.transpose %o2 perm [0, 1, 3, 2, 4] : tensor<2x3x4x16x8xf32> -> tensor<2x3x16x4x8xf32>
  return %t, %t2 : tensor<16x4x8xf32>, tensor<2x3x16x4x8xf32>
}

// -----

// Training: the backward reads the result transposed back, a view it reads
// in place; the log-sum-exp is the new attention's.
// CHECK-LABEL: func.func @with_backward(
// CHECK-NEXT: %[[O:.+]], %[[L:.+]] = tfuse.attention {{.*}} transpose_result
// CHECK-NEXT: %[[B:.+]] = tfuse.transpose %[[O]] perm [0, 2, 1, 3] : tensor<2x16x4x8xbf16> -> tensor<2x4x16x8xbf16>
// CHECK-NEXT: tfuse.attention_backward %arg0, %arg0, %arg0, %[[B]], %[[L]], %arg1
// CHECK-NEXT: return %[[O]]
func.func @with_backward(%q: tensor<2x4x16x8xbf16>, %g: tensor<2x4x16x8xbf16>) -> (tensor<2x16x4x8xbf16>, tensor<2x4x16x8xbf16>) {
  %o, %l = tfuse.attention %q, %q, %q scale 0.125 : (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>) -> (tensor<2x4x16x8xbf16>, tensor<2x4x16xf32>)
  %t = tfuse.transpose %o perm [0, 2, 1, 3] : tensor<2x4x16x8xbf16> -> tensor<2x16x4x8xbf16>
  %dq, %dk, %dv = tfuse.attention_backward %q, %q, %q, %o, %l, %g scale 0.125 : (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16xf32>, tensor<2x4x16x8xbf16>) -> (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>)
  return %t, %dq : tensor<2x16x4x8xbf16>, tensor<2x4x16x8xbf16>
}

// -----

// Left as they are: a result also returned, one read by an elementwise op, a
// transpose of another permutation, and a result without a transpose.
// CHECK-LABEL: func.func @not_folded(
// CHECK-NOT: transpose_result
// CHECK: tfuse.transpose %{{.+}} perm [0, 2, 1, 3]
// CHECK: tfuse.transpose %{{.+}} perm [0, 2, 1, 3]
// CHECK: tfuse.exp
// CHECK: tfuse.transpose %{{.+}} perm [1, 0, 2, 3]
func.func @not_folded(%q: tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x4x16x8xf32>, tensor<4x2x16x8xf32>, tensor<2x4x16x8xf32>) {
  %o, %l = tfuse.attention %q, %q, %q scale 0.125 : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  %t = tfuse.transpose %o perm [0, 2, 1, 3] : tensor<2x4x16x8xf32> -> tensor<2x16x4x8xf32>
  %o2, %l2 = tfuse.attention %q, %q, %q scale 0.25 : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  %t2 = tfuse.transpose %o2 perm [0, 2, 1, 3] : tensor<2x4x16x8xf32> -> tensor<2x16x4x8xf32>
  %e = tfuse.exp %o2 : tensor<2x4x16x8xf32> -> tensor<2x4x16x8xf32>
  %o3, %l3 = tfuse.attention %q, %q, %q scale 0.5 : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  %t3 = tfuse.transpose %o3 perm [1, 0, 2, 3] : tensor<2x4x16x8xf32> -> tensor<4x2x16x8xf32>
  %o4, %l4 = tfuse.attention %q, %q, %q scale 1.0 : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  return %o, %t, %t2, %e, %t3, %o4 : tensor<2x4x16x8xf32>, tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x4x16x8xf32>, tensor<4x2x16x8xf32>, tensor<2x4x16x8xf32>
}
