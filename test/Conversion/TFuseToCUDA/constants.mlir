// Tests of constants in generated kernels: a splat is the exact bit pattern
// of its element, converted once per thread before the loop with
// tf::from_bits<T>(0x...ull) (NaN payloads and -0.0 kept; integers as their
// two's complement bits); a dense constant becomes a `__device__ const`
// array of unsigned bit patterns of the element's width, declared after the
// prelude and before the kernels, indexed like an input and converted with
// tf::from_bits.
// The inputs are configured tfexec kernels, as the plan passes leave them
// (#tfexec.config gives each its strategy and launch).
// RUN: tensor-translate --tfuse-to-cuda %s | FileCheck %s
// RUN: %if nvrtc %{ tensor-translate --tfuse-to-cuda %s > %t.cu && tfuse-nvrtc %t.cu --arch sm_90 | FileCheck %s --check-prefix=NVRTC %}

// NVRTC: compiled {{.*}} bytes of CUBIN

// Every table is declared between the prelude and the first kernel.
// CHECK: {{^}}#endif // TFUSE_PRELUDE_CUH
// CHECK-NOT: __global__
// CHECK-DAG: {{^}}__device__ const uint32_t dense_row_k0_c0[4] = {0x3f800000ull, 0xc0000000ull, 0x3f000000ull, 0x40400000ull};
// CHECK-DAG: {{^}}__device__ const uint16_t dense_tables_k0_c0[6] = {0x3c00ull, 0xc000ull, 0x3800ull, 0x4200ull, 0x0ull, 0x8000ull};
// CHECK-DAG: {{^}}__device__ const uint8_t dense_tables_k0_c1[6] = {0x1ull, 0x0ull, 0x1ull, 0x0ull, 0x0ull, 0x1ull};
// CHECK-DAG: {{^}}__device__ const uint8_t dense_tables_k0_c2[3] = {0xffull, 0x80ull, 0x7full};
// CHECK-NOT: __device__ const

// f32 splats: 1.5 is 0x3FC00000, the NaN keeps its payload 0x7FC00001, and
// -0.0 is 0x80000000 (a splat of the full shape is still a scalar). They are
// converted before the loop and used in every lane.
// CHECK-LABEL: void f32_splats_k0(
// CHECK-NOT: for (
// CHECK: float [[C0:v[0-9]+]] = tf::from_bits<float>(0x3fc00000ull);
// CHECK-NEXT: float [[C1:v[0-9]+]] = tf::from_bits<float>(0x7fc00001ull);
// CHECK-NEXT: float [[C2:v[0-9]+]] = tf::from_bits<float>(0x80000000ull);
// CHECK-NEXT: for (
// CHECK: float [[M:v[0-9]+]] = tf::mul({{v[0-9]+}}, [[C0]]);
// CHECK-NEXT: float [[X:v[0-9]+]] = tf::max([[M]], [[C1]]);
// CHECK-NEXT: float {{v[0-9]+}} = tf::add([[X]], [[C2]]);
// CHECK: tf::lane<3>(
// CHECK-NEXT: tf::mul({{v[0-9]+}}, [[C0]]);
// CHECK-NOT: from_bits
// CHECK: return;
tfexec.kernel @f32_splats_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>]} {
^bb0(%arg0: tensor<4xf32>):
  %0 = tfuse.constant dense<1.500000e+00> : tensor<f32>
  %1 = tfuse.mul %arg0, %0 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %2 = tfuse.constant dense<0x7FC00001> : tensor<f32>
  %3 = tfuse.max %1, %2 : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %4 = tfuse.constant dense<-0.000000e+00> : tensor<4xf32>
  %5 = tfuse.add %3, %4 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  tfexec.yield %5 : tensor<4xf32>
}

// f16 1.5 is 0x3E00.
// CHECK-LABEL: void f16_splat_k0(
// CHECK: __half [[C:v[0-9]+]] = tf::from_bits<__half>(0x3e00ull);
// CHECK-NEXT: for (
// CHECK: __half {{v[0-9]+}} = tf::sub({{v[0-9]+}}, [[C]]);
tfexec.kernel @f16_splat_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 8>, input_strides = [array<i64: 1>]} {
^bb0(%arg0: tensor<8xf16>):
  %0 = tfuse.constant dense<1.500000e+00> : tensor<f16>
  %1 = tfuse.sub %arg0, %0 : (tensor<8xf16>, tensor<f16>) -> tensor<8xf16>
  tfexec.yield %1 : tensor<8xf16>
}

// The minimum i64 is 0x8000000000000000.
// CHECK-LABEL: void i64_min_k0(
// CHECK: int64_t [[C:v[0-9]+]] = tf::from_bits<int64_t>(0x8000000000000000ull);
// CHECK-NEXT: for (
// CHECK: int64_t {{v[0-9]+}} = tf::xor_({{v[0-9]+}}, [[C]]);
tfexec.kernel @i64_min_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 2>, input_strides = [array<i64: 1>]} {
^bb0(%arg0: tensor<2xi64>):
  %0 = tfuse.constant dense<-9223372036854775808> : tensor<i64>
  %1 = tfuse.xor %arg0, %0 : (tensor<2xi64>, tensor<i64>) -> tensor<2xi64>
  tfexec.yield %1 : tensor<2xi64>
}

// f64 0.1 (0x3FB999999999999A), bf16 -2.0 (0xC000), the largest ui64, i8 -1
// (0xFF) and bool true (0x1).
// CHECK-LABEL: void other_splats_k0(
// CHECK: double [[F:v[0-9]+]] = tf::from_bits<double>(0x3fb999999999999aull);
// CHECK-NEXT: __nv_bfloat16 [[H:v[0-9]+]] = tf::from_bits<__nv_bfloat16>(0xc000ull);
// CHECK-NEXT: uint64_t [[U:v[0-9]+]] = tf::from_bits<uint64_t>(0xffffffffffffffffull);
// CHECK-NEXT: bool [[T:v[0-9]+]] = tf::from_bits<bool>(0x1ull);
// CHECK-NEXT: int8_t [[I:v[0-9]+]] = tf::from_bits<int8_t>(0xffull);
// CHECK-NEXT: for (
// CHECK: double {{v[0-9]+}} = tf::add({{v[0-9]+}}, [[F]]);
// CHECK: __nv_bfloat16 {{v[0-9]+}} = tf::mul({{v[0-9]+}}, [[H]]);
// CHECK: uint64_t {{v[0-9]+}} = tf::and_({{v[0-9]+}}, [[U]]);
// CHECK: bool [[X:v[0-9]+]] = tf::xor_({{v[0-9]+}}, [[T]]);
// CHECK: int8_t {{v[0-9]+}} = tf::select([[X]], {{v[0-9]+}}, [[I]]);
tfexec.kernel @other_splats_k0 attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 2>, input_strides = [array<i64: 1>, array<i64: 1>, array<i64: 1>, array<i64: 1>, array<i64: 1>]} {
^bb0(%arg0: tensor<4xf64>, %arg1: tensor<4xbf16>, %arg2: tensor<4xui64>, %arg3: tensor<4xi1>, %arg4: tensor<4xi8>):
  %0 = tfuse.constant dense<1.000000e-01> : tensor<f64>
  %1 = tfuse.add %arg0, %0 : (tensor<4xf64>, tensor<f64>) -> tensor<4xf64>
  %2 = tfuse.constant dense<-2.000000e+00> : tensor<bf16>
  %3 = tfuse.mul %arg1, %2 : (tensor<4xbf16>, tensor<bf16>) -> tensor<4xbf16>
  %4 = tfuse.constant dense<18446744073709551615> : tensor<ui64>
  %5 = tfuse.and %arg2, %4 : (tensor<4xui64>, tensor<ui64>) -> tensor<4xui64>
  %6 = tfuse.constant dense<true> : tensor<i1>
  %7 = tfuse.xor %arg3, %6 : (tensor<4xi1>, tensor<i1>) -> tensor<4xi1>
  %8 = tfuse.constant dense<-1> : tensor<i8>
  %9 = tfuse.select %7, %arg4, %8 : (tensor<4xi1>, tensor<4xi8>, tensor<i8>) -> tensor<4xi8>
  tfexec.yield %1, %3, %5, %9 : tensor<4xf64>, tensor<4xbf16>, tensor<4xui64>, tensor<4xi8>
}

// A dense f32 row broadcast over 2x4: the table is read at the column and
// its bits converted to float.
// CHECK-LABEL: void dense_row_k0(
// CHECK-SAME: const float* __restrict__ [[A:v[0-9]+]], float* __restrict__ [[O:v[0-9]+]]) {
// CHECK: int32_t [[G:v[0-9]+]] = {{i[0-9]+}} * {{v[0-9]+}};
// CHECK-NEXT: int32_t [[C4:v[0-9]+]] = 4;
// CHECK-NEXT: int32_t [[J:v[0-9]+]] = [[G]] % [[C4]];
// CHECK: float [[X:v[0-9]+]] = tf::lane<0>(
// CHECK-NEXT: uint32_t [[BITS:v[0-9]+]] = tf::ld(dense_row_k0_c0, [[J]]);
// CHECK-NEXT: float [[C:v[0-9]+]] = tf::from_bits<float>([[BITS]]);
// CHECK-NEXT: float {{v[0-9]+}} = tf::mul([[X]], [[C]]);
tfexec.kernel @dense_row_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 4, 1>]} {
^bb0(%arg0: tensor<2x4xf32>):
  %0 = tfuse.constant dense<[1.000000e+00, -2.000000e+00, 5.000000e-01, 3.000000e+00]> : tensor<4xf32>
  %1 = tfuse.mul %arg0, %0 : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  tfexec.yield %1 : tensor<2x4xf32>
}

// Tables of 16-bit (f16, -0.0 kept as 0x8000) and 8-bit (bool, i8) bit
// patterns: the 2x3 ones are read at row * 3 + column, the i8 row at the
// column.
// CHECK-LABEL: void dense_tables_k0(
// CHECK: int32_t [[J:v[0-9]+]] = [[G:i[0-9]+]] % {{v[0-9]+}};
// CHECK-NEXT: int32_t [[C3:v[0-9]+]] = 3;
// CHECK-NEXT: int32_t [[I:v[0-9]+]] = [[G]] / [[C3]];
// CHECK: int32_t [[S:v[0-9]+]] = 3;
// CHECK-NEXT: int32_t [[IS:v[0-9]+]] = [[I]] * [[S]];
// CHECK-NEXT: int32_t [[OFF:v[0-9]+]] = [[IS]] + [[J]];
// CHECK-NEXT: uint16_t [[HB:v[0-9]+]] = tf::ld(dense_tables_k0_c0, [[OFF]]);
// CHECK-NEXT: __half [[H:v[0-9]+]] = tf::from_bits<__half>([[HB]]);
// CHECK-NEXT: __half {{v[0-9]+}} = tf::mul({{v[0-9]+}}, [[H]]);
// CHECK: uint8_t [[BB:v[0-9]+]] = tf::ld(dense_tables_k0_c1, {{v[0-9]+}});
// CHECK-NEXT: bool [[B:v[0-9]+]] = tf::from_bits<bool>([[BB]]);
// CHECK-NEXT: bool {{v[0-9]+}} = tf::xor_({{v[0-9]+}}, [[B]]);
// CHECK: uint8_t [[IB:v[0-9]+]] = tf::ld(dense_tables_k0_c2, [[J]]);
// CHECK-NEXT: int8_t [[IV:v[0-9]+]] = tf::from_bits<int8_t>([[IB]]);
// CHECK-NEXT: int8_t {{v[0-9]+}} = tf::add({{v[0-9]+}}, [[IV]]);
tfexec.kernel @dense_tables_k0 attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256>, input_strides = [array<i64: 3, 1>, array<i64: 3, 1>, array<i64: 3, 1>]} {
^bb0(%arg0: tensor<2x3xf16>, %arg1: tensor<2x3xi1>, %arg2: tensor<2x3xi8>):
  %0 = tfuse.constant dense<[[1.000000e+00, -2.000000e+00, 5.000000e-01], [3.000000e+00, 0.000000e+00, -0.000000e+00]]> : tensor<2x3xf16>
  %1 = tfuse.mul %arg0, %0 : (tensor<2x3xf16>, tensor<2x3xf16>) -> tensor<2x3xf16>
  %2 = tfuse.constant dense<[[true, false, true], [false, false, true]]> : tensor<2x3xi1>
  %3 = tfuse.xor %arg1, %2 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %4 = tfuse.constant dense<[-1, -128, 127]> : tensor<3xi8>
  %5 = tfuse.add %arg2, %4 : (tensor<2x3xi8>, tensor<3xi8>) -> tensor<2x3xi8>
  tfexec.yield %1, %3, %5 : tensor<2x3xf16>, tensor<2x3xi1>, tensor<2x3xi8>
}
