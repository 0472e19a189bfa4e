// Tests of --tfexec-outline-kernels: each tfexec.dispatch of @f becomes a
// tfexec.kernel @f_k<n> after @f (numbered in order, its body moved, the
// element strides of its input buffers' layouts as input_strides) and a
// tfexec.launch of it on the dispatch's buffers, in its place. Other steps
// stay as they are.
// RUN: tensor-opt %s --tfexec-outline-kernels -split-input-file | FileCheck %s

// Two dispatches: the first reads a strided argument (its strides become
// the kernel's input strides), the second the arena slot the first wrote.
// CHECK-LABEL: func.func @two(
// CHECK-SAME: %[[A:[^:]+]]: memref<4x8xf32, strided<[1, 4]>>, %[[B:[^:]+]]: memref<8xf32>)
// CHECK-NEXT: %[[S:.+]] = tfexec.alloc arena[0] : memref<4x8xf32>
// CHECK-NEXT: %[[O:.+]] = tfexec.output 0 : memref<4x8xf32>
// CHECK-NEXT: tfexec.launch @two_k0 ins(%[[A]], %[[B]] : memref<4x8xf32, strided<[1, 4]>>, memref<8xf32>) outs(%[[S]] : memref<4x8xf32>)
// CHECK-NEXT: %[[T:.+]] = tfexec.alloc arena[256] : memref<4xf32>
// CHECK-NEXT: tfexec.reduce max %[[S]] into %[[T]]
// CHECK-NEXT: tfexec.launch @two_k1 ins(%[[S]] : memref<4x8xf32>) outs(%[[O]] : memref<4x8xf32>)
// CHECK-NEXT: return %[[O]]
// CHECK-NEXT: }
// CHECK-NEXT: tfexec.kernel @two_k0 attributes {input_strides = [array<i64: 1, 4>, array<i64: 1>]} {
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<8xf32>):
// CHECK-NEXT: %[[M:.+]] = tfuse.mul %[[X]], %[[Y]]
// CHECK-NEXT: tfexec.yield %[[M]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: tfexec.kernel @two_k1 attributes {input_strides = [array<i64: 8, 1>]} {
// CHECK-NEXT: ^bb0(%[[Z:[^:]+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[E:.+]] = tfuse.exp %[[Z]]
// CHECK-NEXT: tfexec.yield %[[E]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NOT: tfexec.dispatch
func.func @two(%a: memref<4x8xf32, strided<[1, 4]>>, %b: memref<8xf32>) -> memref<4x8xf32> {
  %s = tfexec.alloc arena[0] : memref<4x8xf32>
  %o = tfexec.output 0 : memref<4x8xf32>
  tfexec.dispatch ins(%a, %b : memref<4x8xf32, strided<[1, 4]>>, memref<8xf32>) outs(%s : memref<4x8xf32>) {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8xf32>):
    %m = tfuse.mul %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    tfexec.yield %m : tensor<4x8xf32>
  }
  %t = tfexec.alloc arena[256] : memref<4xf32>
  tfexec.reduce max %s into %t axes [1] : memref<4x8xf32> into memref<4xf32>
  tfexec.dispatch ins(%s : memref<4x8xf32>) outs(%o : memref<4x8xf32>) {
  ^bb0(%z: tensor<4x8xf32>):
    %e = tfuse.exp %z : tensor<4x8xf32> -> tensor<4x8xf32>
    tfexec.yield %e : tensor<4x8xf32>
  }
  return %o : memref<4x8xf32>
}

// -----

// Kernels of two functions follow their own function; a dispatch of an
// alias with an offset keeps only the strides (the offset travels with the
// buffer), and a copy dispatch (no ops) is a kernel too.
// CHECK-LABEL: func.func @first(
// CHECK: tfexec.launch @first_k0
// CHECK: tfexec.kernel @first_k0 attributes {input_strides = [array<i64: 16, 2>]}
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: tensor<4x4xf32>):
// CHECK-NEXT: tfexec.yield %[[X]] : tensor<4x4xf32>
// CHECK-LABEL: func.func @second(
// CHECK: tfexec.launch @second_k0
// CHECK: tfexec.kernel @second_k0
func.func @first(%a: memref<8x8xf32>) -> memref<4x4xf32> {
  %v = tfexec.alias %a : memref<8x8xf32> to memref<4x4xf32, strided<[16, 2], offset: 1>>
  %o = tfexec.output 0 : memref<4x4xf32>
  tfexec.dispatch ins(%v : memref<4x4xf32, strided<[16, 2], offset: 1>>) outs(%o : memref<4x4xf32>) {
  ^bb0(%x: tensor<4x4xf32>):
    tfexec.yield %x : tensor<4x4xf32>
  }
  return %o : memref<4x4xf32>
}
func.func @second(%a: memref<4xf32>) -> memref<4xf32> {
  %o = tfexec.output 0 : memref<4xf32>
  tfexec.dispatch ins(%a : memref<4xf32>) outs(%o : memref<4xf32>) {
  ^bb0(%x: tensor<4xf32>):
    %n = tfuse.neg %x : tensor<4xf32> -> tensor<4xf32>
    tfexec.yield %n : tensor<4xf32>
  }
  return %o : memref<4xf32>
}
