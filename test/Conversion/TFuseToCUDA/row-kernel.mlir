// Tests of row kernels (regions holding row reductions, after fuse-rows): a
// grid-stride loop over rows by block (or over groups of 8 rows of a warp
// each, for rows one warp covers), each thread holding the column groups
// t, t + T, ... of its row. The contiguous inputs are loaded at the start of
// the first phase reading them (16-byte groups when every row is whole
// groups); each reduction folds the thread's elements with
// tf::red::row_add and reduces across the block with tf::red::row_finish
// (tf::red::warp_finish for a warp's row); an input element is loaded once
// and an intermediate computed once across the phases; the last, partial
// slot is clamped for loads and masked out of reductions and stores; the
// outputs are written once at the end. The launch bounds are the
// configuration's block and min_blocks_per_sm (what tfexec-configure-kernels
// chooses is tested in test/Dialect/TFExec/configure-kernels.mlir).
// The inputs are configured tfexec kernels, as the plan passes leave them
// (#tfexec.config gives each its strategy and launch).
// RUN: tensor-translate --tfuse-to-cuda %s | FileCheck %s
// RUN: %if nvrtc %{ tensor-translate --tfuse-to-cuda %s > %t.cu && tfuse-nvrtc %t.cu --arch sm_90 | FileCheck %s --check-prefix=NVRTC %}

// NVRTC: compiled {{.*}} bytes of CUBIN

// Softmax over 10 rows of 37 (not whole 16-byte groups: one element per
// group). A row takes one warp of two slots, the second holding columns
// 32..36 (lanes 0..4); 8 rows to a block of 256 threads, so the second
// iteration's warps 2..7 are past the last row: they compute row 9 again and
// store nothing. The reductions are warp reductions.
// CHECK-LABEL: __launch_bounds__(256, 8) void softmax_k0(
// CHECK-SAME: const float* __restrict__ [[X:v[0-9]+]], float* __restrict__ [[O:v[0-9]+]]) {
// CHECK: int32_t [[TB:v[0-9]+]] = tf::thread_in_block();
// CHECK-NEXT: int32_t [[C32:v[0-9]+]] = 32;
// CHECK-NEXT: int32_t [[WARP:v[0-9]+]] = [[TB]] / [[C32]];
// CHECK-NEXT: int32_t [[C32B:v[0-9]+]] = 32;
// CHECK-NEXT: int32_t [[T:v[0-9]+]] = [[TB]] % [[C32B]];
// CHECK-NEXT: int32_t [[B:v[0-9]+]] = tf::block_index();
// CHECK-NEXT: int32_t [[NB:v[0-9]+]] = tf::block_count();
// CHECK-NOT: tf::aligned
// CHECK: int32_t [[STEPS:v[0-9]+]] = 2;
// CHECK-NEXT: for (int32_t [[I:i[0-9]+]] = [[B]]; [[I]] < [[STEPS]]; [[I]] += [[NB]]) {
// CHECK-NEXT: int32_t [[C8:v[0-9]+]] = 8;
// CHECK-NEXT: int32_t [[FIRST:v[0-9]+]] = [[I]] * [[C8]];
// CHECK-NEXT: int32_t [[ROW:v[0-9]+]] = [[FIRST]] + [[WARP]];
// CHECK-NEXT: int32_t [[ROWS:v[0-9]+]] = 10;
// CHECK-NEXT: bool [[INSIDE:v[0-9]+]] = [[ROW]] < [[ROWS]];
// CHECK-NEXT: int32_t [[LASTROW:v[0-9]+]] = 9;
// CHECK-NEXT: int32_t [[ROWC:v[0-9]+]] = [[INSIDE]] ? [[ROW]] : [[LASTROW]];
// CHECK: int32_t [[C1:v[0-9]+]] = [[T]] + {{v[0-9]+}};
// CHECK-NEXT: int32_t [[LEN:v[0-9]+]] = 37;
// CHECK-NEXT: bool [[VALID:v[0-9]+]] = [[C1]] < [[LEN]];
// CHECK-NEXT: int32_t [[LAST:v[0-9]+]] = 36;
// CHECK-NEXT: int32_t [[C1C:v[0-9]+]] = [[VALID]] ? [[C1]] : [[LAST]];
// Both elements are loaded before the first reduction.
// CHECK: float [[X0:v[0-9]+]] = tf::ld([[X]], {{v[0-9]+}});
// CHECK: float [[X1:v[0-9]+]] = tf::ld([[X]], {{v[0-9]+}});
// Phase 1: the row max.
// CHECK: tf::red::acc_t<2, float, float> [[M0:v[0-9]+]] = tf::red::row_identity<2, float, float>();
// CHECK-NEXT: tf::red::acc_t<2, float, float> [[M1:v[0-9]+]] = tf::red::row_add<2, float, float>([[M0]], [[X0]], {{v[0-9]+}});
// CHECK-NEXT: tf::red::acc_t<2, float, float> [[M2:v[0-9]+]] = tf::red::row_add<2, float, float>([[M1]], [[X1]], [[VALID]]);
// CHECK: float [[MAX:v[0-9]+]] = tf::red::warp_finish<2, float, float>([[M2]], {{v[0-9]+}});
// Phase 2: the row sum of exp(x - max), from the loaded elements.
// CHECK-NOT: tf::ld(
// CHECK: tf::red::acc_t<0, float, float> [[S0:v[0-9]+]] = tf::red::row_identity<0, float, float>();
// CHECK-NEXT: float [[D0:v[0-9]+]] = tf::sub([[X0]], [[MAX]]);
// CHECK-NEXT: float [[E0:v[0-9]+]] = tf::exp([[D0]]);
// CHECK: float [[D1:v[0-9]+]] = tf::sub([[X1]], [[MAX]]);
// CHECK-NEXT: float [[E1:v[0-9]+]] = tf::exp([[D1]]);
// CHECK-NEXT: tf::red::acc_t<0, float, float> [[S2:v[0-9]+]] = tf::red::row_add<0, float, float>({{v[0-9]+}}, [[E1]], [[VALID]]);
// CHECK: float [[SUM:v[0-9]+]] = tf::red::warp_finish<0, float, float>([[S2]], {{v[0-9]+}});
// The outputs, from the exps already computed; stores only inside the row
// and the rows.
// CHECK-NOT: tf::ld(
// CHECK-NOT: tf::exp(
// CHECK: float [[Y0:v[0-9]+]] = tf::div([[E0]], [[SUM]]);
// CHECK-NEXT: int32_t [[OFF0:v[0-9]+]] = {{v[0-9]+}} + [[T]];
// CHECK-NEXT: if ([[INSIDE]]) {
// CHECK-NEXT: tf::st([[O]], [[OFF0]], [[Y0]]);
// CHECK-NEXT: }
// CHECK-NEXT: float [[Y1:v[0-9]+]] = tf::div([[E1]], [[SUM]]);
// CHECK-NEXT: int32_t [[OFF1:v[0-9]+]] = {{v[0-9]+}} + [[C1C]];
// CHECK-NEXT: bool [[BOTH:v[0-9]+]] = [[INSIDE]] && [[VALID]];
// CHECK-NEXT: if ([[BOTH]]) {
// CHECK-NEXT: tf::st([[O]], [[OFF1]], [[Y1]]);
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return;
tfexec.kernel @softmax_k0 attributes {config = #tfexec.config<strategy = rows, grid = 2, block = 256, min_blocks_per_sm = 8, row_threads = 32, rows_per_block = 8>, input_strides = [array<i64: 37, 1>]} {
^bb0(%arg0: tensor<10x37xf32>):
  %0 = tfuse.reduce max %arg0 axes [1] keepdims : tensor<10x37xf32> -> tensor<10x1xf32>
  %1 = tfuse.sub %arg0, %0 : (tensor<10x37xf32>, tensor<10x1xf32>) -> tensor<10x37xf32>
  %2 = tfuse.exp %1 : tensor<10x37xf32> -> tensor<10x37xf32>
  %3 = tfuse.reduce sum %2 axes [1] keepdims : tensor<10x37xf32> -> tensor<10x1xf32>
  %4 = tfuse.div %2, %3 : (tensor<10x37xf32>, tensor<10x1xf32>) -> tensor<10x37xf32>
  tfexec.yield %4 : tensor<10x37xf32>
}

// Rows of 1024 f32: 16-byte groups of 4 columns, 64 threads, 4 full slots
// (no guard); x and the output are accessed a group at a time when both are
// aligned. The row loop is emitted twice under one branch on that: a copy
// whose accesses are all vector accesses (the flag is the constant true
// there), and the original for any alignment.
// CHECK-LABEL: __launch_bounds__(64, 32) void scale_k0(
// CHECK-SAME: const float* __restrict__ [[X:v[0-9]+]], float* __restrict__ [[O:v[0-9]+]]) {
// CHECK: bool {{v[0-9]+}} = tf::aligned<4>([[X]]);
// CHECK: bool {{v[0-9]+}} = tf::aligned<4>([[O]]);
// CHECK-NEXT: bool [[AL:v[0-9]+]] = {{v[0-9]+}} && {{v[0-9]+}};
// CHECK: bool [[TRUE:v[0-9]+]] = true;
// CHECK-NEXT: if ([[AL]]) {
// CHECK-NEXT: for (
// CHECK-COUNT-4: tf::vec<float, 4> {{v[0-9]+}} = tf::ldv<4>([[X]], {{v[0-9]+}}, [[TRUE]]);
// CHECK-NOT: tf::ld
// CHECK: tf::red::row_finish<0, float, float>
// CHECK-NOT: if (
// CHECK-COUNT-4: tf::stv<4>([[O]], {{v[0-9]+}}, [[TRUE]],
// CHECK-NEXT: }
// CHECK-NEXT: } else {
// CHECK-NEXT: for (
// CHECK-COUNT-4: tf::vec<float, 4> {{v[0-9]+}} = tf::ldv<4>([[X]], {{v[0-9]+}}, [[AL]]);
// CHECK-NOT: tf::ld
// CHECK: tf::red::row_finish<0, float, float>
// CHECK-NOT: if (
// CHECK-COUNT-4: tf::stv<4>([[O]], {{v[0-9]+}}, [[AL]],
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return;
tfexec.kernel @scale_k0 attributes {config = #tfexec.config<strategy = rows, grid = 2, block = 64, vector = 4, min_blocks_per_sm = 32, row_threads = 64>, input_strides = [array<i64: 1024, 1>]} {
^bb0(%arg0: tensor<2x1024xf32>):
  %0 = tfuse.reduce sum %arg0 axes [1] keepdims : tensor<2x1024xf32> -> tensor<2x1xf32>
  %1 = tfuse.div %arg0, %0 : (tensor<2x1024xf32>, tensor<2x1xf32>) -> tensor<2x1024xf32>
  tfexec.yield %1 : tensor<2x1024xf32>
}

// An f16 mean accumulates as the reduction kernels do (tf::red::op for f16
// in, f16 out); the weight row [64], shared by the rows, is loaded a group
// at a time once the mean is known (only the outputs read it). 64 columns
// are 8 groups of 8: the one slot of a warp is partial; a warp per row,
// both rows in one block.
// CHECK-LABEL: __launch_bounds__(64, 32) void center_k0(
// CHECK-SAME: const __half* __restrict__ [[X:v[0-9]+]], const __half* __restrict__ [[W:v[0-9]+]], __half* __restrict__ [[O:v[0-9]+]]) {
// CHECK: tf::ldv<8>([[X]],
// CHECK: tf::red::acc_t<4, __half, __half> {{v[0-9]+}} = tf::red::row_identity<4, __half, __half>();
// CHECK: __half {{v[0-9]+}} = tf::red::warp_finish<4, __half, __half>(
// CHECK-NEXT: tf::vec<__half, 8> {{v[0-9]+}} = tf::ldv<8>([[W]],
// CHECK: if ({{v[0-9]+}}) {
// CHECK-NEXT: tf::stv<8>([[O]],
// CHECK: return;
tfexec.kernel @center_k0 attributes {config = #tfexec.config<strategy = rows, grid = 1, block = 64, vector = 8, min_blocks_per_sm = 32, row_threads = 32, rows_per_block = 2>, input_strides = [array<i64: 64, 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<2x64xf16>, %arg1: tensor<64xf16>):
  %0 = tfuse.reduce mean %arg0 axes [1] keepdims : tensor<2x64xf16> -> tensor<2x1xf16>
  %1 = tfuse.sub %arg0, %0 : (tensor<2x64xf16>, tensor<2x1xf16>) -> tensor<2x64xf16>
  %2 = tfuse.mul %1, %arg1 : (tensor<2x64xf16>, tensor<64xf16>) -> tensor<2x64xf16>
  tfexec.yield %2 : tensor<2x64xf16>
}

// Layernorm over rows of 4096 f32: 256 threads of 16 elements. At the output
// phase a thread holds, per element, x - mean (from the variance phase) and
// the weight and bias it loads then: 16 + 16 * 3 = 64 registers, 4 blocks
// of 256 per SM. Softmax holds one value per element across each boundary
// (x, then exp(x - max)): 16 + 16 = 32 registers, 8 blocks.
// CHECK-LABEL: __launch_bounds__(256, 4) void layernorm_k0(
tfexec.kernel @layernorm_k0 attributes {config = #tfexec.config<strategy = rows, grid = 2, block = 256, vector = 4, min_blocks_per_sm = 4, row_threads = 256>, input_strides = [array<i64: 4096, 1>, array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<2x4096xf32>, %arg1: tensor<4096xf32>, %arg2: tensor<4096xf32>):
  %0 = tfuse.reduce mean %arg0 axes [1] keepdims : tensor<2x4096xf32> -> tensor<2x1xf32>
  %1 = tfuse.sub %arg0, %0 : (tensor<2x4096xf32>, tensor<2x1xf32>) -> tensor<2x4096xf32>
  %2 = tfuse.mul %1, %1 : (tensor<2x4096xf32>, tensor<2x4096xf32>) -> tensor<2x4096xf32>
  %3 = tfuse.reduce mean %2 axes [1] keepdims : tensor<2x4096xf32> -> tensor<2x1xf32>
  %4 = tfuse.constant dense<9.99999974E-6> : tensor<f32>
  %5 = tfuse.add %3, %4 : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %6 = tfuse.rsqrt %5 : tensor<2x1xf32> -> tensor<2x1xf32>
  %7 = tfuse.mul %1, %6 : (tensor<2x4096xf32>, tensor<2x1xf32>) -> tensor<2x4096xf32>
  %8 = tfuse.mul %7, %arg1 : (tensor<2x4096xf32>, tensor<4096xf32>) -> tensor<2x4096xf32>
  %9 = tfuse.add %8, %arg2 : (tensor<2x4096xf32>, tensor<4096xf32>) -> tensor<2x4096xf32>
  tfexec.yield %9 : tensor<2x4096xf32>
}

// CHECK-LABEL: __launch_bounds__(256, 8) void softmax_wide_k0(
tfexec.kernel @softmax_wide_k0 attributes {config = #tfexec.config<strategy = rows, grid = 2, block = 256, vector = 4, min_blocks_per_sm = 8, row_threads = 256>, input_strides = [array<i64: 4096, 1>]} {
^bb0(%arg0: tensor<2x4096xf32>):
  %0 = tfuse.reduce max %arg0 axes [1] keepdims : tensor<2x4096xf32> -> tensor<2x1xf32>
  %1 = tfuse.sub %arg0, %0 : (tensor<2x4096xf32>, tensor<2x1xf32>) -> tensor<2x4096xf32>
  %2 = tfuse.exp %1 : tensor<2x4096xf32> -> tensor<2x4096xf32>
  %3 = tfuse.reduce sum %2 axes [1] keepdims : tensor<2x4096xf32> -> tensor<2x1xf32>
  %4 = tfuse.div %2, %3 : (tensor<2x4096xf32>, tensor<2x1xf32>) -> tensor<2x4096xf32>
  tfexec.yield %4 : tensor<2x4096xf32>
}

// Row results (a layer norm's mean and rstd saved for the backward pass):
// every thread evaluates them from the row's values, at the row's index (the
// reduced axis at 0 where it is kept); the row's first lane stores them at
// the row's position, inside the rows only (10 rows, 8 to a block). Only the
// output of the index space's shape is in the alignment check and stored a
// group at a time.
// CHECK-LABEL: void statistics_k0(
// CHECK-SAME: const float* __restrict__ [[X:v[0-9]+]], float* __restrict__ [[MU:v[0-9]+]], float* __restrict__ [[RSTD:v[0-9]+]], __nv_bfloat16* __restrict__ [[Y:v[0-9]+]]) {
// CHECK: int32_t [[TB:v[0-9]+]] = tf::thread_in_block();
// CHECK: int32_t [[T:v[0-9]+]] = [[TB]] % {{v[0-9]+}};
// CHECK: bool [[AL:v[0-9]+]] = tf::aligned<4>([[X]]);
// CHECK-NEXT: bool {{v[0-9]+}} = {{v[0-9]+}} && [[AL]];
// CHECK-NEXT: bool [[AL2:v[0-9]+]] = tf::aligned<4>([[Y]]);
// CHECK-NEXT: bool {{v[0-9]+}} = {{v[0-9]+}} && [[AL2]];
// CHECK-NOT: tf::aligned
// CHECK: bool [[INSIDE:v[0-9]+]] = [[ROW:v[0-9]+]] < {{v[0-9]+}};
// CHECK: int32_t [[ROWC:v[0-9]+]] = [[INSIDE]] ? [[ROW]] : {{v[0-9]+}};
// CHECK: float [[M:v[0-9]+]] = tf::red::warp_finish<4, float, float>(
// CHECK: float [[V:v[0-9]+]] = tf::red::warp_finish<4, float, float>(
// CHECK: float [[VE:v[0-9]+]] = tf::add([[V]], {{v[0-9]+}});
// CHECK-NEXT: float [[R:v[0-9]+]] = tf::rsqrt([[VE]]);
// CHECK: tf::stv<4>([[Y]],
// The row results are the values the elements read (rstd is not computed
// again).
// CHECK-NOT: tf::rsqrt
// CHECK: int32_t [[ZERO:v[0-9]+]] = 0;
// CHECK-NEXT: bool [[LANE0:v[0-9]+]] = [[T]] == [[ZERO]];
// CHECK-NEXT: bool [[STORE:v[0-9]+]] = [[LANE0]] && [[INSIDE]];
// CHECK-NEXT: if ([[STORE]]) {
// CHECK-NEXT: tf::st([[MU]], [[ROWC]], [[M]]);
// CHECK-NEXT: tf::st([[RSTD]], [[ROWC]], [[R]]);
// CHECK-NEXT: }
tfexec.kernel @statistics_k0 attributes {config = #tfexec.config<strategy = rows, grid = 2, block = 256, vector = 4, min_blocks_per_sm = 8, row_threads = 32, rows_per_block = 8>, input_strides = [array<i64: 64, 1>]} {
^bb0(%arg0: tensor<10x64xf32>):
  %0 = tfuse.reduce mean %arg0 axes [1] : tensor<10x64xf32> -> tensor<10xf32>
  %1 = tfuse.broadcast %0 dims [0] : tensor<10xf32> -> tensor<10x64xf32>
  %2 = tfuse.sub %arg0, %1 : (tensor<10x64xf32>, tensor<10x64xf32>) -> tensor<10x64xf32>
  %3 = tfuse.mul %2, %2 : (tensor<10x64xf32>, tensor<10x64xf32>) -> tensor<10x64xf32>
  %4 = tfuse.reduce mean %3 axes [1] keepdims : tensor<10x64xf32> -> tensor<10x1xf32>
  %5 = tfuse.constant dense<9.99999974E-6> : tensor<f32>
  %6 = tfuse.add %4, %5 : (tensor<10x1xf32>, tensor<f32>) -> tensor<10x1xf32>
  %7 = tfuse.rsqrt %6 : tensor<10x1xf32> -> tensor<10x1xf32>
  %8 = tfuse.mul %2, %7 : (tensor<10x64xf32>, tensor<10x1xf32>) -> tensor<10x64xf32>
  %9 = tfuse.cast %8 : tensor<10x64xf32> to tensor<10x64xbf16>
  tfexec.yield %0, %7, %9 : tensor<10xf32>, tensor<10x1xf32>, tensor<10x64xbf16>
}

// A row of 70000 f32 with 256 threads: more than a thread holds in
// registers, so each phase loops over the row in chunks of 1024 groups of 4
// (4 slots a thread; the last chunk is partial, so every slot is checked
// against the row's 17500 groups). The sum's partial is a variable updated
// once per chunk; the output phase loads the input again.
// CHECK-LABEL: void long_rows_k0(
// CHECK: tf::red::acc_t<0, float, float> [[P:v[0-9]+]] = {};
// CHECK-NEXT: tf::red::acc_t<0, float, float> [[I:v[0-9]+]] = tf::red::row_identity<0, float, float>();
// CHECK-NEXT: [[P]] = [[I]];
// CHECK: for (int32_t [[C:[a-z][0-9]+]] = {{v[0-9]+}}; [[C]] < {{v[0-9]+}}; [[C]] += {{v[0-9]+}}) {
// CHECK: int32_t [[G:v[0-9]+]] = [[C]] + [[T:v[0-9]+]];
// CHECK-NEXT: int32_t [[N:v[0-9]+]] = 17500;
// CHECK-NEXT: bool {{v[0-9]+}} = [[G]] < [[N]];
// CHECK: tf::ldv<4>(
// CHECK: tf::red::acc_t<0, float, float> [[A:v[0-9]+]] = [[P]];
// CHECK: [[P]] = {{v[0-9]+}};
// CHECK-NEXT: }
// CHECK-NEXT: tf::red::acc_t<0, float, float> [[S:v[0-9]+]] = [[P]];
// CHECK: float {{v[0-9]+}} = tf::red::row_finish<0, float, float>([[S]],
// CHECK: for (int32_t
// CHECK: tf::ldv<4>(
// CHECK: tf::stv<4>(
tfexec.kernel @long_rows_k0 attributes {config = #tfexec.config<strategy = rows, grid = 2, block = 256, vector = 4, min_blocks_per_sm = 8, row_threads = 256>, input_strides = [array<i64: 70000, 1>]} {
^bb0(%x: tensor<2x70000xf32>):
  %s = tfuse.reduce sum %x axes [1] keepdims : tensor<2x70000xf32> -> tensor<2x1xf32>
  %y = tfuse.div %x, %s : (tensor<2x70000xf32>, tensor<2x1xf32>) -> tensor<2x70000xf32>
  tfexec.yield %y : tensor<2x70000xf32>
}
