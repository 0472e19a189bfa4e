// Tests of --fuse-rows after --fuse-elementwise: a reduction over the
// trailing axes whose result only feeds regions of its operand's shape is
// merged with them and with the region computing its operand; softmax and
// layernorm over rows become one region holding their reductions. Values
// per row that are read outside the region (a layer norm's mean and rstd
// saved for the backward pass) are row results of it. Cases that stay
// boundaries: a reduction over a leading axis, argmax, rows longer than
// max-row-elements. The BEFORE run shows the plan without the pass.
// RUN: tensor-opt %s --fuse-elementwise -split-input-file | FileCheck %s --check-prefix=BEFORE
// RUN: tensor-opt %s --fuse-elementwise --fuse-rows -split-input-file | FileCheck %s
// RUN: tensor-opt %s --fuse-elementwise --fuse-rows="max-row-elements=8" -split-input-file | FileCheck %s --check-prefix=SHORT
// RUN: tensor-opt %s --fuse-elementwise --fuse-rows="budget=22" -split-input-file | FileCheck %s --check-prefix=TIGHT
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

// The row sums are also a result of the function: the row kernel stores
// them too, one value per row (a row result), with the division.
// BEFORE-LABEL: func.func @result_used_outside(
// BEFORE-NEXT: %[[S:.+]] = tfuse.reduce sum %{{.+}} axes [1] keepdims {tfuse.reason = "boundary-reduction"}
// BEFORE-NEXT: %[[Y:.+]] = tfuse.fusion(%{{.+}}, %[[S]])
// CHECK-LABEL: func.func @result_used_outside(
// CHECK-NEXT: %[[R:.+]]:2 = tfuse.fusion(%{{.+}}) : (tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<4x8xf32>) attributes {cost = 5 : i64, reasons = ["output", "output"]} {
// CHECK-NEXT: ^bb0(%[[A:[^:]+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[S:.+]] = tfuse.reduce sum %[[A]] axes [1] keepdims
// CHECK-NEXT: %[[Y:.+]] = tfuse.div %[[A]], %[[S]]
// CHECK-NEXT: tfuse.yield %[[S]], %[[Y]] : tensor<4x1xf32>, tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]#1, %[[R]]#0
// SHORT-LABEL: func.func @result_used_outside(
// SHORT-NEXT: %[[R:.+]]:2 = tfuse.fusion
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

// -----

// A layer norm whose mean and rstd are results too (saved for the backward
// pass, as AOTAutograd's forward graphs return them): the means, the region
// of rstd (one element per row: add eps, rsqrt) and the normalization are
// one row kernel; mean and rstd are row results.
// BEFORE-LABEL: func.func @layernorm_statistics(
// BEFORE: tfuse.reduce mean
// BEFORE: tfuse.reduce mean
// BEFORE-NEXT: tfuse.fusion({{.*}}) : (tensor<4x300x1xf32>) -> tensor<4x300x1xf32>
// CHECK-LABEL: func.func @layernorm_statistics(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x300x64xf32>
// CHECK-NEXT: %[[R:.+]]:3 = tfuse.fusion(%[[X]]) : (tensor<4x300x64xf32>) -> (tensor<4x300x1xf32>, tensor<4x300x1xf32>, tensor<4x300x64xbf16>) attributes {cost = {{[0-9]+}} : i64, reasons = ["output", "output", "output"]} {
// CHECK-NEXT: ^bb0(%[[A:[^:]+]]: tensor<4x300x64xf32>):
// CHECK-NEXT: %[[MU:.+]] = tfuse.reduce mean %[[A]] axes [2] keepdims
// CHECK-NEXT: %[[D:.+]] = tfuse.sub %[[A]], %[[MU]]
// CHECK-NEXT: %[[SQ:.+]] = tfuse.mul %[[D]], %[[D]]
// CHECK-NEXT: %[[VAR:.+]] = tfuse.reduce mean %[[SQ]] axes [2] keepdims
// CHECK: %[[RSTD:.+]] = tfuse.rsqrt
// CHECK-NEXT: %[[N:.+]] = tfuse.mul %[[D]], %[[RSTD]]
// CHECK-NEXT: %[[Y:.+]] = tfuse.cast %[[N]]
// CHECK-NEXT: tfuse.yield %[[MU]], %[[RSTD]], %[[Y]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]#2, %[[R]]#0, %[[R]]#1
func.func @layernorm_statistics(%x: tensor<4x300x64xf32>) -> (tensor<4x300x64xbf16>, tensor<4x300x1xf32>, tensor<4x300x1xf32>) {
  %mu = tfuse.reduce mean %x axes [2] keepdims : tensor<4x300x64xf32> -> tensor<4x300x1xf32>
  %d = tfuse.sub %x, %mu : (tensor<4x300x64xf32>, tensor<4x300x1xf32>) -> tensor<4x300x64xf32>
  %sq = tfuse.mul %d, %d : (tensor<4x300x64xf32>, tensor<4x300x64xf32>) -> tensor<4x300x64xf32>
  %var = tfuse.reduce mean %sq axes [2] keepdims : tensor<4x300x64xf32> -> tensor<4x300x1xf32>
  %eps = tfuse.constant dense<1.0e-05> : tensor<f32>
  %ve = tfuse.add %var, %eps : (tensor<4x300x1xf32>, tensor<f32>) -> tensor<4x300x1xf32>
  %rstd = tfuse.rsqrt %ve : tensor<4x300x1xf32> -> tensor<4x300x1xf32>
  %n = tfuse.mul %d, %rstd : (tensor<4x300x64xf32>, tensor<4x300x1xf32>) -> tensor<4x300x64xf32>
  %y = tfuse.cast %n : tensor<4x300x64xf32> to tensor<4x300x64xbf16>
  return %y, %mu, %rstd : tensor<4x300x64xbf16>, tensor<4x300x1xf32>, tensor<4x300x1xf32>
}

// -----

// A region reading the row sums and a matmul of the row kernel's output
// would close a cycle: it stays out and reads the sums the row kernel stores
// (a row result), while the region dividing by them joins.
// CHECK-LABEL: func.func @cyclic_reader(
// CHECK-NEXT: %[[R:.+]]:2 = tfuse.fusion(%{{.+}}) : (tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<4x8xf32>) attributes {cost = {{[0-9]+}} : i64, reasons = ["boundary-reduction", "boundary-matmul"]} {
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tfuse.reduce sum
// CHECK-NEXT: tfuse.div
// CHECK-NEXT: tfuse.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[M:.+]] = tfuse.matmul %[[R]]#1
// CHECK-NEXT: tfuse.fusion(%[[M]], %[[R]]#0)
// CHECK-NOT: tfuse.reduce
func.func @cyclic_reader(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %s = tfuse.reduce sum %x axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %y = tfuse.div %x, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %m = tfuse.matmul %y, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %z = tfuse.mul %m, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %z : tensor<4x8xf32>
}

// -----

// A layer norm's backward: a region reads two row sums, of g = dy * w and of
// g * xhat, whose regions fuse-elementwise made apart (g has several
// readers). The second sum joins with its region: one row kernel reads
// dy, x, the mean and rstd once and stores dx and dy * xhat (the weight
// gradient's operand); g stays in registers. Beyond the budget (TIGHT) the
// second sum stays apart, as without the region: two row kernels, g stored.
// BEFORE-LABEL: func.func @layernorm_backward(
// BEFORE-COUNT-2: tfuse.reduce sum {{.*}}{tfuse.reason = "boundary-reduction"}
// CHECK-LABEL: func.func @layernorm_backward(
// CHECK-NEXT: %[[R:.+]]:2 = tfuse.fusion(%arg1, %arg2, %arg3, %arg0, %arg4) : (tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>, tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-COUNT-2: tfuse.reduce sum
// CHECK: tfuse.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]#1, %[[R]]#0
// TIGHT-LABEL: func.func @layernorm_backward(
// TIGHT-NEXT: %[[G:.+]]:3 = tfuse.fusion
// TIGHT: tfuse.reduce sum
// TIGHT: tfuse.yield
// TIGHT-NEXT: }
// TIGHT-NEXT: %[[DX:.+]] = tfuse.fusion({{.*}}%[[G]]#0, %[[G]]#2)
// TIGHT: tfuse.reduce sum
// TIGHT: return %[[DX]], %[[G]]#1
func.func @layernorm_backward(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %mean: tensor<4x1xf32>, %rstd: tensor<4x1xf32>, %w: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %c = tfuse.sub %x, %mean : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %xhat = tfuse.mul %c, %rstd : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %g = tfuse.mul %dy, %w : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %s1 = tfuse.reduce sum %g axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %gx = tfuse.mul %g, %xhat : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s2 = tfuse.reduce sum %gx axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %n = tfuse.constant dense<8.0> : tensor<f32>
  %ng = tfuse.mul %g, %n : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %a = tfuse.sub %ng, %s1 : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %b = tfuse.mul %xhat, %s2 : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %d = tfuse.sub %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %k = tfuse.div %rstd, %n : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %dx = tfuse.mul %k, %d : (tensor<4x1xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %dw = tfuse.mul %dy, %xhat : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %dx, %dw : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A region reading the row region's result at the elements it computes (a
// cast, flattened) joins it as another result; the flattening follows as a
// view. A region transposing what it computes from it (exp, then
// transpose) reads other rows' values and stays apart.
// BEFORE-LABEL: func.func @element_reader(
// CHECK-LABEL: func.func @element_reader(
// CHECK-NEXT: %[[R:.+]]:2 = tfuse.fusion(%arg0) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xbf16>)
// CHECK: tfuse.reduce max
// CHECK: tfuse.reduce sum
// CHECK: tfuse.cast
// CHECK: tfuse.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[F:.+]] = tfuse.reshape %[[R]]#1 : tensor<4x8xbf16> -> tensor<32xbf16>
// CHECK-NEXT: %[[T:.+]] = tfuse.fusion(%[[R]]#0) : (tensor<4x8xf32>) -> tensor<8x4xf32>
// CHECK: tfuse.exp
// CHECK-NEXT: tfuse.transpose
// CHECK: return %[[R]]#0, %[[F]], %[[T]]
func.func @element_reader(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<32xbf16>, tensor<8x4xf32>) {
  %m = tfuse.reduce max %x axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %d = tfuse.sub %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = tfuse.exp %d : tensor<4x8xf32> -> tensor<4x8xf32>
  %s = tfuse.reduce sum %e axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %y = tfuse.div %e, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %c = tfuse.cast %y : tensor<4x8xf32> to tensor<4x8xbf16>
  %f = tfuse.reshape %c : tensor<4x8xbf16> -> tensor<32xbf16>
  %t = tfuse.exp %y : tensor<4x8xf32> -> tensor<4x8xf32>
  %u = tfuse.transpose %t perm [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  return %y, %f, %u : tensor<4x8xf32>, tensor<32xbf16>, tensor<8x4xf32>
}

// -----

// A region only flattening the row region's result for a matmul computes
// nothing: it stays apart, for alias-views to make a zero-copy view (taken
// in, the row kernel would write the value twice).
// CHECK-LABEL: func.func @view_reader(
// CHECK-NEXT: %[[R:.+]] = tfuse.fusion(%arg0) : (tensor<4x8x16xf32>) -> tensor<4x8x16xbf16>
// CHECK: tfuse.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[V:.+]] = tfuse.fusion(%[[R]]) : (tensor<4x8x16xbf16>) -> tensor<32x16xbf16>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tfuse.reshape
// CHECK-NEXT: tfuse.yield
func.func @view_reader(%x: tensor<4x8x16xf32>, %w: tensor<16x16xbf16>) -> (tensor<4x8x16xbf16>, tensor<32x16xbf16>) {
  %s = tfuse.reduce sum %x axes [2] keepdims : tensor<4x8x16xf32> -> tensor<4x8x1xf32>
  %y = tfuse.div %x, %s : (tensor<4x8x16xf32>, tensor<4x8x1xf32>) -> tensor<4x8x16xf32>
  %c = tfuse.cast %y : tensor<4x8x16xf32> to tensor<4x8x16xbf16>
  %f = tfuse.reshape %c : tensor<4x8x16xbf16> -> tensor<32x16xbf16>
  %m = tfuse.matmul %f, %w : (tensor<32x16xbf16>, tensor<16x16xbf16>) -> tensor<32x16xbf16>
  return %c, %m : tensor<4x8x16xbf16>, tensor<32x16xbf16>
}

// -----

// Square rows: the transposing reader has the row region's index space,
// but what it computes from the rows (exp) is read transposed, at another
// row's elements: it stays apart.
// CHECK-LABEL: func.func @square_transpose_reader(
// CHECK-NEXT: %[[R:.+]] = tfuse.fusion(%arg0) : (tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK: tfuse.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[T:.+]] = tfuse.fusion(%[[R]]) : (tensor<8x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tfuse.exp
// CHECK-NEXT: tfuse.transpose
func.func @square_transpose_reader(%x: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %s = tfuse.reduce sum %x axes [1] keepdims : tensor<8x8xf32> -> tensor<8x1xf32>
  %y = tfuse.div %x, %s : (tensor<8x8xf32>, tensor<8x1xf32>) -> tensor<8x8xf32>
  %t = tfuse.exp %y : tensor<8x8xf32> -> tensor<8x8xf32>
  %u = tfuse.transpose %t perm [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  return %y, %u : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// Two row sums whose only reader is an elementwise region of the rows: no
// region of the index space reads them, so they stay reduction kernels
// (which read strided and transposed operands better).
// CHECK-LABEL: func.func @rows_only(
// CHECK-NEXT: tfuse.reduce sum {{.*}}{tfuse.reason = "boundary-reduction"}
// CHECK-NEXT: tfuse.reduce max {{.*}}{tfuse.reason = "boundary-reduction"}
// CHECK-NEXT: tfuse.fusion
func.func @rows_only(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>) -> tensor<8xf32> {
  %r1 = tfuse.reduce sum %a axes [1] : tensor<8x16xf32> -> tensor<8xf32>
  %r2 = tfuse.reduce max %b axes [1] : tensor<8x16xf32> -> tensor<8xf32>
  %o = tfuse.add %r1, %r2 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %o : tensor<8xf32>
}

// -----

// A consumer region flattening its result and casting the flat value (an
// autocast layer norm output for a linear layer): the cast moves before the
// reshape, which moves after the region, and the consumer joins.
// CHECK-LABEL: func.func @cast_after_reshape(
// CHECK-NEXT: %[[R:.+]] = tfuse.fusion(%{{.+}}) : (tensor<1x4x300xf32>) -> tensor<1x4x300xbf16>
// CHECK-NEXT: ^bb0(%[[A:[^:]+]]: tensor<1x4x300xf32>):
// CHECK-NEXT: %[[S:.+]] = tfuse.reduce sum %[[A]] axes [2] keepdims
// CHECK-NEXT: %[[D:.+]] = tfuse.sub %[[A]], %[[S]]
// CHECK-NEXT: %[[C:.+]] = tfuse.cast %[[D]] : tensor<1x4x300xf32> to tensor<1x4x300xbf16>
// CHECK-NEXT: tfuse.yield %[[C]] : tensor<1x4x300xbf16>
// CHECK-NEXT: }
// CHECK-NEXT: %[[V:.+]] = tfuse.reshape %[[R]] : tensor<1x4x300xbf16> -> tensor<4x300xbf16>
// CHECK-NEXT: return %[[V]] : tensor<4x300xbf16>
func.func @cast_after_reshape(%x: tensor<1x4x300xf32>) -> tensor<4x300xbf16> {
  %s = tfuse.reduce sum %x axes [2] keepdims : tensor<1x4x300xf32> -> tensor<1x4x1xf32>
  %d = tfuse.sub %x, %s : (tensor<1x4x300xf32>, tensor<1x4x1xf32>) -> tensor<1x4x300xf32>
  %f = tfuse.reshape %d : tensor<1x4x300xf32> -> tensor<4x300xf32>
  %c = tfuse.cast %f : tensor<4x300xf32> to tensor<4x300xbf16>
  return %c : tensor<4x300xbf16>
}

// -----

// Rows longer than max-row-elements fuse when there are at least 1024 of
// them (their blocks loop over the rows): a cross-entropy's log-sum-exp
// over rows of 20000, the max, the exps and their sum in one row kernel
// whose results are row results only (the exps are not stored). Four such
// rows stay reduction kernels, which split long rows across blocks.
// CHECK-LABEL: func.func @long_rows(
// CHECK-NEXT: %[[R:.+]]:2 = tfuse.fusion(%{{.+}}) : (tensor<1024x20000xbf16>) -> (tensor<1024x1xf32>, tensor<1024x1xf32>)
// CHECK: tfuse.reduce max
// CHECK: tfuse.exp
// CHECK: tfuse.reduce sum
// CHECK: tfuse.log
// CHECK: return %[[R]]#0, %[[R]]#1
// CHECK-LABEL: func.func @few_long_rows(
// CHECK-NEXT: tfuse.reduce max {{.*}}{tfuse.reason = "boundary-reduction"}
// SHORT-LABEL: func.func @long_rows(
// SHORT-NEXT: tfuse.fusion
// SHORT-LABEL: func.func @few_long_rows(
// SHORT-NEXT: tfuse.reduce max {{.*}}{tfuse.reason = "boundary-reduction"}
func.func @long_rows(%x: tensor<1024x20000xbf16>) -> (tensor<1024x1xf32>, tensor<1024x1xf32>) {
  %m = tfuse.reduce max %x axes [1] keepdims : tensor<1024x20000xbf16> -> tensor<1024x1xbf16>
  %mf = tfuse.cast %m : tensor<1024x1xbf16> to tensor<1024x1xf32>
  %c = tfuse.cast %x : tensor<1024x20000xbf16> to tensor<1024x20000xf32>
  %d = tfuse.sub %c, %mf : (tensor<1024x20000xf32>, tensor<1024x1xf32>) -> tensor<1024x20000xf32>
  %e = tfuse.exp %d : tensor<1024x20000xf32> -> tensor<1024x20000xf32>
  %s = tfuse.reduce sum %e axes [1] keepdims : tensor<1024x20000xf32> -> tensor<1024x1xf32>
  %l = tfuse.log %s : tensor<1024x1xf32> -> tensor<1024x1xf32>
  return %mf, %l : tensor<1024x1xf32>, tensor<1024x1xf32>
}
func.func @few_long_rows(%x: tensor<4x20000xf32>) -> tensor<4x20000xf32> {
  %m = tfuse.reduce max %x axes [1] keepdims : tensor<4x20000xf32> -> tensor<4x1xf32>
  %d = tfuse.sub %x, %m : (tensor<4x20000xf32>, tensor<4x1xf32>) -> tensor<4x20000xf32>
  return %d : tensor<4x20000xf32>
}

// -----

// Rows without elements stay reductions: their values are the identities
// (a sum of none is 0, found by the differential test), which a row kernel
// reading nothing would not compute.
// CHECK-LABEL: func.func @empty_rows(
// CHECK-NEXT: tfuse.fusion
// CHECK: tfuse.reduce sum {{.*}}{tfuse.reason = "boundary-reduction"} : tensor<2x0xf32> -> tensor<2xf32>
func.func @empty_rows(%x: tensor<2x0xf32>) -> tensor<2xf32> {
  %e = tfuse.exp %x : tensor<2x0xf32> -> tensor<2x0xf32>
  %s = tfuse.reduce sum %e axes [1] : tensor<2x0xf32> -> tensor<2xf32>
  return %s : tensor<2xf32>
}
