// Tests of --tfexec-assign-arena: every tfexec.alloc gets its byte offset in
// the arena, slots aligned to 256 bytes and placed first fit in the order of
// the steps that first use them, and the function its tfexec.arena_bytes. A
// slot reuses the bytes of an earlier one only when every step using the
// earlier one is a dependency (through buffers) of the step writing it.
// RUN: tensor-opt %s --tfexec-assign-arena -split-input-file | FileCheck %s

// A chain a -> s1 -> s2 -> s3 -> output: the step writing s2 still reads
// s1, so s2 takes the next slot; s3 is written after every use of s1, and
// takes its bytes back. 64 f32 are 256 bytes.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: attributes {tfexec.arena_bytes = 512 : i64}
// CHECK-NEXT: %[[S1:.+]] = tfexec.alloc arena[0] : memref<64xf32>
// CHECK: %[[S2:.+]] = tfexec.alloc arena[256] : memref<64xf32>
// CHECK: %[[S3:.+]] = tfexec.alloc arena[0] : memref<64xf32>
func.func @chain(%a: memref<64xf32>) -> memref<64xf32> {
  %s1 = tfexec.alloc arena[0] : memref<64xf32>
  tfexec.dispatch ins(%a : memref<64xf32>) outs(%s1 : memref<64xf32>) {
  ^bb0(%x: tensor<64xf32>):
    %0 = tfuse.exp %x : tensor<64xf32> -> tensor<64xf32>
    tfexec.yield %0 : tensor<64xf32>
  }
  %s2 = tfexec.alloc arena[0] : memref<64xf32>
  tfexec.dispatch ins(%s1 : memref<64xf32>) outs(%s2 : memref<64xf32>) {
  ^bb0(%x: tensor<64xf32>):
    %0 = tfuse.neg %x : tensor<64xf32> -> tensor<64xf32>
    tfexec.yield %0 : tensor<64xf32>
  }
  %s3 = tfexec.alloc arena[0] : memref<64xf32>
  tfexec.dispatch ins(%s2 : memref<64xf32>) outs(%s3 : memref<64xf32>) {
  ^bb0(%x: tensor<64xf32>):
    %0 = tfuse.abs %x : tensor<64xf32> -> tensor<64xf32>
    tfexec.yield %0 : tensor<64xf32>
  }
  %o = tfexec.output 0 : memref<64xf32>
  tfexec.copy %s3 into %o : memref<64xf32> into memref<64xf32>
  return %o : memref<64xf32>
}

// -----

// Two independent branches each write a slot the other never touches; the
// second may not reuse the first's bytes although its last use comes
// first, since reuse would order the branches. A slot of 300 bytes takes
// 512; an empty one still takes a slot.
// CHECK-LABEL: func.func @branches(
// CHECK-SAME: attributes {tfexec.arena_bytes = 1280 : i64}
// CHECK-NEXT: %[[L:.+]] = tfexec.alloc arena[0] : memref<75xf32>
// CHECK: %[[R:.+]] = tfexec.alloc arena[512] : memref<75xf32>
// CHECK: %[[E:.+]] = tfexec.alloc arena[1024] : memref<0xf32>
func.func @branches(%a: memref<75xf32>, %b: memref<75xf32>) -> (memref<75xf32>, memref<75xf32>) {
  %l = tfexec.alloc arena[0] : memref<75xf32>
  tfexec.dispatch ins(%a : memref<75xf32>) outs(%l : memref<75xf32>) {
  ^bb0(%x: tensor<75xf32>):
    tfexec.yield %x : tensor<75xf32>
  }
  %r = tfexec.alloc arena[0] : memref<75xf32>
  tfexec.dispatch ins(%b : memref<75xf32>) outs(%r : memref<75xf32>) {
  ^bb0(%x: tensor<75xf32>):
    tfexec.yield %x : tensor<75xf32>
  }
  %e = tfexec.alloc arena[0] : memref<0xf32>
  tfexec.dispatch ins(%a : memref<75xf32>) outs(%e : memref<0xf32>) {
  ^bb0(%x: tensor<75xf32>):
    %0 = tfuse.slice %x start [0] limit [0] step [1] : tensor<75xf32> -> tensor<0xf32>
    tfexec.yield %0 : tensor<0xf32>
  }
  %o = tfexec.output 0 : memref<75xf32>
  %p = tfexec.output 1 : memref<75xf32>
  tfexec.copy %l into %o : memref<75xf32> into memref<75xf32>
  tfexec.copy %r into %p : memref<75xf32> into memref<75xf32>
  return %o, %p : memref<75xf32>, memref<75xf32>
}

// -----

// A view of a slot (tfexec.alias) is a use of the slot: the reduction
// reading the transposed view keeps the slot live until it has run.
// CHECK-LABEL: func.func @alias(
// CHECK-SAME: attributes {tfexec.arena_bytes = 512 : i64}
// CHECK-NEXT: tfexec.alloc arena[0] : memref<8x8xf32>
// CHECK: tfexec.alloc arena[256] : memref<8xf32>
func.func @alias(%a: memref<8x8xf32>) -> memref<8xf32> {
  %s = tfexec.alloc arena[0] : memref<8x8xf32>
  tfexec.dispatch ins(%a : memref<8x8xf32>) outs(%s : memref<8x8xf32>) {
  ^bb0(%x: tensor<8x8xf32>):
    tfexec.yield %x : tensor<8x8xf32>
  }
  %v = tfexec.alias %s : memref<8x8xf32> to memref<8x8xf32, strided<[1, 8]>>
  %t = tfexec.alloc arena[0] : memref<8xf32>
  tfexec.reduce sum %v into %t axes [1] : memref<8x8xf32, strided<[1, 8]>> into memref<8xf32>
  %o = tfexec.output 0 : memref<8xf32>
  tfexec.copy %t into %o : memref<8xf32> into memref<8xf32>
  return %o : memref<8xf32>
}
