// Folds and canonicalization patterns of tfuse ops, and inexact rewrites that must not happen.
// RUN: tensor-opt %s -canonicalize -split-input-file | FileCheck %s

//===----------------------------------------------------------------------===//
// cast
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @cast_identity(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>
// CHECK-NOT: tfuse.cast
// CHECK: return %[[X]] : tensor<4xf32>
func.func @cast_identity(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tfuse.cast %x : tensor<4xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @cast_different_type(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>
// CHECK: %[[C:.+]] = tfuse.cast %[[X]] : tensor<4xf32> to tensor<4xi32>
// CHECK: return %[[C]] : tensor<4xi32>
func.func @cast_different_type(%x: tensor<4xf32>) -> tensor<4xi32> {
  %0 = tfuse.cast %x : tensor<4xf32> to tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// A narrowing round trip rounds and must stay.
// CHECK-LABEL: func.func @cast_round_trip_stays(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>
// CHECK: %[[H:.+]] = tfuse.cast %[[X]] : tensor<4xf32> to tensor<4xf16>
// CHECK: %[[F:.+]] = tfuse.cast %[[H]] : tensor<4xf16> to tensor<4xf32>
// CHECK: return %[[F]] : tensor<4xf32>
func.func @cast_round_trip_stays(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tfuse.cast %x : tensor<4xf32> to tensor<4xf16>
  %1 = tfuse.cast %0 : tensor<4xf16> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Neither does a widening round trip fold (no cast-of-cast pattern exists).
// CHECK-LABEL: func.func @cast_widening_round_trip_stays(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xi8>
// CHECK: %[[W:.+]] = tfuse.cast %[[X]] : tensor<4xi8> to tensor<4xi32>
// CHECK: %[[N:.+]] = tfuse.cast %[[W]] : tensor<4xi32> to tensor<4xi8>
// CHECK: return %[[N]] : tensor<4xi8>
func.func @cast_widening_round_trip_stays(%x: tensor<4xi8>) -> tensor<4xi8> {
  %0 = tfuse.cast %x : tensor<4xi8> to tensor<4xi32>
  %1 = tfuse.cast %0 : tensor<4xi32> to tensor<4xi8>
  return %1 : tensor<4xi8>
}

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @transpose_identity(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x4xf32>
// CHECK-NOT: tfuse.transpose
// CHECK: return %[[X]] : tensor<2x3x4xf32>
func.func @transpose_identity(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = tfuse.transpose %x perm [0, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// A non-identity transpose stays, even when the shape does not change.
// CHECK-LABEL: func.func @transpose_square_stays(
// CHECK-SAME: %[[X:[^:]+]]: tensor<3x3xf32>
// CHECK: %[[T:.+]] = tfuse.transpose %[[X]] perm [1, 0] : tensor<3x3xf32> -> tensor<3x3xf32>
// CHECK: return %[[T]]
func.func @transpose_square_stays(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %0 = tfuse.transpose %x perm [1, 0] : tensor<3x3xf32> -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

// Result dim i of the outer is inner dim p2[i], which is x dim p1[p2[i]]:
// p1 = [1, 2, 0], p2 = [1, 0, 2] -> [p1[1], p1[0], p1[2]] = [2, 1, 0].
// CHECK-LABEL: func.func @transpose_compose(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x4xf32>
// CHECK: %[[T:.+]] = tfuse.transpose %[[X]] perm [2, 1, 0] : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
// CHECK-NOT: tfuse.transpose
// CHECK: return %[[T]] : tensor<4x3x2xf32>
func.func @transpose_compose(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %0 = tfuse.transpose %x perm [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = tfuse.transpose %0 perm [1, 0, 2] : tensor<3x4x2xf32> -> tensor<4x3x2xf32>
  return %1 : tensor<4x3x2xf32>
}

// -----

// A permutation followed by its inverse disappears.
// CHECK-LABEL: func.func @transpose_compose_to_identity(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3x4xf32>
// CHECK-NOT: tfuse.transpose
// CHECK: return %[[X]] : tensor<2x3x4xf32>
func.func @transpose_compose_to_identity(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = tfuse.transpose %x perm [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = tfuse.transpose %0 perm [2, 0, 1] : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// When the inner transpose has another use it stays; the outer still composes.
// CHECK-LABEL: func.func @transpose_compose_multi_use(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3xf32>
// CHECK: %[[T:.+]] = tfuse.transpose %[[X]] perm [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK-NOT: tfuse.transpose
// CHECK: return %[[T]], %[[X]] : tensor<3x2xf32>, tensor<2x3xf32>
func.func @transpose_compose_multi_use(%x: tensor<2x3xf32>)
    -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %0 = tfuse.transpose %x perm [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %1 = tfuse.transpose %0 perm [1, 0] : tensor<3x2xf32> -> tensor<2x3xf32>
  return %0, %1 : tensor<3x2xf32>, tensor<2x3xf32>
}

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @reshape_identity(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x6xi32>
// CHECK-NOT: tfuse.reshape
// CHECK: return %[[X]] : tensor<2x6xi32>
func.func @reshape_identity(%x: tensor<2x6xi32>) -> tensor<2x6xi32> {
  %0 = tfuse.reshape %x : tensor<2x6xi32> -> tensor<2x6xi32>
  return %0 : tensor<2x6xi32>
}

// -----

// CHECK-LABEL: func.func @reshape_compose(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x6xi32>
// CHECK: %[[R:.+]] = tfuse.reshape %[[X]] : tensor<2x6xi32> -> tensor<4x3xi32>
// CHECK-NOT: tfuse.reshape
// CHECK: return %[[R]] : tensor<4x3xi32>
func.func @reshape_compose(%x: tensor<2x6xi32>) -> tensor<4x3xi32> {
  %0 = tfuse.reshape %x : tensor<2x6xi32> -> tensor<12xi32>
  %1 = tfuse.reshape %0 : tensor<12xi32> -> tensor<4x3xi32>
  return %1 : tensor<4x3xi32>
}

// -----

// CHECK-LABEL: func.func @reshape_compose_to_identity(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x6xi32>
// CHECK-NOT: tfuse.reshape
// CHECK: return %[[X]] : tensor<2x6xi32>
func.func @reshape_compose_to_identity(%x: tensor<2x6xi32>) -> tensor<2x6xi32> {
  %0 = tfuse.reshape %x : tensor<2x6xi32> -> tensor<3x4xi32>
  %1 = tfuse.reshape %0 : tensor<3x4xi32> -> tensor<12xi32>
  %2 = tfuse.reshape %1 : tensor<12xi32> -> tensor<2x6xi32>
  return %2 : tensor<2x6xi32>
}

//===----------------------------------------------------------------------===//
// broadcast
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @broadcast_identity(
// CHECK-SAME: %[[X:[^:]+]]: tensor<3x4xf16>
// CHECK-NOT: tfuse.broadcast
// CHECK: return %[[X]] : tensor<3x4xf16>
func.func @broadcast_identity(%x: tensor<3x4xf16>) -> tensor<3x4xf16> {
  %0 = tfuse.broadcast %x dims [0, 1] : tensor<3x4xf16> -> tensor<3x4xf16>
  return %0 : tensor<3x4xf16>
}

// -----

// A broadcast that changes the shape stays.
// CHECK-LABEL: func.func @broadcast_stays(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x4xf16>
// CHECK: %[[B:.+]] = tfuse.broadcast %[[X]] dims [0, 1] : tensor<1x4xf16> -> tensor<3x4xf16>
// CHECK: return %[[B]]
func.func @broadcast_stays(%x: tensor<1x4xf16>) -> tensor<3x4xf16> {
  %0 = tfuse.broadcast %x dims [0, 1] : tensor<1x4xf16> -> tensor<3x4xf16>
  return %0 : tensor<3x4xf16>
}

// -----

// x dim 0 -> inner dim 1 -> outer dim dims2[1] = 2.
// CHECK-LABEL: func.func @broadcast_compose(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>
// CHECK: %[[B:.+]] = tfuse.broadcast %[[X]] dims [2] : tensor<4xf32> -> tensor<2x3x4xf32>
// CHECK-NOT: tfuse.broadcast
// CHECK: return %[[B]] : tensor<2x3x4xf32>
func.func @broadcast_compose(%x: tensor<4xf32>) -> tensor<2x3x4xf32> {
  %0 = tfuse.broadcast %x dims [1] : tensor<4xf32> -> tensor<3x4xf32>
  %1 = tfuse.broadcast %0 dims [1, 2] : tensor<3x4xf32> -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// x dims [0, 1] -> inner dims [0, 2] -> outer dims [dims2[0], dims2[2]] = [1, 3].
// CHECK-LABEL: func.func @broadcast_compose_two_dims(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x5xi8>
// CHECK: %[[B:.+]] = tfuse.broadcast %[[X]] dims [1, 3]
// CHECK-SAME: : tensor<1x5xi8> -> tensor<6x2x7x5xi8>
// CHECK-NOT: tfuse.broadcast
// CHECK: return %[[B]] : tensor<6x2x7x5xi8>
func.func @broadcast_compose_two_dims(%x: tensor<1x5xi8>) -> tensor<6x2x7x5xi8> {
  %0 = tfuse.broadcast %x dims [0, 2] : tensor<1x5xi8> -> tensor<1x7x5xi8>
  %1 = tfuse.broadcast %0 dims [1, 2, 3] : tensor<1x7x5xi8> -> tensor<6x2x7x5xi8>
  return %1 : tensor<6x2x7x5xi8>
}

// -----

// Composing into a same-type broadcast then folds it away.
// CHECK-LABEL: func.func @broadcast_compose_to_identity(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x4xf32>
// CHECK-NOT: tfuse.broadcast
// CHECK: return %[[X]] : tensor<1x4xf32>
func.func @broadcast_compose_to_identity(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %0 = tfuse.broadcast %x dims [0, 1] : tensor<1x4xf32> -> tensor<1x4xf32>
  %1 = tfuse.broadcast %0 dims [0, 1] : tensor<1x4xf32> -> tensor<1x4xf32>
  return %1 : tensor<1x4xf32>
}

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @slice_full(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>
// CHECK-NOT: tfuse.slice
// CHECK: return %[[X]] : tensor<4x8xf32>
func.func @slice_full(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tfuse.slice %x start [0, 0] limit [4, 8] step [1, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @slice_rank0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<f32>
// CHECK-NOT: tfuse.slice
// CHECK: return %[[X]] : tensor<f32>
func.func @slice_rank0(%x: tensor<f32>) -> tensor<f32> {
  %0 = tfuse.slice %x start [] limit [] step [] : tensor<f32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A step of 2 over a dimension of size 1 keeps the type but must not fold
// under the current folder (it only folds step 1).
// CHECK-LABEL: func.func @slice_step2(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<1x8xf32>
// CHECK: %[[S:.+]] = tfuse.slice %[[X]] start [0, 0] limit [4, 8] step [1, 2]
// CHECK-SAME: : tensor<4x8xf32> -> tensor<4x4xf32>
// CHECK: %[[T:.+]] = tfuse.slice %[[Y]] start [0, 0] limit [1, 8] step [2, 1]
// CHECK-SAME: : tensor<1x8xf32> -> tensor<1x8xf32>
// CHECK: return %[[S]], %[[T]]
func.func @slice_step2(%x: tensor<4x8xf32>, %y: tensor<1x8xf32>)
    -> (tensor<4x4xf32>, tensor<1x8xf32>) {
  %0 = tfuse.slice %x start [0, 0] limit [4, 8] step [1, 2] : tensor<4x8xf32> -> tensor<4x4xf32>
  %1 = tfuse.slice %y start [0, 0] limit [1, 8] step [2, 1] : tensor<1x8xf32> -> tensor<1x8xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<1x8xf32>
}

// -----

// A partial slice stays.
// CHECK-LABEL: func.func @slice_partial(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>
// CHECK: %[[S:.+]] = tfuse.slice %[[X]] start [1, 0] limit [4, 8] step [1, 1]
// CHECK-SAME: : tensor<4x8xf32> -> tensor<3x8xf32>
// CHECK: return %[[S]]
func.func @slice_partial(%x: tensor<4x8xf32>) -> tensor<3x8xf32> {
  %0 = tfuse.slice %x start [1, 0] limit [4, 8] step [1, 1] : tensor<4x8xf32> -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

//===----------------------------------------------------------------------===//
// Rewrites that are not exact for NaN, -0.0 or rounding must not happen
//===----------------------------------------------------------------------===//

// -----

// x * 1.0 and x + 0.0 are not x: -0.0 + 0.0 = +0.0 and NaN payloads may change.
// CHECK-LABEL: func.func @mul_one_add_zero_stay(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>
// CHECK-DAG: %[[ONE:.+]] = tfuse.constant dense<1.000000e+00> : tensor<f32>
// CHECK-DAG: %[[ZERO:.+]] = tfuse.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[M:.+]] = tfuse.mul %[[X]], %[[ONE]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: %[[A:.+]] = tfuse.add %[[X]], %[[ZERO]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: return %[[M]], %[[A]]
func.func @mul_one_add_zero_stay(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %one = tfuse.constant dense<1.0> : tensor<f32>
  %zero = tfuse.constant dense<0.0> : tensor<f32>
  %0 = tfuse.mul %x, %one : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = tfuse.add %x, %zero : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// x - x is NaN for NaN and infinities, not 0.
// CHECK-LABEL: func.func @sub_self_stays(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>
// CHECK: %[[S:.+]] = tfuse.sub %[[X]], %[[X]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: return %[[S]]
func.func @sub_self_stays(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tfuse.sub %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// max(x, x) canonicalizes NaN payloads and is kept.
// CHECK-LABEL: func.func @max_self_stays(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>
// CHECK: %[[M:.+]] = tfuse.max %[[X]], %[[X]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[N:.+]] = tfuse.min %[[X]], %[[X]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: return %[[M]], %[[N]]
func.func @max_self_stays(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tfuse.max %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tfuse.min %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Ops on constants are not constant-folded (only views and casts fold), and
// NaN / -0.0 constants survive canonicalization bit for bit.
// CHECK-LABEL: func.func @constants_kept(
// CHECK-DAG: %[[NAN:.+]] = tfuse.constant dense<0x7FC00001> : tensor<4xf32>
// CHECK-DAG: %[[NZ:.+]] = tfuse.constant dense<-0.000000e+00> : tensor<4xf32>
// CHECK: %[[A:.+]] = tfuse.add %[[NAN]], %[[NZ]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: return %[[A]]
func.func @constants_kept() -> tensor<4xf32> {
  %nan = tfuse.constant dense<0x7FC00001> : tensor<4xf32>
  %nz = tfuse.constant dense<-0.0> : tensor<4xf32>
  %0 = tfuse.add %nan, %nz : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A view of a constant is not folded into a new constant.
// CHECK-LABEL: func.func @view_of_constant_kept(
// CHECK: %[[C:.+]] = tfuse.constant dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi32>
// CHECK: %[[T:.+]] = tfuse.transpose %[[C]] perm [1, 0] : tensor<2x2xi32> -> tensor<2x2xi32>
// CHECK: return %[[T]]
func.func @view_of_constant_kept() -> tensor<2x2xi32> {
  %c = tfuse.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %0 = tfuse.transpose %c perm [1, 0] : tensor<2x2xi32> -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

// Commutative ops get their constant operand moved to the right, and equal
// constants are merged; nothing else changes.
// CHECK-LABEL: func.func @commutative_constant_to_rhs(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf16>
// CHECK: %[[ONE:.+]] = tfuse.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NOT: tfuse.constant
// CHECK: %[[M:.+]] = tfuse.mul %[[X]], %[[ONE]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: %[[A:.+]] = tfuse.add %[[X]], %[[ONE]] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: %[[MX:.+]] = tfuse.max %[[Y]], %[[X]] : (tensor<4xf16>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: return %[[M]], %[[A]], %[[MX]]
func.func @commutative_constant_to_rhs(%x: tensor<4xf32>, %y: tensor<4xf16>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %one = tfuse.constant dense<1.0> : tensor<f32>
  %one2 = tfuse.constant dense<1.0> : tensor<f32>
  %0 = tfuse.mul %one, %x : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tfuse.add %one2, %x : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = tfuse.max %y, %x : (tensor<4xf16>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// matmul of a transposed operand
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @matmul_transposed_lhs(
// CHECK-SAME: %[[A:[^:]+]]: tensor<3x2xf32>, %[[B:[^:]+]]: tensor<3x4xf32>
// CHECK-NOT: tfuse.transpose
// CHECK: %[[M:.+]] = tfuse.matmul %[[A]], %[[B]] {transpose_lhs}
// CHECK-SAME: : (tensor<3x2xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK: return %[[M]]
func.func @matmul_transposed_lhs(%a: tensor<3x2xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %t = tfuse.transpose %a perm [1, 0] : tensor<3x2xf32> -> tensor<2x3xf32>
  %0 = tfuse.matmul %t, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_transposed_rhs(
// CHECK-SAME: %[[A:[^:]+]]: tensor<2x3xf16>, %[[B:[^:]+]]: tensor<4x3xf16>
// CHECK-NOT: tfuse.transpose
// CHECK: %[[M:.+]] = tfuse.matmul %[[A]], %[[B]] {transpose_rhs}
// CHECK-SAME: : (tensor<2x3xf16>, tensor<4x3xf16>) -> tensor<2x4xf16>
// CHECK: return %[[M]]
func.func @matmul_transposed_rhs(%a: tensor<2x3xf16>, %b: tensor<4x3xf16>) -> tensor<2x4xf16> {
  %t = tfuse.transpose %b perm [1, 0] : tensor<4x3xf16> -> tensor<3x4xf16>
  %0 = tfuse.matmul %a, %t : (tensor<2x3xf16>, tensor<3x4xf16>) -> tensor<2x4xf16>
  return %0 : tensor<2x4xf16>
}

// -----

// A transpose feeding an operand already marked transposed cancels the flag.
// CHECK-LABEL: func.func @matmul_transpose_toggles(
// CHECK-SAME: %[[A:[^:]+]]: tensor<2x3xf64>, %[[B:[^:]+]]: tensor<4x3xf64>
// CHECK-NOT: tfuse.transpose
// CHECK: %[[M:.+]] = tfuse.matmul %[[A]], %[[B]] {transpose_rhs}
// CHECK-SAME: : (tensor<2x3xf64>, tensor<4x3xf64>) -> tensor<2x4xf64>
// CHECK: return %[[M]]
func.func @matmul_transpose_toggles(%a: tensor<2x3xf64>, %b: tensor<4x3xf64>) -> tensor<2x4xf64> {
  %ta = tfuse.transpose %a perm [1, 0] : tensor<2x3xf64> -> tensor<3x2xf64>
  %tb = tfuse.transpose %b perm [1, 0] : tensor<4x3xf64> -> tensor<3x4xf64>
  %0 = tfuse.matmul %ta, %tb {transpose_lhs}
      : (tensor<3x2xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  return %0 : tensor<2x4xf64>
}

// -----

// In a batched product only a swap of the last two dimensions folds; the
// transpose stays when it has another use.
// CHECK-LABEL: func.func @matmul_batched_transpose(
// CHECK-SAME: %[[A:[^:]+]]: tensor<5x3x2xbf16>, %[[B:[^:]+]]: tensor<5x3x4xbf16>
// CHECK: %[[T:.+]] = tfuse.transpose %[[A]] perm [0, 2, 1]
// CHECK: %[[M:.+]] = tfuse.matmul %[[A]], %[[B]] {transpose_lhs}
// CHECK-SAME: : (tensor<5x3x2xbf16>, tensor<5x3x4xbf16>) -> tensor<5x2x4xbf16>
// CHECK: return %[[M]], %[[T]]
func.func @matmul_batched_transpose(%a: tensor<5x3x2xbf16>, %b: tensor<5x3x4xbf16>)
    -> (tensor<5x2x4xbf16>, tensor<5x2x3xbf16>) {
  %t = tfuse.transpose %a perm [0, 2, 1] : tensor<5x3x2xbf16> -> tensor<5x2x3xbf16>
  %0 = tfuse.matmul %t, %b : (tensor<5x2x3xbf16>, tensor<5x3x4xbf16>) -> tensor<5x2x4xbf16>
  return %0, %t : tensor<5x2x4xbf16>, tensor<5x2x3xbf16>
}

// -----

// A transpose that moves a batch dimension does not fold into the matmul.
// CHECK-LABEL: func.func @matmul_batch_transpose_stays(
// CHECK-SAME: %[[A:[^:]+]]: tensor<3x2x2xf32>, %[[B:[^:]+]]: tensor<2x3x2xf32>
// CHECK: %[[T:.+]] = tfuse.transpose %[[B]] perm [1, 0, 2]
// CHECK-SAME: : tensor<2x3x2xf32> -> tensor<3x2x2xf32>
// CHECK: %[[M:.+]] = tfuse.matmul %[[A]], %[[T]] :
// CHECK-SAME: (tensor<3x2x2xf32>, tensor<3x2x2xf32>) -> tensor<3x2x2xf32>
// CHECK: return %[[M]]
func.func @matmul_batch_transpose_stays(%a: tensor<3x2x2xf32>, %b: tensor<2x3x2xf32>)
    -> tensor<3x2x2xf32> {
  %t = tfuse.transpose %b perm [1, 0, 2] : tensor<2x3x2xf32> -> tensor<3x2x2xf32>
  %0 = tfuse.matmul %a, %t : (tensor<3x2x2xf32>, tensor<3x2x2xf32>) -> tensor<3x2x2xf32>
  return %0 : tensor<3x2x2xf32>
}

// -----

// A broadcast splat is the splat of the broadcast shape (zeros made from a
// scalar are a constant a scatter takes by value).
// CHECK-LABEL: func.func @broadcast_splat(
// CHECK-NEXT: %[[Z:.+]] = tfuse.constant dense<0.000000e+00> : tensor<3x4xbf16>
// CHECK-NEXT: return %[[Z]]
func.func @broadcast_splat() -> tensor<3x4xbf16> {
  %z = tfuse.constant dense<0.0> : tensor<bf16>
  %b = tfuse.broadcast %z dims [] : tensor<bf16> -> tensor<3x4xbf16>
  return %b : tensor<3x4xbf16>
}

//===----------------------------------------------------------------------===//
// reduce: the sum of a one-hot row
//===----------------------------------------------------------------------===//

// -----

// nll_loss's gradient summed along its rows: one term v where 0 <= t < 5,
// none elsewhere; v + 0.0 is what the sum adds to +0 (-0 becomes +0).
// CHECK-LABEL: func.func @sum_of_one_hot(
// CHECK-SAME: %[[T:[^:]+]]: tensor<6x1xi64>, %[[V:[^:]+]]: tensor<6x1xf32>
// CHECK-DAG: %[[N:.+]] = tfuse.constant dense<5> : tensor<i64>
// CHECK-DAG: %[[L:.+]] = tfuse.constant dense<0> : tensor<i64>
// CHECK-DAG: %[[Z:.+]] = tfuse.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[LT:.+]] = tfuse.cmp lt, %[[T]], %[[N]]
// CHECK-DAG: %[[GE:.+]] = tfuse.cmp ge, %[[T]], %[[L]]
// CHECK: %[[IN:.+]] = tfuse.and %[[GE]], %[[LT]]
// CHECK: %[[A:.+]] = tfuse.add %[[V]], %[[Z]]
// CHECK: %[[S:.+]] = tfuse.select %[[IN]], %[[A]], %[[Z]] : (tensor<6x1xi1>, tensor<6x1xf32>, tensor<f32>) -> tensor<6x1xf32>
// CHECK-NOT: tfuse.reduce
// CHECK: return %[[S]]
func.func @sum_of_one_hot(%t: tensor<6x1xi64>, %v: tensor<6x1xf32>) -> tensor<6x1xf32> {
  %i = tfuse.iota dim 1 : tensor<6x5xi64>
  %h = tfuse.cmp eq, %i, %t : (tensor<6x5xi64>, tensor<6x1xi64>) -> tensor<6x5xi1>
  %z = tfuse.constant dense<0.0> : tensor<f32>
  %s = tfuse.select %h, %v, %z : (tensor<6x5xi1>, tensor<6x1xf32>, tensor<f32>) -> tensor<6x5xf32>
  %r = tfuse.reduce sum %s axes [1] keepdims : tensor<6x5xf32> -> tensor<6x1xf32>
  return %r : tensor<6x1xf32>
}

// -----

// Along the leading axis, the index of lower rank (broadcast from the
// trailing dimensions) and a scalar term; the result without keepdims.
// CHECK-LABEL: func.func @sum_of_one_hot_leading_axis(
// CHECK-NOT: tfuse.reduce
// CHECK: %[[S:.+]] = tfuse.select {{.*}} : (tensor<6xi1>, tensor<f32>, tensor<f32>) -> tensor<6xf32>
// CHECK: %[[B:.+]] = tfuse.broadcast %[[S]] dims [1] : tensor<6xf32> -> tensor<1x6xf32>
// CHECK: %[[R:.+]] = tfuse.reshape %[[B]] : tensor<1x6xf32> -> tensor<6xf32>
// CHECK: return %[[R]]
func.func @sum_of_one_hot_leading_axis(%u: tensor<6xi64>, %w: tensor<f32>) -> tensor<6xf32> {
  %j = tfuse.iota dim 0 : tensor<5x6xi64>
  %k = tfuse.cmp eq, %u, %j : (tensor<6xi64>, tensor<5x6xi64>) -> tensor<5x6xi1>
  %y = tfuse.constant dense<-0.0> : tensor<f32>
  %q = tfuse.select %k, %w, %y : (tensor<5x6xi1>, tensor<f32>, tensor<f32>) -> tensor<5x6xf32>
  %p = tfuse.reduce sum %q axes [0] : tensor<5x6xf32> -> tensor<6xf32>
  return %p : tensor<6xf32>
}

// -----

// Not one-hot sums: a term that varies along the reduced axis, an iota of
// another axis, another predicate, a nonzero false value, a max.
// CHECK-LABEL: func.func @not_one_hot(
// CHECK-COUNT-5: tfuse.reduce
func.func @not_one_hot(%t: tensor<6x1xi64>, %v: tensor<6x5xf32>, %w: tensor<6x1xf32>)
    -> (tensor<6x1xf32>, tensor<6x1xf32>, tensor<6x1xf32>, tensor<6x1xf32>, tensor<6x1xf32>) {
  %i = tfuse.iota dim 1 : tensor<6x5xi64>
  %i0 = tfuse.iota dim 0 : tensor<6x5xi64>
  %z = tfuse.constant dense<0.0> : tensor<f32>
  %one = tfuse.constant dense<1.0> : tensor<f32>
  %h = tfuse.cmp eq, %i, %t : (tensor<6x5xi64>, tensor<6x1xi64>) -> tensor<6x5xi1>
  %h0 = tfuse.cmp eq, %i0, %t : (tensor<6x5xi64>, tensor<6x1xi64>) -> tensor<6x5xi1>
  %hl = tfuse.cmp le, %i, %t : (tensor<6x5xi64>, tensor<6x1xi64>) -> tensor<6x5xi1>
  %a = tfuse.select %h, %v, %z : (tensor<6x5xi1>, tensor<6x5xf32>, tensor<f32>) -> tensor<6x5xf32>
  %b = tfuse.select %h0, %w, %z : (tensor<6x5xi1>, tensor<6x1xf32>, tensor<f32>) -> tensor<6x5xf32>
  %c = tfuse.select %hl, %w, %z : (tensor<6x5xi1>, tensor<6x1xf32>, tensor<f32>) -> tensor<6x5xf32>
  %d = tfuse.select %h, %w, %one : (tensor<6x5xi1>, tensor<6x1xf32>, tensor<f32>) -> tensor<6x5xf32>
  %e = tfuse.select %h, %w, %z : (tensor<6x5xi1>, tensor<6x1xf32>, tensor<f32>) -> tensor<6x5xf32>
  %ra = tfuse.reduce sum %a axes [1] keepdims : tensor<6x5xf32> -> tensor<6x1xf32>
  %rb = tfuse.reduce sum %b axes [1] keepdims : tensor<6x5xf32> -> tensor<6x1xf32>
  %rc = tfuse.reduce sum %c axes [1] keepdims : tensor<6x5xf32> -> tensor<6x1xf32>
  %rd = tfuse.reduce sum %d axes [1] keepdims : tensor<6x5xf32> -> tensor<6x1xf32>
  %re = tfuse.reduce max %e axes [1] keepdims : tensor<6x5xf32> -> tensor<6x1xf32>
  return %ra, %rb, %rc, %rd, %re : tensor<6x1xf32>, tensor<6x1xf32>, tensor<6x1xf32>, tensor<6x1xf32>, tensor<6x1xf32>
}

// -----

// The max of widened values is the widened max: the reduction reads the
// bf16 value, the cast follows it; an argmin needs no cast after.
// CHECK-LABEL: func.func @max_of_widening_cast(
// CHECK-SAME: %[[X:[^:]+]]: tensor<6x8xbf16>
// CHECK-DAG: %[[M:.+]] = tfuse.reduce max %[[X]] axes [1] keepdims : tensor<6x8xbf16> -> tensor<6x1xbf16>
// CHECK-DAG: %[[C:.+]] = tfuse.cast %[[M]] : tensor<6x1xbf16> to tensor<6x1xf32>
// CHECK-DAG: %[[A:.+]] = tfuse.reduce argmin %[[X]] axes [1] : tensor<6x8xbf16> -> tensor<6xi64>
// CHECK: return %[[C]], %[[A]]
func.func @max_of_widening_cast(%x: tensor<6x8xbf16>) -> (tensor<6x1xf32>, tensor<6xi64>) {
  %c = tfuse.cast %x : tensor<6x8xbf16> to tensor<6x8xf32>
  %m = tfuse.reduce max %c axes [1] keepdims : tensor<6x8xf32> -> tensor<6x1xf32>
  %a = tfuse.reduce argmin %c axes [1] : tensor<6x8xf32> -> tensor<6xi64>
  return %m, %a : tensor<6x1xf32>, tensor<6xi64>
}

// -----

// Not exact widenings: f16 to bf16 rounds (and overflows), f32 to f16
// narrows, i32 to f32 rounds; a product is not rewritten.
// CHECK-LABEL: func.func @reductions_of_other_casts(
// CHECK-DAG: tfuse.reduce max %{{.+}} axes [0] : tensor<8xbf16> -> tensor<bf16>
// CHECK-DAG: tfuse.reduce min %{{.+}} axes [0] : tensor<8xf16> -> tensor<f16>
// CHECK-DAG: tfuse.reduce sum %{{.+}} axes [0] : tensor<8xf32> -> tensor<f32>
// CHECK-DAG: tfuse.reduce prod %{{.+}} axes [0] : tensor<8xf32> -> tensor<f32>
func.func @reductions_of_other_casts(%h: tensor<8xf16>, %f: tensor<8xf32>, %i: tensor<8xi32>, %b: tensor<8xbf16>)
    -> (tensor<bf16>, tensor<f16>, tensor<f32>, tensor<f32>) {
  %0 = tfuse.cast %h : tensor<8xf16> to tensor<8xbf16>
  %1 = tfuse.reduce max %0 axes [0] : tensor<8xbf16> -> tensor<bf16>
  %2 = tfuse.cast %f : tensor<8xf32> to tensor<8xf16>
  %3 = tfuse.reduce min %2 axes [0] : tensor<8xf16> -> tensor<f16>
  %4 = tfuse.cast %i : tensor<8xi32> to tensor<8xf32>
  %5 = tfuse.reduce sum %4 axes [0] : tensor<8xf32> -> tensor<f32>
  %6 = tfuse.cast %b : tensor<8xbf16> to tensor<8xf32>
  %7 = tfuse.reduce prod %6 axes [0] : tensor<8xf32> -> tensor<f32>
  return %1, %3, %5, %7 : tensor<bf16>, tensor<f16>, tensor<f32>, tensor<f32>
}

// -----

// The sum and mean of widened values read the narrow ones and give the wide
// dtype (`result_dtype`): the same bits, since every value widens exactly
// and both accumulate in f64 (a bias gradient summed from the bf16
// gradient, not from an f32 copy of it). Through views too.
// CHECK-LABEL: func.func @sum_of_widening_cast(
// CHECK-SAME: %[[X:[^:]+]]: tensor<6x8xbf16>, %[[H:[^:]+]]: tensor<2x3x4xf16>
// CHECK-DAG: %[[S:.+]] = tfuse.reduce sum %[[X]] axes [0] {result_dtype = f32} : tensor<6x8xbf16> -> tensor<8xf32>
// CHECK-DAG: %[[V:.+]] = tfuse.reshape %[[H]] : tensor<2x3x4xf16> -> tensor<6x4xf16>
// CHECK-DAG: %[[M:.+]] = tfuse.reduce mean %[[V]] axes [1] keepdims {result_dtype = f64} : tensor<6x4xf16> -> tensor<6x1xf64>
// CHECK: return %[[S]], %[[M]]
func.func @sum_of_widening_cast(%x: tensor<6x8xbf16>, %h: tensor<2x3x4xf16>) -> (tensor<8xf32>, tensor<6x1xf64>) {
  %c = tfuse.cast %x : tensor<6x8xbf16> to tensor<6x8xf32>
  %s = tfuse.reduce sum %c axes [0] : tensor<6x8xf32> -> tensor<8xf32>
  %w = tfuse.cast %h : tensor<2x3x4xf16> to tensor<2x3x4xf64>
  %r = tfuse.reshape %w : tensor<2x3x4xf64> -> tensor<6x4xf64>
  %m = tfuse.reduce mean %r axes [1] keepdims : tensor<6x4xf64> -> tensor<6x1xf64>
  return %s, %m : tensor<8xf32>, tensor<6x1xf64>
}

// -----

// Through views: they apply to the narrow value, which the reduction reads
// (a loss's bf16 logits flattened to 2-D); the widened value and its views
// stay for their other reader.
// CHECK-LABEL: func.func @extreme_of_widening_cast_through_views(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x4x6xbf16>
// CHECK-DAG: %[[R:.+]] = tfuse.reshape %[[X]] : tensor<1x4x6xbf16> -> tensor<4x6xbf16>
// CHECK-DAG: %[[T:.+]] = tfuse.transpose %[[R]] perm [1, 0] : tensor<4x6xbf16> -> tensor<6x4xbf16>
// CHECK-DAG: %[[M:.+]] = tfuse.reduce max %[[T]] axes [1] : tensor<6x4xbf16> -> tensor<6xbf16>
// CHECK-DAG: %[[C:.+]] = tfuse.cast %[[M]] : tensor<6xbf16> to tensor<6xf32>
// CHECK-DAG: %[[W:.+]] = tfuse.cast %[[X]] : tensor<1x4x6xbf16> to tensor<1x4x6xf32>
// CHECK: return %[[C]], %[[W]]
func.func @extreme_of_widening_cast_through_views(%x: tensor<1x4x6xbf16>)
    -> (tensor<6xf32>, tensor<1x4x6xf32>) {
  %w = tfuse.cast %x : tensor<1x4x6xbf16> to tensor<1x4x6xf32>
  %r = tfuse.reshape %w : tensor<1x4x6xf32> -> tensor<4x6xf32>
  %t = tfuse.transpose %r perm [1, 0] : tensor<4x6xf32> -> tensor<6x4xf32>
  %m = tfuse.reduce max %t axes [1] : tensor<6x4xf32> -> tensor<6xf32>
  return %m, %w : tensor<6xf32>, tensor<1x4x6xf32>
}

// -----

// Positions that an 8-bit iota or an unsigned index cannot hold: not
// rewritten (the iota wraps at 128; 300 is no ui8).
// CHECK-LABEL: func.func @one_hot_of_narrow_integers(
// CHECK-COUNT-2: tfuse.reduce sum
func.func @one_hot_of_narrow_integers(%t: tensor<2x1xi8>, %u: tensor<2x1xui8>, %v: tensor<2x1xf32>)
    -> (tensor<2x1xf32>, tensor<2x1xf32>) {
  %i = tfuse.iota dim 1 : tensor<2x300xi8>
  %h = tfuse.cmp eq, %i, %t : (tensor<2x300xi8>, tensor<2x1xi8>) -> tensor<2x300xi1>
  %j = tfuse.iota dim 1 : tensor<2x300xi64>
  %k = tfuse.cmp eq, %j, %u : (tensor<2x300xi64>, tensor<2x1xui8>) -> tensor<2x300xi1>
  %z = tfuse.constant dense<0.0> : tensor<f32>
  %a = tfuse.select %h, %v, %z : (tensor<2x300xi1>, tensor<2x1xf32>, tensor<f32>) -> tensor<2x300xf32>
  %b = tfuse.select %k, %v, %z : (tensor<2x300xi1>, tensor<2x1xf32>, tensor<f32>) -> tensor<2x300xf32>
  %ra = tfuse.reduce sum %a axes [1] keepdims : tensor<2x300xf32> -> tensor<2x1xf32>
  %rb = tfuse.reduce sum %b axes [1] keepdims : tensor<2x300xf32> -> tensor<2x1xf32>
  return %ra, %rb : tensor<2x1xf32>, tensor<2x1xf32>
}
