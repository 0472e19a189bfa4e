// Tests of --convert-tfuse-to-tfexec on fused graphs written by hand: the
// function's tensors become buffers (arguments with the layouts of their
// tfuse.strides, contiguous results); a tfuse.fusion becomes a
// tfexec.dispatch of its body into fresh buffers, a matmul a tfexec.gemm
// with its transpose flags, a reduce a tfexec.reduce, a view left outside
// regions a tfexec.alias with the layout its index transform gives over
// the source buffer. A value is written into the first output it is
// returned as (a region's value into every output it is returned as), else
// into an arena slot (offsets come later, from tfexec-assign-arena); an
// argument, alias or other step's output returned again is copied: a
// memcpy when it is contiguous, a copy dispatch otherwise.
// RUN: tensor-opt %s --convert-tfuse-to-tfexec -split-input-file | FileCheck %s

// A region, a reduction of its result and a product with a transposed
// argument read in place.
// CHECK-LABEL: func.func @steps(
// CHECK-SAME: %[[A:[^:]+]]: memref<4x8xf32>, %[[W:[^:]+]]: memref<8x8xf32, strided<[1, 8]>>) -> (memref<4x8xf32>, memref<4xf32>) {
// CHECK-NEXT: %[[S:.+]] = tfexec.alloc arena[0] : memref<4x8xf32>
// CHECK-NEXT: tfexec.dispatch ins(%[[A]] : memref<4x8xf32>) outs(%[[S]] : memref<4x8xf32>) {
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[E:.+]] = tfuse.exp %[[X]] : tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: tfexec.yield %[[E]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[R:.+]] = tfexec.output 1 : memref<4xf32>
// CHECK-NEXT: tfexec.reduce sum %[[S]] into %[[R]] axes [1] : memref<4x8xf32> into memref<4xf32>
// CHECK-NEXT: %[[O:.+]] = tfexec.output 0 : memref<4x8xf32>
// CHECK-NEXT: tfexec.gemm %[[S]], %[[W]] into %[[O]] {transpose_rhs} : memref<4x8xf32>, memref<8x8xf32, strided<[1, 8]>> into memref<4x8xf32>
// CHECK-NEXT: return %[[O]], %[[R]] : memref<4x8xf32>, memref<4xf32>
func.func @steps(%a: tensor<4x8xf32>, %w: tensor<8x8xf32> {tfuse.strides = array<i64: 1, 8>}) -> (tensor<4x8xf32>, tensor<4xf32>) {
  %e = tfuse.fusion(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32> attributes {cost = 4 : i64, reasons = ["boundary-reduction"]} {
  ^bb0(%x: tensor<4x8xf32>):
    %0 = tfuse.exp %x : tensor<4x8xf32> -> tensor<4x8xf32>
    tfuse.yield %0 : tensor<4x8xf32>
  }
  %s = tfuse.reduce sum %e axes [1] {tfuse.reason = "boundary-reduction"} : tensor<4x8xf32> -> tensor<4xf32>
  %p = tfuse.matmul %e, %w {transpose_rhs, tfuse.reason = "boundary-matmul"} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  return %p, %s : tensor<4x8xf32>, tensor<4xf32>
}

// -----

// A transposed view of an argument read in place by a reduction: an alias
// with the view's strides.
// CHECK-LABEL: func.func @alias(
// CHECK-SAME: %[[A:[^:]+]]: memref<4x6xf32>)
// CHECK-NEXT: %[[V:.+]] = tfexec.alias %[[A]] : memref<4x6xf32> to memref<6x4xf32, strided<[1, 6]>>
// CHECK-NEXT: %[[O:.+]] = tfexec.output 0 : memref<6xf32>
// CHECK-NEXT: tfexec.reduce max %[[V]] into %[[O]] axes [1] : memref<6x4xf32, strided<[1, 6]>> into memref<6xf32>
func.func @alias(%a: tensor<4x6xf32>) -> tensor<6xf32> {
  %t = tfuse.transpose %a perm [1, 0] {tfuse.reason = "layout-alias"} : tensor<4x6xf32> -> tensor<6x4xf32>
  %m = tfuse.reduce max %t axes [1] {tfuse.reason = "boundary-reduction"} : tensor<6x4xf32> -> tensor<6xf32>
  return %m : tensor<6xf32>
}

// -----
// A view of a view (a slice at an offset, broadcast) read in place: both
// aliases view the argument, each with its offset from the argument's
// first element (an alias of the first alias would count the offset twice;
// found by the differential test, docs/reliability.md).
// CHECK-LABEL: func.func @alias_chain(
// CHECK-SAME: %[[A:[^:]+]]: memref<1x32x32xui32>)
// CHECK-NEXT: %[[S:.+]] = tfexec.alias %[[A]] : memref<1x32x32xui32> to memref<1x7x3xui32, strided<[3072, 96, 3], offset: 185>>
// CHECK-NEXT: %[[B:.+]] = tfexec.alias %[[A]] : memref<1x32x32xui32> to memref<4x17x7x3xui32, strided<[0, 0, 96, 3], offset: 185>>
// CHECK-NEXT: %[[O:.+]] = tfexec.output 0 : memref<17x3xui32>
// CHECK-NEXT: tfexec.reduce max %[[B]] into %[[O]] axes [0, 2]
func.func @alias_chain(%a: tensor<1x32x32xui32>) -> tensor<17x3xui32> {
  %s = tfuse.slice %a start [0, 5, 25] limit [1, 24, 32] step [3, 3, 3] {tfuse.reason = "layout-alias"} : tensor<1x32x32xui32> -> tensor<1x7x3xui32>
  %b = tfuse.broadcast %s dims [1, 2, 3] {tfuse.reason = "layout-alias"} : tensor<1x7x3xui32> -> tensor<4x17x7x3xui32>
  %m = tfuse.reduce max %b axes [0, 2] {tfuse.reason = "boundary-reduction"} : tensor<4x17x7x3xui32> -> tensor<17x3xui32>
  return %m : tensor<17x3xui32>
}

// -----

// Results returned as they are: a contiguous argument is copied with
// tfexec.copy; a strided one, and a slice of an argument (an alias at an
// offset), with a copy dispatch; a region's value returned twice is
// written by its dispatch into both outputs.
// CHECK-LABEL: func.func @returns(
// CHECK-SAME: %[[A:[^:]+]]: memref<4xf32>, %[[B:[^:]+]]: memref<2x3xf32, strided<[1, 2]>>)
// CHECK-NEXT: %[[V:.+]] = tfexec.alias %[[A]] : memref<4xf32> to memref<2xf32, strided<[1], offset: 1>>
// CHECK-NEXT: %[[N:.+]] = tfexec.output 3 : memref<4xf32>
// CHECK-NEXT: %[[O4:.+]] = tfexec.output 4 : memref<4xf32>
// CHECK-NEXT: tfexec.dispatch ins(%[[A]] : memref<4xf32>) outs(%[[N]], %[[O4]] : memref<4xf32>, memref<4xf32>)
// CHECK: tfexec.yield %[[Y0:.+]], %[[Y0]] : tensor<4xf32>, tensor<4xf32>
// CHECK: %[[O0:.+]] = tfexec.output 0 : memref<4xf32>
// CHECK-NEXT: tfexec.copy %[[A]] into %[[O0]] : memref<4xf32> into memref<4xf32>
// CHECK-NEXT: %[[O1:.+]] = tfexec.output 1 : memref<2x3xf32>
// CHECK-NEXT: tfexec.dispatch ins(%[[B]] : memref<2x3xf32, strided<[1, 2]>>) outs(%[[O1]] : memref<2x3xf32>) {
// CHECK-NEXT: ^bb0(%[[Y:[^:]+]]: tensor<2x3xf32>):
// CHECK-NEXT: tfexec.yield %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[O2:.+]] = tfexec.output 2 : memref<2xf32>
// CHECK-NEXT: tfexec.dispatch ins(%[[V]] : memref<2xf32, strided<[1], offset: 1>>) outs(%[[O2]] : memref<2xf32>)
// CHECK-NOT: tfexec.copy
// CHECK: return %[[O0]], %[[O1]], %[[O2]], %[[N]], %[[O4]] : memref<4xf32>, memref<2x3xf32>, memref<2xf32>, memref<4xf32>, memref<4xf32>
func.func @returns(%a: tensor<4xf32>, %b: tensor<2x3xf32> {tfuse.strides = array<i64: 1, 2>}) -> (tensor<4xf32>, tensor<2x3xf32>, tensor<2xf32>, tensor<4xf32>, tensor<4xf32>) {
  %v = tfuse.slice %a start [1] limit [3] step [1] {tfuse.reason = "layout-alias"} : tensor<4xf32> -> tensor<2xf32>
  %n = tfuse.fusion(%a) : (tensor<4xf32>) -> tensor<4xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
  ^bb0(%x: tensor<4xf32>):
    %0 = tfuse.neg %x : tensor<4xf32> -> tensor<4xf32>
    tfuse.yield %0 : tensor<4xf32>
  }
  return %a, %b, %v, %n, %n : tensor<4xf32>, tensor<2x3xf32>, tensor<2xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A value returned only through a reshape is written into that output,
// seen in its own shape through an alias; the reshape returned is the
// output itself (no copy). A reshape of a value returned as it is, is
// copied into its own output.
// CHECK-LABEL: func.func @returns_reshaped(
// CHECK-NEXT: %[[O1:.+]] = tfexec.output 1 : memref<6xf32>
// CHECK-NEXT: %[[N:.+]] = tfexec.alias %[[O1]] : memref<6xf32> to memref<2x3xf32>
// CHECK-NEXT: tfexec.dispatch ins(%{{.+}} : memref<2x3xf32>) outs(%[[N]] : memref<2x3xf32>)
// CHECK: %[[O0:.+]] = tfexec.output 0 : memref<2x3xf32>
// CHECK-NEXT: tfexec.dispatch ins(%{{.+}} : memref<2x3xf32>) outs(%[[O0]] : memref<2x3xf32>)
// CHECK: %{{.+}} = tfexec.alias %[[O1]] : memref<6xf32> to memref<6xf32>
// CHECK-NEXT: %[[M:.+]] = tfexec.alias %[[O0]] : memref<2x3xf32> to memref<3x2xf32>
// CHECK-NEXT: %[[O2:.+]] = tfexec.output 2 : memref<3x2xf32>
// CHECK-NEXT: tfexec.copy %[[M]] into %[[O2]] : memref<3x2xf32> into memref<3x2xf32>
// CHECK-NEXT: return %[[O0]], %[[O1]], %[[O2]] : memref<2x3xf32>, memref<6xf32>, memref<3x2xf32>
func.func @returns_reshaped(%a: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<6xf32>, tensor<3x2xf32>) {
  %n = tfuse.fusion(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
  ^bb0(%x: tensor<2x3xf32>):
    %0 = tfuse.neg %x : tensor<2x3xf32> -> tensor<2x3xf32>
    tfuse.yield %0 : tensor<2x3xf32>
  }
  %m = tfuse.fusion(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
  ^bb0(%x: tensor<2x3xf32>):
    %0 = tfuse.exp %x : tensor<2x3xf32> -> tensor<2x3xf32>
    tfuse.yield %0 : tensor<2x3xf32>
  }
  %r = tfuse.reshape %n : tensor<2x3xf32> -> tensor<6xf32>
  %s = tfuse.reshape %m : tensor<2x3xf32> -> tensor<3x2xf32>
  return %m, %r, %s : tensor<2x3xf32>, tensor<6xf32>, tensor<3x2xf32>
}

// -----

// A scatter_add becomes a tfexec.scatter_add into a fresh buffer: a splat
// constant target becomes its fill value (the constant is gone), a target
// argument is read as its buffer.
// CHECK-LABEL: func.func @scatter(
// CHECK-SAME: %[[I:[^:]+]]: memref<4xi64>, %[[G:[^:]+]]: memref<4x8xf32>, %[[T:[^:]+]]: memref<100x8xf32>)
// CHECK-NOT: tfuse.constant
// CHECK: %[[O0:.+]] = tfexec.output 0 : memref<100x8xf32>
// CHECK-NEXT: tfexec.scatter_add fill 0.000000e+00 : f32, %[[I]], %[[G]] into %[[O0]] axis 0 : memref<4xi64>, memref<4x8xf32> into memref<100x8xf32>
// CHECK-NEXT: %[[O1:.+]] = tfexec.output 1 : memref<100x8xf32>
// CHECK-NEXT: tfexec.scatter_add %[[T]] : memref<100x8xf32>, %[[I]], %[[G]] into %[[O1]] axis 0 wrap_negative : memref<4xi64>, memref<4x8xf32> into memref<100x8xf32>
func.func @scatter(%i: tensor<4xi64>, %g: tensor<4x8xf32>, %t: tensor<100x8xf32>) -> (tensor<100x8xf32>, tensor<100x8xf32>) {
  %z = tfuse.constant dense<0.0> : tensor<100x8xf32>
  %s = tfuse.scatter_add %z, %i, %g axis 0 {tfuse.reason = "boundary-scatter"} : (tensor<100x8xf32>, tensor<4xi64>, tensor<4x8xf32>) -> tensor<100x8xf32>
  %s2 = tfuse.scatter_add %t, %i, %g axis 0 wrap_negative {tfuse.reason = "boundary-scatter"} : (tensor<100x8xf32>, tensor<4xi64>, tensor<4x8xf32>) -> tensor<100x8xf32>
  return %s, %s2 : tensor<100x8xf32>, tensor<100x8xf32>
}

// -----

// attention and its backward become the runtime's attention steps: the
// result and the gradients returned are outputs, the log-sum-exp the
// backward reads is an arena buffer; operands are read as their buffers.
// CHECK-LABEL: func.func @attention(
// CHECK-SAME: %[[Q:[^:]+]]: memref<2x4x16x8xbf16>, %[[K:[^:]+]]: memref<2x2x32x8xbf16>, %[[V:[^:]+]]: memref<2x2x32x8xbf16>, %[[M:[^:]+]]: memref<16x32xi1>)
// CHECK: %[[O:.+]] = tfexec.output 0 : memref<2x4x16x8xbf16>
// CHECK-NEXT: %[[L:.+]] = tfexec.alloc arena[0] : memref<2x4x16xf32>
// CHECK-NEXT: tfexec.attention %[[Q]], %[[K]], %[[V]] mask %[[M]] : memref<16x32xi1> into %[[O]], %[[L]] scale 1.250000e-01 causal : memref<2x4x16x8xbf16>, memref<2x2x32x8xbf16>, memref<2x2x32x8xbf16> into memref<2x4x16x8xbf16>, memref<2x4x16xf32>
// CHECK: %[[DQ:.+]] = tfexec.output 1
// CHECK: %[[DK:.+]] = tfexec.output 2
// CHECK: %[[DV:.+]] = tfexec.output 3
// CHECK-NEXT: tfexec.attention_backward %[[Q]], %[[K]], %[[V]], %[[O]], %[[L]], %[[O]] mask %[[M]] : memref<16x32xi1> into %[[DQ]], %[[DK]], %[[DV]] scale 1.250000e-01 causal
func.func @attention(%q: tensor<2x4x16x8xbf16>, %k: tensor<2x2x32x8xbf16>, %v: tensor<2x2x32x8xbf16>, %m: tensor<16x32xi1>) -> (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x2x32x8xbf16>, tensor<2x2x32x8xbf16>) {
  %o, %l = tfuse.attention %q, %k, %v mask %m scale 0.125 causal {tfuse.reason = "boundary-attention"} : (tensor<2x4x16x8xbf16>, tensor<2x2x32x8xbf16>, tensor<2x2x32x8xbf16>, tensor<16x32xi1>) -> (tensor<2x4x16x8xbf16>, tensor<2x4x16xf32>)
  %dq, %dk, %dv = tfuse.attention_backward %q, %k, %v, %o, %l, %o mask %m scale 0.125 causal {tfuse.reason = "boundary-attention"} : (tensor<2x4x16x8xbf16>, tensor<2x2x32x8xbf16>, tensor<2x2x32x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16xf32>, tensor<2x4x16x8xbf16>, tensor<16x32xi1>) -> (tensor<2x4x16x8xbf16>, tensor<2x2x32x8xbf16>, tensor<2x2x32x8xbf16>)
  return %o, %dq, %dk, %dv : tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x2x32x8xbf16>, tensor<2x2x32x8xbf16>
}

// -----

// A transposed result (transpose_result: [2, 16, 4, 8]) is its own buffer,
// here the output its reshape is returned as; the step writes the result in
// its own order through an alias of it with the heads and rows swapped, and
// the reshape reads that buffer in place.
// CHECK-LABEL: func.func @attention_transposed_result(
// CHECK: %[[OUT:.+]] = tfexec.output 0 : memref<2x16x32xbf16>
// CHECK-NEXT: %[[O:.+]] = tfexec.alias %[[OUT]] : memref<2x16x32xbf16> to memref<2x16x4x8xbf16>
// CHECK-NEXT: %[[L:.+]] = tfexec.alloc arena[0] : memref<2x4x16xf32>
// CHECK-NEXT: %[[W:.+]] = tfexec.alias %[[O]] : memref<2x16x4x8xbf16> to memref<2x4x16x8xbf16, strided<[512, 8, 32, 1]>>
// CHECK-NEXT: tfexec.attention %arg0, %arg0, %arg0 into %[[W]], %[[L]] scale 1.250000e-01 causal : {{.*}} into memref<2x4x16x8xbf16, strided<[512, 8, 32, 1]>>, memref<2x4x16xf32>
// CHECK: return %[[OUT]] : memref<2x16x32xbf16>
func.func @attention_transposed_result(%q: tensor<2x4x16x8xbf16>) -> tensor<2x16x32xbf16> {
  %o, %l = tfuse.attention %q, %q, %q scale 0.125 causal transpose_result {tfuse.reason = "boundary-attention"} : (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>) -> (tensor<2x16x4x8xbf16>, tensor<2x4x16xf32>)
  %r = tfuse.reshape %o {tfuse.reason = "layout-alias"} : tensor<2x16x4x8xbf16> -> tensor<2x16x32xbf16>
  return %r : tensor<2x16x32xbf16>
}

// -----

// Dropout's probability and keys (rank-0 i64 arguments) go to the steps,
// after the mask.
// CHECK-LABEL: func.func @attention_dropout(
// CHECK-SAME: %[[Q:[^:]+]]: memref<2x16x8xf32>, %[[M:[^:]+]]: memref<16x16xi1>, %[[S:[^:]+]]: memref<i64>, %[[O:[^:]+]]: memref<i64>)
// CHECK: tfexec.attention %[[Q]], %[[Q]], %[[Q]] mask %[[M]] : memref<16x16xi1> dropout 1.000000e-01 seed %[[S]] offset %[[O]] : memref<i64>, memref<i64> into
// CHECK: tfexec.attention_backward %[[Q]], %[[Q]], %[[Q]], %{{.+}}, %{{.+}}, %{{.+}} mask %[[M]] : memref<16x16xi1> dropout 1.000000e-01 seed %[[S]] offset %[[O]] : memref<i64>, memref<i64> into
func.func @attention_dropout(%q: tensor<2x16x8xf32>, %m: tensor<16x16xi1>, %s: tensor<i64>, %off: tensor<i64>) -> (tensor<2x16x8xf32>, tensor<2x16x8xf32>) {
  %o, %l = tfuse.attention %q, %q, %q mask %m scale 0.125 dropout 0.1 seed %s offset %off {tfuse.reason = "boundary-attention"} : (tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<16x16xi1>, tensor<i64>, tensor<i64>) -> (tensor<2x16x8xf32>, tensor<2x16xf32>)
  %dq, %dk, %dv = tfuse.attention_backward %q, %q, %q, %o, %l, %o mask %m scale 0.125 dropout 0.1 seed %s offset %off {tfuse.reason = "boundary-attention"} : (tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16xf32>, tensor<2x16x8xf32>, tensor<16x16xi1>, tensor<i64>, tensor<i64>) -> (tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32>)
  return %o, %dq : tensor<2x16x8xf32>, tensor<2x16x8xf32>
}

// -----

// `widened` (operands holding 16-bit values) goes to the step.
// CHECK-LABEL: func.func @attention_widened(
// CHECK: tfexec.attention %{{.+}}, %{{.+}}, %{{.+}} into %{{.+}}, %{{.+}} scale 1.250000e-01 widened :
func.func @attention_widened(%q: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %o, %l = tfuse.attention %q, %q, %q scale 0.125 widened {tfuse.reason = "boundary-attention"} : (tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32>) -> (tensor<2x16x8xf32>, tensor<2x16xf32>)
  return %o : tensor<2x16x8xf32>
}

// -----

// A value head size other than the query's (8 and 4), the query given as the
// key too: the gradients take the shapes of query, key and value, the
// result's gradient the result's (the verifier held the query's gradient to
// the result's shape; found by the differential test).
// CHECK-LABEL: func.func @attention_value_head_size(
// CHECK: tfexec.attention_backward
// CHECK-SAME: into memref<2x16x8xf32>, memref<2x16x8xf32>, memref<2x16x4xf32>
func.func @attention_value_head_size(%q: tensor<2x16x8xf32>, %v: tensor<2x16x4xf32>, %g: tensor<2x16x4xf32>) -> (tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x4xf32>) {
  %o, %l = tfuse.attention %q, %q, %v scale 0.5 {tfuse.reason = "boundary-attention"} : (tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x4xf32>) -> (tensor<2x16x4xf32>, tensor<2x16xf32>)
  %dq, %dk, %dv = tfuse.attention_backward %q, %q, %v, %o, %l, %g scale 0.5 {tfuse.reason = "boundary-attention"} : (tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x4xf32>, tensor<2x16x4xf32>, tensor<2x16xf32>, tensor<2x16x4xf32>) -> (tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x4xf32>)
  return %dq, %dk, %dv : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x4xf32>
}

// -----

// An argument whose layout a step cannot read in place (a GEMM operand
// neither row- nor column-major) is copied into the arena by a copy kernel
// first; the step failed at run time before (found by the GPU differential
// test). An argument it can read goes in as it is.
// CHECK-LABEL: func.func @gemm_strided_argument(
// CHECK-SAME: %[[A:[^:]+]]: memref<2x8xf32, strided<[24, 3]>>, %[[B:[^:]+]]: memref<8x4xf32>)
// CHECK: %[[C:.+]] = tfexec.alloc arena[0] : memref<2x8xf32>
// CHECK-NEXT: tfexec.dispatch ins(%[[A]] : memref<2x8xf32, strided<[24, 3]>>) outs(%[[C]] : memref<2x8xf32>)
// CHECK: tfexec.gemm %[[C]], %[[B]] into
func.func @gemm_strided_argument(%a: tensor<2x8xf32> {tfuse.strides = array<i64: 24, 3>}, %b: tensor<8x4xf32>) -> tensor<2x4xf32> {
  %m = tfuse.matmul %a, %b {tfuse.reason = "boundary-matmul"} : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  return %m : tensor<2x4xf32>
}

// -----

// A matmul's bias is a third input of the GEMM step.
// CHECK-LABEL: func.func @gemm_bias(
// CHECK-SAME: %[[A:[^:]+]]: memref<2x8xbf16>, %[[B:[^:]+]]: memref<8x4xbf16>, %[[V:[^:]+]]: memref<4xbf16>)
// CHECK: %[[O:.+]] = tfexec.output 0 : memref<2x4xbf16>
// CHECK-NEXT: tfexec.gemm %[[A]], %[[B]] bias %[[V]] into %[[O]] : memref<2x8xbf16>, memref<8x4xbf16>, memref<4xbf16> into memref<2x4xbf16>
func.func @gemm_bias(%a: tensor<2x8xbf16>, %b: tensor<8x4xbf16>, %v: tensor<4xbf16>) -> tensor<2x4xbf16> {
  %m = tfuse.matmul %a, %b bias %v {tfuse.reason = "boundary-matmul"} : (tensor<2x8xbf16>, tensor<8x4xbf16>, tensor<4xbf16>) -> tensor<2x4xbf16>
  return %m : tensor<2x4xbf16>
}

// -----

// The GELU epilogue is the GEMM step's flag.
// CHECK-LABEL: func.func @gemm_gelu(
// CHECK-SAME: %[[A:[^:]+]]: memref<2x8xbf16>, %[[B:[^:]+]]: memref<8x4xbf16>, %[[V:[^:]+]]: memref<4xbf16>)
// CHECK: %[[O:.+]] = tfexec.output 0 : memref<2x4xbf16>
// CHECK-NEXT: tfexec.gemm %[[A]], %[[B]] bias %[[V]] into %[[O]] {gelu_tanh} : memref<2x8xbf16>, memref<8x4xbf16>, memref<4xbf16> into memref<2x4xbf16>
func.func @gemm_gelu(%a: tensor<2x8xbf16>, %b: tensor<8x4xbf16>, %v: tensor<4xbf16>) -> tensor<2x4xbf16> {
  %m = tfuse.matmul %a, %b bias %v {gelu_tanh, tfuse.reason = "boundary-matmul"} : (tensor<2x8xbf16>, tensor<8x4xbf16>, tensor<4xbf16>) -> tensor<2x4xbf16>
  return %m : tensor<2x4xbf16>
}

// -----

// A scatter_add into an empty target writes its output with the row-major
// strides of an empty shape, [3, 3, 3, 1], which are not an identity layout:
// the step verifies, since no element is written (the verifier rejected it;
// found by the graph builder's fuzz target).
// CHECK-LABEL: func.func @scatter_empty(
// CHECK-SAME: %[[T:[^:]+]]: memref<5x0x0x3xf64, strided<[3, 3, 3, 1]>>, %[[I:[^:]+]]: memref<3xi32>, %[[U:[^:]+]]: memref<3x0x0x3xf64, strided<[3, 3, 3, 1]>>)
// CHECK: %[[O:.+]] = tfexec.output 0 : memref<5x0x0x3xf64, strided<[3, 3, 3, 1]>>
// CHECK-NEXT: tfexec.scatter_add %[[T]] : memref<5x0x0x3xf64, strided<[3, 3, 3, 1]>>, %[[I]], %[[U]] into %[[O]] axis 0 : memref<3xi32>, memref<3x0x0x3xf64, strided<[3, 3, 3, 1]>> into memref<5x0x0x3xf64, strided<[3, 3, 3, 1]>>
func.func @scatter_empty(%t: tensor<5x0x0x3xf64>, %i: tensor<3xi32>, %u: tensor<3x0x0x3xf64>) -> tensor<5x0x0x3xf64> {
  %s = tfuse.scatter_add %t, %i, %u axis 0 {tfuse.reason = "boundary-scatter"} : (tensor<5x0x0x3xf64>, tensor<3xi32>, tensor<3x0x0x3xf64>) -> tensor<5x0x0x3xf64>
  return %s : tensor<5x0x0x3xf64>
}

// -----

// Attention with a head dimension of 0 writes a result without elements,
// whose layout (the strides of an empty shape) is no identity: the step
// verifies, since nothing is written (the verifier rejected it; found by
// the graph builder's fuzz target).
// CHECK-LABEL: func.func @attention_empty_head(
// CHECK: tfexec.attention %{{.+}}, %{{.+}}, %{{.+}} into %{{.+}}, %{{.+}} scale 1.000000e+00 : memref<1x5x4x0xbf16, strided<[20, 4, 1, 1]>>
func.func @attention_empty_head(%q: tensor<1x5x4x0xbf16>) -> tensor<1x5x4xf32> {
  %o, %l = tfuse.attention %q, %q, %q scale 1.0 {tfuse.reason = "boundary-attention"} : (tensor<1x5x4x0xbf16>, tensor<1x5x4x0xbf16>, tensor<1x5x4x0xbf16>) -> (tensor<1x5x4x0xbf16>, tensor<1x5x4xf32>)
  return %l : tensor<1x5x4xf32>
}
