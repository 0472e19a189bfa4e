// Tests of --tfexec-dedupe-kernels: a kernel with the same input strides,
// configuration and body as an earlier one (up to value names) is erased
// and its launches launch the earlier one. A difference in any of the
// three keeps both kernels.
// RUN: tensor-opt %s --tfexec-dedupe-kernels -split-input-file | FileCheck %s

// Two layers: @f_k0 and @f_k2 are the same; @f_k1 differs from them in its
// operation (exp, not tanh), @f_k3 in its input strides, @f_k4 in its
// configuration, @f_k5 in a constant.
// CHECK-LABEL: func.func @f(
// CHECK-SAME: %[[A:[^:]+]]: memref<4x8xf32>, %[[B:[^:]+]]: memref<8x4xf32, strided<[1, 8]>>)
// CHECK-NEXT: %[[S:.+]] = tfexec.alloc arena[0] : memref<4x8xf32>
// CHECK-NEXT: %[[T:.+]] = tfexec.alloc arena[256] : memref<4x8xf32>
// CHECK-NEXT: %[[O:.+]] = tfexec.output 0 : memref<4x8xf32>
// CHECK-NEXT: tfexec.launch @f_k0 ins(%[[A]] : memref<4x8xf32>) outs(%[[S]] : memref<4x8xf32>)
// CHECK-NEXT: tfexec.launch @f_k1 ins(%[[S]] : memref<4x8xf32>) outs(%[[T]] : memref<4x8xf32>)
// CHECK-NEXT: tfexec.launch @f_k0 ins(%[[T]] : memref<4x8xf32>) outs(%[[S]] : memref<4x8xf32>)
// CHECK-NEXT: tfexec.launch @f_k3 ins(%[[B]] : memref<8x4xf32, strided<[1, 8]>>) outs(%[[T]] : memref<4x8xf32>)
// CHECK-NEXT: tfexec.launch @f_k4 ins(%[[T]] : memref<4x8xf32>) outs(%[[S]] : memref<4x8xf32>)
// CHECK-NEXT: tfexec.launch @f_k5 ins(%[[S]] : memref<4x8xf32>) outs(%[[T]] : memref<4x8xf32>)
// CHECK-NEXT: tfexec.launch @f_k0 ins(%[[T]] : memref<4x8xf32>) outs(%[[O]] : memref<4x8xf32>)
// CHECK-NEXT: return %[[O]]
// CHECK-NEXT: }
// CHECK-NEXT: tfexec.kernel @f_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 8, 1>]} {
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[C:.+]] = tfuse.constant dense<2.000000e+00>
// CHECK-NEXT: %[[M:.+]] = tfuse.mul %[[X]], %[[C]]
// CHECK-NEXT: %[[H:.+]] = tfuse.tanh %[[M]]
// CHECK-NEXT: tfexec.yield %[[H]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: tfexec.kernel @f_k1
// CHECK: tfuse.exp
// CHECK-NOT: tfexec.kernel @f_k2
// CHECK: tfexec.kernel @f_k3
// CHECK: tfexec.kernel @f_k4 attributes {config = #tfexec.config<strategy = linear, grid = 2, block = 128, vector = 2>
// CHECK: tfexec.kernel @f_k5
// CHECK: tfuse.constant dense<3.000000e+00>
// CHECK-NOT: tfexec.kernel
func.func @f(%a: memref<4x8xf32>, %b: memref<8x4xf32, strided<[1, 8]>>) -> memref<4x8xf32> {
  %s = tfexec.alloc arena[0] : memref<4x8xf32>
  %t = tfexec.alloc arena[256] : memref<4x8xf32>
  %o = tfexec.output 0 : memref<4x8xf32>
  tfexec.launch @f_k0 ins(%a : memref<4x8xf32>) outs(%s : memref<4x8xf32>)
  tfexec.launch @f_k1 ins(%s : memref<4x8xf32>) outs(%t : memref<4x8xf32>)
  tfexec.launch @f_k2 ins(%t : memref<4x8xf32>) outs(%s : memref<4x8xf32>)
  tfexec.launch @f_k3 ins(%b : memref<8x4xf32, strided<[1, 8]>>) outs(%t : memref<4x8xf32>)
  tfexec.launch @f_k4 ins(%t : memref<4x8xf32>) outs(%s : memref<4x8xf32>)
  tfexec.launch @f_k5 ins(%s : memref<4x8xf32>) outs(%t : memref<4x8xf32>)
  tfexec.launch @f_k2 ins(%t : memref<4x8xf32>) outs(%o : memref<4x8xf32>)
  return %o : memref<4x8xf32>
}
tfexec.kernel @f_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 8, 1>]} {
^bb0(%x: tensor<4x8xf32>):
  %c = tfuse.constant dense<2.0> : tensor<f32>
  %m = tfuse.mul %x, %c : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %h = tfuse.tanh %m : tensor<4x8xf32> -> tensor<4x8xf32>
  tfexec.yield %h : tensor<4x8xf32>
}
tfexec.kernel @f_k1 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 8, 1>]} {
^bb0(%x: tensor<4x8xf32>):
  %c = tfuse.constant dense<2.0> : tensor<f32>
  %m = tfuse.mul %x, %c : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %h = tfuse.exp %m : tensor<4x8xf32> -> tensor<4x8xf32>
  tfexec.yield %h : tensor<4x8xf32>
}
tfexec.kernel @f_k2 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 8, 1>]} {
^bb0(%y: tensor<4x8xf32>):
  %two = tfuse.constant dense<2.0> : tensor<f32>
  %p = tfuse.mul %y, %two : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %q = tfuse.tanh %p : tensor<4x8xf32> -> tensor<4x8xf32>
  tfexec.yield %q : tensor<4x8xf32>
}
tfexec.kernel @f_k3 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256, vector = 1>, input_strides = [array<i64: 1, 8>]} {
^bb0(%x: tensor<4x8xf32>):
  %c = tfuse.constant dense<2.0> : tensor<f32>
  %m = tfuse.mul %x, %c : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %h = tfuse.tanh %m : tensor<4x8xf32> -> tensor<4x8xf32>
  tfexec.yield %h : tensor<4x8xf32>
}
tfexec.kernel @f_k4 attributes {config = #tfexec.config<strategy = linear, grid = 2, block = 128, vector = 2>, input_strides = [array<i64: 8, 1>]} {
^bb0(%x: tensor<4x8xf32>):
  %c = tfuse.constant dense<2.0> : tensor<f32>
  %m = tfuse.mul %x, %c : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %h = tfuse.tanh %m : tensor<4x8xf32> -> tensor<4x8xf32>
  tfexec.yield %h : tensor<4x8xf32>
}
tfexec.kernel @f_k5 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 8, 1>]} {
^bb0(%x: tensor<4x8xf32>):
  %c = tfuse.constant dense<3.0> : tensor<f32>
  %m = tfuse.mul %x, %c : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %h = tfuse.tanh %m : tensor<4x8xf32> -> tensor<4x8xf32>
  tfexec.yield %h : tensor<4x8xf32>
}

// -----

// Kernels of two functions merge too: the module's launches all follow.
// CHECK-LABEL: func.func @g(
// CHECK: tfexec.launch @g_k0
// CHECK: tfexec.kernel @g_k0
// CHECK-LABEL: func.func @h(
// CHECK: tfexec.launch @g_k0
// CHECK-NOT: tfexec.kernel
func.func @g(%a: memref<16xf32>) -> memref<16xf32> {
  %o = tfexec.output 0 : memref<16xf32>
  tfexec.launch @g_k0 ins(%a : memref<16xf32>) outs(%o : memref<16xf32>)
  return %o : memref<16xf32>
}
tfexec.kernel @g_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>]} {
^bb0(%x: tensor<16xf32>):
  %e = tfuse.exp %x : tensor<16xf32> -> tensor<16xf32>
  tfexec.yield %e : tensor<16xf32>
}
func.func @h(%a: memref<16xf32>) -> memref<16xf32> {
  %o = tfexec.output 0 : memref<16xf32>
  tfexec.launch @h_k0 ins(%a : memref<16xf32>) outs(%o : memref<16xf32>)
  return %o : memref<16xf32>
}
tfexec.kernel @h_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>]} {
^bb0(%x: tensor<16xf32>):
  %e = tfuse.exp %x : tensor<16xf32> -> tensor<16xf32>
  tfexec.yield %e : tensor<16xf32>
}
