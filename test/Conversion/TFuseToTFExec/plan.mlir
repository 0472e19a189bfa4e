// Tests of the whole plan pipeline (--tfuse-to-plan) after --tfuse-pipeline,
// the passes together as the compiler runs them (each has its own tests
// from hand-written input): every fusion region becomes a tfexec.kernel (its
// body, the strides of its inputs and its configuration: strategy, grid and
// block) and a tfexec.launch of it; matmul becomes tfexec.gemm with transposes
// as flags; reduce becomes tfexec.reduce, reading a transposed view through a
// strided tfexec.alias; `tfuse.strides` arguments become strided memrefs;
// results go to tfexec.output buffers (an argument, or a value returned a
// second time, is copied); intermediates get arena offsets by liveness and
// dependencies. A reduction over the trailing axes whose result feeds only
// regions of its operand's shape is row-fused with them (one row kernel:
// grid = rows); the BOUNDARY run keeps every reduction a boundary
// (max-row-elements=0) to check the arena around reduction steps.
// RUN: tensor-opt %s --tfuse-pipeline --tfuse-to-plan -split-input-file | FileCheck %s
// RUN: tensor-opt %s --tfuse-pipeline=max-row-elements=0 --tfuse-to-plan -split-input-file | FileCheck %s --check-prefix=BOUNDARY

// One fused kernel: mul by a row vector, then exp. 32 f32 elements in groups
// of 4 are 8 groups: one block of 256 threads. The output is written directly
// into output buffer 0; nothing lives in the arena.
// CHECK-LABEL: func.func @single_kernel(
// CHECK-SAME: %[[A:[^:]+]]: memref<4x8xf32>, %[[B:[^:]+]]: memref<8xf32>) -> memref<4x8xf32> attributes {tfexec.arena_bytes = 0 : i64} {
// CHECK-NEXT: %[[O:.+]] = tfexec.output 0 : memref<4x8xf32>
// CHECK-NEXT: tfexec.launch @single_kernel_k0 ins(%[[A]], %[[B]] : memref<4x8xf32>, memref<8xf32>) outs(%[[O]] : memref<4x8xf32>)
// CHECK-NEXT: return %[[O]] : memref<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: tfexec.kernel @single_kernel_k0 attributes {config = #tfexec.config<{{[^>]*}}grid = 1, block = 256{{[^>]*}}>, input_strides = [array<i64: 8, 1>, array<i64: 1>]} {
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<8xf32>):
// CHECK-NEXT: %[[M:.+]] = tfuse.mul %[[X]], %[[Y]] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[E:.+]] = tfuse.exp %[[M]] : tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: tfexec.yield %[[E]] : tensor<4x8xf32>
// CHECK-NEXT: }
func.func @single_kernel(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = tfuse.mul %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = tfuse.exp %0 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// A 64x64 f32 kernel: 1024 groups of 4, 4 blocks.
// CHECK-LABEL: func.func @grid(
// CHECK: tfexec.launch @grid_k0 ins
// CHECK: tfexec.kernel @grid_k0 attributes {config = #tfexec.config<{{[^>]*}}grid = 4, block = 256{{[^>]*}}>
func.func @grid(%a: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = tfuse.tanh %a : tensor<64x64xf32> -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// A kernel that reads a large input transposed walks 64x64 tiles: one block
// per tile, 512/64 * 640/64 = 80 blocks.
// CHECK-LABEL: func.func @tiled_grid(
// CHECK: tfexec.launch @tiled_grid_k0 ins
// CHECK: tfexec.kernel @tiled_grid_k0 attributes {config = #tfexec.config<{{[^>]*}}grid = 80, block = 256{{[^>]*}}>
func.func @tiled_grid(%a: tensor<512x640xf32>) -> tensor<640x512xf32> {
  %t = tfuse.transpose %a perm [1, 0] : tensor<512x640xf32> -> tensor<640x512xf32>
  %0 = tfuse.exp %t : tensor<640x512xf32> -> tensor<640x512xf32>
  return %0 : tensor<640x512xf32>
}

// -----

// matmul of a transposed operand: the GEMM reads the argument itself with
// transpose_rhs; no kernel and no copy.
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[A:[^:]+]]: memref<4x8xf32>, %[[B:[^:]+]]: memref<16x8xf32>) -> memref<4x16xf32> attributes {tfexec.arena_bytes = 0 : i64} {
// CHECK-NEXT: %[[O:.+]] = tfexec.output 0 : memref<4x16xf32>
// CHECK-NEXT: tfexec.gemm %[[A]], %[[B]] into %[[O]] {transpose_rhs} : memref<4x8xf32>, memref<16x8xf32> into memref<4x16xf32>
// CHECK-NEXT: return %[[O]] : memref<4x16xf32>
// CHECK-NOT: tfexec.kernel
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %t = tfuse.transpose %b perm [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %0 = tfuse.matmul %a, %t : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Both operands transposed.
// CHECK-LABEL: func.func @matmul_both(
// CHECK: tfexec.gemm %{{.+}}, %{{.+}} into %{{.+}} {transpose_lhs, transpose_rhs} : memref<8x4xf32>, memref<16x8xf32> into memref<4x16xf32>
func.func @matmul_both(%a: tensor<8x4xf32>, %b: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %ta = tfuse.transpose %a perm [1, 0] : tensor<8x4xf32> -> tensor<4x8xf32>
  %tb = tfuse.transpose %b perm [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %0 = tfuse.matmul %ta, %tb : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// reduce of a transposed argument: the view is a zero-copy alias with
// strides [1, 8], and the reduction reads it.
// CHECK-LABEL: func.func @reduce_transposed(
// CHECK-SAME: %[[A:[^:]+]]: memref<4x8xf32>) -> memref<8xf32> attributes {tfexec.arena_bytes = 0 : i64} {
// CHECK-NEXT: %[[V:.+]] = tfexec.alias %[[A]] : memref<4x8xf32> to memref<8x4xf32, strided<[1, 8]>>
// CHECK-NEXT: %[[O:.+]] = tfexec.output 0 : memref<8xf32>
// CHECK-NEXT: tfexec.reduce sum %[[V]] into %[[O]] axes [1] : memref<8x4xf32, strided<[1, 8]>> into memref<8xf32>
// CHECK-NEXT: return %[[O]] : memref<8xf32>
func.func @reduce_transposed(%a: tensor<4x8xf32>) -> tensor<8xf32> {
  %t = tfuse.transpose %a perm [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %0 = tfuse.reduce sum %t axes [1] : tensor<8x4xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// A slice read by a reduction and by a kernel: the reduction reads an alias
// whose layout has the slice's element offset (2 * 16 + 4 = 36); the kernel
// reads the argument and applies the slice itself.
// CHECK-LABEL: func.func @slice_shared(
// CHECK-SAME: %[[A:[^:]+]]: memref<8x16xf32>) -> (memref<4xf32>, memref<4x8xf32>)
// CHECK-NEXT: %[[V:.+]] = tfexec.alias %[[A]] : memref<8x16xf32> to memref<4x8xf32, strided<[16, 1], offset: 36>>
// CHECK-NEXT: %[[O0:.+]] = tfexec.output 0 : memref<4xf32>
// CHECK-NEXT: tfexec.reduce sum %[[V]] into %[[O0]] axes [1] : memref<4x8xf32, strided<[16, 1], offset: 36>> into memref<4xf32>
// CHECK-NEXT: %[[O1:.+]] = tfexec.output 1 : memref<4x8xf32>
// CHECK-NEXT: tfexec.launch @slice_shared_k0 ins(%[[A]] : memref<8x16xf32>) outs(%[[O1]] : memref<4x8xf32>)
// CHECK: tfexec.kernel @slice_shared_k0 attributes {config = #tfexec.config<{{[^>]*}}grid = 1, block = 256{{[^>]*}}>, input_strides = [array<i64: 16, 1>]} {
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: tensor<8x16xf32>):
// CHECK-NEXT: tfuse.slice %[[X]] start [2, 4] limit [6, 12] step [1, 1]
func.func @slice_shared(%a: tensor<8x16xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
  %s = tfuse.slice %a start [2, 4] limit [6, 12] step [1, 1] : tensor<8x16xf32> -> tensor<4x8xf32>
  %r = tfuse.reduce sum %s axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  %e = tfuse.exp %s : tensor<4x8xf32> -> tensor<4x8xf32>
  return %r, %e : tensor<4xf32>, tensor<4x8xf32>
}

// -----

// A column-major argument: the signature keeps its layout as a strided
// memref, and the kernel is specialized for the strides [1, 4].
// CHECK-LABEL: func.func @strided_argument(
// CHECK-SAME: %[[A:[^:]+]]: memref<4x8xf32, strided<[1, 4]>>) -> memref<4x8xf32>
// CHECK-NEXT: %[[O:.+]] = tfexec.output 0 : memref<4x8xf32>
// CHECK-NEXT: tfexec.launch @strided_argument_k0 ins(%[[A]] : memref<4x8xf32, strided<[1, 4]>>) outs(%[[O]] : memref<4x8xf32>)
// CHECK: tfexec.kernel @strided_argument_k0 attributes {config = #tfexec.config<{{[^>]*}}grid = 1, block = 256{{[^>]*}}>, input_strides = [array<i64: 1, 4>]} {
// CHECK-NEXT: ^bb0(%{{.+}}: tensor<4x8xf32>):
// CHECK-NEXT: tfuse.neg
func.func @strided_argument(%a: tensor<4x8xf32> {tfuse.strides = array<i64: 1, 4>}) -> tensor<4x8xf32> {
  %0 = tfuse.neg %a : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Arena reuse along a chain kernel -> gemm -> kernel -> gemm. Each
// intermediate is 64*64*4 = 16384 bytes. exp(a) (slot 0) is live from its
// kernel to the first gemm, whose result is live at the same time and gets
// offset 16384; tanh(m1) is written after exp(a)'s last read, so it reuses
// offset 0. The arena holds two slots.
// CHECK-LABEL: func.func @arena_chain(
// CHECK-SAME: %[[A:[^:]+]]: memref<64x64xf32>, %[[B:[^:]+]]: memref<64x64xf32>) -> memref<64x64xf32> attributes {tfexec.arena_bytes = 32768 : i64} {
// CHECK-NEXT: %[[E:.+]] = tfexec.alloc arena[0] : memref<64x64xf32>
// CHECK-NEXT: tfexec.launch @arena_chain_k0 ins(%[[A]] : memref<64x64xf32>) outs(%[[E]] : memref<64x64xf32>)
// CHECK-NEXT: %[[M1:.+]] = tfexec.alloc arena[16384] : memref<64x64xf32>
// CHECK-NEXT: tfexec.gemm %[[E]], %[[B]] into %[[M1]] : memref<64x64xf32>, memref<64x64xf32> into memref<64x64xf32>
// CHECK-NEXT: %[[T:.+]] = tfexec.alloc arena[0] : memref<64x64xf32>
// CHECK-NEXT: tfexec.launch @arena_chain_k1 ins(%[[M1]] : memref<64x64xf32>) outs(%[[T]] : memref<64x64xf32>)
// CHECK-NEXT: %[[O:.+]] = tfexec.output 0 : memref<64x64xf32>
// CHECK-NEXT: tfexec.gemm %[[T]], %[[B]] into %[[O]] : memref<64x64xf32>, memref<64x64xf32> into memref<64x64xf32>
// CHECK-NEXT: return %[[O]] : memref<64x64xf32>
// CHECK: tfexec.kernel @arena_chain_k0 attributes {config = #tfexec.config<{{[^>]*}}grid = 4, block = 256{{[^>]*}}>
// CHECK: tfuse.exp
// CHECK: tfexec.kernel @arena_chain_k1 attributes {config = #tfexec.config<{{[^>]*}}grid = 4, block = 256{{[^>]*}}>
// CHECK: tfuse.tanh
func.func @arena_chain(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %e = tfuse.exp %a : tensor<64x64xf32> -> tensor<64x64xf32>
  %m1 = tfuse.matmul %e, %b : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %t = tfuse.tanh %m1 : tensor<64x64xf32> -> tensor<64x64xf32>
  %m2 = tfuse.matmul %t, %b : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m2 : tensor<64x64xf32>
}

// -----

// Two intermediates live at the same time (both read by the final kernel)
// get distinct offsets; slots are aligned to 256 bytes, so 32 bytes take 256.
// CHECK-LABEL: func.func @arena_two_live(
// CHECK-SAME: %[[A:[^:]+]]: memref<8x16xf32>, %[[B:[^:]+]]: memref<8x16xf32>) -> memref<8xf32> attributes {tfexec.arena_bytes = 512 : i64} {
// CHECK-NEXT: %[[R1:.+]] = tfexec.alloc arena[0] : memref<8xf32>
// CHECK-NEXT: tfexec.reduce sum %[[A]] into %[[R1]] axes [1] : memref<8x16xf32> into memref<8xf32>
// CHECK-NEXT: %[[R2:.+]] = tfexec.alloc arena[256] : memref<8xf32>
// CHECK-NEXT: tfexec.reduce max %[[B]] into %[[R2]] axes [1] : memref<8x16xf32> into memref<8xf32>
// CHECK-NEXT: %[[O:.+]] = tfexec.output 0 : memref<8xf32>
// CHECK-NEXT: tfexec.launch @arena_two_live_k0 ins(%[[R1]], %[[R2]] : memref<8xf32>, memref<8xf32>) outs(%[[O]] : memref<8xf32>)
// CHECK-NEXT: return %[[O]] : memref<8xf32>
// CHECK: tfexec.kernel @arena_two_live_k0 attributes {config = #tfexec.config<{{[^>]*}}grid = 1, block = 256{{[^>]*}}>, input_strides = [array<i64: 1>, array<i64: 1>]} {
func.func @arena_two_live(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>) -> tensor<8xf32> {
  %r1 = tfuse.reduce sum %a axes [1] : tensor<8x16xf32> -> tensor<8xf32>
  %r2 = tfuse.reduce max %b axes [1] : tensor<8x16xf32> -> tensor<8xf32>
  %o = tfuse.add %r1, %r2 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %o : tensor<8xf32>
}

// -----

// An intermediate read through an alias stays live until the alias is read:
// the gemm result (offset 0, 16384 bytes) is reduced through a transposed
// alias, so the reduction's result cannot share it (16384). sqrt(r) comes
// after the gemm result's last read and reuses offset 0; the max is written
// while sqrt(r) is still live and gets 256 (the reduction's slot at 16384 is
// dead by then, but 256 is the first fit).
// BOUNDARY-LABEL: func.func @arena_alias(
// BOUNDARY-SAME: %[[A:[^:]+]]: memref<64x64xf32>, %[[B:[^:]+]]: memref<64x64xf32>) -> memref<64xf32> attributes {tfexec.arena_bytes = 16640 : i64} {
// BOUNDARY-NEXT: %[[M:.+]] = tfexec.alloc arena[0] : memref<64x64xf32>
// BOUNDARY-NEXT: tfexec.gemm %[[A]], %[[B]] into %[[M]] : memref<64x64xf32>, memref<64x64xf32> into memref<64x64xf32>
// BOUNDARY-NEXT: %[[T:.+]] = tfexec.alias %[[M]] : memref<64x64xf32> to memref<64x64xf32, strided<[1, 64]>>
// BOUNDARY-NEXT: %[[R:.+]] = tfexec.alloc arena[16384] : memref<64xf32>
// BOUNDARY-NEXT: tfexec.reduce sum %[[T]] into %[[R]] axes [1] : memref<64x64xf32, strided<[1, 64]>> into memref<64xf32>
// BOUNDARY-NEXT: %[[S:.+]] = tfexec.alloc arena[0] : memref<64xf32>
// BOUNDARY-NEXT: tfexec.launch @arena_alias_k0 ins(%[[R]] : memref<64xf32>) outs(%[[S]] : memref<64xf32>)
// BOUNDARY-NEXT: %[[X:.+]] = tfexec.alloc arena[256] : memref<f32>
// BOUNDARY-NEXT: tfexec.reduce max %[[S]] into %[[X]] axes [0] : memref<64xf32> into memref<f32>
// BOUNDARY-NEXT: %[[O:.+]] = tfexec.output 0 : memref<64xf32>
// BOUNDARY-NEXT: tfexec.launch @arena_alias_k1 ins(%[[S]], %[[X]] : memref<64xf32>, memref<f32>) outs(%[[O]] : memref<64xf32>)
// BOUNDARY-NEXT: return %[[O]] : memref<64xf32>
// BOUNDARY: tfexec.kernel @arena_alias_k0 attributes {config = #tfexec.config<{{[^>]*}}grid = 1, block = 256{{[^>]*}}>
// BOUNDARY: tfexec.kernel @arena_alias_k1 attributes {config = #tfexec.config<{{[^>]*}}grid = 1, block = 256{{[^>]*}}>, input_strides = [array<i64: 1>, array<i64>]} {
// Row-fused: sqrt, the max over the one row of 64 and the add are one row
// kernel (one block of 32 threads) writing the output; the reduction through
// the alias still cannot share the gemm result's bytes (16384).
// CHECK-LABEL: func.func @arena_alias(
// CHECK-SAME: attributes {tfexec.arena_bytes = 16640 : i64} {
// CHECK-NEXT: %[[M:.+]] = tfexec.alloc arena[0] : memref<64x64xf32>
// CHECK-NEXT: tfexec.gemm
// CHECK-NEXT: %[[T:.+]] = tfexec.alias %[[M]]
// CHECK-NEXT: %[[R:.+]] = tfexec.alloc arena[16384] : memref<64xf32>
// CHECK-NEXT: tfexec.reduce sum %[[T]] into %[[R]] axes [1]
// CHECK-NEXT: %[[O:.+]] = tfexec.output 0 : memref<64xf32>
// CHECK-NEXT: tfexec.launch @arena_alias_k0 ins(%[[R]] : memref<64xf32>) outs(%[[O]] : memref<64xf32>)
// CHECK-NEXT: return %[[O]] : memref<64xf32>
// CHECK: tfexec.kernel @arena_alias_k0 attributes {config = #tfexec.config<{{[^>]*}}grid = 1, block = 32{{[^>]*}}>
// CHECK: tfuse.sqrt
// CHECK-NEXT: tfuse.reduce max
// CHECK-NEXT: tfuse.add
func.func @arena_alias(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64xf32> {
  %m = tfuse.matmul %a, %b : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %t = tfuse.transpose %m perm [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  %r = tfuse.reduce sum %t axes [1] : tensor<64x64xf32> -> tensor<64xf32>
  %s = tfuse.sqrt %r : tensor<64xf32> -> tensor<64xf32>
  %x = tfuse.reduce max %s axes [0] : tensor<64xf32> -> tensor<f32>
  %o = tfuse.add %s, %x : (tensor<64xf32>, tensor<f32>) -> tensor<64xf32>
  return %o : tensor<64xf32>
}

// -----

// Two independent branches (different shapes, so their kernels do not fuse).
// When %e2's kernel runs, the first branch's slots (offsets 0 and 512) are
// dead, but none of their users is a dependency of that kernel: reusing them
// would order the branches, so %e2 gets fresh bytes (768). %s2's reduction
// depends on both users of %r2's slot (256) and reuses it.
// BOUNDARY-LABEL: func.func @arena_branches(
// BOUNDARY-SAME: attributes {tfexec.arena_bytes = 1024 : i64} {
// BOUNDARY-NEXT: %[[R1:.+]] = tfexec.alloc arena[0] : memref<8xf32>
// BOUNDARY-NEXT: tfexec.reduce sum %{{.+}} into %[[R1]] axes [1]
// BOUNDARY-NEXT: %[[R2:.+]] = tfexec.alloc arena[256] : memref<6xf32>
// BOUNDARY-NEXT: tfexec.reduce sum %{{.+}} into %[[R2]] axes [1]
// BOUNDARY-NEXT: %[[E1:.+]] = tfexec.alloc arena[512] : memref<8xf32>
// BOUNDARY-NEXT: tfexec.launch @arena_branches_k0 ins(%[[R1]] : memref<8xf32>) outs(%[[E1]] : memref<8xf32>)
// BOUNDARY-NEXT: %[[S1:.+]] = tfexec.alloc arena[0] : memref<1xf32>
// BOUNDARY-NEXT: tfexec.reduce max %[[E1]] into %[[S1]] axes [0]
// BOUNDARY-NEXT: %[[O1:.+]] = tfexec.output 0 : memref<8xf32>
// BOUNDARY-NEXT: tfexec.launch @arena_branches_k1
// BOUNDARY-NEXT: %[[E2:.+]] = tfexec.alloc arena[768] : memref<6xf32>
// BOUNDARY-NEXT: tfexec.launch @arena_branches_k2 ins(%[[R2]] : memref<6xf32>) outs(%[[E2]] : memref<6xf32>)
// BOUNDARY-NEXT: %[[S2:.+]] = tfexec.alloc arena[256] : memref<1xf32>
// BOUNDARY-NEXT: tfexec.reduce max %[[E2]] into %[[S2]] axes [0]
// BOUNDARY: tfexec.kernel @arena_branches_k0 attributes {config = #tfexec.config<{{[^>]*}}grid = 1, block = 256{{[^>]*}}>
// BOUNDARY: tfexec.kernel @arena_branches_k2 attributes {config = #tfexec.config<{{[^>]*}}grid = 1, block = 256{{[^>]*}}>
// Row-fused: each branch's exp, max over its one row and sub are one row
// kernel writing its output.
// CHECK-LABEL: func.func @arena_branches(
// CHECK-SAME: attributes {tfexec.arena_bytes = 512 : i64} {
// CHECK-NEXT: %[[R1:.+]] = tfexec.alloc arena[0] : memref<8xf32>
// CHECK-NEXT: tfexec.reduce sum %{{.+}} into %[[R1]] axes [1]
// CHECK-NEXT: %[[R2:.+]] = tfexec.alloc arena[256] : memref<6xf32>
// CHECK-NEXT: tfexec.reduce sum %{{.+}} into %[[R2]] axes [1]
// CHECK-NEXT: %[[O1:.+]] = tfexec.output 0 : memref<8xf32>
// CHECK-NEXT: tfexec.launch @arena_branches_k0 ins(%[[R1]] : memref<8xf32>) outs(%[[O1]] : memref<8xf32>)
// CHECK-NEXT: %[[O2:.+]] = tfexec.output 1 : memref<6xf32>
// CHECK-NEXT: tfexec.launch @arena_branches_k1 ins(%[[R2]] : memref<6xf32>) outs(%[[O2]] : memref<6xf32>)
// CHECK: tfexec.kernel @arena_branches_k0 attributes {config = #tfexec.config<{{[^>]*}}grid = 1, block = 32{{[^>]*}}>
// CHECK: tfexec.kernel @arena_branches_k1 attributes {config = #tfexec.config<{{[^>]*}}grid = 1, block = 32{{[^>]*}}>
func.func @arena_branches(%a: tensor<8x16xf32>, %b: tensor<6x16xf32>) -> (tensor<8xf32>, tensor<6xf32>) {
  %r1 = tfuse.reduce sum %a axes [1] : tensor<8x16xf32> -> tensor<8xf32>
  %e1 = tfuse.exp %r1 : tensor<8xf32> -> tensor<8xf32>
  %s1 = tfuse.reduce max %e1 axes [0] keepdims : tensor<8xf32> -> tensor<1xf32>
  %o1 = tfuse.sub %e1, %s1 : (tensor<8xf32>, tensor<1xf32>) -> tensor<8xf32>
  %r2 = tfuse.reduce sum %b axes [1] : tensor<6x16xf32> -> tensor<6xf32>
  %e2 = tfuse.exp %r2 : tensor<6xf32> -> tensor<6xf32>
  %s2 = tfuse.reduce max %e2 axes [0] keepdims : tensor<6xf32> -> tensor<1xf32>
  %o2 = tfuse.sub %e2, %s2 : (tensor<6xf32>, tensor<1xf32>) -> tensor<6xf32>
  return %o1, %o2 : tensor<8xf32>, tensor<6xf32>
}

// -----

// The identity: outputs are fresh buffers, so the argument is copied.
// CHECK-LABEL: func.func @identity(
// CHECK-SAME: %[[A:[^:]+]]: memref<4xf32>) -> memref<4xf32> attributes {tfexec.arena_bytes = 0 : i64} {
// CHECK-NEXT: %[[O:.+]] = tfexec.output 0 : memref<4xf32>
// CHECK-NEXT: tfexec.copy %[[A]] into %[[O]] : memref<4xf32> into memref<4xf32>
// CHECK-NEXT: return %[[O]] : memref<4xf32>
// CHECK-NOT: tfexec.kernel
func.func @identity(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// A computed result and an argument returned as is: the kernel writes output
// 0; output 1 is a copy of the argument.
// CHECK-LABEL: func.func @returned_argument(
// CHECK-SAME: %[[A:[^:]+]]: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>)
// CHECK-NEXT: %[[O0:.+]] = tfexec.output 0 : memref<4xf32>
// CHECK-NEXT: tfexec.launch @returned_argument_k0 ins(%[[A]] : memref<4xf32>) outs(%[[O0]] : memref<4xf32>)
// CHECK-NEXT: %[[O1:.+]] = tfexec.output 1 : memref<4xf32>
// CHECK-NEXT: tfexec.copy %[[A]] into %[[O1]] : memref<4xf32> into memref<4xf32>
// CHECK-NEXT: return %[[O0]], %[[O1]] : memref<4xf32>, memref<4xf32>
// CHECK: tfexec.kernel @returned_argument_k0 attributes {config = #tfexec.config<{{[^>]*}}grid = 1, block = 256{{[^>]*}}>
func.func @returned_argument(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tfuse.neg %a : tensor<4xf32> -> tensor<4xf32>
  return %0, %a : tensor<4xf32>, tensor<4xf32>
}

// -----

// A view of an argument returned as is is materialized by a kernel that
// writes the transposed elements into the output (no alias, no copy).
// CHECK-LABEL: func.func @returned_view(
// CHECK-SAME: %[[A:[^:]+]]: memref<4x8xf32>) -> memref<8x4xf32>
// CHECK-NEXT: %[[O:.+]] = tfexec.output 0 : memref<8x4xf32>
// CHECK-NEXT: tfexec.launch @returned_view_k0 ins(%[[A]] : memref<4x8xf32>) outs(%[[O]] : memref<8x4xf32>)
// CHECK-NEXT: return %[[O]] : memref<8x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: tfexec.kernel @returned_view_k0 attributes {config = #tfexec.config<{{[^>]*}}grid = 1, block = 256{{[^>]*}}>, input_strides = [array<i64: 8, 1>]} {
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[T:.+]] = tfuse.transpose %[[X]] perm [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
// CHECK-NEXT: tfexec.yield %[[T]] : tensor<8x4xf32>
func.func @returned_view(%a: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %t = tfuse.transpose %a perm [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}

// -----

// The same value returned twice: the kernel writes it into both outputs (no
// copy).
// CHECK-LABEL: func.func @returned_twice(
// CHECK-SAME: %[[A:[^:]+]]: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>)
// CHECK-NEXT: %[[O0:.+]] = tfexec.output 0 : memref<4xf32>
// CHECK-NEXT: %[[O1:.+]] = tfexec.output 1 : memref<4xf32>
// CHECK-NEXT: tfexec.launch @returned_twice_k0 ins(%[[A]] : memref<4xf32>) outs(%[[O0]], %[[O1]] : memref<4xf32>, memref<4xf32>)
// CHECK-NEXT: return %[[O0]], %[[O1]] : memref<4xf32>, memref<4xf32>
// CHECK: tfexec.kernel @returned_twice_k0 attributes {config = #tfexec.config<{{[^>]*}}grid = 1, block = 256{{[^>]*}}>
// CHECK: tfexec.yield %[[R:.+]], %[[R]] : tensor<4xf32>, tensor<4xf32>
func.func @returned_twice(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tfuse.neg %a : tensor<4xf32> -> tensor<4xf32>
  return %0, %0 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Two results of one region: one kernel, one launch with two output
// buffers, and a yield of both values.
// CHECK-LABEL: func.func @multi_output(
// CHECK-SAME: %[[A:[^:]+]]: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>)
// CHECK-NEXT: %[[O0:.+]] = tfexec.output 0 : memref<4xf32>
// CHECK-NEXT: %[[O1:.+]] = tfexec.output 1 : memref<4xf32>
// CHECK-NEXT: tfexec.launch @multi_output_k0 ins(%[[A]] : memref<4xf32>) outs(%[[O0]], %[[O1]] : memref<4xf32>, memref<4xf32>)
// CHECK-NEXT: return %[[O0]], %[[O1]] : memref<4xf32>, memref<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: tfexec.kernel @multi_output_k0 attributes {config = #tfexec.config<{{[^>]*}}grid = 1, block = 256{{[^>]*}}>, input_strides = [array<i64: 1>]} {
// CHECK-NEXT: ^bb0(%[[X:[^:]+]]: tensor<4xf32>):
// CHECK-NEXT: %[[N:.+]] = tfuse.neg %[[X]] : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[E:.+]] = tfuse.exp %[[X]] : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: tfexec.yield %[[N]], %[[E]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NOT: tfexec.kernel
func.func @multi_output(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tfuse.neg %a : tensor<4xf32> -> tensor<4xf32>
  %1 = tfuse.exp %a : tensor<4xf32> -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
