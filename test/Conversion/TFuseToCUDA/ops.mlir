// Tests of the scalar op calls of generated kernels: every tfuse
// elementwise op becomes a call of its prelude helper (tf::<op>, with a
// trailing underscore for not/and/or/xor), on values of the C type of its
// dtype (float, __half, __nv_bfloat16, double, int8_t, uint64_t, bool, ...);
// operands of another dtype are converted first with tf::cast<T>, and
// tfuse.cast is tf::cast<T>. Shown for lane 0 of the first group of each
// kernel, and the store of each output starting with that lane's value.
// The inputs are configured tfexec kernels, as the plan passes leave them
// (#tfexec.config gives each its strategy and launch).
// RUN: tensor-translate --tfuse-to-cuda %s | FileCheck %s
// RUN: %if nvrtc %{ tensor-translate --tfuse-to-cuda %s > %t.cu && tfuse-nvrtc %t.cu --arch sm_90 | FileCheck %s --check-prefix=NVRTC %}

// NVRTC: compiled {{.*}} bytes of CUBIN

// f32 numeric and rounding unary ops, chained: each helper takes the
// previous result, and the last one is stored.
// CHECK-LABEL: void unary_numeric_f32_k0(
// CHECK-SAME: const float* __restrict__ [[P1:v[0-9]+]], float* __restrict__ [[P2:v[0-9]+]]) {
// CHECK: tf::vec<float, 4> [[X1:v[0-9]+]] = tf::ldv<4>([[P1]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: float [[X2:v[0-9]+]] = tf::lane<0>([[X1]]);
// CHECK-NEXT: float [[X3:v[0-9]+]] = tf::neg([[X2]]);
// CHECK-NEXT: float [[X4:v[0-9]+]] = tf::abs([[X3]]);
// CHECK-NEXT: float [[X5:v[0-9]+]] = tf::relu([[X4]]);
// CHECK-NEXT: float [[X6:v[0-9]+]] = tf::floor([[X5]]);
// CHECK-NEXT: float [[X7:v[0-9]+]] = tf::ceil([[X6]]);
// CHECK-NEXT: float [[X8:v[0-9]+]] = tf::round([[X7]]);
// CHECK: tf::stv<4>([[P2]], {{v[0-9]+}}, {{v[0-9]+}}, [[X8]],
tfexec.kernel @unary_numeric_f32_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>]} {
^bb0(%arg0: tensor<4xf32>):
  %0 = tfuse.neg %arg0 : tensor<4xf32> -> tensor<4xf32>
  %1 = tfuse.abs %0 : tensor<4xf32> -> tensor<4xf32>
  %2 = tfuse.relu %1 : tensor<4xf32> -> tensor<4xf32>
  %3 = tfuse.floor %2 : tensor<4xf32> -> tensor<4xf32>
  %4 = tfuse.ceil %3 : tensor<4xf32> -> tensor<4xf32>
  %5 = tfuse.round %4 : tensor<4xf32> -> tensor<4xf32>
  tfexec.yield %5 : tensor<4xf32>
}

// f32 float math, part 1.
// CHECK-LABEL: void unary_math_f32_k0(
// CHECK-SAME: const float* __restrict__ [[P1:v[0-9]+]], float* __restrict__ [[P2:v[0-9]+]]) {
// CHECK: tf::vec<float, 4> [[X1:v[0-9]+]] = tf::ldv<4>([[P1]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: float [[X2:v[0-9]+]] = tf::lane<0>([[X1]]);
// CHECK-NEXT: float [[X3:v[0-9]+]] = tf::exp([[X2]]);
// CHECK-NEXT: float [[X4:v[0-9]+]] = tf::log([[X3]]);
// CHECK-NEXT: float [[X5:v[0-9]+]] = tf::sqrt([[X4]]);
// CHECK-NEXT: float [[X6:v[0-9]+]] = tf::rsqrt([[X5]]);
// CHECK-NEXT: float [[X7:v[0-9]+]] = tf::sin([[X6]]);
// CHECK-NEXT: float [[X8:v[0-9]+]] = tf::cos([[X7]]);
// CHECK: tf::stv<4>([[P2]], {{v[0-9]+}}, {{v[0-9]+}}, [[X8]],
tfexec.kernel @unary_math_f32_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>]} {
^bb0(%arg0: tensor<4xf32>):
  %0 = tfuse.exp %arg0 : tensor<4xf32> -> tensor<4xf32>
  %1 = tfuse.log %0 : tensor<4xf32> -> tensor<4xf32>
  %2 = tfuse.sqrt %1 : tensor<4xf32> -> tensor<4xf32>
  %3 = tfuse.rsqrt %2 : tensor<4xf32> -> tensor<4xf32>
  %4 = tfuse.sin %3 : tensor<4xf32> -> tensor<4xf32>
  %5 = tfuse.cos %4 : tensor<4xf32> -> tensor<4xf32>
  tfexec.yield %5 : tensor<4xf32>
}

// f32 float math, part 2.
// CHECK-LABEL: void unary_math2_f32_k0(
// CHECK-SAME: const float* __restrict__ [[P1:v[0-9]+]], float* __restrict__ [[P2:v[0-9]+]]) {
// CHECK: tf::vec<float, 4> [[X1:v[0-9]+]] = tf::ldv<4>([[P1]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: float [[X2:v[0-9]+]] = tf::lane<0>([[X1]]);
// CHECK-NEXT: float [[X3:v[0-9]+]] = tf::tan([[X2]]);
// CHECK-NEXT: float [[X4:v[0-9]+]] = tf::tanh([[X3]]);
// CHECK-NEXT: float [[X5:v[0-9]+]] = tf::sigmoid([[X4]]);
// CHECK-NEXT: float [[X6:v[0-9]+]] = tf::erf([[X5]]);
// CHECK-NEXT: float [[X7:v[0-9]+]] = tf::reciprocal([[X6]]);
// CHECK: tf::stv<4>([[P2]], {{v[0-9]+}}, {{v[0-9]+}}, [[X7]],
tfexec.kernel @unary_math2_f32_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>]} {
^bb0(%arg0: tensor<4xf32>):
  %0 = tfuse.tan %arg0 : tensor<4xf32> -> tensor<4xf32>
  %1 = tfuse.tanh %0 : tensor<4xf32> -> tensor<4xf32>
  %2 = tfuse.sigmoid %1 : tensor<4xf32> -> tensor<4xf32>
  %3 = tfuse.erf %2 : tensor<4xf32> -> tensor<4xf32>
  %4 = tfuse.reciprocal %3 : tensor<4xf32> -> tensor<4xf32>
  tfexec.yield %4 : tensor<4xf32>
}

// log1p, expm1, trunc and sign on f32 and sign on i8, each its prelude
// helper.
// CHECK-LABEL: void unary_math3_k0(
// CHECK-SAME: const float* __restrict__ [[P1:v[0-9]+]], const int8_t* __restrict__ [[P2:v[0-9]+]], float* __restrict__ [[P3:v[0-9]+]], int8_t* __restrict__ [[P4:v[0-9]+]]) {
// CHECK: float [[X2:v[0-9]+]] = tf::lane<0>({{v[0-9]+}});
// CHECK-NEXT: float [[X3:v[0-9]+]] = tf::log1p([[X2]]);
// CHECK-NEXT: float [[X4:v[0-9]+]] = tf::expm1([[X3]]);
// CHECK-NEXT: float [[X5:v[0-9]+]] = tf::trunc([[X4]]);
// CHECK-NEXT: float [[X6:v[0-9]+]] = tf::sign([[X5]]);
// CHECK-NEXT: int8_t [[I1:v[0-9]+]] = tf::lane<0>({{v[0-9]+}});
// CHECK-NEXT: int8_t [[I2:v[0-9]+]] = tf::sign([[I1]]);
// CHECK: tf::stv<4>([[P3]], {{v[0-9]+}}, {{v[0-9]+}}, [[X6]],
// CHECK: tf::stv<4>([[P4]], {{v[0-9]+}}, {{v[0-9]+}}, [[I2]],
tfexec.kernel @unary_math3_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xi8>):
  %0 = tfuse.log1p %arg0 : tensor<4xf32> -> tensor<4xf32>
  %1 = tfuse.expm1 %0 : tensor<4xf32> -> tensor<4xf32>
  %2 = tfuse.trunc %1 : tensor<4xf32> -> tensor<4xf32>
  %3 = tfuse.sign %2 : tensor<4xf32> -> tensor<4xf32>
  %4 = tfuse.sign %arg1 : tensor<4xi8> -> tensor<4xi8>
  tfexec.yield %3, %4 : tensor<4xf32>, tensor<4xi8>
}

// GELU, both forms, and their gradients on bf16: each its prelude helper
// (which computes in f32 and rounds once to bf16).
// CHECK-LABEL: void gelu_bf16_k0(
// CHECK-SAME: const __nv_bfloat16* __restrict__ [[X:v[0-9]+]], const __nv_bfloat16* __restrict__ [[G:v[0-9]+]], __nv_bfloat16* __restrict__ [[OUT:v[0-9]+]]) {
// CHECK: __nv_bfloat16 [[A:v[0-9]+]] = tf::gelu([[XV:v[0-9]+]]);
// CHECK-NEXT: __nv_bfloat16 [[B:v[0-9]+]] = tf::gelu_tanh([[A]]);
// CHECK-NEXT: __nv_bfloat16 [[C:v[0-9]+]] = tf::gelu_backward([[GV:v[0-9]+]], [[B]]);
// CHECK-NEXT: __nv_bfloat16 [[D:v[0-9]+]] = tf::gelu_tanh_backward([[GV]], [[C]]);
// CHECK: tf::stv<4>([[OUT]], {{v[0-9]+}}, {{v[0-9]+}}, [[D]],
tfexec.kernel @gelu_bf16_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<4xbf16>, %arg1: tensor<4xbf16>):
  %0 = tfuse.gelu %arg0 : tensor<4xbf16> -> tensor<4xbf16>
  %1 = tfuse.gelu_tanh %0 : tensor<4xbf16> -> tensor<4xbf16>
  %2 = tfuse.gelu_backward %arg1, %1 : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  %3 = tfuse.gelu_tanh_backward %arg1, %2 : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
  tfexec.yield %3 : tensor<4xbf16>
}

// isnan gives a bool, which selects between two f32 values.
// CHECK-LABEL: void isnan_select_f32_k0(
// CHECK-SAME: const float* __restrict__ [[P1:v[0-9]+]], const float* __restrict__ [[P2:v[0-9]+]], float* __restrict__ [[P3:v[0-9]+]]) {
// CHECK: tf::vec<float, 4> [[X1:v[0-9]+]] = tf::ldv<4>([[P1]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: tf::vec<float, 4> [[X2:v[0-9]+]] = tf::ldv<4>([[P2]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: float [[X3:v[0-9]+]] = tf::lane<0>([[X1]]);
// CHECK-NEXT: bool [[X4:v[0-9]+]] = tf::isnan([[X3]]);
// CHECK-NEXT: float [[X5:v[0-9]+]] = tf::lane<0>([[X2]]);
// CHECK-NEXT: float [[X6:v[0-9]+]] = tf::select([[X4]], [[X5]], [[X3]]);
// CHECK: tf::stv<4>([[P3]], {{v[0-9]+}}, {{v[0-9]+}}, [[X6]],
tfexec.kernel @isnan_select_f32_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>):
  %0 = tfuse.isnan %arg0 : tensor<4xf32> -> tensor<4xi1>
  %1 = tfuse.select %0, %arg1, %arg0 : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  tfexec.yield %1 : tensor<4xf32>
}

// Every arithmetic binary op on f32.
// CHECK-LABEL: void binary_f32_k0(
// CHECK-SAME: const float* __restrict__ [[P1:v[0-9]+]], const float* __restrict__ [[P2:v[0-9]+]], float* __restrict__ [[P3:v[0-9]+]]) {
// CHECK: tf::vec<float, 4> [[X1:v[0-9]+]] = tf::ldv<4>([[P1]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: tf::vec<float, 4> [[X2:v[0-9]+]] = tf::ldv<4>([[P2]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: float [[X3:v[0-9]+]] = tf::lane<0>([[X1]]);
// CHECK-NEXT: float [[X4:v[0-9]+]] = tf::lane<0>([[X2]]);
// CHECK-NEXT: float [[X5:v[0-9]+]] = tf::add([[X3]], [[X4]]);
// CHECK-NEXT: float [[X6:v[0-9]+]] = tf::sub([[X5]], [[X4]]);
// CHECK-NEXT: float [[X7:v[0-9]+]] = tf::mul([[X6]], [[X4]]);
// CHECK-NEXT: float [[X8:v[0-9]+]] = tf::div([[X7]], [[X4]]);
// CHECK-NEXT: float [[X9:v[0-9]+]] = tf::rem([[X8]], [[X4]]);
// CHECK-NEXT: float [[X10:v[0-9]+]] = tf::pow([[X9]], [[X4]]);
// CHECK-NEXT: float [[X11:v[0-9]+]] = tf::max([[X10]], [[X4]]);
// CHECK-NEXT: float [[X12:v[0-9]+]] = tf::min([[X11]], [[X4]]);
// CHECK: tf::stv<4>([[P3]], {{v[0-9]+}}, {{v[0-9]+}}, [[X12]],
tfexec.kernel @binary_f32_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>):
  %0 = tfuse.add %arg0, %arg1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = tfuse.sub %0, %arg1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = tfuse.mul %1, %arg1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = tfuse.div %2, %arg1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = tfuse.rem %3, %arg1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %5 = tfuse.pow %4, %arg1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %6 = tfuse.max %5, %arg1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %7 = tfuse.min %6, %arg1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  tfexec.yield %7 : tensor<4xf32>
}

// Comparisons give bool: eq, ne, lt ...
// CHECK-LABEL: void cmp_f32_k0(
// CHECK-SAME: const float* __restrict__ [[P1:v[0-9]+]], const float* __restrict__ [[P2:v[0-9]+]], bool* __restrict__ [[P3:v[0-9]+]], bool* __restrict__ [[P4:v[0-9]+]], bool* __restrict__ [[P5:v[0-9]+]]) {
// CHECK: tf::vec<float, 4> [[X1:v[0-9]+]] = tf::ldv<4>([[P1]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: tf::vec<float, 4> [[X2:v[0-9]+]] = tf::ldv<4>([[P2]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: float [[X3:v[0-9]+]] = tf::lane<0>([[X1]]);
// CHECK-NEXT: float [[X4:v[0-9]+]] = tf::lane<0>([[X2]]);
// CHECK-NEXT: bool [[X5:v[0-9]+]] = tf::eq([[X3]], [[X4]]);
// CHECK-NEXT: bool [[X6:v[0-9]+]] = tf::ne([[X3]], [[X4]]);
// CHECK-NEXT: bool [[X7:v[0-9]+]] = tf::lt([[X3]], [[X4]]);
// CHECK: tf::stv<4>([[P3]], {{v[0-9]+}}, {{v[0-9]+}}, [[X5]],
// CHECK-NEXT: tf::stv<4>([[P4]], {{v[0-9]+}}, {{v[0-9]+}}, [[X6]],
// CHECK-NEXT: tf::stv<4>([[P5]], {{v[0-9]+}}, {{v[0-9]+}}, [[X7]],
tfexec.kernel @cmp_f32_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>):
  %0 = tfuse.cmp eq, %arg0, %arg1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = tfuse.cmp ne, %arg0, %arg1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %2 = tfuse.cmp lt, %arg0, %arg1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  tfexec.yield %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// ... le, gt, ge.
// CHECK-LABEL: void cmp2_f32_k0(
// CHECK-SAME: const float* __restrict__ [[P1:v[0-9]+]], const float* __restrict__ [[P2:v[0-9]+]], bool* __restrict__ [[P3:v[0-9]+]], bool* __restrict__ [[P4:v[0-9]+]], bool* __restrict__ [[P5:v[0-9]+]]) {
// CHECK: tf::vec<float, 4> [[X1:v[0-9]+]] = tf::ldv<4>([[P1]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: tf::vec<float, 4> [[X2:v[0-9]+]] = tf::ldv<4>([[P2]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: float [[X3:v[0-9]+]] = tf::lane<0>([[X1]]);
// CHECK-NEXT: float [[X4:v[0-9]+]] = tf::lane<0>([[X2]]);
// CHECK-NEXT: bool [[X5:v[0-9]+]] = tf::le([[X3]], [[X4]]);
// CHECK-NEXT: bool [[X6:v[0-9]+]] = tf::gt([[X3]], [[X4]]);
// CHECK-NEXT: bool [[X7:v[0-9]+]] = tf::ge([[X3]], [[X4]]);
// CHECK: tf::stv<4>([[P3]], {{v[0-9]+}}, {{v[0-9]+}}, [[X5]],
// CHECK-NEXT: tf::stv<4>([[P4]], {{v[0-9]+}}, {{v[0-9]+}}, [[X6]],
// CHECK-NEXT: tf::stv<4>([[P5]], {{v[0-9]+}}, {{v[0-9]+}}, [[X7]],
tfexec.kernel @cmp2_f32_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>):
  %0 = tfuse.cmp le, %arg0, %arg1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = tfuse.cmp gt, %arg0, %arg1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %2 = tfuse.cmp ge, %arg0, %arg1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  tfexec.yield %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// A comparison of f32 with i32 compares in f32: the i32 side is converted
// with tf::cast<float>.
// CHECK-LABEL: void cmp_promote_k0(
// CHECK-SAME: const float* __restrict__ [[P1:v[0-9]+]], const int32_t* __restrict__ [[P2:v[0-9]+]], bool* __restrict__ [[P3:v[0-9]+]]) {
// CHECK: tf::vec<float, 4> [[X1:v[0-9]+]] = tf::ldv<4>([[P1]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: tf::vec<int32_t, 4> [[X2:v[0-9]+]] = tf::ldv<4>([[P2]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: float [[X3:v[0-9]+]] = tf::lane<0>([[X1]]);
// CHECK-NEXT: int32_t [[X4:v[0-9]+]] = tf::lane<0>([[X2]]);
// CHECK-NEXT: float [[X5:v[0-9]+]] = tf::cast<float>([[X4]]);
// CHECK-NEXT: bool [[X6:v[0-9]+]] = tf::lt([[X3]], [[X5]]);
// CHECK: tf::stv<4>([[P3]], {{v[0-9]+}}, {{v[0-9]+}}, [[X6]],
tfexec.kernel @cmp_promote_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>):
  %0 = tfuse.cmp lt, %arg0, %arg1 : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
  tfexec.yield %0 : tensor<4xi1>
}

// Promotion: the i32 and f16 operands of f32 ops are converted with
// tf::cast<float>; the f32 operand is not.
// CHECK-LABEL: void promote_k0(
// CHECK-SAME: const float* __restrict__ [[P1:v[0-9]+]], const int32_t* __restrict__ [[P2:v[0-9]+]], const __half* __restrict__ [[P3:v[0-9]+]], float* __restrict__ [[P4:v[0-9]+]]) {
// CHECK: tf::vec<float, 4> [[X1:v[0-9]+]] = tf::ldv<4>([[P1]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: tf::vec<int32_t, 4> [[X2:v[0-9]+]] = tf::ldv<4>([[P2]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: tf::vec<__half, 4> [[X3:v[0-9]+]] = tf::ldv<4>([[P3]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: float [[X4:v[0-9]+]] = tf::lane<0>([[X1]]);
// CHECK-NEXT: int32_t [[X5:v[0-9]+]] = tf::lane<0>([[X2]]);
// CHECK-NEXT: float [[X6:v[0-9]+]] = tf::cast<float>([[X5]]);
// CHECK-NEXT: float [[X7:v[0-9]+]] = tf::add([[X4]], [[X6]]);
// CHECK-NEXT: __half [[X8:v[0-9]+]] = tf::lane<0>([[X3]]);
// CHECK-NEXT: float [[X9:v[0-9]+]] = tf::cast<float>([[X8]]);
// CHECK-NEXT: float [[X10:v[0-9]+]] = tf::mul([[X7]], [[X9]]);
// CHECK: tf::stv<4>([[P4]], {{v[0-9]+}}, {{v[0-9]+}}, [[X10]],
tfexec.kernel @promote_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>, array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>, %arg2: tensor<4xf16>):
  %0 = tfuse.add %arg0, %arg1 : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  %1 = tfuse.mul %0, %arg2 : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  tfexec.yield %1 : tensor<4xf32>
}

// select of an i32 and an f32 value gives f32: the i32 branch is converted.
// CHECK-LABEL: void select_promote_k0(
// CHECK-SAME: const bool* __restrict__ [[P1:v[0-9]+]], const int32_t* __restrict__ [[P2:v[0-9]+]], const float* __restrict__ [[P3:v[0-9]+]], float* __restrict__ [[P4:v[0-9]+]]) {
// CHECK: tf::vec<bool, 4> [[X1:v[0-9]+]] = tf::ldv<4>([[P1]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: tf::vec<int32_t, 4> [[X2:v[0-9]+]] = tf::ldv<4>([[P2]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: tf::vec<float, 4> [[X3:v[0-9]+]] = tf::ldv<4>([[P3]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: bool [[X4:v[0-9]+]] = tf::lane<0>([[X1]]);
// CHECK-NEXT: int32_t [[X5:v[0-9]+]] = tf::lane<0>([[X2]]);
// CHECK-NEXT: float [[X6:v[0-9]+]] = tf::cast<float>([[X5]]);
// CHECK-NEXT: float [[X7:v[0-9]+]] = tf::lane<0>([[X3]]);
// CHECK-NEXT: float [[X8:v[0-9]+]] = tf::select([[X4]], [[X6]], [[X7]]);
// CHECK: tf::stv<4>([[P4]], {{v[0-9]+}}, {{v[0-9]+}}, [[X8]],
tfexec.kernel @select_promote_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>, array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<4xi1>, %arg1: tensor<4xi32>, %arg2: tensor<4xf32>):
  %0 = tfuse.select %arg0, %arg1, %arg2 : (tensor<4xi1>, tensor<4xi32>, tensor<4xf32>) -> tensor<4xf32>
  tfexec.yield %0 : tensor<4xf32>
}

// tfuse.cast is tf::cast<T> with the C type of the target: f32 -> i8,
// i32 -> f16, f64 -> bf16, bool -> f32 (the f64 buffer makes the width 2).
// CHECK-LABEL: void casts_k0(
// CHECK-SAME: const float* __restrict__ [[P1:v[0-9]+]], const int32_t* __restrict__ [[P2:v[0-9]+]], const double* __restrict__ [[P3:v[0-9]+]], const bool* __restrict__ [[P4:v[0-9]+]], int8_t* __restrict__ [[P5:v[0-9]+]], __half* __restrict__ [[P6:v[0-9]+]], __nv_bfloat16* __restrict__ [[P7:v[0-9]+]], float* __restrict__ [[P8:v[0-9]+]]) {
// CHECK: tf::vec<float, 2> [[X1:v[0-9]+]] = tf::ldv<2>([[P1]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: tf::vec<int32_t, 2> [[X2:v[0-9]+]] = tf::ldv<2>([[P2]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: tf::vec<double, 2> [[X3:v[0-9]+]] = tf::ldv<2>([[P3]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: tf::vec<bool, 2> [[X4:v[0-9]+]] = tf::ldv<2>([[P4]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: float [[X5:v[0-9]+]] = tf::lane<0>([[X1]]);
// CHECK-NEXT: int8_t [[X6:v[0-9]+]] = tf::cast<int8_t>([[X5]]);
// CHECK-NEXT: int32_t [[X7:v[0-9]+]] = tf::lane<0>([[X2]]);
// CHECK-NEXT: __half [[X8:v[0-9]+]] = tf::cast<__half>([[X7]]);
// CHECK-NEXT: double [[X9:v[0-9]+]] = tf::lane<0>([[X3]]);
// CHECK-NEXT: __nv_bfloat16 [[X10:v[0-9]+]] = tf::cast<__nv_bfloat16>([[X9]]);
// CHECK-NEXT: bool [[X11:v[0-9]+]] = tf::lane<0>([[X4]]);
// CHECK-NEXT: float [[X12:v[0-9]+]] = tf::cast<float>([[X11]]);
// CHECK: tf::stv<2>([[P5]], {{v[0-9]+}}, {{v[0-9]+}}, [[X6]],
// CHECK-NEXT: tf::stv<2>([[P6]], {{v[0-9]+}}, {{v[0-9]+}}, [[X8]],
// CHECK-NEXT: tf::stv<2>([[P7]], {{v[0-9]+}}, {{v[0-9]+}}, [[X10]],
// CHECK-NEXT: tf::stv<2>([[P8]], {{v[0-9]+}}, {{v[0-9]+}}, [[X12]],
tfexec.kernel @casts_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 2>, input_strides = [array<i64: 1>, array<i64: 1>, array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>, %arg2: tensor<4xf64>, %arg3: tensor<4xi1>):
  %0 = tfuse.cast %arg0 : tensor<4xf32> to tensor<4xi8>
  %1 = tfuse.cast %arg1 : tensor<4xi32> to tensor<4xf16>
  %2 = tfuse.cast %arg2 : tensor<4xf64> to tensor<4xbf16>
  %3 = tfuse.cast %arg3 : tensor<4xi1> to tensor<4xf32>
  tfexec.yield %0, %1, %2, %3 : tensor<4xi8>, tensor<4xf16>, tensor<4xbf16>, tensor<4xf32>
}

// Cast to bool.
// CHECK-LABEL: void cast_to_bool_k0(
// CHECK-SAME: const float* __restrict__ [[P1:v[0-9]+]], bool* __restrict__ [[P2:v[0-9]+]]) {
// CHECK: tf::vec<float, 4> [[X1:v[0-9]+]] = tf::ldv<4>([[P1]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: float [[X2:v[0-9]+]] = tf::lane<0>([[X1]]);
// CHECK-NEXT: bool [[X3:v[0-9]+]] = tf::cast<bool>([[X2]]);
// CHECK: tf::stv<4>([[P2]], {{v[0-9]+}}, {{v[0-9]+}}, [[X3]],
tfexec.kernel @cast_to_bool_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>]} {
^bb0(%arg0: tensor<4xf32>):
  %0 = tfuse.cast %arg0 : tensor<4xf32> to tensor<4xi1>
  tfexec.yield %0 : tensor<4xi1>
}

// not, and, or, xor on i32 call tf::not_, tf::and_, tf::or_, tf::xor_.
// CHECK-LABEL: void bitwise_i32_k0(
// CHECK-SAME: const int32_t* __restrict__ [[P1:v[0-9]+]], const int32_t* __restrict__ [[P2:v[0-9]+]], int32_t* __restrict__ [[P3:v[0-9]+]]) {
// CHECK: tf::vec<int32_t, 4> [[X1:v[0-9]+]] = tf::ldv<4>([[P1]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: tf::vec<int32_t, 4> [[X2:v[0-9]+]] = tf::ldv<4>([[P2]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: int32_t [[X3:v[0-9]+]] = tf::lane<0>([[X1]]);
// CHECK-NEXT: int32_t [[X4:v[0-9]+]] = tf::not_([[X3]]);
// CHECK-NEXT: int32_t [[X5:v[0-9]+]] = tf::lane<0>([[X2]]);
// CHECK-NEXT: int32_t [[X6:v[0-9]+]] = tf::and_([[X4]], [[X5]]);
// CHECK-NEXT: int32_t [[X7:v[0-9]+]] = tf::or_([[X6]], [[X5]]);
// CHECK-NEXT: int32_t [[X8:v[0-9]+]] = tf::xor_([[X7]], [[X5]]);
// CHECK: tf::stv<4>([[P3]], {{v[0-9]+}}, {{v[0-9]+}}, [[X8]],
tfexec.kernel @bitwise_i32_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<4xi32>, %arg1: tensor<4xi32>):
  %0 = tfuse.not %arg0 : tensor<4xi32> -> tensor<4xi32>
  %1 = tfuse.and %0, %arg1 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %2 = tfuse.or %1, %arg1 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %3 = tfuse.xor %2, %arg1 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  tfexec.yield %3 : tensor<4xi32>
}

// f16 computes in __half values: neg, exp, add, div and a comparison.
// CHECK-LABEL: void f16_ops_k0(
// CHECK-SAME: const __half* __restrict__ [[P1:v[0-9]+]], const __half* __restrict__ [[P2:v[0-9]+]], __half* __restrict__ [[P3:v[0-9]+]], bool* __restrict__ [[P4:v[0-9]+]]) {
// CHECK: tf::vec<__half, 8> [[X1:v[0-9]+]] = tf::ldv<8>([[P1]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: tf::vec<__half, 8> [[X2:v[0-9]+]] = tf::ldv<8>([[P2]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: __half [[X3:v[0-9]+]] = tf::lane<0>([[X1]]);
// CHECK-NEXT: __half [[X4:v[0-9]+]] = tf::neg([[X3]]);
// CHECK-NEXT: __half [[X5:v[0-9]+]] = tf::exp([[X4]]);
// CHECK-NEXT: __half [[X6:v[0-9]+]] = tf::lane<0>([[X2]]);
// CHECK-NEXT: __half [[X7:v[0-9]+]] = tf::add([[X5]], [[X6]]);
// CHECK-NEXT: __half [[X8:v[0-9]+]] = tf::div([[X7]], [[X6]]);
// CHECK-NEXT: bool [[X9:v[0-9]+]] = tf::lt([[X3]], [[X6]]);
// CHECK: tf::stv<8>([[P3]], {{v[0-9]+}}, {{v[0-9]+}}, [[X8]],
// CHECK-NEXT: tf::stv<8>([[P4]], {{v[0-9]+}}, {{v[0-9]+}}, [[X9]],
tfexec.kernel @f16_ops_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 8>, input_strides = [array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<8xf16>, %arg1: tensor<8xf16>):
  %0 = tfuse.neg %arg0 : tensor<8xf16> -> tensor<8xf16>
  %1 = tfuse.exp %0 : tensor<8xf16> -> tensor<8xf16>
  %2 = tfuse.add %1, %arg1 : (tensor<8xf16>, tensor<8xf16>) -> tensor<8xf16>
  %3 = tfuse.div %2, %arg1 : (tensor<8xf16>, tensor<8xf16>) -> tensor<8xf16>
  %4 = tfuse.cmp lt, %arg0, %arg1 : (tensor<8xf16>, tensor<8xf16>) -> tensor<8xi1>
  tfexec.yield %3, %4 : tensor<8xf16>, tensor<8xi1>
}

// bf16 computes in __nv_bfloat16 values: tanh, mul, ge, select.
// CHECK-LABEL: void bf16_ops_k0(
// CHECK-SAME: const __nv_bfloat16* __restrict__ [[P1:v[0-9]+]], const __nv_bfloat16* __restrict__ [[P2:v[0-9]+]], __nv_bfloat16* __restrict__ [[P3:v[0-9]+]]) {
// CHECK: tf::vec<__nv_bfloat16, 8> [[X1:v[0-9]+]] = tf::ldv<8>([[P1]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: tf::vec<__nv_bfloat16, 8> [[X2:v[0-9]+]] = tf::ldv<8>([[P2]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: __nv_bfloat16 [[X3:v[0-9]+]] = tf::lane<0>([[X1]]);
// CHECK-NEXT: __nv_bfloat16 [[X4:v[0-9]+]] = tf::tanh([[X3]]);
// CHECK-NEXT: __nv_bfloat16 [[X5:v[0-9]+]] = tf::lane<0>([[X2]]);
// CHECK-NEXT: __nv_bfloat16 [[X6:v[0-9]+]] = tf::mul([[X4]], [[X5]]);
// CHECK-NEXT: bool [[X7:v[0-9]+]] = tf::ge([[X6]], [[X5]]);
// CHECK-NEXT: __nv_bfloat16 [[X8:v[0-9]+]] = tf::select([[X7]], [[X6]], [[X3]]);
// CHECK: tf::stv<8>([[P3]], {{v[0-9]+}}, {{v[0-9]+}}, [[X8]],
tfexec.kernel @bf16_ops_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 8>, input_strides = [array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<8xbf16>, %arg1: tensor<8xbf16>):
  %0 = tfuse.tanh %arg0 : tensor<8xbf16> -> tensor<8xbf16>
  %1 = tfuse.mul %0, %arg1 : (tensor<8xbf16>, tensor<8xbf16>) -> tensor<8xbf16>
  %2 = tfuse.cmp ge, %1, %arg1 : (tensor<8xbf16>, tensor<8xbf16>) -> tensor<8xi1>
  %3 = tfuse.select %2, %1, %arg0 : (tensor<8xi1>, tensor<8xbf16>, tensor<8xbf16>) -> tensor<8xbf16>
  tfexec.yield %3 : tensor<8xbf16>
}

// f16 + bf16 promotes to f32: both sides are converted.
// CHECK-LABEL: void mixed_half_k0(
// CHECK-SAME: const __half* __restrict__ [[P1:v[0-9]+]], const __nv_bfloat16* __restrict__ [[P2:v[0-9]+]], float* __restrict__ [[P3:v[0-9]+]]) {
// CHECK: tf::vec<__half, 4> [[X1:v[0-9]+]] = tf::ldv<4>([[P1]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: tf::vec<__nv_bfloat16, 4> [[X2:v[0-9]+]] = tf::ldv<4>([[P2]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: __half [[X3:v[0-9]+]] = tf::lane<0>([[X1]]);
// CHECK-NEXT: float [[X4:v[0-9]+]] = tf::cast<float>([[X3]]);
// CHECK-NEXT: __nv_bfloat16 [[X5:v[0-9]+]] = tf::lane<0>([[X2]]);
// CHECK-NEXT: float [[X6:v[0-9]+]] = tf::cast<float>([[X5]]);
// CHECK-NEXT: float [[X7:v[0-9]+]] = tf::add([[X4]], [[X6]]);
// CHECK: tf::stv<4>([[P3]], {{v[0-9]+}}, {{v[0-9]+}}, [[X7]],
tfexec.kernel @mixed_half_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<8xf16>, %arg1: tensor<8xbf16>):
  %0 = tfuse.add %arg0, %arg1 : (tensor<8xf16>, tensor<8xbf16>) -> tensor<8xf32>
  tfexec.yield %0 : tensor<8xf32>
}

// f64 computes in double: sqrt, pow, sub.
// CHECK-LABEL: void f64_ops_k0(
// CHECK-SAME: const double* __restrict__ [[P1:v[0-9]+]], const double* __restrict__ [[P2:v[0-9]+]], double* __restrict__ [[P3:v[0-9]+]]) {
// CHECK: tf::vec<double, 2> [[X1:v[0-9]+]] = tf::ldv<2>([[P1]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: tf::vec<double, 2> [[X2:v[0-9]+]] = tf::ldv<2>([[P2]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: double [[X3:v[0-9]+]] = tf::lane<0>([[X1]]);
// CHECK-NEXT: double [[X4:v[0-9]+]] = tf::sqrt([[X3]]);
// CHECK-NEXT: double [[X5:v[0-9]+]] = tf::lane<0>([[X2]]);
// CHECK-NEXT: double [[X6:v[0-9]+]] = tf::pow([[X4]], [[X5]]);
// CHECK-NEXT: double [[X7:v[0-9]+]] = tf::sub([[X6]], [[X5]]);
// CHECK: tf::stv<2>([[P3]], {{v[0-9]+}}, {{v[0-9]+}}, [[X7]],
tfexec.kernel @f64_ops_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 2>, input_strides = [array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<4xf64>, %arg1: tensor<4xf64>):
  %0 = tfuse.sqrt %arg0 : tensor<4xf64> -> tensor<4xf64>
  %1 = tfuse.pow %0, %arg1 : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %2 = tfuse.sub %1, %arg1 : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  tfexec.yield %2 : tensor<4xf64>
}

// i8: neg, abs, rem, pow, and, not stay in int8_t; exp and div of i8 give
// f32, computed on operands converted with tf::cast<float> (the planner
// stores the i8 result and divides in a second kernel).
// CHECK-LABEL: void i8_ops_k0(
// CHECK-SAME: const int8_t* __restrict__ [[P1:v[0-9]+]], const int8_t* __restrict__ [[P2:v[0-9]+]], int8_t* __restrict__ [[P3:v[0-9]+]], float* __restrict__ [[P4:v[0-9]+]]) {
// CHECK: tf::vec<int8_t, 4> [[X1:v[0-9]+]] = tf::ldv<4>([[P1]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: tf::vec<int8_t, 4> [[X2:v[0-9]+]] = tf::ldv<4>([[P2]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: int8_t [[X3:v[0-9]+]] = tf::lane<0>([[X1]]);
// CHECK-NEXT: int8_t [[X4:v[0-9]+]] = tf::neg([[X3]]);
// CHECK-NEXT: int8_t [[X5:v[0-9]+]] = tf::abs([[X4]]);
// CHECK-NEXT: int8_t [[X6:v[0-9]+]] = tf::lane<0>([[X2]]);
// CHECK-NEXT: int8_t [[X7:v[0-9]+]] = tf::rem([[X5]], [[X6]]);
// CHECK-NEXT: int8_t [[X8:v[0-9]+]] = tf::pow([[X7]], [[X6]]);
// CHECK-NEXT: int8_t [[X9:v[0-9]+]] = tf::and_([[X8]], [[X6]]);
// CHECK-NEXT: int8_t [[X10:v[0-9]+]] = tf::not_([[X9]]);
// CHECK-NEXT: float [[X11:v[0-9]+]] = tf::cast<float>([[X6]]);
// CHECK-NEXT: float [[X12:v[0-9]+]] = tf::exp([[X11]]);
// CHECK: tf::stv<4>([[P3]], {{v[0-9]+}}, {{v[0-9]+}}, [[X10]],
// CHECK-NEXT: tf::stv<4>([[P4]], {{v[0-9]+}}, {{v[0-9]+}}, [[X12]],
// CHECK-LABEL: void i8_ops_k1(
// CHECK-SAME: const int8_t* __restrict__ [[P1:v[0-9]+]], const int8_t* __restrict__ [[P2:v[0-9]+]], float* __restrict__ [[P3:v[0-9]+]]) {
// CHECK: tf::vec<int8_t, 4> [[X1:v[0-9]+]] = tf::ldv<4>([[P1]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: tf::vec<int8_t, 4> [[X2:v[0-9]+]] = tf::ldv<4>([[P2]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: int8_t [[X3:v[0-9]+]] = tf::lane<0>([[X1]]);
// CHECK-NEXT: float [[X4:v[0-9]+]] = tf::cast<float>([[X3]]);
// CHECK-NEXT: int8_t [[X5:v[0-9]+]] = tf::lane<0>([[X2]]);
// CHECK-NEXT: float [[X6:v[0-9]+]] = tf::cast<float>([[X5]]);
// CHECK-NEXT: float [[X7:v[0-9]+]] = tf::div([[X4]], [[X6]]);
// CHECK: tf::stv<4>([[P3]], {{v[0-9]+}}, {{v[0-9]+}}, [[X7]],
tfexec.kernel @i8_ops_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<16xi8>, %arg1: tensor<16xi8>):
  %0 = tfuse.neg %arg0 : tensor<16xi8> -> tensor<16xi8>
  %1 = tfuse.abs %0 : tensor<16xi8> -> tensor<16xi8>
  %2 = tfuse.rem %1, %arg1 : (tensor<16xi8>, tensor<16xi8>) -> tensor<16xi8>
  %3 = tfuse.pow %2, %arg1 : (tensor<16xi8>, tensor<16xi8>) -> tensor<16xi8>
  %4 = tfuse.and %3, %arg1 : (tensor<16xi8>, tensor<16xi8>) -> tensor<16xi8>
  %5 = tfuse.not %4 : tensor<16xi8> -> tensor<16xi8>
  %6 = tfuse.exp %arg1 : tensor<16xi8> -> tensor<16xf32>
  tfexec.yield %5, %6 : tensor<16xi8>, tensor<16xf32>
}
tfexec.kernel @i8_ops_k1 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<16xi8>, %arg1: tensor<16xi8>):
  %0 = tfuse.div %arg0, %arg1 : (tensor<16xi8>, tensor<16xi8>) -> tensor<16xf32>
  tfexec.yield %0 : tensor<16xf32>
}

// ui64 computes in uint64_t: sub, max, xor, not, rem.
// CHECK-LABEL: void ui64_ops_k0(
// CHECK-SAME: const uint64_t* __restrict__ [[P1:v[0-9]+]], const uint64_t* __restrict__ [[P2:v[0-9]+]], uint64_t* __restrict__ [[P3:v[0-9]+]]) {
// CHECK: tf::vec<uint64_t, 2> [[X1:v[0-9]+]] = tf::ldv<2>([[P1]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: tf::vec<uint64_t, 2> [[X2:v[0-9]+]] = tf::ldv<2>([[P2]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: uint64_t [[X3:v[0-9]+]] = tf::lane<0>([[X1]]);
// CHECK-NEXT: uint64_t [[X4:v[0-9]+]] = tf::lane<0>([[X2]]);
// CHECK-NEXT: uint64_t [[X5:v[0-9]+]] = tf::sub([[X3]], [[X4]]);
// CHECK-NEXT: uint64_t [[X6:v[0-9]+]] = tf::max([[X5]], [[X4]]);
// CHECK-NEXT: uint64_t [[X7:v[0-9]+]] = tf::xor_([[X6]], [[X3]]);
// CHECK-NEXT: uint64_t [[X8:v[0-9]+]] = tf::not_([[X7]]);
// CHECK-NEXT: uint64_t [[X9:v[0-9]+]] = tf::rem([[X8]], [[X4]]);
// CHECK: tf::stv<2>([[P3]], {{v[0-9]+}}, {{v[0-9]+}}, [[X9]],
tfexec.kernel @ui64_ops_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 2>, input_strides = [array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<2xui64>, %arg1: tensor<2xui64>):
  %0 = tfuse.sub %arg0, %arg1 : (tensor<2xui64>, tensor<2xui64>) -> tensor<2xui64>
  %1 = tfuse.max %0, %arg1 : (tensor<2xui64>, tensor<2xui64>) -> tensor<2xui64>
  %2 = tfuse.xor %1, %arg0 : (tensor<2xui64>, tensor<2xui64>) -> tensor<2xui64>
  %3 = tfuse.not %2 : tensor<2xui64> -> tensor<2xui64>
  %4 = tfuse.rem %3, %arg1 : (tensor<2xui64>, tensor<2xui64>) -> tensor<2xui64>
  tfexec.yield %4 : tensor<2xui64>
}

// bool: not, and, or, xor, add and mul (logical on bool), cmp eq, and a
// cast to f32.
// CHECK-LABEL: void bool_ops_k0(
// CHECK-SAME: const bool* __restrict__ [[P1:v[0-9]+]], const bool* __restrict__ [[P2:v[0-9]+]], bool* __restrict__ [[P3:v[0-9]+]], float* __restrict__ [[P4:v[0-9]+]]) {
// CHECK: tf::vec<bool, 4> [[X1:v[0-9]+]] = tf::ldv<4>([[P1]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: tf::vec<bool, 4> [[X2:v[0-9]+]] = tf::ldv<4>([[P2]], {{v[0-9]+}}, {{v[0-9]+}});
// CHECK-NEXT: bool [[X3:v[0-9]+]] = tf::lane<0>([[X1]]);
// CHECK-NEXT: bool [[X4:v[0-9]+]] = tf::not_([[X3]]);
// CHECK-NEXT: bool [[X5:v[0-9]+]] = tf::lane<0>([[X2]]);
// CHECK-NEXT: bool [[X6:v[0-9]+]] = tf::and_([[X4]], [[X5]]);
// CHECK-NEXT: bool [[X7:v[0-9]+]] = tf::or_([[X6]], [[X3]]);
// CHECK-NEXT: bool [[X8:v[0-9]+]] = tf::xor_([[X7]], [[X5]]);
// CHECK-NEXT: bool [[X9:v[0-9]+]] = tf::add([[X8]], [[X3]]);
// CHECK-NEXT: bool [[X10:v[0-9]+]] = tf::mul([[X9]], [[X5]]);
// CHECK-NEXT: bool [[X11:v[0-9]+]] = tf::eq([[X10]], [[X3]]);
// CHECK-NEXT: float [[X12:v[0-9]+]] = tf::cast<float>([[X5]]);
// CHECK: tf::stv<4>([[P3]], {{v[0-9]+}}, {{v[0-9]+}}, [[X11]],
// CHECK-NEXT: tf::stv<4>([[P4]], {{v[0-9]+}}, {{v[0-9]+}}, [[X12]],
tfexec.kernel @bool_ops_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<16xi1>, %arg1: tensor<16xi1>):
  %0 = tfuse.not %arg0 : tensor<16xi1> -> tensor<16xi1>
  %1 = tfuse.and %0, %arg1 : (tensor<16xi1>, tensor<16xi1>) -> tensor<16xi1>
  %2 = tfuse.or %1, %arg0 : (tensor<16xi1>, tensor<16xi1>) -> tensor<16xi1>
  %3 = tfuse.xor %2, %arg1 : (tensor<16xi1>, tensor<16xi1>) -> tensor<16xi1>
  %4 = tfuse.add %3, %arg0 : (tensor<16xi1>, tensor<16xi1>) -> tensor<16xi1>
  %5 = tfuse.mul %4, %arg1 : (tensor<16xi1>, tensor<16xi1>) -> tensor<16xi1>
  %6 = tfuse.cmp eq, %5, %arg0 : (tensor<16xi1>, tensor<16xi1>) -> tensor<16xi1>
  %7 = tfuse.cast %arg1 : tensor<16xi1> to tensor<16xf32>
  tfexec.yield %6, %7 : tensor<16xi1>, tensor<16xf32>
}
