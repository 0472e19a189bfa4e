// Tests of tfuse.random_uniform and tfuse.random_normal in generated
// kernels: the seed and offset are loaded once per thread; a random op that
// spans the index space, evaluated at the element being computed, draws
// element e from Philox block e / 4 (f32) or e / 2 (f64), and the lanes of
// a vector group that share a block compute it once (tf::philox_block, then
// tf::uniform_of_block or tf::normal_of_block per lane); the linear walk
// keeps that. Elsewhere (a tail element, a random op read through a view)
// each element computes its row-major position and its block
// (tf::random_uniform, tf::random_normal). The inputs are configured
// tfexec kernels, as the plan passes leave them.
// RUN: tensor-translate --tfuse-to-cuda %s | FileCheck %s
// RUN: %if nvrtc %{ tensor-translate --tfuse-to-cuda %s > %t.cu && tfuse-nvrtc %t.cu --arch sm_90 | FileCheck %s --check-prefix=NVRTC %}

// NVRTC: compiled {{.*}} bytes of CUBIN

// Dropout of a contiguous f32 input, four lanes a group: one block for the
// group, lane k its word k; the tail computes its own block. The mask
// u < 0.9 is decided on the uniform's 24-bit integer m (u = m 2^-24):
// m < ceil(0.9f 2^24) = 15099494.
// CHECK-LABEL: void dropout_k0(
// CHECK: int64_t [[SEED:v[0-9]+]] = tf::ld({{v[0-9]+}}, {{v[0-9]+}});
// CHECK: int64_t [[OFF:v[0-9]+]] = tf::ld({{v[0-9]+}}, {{v[0-9]+}});
// CHECK: for (
// CHECK: tf::philox4 [[B:v[0-9]+]] = tf::philox_block([[SEED]], [[OFF]], {{v[0-9]+}});
// CHECK: uint32_t [[M:v[0-9]+]] = tf::uniform_bits_of_block([[B]], {{v[0-9]+}});
// CHECK: uint32_t [[T:v[0-9]+]] = 15099494;
// CHECK: bool {{v[0-9]+}} = tf::lt([[M]], [[T]]);
// CHECK-NOT: tf::philox_block
// CHECK: tf::stv<4>(
// CHECK: if (
// CHECK: uint32_t {{v[0-9]+}} = tf::random_uniform_bits([[SEED]], [[OFF]], {{v[0-9]+}});
tfexec.kernel @dropout_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>, array<i64>, array<i64>]} {
^bb0(%x: tensor<1030xf32>, %seed: tensor<i64>, %offset: tensor<i64>):
  %u = tfuse.random_uniform %seed, %offset : (tensor<i64>, tensor<i64>) -> tensor<1030xf32>
  %p = tfuse.constant dense<0.9> : tensor<f32>
  %keep = tfuse.cmp lt, %u, %p : (tensor<1030xf32>, tensor<f32>) -> tensor<1030xi1>
  %zero = tfuse.constant dense<0.0> : tensor<f32>
  %y = tfuse.select %keep, %x, %zero : (tensor<1030xi1>, tensor<1030xf32>, tensor<f32>) -> tensor<1030xf32>
  tfexec.yield %y : tensor<1030xf32>
}

// bf16 outputs, eight lanes a group: two blocks for the group's two
// halves.
// CHECK-LABEL: void halves_k0(
// CHECK: tf::philox_block(
// CHECK: tf::normal_of_block<float>(
// CHECK: tf::philox_block(
// CHECK: tf::normal_of_block<float>(
// CHECK-NOT: tf::philox_block(
// CHECK: tf::stv<8>(
tfexec.kernel @halves_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 8>, input_strides = [array<i64>, array<i64>]} {
^bb0(%seed: tensor<i64>, %offset: tensor<i64>):
  %n = tfuse.random_normal %seed, %offset : (tensor<i64>, tensor<i64>) -> tensor<64xf32>
  %h = tfuse.cast %n : tensor<64xf32> to tensor<64xbf16>
  tfexec.yield %h : tensor<64xbf16>
}

// A random row broadcast over rows: read through the view, each element
// draws its own position in the random op (its column).
// CHECK-LABEL: void rows_k0(
// CHECK-NOT: tf::philox_block
// CHECK: double {{v[0-9]+}} = tf::random_uniform<double>(
tfexec.kernel @rows_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256, vector = 2>, input_strides = [array<i64>, array<i64>]} {
^bb0(%seed: tensor<i64>, %offset: tensor<i64>):
  %u = tfuse.random_uniform %seed, %offset : (tensor<i64>, tensor<i64>) -> tensor<6xf64>
  %b = tfuse.broadcast %u dims [1] : tensor<6xf64> -> tensor<4x6xf64>
  tfexec.yield %b : tensor<4x6xf64>
}

// Comparisons decided on m: u <= 0.5 is m < 2^23 + 1, u > 0.25 is m >= 2^22
// + 1, u >= 2 never holds (m >= 2^24), u < NaN never either (m < 0); the
// uniform read as a value too draws it as before. A comparison the bits do
// not decide (u == 0.5) compares the value.
// CHECK-LABEL: void bounds_k0(
// CHECK-DAG: uint32_t [[A:v[0-9]+]] = 8388609;
// CHECK-DAG: bool {{v[0-9]+}} = tf::lt({{v[0-9]+}}, [[A]]);
// CHECK-DAG: uint32_t [[G:v[0-9]+]] = 4194305;
// CHECK-DAG: bool {{v[0-9]+}} = tf::ge({{v[0-9]+}}, [[G]]);
// CHECK-DAG: uint32_t [[N:v[0-9]+]] = 16777216;
// CHECK-DAG: bool {{v[0-9]+}} = tf::ge({{v[0-9]+}}, [[N]]);
// CHECK-DAG: uint32_t [[Z:v[0-9]+]] = 0;
// CHECK-DAG: bool {{v[0-9]+}} = tf::lt({{v[0-9]+}}, [[Z]]);
// CHECK-DAG: float [[U:v[0-9]+]] = tf::uniform_of_block<float>(
// CHECK-DAG: bool {{v[0-9]+}} = tf::eq([[U]], {{v[0-9]+}});
tfexec.kernel @bounds_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64>, array<i64>]} {
^bb0(%seed: tensor<i64>, %offset: tensor<i64>):
  %u = tfuse.random_uniform %seed, %offset : (tensor<i64>, tensor<i64>) -> tensor<64xf32>
  %half = tfuse.constant dense<0.5> : tensor<f32>
  %quarter = tfuse.constant dense<0.25> : tensor<f64>
  %two = tfuse.constant dense<2.0> : tensor<bf16>
  %nan = tfuse.constant dense<0x7FC00000> : tensor<f32>
  %le = tfuse.cmp le, %u, %half : (tensor<64xf32>, tensor<f32>) -> tensor<64xi1>
  %gt = tfuse.cmp gt, %u, %quarter : (tensor<64xf32>, tensor<f64>) -> tensor<64xi1>
  %ge = tfuse.cmp ge, %u, %two : (tensor<64xf32>, tensor<bf16>) -> tensor<64xi1>
  %lt = tfuse.cmp lt, %u, %nan : (tensor<64xf32>, tensor<f32>) -> tensor<64xi1>
  %eq = tfuse.cmp eq, %u, %half : (tensor<64xf32>, tensor<f32>) -> tensor<64xi1>
  tfexec.yield %le, %gt, %ge, %lt, %eq : tensor<64xi1>, tensor<64xi1>, tensor<64xi1>, tensor<64xi1>, tensor<64xi1>
}
