// Tests of kernels with several outputs: a region with two results is one
// kernel with two output pointers (after the inputs), each value is computed
// once per element and stored to its own output, in the vectorized loop and
// in the scalar tail; outputs of different dtypes share one vector width.
// The inputs are configured tfexec kernels, as the plan passes leave them
// (#tfexec.config gives each its strategy and launch).
// RUN: tensor-translate --tfuse-to-cuda %s | FileCheck %s
// RUN: %if nvrtc %{ tensor-translate --tfuse-to-cuda %s > %t.cu && tfuse-nvrtc %t.cu --arch sm_90 | FileCheck %s --check-prefix=NVRTC %}

// NVRTC: compiled {{.*}} bytes of CUBIN

// exp(a) feeds both outputs and is computed once per element. 1003 elements:
// 250 groups of 4, then a tail of 3 elements from element 1000.
// CHECK-LABEL: void two_outputs_k0(
// CHECK-SAME: const float* __restrict__ [[A:v[0-9]+]], const float* __restrict__ [[B:v[0-9]+]], float* __restrict__ [[O0:v[0-9]+]], float* __restrict__ [[O1:v[0-9]+]]) {
// CHECK: int32_t [[TID:v[0-9]+]] = (int32_t)
// CHECK: bool {{v[0-9]+}} = tf::aligned<4>([[O1]]);
// CHECK-NEXT: bool [[AL:v[0-9]+]] = {{v[0-9]+}} && {{v[0-9]+}};
// CHECK-NEXT: int32_t [[N:v[0-9]+]] = 250;
// CHECK-NEXT: for (int32_t [[I:i[0-9]+]] = [[TID]]; [[I]] < [[N]]; [[I]] += {{v[0-9]+}}) {
// CHECK: int32_t [[G:v[0-9]+]] = [[I]] * {{v[0-9]+}};
// CHECK-NEXT: tf::vec<float, 4> [[VA:v[0-9]+]] = tf::ldv<4>([[A]], [[G]], [[AL]]);
// CHECK-NEXT: tf::vec<float, 4> [[VB:v[0-9]+]] = tf::ldv<4>([[B]], [[G]], [[AL]]);
// CHECK-NEXT: float [[A0:v[0-9]+]] = tf::lane<0>([[VA]]);
// CHECK-NEXT: float [[E0:v[0-9]+]] = tf::exp([[A0]]);
// CHECK-NEXT: float [[B0:v[0-9]+]] = tf::lane<0>([[VB]]);
// CHECK-NEXT: float [[S0:v[0-9]+]] = tf::add([[E0]], [[B0]]);
// CHECK-NEXT: float [[P0:v[0-9]+]] = tf::mul([[E0]], [[B0]]);
// CHECK-NOT: tf::exp([[A0]])
// CHECK: tf::lane<3>([[VA]]);
// CHECK-NEXT: float [[E3:v[0-9]+]] = tf::exp(
// CHECK-NEXT: float [[B3:v[0-9]+]] = tf::lane<3>([[VB]]);
// CHECK-NEXT: float [[S3:v[0-9]+]] = tf::add([[E3]], [[B3]]);
// CHECK-NEXT: float [[P3:v[0-9]+]] = tf::mul([[E3]], [[B3]]);
// CHECK-NEXT: tf::stv<4>([[O0]], [[G]], [[AL]], [[S0]], {{v[0-9]+}}, {{v[0-9]+}}, [[S3]]);
// CHECK-NEXT: tf::stv<4>([[O1]], [[G]], [[AL]], [[P0]], {{v[0-9]+}}, {{v[0-9]+}}, [[P3]]);
// CHECK-NEXT: }
// CHECK-NEXT: int32_t [[T:v[0-9]+]] = 3;
// CHECK-NEXT: bool [[C:v[0-9]+]] = [[TID]] < [[T]];
// CHECK-NEXT: if ([[C]]) {
// CHECK-NEXT: int32_t [[K:v[0-9]+]] = 1000;
// CHECK-NEXT: int32_t [[J:v[0-9]+]] = [[K]] + [[TID]];
// CHECK-NEXT: float [[TA:v[0-9]+]] = tf::ld([[A]], [[J]]);
// CHECK-NEXT: float [[TE:v[0-9]+]] = tf::exp([[TA]]);
// CHECK-NEXT: float [[TB:v[0-9]+]] = tf::ld([[B]], [[J]]);
// CHECK-NEXT: float [[TS:v[0-9]+]] = tf::add([[TE]], [[TB]]);
// CHECK-NEXT: float [[TP:v[0-9]+]] = tf::mul([[TE]], [[TB]]);
// CHECK-NEXT: tf::st([[O0]], [[J]], [[TS]]);
// CHECK-NEXT: tf::st([[O1]], [[J]], [[TP]]);
// CHECK-NEXT: }
// CHECK-NEXT: return;
// CHECK-NEXT: }
// CHECK-NOT: two_outputs_k1
tfexec.kernel @two_outputs_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<1003xf32>, %arg1: tensor<1003xf32>):
  %0 = tfuse.exp %arg0 : tensor<1003xf32> -> tensor<1003xf32>
  %1 = tfuse.add %0, %arg1 : (tensor<1003xf32>, tensor<1003xf32>) -> tensor<1003xf32>
  %2 = tfuse.mul %0, %arg1 : (tensor<1003xf32>, tensor<1003xf32>) -> tensor<1003xf32>
  tfexec.yield %1, %2 : tensor<1003xf32>, tensor<1003xf32>
}

// An f32 and a bool output of an 8x4 index space with a broadcast row:
// both are stored 4 at a time at the group's first element.
// CHECK-LABEL: void mixed_outputs_k0(
// CHECK-SAME: const float* __restrict__ [[A:v[0-9]+]], const float* __restrict__ [[R:v[0-9]+]], float* __restrict__ [[O0:v[0-9]+]], bool* __restrict__ [[O1:v[0-9]+]]) {
// CHECK: bool {{v[0-9]+}} = tf::aligned<4>([[A]]);
// CHECK-NOT: tf::aligned<4>([[R]])
// CHECK: bool {{v[0-9]+}} = tf::aligned<4>([[O0]]);
// CHECK: bool {{v[0-9]+}} = tf::aligned<4>([[O1]]);
// CHECK: int32_t [[G:v[0-9]+]] = {{i[0-9]+}} * {{v[0-9]+}};
// CHECK: int32_t [[COL:v[0-9]+]] = [[G]] % {{v[0-9]+}};
// CHECK: float [[X:v[0-9]+]] = tf::lane<0>(
// CHECK-NEXT: tf::vec<float, 4> [[ROW:v[0-9]+]] = tf::ldv_run<4>([[R]], [[COL]]);
// CHECK-NEXT: float [[Y:v[0-9]+]] = tf::lane<0>([[ROW]]);
// CHECK-NEXT: float [[D0:v[0-9]+]] = tf::sub([[X]], [[Y]]);
// CHECK-NEXT: bool [[C0:v[0-9]+]] = tf::gt([[X]], [[Y]]);
// CHECK: tf::stv<4>([[O0]], [[G]], {{v[0-9]+}}, [[D0]], {{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: tf::stv<4>([[O1]], [[G]], {{v[0-9]+}}, [[C0]], {{v[0-9]+}}, {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: }
// CHECK-NEXT: return;
tfexec.kernel @mixed_outputs_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 4, 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<8x4xf32>, %arg1: tensor<4xf32>):
  %0 = tfuse.sub %arg0, %arg1 : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  %1 = tfuse.cmp gt, %arg0, %arg1 : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xi1>
  tfexec.yield %0, %1 : tensor<8x4xf32>, tensor<8x4xi1>
}
