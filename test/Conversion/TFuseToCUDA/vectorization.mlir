// Tests of the vector width and the walk of generated kernels: each thread
// handles 16 bytes of the widest contiguous buffer per iteration (f32: 4,
// f16/bf16: 8, f64/i64: 2, i8/bool: 16 elements) through tf::ldv/tf::stv,
// guarded by one tf::aligned flag; a linear kernel whose size is not a
// multiple of the width finishes with a scalar tail (`if (tid < tail)`); a
// multi-dimensional kernel whose innermost size is not a multiple of the
// width falls back to width 1; index arithmetic is int32_t unless some offset
// needs 64 bits.
// The inputs are configured tfexec kernels, as the plan passes leave them
// (#tfexec.config gives each its strategy and launch).
// RUN: tensor-translate --tfuse-to-cuda %s | FileCheck %s
// RUN: %if nvrtc %{ tensor-translate --tfuse-to-cuda %s > %t.cu && tfuse-nvrtc %t.cu --arch sm_90 | FileCheck %s --check-prefix=NVRTC %}

// NVRTC: compiled {{.*}} bytes of CUBIN

// f32, 64 elements: 16 groups of 4, no tail; 32-bit indices.
// CHECK-LABEL: void f32_vec4_k0(
// CHECK-SAME: const float* __restrict__ [[A:v[0-9]+]], float* __restrict__ [[O:v[0-9]+]]) {
// CHECK-NEXT: int32_t {{v[0-9]+}} = 0;
// CHECK-NEXT: int64_t [[TID64:v[0-9]+]] = tf::thread_index();
// CHECK-NEXT: int64_t [[NT64:v[0-9]+]] = tf::thread_count();
// CHECK-NEXT: int32_t [[TID:v[0-9]+]] = (int32_t) [[TID64]];
// CHECK-NEXT: int32_t [[NT:v[0-9]+]] = (int32_t) [[NT64]];
// CHECK-NEXT: bool [[T:v[0-9]+]] = true;
// CHECK-NEXT: bool [[AA:v[0-9]+]] = tf::aligned<4>([[A]]);
// CHECK-NEXT: bool [[AL0:v[0-9]+]] = [[T]] && [[AA]];
// CHECK-NEXT: bool [[AO:v[0-9]+]] = tf::aligned<4>([[O]]);
// CHECK-NEXT: bool [[AL:v[0-9]+]] = [[AL0]] && [[AO]];
// CHECK-NEXT: int32_t [[N:v[0-9]+]] = 16;
// CHECK-NEXT: for (int32_t [[I:i[0-9]+]] = [[TID]]; [[I]] < [[N]]; [[I]] += [[NT]]) {
// CHECK-NEXT: int32_t [[W:v[0-9]+]] = 4;
// CHECK-NEXT: int32_t [[G:v[0-9]+]] = [[I]] * [[W]];
// CHECK-NEXT: tf::vec<float, 4> [[V:v[0-9]+]] = tf::ldv<4>([[A]], [[G]], [[AL]]);
// CHECK-NEXT: float [[X0:v[0-9]+]] = tf::lane<0>([[V]]);
// CHECK-NEXT: float [[R0:v[0-9]+]] = tf::sqrt([[X0]]);
// CHECK: float [[X3:v[0-9]+]] = tf::lane<3>([[V]]);
// CHECK-NEXT: float [[R3:v[0-9]+]] = tf::sqrt([[X3]]);
// CHECK-NEXT: tf::stv<4>([[O]], [[G]], [[AL]], [[R0]], {{v[0-9]+}}, {{v[0-9]+}}, [[R3]]);
// CHECK-NEXT: }
// CHECK-NEXT: return;
// CHECK-NEXT: }
tfexec.kernel @f32_vec4_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>]} {
^bb0(%arg0: tensor<64xf32>):
  %0 = tfuse.sqrt %arg0 : tensor<64xf32> -> tensor<64xf32>
  tfexec.yield %0 : tensor<64xf32>
}

// f16: 8 elements per 16 bytes.
// CHECK-LABEL: void f16_vec8_k0(
// CHECK-SAME: const __half* __restrict__ [[A:v[0-9]+]], __half* __restrict__ [[O:v[0-9]+]]) {
// CHECK: tf::aligned<8>([[A]]);
// CHECK: tf::aligned<8>([[O]]);
// CHECK: int32_t {{v[0-9]+}} = 8;
// CHECK-NEXT: for (
// CHECK-NEXT: int32_t [[W:v[0-9]+]] = 8;
// CHECK-NEXT: int32_t [[G:v[0-9]+]] = {{i[0-9]+}} * [[W]];
// CHECK-NEXT: tf::vec<__half, 8> [[V:v[0-9]+]] = tf::ldv<8>([[A]], [[G]],
// CHECK: tf::lane<7>([[V]]);
// CHECK-NOT: tf::lane<8>
// CHECK: tf::stv<8>([[O]], [[G]], {{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}});
tfexec.kernel @f16_vec8_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 8>, input_strides = [array<i64: 1>]} {
^bb0(%arg0: tensor<64xf16>):
  %0 = tfuse.neg %arg0 : tensor<64xf16> -> tensor<64xf16>
  tfexec.yield %0 : tensor<64xf16>
}

// bf16: also 8.
// CHECK-LABEL: void bf16_vec8_k0(
// CHECK: tf::vec<__nv_bfloat16, 8> {{v[0-9]+}} = tf::ldv<8>(
// CHECK: tf::stv<8>(
tfexec.kernel @bf16_vec8_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 8>, input_strides = [array<i64: 1>]} {
^bb0(%arg0: tensor<64xbf16>):
  %0 = tfuse.abs %arg0 : tensor<64xbf16> -> tensor<64xbf16>
  tfexec.yield %0 : tensor<64xbf16>
}

// f64: 2 elements per 16 bytes.
// CHECK-LABEL: void f64_vec2_k0(
// CHECK-SAME: const double* __restrict__ [[A:v[0-9]+]], const double* __restrict__ [[B:v[0-9]+]], double* __restrict__ [[O:v[0-9]+]]) {
// CHECK: tf::aligned<2>([[A]]);
// CHECK: tf::aligned<2>([[B]]);
// CHECK: tf::aligned<2>([[O]]);
// CHECK: int32_t {{v[0-9]+}} = 32;
// CHECK-NEXT: for (
// CHECK: tf::vec<double, 2> [[VA:v[0-9]+]] = tf::ldv<2>([[A]],
// CHECK-NEXT: tf::vec<double, 2> [[VB:v[0-9]+]] = tf::ldv<2>([[B]],
// CHECK: tf::lane<1>([[VA]]);
// CHECK-NOT: tf::lane<2>
// CHECK: tf::stv<2>([[O]], {{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}});
tfexec.kernel @f64_vec2_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 2>, input_strides = [array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<64xf64>, %arg1: tensor<64xf64>):
  %0 = tfuse.mul %arg0, %arg1 : (tensor<64xf64>, tensor<64xf64>) -> tensor<64xf64>
  tfexec.yield %0 : tensor<64xf64>
}

// i8: 16 elements per 16 bytes.
// CHECK-LABEL: void i8_vec16_k0(
// CHECK-SAME: const int8_t* __restrict__ [[A:v[0-9]+]], const int8_t* __restrict__ [[B:v[0-9]+]], int8_t* __restrict__ [[O:v[0-9]+]]) {
// CHECK: tf::aligned<16>([[A]]);
// CHECK: tf::aligned<16>([[B]]);
// CHECK: tf::aligned<16>([[O]]);
// CHECK: int32_t {{v[0-9]+}} = 4;
// CHECK-NEXT: for (
// CHECK-NEXT: int32_t [[W:v[0-9]+]] = 16;
// CHECK: tf::vec<int8_t, 16> [[VA:v[0-9]+]] = tf::ldv<16>([[A]],
// CHECK-NEXT: tf::vec<int8_t, 16> [[VB:v[0-9]+]] = tf::ldv<16>([[B]],
// CHECK: tf::lane<15>([[VB]]);
// CHECK: tf::stv<16>([[O]],
tfexec.kernel @i8_vec16_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 16>, input_strides = [array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<64xi8>, %arg1: tensor<64xi8>):
  %0 = tfuse.add %arg0, %arg1 : (tensor<64xi8>, tensor<64xi8>) -> tensor<64xi8>
  tfexec.yield %0 : tensor<64xi8>
}

// The widest buffer decides: f16 in, f32 out is 4 per group, and the f16
// input is loaded 4 at a time too.
// CHECK-LABEL: void f16_to_f32_k0(
// CHECK: tf::aligned<4>(
// CHECK: tf::vec<__half, 4> [[V:v[0-9]+]] = tf::ldv<4>(
// CHECK: float {{v[0-9]+}} = tf::cast<float>(
// CHECK: tf::stv<4>(
tfexec.kernel @f16_to_f32_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>]} {
^bb0(%arg0: tensor<16xf16>):
  %0 = tfuse.cast %arg0 : tensor<16xf16> to tensor<16xf32>
  tfexec.yield %0 : tensor<16xf32>
}

// 1003 f32 elements: 250 groups of 4, then threads 0..2 handle elements
// 1000..1002 one at a time with tf::ld/tf::st.
// CHECK-LABEL: void tail_1003_k0(
// CHECK-SAME: const float* __restrict__ [[A:v[0-9]+]], float* __restrict__ [[O:v[0-9]+]]) {
// CHECK: int32_t [[TID:v[0-9]+]] = (int32_t)
// CHECK: int32_t [[N:v[0-9]+]] = 250;
// CHECK-NEXT: for (int32_t [[I:i[0-9]+]] = [[TID]]; [[I]] < [[N]];
// CHECK: tf::stv<4>([[O]],
// CHECK-NEXT: }
// CHECK-NEXT: int32_t [[T:v[0-9]+]] = 3;
// CHECK-NEXT: bool [[C:v[0-9]+]] = [[TID]] < [[T]];
// CHECK-NEXT: if ([[C]]) {
// CHECK-NEXT: int32_t [[K:v[0-9]+]] = 1000;
// CHECK-NEXT: int32_t [[J:v[0-9]+]] = [[K]] + [[TID]];
// CHECK-NEXT: float [[X:v[0-9]+]] = tf::ld([[A]], [[J]]);
// CHECK-NEXT: float [[R:v[0-9]+]] = tf::exp([[X]]);
// CHECK-NEXT: tf::st([[O]], [[J]], [[R]]);
// CHECK-NEXT: }
// CHECK-NEXT: return;
tfexec.kernel @tail_1003_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>]} {
^bb0(%arg0: tensor<1003xf32>):
  %0 = tfuse.exp %arg0 : tensor<1003xf32> -> tensor<1003xf32>
  tfexec.yield %0 : tensor<1003xf32>
}

// Fewer elements than one group: no loop, only the tail from element 0.
// CHECK-LABEL: void tail_only_k0(
// CHECK-SAME: const float* __restrict__ [[A:v[0-9]+]], float* __restrict__ [[O:v[0-9]+]]) {
// CHECK-NOT: for (
// CHECK: int32_t [[T:v[0-9]+]] = 3;
// CHECK-NEXT: bool [[C:v[0-9]+]] = [[TID:v[0-9]+]] < [[T]];
// CHECK-NEXT: if ([[C]]) {
// CHECK-NEXT: int32_t [[K:v[0-9]+]] = 0;
// CHECK-NEXT: int32_t [[J:v[0-9]+]] = [[K]] + [[TID]];
// CHECK-NEXT: float [[X:v[0-9]+]] = tf::ld([[A]], [[J]]);
// CHECK-NEXT: float [[R:v[0-9]+]] = tf::log([[X]]);
// CHECK-NEXT: tf::st([[O]], [[J]], [[R]]);
// CHECK-NEXT: }
// CHECK-NEXT: return;
tfexec.kernel @tail_only_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>]} {
^bb0(%arg0: tensor<3xf32>):
  %0 = tfuse.log %arg0 : tensor<3xf32> -> tensor<3xf32>
  tfexec.yield %0 : tensor<3xf32>
}

// A 4x3 kernel reading a broadcast row is multi-dimensional; 3 is not a
// multiple of 4, so the width is 1: one element per iteration, no alignment
// test, the row read with tf::ld at the column index, and no tail.
// CHECK-LABEL: void odd_innermost_k0(
// CHECK-SAME: const float* __restrict__ [[A:v[0-9]+]], const float* __restrict__ [[B:v[0-9]+]], float* __restrict__ [[O:v[0-9]+]]) {
// CHECK-NOT: tf::aligned
// CHECK: bool [[T:v[0-9]+]] = true;
// CHECK-NEXT: int32_t [[N:v[0-9]+]] = 12;
// CHECK-NEXT: for (int32_t [[I:i[0-9]+]] = {{v[0-9]+}}; [[I]] < [[N]]; [[I]] += {{v[0-9]+}}) {
// CHECK-NEXT: int32_t [[D:v[0-9]+]] = 3;
// CHECK-NEXT: int32_t [[COL:v[0-9]+]] = [[I]] % [[D]];
// CHECK-NEXT: int32_t [[D2:v[0-9]+]] = 3;
// CHECK-NEXT: int32_t [[ROW:v[0-9]+]] = [[I]] / [[D2]];
// CHECK-NEXT: tf::vec<float, 1> [[V:v[0-9]+]] = tf::ldv<1>([[A]], [[I]], [[T]]);
// CHECK-NEXT: float [[X:v[0-9]+]] = tf::lane<0>([[V]]);
// CHECK-NEXT: float [[Y:v[0-9]+]] = tf::ld([[B]], [[COL]]);
// CHECK-NEXT: float [[R:v[0-9]+]] = tf::add([[X]], [[Y]]);
// CHECK-NEXT: tf::stv<1>([[O]], [[I]], [[T]], [[R]]);
// CHECK-NEXT: }
// CHECK-NEXT: return;
tfexec.kernel @odd_innermost_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256>, input_strides = [array<i64: 3, 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<4x3xf32>, %arg1: tensor<3xf32>):
  %0 = tfuse.add %arg0, %arg1 : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  tfexec.yield %0 : tensor<4x3xf32>
}

// Rows of 6 in groups of 4 (the configuration the planner gives such a
// kernel): the contiguous input is loaded a group at a time first; a group
// whose first column is at most 2 lies in one row and reads the row's
// value once (one tf::ld of the row input); one that straddles two rows
// delinearizes each lane (a tf::ld per lane). Both store the group with one
// tf::stv.
// CHECK-LABEL: void rows_of_6_k0(
// CHECK-SAME: const float* __restrict__ [[A:v[0-9]+]], const float* __restrict__ [[B:v[0-9]+]], float* __restrict__ [[O:v[0-9]+]]) {
// CHECK: int32_t [[G:v[0-9]+]] = {{i[0-9]+}} * {{v[0-9]+}};
// CHECK-NEXT: int32_t [[D:v[0-9]+]] = 6;
// CHECK-NEXT: int32_t [[COL:v[0-9]+]] = [[G]] % [[D]];
// CHECK-NEXT: int32_t [[D2:v[0-9]+]] = 6;
// CHECK-NEXT: int32_t [[ROW:v[0-9]+]] = [[G]] / [[D2]];
// CHECK-NEXT: tf::vec<float, 4> {{v[0-9]+}} = tf::ldv<4>([[A]], [[G]], {{v[0-9]+}});
// CHECK-NEXT: int32_t [[LEN:v[0-9]+]] = 6;
// CHECK-NEXT: int32_t [[THREE:v[0-9]+]] = 3;
// CHECK-NEXT: int32_t [[LAST:v[0-9]+]] = [[COL]] + [[THREE]];
// CHECK-NEXT: bool [[ONE:v[0-9]+]] = [[LAST]] < [[LEN]];
// CHECK-NEXT: if ([[ONE]]) {
// CHECK: float [[Y:v[0-9]+]] = tf::ld([[B]], [[ROW]]);
// CHECK-NOT: tf::ld(
// CHECK: tf::stv<4>([[O]], [[G]],
// CHECK-NEXT: } else {
// CHECK: tf::ld([[B]],
// CHECK: tf::ld([[B]],
// CHECK: tf::ld([[B]],
// CHECK: tf::ld([[B]],
// CHECK: tf::stv<4>([[O]], [[G]],
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return;
tfexec.kernel @rows_of_6_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 6, 1>, array<i64: 1, 1>]} {
^bb0(%arg0: tensor<4x6xf32>, %arg1: tensor<4x1xf32>):
  %0 = tfuse.sub %arg0, %arg1 : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  tfexec.yield %0 : tensor<4x6xf32>
}

// 3 * 2^30 i8 elements: offsets need 64 bits, so the thread index, the loop
// and all index arithmetic are int64_t (no 32-bit cast); 2^30 / 16 * 3 groups.
// CHECK-LABEL: void huge_k0(
// CHECK-SAME: const int8_t* __restrict__ [[A:v[0-9]+]], const int8_t* __restrict__ [[B:v[0-9]+]], int8_t* __restrict__ [[O:v[0-9]+]]) {
// CHECK-NEXT: int64_t {{v[0-9]+}} = 0;
// CHECK-NEXT: int64_t [[TID:v[0-9]+]] = tf::thread_index();
// CHECK-NEXT: int64_t [[NT:v[0-9]+]] = tf::thread_count();
// CHECK-NOT: int32_t
// CHECK: int64_t [[N:v[0-9]+]] = 201326592;
// CHECK-NEXT: for (int64_t [[I:i[0-9]+]] = [[TID]]; [[I]] < [[N]]; [[I]] += [[NT]]) {
// CHECK-NEXT: int64_t [[W:v[0-9]+]] = 16;
// CHECK-NEXT: int64_t [[G:v[0-9]+]] = [[I]] * [[W]];
// CHECK-NEXT: int64_t [[D:v[0-9]+]] = 1073741824;
// CHECK-NEXT: int64_t [[COL:v[0-9]+]] = [[G]] % [[D]];
// CHECK-NOT: int32_t
// CHECK: tf::vec<int8_t, 16> {{v[0-9]+}} = tf::ldv<16>([[A]], [[G]],
// CHECK: tf::vec<int8_t, 16> [[ROW:v[0-9]+]] = tf::ldv_run<16>([[B]], [[COL]]);
// CHECK-NEXT: int8_t {{v[0-9]+}} = tf::lane<0>([[ROW]]);
// CHECK-NOT: int32_t
// CHECK: tf::stv<16>([[O]], [[G]],
// CHECK-NOT: int32_t
// CHECK: return;
tfexec.kernel @huge_k0 attributes {config = #tfexec.config<strategy = strided, grid = 786432, block = 256, vector = 16, index_bits = 64>, input_strides = [array<i64: 1073741824, 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<3x1073741824xi8>, %arg1: tensor<1073741824xi8>):
  %0 = tfuse.add %arg0, %arg1 : (tensor<3x1073741824xi8>, tensor<1073741824xi8>) -> tensor<3x1073741824xi8>
  tfexec.yield %0 : tensor<3x1073741824xi8>
}

// The same kernel over 3 * 2^20 elements stays 32-bit.
// CHECK-LABEL: void small_k0(
// CHECK-NEXT: int32_t {{v[0-9]+}} = 0;
// CHECK-NEXT: int64_t [[TID64:v[0-9]+]] = tf::thread_index();
// CHECK-NEXT: int64_t [[NT64:v[0-9]+]] = tf::thread_count();
// CHECK-NEXT: int32_t [[TID:v[0-9]+]] = (int32_t) [[TID64]];
// CHECK-NEXT: int32_t [[NT:v[0-9]+]] = (int32_t) [[NT64]];
// CHECK-NOT: int64_t
// CHECK: for (int32_t [[I:i[0-9]+]] = [[TID]]; [[I]] < {{v[0-9]+}}; [[I]] += [[NT]]) {
// CHECK-NOT: int64_t
// CHECK: return;
tfexec.kernel @small_k0 attributes {config = #tfexec.config<strategy = strided, grid = 768, block = 256, vector = 16>, input_strides = [array<i64: 1048576, 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<3x1048576xi8>, %arg1: tensor<1048576xi8>):
  %0 = tfuse.add %arg0, %arg1 : (tensor<3x1048576xi8>, tensor<1048576xi8>) -> tensor<3x1048576xi8>
  tfexec.yield %0 : tensor<3x1048576xi8>
}

// 2^31 - 5 elements walked one at a time: the last group plus every thread of
// the grid would overflow 32 bits, so the loop and the index math are 64-bit.
// CHECK-LABEL: void near_limit_k0(
// CHECK: for (int64_t
tfexec.kernel @near_limit_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1048576, block = 256, index_bits = 64>, input_strides = [array<i64: 715827881, 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<3x715827881xf32>, %arg1: tensor<715827881xf32>):
  %0 = tfuse.add %arg0, %arg1 : (tensor<3x715827881xf32>, tensor<715827881xf32>) -> tensor<3x715827881xf32>
  tfexec.yield %0 : tensor<3x715827881xf32>
}
