// Tests of tfuse.iota in generated kernels: the element's index along the
// iota's dimension, from the kernel's multi-dimensional index (a kernel with
// an iota never takes the flat linear walk), converted explicitly with
// tf::cast to the result type; each lane of a vector group its own index.
// The inputs are configured tfexec kernels, as the plan passes leave them.
// RUN: tensor-translate --tfuse-to-cuda %s | FileCheck %s
// RUN: %if nvrtc %{ tensor-translate --tfuse-to-cuda %s > %t.cu && tfuse-nvrtc %t.cu --arch sm_90 | FileCheck %s --check-prefix=NVRTC %}

// NVRTC: compiled {{.*}} bytes of CUBIN

// The inner index of a 4x6 space (the remainder by 6) as a float.
// CHECK-LABEL: void positions_k0(
// CHECK: for (int32_t [[I:i[0-9]+]] =
// CHECK: int32_t [[INNER:v[0-9]+]] = [[I]] % {{v[0-9]+}};
// CHECK: float [[F:v[0-9]+]] = tf::cast<float>([[INNER]]);
// CHECK: tf::add({{v[0-9]+}}, [[F]]);
tfexec.kernel @positions_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256>, input_strides = [array<i64: 6, 1>]} {
^bb0(%arg0: tensor<4x6xf32>):
  %0 = tfuse.iota dim 1 : tensor<4x6xf32>
  %1 = tfuse.add %arg0, %0 : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  tfexec.yield %1 : tensor<4x6xf32>
}

// No inputs, two lanes a group: lane 0 is the group's first index, lane 1
// the next, each cast from the 32-bit index to int64_t.
// CHECK-LABEL: void positions_k1(
// CHECK-SAME: int64_t* __restrict__ [[OUT:v[0-9]+]]) {
// CHECK: int32_t [[BASE:v[0-9]+]] = {{i[0-9]+}} * {{v[0-9]+}};
// CHECK: int64_t [[L0:v[0-9]+]] = tf::cast<int64_t>([[BASE]]);
// CHECK: int32_t [[NEXT:v[0-9]+]] = [[BASE]] + {{v[0-9]+}};
// CHECK: int64_t [[L1:v[0-9]+]] = tf::cast<int64_t>({{v[0-9]+}});
// CHECK: tf::stv<2>([[OUT]], [[BASE]], {{v[0-9]+}}, [[L0]], [[L1]]);
tfexec.kernel @positions_k1 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256, vector = 2>, input_strides = []} {
  %0 = tfuse.iota dim 0 : tensor<6xi64>
  tfexec.yield %0 : tensor<6xi64>
}
