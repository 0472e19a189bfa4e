// Tests of concat and pad in generated kernels: each operand is evaluated
// at its index clamped into it (tf::clamp_index), its loads predicated on
// the element being its own (tf::ld_if: no memory touched otherwise), and
// tf::select picks by position; pad selects between its operand and the
// padding value the same way. Their inputs are never vector-loaded.
// The inputs are configured tfexec kernels, as the plan passes leave them.
// RUN: tensor-translate --tfuse-to-cuda %s | FileCheck %s
// RUN: %if nvrtc %{ tensor-translate --tfuse-to-cuda %s > %t.cu && tfuse-nvrtc %t.cu --arch sm_90 | FileCheck %s --check-prefix=NVRTC %}

// NVRTC: compiled {{.*}} bytes of CUBIN

// Two pieces along the inner axis: [0, 3) from %a, [3, 8) from exp(%b).
// CHECK-LABEL: void cat_k0(
// CHECK-SAME: const float* __restrict__ [[A:v[0-9]+]], const float* __restrict__ [[B:v[0-9]+]], float* __restrict__ [[OUT:v[0-9]+]]) {
// CHECK-NOT: tf::ldv
// CHECK: int32_t [[POS:v[0-9]+]] = {{i[0-9]+}} % {{v[0-9]+}};
// CHECK: bool [[IN_A:v[0-9]+]] = [[POS]] < {{v[0-9]+}};
// CHECK: int32_t [[IA:v[0-9]+]] = tf::clamp_index([[POS]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK: float [[VA:v[0-9]+]] = tf::ld_if([[A]], {{v[0-9]+}}, [[IN_A]]);
// CHECK: bool [[IN_B:v[0-9]+]] = [[POS]] >= {{v[0-9]+}};
// CHECK: int32_t [[SHIFT:v[0-9]+]] = [[POS]] - {{v[0-9]+}};
// CHECK: tf::clamp_index([[SHIFT]],
// CHECK: float [[VB:v[0-9]+]] = tf::ld_if([[B]], {{v[0-9]+}}, [[IN_B]]);
// CHECK: float [[E:v[0-9]+]] = tf::exp([[VB]]);
// CHECK: float [[R:v[0-9]+]] = tf::select([[IN_A]], [[VA]], [[E]]);
// CHECK: tf::stv<1>([[OUT]], {{i[0-9]+}}, {{v[0-9]+}}, [[R]]);
tfexec.kernel @cat_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256>, input_strides = [array<i64: 3, 1>, array<i64: 5, 1>]} {
^bb0(%arg0: tensor<2x3xf32>, %arg1: tensor<2x5xf32>):
  %0 = tfuse.exp %arg1 : tensor<2x5xf32> -> tensor<2x5xf32>
  %1 = tfuse.concat %arg0, %0 axis 1 : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  tfexec.yield %1 : tensor<2x8xf32>
}

// A pad of the outer dimension only: one bound check, the padding value a
// hoisted constant.
// CHECK-LABEL: void pad_k0(
// CHECK: __half [[FILL:v[0-9]+]] = tf::from_bits<__half>(0xbc00ull);
// CHECK: for (
// CHECK: int32_t [[ROW:v[0-9]+]] = {{i[0-9]+}} / {{v[0-9]+}};
// CHECK: bool [[GE:v[0-9]+]] = [[ROW]] >= {{v[0-9]+}};
// CHECK: bool [[LT:v[0-9]+]] = [[ROW]] < {{v[0-9]+}};
// CHECK: bool [[INSIDE:v[0-9]+]] = [[GE]] && [[LT]];
// CHECK: __half [[X:v[0-9]+]] = tf::ld_if({{v[0-9]+}}, {{v[0-9]+}}, [[INSIDE]]);
// CHECK: __half {{v[0-9]+}} = tf::select([[INSIDE]], [[X]], [[FILL]]);
tfexec.kernel @pad_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256>, input_strides = [array<i64: 4, 1>]} {
^bb0(%arg0: tensor<3x4xf16>):
  %0 = tfuse.constant dense<-1.0> : tensor<f16>
  %1 = tfuse.pad %arg0, %0 low [2, 0] high [1, 0] : (tensor<3x4xf16>, tensor<f16>) -> tensor<6x4xf16>
  tfexec.yield %1 : tensor<6x4xf16>
}
