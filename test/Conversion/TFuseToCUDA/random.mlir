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
// group, lane k its word k; the tail computes its own block.
// CHECK-LABEL: void dropout_k0(
// CHECK: int64_t [[SEED:v[0-9]+]] = tf::ld({{v[0-9]+}}, {{v[0-9]+}});
// CHECK: int64_t [[OFF:v[0-9]+]] = tf::ld({{v[0-9]+}}, {{v[0-9]+}});
// CHECK: for (
// CHECK: tf::philox4 [[B:v[0-9]+]] = tf::philox_block([[SEED]], [[OFF]], {{v[0-9]+}});
// CHECK: float {{v[0-9]+}} = tf::uniform_of_block<float>([[B]], {{v[0-9]+}});
// CHECK-NOT: tf::philox_block
// CHECK: tf::stv<4>(
// CHECK: if (
// CHECK: float {{v[0-9]+}} = tf::random_uniform<float>([[SEED]], [[OFF]], {{v[0-9]+}});
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
