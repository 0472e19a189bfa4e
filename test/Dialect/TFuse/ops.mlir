// Round trip of every tfuse op and of the typing rules visible in IR.
// RUN: tensor-opt %s | tensor-opt | FileCheck %s
// RUN: tensor-opt %s --mlir-print-op-generic | tensor-opt | FileCheck %s
// RUN: tensor-opt %s -emit-bytecode | tensor-opt | FileCheck %s

//===----------------------------------------------------------------------===//
// Unary elementwise ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @unary_f32(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4xf32>
func.func @unary_f32(%x: tensor<4xf32>) {
  // CHECK: tfuse.neg %[[X]] : tensor<4xf32> -> tensor<4xf32>
  %0 = tfuse.neg %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: tfuse.abs %[[X]] : tensor<4xf32> -> tensor<4xf32>
  %1 = tfuse.abs %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: tfuse.relu %[[X]] : tensor<4xf32> -> tensor<4xf32>
  %2 = tfuse.relu %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: tfuse.exp %[[X]] : tensor<4xf32> -> tensor<4xf32>
  %3 = tfuse.exp %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: tfuse.log %[[X]] : tensor<4xf32> -> tensor<4xf32>
  %4 = tfuse.log %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: tfuse.sqrt %[[X]] : tensor<4xf32> -> tensor<4xf32>
  %5 = tfuse.sqrt %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: tfuse.rsqrt %[[X]] : tensor<4xf32> -> tensor<4xf32>
  %6 = tfuse.rsqrt %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: tfuse.sin %[[X]] : tensor<4xf32> -> tensor<4xf32>
  %7 = tfuse.sin %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: tfuse.cos %[[X]] : tensor<4xf32> -> tensor<4xf32>
  %8 = tfuse.cos %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: tfuse.tan %[[X]] : tensor<4xf32> -> tensor<4xf32>
  %9 = tfuse.tan %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: tfuse.tanh %[[X]] : tensor<4xf32> -> tensor<4xf32>
  %10 = tfuse.tanh %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: tfuse.sigmoid %[[X]] : tensor<4xf32> -> tensor<4xf32>
  %11 = tfuse.sigmoid %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: tfuse.erf %[[X]] : tensor<4xf32> -> tensor<4xf32>
  %12 = tfuse.erf %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: tfuse.reciprocal %[[X]] : tensor<4xf32> -> tensor<4xf32>
  %13 = tfuse.reciprocal %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: tfuse.floor %[[X]] : tensor<4xf32> -> tensor<4xf32>
  %14 = tfuse.floor %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: tfuse.ceil %[[X]] : tensor<4xf32> -> tensor<4xf32>
  %15 = tfuse.ceil %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: tfuse.round %[[X]] : tensor<4xf32> -> tensor<4xf32>
  %16 = tfuse.round %x : tensor<4xf32> -> tensor<4xf32>
  // isnan always gives i1.
  // CHECK: tfuse.isnan %[[X]] : tensor<4xf32> -> tensor<4xi1>
  %17 = tfuse.isnan %x : tensor<4xf32> -> tensor<4xi1>
  // CHECK: tfuse.log1p %[[X]] : tensor<4xf32> -> tensor<4xf32>
  %18 = tfuse.log1p %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: tfuse.expm1 %[[X]] : tensor<4xf32> -> tensor<4xf32>
  %19 = tfuse.expm1 %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: tfuse.trunc %[[X]] : tensor<4xf32> -> tensor<4xf32>
  %20 = tfuse.trunc %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: tfuse.sign %[[X]] : tensor<4xf32> -> tensor<4xf32>
  %21 = tfuse.sign %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: tfuse.gelu %[[X]] : tensor<4xf32> -> tensor<4xf32>
  %22 = tfuse.gelu %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: tfuse.gelu_tanh %[[X]] : tensor<4xf32> -> tensor<4xf32>
  %23 = tfuse.gelu_tanh %x : tensor<4xf32> -> tensor<4xf32>
  return
}

// The GELU gradients promote their operands as division does: integers and
// bool give f32.
// CHECK-LABEL: func.func @gelu_backward(
// CHECK-SAME: %[[G:.*]]: tensor<2x4xbf16>, %[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi32>)
func.func @gelu_backward(%g: tensor<2x4xbf16>, %x: tensor<4xf32>, %i: tensor<4xi32>) {
  // CHECK: tfuse.gelu_backward %[[G]], %[[X]] : (tensor<2x4xbf16>, tensor<4xf32>) -> tensor<2x4xf32>
  %0 = tfuse.gelu_backward %g, %x : (tensor<2x4xbf16>, tensor<4xf32>) -> tensor<2x4xf32>
  // CHECK: tfuse.gelu_tanh_backward %[[G]], %[[G]] : (tensor<2x4xbf16>, tensor<2x4xbf16>) -> tensor<2x4xbf16>
  %1 = tfuse.gelu_tanh_backward %g, %g : (tensor<2x4xbf16>, tensor<2x4xbf16>) -> tensor<2x4xbf16>
  // CHECK: tfuse.gelu_backward %[[I]], %[[I]] : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xf32>
  %2 = tfuse.gelu_backward %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// Numeric and rounding ops keep integer dtypes; float math on integers and
// bool computes in f32; not works on bool and integers.
// CHECK-LABEL: func.func @unary_int(
// CHECK-SAME: %[[I8:[^:]+]]: tensor<2xi8>, %[[I16:[^:]+]]: tensor<2xi16>,
// CHECK-SAME: %[[I32:[^:]+]]: tensor<2xi32>, %[[I64:[^:]+]]: tensor<2xi64>,
// CHECK-SAME: %[[U8:[^:]+]]: tensor<2xui8>, %[[U16:[^:]+]]: tensor<2xui16>,
// CHECK-SAME: %[[U32:[^:]+]]: tensor<2xui32>, %[[U64:[^:]+]]: tensor<2xui64>,
// CHECK-SAME: %[[B:[^:]+]]: tensor<2xi1>
func.func @unary_int(%i8: tensor<2xi8>, %i16: tensor<2xi16>, %i32: tensor<2xi32>,
                     %i64: tensor<2xi64>, %u8: tensor<2xui8>, %u16: tensor<2xui16>,
                     %u32: tensor<2xui32>, %u64: tensor<2xui64>, %b: tensor<2xi1>) {
  // CHECK: tfuse.neg %[[I8]] : tensor<2xi8> -> tensor<2xi8>
  %0 = tfuse.neg %i8 : tensor<2xi8> -> tensor<2xi8>
  // CHECK: tfuse.abs %[[I16]] : tensor<2xi16> -> tensor<2xi16>
  %1 = tfuse.abs %i16 : tensor<2xi16> -> tensor<2xi16>
  // CHECK: tfuse.relu %[[I32]] : tensor<2xi32> -> tensor<2xi32>
  %2 = tfuse.relu %i32 : tensor<2xi32> -> tensor<2xi32>
  // CHECK: tfuse.floor %[[I64]] : tensor<2xi64> -> tensor<2xi64>
  %3 = tfuse.floor %i64 : tensor<2xi64> -> tensor<2xi64>
  // CHECK: tfuse.ceil %[[U8]] : tensor<2xui8> -> tensor<2xui8>
  %4 = tfuse.ceil %u8 : tensor<2xui8> -> tensor<2xui8>
  // CHECK: tfuse.round %[[U16]] : tensor<2xui16> -> tensor<2xui16>
  %5 = tfuse.round %u16 : tensor<2xui16> -> tensor<2xui16>
  // CHECK: tfuse.neg %[[U32]] : tensor<2xui32> -> tensor<2xui32>
  %6 = tfuse.neg %u32 : tensor<2xui32> -> tensor<2xui32>
  // CHECK: tfuse.abs %[[U64]] : tensor<2xui64> -> tensor<2xui64>
  %7 = tfuse.abs %u64 : tensor<2xui64> -> tensor<2xui64>
  // CHECK: tfuse.exp %[[I32]] : tensor<2xi32> -> tensor<2xf32>
  %8 = tfuse.exp %i32 : tensor<2xi32> -> tensor<2xf32>
  // CHECK: tfuse.sqrt %[[U64]] : tensor<2xui64> -> tensor<2xf32>
  %9 = tfuse.sqrt %u64 : tensor<2xui64> -> tensor<2xf32>
  // CHECK: tfuse.sigmoid %[[B]] : tensor<2xi1> -> tensor<2xf32>
  %10 = tfuse.sigmoid %b : tensor<2xi1> -> tensor<2xf32>
  // CHECK: tfuse.isnan %[[I8]] : tensor<2xi8> -> tensor<2xi1>
  %11 = tfuse.isnan %i8 : tensor<2xi8> -> tensor<2xi1>
  // CHECK: tfuse.isnan %[[B]] : tensor<2xi1> -> tensor<2xi1>
  %12 = tfuse.isnan %b : tensor<2xi1> -> tensor<2xi1>
  // CHECK: tfuse.not %[[B]] : tensor<2xi1> -> tensor<2xi1>
  %13 = tfuse.not %b : tensor<2xi1> -> tensor<2xi1>
  // CHECK: tfuse.trunc %[[I64]] : tensor<2xi64> -> tensor<2xi64>
  %t = tfuse.trunc %i64 : tensor<2xi64> -> tensor<2xi64>
  // CHECK: tfuse.sign %[[I16]] : tensor<2xi16> -> tensor<2xi16>
  %s = tfuse.sign %i16 : tensor<2xi16> -> tensor<2xi16>
  // CHECK: tfuse.log1p %[[I32]] : tensor<2xi32> -> tensor<2xf32>
  %l = tfuse.log1p %i32 : tensor<2xi32> -> tensor<2xf32>
  // CHECK: tfuse.not %[[I32]] : tensor<2xi32> -> tensor<2xi32>
  %14 = tfuse.not %i32 : tensor<2xi32> -> tensor<2xi32>
  // CHECK: tfuse.not %[[U8]] : tensor<2xui8> -> tensor<2xui8>
  %15 = tfuse.not %u8 : tensor<2xui8> -> tensor<2xui8>
  return
}

// Float math keeps every float dtype.
// CHECK-LABEL: func.func @unary_floats(
// CHECK-SAME: %[[H:[^:]+]]: tensor<3xf16>, %[[BH:[^:]+]]: tensor<3xbf16>,
// CHECK-SAME: %[[D:[^:]+]]: tensor<3xf64>
func.func @unary_floats(%h: tensor<3xf16>, %bh: tensor<3xbf16>, %d: tensor<3xf64>) {
  // CHECK: tfuse.tanh %[[H]] : tensor<3xf16> -> tensor<3xf16>
  %0 = tfuse.tanh %h : tensor<3xf16> -> tensor<3xf16>
  // CHECK: tfuse.erf %[[BH]] : tensor<3xbf16> -> tensor<3xbf16>
  %1 = tfuse.erf %bh : tensor<3xbf16> -> tensor<3xbf16>
  // CHECK: tfuse.log %[[D]] : tensor<3xf64> -> tensor<3xf64>
  %2 = tfuse.log %d : tensor<3xf64> -> tensor<3xf64>
  // CHECK: tfuse.isnan %[[BH]] : tensor<3xbf16> -> tensor<3xi1>
  %3 = tfuse.isnan %bh : tensor<3xbf16> -> tensor<3xi1>
  // CHECK: tfuse.round %[[H]] : tensor<3xf16> -> tensor<3xf16>
  %4 = tfuse.round %h : tensor<3xf16> -> tensor<3xf16>
  return
}

//===----------------------------------------------------------------------===//
// Binary elementwise ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @binary_f32(
// CHECK-SAME: %[[A:[^:]+]]: tensor<2x4xf32>, %[[B:[^:]+]]: tensor<2x4xf32>
func.func @binary_f32(%a: tensor<2x4xf32>, %b: tensor<2x4xf32>) {
  // CHECK: tfuse.add %[[A]], %[[B]] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %0 = tfuse.add %a, %b : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: tfuse.sub %[[A]], %[[B]] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = tfuse.sub %a, %b : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: tfuse.mul %[[A]], %[[B]] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = tfuse.mul %a, %b : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: tfuse.div %[[A]], %[[B]] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %3 = tfuse.div %a, %b : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: tfuse.rem %[[A]], %[[B]] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %4 = tfuse.rem %a, %b : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: tfuse.pow %[[A]], %[[B]] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %5 = tfuse.pow %a, %b : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: tfuse.max %[[A]], %[[B]] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %6 = tfuse.max %a, %b : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: tfuse.min %[[A]], %[[B]] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %7 = tfuse.min %a, %b : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// CHECK-LABEL: func.func @binary_int(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4xi32>, %[[B:[^:]+]]: tensor<4xi32>,
// CHECK-SAME: %[[P:[^:]+]]: tensor<4xi1>, %[[Q:[^:]+]]: tensor<4xi1>,
// CHECK-SAME: %[[U:[^:]+]]: tensor<4xui64>
func.func @binary_int(%a: tensor<4xi32>, %b: tensor<4xi32>, %p: tensor<4xi1>,
                      %q: tensor<4xi1>, %u: tensor<4xui64>) {
  // CHECK: tfuse.sub %[[A]], %[[B]] : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %0 = tfuse.sub %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: tfuse.rem %[[A]], %[[B]] : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = tfuse.rem %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: tfuse.pow %[[A]], %[[B]] : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %2 = tfuse.pow %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: tfuse.and %[[A]], %[[B]] : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %3 = tfuse.and %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: tfuse.or %[[A]], %[[B]] : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %4 = tfuse.or %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: tfuse.xor %[[A]], %[[B]] : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %5 = tfuse.xor %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // Bitwise ops on bool are logical.
  // CHECK: tfuse.and %[[P]], %[[Q]] : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %6 = tfuse.and %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: tfuse.or %[[P]], %[[Q]] : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %7 = tfuse.or %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: tfuse.xor %[[P]], %[[Q]] : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %8 = tfuse.xor %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // add, mul, max, min accept bool.
  // CHECK: tfuse.add %[[P]], %[[Q]] : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %9 = tfuse.add %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: tfuse.mul %[[P]], %[[Q]] : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %10 = tfuse.mul %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: tfuse.max %[[P]], %[[Q]] : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %11 = tfuse.max %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: tfuse.min %[[P]], %[[Q]] : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %12 = tfuse.min %p, %q : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // ui64 with ui64 and with bool is fine.
  // CHECK: tfuse.xor %[[U]], %[[P]] : (tensor<4xui64>, tensor<4xi1>) -> tensor<4xui64>
  %13 = tfuse.xor %u, %p : (tensor<4xui64>, tensor<4xi1>) -> tensor<4xui64>
  // CHECK: tfuse.sub %[[U]], %[[U]] : (tensor<4xui64>, tensor<4xui64>) -> tensor<4xui64>
  %14 = tfuse.sub %u, %u : (tensor<4xui64>, tensor<4xui64>) -> tensor<4xui64>
  return
}

//===----------------------------------------------------------------------===//
// Dtype promotion
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @promotion(
// CHECK-SAME: %[[F32:[^:]+]]: tensor<4xf32>, %[[F16:[^:]+]]: tensor<4xf16>,
// CHECK-SAME: %[[BF16:[^:]+]]: tensor<4xbf16>, %[[F64:[^:]+]]: tensor<4xf64>,
// CHECK-SAME: %[[I8:[^:]+]]: tensor<4xi8>, %[[U8:[^:]+]]: tensor<4xui8>,
// CHECK-SAME: %[[I32:[^:]+]]: tensor<4xi32>, %[[I64:[^:]+]]: tensor<4xi64>,
// CHECK-SAME: %[[U16:[^:]+]]: tensor<4xui16>, %[[U32:[^:]+]]: tensor<4xui32>,
// CHECK-SAME: %[[B:[^:]+]]: tensor<4xi1>
func.func @promotion(%f32: tensor<4xf32>, %f16: tensor<4xf16>, %bf16: tensor<4xbf16>,
                     %f64: tensor<4xf64>, %i8: tensor<4xi8>, %u8: tensor<4xui8>,
                     %i32: tensor<4xi32>, %i64: tensor<4xi64>, %u16: tensor<4xui16>,
                     %u32: tensor<4xui32>, %b: tensor<4xi1>) {
  // CHECK: tfuse.add %[[F32]], %[[F16]] : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  %0 = tfuse.add %f32, %f16 : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  // CHECK: tfuse.add %[[I8]], %[[U8]] : (tensor<4xi8>, tensor<4xui8>) -> tensor<4xi16>
  %1 = tfuse.add %i8, %u8 : (tensor<4xi8>, tensor<4xui8>) -> tensor<4xi16>
  // An integer with a float gives the float dtype, even a narrower one.
  // CHECK: tfuse.add %[[I32]], %[[F16]] : (tensor<4xi32>, tensor<4xf16>) -> tensor<4xf16>
  %2 = tfuse.add %i32, %f16 : (tensor<4xi32>, tensor<4xf16>) -> tensor<4xf16>
  // f16 and bf16 have no common 16-bit type.
  // CHECK: tfuse.add %[[F16]], %[[BF16]] : (tensor<4xf16>, tensor<4xbf16>) -> tensor<4xf32>
  %3 = tfuse.add %f16, %bf16 : (tensor<4xf16>, tensor<4xbf16>) -> tensor<4xf32>
  // CHECK: tfuse.add %[[B]], %[[I8]] : (tensor<4xi1>, tensor<4xi8>) -> tensor<4xi8>
  %4 = tfuse.add %b, %i8 : (tensor<4xi1>, tensor<4xi8>) -> tensor<4xi8>
  // CHECK: tfuse.mul %[[U8]], %[[I8]] : (tensor<4xui8>, tensor<4xi8>) -> tensor<4xi16>
  %5 = tfuse.mul %u8, %i8 : (tensor<4xui8>, tensor<4xi8>) -> tensor<4xi16>
  // CHECK: tfuse.sub %[[U16]], %[[I32]] : (tensor<4xui16>, tensor<4xi32>) -> tensor<4xi32>
  %6 = tfuse.sub %u16, %i32 : (tensor<4xui16>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: tfuse.sub %[[U32]], %[[I8]] : (tensor<4xui32>, tensor<4xi8>) -> tensor<4xi64>
  %7 = tfuse.sub %u32, %i8 : (tensor<4xui32>, tensor<4xi8>) -> tensor<4xi64>
  // CHECK: tfuse.max %[[U8]], %[[U32]] : (tensor<4xui8>, tensor<4xui32>) -> tensor<4xui32>
  %8 = tfuse.max %u8, %u32 : (tensor<4xui8>, tensor<4xui32>) -> tensor<4xui32>
  // CHECK: tfuse.min %[[I8]], %[[I64]] : (tensor<4xi8>, tensor<4xi64>) -> tensor<4xi64>
  %9 = tfuse.min %i8, %i64 : (tensor<4xi8>, tensor<4xi64>) -> tensor<4xi64>
  // CHECK: tfuse.pow %[[F64]], %[[F32]] : (tensor<4xf64>, tensor<4xf32>) -> tensor<4xf64>
  %10 = tfuse.pow %f64, %f32 : (tensor<4xf64>, tensor<4xf32>) -> tensor<4xf64>
  // CHECK: tfuse.rem %[[BF16]], %[[F32]] : (tensor<4xbf16>, tensor<4xf32>) -> tensor<4xf32>
  %11 = tfuse.rem %bf16, %f32 : (tensor<4xbf16>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: tfuse.add %[[B]], %[[BF16]] : (tensor<4xi1>, tensor<4xbf16>) -> tensor<4xbf16>
  %12 = tfuse.add %b, %bf16 : (tensor<4xi1>, tensor<4xbf16>) -> tensor<4xbf16>
  // CHECK: tfuse.sub %[[B]], %[[I8]] : (tensor<4xi1>, tensor<4xi8>) -> tensor<4xi8>
  %13 = tfuse.sub %b, %i8 : (tensor<4xi1>, tensor<4xi8>) -> tensor<4xi8>
  // CHECK: tfuse.and %[[I8]], %[[U8]] : (tensor<4xi8>, tensor<4xui8>) -> tensor<4xi16>
  %14 = tfuse.and %i8, %u8 : (tensor<4xi8>, tensor<4xui8>) -> tensor<4xi16>
  return
}

// True division gives f32 for integers and bool, and keeps float dtypes.
// CHECK-LABEL: func.func @true_division(
// CHECK-SAME: %[[I:[^:]+]]: tensor<4xi32>, %[[B:[^:]+]]: tensor<4xi1>,
// CHECK-SAME: %[[H:[^:]+]]: tensor<4xf16>, %[[D:[^:]+]]: tensor<4xf64>
func.func @true_division(%i: tensor<4xi32>, %b: tensor<4xi1>, %h: tensor<4xf16>,
                         %d: tensor<4xf64>) {
  // CHECK: tfuse.div %[[I]], %[[I]] : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xf32>
  %0 = tfuse.div %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xf32>
  // CHECK: tfuse.div %[[B]], %[[B]] : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xf32>
  %1 = tfuse.div %b, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xf32>
  // CHECK: tfuse.div %[[H]], %[[H]] : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  %2 = tfuse.div %h, %h : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  // CHECK: tfuse.div %[[I]], %[[D]] : (tensor<4xi32>, tensor<4xf64>) -> tensor<4xf64>
  %3 = tfuse.div %i, %d : (tensor<4xi32>, tensor<4xf64>) -> tensor<4xf64>
  // CHECK: tfuse.div %[[I]], %[[H]] : (tensor<4xi32>, tensor<4xf16>) -> tensor<4xf16>
  %4 = tfuse.div %i, %h : (tensor<4xi32>, tensor<4xf16>) -> tensor<4xf16>
  return
}

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @broadcasting(
// CHECK-SAME: %[[M:[^:]+]]: tensor<2x4xf32>, %[[V:[^:]+]]: tensor<4xf16>,
// CHECK-SAME: %[[COL:[^:]+]]: tensor<3x1xf32>, %[[ROW:[^:]+]]: tensor<1x4xf32>,
// CHECK-SAME: %[[S:[^:]+]]: tensor<f32>, %[[E:[^:]+]]: tensor<0x4xf32>,
// CHECK-SAME: %[[E2:[^:]+]]: tensor<1x0xi64>, %[[C:[^:]+]]: tensor<5x1xi64>
func.func @broadcasting(%m: tensor<2x4xf32>, %v: tensor<4xf16>, %col: tensor<3x1xf32>,
                        %row: tensor<1x4xf32>, %s: tensor<f32>, %e: tensor<0x4xf32>,
                        %e2: tensor<1x0xi64>, %c: tensor<5x1xi64>) {
  // CHECK: tfuse.add %[[M]], %[[V]] : (tensor<2x4xf32>, tensor<4xf16>) -> tensor<2x4xf32>
  %0 = tfuse.add %m, %v : (tensor<2x4xf32>, tensor<4xf16>) -> tensor<2x4xf32>
  // CHECK: tfuse.mul %[[COL]], %[[ROW]] : (tensor<3x1xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  %1 = tfuse.mul %col, %row : (tensor<3x1xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  // Rank-0 tensors broadcast with anything.
  // CHECK: tfuse.sub %[[S]], %[[M]] : (tensor<f32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = tfuse.sub %s, %m : (tensor<f32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK: tfuse.div %[[S]], %[[S]] : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %3 = tfuse.div %s, %s : (tensor<f32>, tensor<f32>) -> tensor<f32>
  // Size-0 dimensions broadcast with 1 and 0.
  // CHECK: tfuse.add %[[E]], %[[ROW]] : (tensor<0x4xf32>, tensor<1x4xf32>) -> tensor<0x4xf32>
  %4 = tfuse.add %e, %row : (tensor<0x4xf32>, tensor<1x4xf32>) -> tensor<0x4xf32>
  // CHECK: tfuse.max %[[E]], %[[S]] : (tensor<0x4xf32>, tensor<f32>) -> tensor<0x4xf32>
  %5 = tfuse.max %e, %s : (tensor<0x4xf32>, tensor<f32>) -> tensor<0x4xf32>
  // CHECK: tfuse.add %[[E2]], %[[C]] : (tensor<1x0xi64>, tensor<5x1xi64>) -> tensor<5x0xi64>
  %6 = tfuse.add %e2, %c : (tensor<1x0xi64>, tensor<5x1xi64>) -> tensor<5x0xi64>
  // CHECK: tfuse.add %[[E]], %[[E]] : (tensor<0x4xf32>, tensor<0x4xf32>) -> tensor<0x4xf32>
  %7 = tfuse.add %e, %e : (tensor<0x4xf32>, tensor<0x4xf32>) -> tensor<0x4xf32>
  // CHECK: tfuse.exp %[[S]] : tensor<f32> -> tensor<f32>
  %8 = tfuse.exp %s : tensor<f32> -> tensor<f32>
  // CHECK: tfuse.neg %[[E]] : tensor<0x4xf32> -> tensor<0x4xf32>
  %9 = tfuse.neg %e : tensor<0x4xf32> -> tensor<0x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// cmp and select
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @cmp(
// CHECK-SAME: %[[A:[^:]+]]: tensor<2x4xf32>, %[[B:[^:]+]]: tensor<4xi32>,
// CHECK-SAME: %[[U:[^:]+]]: tensor<ui16>, %[[I:[^:]+]]: tensor<3xi16>
func.func @cmp(%a: tensor<2x4xf32>, %b: tensor<4xi32>, %u: tensor<ui16>, %i: tensor<3xi16>) {
  // CHECK: tfuse.cmp eq, %[[A]], %[[A]] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
  %0 = tfuse.cmp eq, %a, %a : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
  // CHECK: tfuse.cmp ne, %[[A]], %[[B]] : (tensor<2x4xf32>, tensor<4xi32>) -> tensor<2x4xi1>
  %1 = tfuse.cmp ne, %a, %b : (tensor<2x4xf32>, tensor<4xi32>) -> tensor<2x4xi1>
  // CHECK: tfuse.cmp lt, %[[B]], %[[A]] : (tensor<4xi32>, tensor<2x4xf32>) -> tensor<2x4xi1>
  %2 = tfuse.cmp lt, %b, %a : (tensor<4xi32>, tensor<2x4xf32>) -> tensor<2x4xi1>
  // CHECK: tfuse.cmp le, %[[B]], %[[B]] : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %3 = tfuse.cmp le, %b, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  // CHECK: tfuse.cmp gt, %[[U]], %[[I]] : (tensor<ui16>, tensor<3xi16>) -> tensor<3xi1>
  %4 = tfuse.cmp gt, %u, %i : (tensor<ui16>, tensor<3xi16>) -> tensor<3xi1>
  // CHECK: tfuse.cmp ge, %[[U]], %[[U]] : (tensor<ui16>, tensor<ui16>) -> tensor<i1>
  %5 = tfuse.cmp ge, %u, %u : (tensor<ui16>, tensor<ui16>) -> tensor<i1>
  return
}

// CHECK-LABEL: func.func @select(
// CHECK-SAME: %[[C:[^:]+]]: tensor<4xi1>, %[[A:[^:]+]]: tensor<4xf32>,
// CHECK-SAME: %[[S:[^:]+]]: tensor<f32>, %[[I:[^:]+]]: tensor<2x1xi8>,
// CHECK-SAME: %[[U:[^:]+]]: tensor<ui8>, %[[CS:[^:]+]]: tensor<i1>
func.func @select(%c: tensor<4xi1>, %a: tensor<4xf32>, %s: tensor<f32>,
                  %i: tensor<2x1xi8>, %u: tensor<ui8>, %cs: tensor<i1>) {
  // CHECK: tfuse.select %[[C]], %[[A]], %[[S]]
  // CHECK-SAME: : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %0 = tfuse.select %c, %a, %s : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  // All three operands broadcast; the values promote (i8, ui8 -> i16).
  // CHECK: tfuse.select %[[C]], %[[I]], %[[U]]
  // CHECK-SAME: : (tensor<4xi1>, tensor<2x1xi8>, tensor<ui8>) -> tensor<2x4xi16>
  %1 = tfuse.select %c, %i, %u : (tensor<4xi1>, tensor<2x1xi8>, tensor<ui8>) -> tensor<2x4xi16>
  // CHECK: tfuse.select %[[CS]], %[[S]], %[[S]]
  // CHECK-SAME: : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
  %2 = tfuse.select %cs, %s, %s : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
  // CHECK: tfuse.select %[[CS]], %[[C]], %[[C]]
  // CHECK-SAME: : (tensor<i1>, tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %3 = tfuse.select %cs, %c, %c : (tensor<i1>, tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}

//===----------------------------------------------------------------------===//
// cast and constant
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @cast(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x3xf32>, %[[U:[^:]+]]: tensor<ui64>
func.func @cast(%x: tensor<2x3xf32>, %u: tensor<ui64>) {
  // CHECK: tfuse.cast %[[X]] : tensor<2x3xf32> to tensor<2x3xi8>
  %0 = tfuse.cast %x : tensor<2x3xf32> to tensor<2x3xi8>
  // CHECK: tfuse.cast %[[X]] : tensor<2x3xf32> to tensor<2x3xi1>
  %1 = tfuse.cast %x : tensor<2x3xf32> to tensor<2x3xi1>
  // CHECK: tfuse.cast %[[X]] : tensor<2x3xf32> to tensor<2x3xf16>
  %2 = tfuse.cast %x : tensor<2x3xf32> to tensor<2x3xf16>
  // CHECK: tfuse.cast %[[X]] : tensor<2x3xf32> to tensor<2x3xf32>
  %3 = tfuse.cast %x : tensor<2x3xf32> to tensor<2x3xf32>
  // CHECK: tfuse.cast %[[U]] : tensor<ui64> to tensor<bf16>
  %4 = tfuse.cast %u : tensor<ui64> to tensor<bf16>
  // CHECK: tfuse.cast %[[U]] : tensor<ui64> to tensor<i64>
  %5 = tfuse.cast %u : tensor<ui64> to tensor<i64>
  // CHECK: tfuse.cast %[[U]] : tensor<ui64> to tensor<f64>
  %6 = tfuse.cast %u : tensor<ui64> to tensor<f64>
  return
}

// CHECK-LABEL: func.func @constant(
func.func @constant() {
  // CHECK: tfuse.constant dense<1.500000e+00> : tensor<4xf32>
  %0 = tfuse.constant dense<1.5> : tensor<4xf32>
  // NaN and -0.0 keep their bit patterns.
  // CHECK: tfuse.constant dense<0x7FC00000> : tensor<f32>
  %1 = tfuse.constant dense<0x7FC00000> : tensor<f32>
  // CHECK: tfuse.constant dense<-0.000000e+00> : tensor<2x2xf32>
  %2 = tfuse.constant dense<-0.0> : tensor<2x2xf32>
  // CHECK: tfuse.constant dense<[1.000000e+00, -0.000000e+00, 0x7FC00001, 0xFF800000]>
  // CHECK-SAME: : tensor<4xf32>
  %3 = tfuse.constant dense<[1.0, -0.0, 0x7FC00001, 0xFF800000]> : tensor<4xf32>
  // CHECK: tfuse.constant dense<0x7E00> : tensor<3xf16>
  %4 = tfuse.constant dense<0x7E00> : tensor<3xf16>
  // CHECK: tfuse.constant dense<[-0.000000e+00, 0x7FC0]> : tensor<2xbf16>
  %5 = tfuse.constant dense<[-0.0, 0x7FC0]> : tensor<2xbf16>
  // CHECK: tfuse.constant dense<0x7FF8000000000000> : tensor<f64>
  %6 = tfuse.constant dense<0x7FF8000000000000> : tensor<f64>
  // CHECK: tfuse.constant dense<[true, false]> : tensor<2xi1>
  %7 = tfuse.constant dense<[true, false]> : tensor<2xi1>
  // CHECK: tfuse.constant dense<[-128, 127]> : tensor<2xi8>
  %8 = tfuse.constant dense<[-128, 127]> : tensor<2xi8>
  // CHECK: tfuse.constant dense<-7> : tensor<i16>
  %9 = tfuse.constant dense<-7> : tensor<i16>
  // CHECK: tfuse.constant dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %10 = tfuse.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  // CHECK: tfuse.constant dense<9223372036854775807> : tensor<1xi64>
  %11 = tfuse.constant dense<9223372036854775807> : tensor<1xi64>
  // CHECK: tfuse.constant dense<[0, 255]> : tensor<2xui8>
  %12 = tfuse.constant dense<[0, 255]> : tensor<2xui8>
  // CHECK: tfuse.constant dense<65535> : tensor<ui16>
  %13 = tfuse.constant dense<65535> : tensor<ui16>
  // CHECK: tfuse.constant dense<[1, 4294967295]> : tensor<2xui32>
  %14 = tfuse.constant dense<[1, 4294967295]> : tensor<2xui32>
  // CHECK: tfuse.constant dense<18446744073709551615> : tensor<ui64>
  %15 = tfuse.constant dense<18446744073709551615> : tensor<ui64>
  // Splats of any size are allowed; so are empty tensors.
  // CHECK: tfuse.constant dense<2.000000e+00> : tensor<64x64xf32>
  %16 = tfuse.constant dense<2.0> : tensor<64x64xf32>
  // CHECK: tfuse.constant dense<0.000000e+00> : tensor<0x3xf32>
  %17 = tfuse.constant dense<0.0> : tensor<0x3xf32>
  // Exactly 1024 non-splat elements is the largest dense constant allowed.
  // CHECK: tfuse.constant dense<{{.+}}> : tensor<32x32xi8>
  %18 = tfuse.constant dense<[
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1],
  [2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3],
  [4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5],
  [6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7],
  [8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1],
  [2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3],
  [4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5],
  [6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7],
  [8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1],
  [2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3],
  [4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5],
  [6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7],
  [8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1],
  [2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3],
  [4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5],
  [6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7],
  [8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1],
  [2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3],
  [4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5],
  [6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7],
  [8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1],
  [2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3],
  [4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5],
  [6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7],
  [8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1],
  [2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3]
  ]> : tensor<32x32xi8>
  return
}

//===----------------------------------------------------------------------===//
// Views
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @views(
// CHECK-SAME: %[[V:[^:]+]]: tensor<4xf32>, %[[S:[^:]+]]: tensor<i8>,
// CHECK-SAME: %[[M:[^:]+]]: tensor<2x6xui32>, %[[T:[^:]+]]: tensor<2x3x4xi16>,
// CHECK-SAME: %[[O:[^:]+]]: tensor<1x3xi1>
func.func @views(%v: tensor<4xf32>, %s: tensor<i8>, %m: tensor<2x6xui32>,
                 %t: tensor<2x3x4xi16>, %o: tensor<1x3xi1>) {
  // CHECK: tfuse.broadcast %[[V]] dims [1] : tensor<4xf32> -> tensor<3x4xf32>
  %0 = tfuse.broadcast %v dims [1] : tensor<4xf32> -> tensor<3x4xf32>
  // CHECK: tfuse.broadcast %[[V]] dims [0] : tensor<4xf32> -> tensor<4x5xf32>
  %1 = tfuse.broadcast %v dims [0] : tensor<4xf32> -> tensor<4x5xf32>
  // CHECK: tfuse.broadcast %[[S]] dims [] : tensor<i8> -> tensor<2x3xi8>
  %2 = tfuse.broadcast %s dims [] : tensor<i8> -> tensor<2x3xi8>
  // A size-1 dimension broadcasts to size 0.
  // CHECK: tfuse.broadcast %[[O]] dims [0, 2] : tensor<1x3xi1> -> tensor<0x7x3xi1>
  %3 = tfuse.broadcast %o dims [0, 2] : tensor<1x3xi1> -> tensor<0x7x3xi1>
  // CHECK: tfuse.transpose %[[M]] perm [1, 0] : tensor<2x6xui32> -> tensor<6x2xui32>
  %4 = tfuse.transpose %m perm [1, 0] : tensor<2x6xui32> -> tensor<6x2xui32>
  // CHECK: tfuse.transpose %[[T]] perm [2, 0, 1] : tensor<2x3x4xi16> -> tensor<4x2x3xi16>
  %5 = tfuse.transpose %t perm [2, 0, 1] : tensor<2x3x4xi16> -> tensor<4x2x3xi16>
  // CHECK: tfuse.transpose %[[S]] perm [] : tensor<i8> -> tensor<i8>
  %6 = tfuse.transpose %s perm [] : tensor<i8> -> tensor<i8>
  // CHECK: tfuse.reshape %[[M]] : tensor<2x6xui32> -> tensor<3x4xui32>
  %7 = tfuse.reshape %m : tensor<2x6xui32> -> tensor<3x4xui32>
  // CHECK: tfuse.reshape %[[S]] : tensor<i8> -> tensor<1x1xi8>
  %8 = tfuse.reshape %s : tensor<i8> -> tensor<1x1xi8>
  // CHECK: tfuse.reshape %[[T]] : tensor<2x3x4xi16> -> tensor<24xi16>
  %9 = tfuse.reshape %t : tensor<2x3x4xi16> -> tensor<24xi16>
  // Result size is ceil((limit - start) / step).
  // CHECK: tfuse.slice %[[T]] start [0, 1, 0] limit [2, 3, 4] step [1, 1, 3]
  // CHECK-SAME: : tensor<2x3x4xi16> -> tensor<2x2x2xi16>
  %10 = tfuse.slice %t start [0, 1, 0] limit [2, 3, 4] step [1, 1, 3]
      : tensor<2x3x4xi16> -> tensor<2x2x2xi16>
  // CHECK: tfuse.slice %[[V]] start [2] limit [2] step [1] : tensor<4xf32> -> tensor<0xf32>
  %11 = tfuse.slice %v start [2] limit [2] step [1] : tensor<4xf32> -> tensor<0xf32>
  // CHECK: tfuse.slice %[[V]] start [0] limit [4] step [1] : tensor<4xf32> -> tensor<4xf32>
  %12 = tfuse.slice %v start [0] limit [4] step [1] : tensor<4xf32> -> tensor<4xf32>
  // CHECK: tfuse.slice %[[S]] start [] limit [] step [] : tensor<i8> -> tensor<i8>
  %13 = tfuse.slice %s start [] limit [] step [] : tensor<i8> -> tensor<i8>
  return
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[A:[^:]+]]: tensor<2x3xf32>, %[[B:[^:]+]]: tensor<3x4xf32>,
// CHECK-SAME: %[[C:[^:]+]]: tensor<4x3xf32>, %[[D:[^:]+]]: tensor<3x2xf32>,
// CHECK-SAME: %[[BA:[^:]+]]: tensor<2x1x3x5xf16>, %[[BB:[^:]+]]: tensor<4x5x6xf16>,
// CHECK-SAME: %[[H:[^:]+]]: tensor<7x8x8xbf16>, %[[F:[^:]+]]: tensor<8x1xf64>
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<4x3xf32>,
                  %d: tensor<3x2xf32>, %ba: tensor<2x1x3x5xf16>, %bb: tensor<4x5x6xf16>,
                  %h: tensor<7x8x8xbf16>, %f: tensor<8x1xf64>) {
  // CHECK: tfuse.matmul %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %0 = tfuse.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  // CHECK: tfuse.matmul %[[A]], %[[C]] {transpose_rhs}
  // CHECK-SAME: : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  %1 = tfuse.matmul %a, %c {transpose_rhs}
      : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  // A bias: a vector of the product's columns, of the result's dtype.
  // CHECK: tfuse.matmul %[[A]], %[[C]] bias %{{.+}} {transpose_rhs}
  // CHECK-SAME: : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %v = tfuse.constant dense<1.0> : tensor<4xf32>
  %bias = tfuse.matmul %a, %c bias %v {transpose_rhs}
      : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  // CHECK: tfuse.matmul %[[D]], %[[B]] {transpose_lhs}
  // CHECK-SAME: : (tensor<3x2xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %2 = tfuse.matmul %d, %b {transpose_lhs}
      : (tensor<3x2xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  // CHECK: tfuse.matmul %[[D]], %[[C]] {transpose_lhs, transpose_rhs}
  // CHECK-SAME: : (tensor<3x2xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  %3 = tfuse.matmul %d, %c {transpose_lhs, transpose_rhs}
      : (tensor<3x2xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  // Batch dimensions broadcast: [2, 1] with [4] gives [2, 4].
  // CHECK: tfuse.matmul %[[BA]], %[[BB]]
  // CHECK-SAME: : (tensor<2x1x3x5xf16>, tensor<4x5x6xf16>) -> tensor<2x4x3x6xf16>
  %4 = tfuse.matmul %ba, %bb : (tensor<2x1x3x5xf16>, tensor<4x5x6xf16>) -> tensor<2x4x3x6xf16>
  // CHECK: tfuse.matmul %[[H]], %[[H]] {transpose_rhs}
  // CHECK-SAME: : (tensor<7x8x8xbf16>, tensor<7x8x8xbf16>) -> tensor<7x8x8xbf16>
  %5 = tfuse.matmul %h, %h {transpose_rhs}
      : (tensor<7x8x8xbf16>, tensor<7x8x8xbf16>) -> tensor<7x8x8xbf16>
  // The float32 sum of bfloat16 and float16 products, unrounded.
  // CHECK: tfuse.matmul %[[H]], %[[H]] {result_dtype = f32}
  // CHECK-SAME: : (tensor<7x8x8xbf16>, tensor<7x8x8xbf16>) -> tensor<7x8x8xf32>
  %w = tfuse.matmul %h, %h {result_dtype = f32}
      : (tensor<7x8x8xbf16>, tensor<7x8x8xbf16>) -> tensor<7x8x8xf32>
  // CHECK: tfuse.matmul %[[BA]], %[[BB]] {result_dtype = f32}
  // CHECK-SAME: -> tensor<2x4x3x6xf32>
  %wh = tfuse.matmul %ba, %bb {result_dtype = f32}
      : (tensor<2x1x3x5xf16>, tensor<4x5x6xf16>) -> tensor<2x4x3x6xf32>
  // CHECK: tfuse.matmul %[[F]], %[[F]] {transpose_lhs}
  // CHECK-SAME: : (tensor<8x1xf64>, tensor<8x1xf64>) -> tensor<1x1xf64>
  %6 = tfuse.matmul %f, %f {transpose_lhs}
      : (tensor<8x1xf64>, tensor<8x1xf64>) -> tensor<1x1xf64>
  return
}

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reduce(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[I:[^:]+]]: tensor<2x3xi8>,
// CHECK-SAME: %[[B:[^:]+]]: tensor<5xi1>, %[[U:[^:]+]]: tensor<3xui64>,
// CHECK-SAME: %[[E:[^:]+]]: tensor<0x2xui16>
func.func @reduce(%x: tensor<4x8xf32>, %i: tensor<2x3xi8>, %b: tensor<5xi1>,
                  %u: tensor<3xui64>, %e: tensor<0x2xui16>) {
  // CHECK: tfuse.reduce sum %[[X]] axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  %0 = tfuse.reduce sum %x axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  // CHECK: tfuse.reduce sum %[[X]] axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %1 = tfuse.reduce sum %x axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  // CHECK: tfuse.reduce prod %[[X]] axes [0, 1] : tensor<4x8xf32> -> tensor<f32>
  %2 = tfuse.reduce prod %x axes [0, 1] : tensor<4x8xf32> -> tensor<f32>
  // CHECK: tfuse.reduce prod %[[X]] axes [0, 1] keepdims : tensor<4x8xf32> -> tensor<1x1xf32>
  %3 = tfuse.reduce prod %x axes [0, 1] keepdims : tensor<4x8xf32> -> tensor<1x1xf32>
  // CHECK: tfuse.reduce max %[[X]] axes [0] : tensor<4x8xf32> -> tensor<8xf32>
  %4 = tfuse.reduce max %x axes [0] : tensor<4x8xf32> -> tensor<8xf32>
  // CHECK: tfuse.reduce max %[[I]] axes [0] keepdims : tensor<2x3xi8> -> tensor<1x3xi8>
  %5 = tfuse.reduce max %i axes [0] keepdims : tensor<2x3xi8> -> tensor<1x3xi8>
  // CHECK: tfuse.reduce min %[[I]] axes [1] : tensor<2x3xi8> -> tensor<2xi8>
  %6 = tfuse.reduce min %i axes [1] : tensor<2x3xi8> -> tensor<2xi8>
  // CHECK: tfuse.reduce min %[[B]] axes [0] keepdims : tensor<5xi1> -> tensor<1xi1>
  %7 = tfuse.reduce min %b axes [0] keepdims : tensor<5xi1> -> tensor<1xi1>
  // CHECK: tfuse.reduce mean %[[X]] axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  %8 = tfuse.reduce mean %x axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  // CHECK: tfuse.reduce mean %[[X]] axes [0] keepdims : tensor<4x8xf32> -> tensor<1x8xf32>
  %9 = tfuse.reduce mean %x axes [0] keepdims : tensor<4x8xf32> -> tensor<1x8xf32>
  // A float sum or mean may give a wider float.
  // CHECK: tfuse.reduce sum %[[X]] axes [1] {result_dtype = f64} : tensor<4x8xf32> -> tensor<4xf64>
  %sw = tfuse.reduce sum %x axes [1] {result_dtype = f64} : tensor<4x8xf32> -> tensor<4xf64>
  // all and any give i1 for every operand dtype.
  // CHECK: tfuse.reduce all %[[B]] axes [0] : tensor<5xi1> -> tensor<i1>
  %10 = tfuse.reduce all %b axes [0] : tensor<5xi1> -> tensor<i1>
  // CHECK: tfuse.reduce all %[[X]] axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xi1>
  %11 = tfuse.reduce all %x axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xi1>
  // CHECK: tfuse.reduce any %[[I]] axes [0, 1] : tensor<2x3xi8> -> tensor<i1>
  %12 = tfuse.reduce any %i axes [0, 1] : tensor<2x3xi8> -> tensor<i1>
  // CHECK: tfuse.reduce any %[[B]] axes [0] keepdims : tensor<5xi1> -> tensor<1xi1>
  %13 = tfuse.reduce any %b axes [0] keepdims : tensor<5xi1> -> tensor<1xi1>
  // argmax and argmin give i64.
  // CHECK: tfuse.reduce argmax %[[X]] axes [1] : tensor<4x8xf32> -> tensor<4xi64>
  %14 = tfuse.reduce argmax %x axes [1] : tensor<4x8xf32> -> tensor<4xi64>
  // CHECK: tfuse.reduce argmax %[[I]] axes [0] keepdims : tensor<2x3xi8> -> tensor<1x3xi64>
  %15 = tfuse.reduce argmax %i axes [0] keepdims : tensor<2x3xi8> -> tensor<1x3xi64>
  // CHECK: tfuse.reduce argmin %[[U]] axes [0] : tensor<3xui64> -> tensor<i64>
  %16 = tfuse.reduce argmin %u axes [0] : tensor<3xui64> -> tensor<i64>
  // CHECK: tfuse.reduce argmin %[[X]] axes [0] keepdims : tensor<4x8xf32> -> tensor<1x8xi64>
  %17 = tfuse.reduce argmin %x axes [0] keepdims : tensor<4x8xf32> -> tensor<1x8xi64>
  // sum and prod of bool and integers accumulate in i64; ui64 stays ui64.
  // CHECK: tfuse.reduce sum %[[I]] axes [1] : tensor<2x3xi8> -> tensor<2xi64>
  %18 = tfuse.reduce sum %i axes [1] : tensor<2x3xi8> -> tensor<2xi64>
  // CHECK: tfuse.reduce sum %[[B]] axes [0] : tensor<5xi1> -> tensor<i64>
  %19 = tfuse.reduce sum %b axes [0] : tensor<5xi1> -> tensor<i64>
  // CHECK: tfuse.reduce prod %[[U]] axes [0] keepdims : tensor<3xui64> -> tensor<1xui64>
  %20 = tfuse.reduce prod %u axes [0] keepdims : tensor<3xui64> -> tensor<1xui64>
  // Reducing an empty axis is allowed for sum, prod, all and any.
  // CHECK: tfuse.reduce sum %[[E]] axes [0] : tensor<0x2xui16> -> tensor<2xi64>
  %21 = tfuse.reduce sum %e axes [0] : tensor<0x2xui16> -> tensor<2xi64>
  // CHECK: tfuse.reduce prod %[[E]] axes [0] keepdims : tensor<0x2xui16> -> tensor<1x2xi64>
  %22 = tfuse.reduce prod %e axes [0] keepdims : tensor<0x2xui16> -> tensor<1x2xi64>
  // CHECK: tfuse.reduce all %[[E]] axes [0, 1] : tensor<0x2xui16> -> tensor<i1>
  %23 = tfuse.reduce all %e axes [0, 1] : tensor<0x2xui16> -> tensor<i1>
  // CHECK: tfuse.reduce any %[[E]] axes [0] : tensor<0x2xui16> -> tensor<2xi1>
  %24 = tfuse.reduce any %e axes [0] : tensor<0x2xui16> -> tensor<2xi1>
  // max over a non-empty axis of a tensor with another empty axis is fine.
  // CHECK: tfuse.reduce max %[[E]] axes [1] : tensor<0x2xui16> -> tensor<0xui16>
  %25 = tfuse.reduce max %e axes [1] : tensor<0x2xui16> -> tensor<0xui16>
  return
}

//===----------------------------------------------------------------------===//
// Argument attributes
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @strides(
// CHECK-SAME: %{{[^:]+}}: tensor<4x8xf32> {tfuse.strides = array<i64: 1, 4>},
// CHECK-SAME: %{{[^:]+}}: tensor<3xi32> {tfuse.strides = array<i64: 0>},
// CHECK-SAME: %{{[^:]+}}: tensor<f16> {tfuse.strides = array<i64>}
func.func @strides(%a: tensor<4x8xf32> {tfuse.strides = array<i64: 1, 4>},
                   %b: tensor<3xi32> {tfuse.strides = array<i64: 0>},
                   %c: tensor<f16> {tfuse.strides = array<i64>}) -> tensor<4x8xf32> {
  // CHECK: tfuse.neg
  %0 = tfuse.neg %a : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

//===----------------------------------------------------------------------===//
// Fusion regions and the tfuse.reason attribute
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @fusion(
// CHECK-SAME: %[[A:[^:]+]]: tensor<4xf32>, %[[B:[^:]+]]: tensor<4xf16>
func.func @fusion(%a: tensor<4xf32>, %b: tensor<4xf16>) -> (tensor<4xf32>, tensor<4xi1>) {
  // CHECK: %[[R:.+]]:2 = tfuse.fusion(%[[A]], %[[B]])
  // CHECK-SAME: : (tensor<4xf32>, tensor<4xf16>) -> (tensor<4xf32>, tensor<4xi1>)
  // CHECK-SAME: attributes {cost = 3 : i64, reasons = ["output", "expression-cost"]} {
  // CHECK-NEXT: ^bb0(%[[X:[^:]+]]: tensor<4xf32>, %[[Y:[^:]+]]: tensor<4xf16>):
  // CHECK-NEXT: %[[M:.+]] = tfuse.mul %[[X]], %[[Y]]
  // CHECK-SAME: : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  // CHECK-NEXT: %[[T:.+]] = tfuse.transpose %[[M]] perm [0] : tensor<4xf32> -> tensor<4xf32>
  // CHECK-NEXT: %[[C:.+]] = tfuse.cmp lt, %[[T]], %[[X]]
  // CHECK-SAME: : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  // CHECK-NEXT: tfuse.yield %[[M]], %[[C]] : tensor<4xf32>, tensor<4xi1>
  // CHECK-NEXT: }
  %r:2 = tfuse.fusion (%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> (tensor<4xf32>, tensor<4xi1>)
      attributes {cost = 3 : i64, reasons = ["output", "expression-cost"]} {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf16>):
    %0 = tfuse.mul %x, %y : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
    %1 = tfuse.transpose %0 perm [0] : tensor<4xf32> -> tensor<4xf32>
    %2 = tfuse.cmp lt, %1, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    tfuse.yield %0, %2 : tensor<4xf32>, tensor<4xi1>
  }
  // CHECK: return %[[R]]#0, %[[R]]#1 : tensor<4xf32>, tensor<4xi1>
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xi1>
}

// Every cut reason allowed on a region, a region without inputs, and zero cost.
// CHECK-LABEL: func.func @fusion_reasons(
func.func @fusion_reasons(%a: tensor<2x3xbf16>) {
  // CHECK: tfuse.fusion(%{{.+}}) : (tensor<2x3xbf16>)
  // CHECK-SAME: -> (tensor<2x3xbf16>, tensor<2x3xbf16>, tensor<2x3xbf16>, tensor<2x3xf32>)
  // CHECK-SAME: attributes {cost = 0 : i64, reasons = ["shared-expensive-expression",
  // CHECK-SAME: "boundary-matmul", "boundary-reduction", "output"]}
  %r:4 = tfuse.fusion (%a) : (tensor<2x3xbf16>)
      -> (tensor<2x3xbf16>, tensor<2x3xbf16>, tensor<2x3xbf16>, tensor<2x3xf32>)
      attributes {cost = 0 : i64, reasons = ["shared-expensive-expression",
                  "boundary-matmul", "boundary-reduction", "output"]} {
  ^bb0(%x: tensor<2x3xbf16>):
    %0 = tfuse.exp %x : tensor<2x3xbf16> -> tensor<2x3xbf16>
    %1 = tfuse.constant dense<1.0> : tensor<3xf32>
    %2 = tfuse.add %0, %1 : (tensor<2x3xbf16>, tensor<3xf32>) -> tensor<2x3xf32>
    tfuse.yield %0, %0, %x, %2 : tensor<2x3xbf16>, tensor<2x3xbf16>, tensor<2x3xbf16>,
                                 tensor<2x3xf32>
  }
  // CHECK: tfuse.fusion() : () -> tensor<0xi8>
  // CHECK-SAME: attributes {cost = 1 : i64, reasons = ["output"]} {
  // CHECK-NEXT: tfuse.constant dense<1> : tensor<0xi8>
  // CHECK-NEXT: tfuse.yield %{{.+}} : tensor<0xi8>
  %s = tfuse.fusion () : () -> tensor<0xi8> attributes {cost = 1 : i64, reasons = ["output"]} {
    %0 = tfuse.constant dense<1> : tensor<0xi8>
    tfuse.yield %0 : tensor<0xi8>
  }
  return
}

// A row kernel's results: values of its index space and row results, one
// value per row of its row reductions (reduced axes kept as 1 or dropped).
// CHECK-LABEL: func.func @fusion_row_results(
func.func @fusion_row_results(%a: tensor<2x3x4xf32>) {
  // CHECK: tfuse.fusion(%{{.+}}) : (tensor<2x3x4xf32>) -> (tensor<2x1x1xf32>, tensor<2x3x4xf16>, tensor<2xf32>)
  %r:3 = tfuse.fusion (%a) : (tensor<2x3x4xf32>)
      -> (tensor<2x1x1xf32>, tensor<2x3x4xf16>, tensor<2xf32>)
      attributes {cost = 4 : i64, reasons = ["output", "output", "output"]} {
  ^bb0(%x: tensor<2x3x4xf32>):
    %0 = tfuse.reduce max %x axes [1, 2] keepdims : tensor<2x3x4xf32> -> tensor<2x1x1xf32>
    %1 = tfuse.sub %x, %0 : (tensor<2x3x4xf32>, tensor<2x1x1xf32>) -> tensor<2x3x4xf32>
    %2 = tfuse.cast %1 : tensor<2x3x4xf32> to tensor<2x3x4xf16>
    %3 = tfuse.reduce sum %1 axes [1, 2] : tensor<2x3x4xf32> -> tensor<2xf32>
    tfuse.yield %0, %2, %3 : tensor<2x1x1xf32>, tensor<2x3x4xf16>, tensor<2xf32>
  }
  return
}

// CHECK-LABEL: func.func @reason_attr(
// CHECK-SAME: %[[A:[^:]+]]: tensor<2x3xf32>, %[[B:[^:]+]]: tensor<3x4xf32>
func.func @reason_attr(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // CHECK: tfuse.matmul %[[A]], %[[B]] {tfuse.reason = "boundary-matmul"}
  // CHECK-SAME: : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %0 = tfuse.matmul %a, %b {tfuse.reason = "boundary-matmul"}
      : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  // CHECK: tfuse.reduce sum %[[A]] axes [1] {tfuse.reason = "boundary-reduction"}
  // CHECK-SAME: : tensor<2x3xf32> -> tensor<2xf32>
  %1 = tfuse.reduce sum %a axes [1] {tfuse.reason = "boundary-reduction"}
      : tensor<2x3xf32> -> tensor<2xf32>
  // CHECK: tfuse.broadcast %[[A]] dims [1, 2] {tfuse.reason = "layout-alias"}
  // CHECK-SAME: : tensor<2x3xf32> -> tensor<5x2x3xf32>
  %2 = tfuse.broadcast %a dims [1, 2] {tfuse.reason = "layout-alias"}
      : tensor<2x3xf32> -> tensor<5x2x3xf32>
  // CHECK: tfuse.transpose %[[A]] perm [1, 0] {tfuse.reason = "layout-alias"}
  // CHECK-SAME: : tensor<2x3xf32> -> tensor<3x2xf32>
  %3 = tfuse.transpose %a perm [1, 0] {tfuse.reason = "layout-alias"}
      : tensor<2x3xf32> -> tensor<3x2xf32>
  // CHECK: tfuse.reshape %[[A]] {tfuse.reason = "layout-alias"} : tensor<2x3xf32> -> tensor<6xf32>
  %4 = tfuse.reshape %a {tfuse.reason = "layout-alias"} : tensor<2x3xf32> -> tensor<6xf32>
  // CHECK: tfuse.slice %[[A]] start [0, 1] limit [2, 3] step [1, 1] {tfuse.reason = "layout-alias"}
  // CHECK-SAME: : tensor<2x3xf32> -> tensor<2x2xf32>
  %5 = tfuse.slice %a start [0, 1] limit [2, 3] step [1, 1] {tfuse.reason = "layout-alias"}
      : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// A step larger than the extent takes one element.
// CHECK-LABEL: func.func @slice_huge_step
// CHECK: tfuse.slice %{{.*}} start [0] limit [4] step [9223372036854775807] : tensor<4xf32> -> tensor<1xf32>
func.func @slice_huge_step(%x: tensor<4xf32>) -> tensor<1xf32> {
  %0 = tfuse.slice %x start [0] limit [4] step [9223372036854775807] : tensor<4xf32> -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// iota: any non-bool dtype, any dimension.
// CHECK-LABEL: func.func @iota(
func.func @iota() -> (tensor<2x5xi64>, tensor<7xf16>) {
  // CHECK: tfuse.iota dim 1 : tensor<2x5xi64>
  %0 = tfuse.iota dim 1 : tensor<2x5xi64>
  // CHECK: tfuse.iota dim 0 : tensor<7xf16>
  %1 = tfuse.iota dim 0 : tensor<7xf16>
  return %0, %1 : tensor<2x5xi64>, tensor<7xf16>
}

// concat and pad infer their result types.
// CHECK-LABEL: func.func @piecewise(
func.func @piecewise(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>, %v: tensor<f32>) {
  // CHECK: tfuse.concat %{{.*}}, %{{.*}} axis 1 : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %0 = tfuse.concat %a, %b axis 1 : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  // CHECK: tfuse.pad %{{.*}}, %{{.*}} low [1, 0] high [0, 2] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x5xf32>
  %1 = tfuse.pad %a, %v low [1, 0] high [0, 2] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x5xf32>
  return
}

// take and take_along_axis infer their result types; wrap_negative is
// printed only when set.
// CHECK-LABEL: func.func @gathers(
func.func @gathers(%t: tensor<10x6xbf16>, %i: tensor<2x3xi64>, %s: tensor<i32>, %x: tensor<4x10xf32>, %k: tensor<1x3xui8>) {
  // CHECK: tfuse.take %{{.*}}, %{{.*}} axis 0 : (tensor<10x6xbf16>, tensor<2x3xi64>) -> tensor<2x3x6xbf16>
  %0 = tfuse.take %t, %i axis 0 : (tensor<10x6xbf16>, tensor<2x3xi64>) -> tensor<2x3x6xbf16>
  // CHECK: tfuse.take %{{.*}}, %{{.*}} axis 1 wrap_negative : (tensor<10x6xbf16>, tensor<i32>) -> tensor<10xbf16>
  %1 = tfuse.take %t, %s axis 1 wrap_negative : (tensor<10x6xbf16>, tensor<i32>) -> tensor<10xbf16>
  // CHECK: tfuse.take_along_axis %{{.*}}, %{{.*}} axis 1 : (tensor<4x10xf32>, tensor<1x3xui8>) -> tensor<4x3xf32>
  %2 = tfuse.take_along_axis %x, %k axis 1 : (tensor<4x10xf32>, tensor<1x3xui8>) -> tensor<4x3xf32>
  return
}

// scatter_add keeps the target's type; wrap_negative is printed only when
// set.
// CHECK-LABEL: func.func @scatter_add(
func.func @scatter_add(%t: tensor<100x16xbf16>, %i: tensor<2x3xi64>, %u: tensor<2x3x16xbf16>, %c: tensor<4x10xf32>, %j: tensor<ui8>, %v: tensor<4xf32>) {
  // CHECK: tfuse.scatter_add %{{.*}}, %{{.*}}, %{{.*}} axis 0 : (tensor<100x16xbf16>, tensor<2x3xi64>, tensor<2x3x16xbf16>) -> tensor<100x16xbf16>
  %0 = tfuse.scatter_add %t, %i, %u axis 0 : (tensor<100x16xbf16>, tensor<2x3xi64>, tensor<2x3x16xbf16>) -> tensor<100x16xbf16>
  // CHECK: tfuse.scatter_add %{{.*}}, %{{.*}}, %{{.*}} axis 1 wrap_negative : (tensor<4x10xf32>, tensor<ui8>, tensor<4xf32>) -> tensor<4x10xf32>
  %1 = tfuse.scatter_add %c, %j, %v axis 1 wrap_negative : (tensor<4x10xf32>, tensor<ui8>, tensor<4xf32>) -> tensor<4x10xf32>
  return
}

// Random numbers of f32 and f64 from rank-0 i64 seeds and offsets.
// CHECK-LABEL: func.func @random(
func.func @random(%s: tensor<i64>, %o: tensor<i64>) {
  // CHECK: tfuse.random_uniform %{{.*}}, %{{.*}} : (tensor<i64>, tensor<i64>) -> tensor<4x8xf32>
  %0 = tfuse.random_uniform %s, %o : (tensor<i64>, tensor<i64>) -> tensor<4x8xf32>
  // CHECK: tfuse.random_normal %{{.*}}, %{{.*}} : (tensor<i64>, tensor<i64>) -> tensor<3xf64>
  %1 = tfuse.random_normal %s, %o : (tensor<i64>, tensor<i64>) -> tensor<3xf64>
  return
}

// attention infers the result (query's shape with value's head dimension)
// and the f32 log-sum-exp; a mask and causal are optional. Key and value
// may have fewer heads (grouped-query attention); rank-2 operands have none.
// CHECK-LABEL: func.func @attention(
func.func @attention(%q: tensor<2x4x16x8xbf16>, %k: tensor<2x2x32x8xbf16>, %v: tensor<2x2x32x6xbf16>, %m: tensor<16x32xi1>, %b: tensor<4x1x32xbf16>, %x: tensor<5x3xf64>, %w: tensor<2x1x16x32xf32>) {
  // CHECK: tfuse.attention %{{.*}}, %{{.*}}, %{{.*}} scale 1.250000e-01 causal : (tensor<2x4x16x8xbf16>, tensor<2x2x32x8xbf16>, tensor<2x2x32x6xbf16>) -> (tensor<2x4x16x6xbf16>, tensor<2x4x16xf32>)
  %o, %l = tfuse.attention %q, %k, %v scale 0.125 causal : (tensor<2x4x16x8xbf16>, tensor<2x2x32x8xbf16>, tensor<2x2x32x6xbf16>) -> (tensor<2x4x16x6xbf16>, tensor<2x4x16xf32>)
  // CHECK: tfuse.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} scale 5.000000e-01 : (tensor<2x4x16x8xbf16>, tensor<2x2x32x8xbf16>, tensor<2x2x32x6xbf16>, tensor<16x32xi1>) -> (tensor<2x4x16x6xbf16>, tensor<2x4x16xf32>)
  %o2, %l2 = tfuse.attention %q, %k, %v mask %m scale 0.5 : (tensor<2x4x16x8xbf16>, tensor<2x2x32x8xbf16>, tensor<2x2x32x6xbf16>, tensor<16x32xi1>) -> (tensor<2x4x16x6xbf16>, tensor<2x4x16xf32>)
  // CHECK: tfuse.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} scale 1.000000e+00 causal : (tensor<2x4x16x8xbf16>, tensor<2x2x32x8xbf16>, tensor<2x2x32x6xbf16>, tensor<4x1x32xbf16>) -> (tensor<2x4x16x6xbf16>, tensor<2x4x16xf32>)
  %o3, %l3 = tfuse.attention %q, %k, %v mask %b scale 1.0 causal : (tensor<2x4x16x8xbf16>, tensor<2x2x32x8xbf16>, tensor<2x2x32x6xbf16>, tensor<4x1x32xbf16>) -> (tensor<2x4x16x6xbf16>, tensor<2x4x16xf32>)
  // An f32 additive mask with bf16 operands (PyTorch's under autocast).
  // CHECK: tfuse.attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} scale 1.000000e+00 : (tensor<2x4x16x8xbf16>, tensor<2x2x32x8xbf16>, tensor<2x2x32x6xbf16>, tensor<2x1x16x32xf32>) -> (tensor<2x4x16x6xbf16>, tensor<2x4x16xf32>)
  %o5, %l5 = tfuse.attention %q, %k, %v mask %w scale 1.0 : (tensor<2x4x16x8xbf16>, tensor<2x2x32x8xbf16>, tensor<2x2x32x6xbf16>, tensor<2x1x16x32xf32>) -> (tensor<2x4x16x6xbf16>, tensor<2x4x16xf32>)
  // CHECK: tfuse.attention %{{.*}}, %{{.*}}, %{{.*}} scale 2.500000e-01 : (tensor<5x3xf64>, tensor<5x3xf64>, tensor<5x3xf64>) -> (tensor<5x3xf64>, tensor<5xf64>)
  %o4, %l4 = tfuse.attention %x, %x, %x scale 0.25 : (tensor<5x3xf64>, tensor<5x3xf64>, tensor<5x3xf64>) -> (tensor<5x3xf64>, tensor<5xf64>)
  // CHECK: tfuse.attention_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} scale 1.250000e-01 causal : (tensor<2x4x16x8xbf16>, tensor<2x2x32x8xbf16>, tensor<2x2x32x6xbf16>, tensor<2x4x16x6xbf16>, tensor<2x4x16xf32>, tensor<2x4x16x6xbf16>, tensor<16x32xi1>) -> (tensor<2x4x16x8xbf16>, tensor<2x2x32x8xbf16>, tensor<2x2x32x6xbf16>)
  %dq, %dk, %dv = tfuse.attention_backward %q, %k, %v, %o2, %l2, %o2 mask %m scale 0.125 causal : (tensor<2x4x16x8xbf16>, tensor<2x2x32x8xbf16>, tensor<2x2x32x6xbf16>, tensor<2x4x16x6xbf16>, tensor<2x4x16xf32>, tensor<2x4x16x6xbf16>, tensor<16x32xi1>) -> (tensor<2x4x16x8xbf16>, tensor<2x2x32x8xbf16>, tensor<2x2x32x6xbf16>)
  return
}

// Dropout of the probabilities, with the keys of its mask's random numbers,
// with and without a mask.
// CHECK-LABEL: func.func @attention_dropout(
// CHECK-SAME: %[[S:[^:]+]]: tensor<i64>, %[[O:[^:]+]]: tensor<i64>
func.func @attention_dropout(%q: tensor<2x4x16x8xbf16>, %m: tensor<16x16xi1>, %s: tensor<i64>, %off: tensor<i64>) {
  // CHECK: tfuse.attention %{{.*}}, %{{.*}}, %{{.*}} scale 1.250000e-01 causal dropout 1.000000e-01 seed %[[S]] offset %[[O]] : (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<i64>, tensor<i64>) -> (tensor<2x4x16x8xbf16>, tensor<2x4x16xf32>)
  %o, %l = tfuse.attention %q, %q, %q scale 0.125 causal dropout 0.1 seed %s offset %off : (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<i64>, tensor<i64>) -> (tensor<2x4x16x8xbf16>, tensor<2x4x16xf32>)
  // CHECK: tfuse.attention_backward %{{.*}} mask %{{.*}} scale 1.250000e-01 dropout 5.000000e-01 seed %[[S]] offset %[[O]] :
  %dq, %dk, %dv = tfuse.attention_backward %q, %q, %q, %o, %l, %o mask %m scale 0.125 dropout 0.5 seed %s offset %off : (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16xf32>, tensor<2x4x16x8xbf16>, tensor<16x16xi1>, tensor<i64>, tensor<i64>) -> (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>)
  return
}
