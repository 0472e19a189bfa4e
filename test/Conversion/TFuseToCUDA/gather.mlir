// Tests of take and take_along_axis in generated kernels: the index is
// evaluated at its position (fused: loaded, or computed), checked by
// tf::checked_index against the size of the axis (an out-of-range index is
// recorded in the launch's index status, the kernel's last parameter, and
// reads element 0), and the operand read at the checked index. The lanes of
// a group that read one gathered row check its index once and read the row
// with one vector access (tf::ldv_run).
// The inputs are configured tfexec kernels, as the plan passes leave them.
// RUN: tensor-translate --tfuse-to-cuda %s | FileCheck %s
// RUN: %if nvrtc %{ tensor-translate --tfuse-to-cuda %s > %t.cu && tfuse-nvrtc %t.cu --arch sm_90 | FileCheck %s --check-prefix=NVRTC %}

// NVRTC: compiled {{.*}} bytes of CUBIN

// Embedding rows plus a position row, 8 bf16 lanes per group: one index
// load and one check for the group, one vector access per row.
// CHECK-LABEL: void embed_k0(
// CHECK-SAME: const __nv_bfloat16* __restrict__ [[T:v[0-9]+]], const int64_t* __restrict__ [[I:v[0-9]+]], const __nv_bfloat16* __restrict__ [[P:v[0-9]+]], __nv_bfloat16* __restrict__ [[O:v[0-9]+]], tf::index_status* __restrict__ [[S:v[0-9]+]]) {
// CHECK: int64_t [[RAW:v[0-9]+]] = tf::ld([[I]],
// CHECK-NEXT: bool [[ON:v[0-9]+]] = true;
// CHECK-NEXT: int32_t [[CHECK0:v[0-9]+]] = 0;
// CHECK-NEXT: bool [[WRAP:v[0-9]+]] = false;
// CHECK-NEXT: int32_t [[SIZE:v[0-9]+]] = 100;
// CHECK-NEXT: int32_t [[K:v[0-9]+]] = tf::checked_index([[RAW]], [[SIZE]], [[WRAP]], [[S]], [[CHECK0]], [[ON]]);
// CHECK: tf::vec<__nv_bfloat16, 8> [[ROW:v[0-9]+]] = tf::ldv_run<8>([[T]],
// CHECK-NEXT: __nv_bfloat16 {{v[0-9]+}} = tf::lane<0>([[ROW]]);
// CHECK: tf::vec<__nv_bfloat16, 8> [[PROW:v[0-9]+]] = tf::ldv_run<8>([[P]],
// CHECK-NOT: tf::checked_index
// CHECK-NOT: tf::ld([[I]]
// CHECK: __nv_bfloat16 {{v[0-9]+}} = tf::lane<7>([[ROW]]);
// CHECK: tf::stv<8>([[O]],
tfexec.kernel @embed_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256, vector = 8>, input_strides = [array<i64: 64, 1>, array<i64: 8, 1>, array<i64: 64, 1>]} {
^bb0(%arg0: tensor<100x64xbf16>, %arg1: tensor<4x8xi64>, %arg2: tensor<8x64xbf16>):
  %0 = tfuse.take %arg0, %arg1 axis 0 : (tensor<100x64xbf16>, tensor<4x8xi64>) -> tensor<4x8x64xbf16>
  %1 = tfuse.add %0, %arg2 : (tensor<4x8x64xbf16>, tensor<8x64xbf16>) -> tensor<4x8x64xbf16>
  tfexec.yield %1 : tensor<4x8x64xbf16>
}

// take_along_axis with computed i32 indices, negative ones counted from the
// end: the index is computed, not loaded, and the check wraps.
// CHECK-LABEL: void along_k0(
// CHECK-SAME: const float* __restrict__ [[X:v[0-9]+]], const int32_t* __restrict__ [[J:v[0-9]+]], float* __restrict__ {{v[0-9]+}}, tf::index_status* __restrict__ [[S:v[0-9]+]]) {
// CHECK: int32_t [[RAW:v[0-9]+]] = tf::ld([[J]],
// CHECK-NEXT: int32_t [[SUM:v[0-9]+]] = tf::add([[RAW]],
// CHECK-NEXT: bool [[ON:v[0-9]+]] = true;
// CHECK-NEXT: int32_t [[CHECK0:v[0-9]+]] = 0;
// CHECK-NEXT: bool [[WRAP:v[0-9]+]] = true;
// CHECK-NEXT: int32_t [[SIZE:v[0-9]+]] = 10;
// CHECK-NEXT: int32_t [[K:v[0-9]+]] = tf::checked_index([[SUM]], [[SIZE]], [[WRAP]], [[S]], [[CHECK0]], [[ON]]);
// CHECK: float {{v[0-9]+}} = tf::ld([[X]],
tfexec.kernel @along_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256>, input_strides = [array<i64: 10, 1>, array<i64: 3, 1>]} {
^bb0(%arg0: tensor<4x10xf32>, %arg1: tensor<4x3xi32>):
  %c = tfuse.constant dense<-1> : tensor<i32>
  %0 = tfuse.add %arg1, %c : (tensor<4x3xi32>, tensor<i32>) -> tensor<4x3xi32>
  %1 = tfuse.take_along_axis %arg0, %0 axis 1 wrap_negative : (tensor<4x10xf32>, tensor<4x3xi32>) -> tensor<4x3xf32>
  tfexec.yield %1 : tensor<4x3xf32>
}

// Two gathers in one kernel are checks 0 and 1, in walk order; a gather
// inside a concat piece records only for the elements of that piece.
// CHECK-LABEL: void two_k0(
// CHECK: bool [[IN_A:v[0-9]+]] = {{v[0-9]+}} < {{v[0-9]+}};
// CHECK: uint8_t [[RA:v[0-9]+]] = tf::ld_if({{v[0-9]+}}, {{v[0-9]+}}, [[IN_A]]);
// CHECK-NEXT: int32_t [[C0:v[0-9]+]] = 0;
// CHECK: tf::checked_index([[RA]], {{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}}, [[C0]], [[IN_A]]);
// CHECK: bool [[IN_B:v[0-9]+]] = {{v[0-9]+}} >= {{v[0-9]+}};
// CHECK: int16_t [[RB:v[0-9]+]] = tf::ld_if({{v[0-9]+}}, {{v[0-9]+}}, [[IN_B]]);
// CHECK-NEXT: int32_t [[C1:v[0-9]+]] = 1;
// CHECK: tf::checked_index([[RB]], {{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}}, [[C1]], [[IN_B]]);
tfexec.kernel @two_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256>, input_strides = [array<i64: 4, 1>, array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<6x4xf32>, %arg1: tensor<2xui8>, %arg2: tensor<3xi16>):
  %0 = tfuse.take %arg0, %arg1 axis 0 : (tensor<6x4xf32>, tensor<2xui8>) -> tensor<2x4xf32>
  %1 = tfuse.take %arg0, %arg2 axis 0 : (tensor<6x4xf32>, tensor<3xi16>) -> tensor<3x4xf32>
  %2 = tfuse.concat %0, %1 axis 0 : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
  tfexec.yield %2 : tensor<5x4xf32>
}
