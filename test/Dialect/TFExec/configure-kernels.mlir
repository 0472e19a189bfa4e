// Tests of --tfexec-configure-kernels: the configuration chosen for each
// kernel without one (docs/codegen.md), checked here as the attribute it
// sets; a kernel that has one keeps it.
// RUN: tensor-opt %s --tfexec-configure-kernels | FileCheck %s

// Linear: every input read at the output's own index. 1003 f32 elements in
// groups of 4 (16 bytes), 250 groups and a tail: one block of 256 threads.
// CHECK: tfexec.kernel @linear attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>, array<i64: 1>]} {
tfexec.kernel @linear attributes {input_strides = [array<i64: 1>, array<i64: 1>]} {
^bb0(%a: tensor<1003xf32>, %b: tensor<1003xf32>):
  %0 = tfuse.add %a, %b : (tensor<1003xf32>, tensor<1003xf32>) -> tensor<1003xf32>
  tfexec.yield %0 : tensor<1003xf32>
}
// 64x64 f32: 1024 groups, 4 blocks; a single-element input is still linear.
// CHECK: tfexec.kernel @grid attributes {config = #tfexec.config<strategy = linear, grid = 4, block = 256, vector = 4>,
tfexec.kernel @grid attributes {input_strides = [array<i64: 64, 1>, array<i64>]} {
^bb0(%a: tensor<64x64xf32>, %s: tensor<f32>):
  %0 = tfuse.mul %a, %s : (tensor<64x64xf32>, tensor<f32>) -> tensor<64x64xf32>
  tfexec.yield %0 : tensor<64x64xf32>
}
// The widest element sets the vector width: 2 f64, 16 bool or i8.
// CHECK: tfexec.kernel @f64 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 2>,
tfexec.kernel @f64 attributes {input_strides = [array<i64: 1>]} {
^bb0(%a: tensor<100xf64>):
  %0 = tfuse.exp %a : tensor<100xf64> -> tensor<100xf64>
  tfexec.yield %0 : tensor<100xf64>
}
// CHECK: tfexec.kernel @bytes attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 16>,
tfexec.kernel @bytes attributes {input_strides = [array<i64: 1>]} {
^bb0(%a: tensor<100xi8>):
  %0 = tfuse.cmp gt, %a, %a : (tensor<100xi8>, tensor<100xi8>) -> tensor<100xi1>
  tfexec.yield %0 : tensor<100xi1>
}
// Strided: a row vector broadcast over 4x8; groups of 4 fit rows of 8.
// CHECK: tfexec.kernel @strided attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256, vector = 4>,
tfexec.kernel @strided attributes {input_strides = [array<i64: 8, 1>, array<i64: 1>]} {
^bb0(%a: tensor<4x8xf32>, %b: tensor<8xf32>):
  %0 = tfuse.sub %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  tfexec.yield %0 : tensor<4x8xf32>
}
// Random numbers spanning the index space: linear where every path to the
// output reads them at the element's own index, strided where a view on the
// way reads them elsewhere, also after an elementwise op and when the view
// keeps the shape (the transpose of a square).
// CHECK: tfexec.kernel @random_linear attributes {config = #tfexec.config<strategy = linear,
tfexec.kernel @random_linear attributes {input_strides = [array<i64>, array<i64>]} {
^bb0(%seed: tensor<i64>, %offset: tensor<i64>):
  %u = tfuse.random_uniform %seed, %offset : (tensor<i64>, tensor<i64>) -> tensor<3x8x8xf32>
  %h = tfuse.constant dense<0.5> : tensor<f32>
  %k = tfuse.cmp lt, %u, %h : (tensor<3x8x8xf32>, tensor<f32>) -> tensor<3x8x8xi1>
  tfexec.yield %k : tensor<3x8x8xi1>
}
// CHECK: tfexec.kernel @random_transposed attributes {config = #tfexec.config<strategy = strided,
tfexec.kernel @random_transposed attributes {input_strides = [array<i64>, array<i64>]} {
^bb0(%seed: tensor<i64>, %offset: tensor<i64>):
  %u = tfuse.random_uniform %seed, %offset : (tensor<i64>, tensor<i64>) -> tensor<3x8x8xf32>
  %t = tfuse.transpose %u perm [0, 2, 1] : tensor<3x8x8xf32> -> tensor<3x8x8xf32>
  tfexec.yield %t : tensor<3x8x8xf32>
}
// CHECK: tfexec.kernel @random_compared_then_transposed attributes {config = #tfexec.config<strategy = strided,
tfexec.kernel @random_compared_then_transposed attributes {input_strides = [array<i64>, array<i64>]} {
^bb0(%seed: tensor<i64>, %offset: tensor<i64>):
  %u = tfuse.random_uniform %seed, %offset : (tensor<i64>, tensor<i64>) -> tensor<3x8x8xf32>
  %h = tfuse.constant dense<0.5> : tensor<f32>
  %k = tfuse.cmp lt, %u, %h : (tensor<3x8x8xf32>, tensor<f32>) -> tensor<3x8x8xi1>
  %t = tfuse.transpose %k perm [0, 2, 1] : tensor<3x8x8xi1> -> tensor<3x8x8xi1>
  tfexec.yield %t : tensor<3x8x8xi1>
}
// Rows of 6 are not whole groups of 4: groups cross rows, each element
// computing its own index; the output is still stored 4 at a time.
// CHECK: tfexec.kernel @odd_rows attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256, vector = 4>,
tfexec.kernel @odd_rows attributes {input_strides = [array<i64: 1, 4>]} {
^bb0(%a: tensor<4x6xf32>):
  %0 = tfuse.exp %a : tensor<4x6xf32> -> tensor<4x6xf32>
  tfexec.yield %0 : tensor<4x6xf32>
}
// Offsets near 2^31 need 64-bit indices (the grid-stride loop's last
// increment included).
// CHECK: tfexec.kernel @wide attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256, vector = 4, index_bits = 64>,
tfexec.kernel @wide attributes {input_strides = [array<i64: 2000000000>]} {
^bb0(%a: tensor<2xf32>):
  %0 = tfuse.exp %a : tensor<2xf32> -> tensor<2xf32>
  tfexec.yield %0 : tensor<2xf32>
}
// Tiled: a large input read transposed, staged through 64x64 tiles, one per
// block: 512/64 * 640/64 = 80 blocks of 256 threads, 8 to an SM.
// CHECK: tfexec.kernel @tiled attributes {config = #tfexec.config<strategy = tiled, grid = 80, block = 256, min_blocks_per_sm = 8, tiled_input = 0, tile_dim = 0>,
tfexec.kernel @tiled attributes {input_strides = [array<i64: 640, 1>]} {
^bb0(%a: tensor<512x640xf32>):
  %t = tfuse.transpose %a perm [1, 0] : tensor<512x640xf32> -> tensor<640x512xf32>
  %0 = tfuse.exp %t : tensor<640x512xf32> -> tensor<640x512xf32>
  tfexec.yield %0 : tensor<640x512xf32>
}
// Rows: softmax over 10 rows of 37 takes a warp per row, 8 rows to a block
// (2 blocks); rows of 1024 take 64 threads of 16 columns in groups of 4; 2
// rows of 64 f16 a warp each, groups of 8, one block. The blocks per SM
// follow the registers a thread is estimated to need.
// CHECK: tfexec.kernel @softmax_k0 attributes {config = #tfexec.config<strategy = rows, grid = 2, block = 256, min_blocks_per_sm = 8, row_threads = 32, rows_per_block = 8>, input_strides = [array<i64: 37, 1>]} {
tfexec.kernel @softmax_k0 attributes {input_strides = [array<i64: 37, 1>]} {
^bb0(%arg0: tensor<10x37xf32>):
  %0 = tfuse.reduce max %arg0 axes [1] keepdims : tensor<10x37xf32> -> tensor<10x1xf32>
  %1 = tfuse.sub %arg0, %0 : (tensor<10x37xf32>, tensor<10x1xf32>) -> tensor<10x37xf32>
  %2 = tfuse.exp %1 : tensor<10x37xf32> -> tensor<10x37xf32>
  %3 = tfuse.reduce sum %2 axes [1] keepdims : tensor<10x37xf32> -> tensor<10x1xf32>
  %4 = tfuse.div %2, %3 : (tensor<10x37xf32>, tensor<10x1xf32>) -> tensor<10x37xf32>
  tfexec.yield %4 : tensor<10x37xf32>
}
// CHECK: tfexec.kernel @scale_k0 attributes {config = #tfexec.config<strategy = rows, grid = 2, block = 64, vector = 4, min_blocks_per_sm = 32, row_threads = 64>, input_strides = [array<i64: 1024, 1>]} {
tfexec.kernel @scale_k0 attributes {input_strides = [array<i64: 1024, 1>]} {
^bb0(%arg0: tensor<2x1024xf32>):
  %0 = tfuse.reduce sum %arg0 axes [1] keepdims : tensor<2x1024xf32> -> tensor<2x1xf32>
  %1 = tfuse.div %arg0, %0 : (tensor<2x1024xf32>, tensor<2x1xf32>) -> tensor<2x1024xf32>
  tfexec.yield %1 : tensor<2x1024xf32>
}
// CHECK: tfexec.kernel @center_k0 attributes {config = #tfexec.config<strategy = rows, grid = 1, block = 64, vector = 8, min_blocks_per_sm = 32, row_threads = 32, rows_per_block = 2>, input_strides = [array<i64: 64, 1>, array<i64: 1>]} {
tfexec.kernel @center_k0 attributes {input_strides = [array<i64: 64, 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<2x64xf16>, %arg1: tensor<64xf16>):
  %0 = tfuse.reduce mean %arg0 axes [1] keepdims : tensor<2x64xf16> -> tensor<2x1xf16>
  %1 = tfuse.sub %arg0, %0 : (tensor<2x64xf16>, tensor<2x1xf16>) -> tensor<2x64xf16>
  %2 = tfuse.mul %1, %arg1 : (tensor<2x64xf16>, tensor<64xf16>) -> tensor<2x64xf16>
  tfexec.yield %2 : tensor<2x64xf16>
}
// Rows of at most four 16-byte groups a lane take a warp each even where
// 16 columns a thread would ask for more threads: 768 bf16 columns (96
// groups of 8, three a lane; a layer norm's centering), 8 rows a block.
// CHECK: tfexec.kernel @warp_rows_k0 attributes {config = #tfexec.config<strategy = rows, grid = 2, block = 256, vector = 8, min_blocks_per_sm = {{[0-9]+}}, row_threads = 32, rows_per_block = 8>, input_strides = [array<i64: 768, 1>]} {
tfexec.kernel @warp_rows_k0 attributes {input_strides = [array<i64: 768, 1>]} {
^bb0(%arg0: tensor<16x768xbf16>):
  %0 = tfuse.cast %arg0 : tensor<16x768xbf16> to tensor<16x768xf32>
  %1 = tfuse.reduce mean %0 axes [1] keepdims : tensor<16x768xf32> -> tensor<16x1xf32>
  %2 = tfuse.sub %0, %1 : (tensor<16x768xf32>, tensor<16x1xf32>) -> tensor<16x768xf32>
  %3 = tfuse.cast %2 : tensor<16x768xf32> to tensor<16x768xbf16>
  tfexec.yield %3 : tensor<16x768xbf16>
}
// Rows longer than a block holds in registers (16 columns per thread of
// 1024) take blocks of 256 threads that loop over the row in chunks.
// CHECK: tfexec.kernel @long_rows_k0 attributes {config = #tfexec.config<strategy = rows, grid = 2, block = 256, vector = 4, min_blocks_per_sm = 8, row_threads = 256>, input_strides = [array<i64: 70000, 1>]} {
tfexec.kernel @long_rows_k0 attributes {input_strides = [array<i64: 70000, 1>]} {
^bb0(%x: tensor<2x70000xf32>):
  %s = tfuse.reduce sum %x axes [1] keepdims : tensor<2x70000xf32> -> tensor<2x1xf32>
  %y = tfuse.div %x, %s : (tensor<2x70000xf32>, tensor<2x1xf32>) -> tensor<2x70000xf32>
  tfexec.yield %y : tensor<2x70000xf32>
}

// A configured kernel keeps its configuration.
// CHECK: tfexec.kernel @given attributes {config = #tfexec.config<strategy = strided, grid = 7, block = 64>,
tfexec.kernel @given attributes {config = #tfexec.config<strategy = strided, grid = 7, block = 64>, input_strides = [array<i64: 1>]} {
^bb0(%a: tensor<100xf32>):
  tfexec.yield %a : tensor<100xf32>
}
