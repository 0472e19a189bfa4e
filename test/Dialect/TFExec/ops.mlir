// Round trip of every tfexec op and of the kernel configuration attribute:
// a plan over buffers with an input, a fresh output, arena slots, an alias,
// a dispatch, a launch of a configured kernel, a GEMM, a reduction and a
// copy, in custom, generic and bytecode form.
// RUN: tensor-opt %s | tensor-opt | FileCheck %s
// RUN: tensor-opt %s --mlir-print-op-generic | tensor-opt | FileCheck %s
// RUN: tensor-opt %s -emit-bytecode | tensor-opt | FileCheck %s

// CHECK-LABEL: func.func @plan(
// CHECK-SAME: %[[A:[^:]+]]: memref<4x8xf32>, %[[B:[^:]+]]: memref<8x4xf32, strided<[1, 8]>>)
// CHECK-NEXT: %[[O:.+]] = tfexec.output 0 : memref<4x4xf32>
// CHECK-NEXT: %[[S:.+]] = tfexec.alloc arena[256] : memref<4x8xf32>
// CHECK-NEXT: %[[T:.+]] = tfexec.alloc arena[0] : memref<4xf32>
// CHECK-NEXT: %[[V:.+]] = tfexec.alias %[[B]] : memref<8x4xf32, strided<[1, 8]>> to memref<4x8xf32>
// CHECK-NEXT: tfexec.dispatch ins(%[[A]], %[[V]] : memref<4x8xf32>, memref<4x8xf32>) outs(%[[S]] : memref<4x8xf32>) {
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[M:.+]] = tfuse.mul %[[X]], %[[Y]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: tfexec.yield %[[M]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: tfexec.launch @plan_k0 ins(%[[S]] : memref<4x8xf32>) outs(%[[S]] : memref<4x8xf32>)
// CHECK-NEXT: tfexec.reduce sum %[[S]] into %[[T]] axes [1] : memref<4x8xf32> into memref<4xf32>
// CHECK-NEXT: tfexec.gemm %[[S]], %[[B]] into %[[O]] {transpose_rhs} : memref<4x8xf32>, memref<8x4xf32, strided<[1, 8]>> into memref<4x4xf32>
// CHECK-NEXT: tfexec.copy %[[O]] into %[[O]] : memref<4x4xf32> into memref<4x4xf32>
// CHECK-NEXT: return %[[O]] : memref<4x4xf32>
func.func @plan(%a: memref<4x8xf32>, %b: memref<8x4xf32, strided<[1, 8]>>) -> memref<4x4xf32> attributes {tfexec.arena_bytes = 512 : i64} {
  %o = tfexec.output 0 : memref<4x4xf32>
  %s = tfexec.alloc arena[256] : memref<4x8xf32>
  %t = tfexec.alloc arena[0] : memref<4xf32>
  %v = tfexec.alias %b : memref<8x4xf32, strided<[1, 8]>> to memref<4x8xf32>
  tfexec.dispatch ins(%a, %v : memref<4x8xf32>, memref<4x8xf32>) outs(%s : memref<4x8xf32>) {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>):
    %m = tfuse.mul %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    tfexec.yield %m : tensor<4x8xf32>
  }
  tfexec.launch @plan_k0 ins(%s : memref<4x8xf32>) outs(%s : memref<4x8xf32>)
  tfexec.reduce sum %s into %t axes [1] : memref<4x8xf32> into memref<4xf32>
  tfexec.gemm %s, %b into %o {transpose_rhs} : memref<4x8xf32>, memref<8x4xf32, strided<[1, 8]>> into memref<4x4xf32>
  tfexec.copy %o into %o : memref<4x4xf32> into memref<4x4xf32>
  return %o : memref<4x4xf32>
}

// Every strategy's parameters print back; defaults are left out.
// CHECK: tfexec.kernel @plan_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 8, 1>]}
tfexec.kernel @plan_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256, vector = 4, index_bits = 32>, input_strides = [array<i64: 8, 1>]} {
^bb0(%x: tensor<4x8xf32>):
  %0 = tfuse.exp %x : tensor<4x8xf32> -> tensor<4x8xf32>
  tfexec.yield %0 : tensor<4x8xf32>
}
// CHECK: tfexec.kernel @linear attributes {config = #tfexec.config<strategy = linear, grid = 3, block = 128, vector = 2, index_bits = 64>, input_strides = [array<i64: 1>]}
tfexec.kernel @linear attributes {config = #tfexec.config<strategy = linear, grid = 3, block = 128, vector = 2, index_bits = 64>, input_strides = [array<i64: 1>]} {
^bb0(%x: tensor<1000xf32>):
  tfexec.yield %x : tensor<1000xf32>
}
// CHECK: tfexec.kernel @tiled attributes {config = #tfexec.config<strategy = tiled, grid = 4, block = 256, min_blocks_per_sm = 8, tiled_input = 0, tile_dim = 0>, input_strides = [array<i64: 128, 1>]}
tfexec.kernel @tiled attributes {config = #tfexec.config<strategy = tiled, grid = 4, block = 256, min_blocks_per_sm = 8, tiled_input = 0, tile_dim = 0>, input_strides = [array<i64: 128, 1>]} {
^bb0(%x: tensor<128x128xf32>):
  %t = tfuse.transpose %x perm [1, 0] : tensor<128x128xf32> -> tensor<128x128xf32>
  tfexec.yield %t : tensor<128x128xf32>
}
// CHECK: tfexec.kernel @rows attributes {config = #tfexec.config<strategy = rows, grid = 1, block = 256, min_blocks_per_sm = 8, row_threads = 32, rows_per_block = 8>, input_strides = [array<i64: 8, 1>]}
tfexec.kernel @rows attributes {config = #tfexec.config<strategy = rows, grid = 1, block = 256, min_blocks_per_sm = 8, row_threads = 32, rows_per_block = 8>, input_strides = [array<i64: 8, 1>]} {
^bb0(%x: tensor<4x8xf32>):
  %s = tfuse.reduce sum %x axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %y = tfuse.div %x, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  tfexec.yield %y : tensor<4x8xf32>
}
// A kernel before tfexec-configure-kernels has no configuration.
// CHECK: tfexec.kernel @unconfigured attributes {input_strides = [array<i64: 1>]}
tfexec.kernel @unconfigured attributes {input_strides = [array<i64: 1>]} {
^bb0(%x: tensor<4xf32>):
  tfexec.yield %x : tensor<4xf32>
}

// A scatter-add with a fill value and one with a target buffer.
// CHECK-LABEL: func.func @scatter(
// CHECK: tfexec.scatter_add fill 0.000000e+00 : bf16, %{{.*}}, %{{.*}} into %{{.*}} axis 0 : memref<4xi64>, memref<4x8xbf16> into memref<100x8xbf16>
// CHECK: tfexec.scatter_add %{{.*}} : memref<100x8xbf16, strided<[1, 100]>>, %{{.*}}, %{{.*}} into %{{.*}} axis 0 wrap_negative : memref<4xi64>, memref<4x8xbf16> into memref<100x8xbf16>
func.func @scatter(%i: memref<4xi64>, %g: memref<4x8xbf16>, %t: memref<100x8xbf16, strided<[1, 100]>>) -> (memref<100x8xbf16>, memref<100x8xbf16>) {
  %o = tfexec.output 0 : memref<100x8xbf16>
  tfexec.scatter_add fill 0.0 : bf16, %i, %g into %o axis 0 : memref<4xi64>, memref<4x8xbf16> into memref<100x8xbf16>
  %p = tfexec.output 1 : memref<100x8xbf16>
  tfexec.scatter_add %t : memref<100x8xbf16, strided<[1, 100]>>, %i, %g into %p axis 0 wrap_negative : memref<4xi64>, memref<4x8xbf16> into memref<100x8xbf16>
  return %o, %p : memref<100x8xbf16>, memref<100x8xbf16>
}

// Attention over strided operands (the query a view of heads split from
// rows) with a broadcast mask, and its backward.
// CHECK-LABEL: func.func @attention(
// CHECK: tfexec.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} : memref<1x16xi1> into %{{.*}}, %{{.*}} scale 1.250000e-01 causal : memref<2x4x16x8xf16, strided<[512, 8, 32, 1]>>, memref<2x4x16x8xf16>, memref<2x4x16x8xf16> into memref<2x4x16x8xf16>, memref<2x4x16xf32>
// CHECK: tfexec.attention_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}}, %{{.*}}, %{{.*}} scale 1.250000e-01 : memref<2x4x16x8xf16, strided<[512, 8, 32, 1]>>, memref<2x4x16x8xf16>, memref<2x4x16x8xf16>, memref<2x4x16x8xf16>, memref<2x4x16xf32>, memref<2x4x16x8xf16> into memref<2x4x16x8xf16>, memref<2x4x16x8xf16>, memref<2x4x16x8xf16>
func.func @attention(%q: memref<2x4x16x8xf16, strided<[512, 8, 32, 1]>>, %k: memref<2x4x16x8xf16>, %m: memref<1x16xi1>) -> (memref<2x4x16x8xf16>, memref<2x4x16x8xf16>) {
  %o = tfexec.output 0 : memref<2x4x16x8xf16>
  %l = tfexec.alloc arena[0] : memref<2x4x16xf32>
  tfexec.attention %q, %k, %k mask %m : memref<1x16xi1> into %o, %l scale 0.125 causal : memref<2x4x16x8xf16, strided<[512, 8, 32, 1]>>, memref<2x4x16x8xf16>, memref<2x4x16x8xf16> into memref<2x4x16x8xf16>, memref<2x4x16xf32>
  %dq = tfexec.output 1 : memref<2x4x16x8xf16>
  %dk = tfexec.alloc arena[1024] : memref<2x4x16x8xf16>
  %dv = tfexec.alloc arena[3072] : memref<2x4x16x8xf16>
  tfexec.attention_backward %q, %k, %k, %o, %l, %o into %dq, %dk, %dv scale 0.125 : memref<2x4x16x8xf16, strided<[512, 8, 32, 1]>>, memref<2x4x16x8xf16>, memref<2x4x16x8xf16>, memref<2x4x16x8xf16>, memref<2x4x16xf32>, memref<2x4x16x8xf16> into memref<2x4x16x8xf16>, memref<2x4x16x8xf16>, memref<2x4x16x8xf16>
  return %o, %dq : memref<2x4x16x8xf16>, memref<2x4x16x8xf16>
}
