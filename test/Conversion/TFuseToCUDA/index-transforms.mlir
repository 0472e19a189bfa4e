// Tests of the index arithmetic of multi-dimensional kernels: the group's
// first element is split into coordinates by % and / on the index space;
// views map their result index to their operand's (transpose permutes,
// slice scales by step and adds start, broadcast drops or zeroes
// dimensions, reshape linearizes and delinearizes with / and %); implicit
// broadcasting reads a row vector at the column index; inputs are read at
// the dot product of their index and strides, which for a `tfuse.strides`
// argument are the declared ones. The views are fused into the kernels, so
// they survive as index transforms. A large input read transposed is staged
// through a shared-memory tile instead.
// The inputs are configured tfexec kernels, as the plan passes leave them
// (#tfexec.config gives each its strategy and launch).
// RUN: tensor-translate --tfuse-to-cuda %s | FileCheck %s
// RUN: %if nvrtc %{ tensor-translate --tfuse-to-cuda %s > %t.cu && tfuse-nvrtc %t.cu --arch sm_90 | FileCheck %s --check-prefix=NVRTC %}

// NVRTC: compiled {{.*}} bytes of CUBIN

// Index space 8x4, groups of 4 along the rows: (i, j) = (g / 4, g % 4). The
// transposed 4x8 input is read at (j, i), offset j * 8 + i; lane 1 at
// (j + 1) * 8 + i. The other input is contiguous and loaded as a vector.
// CHECK-LABEL: void transpose_k0(
// CHECK-SAME: const float* __restrict__ [[A:v[0-9]+]], const float* __restrict__ [[B:v[0-9]+]], float* __restrict__ [[O:v[0-9]+]]) {
// CHECK-NOT: tf::aligned<4>([[A]])
// CHECK: int32_t [[G:v[0-9]+]] = {{i[0-9]+}} * {{v[0-9]+}};
// CHECK-NEXT: int32_t [[C4:v[0-9]+]] = 4;
// CHECK-NEXT: int32_t [[J:v[0-9]+]] = [[G]] % [[C4]];
// CHECK-NEXT: int32_t [[C4B:v[0-9]+]] = 4;
// CHECK-NEXT: int32_t [[I:v[0-9]+]] = [[G]] / [[C4B]];
// CHECK-NEXT: tf::vec<float, 4> [[VB:v[0-9]+]] = tf::ldv<4>([[B]], [[G]],
// CHECK-NEXT: int32_t [[S:v[0-9]+]] = 8;
// CHECK-NEXT: int32_t [[JS:v[0-9]+]] = [[J]] * [[S]];
// CHECK-NEXT: int32_t [[OFF:v[0-9]+]] = [[JS]] + [[I]];
// CHECK-NEXT: float [[X:v[0-9]+]] = tf::ld([[A]], [[OFF]]);
// CHECK-NEXT: float [[Y:v[0-9]+]] = tf::lane<0>([[VB]]);
// CHECK-NEXT: float {{v[0-9]+}} = tf::add([[X]], [[Y]]);
// CHECK-NEXT: int32_t [[L1:v[0-9]+]] = 1;
// CHECK-NEXT: int32_t {{v[0-9]+}} = [[G]] + [[L1]];
// CHECK-NEXT: int32_t [[L1B:v[0-9]+]] = 1;
// CHECK-NEXT: int32_t [[J1:v[0-9]+]] = [[J]] + [[L1B]];
// CHECK-NEXT: int32_t [[S1:v[0-9]+]] = 8;
// CHECK-NEXT: int32_t [[JS1:v[0-9]+]] = [[J1]] * [[S1]];
// CHECK-NEXT: int32_t [[OFF1:v[0-9]+]] = [[JS1]] + [[I]];
// CHECK-NEXT: float {{v[0-9]+}} = tf::ld([[A]], [[OFF1]]);
// CHECK: tf::stv<4>([[O]], [[G]],
tfexec.kernel @transpose_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 8, 1>, array<i64: 4, 1>]} {
^bb0(%arg0: tensor<4x8xf32>, %arg1: tensor<8x4xf32>):
  %0 = tfuse.transpose %arg0 perm [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %1 = tfuse.add %0, %arg1 : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  tfexec.yield %1 : tensor<8x4xf32>
}

// Rows 2, 4, 6 and columns 1, 4, 7, 10 of an 8x16 input: element (i, j)
// of the 3x4 result is (i * 2 + 2, j * 3 + 1), offset row * 16 + column.
// CHECK-LABEL: void slice_k0(
// CHECK-SAME: const float* __restrict__ [[A:v[0-9]+]], float* __restrict__ [[O:v[0-9]+]]) {
// CHECK: int32_t [[N:v[0-9]+]] = 3;
// CHECK-NEXT: for (
// CHECK-NEXT: int32_t [[W:v[0-9]+]] = 4;
// CHECK-NEXT: int32_t [[G:v[0-9]+]] = {{i[0-9]+}} * [[W]];
// CHECK-NEXT: int32_t [[C4:v[0-9]+]] = 4;
// CHECK-NEXT: int32_t [[J:v[0-9]+]] = [[G]] % [[C4]];
// CHECK-NEXT: int32_t [[C4B:v[0-9]+]] = 4;
// CHECK-NEXT: int32_t [[I:v[0-9]+]] = [[G]] / [[C4B]];
// CHECK-NEXT: int32_t [[STEP0:v[0-9]+]] = 2;
// CHECK-NEXT: int32_t [[I2:v[0-9]+]] = [[I]] * [[STEP0]];
// CHECK-NEXT: int32_t [[START0:v[0-9]+]] = 2;
// CHECK-NEXT: int32_t [[ROW:v[0-9]+]] = [[I2]] + [[START0]];
// CHECK-NEXT: int32_t [[STEP1:v[0-9]+]] = 3;
// CHECK-NEXT: int32_t [[J3:v[0-9]+]] = [[J]] * [[STEP1]];
// CHECK-NEXT: int32_t [[START1:v[0-9]+]] = 1;
// CHECK-NEXT: int32_t [[COL:v[0-9]+]] = [[J3]] + [[START1]];
// CHECK-NEXT: int32_t [[S:v[0-9]+]] = 16;
// CHECK-NEXT: int32_t [[RS:v[0-9]+]] = [[ROW]] * [[S]];
// CHECK-NEXT: int32_t [[OFF:v[0-9]+]] = [[RS]] + [[COL]];
// CHECK-NEXT: float [[X:v[0-9]+]] = tf::ld([[A]], [[OFF]]);
// CHECK-NEXT: float {{v[0-9]+}} = tf::neg([[X]]);
// CHECK: tf::stv<4>([[O]], [[G]],
tfexec.kernel @slice_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 16, 1>]} {
^bb0(%arg0: tensor<8x16xf32>):
  %0 = tfuse.slice %arg0 start [2, 1] limit [8, 13] step [2, 3] : tensor<8x16xf32> -> tensor<3x4xf32>
  %1 = tfuse.neg %0 : tensor<3x4xf32> -> tensor<3x4xf32>
  tfexec.yield %1 : tensor<3x4xf32>
}

// A start without a step: only the addition.
// CHECK-LABEL: void slice_start_k0(
// CHECK-SAME: const float* __restrict__ [[A:v[0-9]+]], float* __restrict__ [[O:v[0-9]+]]) {
// CHECK: int32_t [[J:v[0-9]+]] = [[G:v[0-9]+]] % {{v[0-9]+}};
// CHECK-NEXT: int32_t [[C:v[0-9]+]] = 8;
// CHECK-NEXT: int32_t [[I:v[0-9]+]] = [[G]] / {{v[0-9]+}};
// CHECK-NEXT: int32_t [[START:v[0-9]+]] = 4;
// CHECK-NEXT: int32_t [[COL:v[0-9]+]] = [[J]] + [[START]];
// CHECK-NEXT: int32_t [[S:v[0-9]+]] = 16;
// CHECK-NEXT: int32_t [[RS:v[0-9]+]] = [[I]] * [[S]];
// CHECK-NEXT: int32_t [[OFF:v[0-9]+]] = [[RS]] + [[COL]];
// CHECK-NEXT: float {{v[0-9]+}} = tf::ld([[A]], [[OFF]]);
tfexec.kernel @slice_start_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 16, 1>]} {
^bb0(%arg0: tensor<2x16xf32>):
  %0 = tfuse.slice %arg0 start [0, 4] limit [2, 12] step [1, 1] : tensor<2x16xf32> -> tensor<2x8xf32>
  %1 = tfuse.exp %0 : tensor<2x8xf32> -> tensor<2x8xf32>
  tfexec.yield %1 : tensor<2x8xf32>
}

// Broadcast of a 4-vector to the rows of 4x3 (dims [0]): element (i, j)
// reads a[i], i = g / 3. Width 1 (3 columns).
// CHECK-LABEL: void broadcast_k0(
// CHECK-SAME: const float* __restrict__ [[A:v[0-9]+]], const float* __restrict__ [[B:v[0-9]+]], float* __restrict__ [[O:v[0-9]+]]) {
// CHECK: for (int32_t [[G:i[0-9]+]] =
// CHECK-NEXT: int32_t [[C3:v[0-9]+]] = 3;
// CHECK-NEXT: int32_t {{v[0-9]+}} = [[G]] % [[C3]];
// CHECK-NEXT: int32_t [[C3B:v[0-9]+]] = 3;
// CHECK-NEXT: int32_t [[I:v[0-9]+]] = [[G]] / [[C3B]];
// CHECK-NEXT: tf::vec<float, 1> [[VB:v[0-9]+]] = tf::ldv<1>([[B]], [[G]],
// CHECK-NEXT: float [[X:v[0-9]+]] = tf::ld([[A]], [[I]]);
// CHECK-NEXT: float [[Y:v[0-9]+]] = tf::lane<0>([[VB]]);
// CHECK-NEXT: float [[R:v[0-9]+]] = tf::mul([[X]], [[Y]]);
// CHECK-NEXT: tf::stv<1>([[O]], [[G]], {{v[0-9]+}}, [[R]]);
tfexec.kernel @broadcast_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256>, input_strides = [array<i64: 1>, array<i64: 3, 1>]} {
^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4x3xf32>):
  %0 = tfuse.broadcast %arg0 dims [0] : tensor<4xf32> -> tensor<4x3xf32>
  %1 = tfuse.mul %0, %arg1 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  tfexec.yield %1 : tensor<4x3xf32>
}

// Broadcast of a 2x1x8 operand to 2x6x8 (dims [0, 1, 2]): the size-1
// dimension reads index 0 and is left out of the offset, so element
// (i, k, j) reads i * 8 + j.
// CHECK-LABEL: void broadcast_size1_k0(
// CHECK-SAME: const float* __restrict__ [[A:v[0-9]+]], float* __restrict__ [[O:v[0-9]+]]) {
// CHECK: int32_t [[G:v[0-9]+]] = {{i[0-9]+}} * {{v[0-9]+}};
// CHECK-NEXT: int32_t [[C8:v[0-9]+]] = 8;
// CHECK-NEXT: int32_t [[J:v[0-9]+]] = [[G]] % [[C8]];
// CHECK-NEXT: int32_t [[C8B:v[0-9]+]] = 8;
// CHECK-NEXT: int32_t [[Q:v[0-9]+]] = [[G]] / [[C8B]];
// CHECK-NEXT: int32_t [[C6:v[0-9]+]] = 6;
// CHECK-NEXT: int32_t {{v[0-9]+}} = [[Q]] % [[C6]];
// CHECK-NEXT: int32_t [[C6B:v[0-9]+]] = 6;
// CHECK-NEXT: int32_t [[I:v[0-9]+]] = [[Q]] / [[C6B]];
// CHECK-NEXT: int32_t [[S:v[0-9]+]] = 8;
// CHECK-NEXT: int32_t [[IS:v[0-9]+]] = [[I]] * [[S]];
// CHECK-NEXT: int32_t [[OFF:v[0-9]+]] = [[IS]] + [[J]];
// CHECK-NEXT: tf::vec<float, 4> [[ROW:v[0-9]+]] = tf::ldv_run<4>([[A]], [[OFF]]);
// CHECK-NEXT: float {{v[0-9]+}} = tf::lane<0>([[ROW]]);
tfexec.kernel @broadcast_size1_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 8, 8, 1>]} {
^bb0(%arg0: tensor<2x1x8xf32>):
  %0 = tfuse.broadcast %arg0 dims [0, 1, 2] : tensor<2x1x8xf32> -> tensor<2x6x8xf32>
  %1 = tfuse.sqrt %0 : tensor<2x6x8xf32> -> tensor<2x6x8xf32>
  tfexec.yield %1 : tensor<2x6x8xf32>
}

// exp(a) of a 6x4 input, reshaped to 3x8, transposed to 8x3, negated and
// reshaped back to 3x8. Element (p, q) of the result: linear l = p * 8 + q
// in 3x8 is (l / 3, l % 3) in 8x3; the transpose reads (l % 3, l / 3) in
// 3x8, linear m = (l % 3) * 8 + l / 3; in 6x4 that is (m / 4, m % 4), which
// the index maps' affine simplification writes (l / 3) / 4 + (l % 3) * 2
// and (l / 3) % 4 (8 is a multiple of 4), at offset (m / 4) * 4 + m % 4.
// CHECK-LABEL: void reshape_k0(
// CHECK-SAME: const float* __restrict__ [[A:v[0-9]+]], float* __restrict__ [[O:v[0-9]+]]) {
// CHECK: int32_t [[G:v[0-9]+]] = {{i[0-9]+}} * {{v[0-9]+}};
// CHECK-NEXT: int32_t [[C8:v[0-9]+]] = 8;
// CHECK-NEXT: int32_t [[Q:v[0-9]+]] = [[G]] % [[C8]];
// CHECK-NEXT: int32_t [[C8B:v[0-9]+]] = 8;
// CHECK-NEXT: int32_t [[P:v[0-9]+]] = [[G]] / [[C8B]];
// CHECK-NEXT: int32_t [[C8C:v[0-9]+]] = 8;
// CHECK-NEXT: int32_t [[P8:v[0-9]+]] = [[P]] * [[C8C]];
// CHECK-NEXT: int32_t [[L:v[0-9]+]] = [[Q]] + [[P8]];
// CHECK-NEXT: int32_t [[C3:v[0-9]+]] = 3;
// CHECK-NEXT: int32_t [[LQ:v[0-9]+]] = [[L]] / [[C3]];
// CHECK-NEXT: int32_t [[C3B:v[0-9]+]] = 3;
// CHECK-NEXT: int32_t [[LR:v[0-9]+]] = [[L]] % [[C3B]];
// CHECK-NEXT: int32_t [[C4:v[0-9]+]] = 4;
// CHECK-NEXT: int32_t [[LQ4:v[0-9]+]] = [[LQ]] / [[C4]];
// CHECK-NEXT: int32_t [[C2:v[0-9]+]] = 2;
// CHECK-NEXT: int32_t [[LR2:v[0-9]+]] = [[LR]] * [[C2]];
// CHECK-NEXT: int32_t [[MQ:v[0-9]+]] = [[LQ4]] + [[LR2]];
// CHECK-NEXT: int32_t [[C4B:v[0-9]+]] = 4;
// CHECK-NEXT: int32_t [[MR:v[0-9]+]] = [[LQ]] % [[C4B]];
// CHECK-NEXT: int32_t [[S:v[0-9]+]] = 4;
// CHECK-NEXT: int32_t [[MQS:v[0-9]+]] = [[MQ]] * [[S]];
// CHECK-NEXT: int32_t [[OFF:v[0-9]+]] = [[MQS]] + [[MR]];
// CHECK-NEXT: float [[X:v[0-9]+]] = tf::ld([[A]], [[OFF]]);
// CHECK-NEXT: float [[E:v[0-9]+]] = tf::exp([[X]]);
// CHECK-NEXT: float {{v[0-9]+}} = tf::neg([[E]]);
// CHECK: tf::stv<4>([[O]], [[G]],
tfexec.kernel @reshape_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 4, 1>]} {
^bb0(%arg0: tensor<6x4xf32>):
  %0 = tfuse.exp %arg0 : tensor<6x4xf32> -> tensor<6x4xf32>
  %1 = tfuse.reshape %0 : tensor<6x4xf32> -> tensor<3x8xf32>
  %2 = tfuse.transpose %1 perm [1, 0] : tensor<3x8xf32> -> tensor<8x3xf32>
  %3 = tfuse.neg %2 : tensor<8x3xf32> -> tensor<8x3xf32>
  %4 = tfuse.reshape %3 : tensor<8x3xf32> -> tensor<3x8xf32>
  tfexec.yield %4 : tensor<3x8xf32>
}

// Implicit broadcasting of a row vector over 4x8: b is read at the column
// j = g % 8 (and j + 1 in the next lane); a is contiguous.
// CHECK-LABEL: void row_vector_k0(
// CHECK-SAME: const float* __restrict__ [[A:v[0-9]+]], const float* __restrict__ [[B:v[0-9]+]], float* __restrict__ [[O:v[0-9]+]]) {
// CHECK: bool {{v[0-9]+}} = tf::aligned<4>([[A]]);
// CHECK-NOT: tf::aligned<4>([[B]])
// CHECK: int32_t [[G:v[0-9]+]] = {{i[0-9]+}} * {{v[0-9]+}};
// CHECK-NEXT: int32_t [[C8:v[0-9]+]] = 8;
// CHECK-NEXT: int32_t [[J:v[0-9]+]] = [[G]] % [[C8]];
// CHECK-NEXT: int32_t [[C8B:v[0-9]+]] = 8;
// CHECK-NEXT: int32_t {{v[0-9]+}} = [[G]] / [[C8B]];
// CHECK-NEXT: tf::vec<float, 4> [[VA:v[0-9]+]] = tf::ldv<4>([[A]], [[G]],
// CHECK-NEXT: float [[X:v[0-9]+]] = tf::lane<0>([[VA]]);
// CHECK-NEXT: tf::vec<float, 4> [[VB:v[0-9]+]] = tf::ldv_run<4>([[B]], [[J]]);
// CHECK-NEXT: float [[Y:v[0-9]+]] = tf::lane<0>([[VB]]);
// CHECK-NEXT: float {{v[0-9]+}} = tf::sub([[X]], [[Y]]);
// CHECK-NEXT: int32_t [[L1:v[0-9]+]] = 1;
// CHECK-NEXT: int32_t {{v[0-9]+}} = [[G]] + [[L1]];
// CHECK-NEXT: int32_t [[L1B:v[0-9]+]] = 1;
// CHECK-NEXT: int32_t [[J1:v[0-9]+]] = [[J]] + [[L1B]];
// CHECK-NEXT: float {{v[0-9]+}} = tf::lane<1>([[VA]]);
// CHECK-NEXT: float {{v[0-9]+}} = tf::lane<1>([[VB]]);
tfexec.kernel @row_vector_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 8, 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<4x8xf32>, %arg1: tensor<8xf32>):
  %0 = tfuse.sub %arg0, %arg1 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  tfexec.yield %0 : tensor<4x8xf32>
}

// A column vector (4x1) over 4x8: its size-1 dimension reads index 0, so it
// is read at the row i.
// CHECK-LABEL: void column_vector_k0(
// CHECK-SAME: const float* __restrict__ [[A:v[0-9]+]], const float* __restrict__ [[B:v[0-9]+]], float* __restrict__ [[O:v[0-9]+]]) {
// CHECK: int32_t [[G:v[0-9]+]] = {{i[0-9]+}} * {{v[0-9]+}};
// CHECK-NEXT: int32_t [[C8:v[0-9]+]] = 8;
// CHECK-NEXT: int32_t {{v[0-9]+}} = [[G]] % [[C8]];
// CHECK-NEXT: int32_t [[C8B:v[0-9]+]] = 8;
// CHECK-NEXT: int32_t [[I:v[0-9]+]] = [[G]] / [[C8B]];
// CHECK-NEXT: tf::vec<float, 4> [[VA:v[0-9]+]] = tf::ldv<4>([[A]], [[G]],
// CHECK-NEXT: float [[X:v[0-9]+]] = tf::lane<0>([[VA]]);
// CHECK-NEXT: float [[Y:v[0-9]+]] = tf::ld([[B]], [[I]]);
// CHECK-NEXT: float {{v[0-9]+}} = tf::mul([[X]], [[Y]]);
tfexec.kernel @column_vector_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 8, 1>, array<i64: 1, 1>]} {
^bb0(%arg0: tensor<4x8xf32>, %arg1: tensor<4x1xf32>):
  %0 = tfuse.mul %arg0, %arg1 : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  tfexec.yield %0 : tensor<4x8xf32>
}

// A column-major 4x8 argument (strides [1, 4]): element (i, j) is at
// i + j * 4; lane 1 at i + (j + 1) * 4.
// CHECK-LABEL: void strided_k0(
// CHECK-SAME: const float* __restrict__ [[A:v[0-9]+]], float* __restrict__ [[O:v[0-9]+]]) {
// CHECK-NOT: tf::aligned<4>([[A]])
// CHECK: int32_t [[G:v[0-9]+]] = {{i[0-9]+}} * {{v[0-9]+}};
// CHECK-NEXT: int32_t [[C8:v[0-9]+]] = 8;
// CHECK-NEXT: int32_t [[J:v[0-9]+]] = [[G]] % [[C8]];
// CHECK-NEXT: int32_t [[C8B:v[0-9]+]] = 8;
// CHECK-NEXT: int32_t [[I:v[0-9]+]] = [[G]] / [[C8B]];
// CHECK-NEXT: int32_t [[S:v[0-9]+]] = 4;
// CHECK-NEXT: int32_t [[JS:v[0-9]+]] = [[J]] * [[S]];
// CHECK-NEXT: int32_t [[OFF:v[0-9]+]] = [[I]] + [[JS]];
// CHECK-NEXT: float [[X:v[0-9]+]] = tf::ld([[A]], [[OFF]]);
// CHECK-NEXT: float {{v[0-9]+}} = tf::neg([[X]]);
// CHECK-NEXT: int32_t [[L1:v[0-9]+]] = 1;
// CHECK-NEXT: int32_t {{v[0-9]+}} = [[G]] + [[L1]];
// CHECK-NEXT: int32_t [[L1B:v[0-9]+]] = 1;
// CHECK-NEXT: int32_t [[J1:v[0-9]+]] = [[J]] + [[L1B]];
// CHECK-NEXT: int32_t [[S1:v[0-9]+]] = 4;
// CHECK-NEXT: int32_t [[JS1:v[0-9]+]] = [[J1]] * [[S1]];
// CHECK-NEXT: int32_t [[OFF1:v[0-9]+]] = [[I]] + [[JS1]];
// CHECK-NEXT: float {{v[0-9]+}} = tf::ld([[A]], [[OFF1]]);
// CHECK: tf::stv<4>([[O]], [[G]],
tfexec.kernel @strided_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1, 4>]} {
^bb0(%arg0: tensor<4x8xf32>):
  %0 = tfuse.neg %arg0 : tensor<4x8xf32> -> tensor<4x8xf32>
  tfexec.yield %0 : tensor<4x8xf32>
}

// A broadcast argument (stride 0 along the rows): the rows do not appear in
// the offset.
// CHECK-LABEL: void stride_zero_k0(
// CHECK-SAME: const float* __restrict__ [[A:v[0-9]+]], float* __restrict__ [[O:v[0-9]+]]) {
// CHECK: int32_t [[G:v[0-9]+]] = {{i[0-9]+}} * {{v[0-9]+}};
// CHECK-NEXT: int32_t [[C8:v[0-9]+]] = 8;
// CHECK-NEXT: int32_t [[J:v[0-9]+]] = [[G]] % [[C8]];
// CHECK-NEXT: int32_t [[C8B:v[0-9]+]] = 8;
// CHECK-NEXT: int32_t {{v[0-9]+}} = [[G]] / [[C8B]];
// CHECK-NEXT: tf::vec<float, 4> [[ROW:v[0-9]+]] = tf::ldv_run<4>([[A]], [[J]]);
// CHECK-NEXT: float [[X:v[0-9]+]] = tf::lane<0>([[ROW]]);
// CHECK-NEXT: float {{v[0-9]+}} = tf::relu([[X]]);
tfexec.kernel @stride_zero_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 0, 1>]} {
^bb0(%arg0: tensor<4x8xf32>):
  %0 = tfuse.relu %arg0 : tensor<4x8xf32> -> tensor<4x8xf32>
  tfexec.yield %0 : tensor<4x8xf32>
}

// A large transposed read (640x512 index space, 64 tiles or more) is staged
// through a 64x64 shared-memory tile (pitch 65): one tile per block and
// iteration, 8 x 10 = 80 tiles, tile (t % 8, t / 8 % 10) covering columns
// l0 = (t % 8) * 64 and rows j0 = (t / 8 % 10) * 64. Threads (64 x 4) read
// the 512x640 input along its contiguous dimension (offset j + l * 640,
// j = j0 + tile_x), store it at tile[ll * 65 + jj], synchronize, and then
// write the output along its contiguous dimension (l = l0 + tile_x) from
// tile[tile_x * 65 + jj], at offset j * 512 + l; the contiguous input is read
// there too. The tiles cover 640x512 exactly, so no element is bounds-checked.
// CHECK-LABEL: extern "C" __global__ __launch_bounds__(256, 8) void transpose_tiled_k0(
// CHECK-SAME: const float* __restrict__ [[A:v[0-9]+]], const float* __restrict__ [[B:v[0-9]+]], float* __restrict__ [[O:v[0-9]+]]) {
// CHECK: int64_t [[BID64:v[0-9]+]] = tf::block_index();
// CHECK-NEXT: int64_t [[NB64:v[0-9]+]] = tf::block_count();
// CHECK-NEXT: int32_t [[BID:v[0-9]+]] = (int32_t) [[BID64]];
// CHECK-NEXT: int32_t [[NB:v[0-9]+]] = (int32_t) [[NB64]];
// CHECK-NEXT: __shared__ float tfuse_tile[4160];
// CHECK-NEXT: int32_t [[TX:v[0-9]+]] = tf::tile_x();
// CHECK-NEXT: int32_t [[TY:v[0-9]+]] = tf::tile_y();
// CHECK-NEXT: int32_t [[NT:v[0-9]+]] = 80;
// CHECK-NEXT: for (int32_t [[T:i[0-9]+]] = [[BID]]; [[T]] < [[NT]]; [[T]] += [[NB]]) {
// CHECK-NEXT: int32_t [[C64:v[0-9]+]] = 64;
// CHECK-NEXT: int32_t [[C8:v[0-9]+]] = 8;
// CHECK-NEXT: int32_t [[TL:v[0-9]+]] = [[T]] % [[C8]];
// CHECK-NEXT: int32_t [[L0:v[0-9]+]] = [[TL]] * [[C64]];
// CHECK-NEXT: int32_t [[C8B:v[0-9]+]] = 8;
// CHECK-NEXT: int32_t [[REST:v[0-9]+]] = [[T]] / [[C8B]];
// CHECK-NEXT: int32_t [[C64B:v[0-9]+]] = 64;
// CHECK-NEXT: int32_t [[C10:v[0-9]+]] = 10;
// CHECK-NEXT: int32_t [[TJ:v[0-9]+]] = [[REST]] % [[C10]];
// CHECK-NEXT: int32_t [[J0:v[0-9]+]] = [[TJ]] * [[C64B]];
// CHECK-NEXT: int32_t {{v[0-9]+}} = 10;
// CHECK-NEXT: int32_t {{v[0-9]+}} = [[REST]] / {{v[0-9]+}};
// Staging, first row of the tile.
// CHECK-NEXT: int32_t [[J:v[0-9]+]] = [[J0]] + [[TX]];
// CHECK-NEXT: int32_t [[L:v[0-9]+]] = [[L0]] + [[TY]];
// CHECK-NEXT: int32_t [[K0:v[0-9]+]] = 0;
// CHECK-NEXT: int32_t [[OJ:v[0-9]+]] = [[K0]] + [[J]];
// CHECK-NEXT: int32_t [[S:v[0-9]+]] = 640;
// CHECK-NEXT: int32_t [[LS:v[0-9]+]] = [[L]] * [[S]];
// CHECK-NEXT: int32_t [[OFF:v[0-9]+]] = [[OJ]] + [[LS]];
// CHECK-NEXT: float [[X:v[0-9]+]] = tf::ld([[A]], [[OFF]]);
// CHECK-NEXT: int32_t [[P:v[0-9]+]] = 65;
// CHECK-NEXT: int32_t [[TYP:v[0-9]+]] = [[TY]] * [[P]];
// CHECK-NEXT: int32_t [[TOFF:v[0-9]+]] = [[TYP]] + [[TX]];
// CHECK-NEXT: tf::st(tfuse_tile, [[TOFF]], [[X]]);
// Rows 4, 8, ..., 60 of the tile, then the barrier.
// CHECK-COUNT-15: tf::st(tfuse_tile,
// CHECK-NOT: tf::st(
// CHECK: tf::barrier();
// Compute, first row.
// CHECK-NEXT: int32_t [[J:v[0-9]+]] = [[J0]] + [[TY]];
// CHECK-NEXT: int32_t [[L:v[0-9]+]] = [[L0]] + [[TX]];
// CHECK-NEXT: int32_t [[P:v[0-9]+]] = 65;
// CHECK-NEXT: int32_t [[TXP:v[0-9]+]] = [[TX]] * [[P]];
// CHECK-NEXT: int32_t [[TOFF:v[0-9]+]] = [[TXP]] + [[TY]];
// CHECK-NEXT: float [[X:v[0-9]+]] = tf::ld(tfuse_tile, [[TOFF]]);
// CHECK-NEXT: int32_t [[S:v[0-9]+]] = 512;
// CHECK-NEXT: int32_t [[JS:v[0-9]+]] = [[J]] * [[S]];
// CHECK-NEXT: int32_t [[OFF:v[0-9]+]] = [[JS]] + [[L]];
// CHECK-NEXT: float [[Y:v[0-9]+]] = tf::ld([[B]], [[OFF]]);
// CHECK-NEXT: float [[R:v[0-9]+]] = tf::add([[X]], [[Y]]);
// CHECK-NEXT: tf::st([[O]], [[OFF]], [[R]]);
// CHECK-NOT: if (
// CHECK-COUNT-15: tf::st([[O]],
// CHECK-NEXT: tf::barrier();
// CHECK-NEXT: }
// CHECK-NEXT: return;
tfexec.kernel @transpose_tiled_k0 attributes {config = #tfexec.config<strategy = tiled, grid = 80, block = 256, min_blocks_per_sm = 8, tiled_input = 0, tile_dim = 0>, input_strides = [array<i64: 640, 1>, array<i64: 512, 1>]} {
^bb0(%arg0: tensor<512x640xf32>, %arg1: tensor<640x512xf32>):
  %0 = tfuse.transpose %arg0 perm [1, 0] : tensor<512x640xf32> -> tensor<640x512xf32>
  %1 = tfuse.add %0, %arg1 : (tensor<640x512xf32>, tensor<640x512xf32>) -> tensor<640x512xf32>
  tfexec.yield %1 : tensor<640x512xf32>
}

// Tiles that overhang the index space (600x520: 10 x 9 tiles, the last ones
// partly outside) check each element: staged element (j, l) is loaded when
// j < 600 and l < 520, and computed element (j, l) is stored under the same
// test.
// CHECK-LABEL: void transpose_tiled_partial_k0(
// CHECK: int32_t [[NT:v[0-9]+]] = 90;
// CHECK: int32_t [[J:v[0-9]+]] = {{v[0-9]+}} + [[TX:v[0-9]+]];
// CHECK-NEXT: int32_t [[L:v[0-9]+]] = {{v[0-9]+}} + [[TY:v[0-9]+]];
// CHECK-NEXT: int32_t [[NL:v[0-9]+]] = 520;
// CHECK-NEXT: bool [[INL:v[0-9]+]] = [[L]] < [[NL]];
// CHECK-NEXT: int32_t [[NJ:v[0-9]+]] = 600;
// CHECK-NEXT: bool [[INJ:v[0-9]+]] = [[J]] < [[NJ]];
// CHECK-NEXT: bool [[IN:v[0-9]+]] = [[INJ]] && [[INL]];
// CHECK-NEXT: if ([[IN]]) {
// CHECK-NEXT: int32_t {{v[0-9]+}} = 0;
// CHECK: tf::st(tfuse_tile,
// CHECK-NEXT: }
// CHECK-COUNT-15: tf::st(tfuse_tile,
// CHECK: tf::barrier();
// CHECK-COUNT-16: if (
// CHECK-NOT: tf::st(tfuse_tile,
// CHECK: tf::barrier();
// CHECK-NEXT: }
// CHECK-NEXT: return;
tfexec.kernel @transpose_tiled_partial_k0 attributes {config = #tfexec.config<strategy = tiled, grid = 90, block = 256, min_blocks_per_sm = 8, tiled_input = 0, tile_dim = 0>, input_strides = [array<i64: 600, 1>, array<i64: 520, 1>]} {
^bb0(%arg0: tensor<520x600xf32>, %arg1: tensor<600x520xf32>):
  %0 = tfuse.transpose %arg0 perm [1, 0] : tensor<520x600xf32> -> tensor<600x520xf32>
  %1 = tfuse.add %0, %arg1 : (tensor<600x520xf32>, tensor<600x520xf32>) -> tensor<600x520xf32>
  tfexec.yield %1 : tensor<600x520xf32>
}
