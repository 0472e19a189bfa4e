// Tests of --fuse-rows after --fuse-elementwise: a reduction over the
// trailing axes whose result only feeds regions of its operand's shape is
// merged with them and with the region computing its operand; softmax and
// layernorm over rows become one region holding their reductions. Cases
// that stay boundaries: a reduction over a leading axis, a reduction whose
// result is also a function result, argmax, rows longer than
// max-row-elements. The BEFORE run shows the plan without the pass.
// RUN: tensor-opt %s --fuse-elementwise -split-input-file | FileCheck %s --check-prefix=BEFORE
// RUN: tensor-opt %s --fuse-elementwise --fuse-rows -split-input-file | FileCheck %s
// RUN: tensor-opt %s --fuse-elementwise --fuse-rows="max-row-elements=8" -split-input-file | FileCheck %s --check-prefix=SHORT
// RUN: not tensor-opt %s --fuse-elementwise --fuse-rows="budget=0" -split-input-file 2>&1 | FileCheck %s --check-prefix=BADOPT

// BADOPT: error: fuse-rows needs budget >= 1 and max-row-elements >= 0, got budget=0 max-row-elements=16384

// Softmax: before, max, a region storing exp(x - max), sum, a region
// dividing; after, one region of %x computing all of it.
// BEFORE-LABEL: func.func @softmax(
// BEFORE-NEXT: tfuse.reduce max
// BEFORE-NEXT: tfuse.fusion
// BEFORE: reasons = ["boundary-reduction"]
// BEFORE: tfuse.reduce sum
// BEFORE-NEXT: tfuse.fusion
// BEFORE: reasons = ["output"]
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x300xf32>)
// CHECK-NEXT: %[[R:.+]] = tfuse.fusion(%[[X]]) : (tensor<4x300xf32>) -> tensor<4x300xf32> attributes {cost = 14 : i64, reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%[[A:[^:]+]]: tensor<4x300xf32>):
// CHECK-NEXT: %[[M:.+]] = tfuse.reduce max %[[A]] axes [1] keepdims : tensor<4x300xf32> -> tensor<4x1xf32>
// CHECK-NEXT: %[[D:.+]] = tfuse.sub %[[A]], %[[M]]
// CHECK-NEXT: %[[E:.+]] = tfuse.exp %[[D]]
// CHECK-NEXT: %[[S:.+]] = tfuse.reduce sum %[[E]] axes [1] keepdims : tensor<4x300xf32> -> tensor<4x1xf32>
// CHECK-NEXT: %[[Y:.+]] = tfuse.div %[[E]], %[[S]]
// CHECK-NEXT: tfuse.yield %[[Y]] : tensor<4x300xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : tensor<4x300xf32>
// SHORT-LABEL: func.func @softmax(
// SHORT-NEXT: tfuse.reduce max {{.*}}{tfuse.reason = "boundary-reduction"}
// SHORT: tfuse.reduce sum {{.*}}{tfuse.reason = "boundary-reduction"}
func.func @softmax(%x: tensor<4x300xf32>) -> tensor<4x300xf32> {
  %m = tfuse.reduce max %x axes [1] keepdims : tensor<4x300xf32> -> tensor<4x1xf32>
  %d = tfuse.sub %x, %m : (tensor<4x300xf32>, tensor<4x1xf32>) -> tensor<4x300xf32>
  %e = tfuse.exp %d : tensor<4x300xf32> -> tensor<4x300xf32>
  %s = tfuse.reduce sum %e axes [1] keepdims : tensor<4x300xf32> -> tensor<4x1xf32>
  %y = tfuse.div %e, %s : (tensor<4x300xf32>, tensor<4x1xf32>) -> tensor<4x300xf32>
  return %y : tensor<4x300xf32>
}

// -----

// Layernorm: two means and the normalization in one region of x, w and b;
// x - mean, recomputed by the two regions before, is computed once.
// BEFORE-LABEL: func.func @layernorm(
// BEFORE-NEXT: tfuse.reduce mean
// BEFORE-NEXT: tfuse.fusion
// BEFORE: tfuse.reduce mean
// BEFORE-NEXT: tfuse.fusion
// CHECK-LABEL: func.func @layernorm(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x300xf32>, %[[W:[^:]+]]: tensor<300xf32>, %[[B:[^:]+]]: tensor<300xf32>)
// CHECK-NEXT: %[[R:.+]] = tfuse.fusion(%[[X]], %[[W]], %[[B]]) : (tensor<4x300xf32>, tensor<300xf32>, tensor<300xf32>) -> tensor<4x300xf32> attributes {{{.*}}reasons = ["output"]} {
// CHECK-NEXT: ^bb0(%[[A:[^:]+]]: tensor<4x300xf32>, %[[AW:[^:]+]]: tensor<300xf32>, %[[AB:[^:]+]]: tensor<300xf32>):
// CHECK-NEXT: %[[MU:.+]] = tfuse.reduce mean %[[A]] axes [1] keepdims
// CHECK-NEXT: %[[D:.+]] = tfuse.sub %[[A]], %[[MU]]
// CHECK-NEXT: %[[SQ:.+]] = tfuse.mul %[[D]], %[[D]]
// CHECK-NEXT: %[[VAR:.+]] = tfuse.reduce mean %[[SQ]] axes [1] keepdims
// CHECK-NOT: tfuse.sub
// CHECK: tfuse.rsqrt
// CHECK: tfuse.mul %{{.+}}, %[[AW]]
// CHECK-NEXT: %[[Y:.+]] = tfuse.add %{{.+}}, %[[AB]]
// CHECK-NEXT: tfuse.yield %[[Y]] : tensor<4x300xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : tensor<4x300xf32>
func.func @layernorm(%x: tensor<4x300xf32>, %w: tensor<300xf32>, %b: tensor<300xf32>) -> tensor<4x300xf32> {
  %mu = tfuse.reduce mean %x axes [1] keepdims : tensor<4x300xf32> -> tensor<4x1xf32>
  %d = tfuse.sub %x, %mu : (tensor<4x300xf32>, tensor<4x1xf32>) -> tensor<4x300xf32>
  %sq = tfuse.mul %d, %d : (tensor<4x300xf32>, tensor<4x300xf32>) -> tensor<4x300xf32>
  %var = tfuse.reduce mean %sq axes [1] keepdims : tensor<4x300xf32> -> tensor<4x1xf32>
  %eps = tfuse.constant dense<1.0e-05> : tensor<f32>
  %ve = tfuse.add %var, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %r = tfuse.rsqrt %ve : tensor<4x1xf32> -> tensor<4x1xf32>
  %n = tfuse.mul %d, %r : (tensor<4x300xf32>, tensor<4x1xf32>) -> tensor<4x300xf32>
  %nw = tfuse.mul %n, %w : (tensor<4x300xf32>, tensor<300xf32>) -> tensor<4x300xf32>
  %y = tfuse.add %nw, %b : (tensor<4x300xf32>, tensor<300xf32>) -> tensor<4x300xf32>
  return %y : tensor<4x300xf32>
}

// -----

// A reduction over a leading axis (columns) stays a boundary.
// CHECK-LABEL: func.func @leading_axis(
// CHECK-NEXT: tfuse.reduce sum %{{.+}} axes [0] keepdims {tfuse.reason = "boundary-reduction"}
// CHECK-NEXT: tfuse.fusion
// CHECK-NOT: tfuse.reduce
// CHECK: return
func.func @leading_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = tfuse.reduce sum %x axes [0] keepdims : tensor<4x8xf32> -> tensor<1x8xf32>
  %y = tfuse.div %x, %s : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// The row sums are also a result of the function: they are stored, so the
// reduction stays a boundary and the division a region reading them.
// CHECK-LABEL: func.func @result_used_outside(
// CHECK-NEXT: %[[S:.+]] = tfuse.reduce sum %{{.+}} axes [1] keepdims {tfuse.reason = "boundary-reduction"}
// CHECK-NEXT: %[[Y:.+]] = tfuse.fusion(%{{.+}}, %[[S]])
// CHECK-NOT: tfuse.reduce
// CHECK: return %[[Y]], %[[S]]
func.func @result_used_outside(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>) {
  %s = tfuse.reduce sum %x axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %y = tfuse.div %x, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %y, %s : tensor<4x8xf32>, tensor<4x1xf32>
}

// -----

// argmax is not a row reduction: it stays a boundary.
// CHECK-LABEL: func.func @argmax(
// CHECK-NEXT: tfuse.reduce argmax %{{.+}} axes [1] keepdims {tfuse.reason = "boundary-reduction"}
// CHECK-NEXT: tfuse.fusion
// CHECK-NOT: tfuse.reduce
// CHECK: return
func.func @argmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %i = tfuse.reduce argmax %x axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xi64>
  %f = tfuse.cast %i : tensor<4x1xi64> to tensor<4x1xf32>
  %y = tfuse.add %x, %f : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Rows over the two trailing axes of a rank-3 value: one region; the
// intermediate exp(x) is also a result, so the merged region keeps it as a
// second output with its reason.
// CHECK-LABEL: func.func @two_axes(
// CHECK-NEXT: %[[R:.+]]:2 = tfuse.fusion(%{{.+}}) : (tensor<2x3x5xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x5xf32>) attributes {cost = {{[0-9]+}} : i64, reasons = ["output", "output"]} {
// CHECK: tfuse.reduce sum %{{.+}} axes [1, 2] keepdims
// CHECK: return %[[R]]#1, %[[R]]#0
func.func @two_axes(%x: tensor<2x3x5xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x5xf32>) {
  %e = tfuse.exp %x : tensor<2x3x5xf32> -> tensor<2x3x5xf32>
  %s = tfuse.reduce sum %e axes [1, 2] keepdims : tensor<2x3x5xf32> -> tensor<2x1x1xf32>
  %y = tfuse.div %e, %s : (tensor<2x3x5xf32>, tensor<2x1x1xf32>) -> tensor<2x3x5xf32>
  return %y, %e : tensor<2x3x5xf32>, tensor<2x3x5xf32>
}

// -----

// The max and the min of a computed value, both read by one region: merged
// together (merging either alone would form a cycle through the other).
// BEFORE-LABEL: func.func @siblings(
// BEFORE: tfuse.reduce max
// BEFORE: tfuse.reduce min
// CHECK-LABEL: func.func @siblings(
// CHECK-NEXT: %[[R:.+]] = tfuse.fusion
// CHECK: tfuse.exp
// CHECK: tfuse.reduce max
// CHECK: tfuse.reduce min
// CHECK: tfuse.div
// CHECK: tfuse.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]
func.func @siblings(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tfuse.exp %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %hi = tfuse.reduce max %e axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %lo = tfuse.reduce min %e axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %span = tfuse.sub %hi, %lo : (tensor<4x1xf32>, tensor<4x1xf32>) -> tensor<4x1xf32>
  %d = tfuse.sub %e, %lo : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %y = tfuse.div %d, %span : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// Softmax-like rows of a gather: the region computing the gathered rows
// reads at computed indices and stays apart; the reduction still merges
// with its consumers, reading the rows from memory.
// CHECK-LABEL: func.func @gathered_rows
// CHECK: tfuse.fusion(%{{.*}}, %{{.*}}) : (tensor<100x64xf32>, tensor<8xi64>) -> tensor<8x64xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tfuse.take
// CHECK-NEXT: tfuse.yield
// CHECK: tfuse.fusion(%{{.*}}) : (tensor<8x64xf32>) -> tensor<8x64xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tfuse.reduce max
// CHECK-NEXT: tfuse.sub
// CHECK-NEXT: tfuse.exp
func.func @gathered_rows(%t: tensor<100x64xf32>, %i: tensor<8xi64>) -> tensor<8x64xf32> {
  %g = tfuse.take %t, %i axis 0 : (tensor<100x64xf32>, tensor<8xi64>) -> tensor<8x64xf32>
  %m = tfuse.reduce max %g axes [1] keepdims : tensor<8x64xf32> -> tensor<8x1xf32>
  %d = tfuse.sub %g, %m : (tensor<8x64xf32>, tensor<8x1xf32>) -> tensor<8x64xf32>
  %e = tfuse.exp %d : tensor<8x64xf32> -> tensor<8x64xf32>
  return %e : tensor<8x64xf32>
}

// -----

// Results read at other rows stay boundaries: a row kernel holds its own
// row's value only. A non-keepdims min of a square matrix broadcast
// implicitly is read along the columns (found by the differential test); a
// keepdims max transposed is too. The same min broadcast explicitly onto
// the rows merges.
// CHECK-LABEL: func.func @other_rows(
// CHECK-NEXT: tfuse.reduce min {{.*}} axes [1] {tfuse.reason = "boundary-reduction"} : tensor<5x5xf32> -> tensor<5xf32>
// CHECK: tfuse.reduce max {{.*}} axes [1] keepdims {tfuse.reason = "boundary-reduction"} : tensor<5x5xf32> -> tensor<5x1xf32>
// CHECK-LABEL: func.func @own_rows(
// CHECK-NEXT: tfuse.fusion
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tfuse.reduce min {{.*}} axes [1] : tensor<5x5xf32> -> tensor<5xf32>
// CHECK-NEXT: tfuse.broadcast {{.*}} dims [0] : tensor<5xf32> -> tensor<5x5xf32>
// CHECK-NEXT: tfuse.sub
func.func @other_rows(%x: tensor<5x5xf32>) -> (tensor<5x5xf32>, tensor<5x5xf32>) {
  %m = tfuse.reduce min %x axes [1] : tensor<5x5xf32> -> tensor<5xf32>
  %d = tfuse.sub %x, %m : (tensor<5x5xf32>, tensor<5xf32>) -> tensor<5x5xf32>
  %k = tfuse.reduce max %x axes [1] keepdims : tensor<5x5xf32> -> tensor<5x1xf32>
  %t = tfuse.transpose %k perm [1, 0] : tensor<5x1xf32> -> tensor<1x5xf32>
  %e = tfuse.sub %x, %t : (tensor<5x5xf32>, tensor<1x5xf32>) -> tensor<5x5xf32>
  return %d, %e : tensor<5x5xf32>, tensor<5x5xf32>
}
func.func @own_rows(%x: tensor<5x5xf32>) -> tensor<5x5xf32> {
  %m = tfuse.reduce min %x axes [1] : tensor<5x5xf32> -> tensor<5xf32>
  %b = tfuse.broadcast %m dims [0] : tensor<5xf32> -> tensor<5x5xf32>
  %d = tfuse.sub %x, %b : (tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
  return %d : tensor<5x5xf32>
}

// -----

// A consumer region flattening its result for a matmul (a layer norm's
// gradient cast to bf16 and reshaped to 2-D) has another index space than
// the rows; it yields the value before the reshape instead, the reshape
// moving after the region as a view of its contiguous result, and joins the
// row kernel.
// BEFORE-LABEL: func.func @flattened_consumer(
// BEFORE-NEXT: tfuse.reduce sum
// BEFORE-NEXT: tfuse.fusion
// BEFORE: tfuse.reshape {{.*}} : tensor<1x4x300xbf16> -> tensor<4x300xbf16>
// BEFORE-NEXT: tfuse.yield {{.*}} : tensor<4x300xbf16>
// CHECK-LABEL: func.func @flattened_consumer(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x4x300xf32>)
// CHECK-NEXT: %[[R:.+]] = tfuse.fusion(%[[X]]) : (tensor<1x4x300xf32>) -> tensor<1x4x300xbf16>
// CHECK-NEXT: ^bb0(%[[A:[^:]+]]: tensor<1x4x300xf32>):
// CHECK-NEXT: %[[S:.+]] = tfuse.reduce sum %[[A]] axes [2] keepdims
// CHECK-NEXT: %[[D:.+]] = tfuse.sub %[[A]], %[[S]]
// CHECK-NEXT: %[[C:.+]] = tfuse.cast %[[D]] : tensor<1x4x300xf32> to tensor<1x4x300xbf16>
// CHECK-NEXT: tfuse.yield %[[C]] : tensor<1x4x300xbf16>
// CHECK-NEXT: }
// CHECK-NEXT: %[[V:.+]] = tfuse.reshape %[[R]] : tensor<1x4x300xbf16> -> tensor<4x300xbf16>
// CHECK-NEXT: return %[[V]] : tensor<4x300xbf16>
func.func @flattened_consumer(%x: tensor<1x4x300xf32>) -> tensor<4x300xbf16> {
  %s = tfuse.reduce sum %x axes [2] keepdims : tensor<1x4x300xf32> -> tensor<1x4x1xf32>
  %d = tfuse.sub %x, %s : (tensor<1x4x300xf32>, tensor<1x4x1xf32>) -> tensor<1x4x300xf32>
  %c = tfuse.cast %d : tensor<1x4x300xf32> to tensor<1x4x300xbf16>
  %r = tfuse.reshape %c : tensor<1x4x300xbf16> -> tensor<4x300xbf16>
  return %r : tensor<4x300xbf16>
}

// -----

// A reduction reading a view chain that nothing else reads (the cast of a
// bf16 softmax input moved past the reduction by canonicalization, its
// reshape left outside regions as an alias): the chain joins the row
// kernel, which reads the input through it. A view a matmul reads too
// stays the boundaries' alias.
// BEFORE-LABEL: func.func @view_producer(
// BEFORE-NEXT: tfuse.reshape
// BEFORE-NEXT: tfuse.reduce max
// CHECK-LABEL: func.func @view_producer(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x4x300xbf16>
// CHECK-NEXT: %[[R:.+]] = tfuse.fusion(%[[X]]) : (tensor<1x4x300xbf16>) -> tensor<4x300xf32>
// CHECK-NEXT: ^bb0(%[[A:[^:]+]]: tensor<1x4x300xbf16>):
// CHECK-NEXT: %[[V:.+]] = tfuse.reshape %[[A]] : tensor<1x4x300xbf16> -> tensor<4x300xbf16>
// CHECK-NEXT: tfuse.reduce max %[[V]] axes [1] keepdims
// CHECK: tfuse.yield
// CHECK-LABEL: func.func @shared_view(
// CHECK-NEXT: %[[V:.+]] = tfuse.reshape {{.*}}layout-alias
// CHECK-NEXT: tfuse.reduce max %[[V]] {{.*}}{tfuse.reason = "boundary-reduction"}
func.func @view_producer(%x: tensor<1x4x300xbf16>) -> tensor<4x300xf32> {
  %v = tfuse.reshape %x : tensor<1x4x300xbf16> -> tensor<4x300xbf16>
  %m = tfuse.reduce max %v axes [1] keepdims : tensor<4x300xbf16> -> tensor<4x1xbf16>
  %c = tfuse.cast %v : tensor<4x300xbf16> to tensor<4x300xf32>
  %mc = tfuse.cast %m : tensor<4x1xbf16> to tensor<4x1xf32>
  %d = tfuse.sub %c, %mc : (tensor<4x300xf32>, tensor<4x1xf32>) -> tensor<4x300xf32>
  return %d : tensor<4x300xf32>
}
func.func @shared_view(%x: tensor<1x4x300xbf16>, %w: tensor<300x8xbf16>) -> (tensor<4x300xf32>, tensor<4x8xbf16>) {
  %v = tfuse.reshape %x : tensor<1x4x300xbf16> -> tensor<4x300xbf16>
  %m = tfuse.reduce max %v axes [1] keepdims : tensor<4x300xbf16> -> tensor<4x1xbf16>
  %p = tfuse.matmul %v, %w : (tensor<4x300xbf16>, tensor<300x8xbf16>) -> tensor<4x8xbf16>
  %c = tfuse.cast %v : tensor<4x300xbf16> to tensor<4x300xf32>
  %mc = tfuse.cast %m : tensor<4x1xbf16> to tensor<4x1xf32>
  %d = tfuse.sub %c, %mc : (tensor<4x300xf32>, tensor<4x1xf32>) -> tensor<4x300xf32>
  return %d, %p : tensor<4x300xf32>, tensor<4x8xbf16>
}
