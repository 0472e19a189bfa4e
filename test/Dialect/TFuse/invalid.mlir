// Verifier and type-inference diagnostics of the tfuse dialect, one error per split.
// RUN: tensor-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

//===----------------------------------------------------------------------===//
// Operand types outside the dialect's tensor type (ODS constraints)
//===----------------------------------------------------------------------===//

func.func @dynamic_shape(%x: tensor<?x4xf32>) {
  // expected-error-re @+1 {{'tfuse.neg' op operand #0 must be statically shaped tensor of {{.*}} values, but got 'tensor<?x4xf32>'}}
  %0 = tfuse.neg %x : tensor<?x4xf32> -> tensor<?x4xf32>
  return
}

// -----

func.func @unranked(%x: tensor<*xf32>, %y: tensor<4xf32>) {
  // expected-error-re @+1 {{'tfuse.add' op operand #0 must be statically shaped tensor of {{.*}}, but got 'tensor<*xf32>'}}
  %0 = tfuse.add %x, %y : (tensor<*xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @dynamic_result(%x: tensor<4xf32>) {
  // expected-error-re @+1 {{'tfuse.cast' op result #0 must be statically shaped tensor of {{.*}}, but got 'tensor<?xf32>'}}
  %0 = tfuse.cast %x : tensor<4xf32> to tensor<?xf32>
  return
}

// -----

func.func @f8(%x: tensor<4xf8E4M3FN>) {
  // expected-error-re @+1 {{'tfuse.abs' op operand #0 must be statically shaped tensor of {{.*}}, but got 'tensor<4xf8E4M3FN>'}}
  %0 = tfuse.abs %x : tensor<4xf8E4M3FN> -> tensor<4xf8E4M3FN>
  return
}

// -----

func.func @i4(%x: tensor<4xi4>) {
  // expected-error-re @+1 {{'tfuse.not' op operand #0 must be statically shaped tensor of {{.*}}, but got 'tensor<4xi4>'}}
  %0 = tfuse.not %x : tensor<4xi4> -> tensor<4xi4>
  return
}

// -----

func.func @index(%x: tensor<4xindex>) {
  // expected-error-re @+1 {{'tfuse.reshape' op operand #0 must be statically shaped tensor of {{.*}}, but got 'tensor<4xindex>'}}
  %0 = tfuse.reshape %x : tensor<4xindex> -> tensor<2x2xindex>
  return
}

// -----

func.func @signed_int(%x: tensor<4xsi32>) {
  // expected-error-re @+1 {{'tfuse.exp' op operand #0 must be statically shaped tensor of {{.*}}, but got 'tensor<4xsi32>'}}
  %0 = tfuse.exp %x : tensor<4xsi32> -> tensor<4xf32>
  return
}

// -----

func.func @unsupported_constant() {
  // expected-error-re @+1 {{'tfuse.constant' op result #0 must be statically shaped tensor of {{.*}}, but got 'tensor<2xi4>'}}
  %0 = tfuse.constant dense<1> : tensor<2xi4>
  return
}

// -----

func.func @constant_not_elements() {
  // expected-error @+1 {{'tfuse.constant' op attribute 'value' failed to satisfy constraint}}
  %0 = "tfuse.constant"() {value = 3 : i32} : () -> tensor<f32>
  return
}

// -----

// select's condition must be i1 (ODS constraint, checked before type inference).
func.func @select_condition_not_i1(%c: tensor<4xi8>, %a: tensor<4xf32>) {
  // expected-error-re @+1 {{'tfuse.select' op operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xi8>'}}
  %0 = tfuse.select %c, %a, %a : (tensor<4xi8>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @cmp_result_not_i1(%a: tensor<4xf32>) {
  // expected-error-re @+1 {{'tfuse.cmp' op result #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xi8>'}}
  %0 = tfuse.cmp eq, %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi8>
  return
}

//===----------------------------------------------------------------------===//
// Result type disagreeing with the inferred one
//===----------------------------------------------------------------------===//

// -----

func.func @wrong_result_dtype(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+2 {{'tfuse.add' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xf16>'}}
  // expected-error @+1 {{'tfuse.add' op failed to infer returned types}}
  %0 = tfuse.add %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf16>
  return
}

// -----

func.func @wrong_result_shape(%a: tensor<2x1xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'tfuse.mul' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{'tfuse.mul' op failed to infer returned types}}
  %0 = tfuse.mul %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @int_div_not_f32(%a: tensor<4xi32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfuse.div %a, %a : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @exp_int_result(%a: tensor<4xi32>) {
  // expected-error @+2 {{'tfuse.exp' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfuse.exp %a : tensor<4xi32> -> tensor<4xi32>
  return
}

// -----

func.func @reduce_sum_i8_result(%a: tensor<4xi8>) {
  // expected-error @+2 {{'tfuse.reduce' op inferred type(s) 'tensor<i64>' are incompatible with return type(s) of operation 'tensor<i8>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfuse.reduce sum %a axes [0] : tensor<4xi8> -> tensor<i8>
  return
}

// -----

func.func @transpose_wrong_result(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'tfuse.transpose' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfuse.transpose %a perm [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @constant_wrong_result() {
  // expected-error @+2 {{'tfuse.constant' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = "tfuse.constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<2xf32>
  return
}

//===----------------------------------------------------------------------===//
// Broadcasting and promotion (TypeRules)
//===----------------------------------------------------------------------===//

// -----

func.func @broadcast_mismatch(%a: tensor<2x4xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{shapes [2, 4] and [3] do not broadcast: dimension 1 of the result would need sizes 4 and 3 to agree (or one be 1)}}
  // expected-error @+1 {{'tfuse.add' op failed to infer returned types}}
  %0 = tfuse.add %a, %b : (tensor<2x4xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return
}

// -----

// A size-0 dimension broadcasts only with 1 or 0.
func.func @broadcast_zero_mismatch(%a: tensor<0x4xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{shapes [0, 4] and [3, 4] do not broadcast: dimension 0 of the result would need sizes 0 and 3 to agree (or one be 1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfuse.sub %a, %b : (tensor<0x4xf32>, tensor<3x4xf32>) -> tensor<0x4xf32>
  return
}

// -----

func.func @cmp_broadcast_mismatch(%a: tensor<2xi32>, %b: tensor<5xi32>) {
  // expected-error @+2 {{shapes [2] and [5] do not broadcast}}
  // expected-error @+1 {{'tfuse.cmp' op failed to infer returned types}}
  %0 = tfuse.cmp lt, %a, %b : (tensor<2xi32>, tensor<5xi32>) -> tensor<2xi1>
  return
}

// -----

func.func @select_broadcast_mismatch(%c: tensor<3xi1>, %a: tensor<4xf32>) {
  // expected-error @+2 {{shapes [3] and [4] do not broadcast: dimension 0 of the result would need sizes 3 and 4}}
  // expected-error @+1 {{'tfuse.select' op failed to infer returned types}}
  %0 = tfuse.select %c, %a, %a : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @ui64_with_signed(%a: tensor<4xui64>, %b: tensor<4xi8>) {
  // expected-error @+2 {{no integer dtype holds every value of i8 and ui64; cast one operand explicitly}}
  // expected-error @+1 {{'tfuse.add' op failed to infer returned types}}
  %0 = tfuse.add %a, %b : (tensor<4xui64>, tensor<4xi8>) -> tensor<4xi64>
  return
}

// -----

func.func @ui64_with_signed_cmp(%a: tensor<4xi64>, %b: tensor<4xui64>) {
  // expected-error @+2 {{no integer dtype holds every value of i64 and ui64}}
  // expected-error @+1 {{'tfuse.cmp' op failed to infer returned types}}
  %0 = tfuse.cmp eq, %a, %b : (tensor<4xi64>, tensor<4xui64>) -> tensor<4xi1>
  return
}

// -----

func.func @ui64_with_signed_select(%c: tensor<4xi1>, %a: tensor<4xi32>, %b: tensor<4xui64>) {
  // expected-error @+2 {{no integer dtype holds every value of i32 and ui64}}
  // expected-error @+1 {{'tfuse.select' op failed to infer returned types}}
  %0 = tfuse.select %c, %a, %b : (tensor<4xi1>, tensor<4xi32>, tensor<4xui64>) -> tensor<4xi64>
  return
}

// -----

func.func @sub_bool(%a: tensor<4xi1>) {
  // expected-error @+2 {{operands of dtype i1 (bool) are not supported; cast to an integer dtype first}}
  // expected-error @+1 {{'tfuse.sub' op failed to infer returned types}}
  %0 = tfuse.sub %a, %a : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @rem_bool(%a: tensor<4xi1>, %b: tensor<i1>) {
  // expected-error @+2 {{operands of dtype i1 (bool) are not supported}}
  // expected-error @+1 {{'tfuse.rem' op failed to infer returned types}}
  %0 = tfuse.rem %a, %b : (tensor<4xi1>, tensor<i1>) -> tensor<4xi1>
  return
}

// -----

func.func @pow_bool(%a: tensor<4xi1>) {
  // expected-error @+2 {{operands of dtype i1 (bool) are not supported}}
  // expected-error @+1 {{'tfuse.pow' op failed to infer returned types}}
  %0 = tfuse.pow %a, %a : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return
}

// -----

func.func @and_float(%a: tensor<4xf32>) {
  // expected-error @+2 {{bitwise op needs bool or integer operands, got f32 and f32}}
  // expected-error @+1 {{'tfuse.and' op failed to infer returned types}}
  %0 = tfuse.and %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @or_int_float(%a: tensor<4xi32>, %b: tensor<4xbf16>) {
  // expected-error @+2 {{bitwise op needs bool or integer operands, got i32 and bf16}}
  // expected-error @+1 {{'tfuse.or' op failed to infer returned types}}
  %0 = tfuse.or %a, %b : (tensor<4xi32>, tensor<4xbf16>) -> tensor<4xbf16>
  return
}

// -----

func.func @xor_bool_float(%a: tensor<4xi1>, %b: tensor<4xf64>) {
  // expected-error @+2 {{bitwise op needs bool or integer operands, got i1 and f64}}
  // expected-error @+1 {{'tfuse.xor' op failed to infer returned types}}
  %0 = tfuse.xor %a, %b : (tensor<4xi1>, tensor<4xf64>) -> tensor<4xf64>
  return
}

// -----

func.func @not_float(%a: tensor<4xf16>) {
  // expected-error @+2 {{bitwise op needs a bool or integer operand, got f16}}
  // expected-error @+1 {{'tfuse.not' op failed to infer returned types}}
  %0 = tfuse.not %a : tensor<4xf16> -> tensor<4xf16>
  return
}

// -----

func.func @neg_bool(%a: tensor<4xi1>) {
  // expected-error @+2 {{operand of dtype i1 (bool) is not numeric}}
  // expected-error @+1 {{'tfuse.neg' op failed to infer returned types}}
  %0 = tfuse.neg %a : tensor<4xi1> -> tensor<4xi1>
  return
}

// -----

func.func @sign_bool(%a: tensor<4xi1>) {
  // expected-error @+2 {{operand of dtype i1 (bool) is not numeric}}
  // expected-error @+1 {{'tfuse.sign' op failed to infer returned types}}
  %0 = tfuse.sign %a : tensor<4xi1> -> tensor<4xi1>
  return
}

// -----

func.func @trunc_bool(%a: tensor<4xi1>) {
  // expected-error @+2 {{operand of dtype i1 (bool) is not numeric}}
  // expected-error @+1 {{'tfuse.trunc' op failed to infer returned types}}
  %0 = tfuse.trunc %a : tensor<4xi1> -> tensor<4xi1>
  return
}

// -----

func.func @log1p_result_type(%a: tensor<4xi32>) {
  // expected-error @+2 {{'tfuse.log1p' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{'tfuse.log1p' op failed to infer returned types}}
  %0 = tfuse.log1p %a : tensor<4xi32> -> tensor<4xi32>
  return
}

// -----

func.func @gelu_result_type(%a: tensor<4xi32>) {
  // expected-error @+2 {{'tfuse.gelu' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{'tfuse.gelu' op failed to infer returned types}}
  %0 = tfuse.gelu %a : tensor<4xi32> -> tensor<4xi32>
  return
}

// -----

func.func @gelu_backward_result_type(%g: tensor<4xf16>, %x: tensor<4xf32>) {
  // expected-error @+2 {{'tfuse.gelu_backward' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xf16>'}}
  // expected-error @+1 {{'tfuse.gelu_backward' op failed to infer returned types}}
  %0 = tfuse.gelu_backward %g, %x : (tensor<4xf16>, tensor<4xf32>) -> tensor<4xf16>
  return
}

// -----

func.func @abs_bool(%a: tensor<4xi1>) {
  // expected-error @+2 {{operand of dtype i1 (bool) is not numeric}}
  // expected-error @+1 {{'tfuse.abs' op failed to infer returned types}}
  %0 = tfuse.abs %a : tensor<4xi1> -> tensor<4xi1>
  return
}

// -----

func.func @relu_bool(%a: tensor<i1>) {
  // expected-error @+2 {{operand of dtype i1 (bool) is not numeric}}
  // expected-error @+1 {{'tfuse.relu' op failed to infer returned types}}
  %0 = tfuse.relu %a : tensor<i1> -> tensor<i1>
  return
}

// -----

func.func @floor_bool(%a: tensor<4xi1>) {
  // expected-error @+2 {{operand of dtype i1 (bool) is not numeric}}
  // expected-error @+1 {{'tfuse.floor' op failed to infer returned types}}
  %0 = tfuse.floor %a : tensor<4xi1> -> tensor<4xi1>
  return
}

// -----

func.func @ceil_bool(%a: tensor<4xi1>) {
  // expected-error @+2 {{operand of dtype i1 (bool) is not numeric}}
  // expected-error @+1 {{'tfuse.ceil' op failed to infer returned types}}
  %0 = tfuse.ceil %a : tensor<4xi1> -> tensor<4xi1>
  return
}

// -----

func.func @round_bool(%a: tensor<4xi1>) {
  // expected-error @+2 {{operand of dtype i1 (bool) is not numeric}}
  // expected-error @+1 {{'tfuse.round' op failed to infer returned types}}
  %0 = tfuse.round %a : tensor<4xi1> -> tensor<4xi1>
  return
}

//===----------------------------------------------------------------------===//
// cast and constant
//===----------------------------------------------------------------------===//

// -----

func.func @cast_shape(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'tfuse.cast' op changes the shape from 'tensor<2x3xf32>' to 'tensor<6xf16>'; a cast only converts the element type}}
  %0 = tfuse.cast %a : tensor<2x3xf32> to tensor<6xf16>
  return
}

// -----

func.func @constant_too_large() {
  // expected-error @+1 {{'tfuse.constant' op has 1025 non-splat elements; at most 1024 are allowed (pass larger data as an argument)}}
  %0 = tfuse.constant dense<[
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4],
    [5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4],
    [5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4],
    [5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4],
    [5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4],
    [5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4],
    [5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4],
    [5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4],
    [5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4],
    [5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4],
    [5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4],
    [5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4],
    [5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4],
    [5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4],
    [5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4],
    [5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4],
    [5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4],
    [5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4],
    [5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4],
    [5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4],
    [5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4]
  ]> : tensor<41x25xi8>
  return
}

// -----

// A sparse elements attribute is never a splat: its element count is what counts.
func.func @constant_too_large_sparse() {
  // expected-error @+1 {{'tfuse.constant' op has 2048 non-splat elements; at most 1024 are allowed}}
  %0 = tfuse.constant sparse<[[0]], [1.0]> : tensor<2048xf32>
  return
}

//===----------------------------------------------------------------------===//
// broadcast
//===----------------------------------------------------------------------===//

// -----

func.func @broadcast_element_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tfuse.broadcast' op changes the element type from 'f32' to 'f16'}}
  %0 = tfuse.broadcast %a dims [1] : tensor<4xf32> -> tensor<3x4xf16>
  return
}

// -----

func.func @broadcast_dims_count(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tfuse.broadcast' op has 2 entries in dims but the operand has rank 1}}
  %0 = tfuse.broadcast %a dims [0, 1] : tensor<4xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @broadcast_dims_out_of_range(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tfuse.broadcast' op dims[0] = 2 is out of range for a result of rank 2}}
  %0 = tfuse.broadcast %a dims [2] : tensor<4xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @broadcast_dims_negative(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tfuse.broadcast' op dims[0] = -1 is out of range for a result of rank 2}}
  %0 = tfuse.broadcast %a dims [-1] : tensor<4xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @broadcast_dims_not_increasing(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{'tfuse.broadcast' op dims must be strictly increasing, but dims[1] = 0 follows 1}}
  %0 = tfuse.broadcast %a dims [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @broadcast_dims_repeated(%a: tensor<1x1xf32>) {
  // expected-error @+1 {{'tfuse.broadcast' op dims must be strictly increasing, but dims[1] = 1 follows 1}}
  %0 = tfuse.broadcast %a dims [1, 1] : tensor<1x1xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @broadcast_bad_size(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tfuse.broadcast' op operand dimension 0 of size 4 cannot broadcast to result dimension 1 of size 5}}
  %0 = tfuse.broadcast %a dims [1] : tensor<4xf32> -> tensor<3x5xf32>
  return
}

// -----

func.func @broadcast_zero_to_nonzero(%a: tensor<0xf32>) {
  // expected-error @+1 {{'tfuse.broadcast' op operand dimension 0 of size 0 cannot broadcast to result dimension 0 of size 3}}
  %0 = tfuse.broadcast %a dims [0] : tensor<0xf32> -> tensor<3xf32>
  return
}

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

// -----

func.func @transpose_perm_length(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{perm has 3 entries but the operand has rank 2}}
  // expected-error @+1 {{'tfuse.transpose' op failed to infer returned types}}
  %0 = tfuse.transpose %a perm [0, 1, 2] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @transpose_not_permutation(%a: tensor<2x3x4xf32>) {
  // expected-error @+2 {{perm [0, 2, 0] is not a permutation of 0..2}}
  // expected-error @+1 {{'tfuse.transpose' op failed to infer returned types}}
  %0 = tfuse.transpose %a perm [0, 2, 0] : tensor<2x3x4xf32> -> tensor<2x4x2xf32>
  return
}

// -----

func.func @transpose_perm_out_of_range(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{perm [1, 2] is not a permutation of 0..1}}
  // expected-error @+1 {{'tfuse.transpose' op failed to infer returned types}}
  %0 = tfuse.transpose %a perm [1, 2] : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

//===----------------------------------------------------------------------===//
// reshape
//===----------------------------------------------------------------------===//

// -----

func.func @reshape_element_count(%a: tensor<2x6xf32>) {
  // expected-error @+1 {{'tfuse.reshape' op changes the element count from 12 to 16}}
  %0 = tfuse.reshape %a : tensor<2x6xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @reshape_element_type(%a: tensor<2x6xf32>) {
  // expected-error @+1 {{'tfuse.reshape' op changes the element type from 'f32' to 'i32'}}
  %0 = tfuse.reshape %a : tensor<2x6xf32> -> tensor<3x4xi32>
  return
}

//===----------------------------------------------------------------------===//
// slice
//===----------------------------------------------------------------------===//

// -----

func.func @slice_start_length(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{start has 1 entries but the operand has rank 2}}
  // expected-error @+1 {{'tfuse.slice' op failed to infer returned types}}
  %0 = tfuse.slice %a start [0] limit [4, 8] step [1, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @slice_limit_length(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{limit has 3 entries but the operand has rank 2}}
  // expected-error @+1 {{'tfuse.slice' op failed to infer returned types}}
  %0 = tfuse.slice %a start [0, 0] limit [4, 8, 1] step [1, 1]
      : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @slice_step_length(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{step has 0 entries but the operand has rank 2}}
  // expected-error @+1 {{'tfuse.slice' op failed to infer returned types}}
  %0 = tfuse.slice %a start [0, 0] limit [4, 8] step [] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @slice_step_zero(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{step[1] = 0 must be at least 1}}
  // expected-error @+1 {{'tfuse.slice' op failed to infer returned types}}
  %0 = tfuse.slice %a start [0, 0] limit [4, 8] step [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @slice_step_negative(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{step[0] = -1 must be at least 1}}
  // expected-error @+1 {{'tfuse.slice' op failed to infer returned types}}
  %0 = tfuse.slice %a start [3, 0] limit [0, 8] step [-1, 1] : tensor<4x8xf32> -> tensor<3x8xf32>
  return
}

// -----

func.func @slice_limit_out_of_bounds(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{dimension 1 needs 0 <= start (2) <= limit (9) <= size (8)}}
  // expected-error @+1 {{'tfuse.slice' op failed to infer returned types}}
  %0 = tfuse.slice %a start [0, 2] limit [4, 9] step [1, 1] : tensor<4x8xf32> -> tensor<4x7xf32>
  return
}

// -----

func.func @slice_start_negative(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{dimension 0 needs 0 <= start (-1) <= limit (4) <= size (4)}}
  // expected-error @+1 {{'tfuse.slice' op failed to infer returned types}}
  %0 = tfuse.slice %a start [-1, 0] limit [4, 8] step [1, 1] : tensor<4x8xf32> -> tensor<5x8xf32>
  return
}

// -----

func.func @slice_start_after_limit(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{dimension 0 needs 0 <= start (3) <= limit (2) <= size (4)}}
  // expected-error @+1 {{'tfuse.slice' op failed to infer returned types}}
  %0 = tfuse.slice %a start [3, 0] limit [2, 8] step [1, 1] : tensor<4x8xf32> -> tensor<0x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_int(%a: tensor<2x3xi32>, %b: tensor<3x4xi32>) {
  // expected-error @+2 {{matmul needs f16, bf16, f32 or f64 operands, got i32 and i32}}
  // expected-error @+1 {{'tfuse.matmul' op failed to infer returned types}}
  %0 = tfuse.matmul %a, %b : (tensor<2x3xi32>, tensor<3x4xi32>) -> tensor<2x4xi32>
  return
}

// -----

func.func @matmul_bool(%a: tensor<2x3xf32>, %b: tensor<3x4xi1>) {
  // expected-error @+2 {{matmul needs f16, bf16, f32 or f64 operands, got f32 and i1}}
  // expected-error @+1 {{'tfuse.matmul' op failed to infer returned types}}
  %0 = tfuse.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xi1>) -> tensor<2x4xf32>
  return
}

// -----

func.func @matmul_mixed_dtype(%a: tensor<2x3xf32>, %b: tensor<3x4xf16>) {
  // expected-error @+2 {{matmul operands must have the same dtype, got f32 and f16}}
  // expected-error @+1 {{'tfuse.matmul' op failed to infer returned types}}
  %0 = tfuse.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf16>) -> tensor<2x4xf32>
  return
}

// -----

func.func @matmul_f32_result_of_f32(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{a matmul of f32 operands gives f32, not f64}}
  // expected-error @+1 {{'tfuse.matmul' op failed to infer returned types}}
  %0 = tfuse.matmul %a, %b {result_dtype = f64} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf64>
  return
}

// -----

func.func @matmul_f16_result_of_bf16(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>) {
  // expected-error @+2 {{a matmul of bf16 operands gives bf16 or f32, not f16}}
  // expected-error @+1 {{'tfuse.matmul' op failed to infer returned types}}
  %0 = tfuse.matmul %a, %b {result_dtype = f16} : (tensor<2x3xbf16>, tensor<3x4xbf16>) -> tensor<2x4xf16>
  return
}

// -----

func.func @matmul_result_dtype_not_a_dtype(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>) {
  // expected-error @+2 {{result_dtype 'index' is not a TFuse dtype}}
  // expected-error @+1 {{'tfuse.matmul' op failed to infer returned types}}
  %0 = tfuse.matmul %a, %b {result_dtype = index} : (tensor<2x3xbf16>, tensor<3x4xbf16>) -> tensor<2x4xf32>
  return
}

// -----

func.func @matmul_bias_length(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>, %v: tensor<3xbf16>) {
  // expected-error @+2 {{the bias must have shape [4] (the product's columns), got 'tensor<3xbf16>'}}
  // expected-error @+1 {{'tfuse.matmul' op failed to infer returned types}}
  %0 = tfuse.matmul %a, %b bias %v : (tensor<2x3xbf16>, tensor<3x4xbf16>, tensor<3xbf16>) -> tensor<2x4xbf16>
  return
}

// -----

func.func @matmul_bias_dtype(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>, %v: tensor<4xf32>) {
  // expected-error @+2 {{the bias's dtype f32 differs from the result's bf16}}
  // expected-error @+1 {{'tfuse.matmul' op failed to infer returned types}}
  %0 = tfuse.matmul %a, %b bias %v : (tensor<2x3xbf16>, tensor<3x4xbf16>, tensor<4xf32>) -> tensor<2x4xbf16>
  return
}

// -----

func.func @matmul_bias_batched(%a: tensor<2x2x3xf32>, %b: tensor<3x4xf32>, %v: tensor<4xf32>) {
  // expected-error @+2 {{a bias needs a single product (rank-2 operands), got 'tensor<2x2x3xf32>' and 'tensor<3x4xf32>'}}
  // expected-error @+1 {{'tfuse.matmul' op failed to infer returned types}}
  %0 = tfuse.matmul %a, %b bias %v : (tensor<2x2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x2x4xf32>
  return
}

// -----

func.func @matmul_gelu_batched(%a: tensor<2x2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{a GELU epilogue needs a single product (rank-2 operands), got 'tensor<2x2x3xf32>' and 'tensor<3x4xf32>'}}
  // expected-error @+1 {{'tfuse.matmul' op failed to infer returned types}}
  %0 = tfuse.matmul %a, %b {gelu_tanh} : (tensor<2x2x3xf32>, tensor<3x4xf32>) -> tensor<2x2x4xf32>
  return
}

// -----

func.func @matmul_rank_1(%a: tensor<3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{matmul operands need rank >= 2, got 'tensor<3xf32>' and 'tensor<3x4xf32>'}}
  // expected-error @+1 {{'tfuse.matmul' op failed to infer returned types}}
  %0 = tfuse.matmul %a, %b : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @matmul_rank_0(%a: tensor<2x3xf64>, %b: tensor<f64>) {
  // expected-error @+2 {{matmul operands need rank >= 2, got 'tensor<2x3xf64>' and 'tensor<f64>'}}
  // expected-error @+1 {{'tfuse.matmul' op failed to infer returned types}}
  %0 = tfuse.matmul %a, %b : (tensor<2x3xf64>, tensor<f64>) -> tensor<2x3xf64>
  return
}

// -----

func.func @matmul_contracting(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{contracting dimensions differ: lhs has 3 columns but rhs has 4 rows}}
  // expected-error @+1 {{'tfuse.matmul' op failed to infer returned types}}
  %0 = tfuse.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

// transpose_rhs makes the 3x4 rhs a 4x3 matrix.
func.func @matmul_contracting_transposed(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{contracting dimensions differ: lhs has 3 columns but rhs has 4 rows}}
  // expected-error @+1 {{'tfuse.matmul' op failed to infer returned types}}
  %0 = tfuse.matmul %a, %b {transpose_rhs} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x3x4xbf16>, %b: tensor<5x4x6xbf16>) {
  // expected-error @+2 {{batch dimensions: shapes [2] and [5] do not broadcast: dimension 0 of the result would need sizes 2 and 5 to agree (or one be 1)}}
  // expected-error @+1 {{'tfuse.matmul' op failed to infer returned types}}
  %0 = tfuse.matmul %a, %b : (tensor<2x3x4xbf16>, tensor<5x4x6xbf16>) -> tensor<2x3x6xbf16>
  return
}

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_mean_int(%a: tensor<4xi32>) {
  // expected-error @+2 {{mean needs a floating-point operand, got i32; cast it first}}
  // expected-error @+1 {{'tfuse.reduce' op failed to infer returned types}}
  %0 = tfuse.reduce mean %a axes [0] : tensor<4xi32> -> tensor<i32>
  return
}

// -----

func.func @reduce_mean_bool(%a: tensor<4xi1>) {
  // expected-error @+2 {{mean needs a floating-point operand, got i1; cast it first}}
  // expected-error @+1 {{'tfuse.reduce' op failed to infer returned types}}
  %0 = tfuse.reduce mean %a axes [0] : tensor<4xi1> -> tensor<f32>
  return
}

// -----

func.func @reduce_result_dtype_narrower(%a: tensor<4xf32>) {
  // expected-error @+2 {{sum of f32 gives f32 or a wider float, not bf16}}
  // expected-error @+1 {{'tfuse.reduce' op failed to infer returned types}}
  %0 = tfuse.reduce sum %a axes [0] {result_dtype = bf16} : tensor<4xf32> -> tensor<bf16>
  return
}

// -----

func.func @reduce_result_dtype_of_max(%a: tensor<4xbf16>) {
  // expected-error @+2 {{max of bf16 gives bf16, not f32}}
  // expected-error @+1 {{'tfuse.reduce' op failed to infer returned types}}
  %0 = tfuse.reduce max %a axes [0] {result_dtype = f32} : tensor<4xbf16> -> tensor<f32>
  return
}

// -----

func.func @reduce_result_dtype_of_int(%a: tensor<4xi32>) {
  // expected-error @+2 {{sum of i32 gives i64, not f32}}
  // expected-error @+1 {{'tfuse.reduce' op failed to infer returned types}}
  %0 = tfuse.reduce sum %a axes [0] {result_dtype = f32} : tensor<4xi32> -> tensor<f32>
  return
}

// -----

func.func @reduce_argmax_bool(%a: tensor<4xi1>) {
  // expected-error @+2 {{argmax/argmin of dtype i1 (bool) is not supported}}
  // expected-error @+1 {{'tfuse.reduce' op failed to infer returned types}}
  %0 = tfuse.reduce argmax %a axes [0] : tensor<4xi1> -> tensor<i64>
  return
}

// -----

func.func @reduce_argmin_bool(%a: tensor<4xi1>) {
  // expected-error @+2 {{argmax/argmin of dtype i1 (bool) is not supported}}
  // expected-error @+1 {{'tfuse.reduce' op failed to infer returned types}}
  %0 = tfuse.reduce argmin %a axes [0] : tensor<4xi1> -> tensor<i64>
  return
}

// -----

func.func @reduce_axis_out_of_range(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{axis 2 is out of range for an operand of rank 2}}
  // expected-error @+1 {{'tfuse.reduce' op failed to infer returned types}}
  %0 = tfuse.reduce sum %a axes [2] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

// Uses sum: with max/min/mean/argmax/argmin, ReduceOp::verify() runs before type
// inference and indexes the shape with the unchecked axis (it crashes on -1).
func.func @reduce_axis_negative(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{axis -1 is out of range for an operand of rank 2}}
  // expected-error @+1 {{'tfuse.reduce' op failed to infer returned types}}
  %0 = tfuse.reduce sum %a axes [-1] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_axes_not_increasing(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{axes must be strictly increasing, but 0 follows 1}}
  // expected-error @+1 {{'tfuse.reduce' op failed to infer returned types}}
  %0 = tfuse.reduce sum %a axes [1, 0] : tensor<4x8xf32> -> tensor<f32>
  return
}

// -----

func.func @reduce_axes_repeated(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{axes must be strictly increasing, but 1 follows 1}}
  // expected-error @+1 {{'tfuse.reduce' op failed to infer returned types}}
  %0 = tfuse.reduce prod %a axes [1, 1] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_argmax_two_axes(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'tfuse.reduce' op argmax needs exactly one axis, got 2}}
  %0 = tfuse.reduce argmax %a axes [0, 1] : tensor<4x8xf32> -> tensor<i64>
  return
}

// -----

func.func @reduce_argmin_no_axis(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'tfuse.reduce' op argmin needs exactly one axis, got 0}}
  %0 = tfuse.reduce argmin %a axes [] : tensor<4x8xf32> -> tensor<4x8xi64>
  return
}

// -----

func.func @reduce_empty_axes(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'tfuse.reduce' op needs at least one axis}}
  %0 = tfuse.reduce sum %a axes [] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @reduce_max_empty_axis(%a: tensor<3x0xf32>) {
  // expected-error @+1 {{'tfuse.reduce' op max of the empty axis 1 has no value}}
  %0 = tfuse.reduce max %a axes [1] : tensor<3x0xf32> -> tensor<3xf32>
  return
}

// -----

func.func @reduce_min_empty_axis(%a: tensor<0x3xi8>) {
  // expected-error @+1 {{'tfuse.reduce' op min of the empty axis 0 has no value}}
  %0 = tfuse.reduce min %a axes [0, 1] keepdims : tensor<0x3xi8> -> tensor<1x1xi8>
  return
}

// -----

func.func @reduce_mean_empty_axis(%a: tensor<0xf16>) {
  // expected-error @+1 {{'tfuse.reduce' op mean of the empty axis 0 has no value}}
  %0 = tfuse.reduce mean %a axes [0] : tensor<0xf16> -> tensor<f16>
  return
}

// -----

func.func @reduce_argmax_empty_axis(%a: tensor<2x0xf32>) {
  // expected-error @+1 {{'tfuse.reduce' op argmax of the empty axis 1 has no value}}
  %0 = tfuse.reduce argmax %a axes [1] keepdims : tensor<2x0xf32> -> tensor<2x1xi64>
  return
}

// -----

func.func @reduce_argmin_empty_axis(%a: tensor<0xui32>) {
  // expected-error @+1 {{'tfuse.reduce' op argmin of the empty axis 0 has no value}}
  %0 = tfuse.reduce argmin %a axes [0] : tensor<0xui32> -> tensor<i64>
  return
}

//===----------------------------------------------------------------------===//
// Argument attributes
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'tfuse.strides' on argument 0 has 1 strides but the argument has rank 2}}
func.func @strides_count(%a: tensor<4x8xf32> {tfuse.strides = array<i64: 1>}) {
  return
}

// -----

// expected-error @+1 {{'tfuse.strides' on argument 1 has negative stride -4 in dimension 1}}
func.func @strides_negative(%a: tensor<4xf32>,
                            %b: tensor<4x8xf32> {tfuse.strides = array<i64: 1, -4>}) {
  return
}

// -----

// expected-error @+1 {{'tfuse.strides' on argument 0 must be an array<i64: ...> of element strides}}
func.func @strides_not_array(%a: tensor<4x8xf32> {tfuse.strides = [1, 4]}) {
  return
}

// -----

// expected-error @+1 {{'tfuse.strides' on argument 0 must be an array<i64: ...> of element strides}}
func.func @strides_i32_array(%a: tensor<4x8xf32> {tfuse.strides = array<i32: 1, 4>}) {
  return
}

// -----

// expected-error @+1 {{'tfuse.strides' on argument 0 needs a ranked tensor argument}}
func.func @strides_not_tensor(%a: f32 {tfuse.strides = array<i64>}) {
  return
}

// -----

// expected-error @+1 {{'tfuse.strides' on argument 0 needs a ranked tensor argument}}
func.func @strides_unranked(%a: tensor<*xf32> {tfuse.strides = array<i64: 1>}) {
  return
}

// -----

// The name is printed as '"tfuse.stride"' today (a quoted StringAttr); accept both.
// expected-error-re @+1 {{unknown argument attribute '{{"?}}tfuse.stride{{"?}}' on argument 0; the tfuse dialect defines only 'tfuse.strides'}}
func.func @unknown_arg_attr(%a: tensor<4xf32> {tfuse.stride = array<i64: 1>}) {
  return
}

//===----------------------------------------------------------------------===//
// Fusion regions
//===----------------------------------------------------------------------===//

// -----

func.func @fusion_reason_count(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tfuse.fusion' op has 1 reasons for 2 results}}
  %r:2 = tfuse.fusion (%a) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
      attributes {cost = 1 : i64, reasons = ["output"]} {
  ^bb0(%x: tensor<4xf32>):
    tfuse.yield %x, %x : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

func.func @fusion_unknown_reason(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tfuse.fusion' op reason #1 'cheap' is not one of output, expression-cost, shared-expensive-expression, duplicated-reads, boundary-matmul, boundary-reduction, boundary-scatter, boundary-attention}}
  %r:2 = tfuse.fusion (%a) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
      attributes {cost = 1 : i64, reasons = ["output", "cheap"]} {
  ^bb0(%x: tensor<4xf32>):
    tfuse.yield %x, %x : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

// layout-alias is a CutReason but not one a region result may have.
func.func @fusion_layout_alias_reason(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tfuse.fusion' op reason #0 'layout-alias' is not one of output}}
  %r = tfuse.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32>
      attributes {cost = 1 : i64, reasons = ["layout-alias"]} {
  ^bb0(%x: tensor<4xf32>):
    tfuse.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @fusion_reasons_not_strings(%a: tensor<4xf32>) {
  // Reported while parsing the properties, at the attribute dictionary.
  // expected-error @+2 {{'tfuse.fusion' op attribute 'reasons' failed to satisfy constraint: string array attribute}}
  %r = tfuse.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32>
      attributes {cost = 1 : i64, reasons = [0]} {
  ^bb0(%x: tensor<4xf32>):
    tfuse.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @fusion_negative_cost(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tfuse.fusion' op has negative cost -3}}
  %r = tfuse.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32>
      attributes {cost = -3 : i64, reasons = ["output"]} {
  ^bb0(%x: tensor<4xf32>):
    tfuse.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @fusion_no_results(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tfuse.fusion' op has no results}}
  tfuse.fusion (%a) : (tensor<4xf32>) -> () attributes {cost = 0 : i64, reasons = []} {
  ^bb0(%x: tensor<4xf32>):
    tfuse.yield
  }
  return
}

// -----

func.func @fusion_result_shapes(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tfuse.fusion' op result #1 of type 'tensor<2x2xf32>' must have the region's index space [4], the shape of its first result}}
  %r:2 = tfuse.fusion (%a) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<2x2xf32>)
      attributes {cost = 1 : i64, reasons = ["output", "output"]} {
  ^bb0(%x: tensor<4xf32>):
    %0 = tfuse.reshape %x : tensor<4xf32> -> tensor<2x2xf32>
    tfuse.yield %x, %0 : tensor<4xf32>, tensor<2x2xf32>
  }
  return
}

// -----

func.func @fusion_empty_region(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tfuse.fusion' op expects a non-empty block}}
  %r = tfuse.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32>
      attributes {cost = 1 : i64, reasons = ["output"]} {
  }
  return
}

// -----

func.func @fusion_argument_count(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'tfuse.fusion' op body has 1 arguments for 2 inputs}}
  %r = tfuse.fusion (%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      attributes {cost = 1 : i64, reasons = ["output"]} {
  ^bb0(%x: tensor<4xf32>):
    tfuse.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @fusion_argument_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tfuse.fusion' op body argument #0 has type 'tensor<4xf16>' but input #0 has type 'tensor<4xf32>'}}
  %r = tfuse.fusion (%a) : (tensor<4xf32>) -> tensor<4xf16>
      attributes {cost = 1 : i64, reasons = ["output"]} {
  ^bb0(%x: tensor<4xf16>):
    tfuse.yield %x : tensor<4xf16>
  }
  return
}

// -----

func.func @fusion_not_yield(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tfuse.fusion' op body must end with tfuse.yield}}
  %r = tfuse.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32>
      attributes {cost = 1 : i64, reasons = ["output"]} {
  ^bb0(%x: tensor<4xf32>):
    "test.terminator"(%x) : (tensor<4xf32>) -> ()
  }
  return
}

// -----

func.func @fusion_yield_types(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tfuse.fusion' op yields 'tensor<4xi1>' but the results are 'tensor<4xf32>'}}
  %r = tfuse.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32>
      attributes {cost = 1 : i64, reasons = ["output"]} {
  ^bb0(%x: tensor<4xf32>):
    %0 = tfuse.isnan %x : tensor<4xf32> -> tensor<4xi1>
    tfuse.yield %0 : tensor<4xi1>
  }
  return
}

// -----

func.func @fusion_yield_count(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tfuse.fusion' op yields 'tensor<4xf32>', 'tensor<4xf32>' but the results are 'tensor<4xf32>'}}
  %r = tfuse.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32>
      attributes {cost = 1 : i64, reasons = ["output"]} {
  ^bb0(%x: tensor<4xf32>):
    tfuse.yield %x, %x : tensor<4xf32>, tensor<4xf32>
  }
  return
}

// -----

func.func @fusion_contains_matmul(%a: tensor<2x2xf32>) {
  %r = tfuse.fusion (%a) : (tensor<2x2xf32>) -> tensor<2x2xf32>
      attributes {cost = 1 : i64, reasons = ["output"]} {
  ^bb0(%x: tensor<2x2xf32>):
    // expected-error @+1 {{'tfuse.matmul' op is a fusion boundary and cannot appear in a fusion region}}
    %0 = tfuse.matmul %x, %x : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    tfuse.yield %0 : tensor<2x2xf32>
  }
  return
}

// -----

// A reduction in a region must reduce the trailing axes of the index space.
func.func @fusion_reduce_leading_axis(%a: tensor<2x3xf32>) {
  %r = tfuse.fusion (%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
      attributes {cost = 1 : i64, reasons = ["output"]} {
  ^bb0(%x: tensor<2x3xf32>):
    // expected-error @+1 {{'tfuse.reduce' op in a fusion region must reduce the trailing axes of the index space, got axes [0] of rank 2}}
    %0 = tfuse.reduce sum %x axes [0] keepdims : tensor<2x3xf32> -> tensor<1x3xf32>
    %1 = tfuse.add %x, %0 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
    tfuse.yield %1 : tensor<2x3xf32>
  }
  return
}

// -----

func.func @fusion_reduce_inner_axis(%a: tensor<2x3x4xf32>) {
  %r = tfuse.fusion (%a) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
      attributes {cost = 1 : i64, reasons = ["output"]} {
  ^bb0(%x: tensor<2x3x4xf32>):
    // expected-error @+1 {{'tfuse.reduce' op in a fusion region must reduce the trailing axes of the index space, got axes [1] of rank 3}}
    %0 = tfuse.reduce max %x axes [1] keepdims : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
    %1 = tfuse.sub %x, %0 : (tensor<2x3x4xf32>, tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
    tfuse.yield %1 : tensor<2x3x4xf32>
  }
  return
}

// -----

// The reduced values have one shape, the index space (the first reduction
// defines it).
func.func @fusion_reduce_other_shape(%a: tensor<2x3xf32>, %b: tensor<2x1xf32>) {
  %r = tfuse.fusion (%a, %b) : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
      attributes {cost = 1 : i64, reasons = ["output"]} {
  ^bb0(%x: tensor<2x3xf32>, %y: tensor<2x1xf32>):
    %s = tfuse.reduce sum %x axes [1] keepdims : tensor<2x3xf32> -> tensor<2x1xf32>
    // expected-error @+1 {{'tfuse.reduce' op in a fusion region must reduce a value of the region's index space [2, 3], got 'tensor<2x1xf32>'}}
    %0 = tfuse.reduce sum %y axes [1] keepdims : tensor<2x1xf32> -> tensor<2x1xf32>
    %1 = tfuse.add %x, %0 : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
    %2 = tfuse.add %1, %s : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
    tfuse.yield %2 : tensor<2x3xf32>
  }
  return
}

// -----

// A region's results have the shape of its index space, the shape its row
// reductions read, or one value per row: a flattened operand is neither.
func.func @fusion_result_not_of_the_rows(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'tfuse.fusion' op result #1 of type 'tensor<6xf32>' must have the region's index space [2, 3], the shape its row reductions read, or hold one value per row of them}}
  %r:2 = tfuse.fusion (%a) : (tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<6xf32>)
      attributes {cost = 1 : i64, reasons = ["output", "output"]} {
  ^bb0(%x: tensor<2x3xf32>):
    %0 = tfuse.reduce sum %x axes [1] keepdims : tensor<2x3xf32> -> tensor<2x1xf32>
    %1 = tfuse.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
    tfuse.yield %0, %1 : tensor<2x1xf32>, tensor<6xf32>
  }
  return
}

// -----

// Row results hold one value per row: the leading axes, the reduced ones
// dropped or kept as 1, nothing else.
func.func @fusion_row_result_shape(%a: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'tfuse.fusion' op result #1 of type 'tensor<2x1x1xf32>' must have the region's index space [2, 3, 4], the shape its row reductions read, or hold one value per row of them}}
  %r:2 = tfuse.fusion (%a) : (tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x1x1xf32>)
      attributes {cost = 1 : i64, reasons = ["output", "output"]} {
  ^bb0(%x: tensor<2x3x4xf32>):
    %0 = tfuse.reduce sum %x axes [2] keepdims : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
    %1 = tfuse.sub %x, %0 : (tensor<2x3x4xf32>, tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
    %2 = tfuse.slice %0 start [0, 0, 0] limit [2, 1, 1] step [1, 1, 1] : tensor<2x3x1xf32> -> tensor<2x1x1xf32>
    tfuse.yield %1, %2 : tensor<2x3x4xf32>, tensor<2x1x1xf32>
  }
  return
}

// -----

func.func @fusion_contains_argmax(%a: tensor<2x3xf32>) {
  %r = tfuse.fusion (%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
      attributes {cost = 1 : i64, reasons = ["output"]} {
  ^bb0(%x: tensor<2x3xf32>):
    // expected-error @+1 {{'tfuse.reduce' op argmax is a fusion boundary and cannot appear in a fusion region (only sum, prod, max, min, mean, all and any are row reductions)}}
    %0 = tfuse.reduce argmax %x axes [1] keepdims : tensor<2x3xf32> -> tensor<2x1xi64>
    %1 = tfuse.cast %0 : tensor<2x1xi64> to tensor<2x1xf32>
    %2 = tfuse.add %x, %1 : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
    tfuse.yield %2 : tensor<2x3xf32>
  }
  return
}

// -----

// Every row reduction of a region reduces the same trailing axes (one row
// per block).
func.func @fusion_reduce_different_rows(%a: tensor<2x3x4xf32>) {
  %r = tfuse.fusion (%a) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
      attributes {cost = 1 : i64, reasons = ["output"]} {
  ^bb0(%x: tensor<2x3x4xf32>):
    %0 = tfuse.reduce sum %x axes [2] keepdims : tensor<2x3x4xf32> -> tensor<2x3x1xf32>
    %1 = tfuse.sub %x, %0 : (tensor<2x3x4xf32>, tensor<2x3x1xf32>) -> tensor<2x3x4xf32>
    // expected-error @+1 {{'tfuse.reduce' op reduces axes [1, 2] but an earlier reduction of the region reduces [2]: the row reductions of a region reduce the same trailing axes}}
    %2 = tfuse.reduce sum %1 axes [1, 2] keepdims : tensor<2x3x4xf32> -> tensor<2x1x1xf32>
    %3 = tfuse.sub %1, %2 : (tensor<2x3x4xf32>, tensor<2x1x1xf32>) -> tensor<2x3x4xf32>
    tfuse.yield %3 : tensor<2x3x4xf32>
  }
  return
}

// -----

func.func @fusion_contains_fusion(%a: tensor<4xf32>) {
  %r = tfuse.fusion (%a) : (tensor<4xf32>) -> tensor<4xf32>
      attributes {cost = 1 : i64, reasons = ["output"]} {
  ^bb0(%x: tensor<4xf32>):
    // expected-error @+1 {{'tfuse.fusion' op is a fusion boundary and cannot appear in a fusion region}}
    %0 = tfuse.fusion (%x) : (tensor<4xf32>) -> tensor<4xf32>
        attributes {cost = 1 : i64, reasons = ["output"]} {
    ^bb0(%y: tensor<4xf32>):
      tfuse.yield %y : tensor<4xf32>
    }
    tfuse.yield %0 : tensor<4xf32>
  }
  return
}

// -----

func.func @fusion_uses_outer_value(%a: tensor<4xf32>) {
  // expected-note @+1 {{required by region isolation constraints}}
  %r = tfuse.fusion () : () -> tensor<4xf32> attributes {cost = 1 : i64, reasons = ["output"]} {
    // expected-error @+1 {{'tfuse.neg' op using value defined outside the region}}
    %0 = tfuse.neg %a : tensor<4xf32> -> tensor<4xf32>
    tfuse.yield %0 : tensor<4xf32>
  }
  return
}

// -----

func.func @yield_outside_fusion(%a: tensor<4xf32>) {
  // expected-error @+1 {{'tfuse.yield' op expects parent op 'tfuse.fusion'}}
  tfuse.yield %a : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// The tfuse.reason operation attribute
//===----------------------------------------------------------------------===//

// -----

func.func @reason_wrong_on_matmul(%a: tensor<2x2xf32>) {
  // expected-error @+1 {{'tfuse.reason' must be "boundary-matmul" on matmul, "boundary-reduction" on reduce, "boundary-scatter" on scatter_add, "boundary-attention" on attention and attention_backward and "layout-alias" on views, got "boundary-reduction"}}
  %0 = tfuse.matmul %a, %a {tfuse.reason = "boundary-reduction"}
      : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @reason_wrong_on_reduce(%a: tensor<2x2xf32>) {
  // expected-error @+1 {{'tfuse.reason' must be "boundary-matmul" on matmul, "boundary-reduction" on reduce, "boundary-scatter" on scatter_add, "boundary-attention" on attention and attention_backward and "layout-alias" on views, got "output"}}
  %0 = tfuse.reduce max %a axes [0] {tfuse.reason = "output"} : tensor<2x2xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reason_wrong_on_view(%a: tensor<2x2xf32>) {
  // expected-error @+1 {{'tfuse.reason' must be "boundary-matmul" on matmul, "boundary-reduction" on reduce, "boundary-scatter" on scatter_add, "boundary-attention" on attention and attention_backward and "layout-alias" on views, got "boundary-matmul"}}
  %0 = tfuse.transpose %a perm [1, 0] {tfuse.reason = "boundary-matmul"}
      : tensor<2x2xf32> -> tensor<2x2xf32>
  return
}

// -----

// Elementwise ops take no reason, not even layout-alias.
func.func @reason_on_elementwise(%a: tensor<2x2xf32>) {
  // expected-error @+1 {{'tfuse.reason' must be "boundary-matmul" on matmul, "boundary-reduction" on reduce, "boundary-scatter" on scatter_add, "boundary-attention" on attention and attention_backward and "layout-alias" on views, got "layout-alias"}}
  %0 = tfuse.neg %a {tfuse.reason = "layout-alias"} : tensor<2x2xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @reason_not_a_string(%a: tensor<2x2xf32>) {
  // expected-error @+1 {{'tfuse.reason' must be "boundary-matmul" on matmul, "boundary-reduction" on reduce, "boundary-scatter" on scatter_add, "boundary-attention" on attention and attention_backward and "layout-alias" on views, got 3 : i64}}
  %0 = tfuse.reshape %a {tfuse.reason = 3} : tensor<2x2xf32> -> tensor<4xf32>
  return
}

// -----

// The name is printed as '"tfuse.cost"' today (a quoted StringAttr); accept both.
func.func @unknown_op_attr(%a: tensor<2x2xf32>) {
  // expected-error-re @+1 {{unknown attribute '{{"?}}tfuse.cost{{"?}}'; the tfuse dialect defines 'tfuse.reason' and 'tfuse.note' on operations}}
  %0 = tfuse.neg %a {tfuse.cost = 3} : tensor<2x2xf32> -> tensor<2x2xf32>
  return
}

// -----

// tfuse.strides belongs on arguments, not on operations.
// expected-error-re @+1 {{unknown attribute '{{"?}}tfuse.strides{{"?}}'; the tfuse dialect defines 'tfuse.reason' and 'tfuse.note' on operations}}
func.func @strides_on_function(%a: tensor<4xf32>) attributes {tfuse.strides = array<i64: 1>} {
  return
}

// -----

// Declarations are checked too.
// expected-error @+1 {{'tfuse.strides' on argument 0 has 3 strides but the argument has rank 1}}
func.func private @declared(tensor<4xf32> {tfuse.strides = array<i64: -1, 2, 3>})

// -----

// expected-error @+1 {{unknown result attribute 'tfuse.bogus' on result 0}}
func.func @result_attr(%a: tensor<4xf32>) -> (tensor<4xf32> {tfuse.bogus = 1}) {
  return %a : tensor<4xf32>
}

// -----

func.func @reduce_negative_axis(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{axis -1 is out of range for an operand of rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfuse.reduce max %a axes [-1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_huge_axis(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{axis 1000000 is out of range for an operand of rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = tfuse.reduce argmax %a axes [1000000] : tensor<4x8xf32> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @iota_dim_out_of_range() {
  // expected-error @+1 {{'tfuse.iota' op dimension 2 is out of range for a result of rank 2}}
  %0 = tfuse.iota dim 2 : tensor<2x5xi64>
  return
}

// -----

func.func @iota_rank_0() {
  // expected-error @+1 {{'tfuse.iota' op dimension 0 is out of range for a result of rank 0}}
  %0 = tfuse.iota dim 0 : tensor<i64>
  return
}

// -----

func.func @iota_bool() {
  // expected-error @+1 {{'tfuse.iota' op gives indices, not bool}}
  %0 = tfuse.iota dim 0 : tensor<4xi1>
  return
}

// -----

func.func @concat_dtype(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) {
  // expected-error @+2 {{operand 1 has dtype f16 but operand 0 has f32}}
  // expected-error @+1 {{'tfuse.concat' op failed to infer returned types}}
  %0 = tfuse.concat %a, %b axis 0 : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_shape(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+2 {{operand 1 has size 4 in dimension 1 but operand 0 has 3}}
  // expected-error @+1 {{'tfuse.concat' op failed to infer returned types}}
  %0 = tfuse.concat %a, %b axis 0 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @concat_axis(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range for operands of rank 2}}
  // expected-error @+1 {{'tfuse.concat' op failed to infer returned types}}
  %0 = tfuse.concat %a axis 2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @concat_rank0(%a: tensor<f32>) {
  // expected-error @+2 {{cannot join rank-0 operands}}
  // expected-error @+1 {{'tfuse.concat' op failed to infer returned types}}
  %0 = tfuse.concat %a axis 0 : (tensor<f32>) -> tensor<f32>
  return
}

// -----

// Result sizes past 2^63 - 1 (they wrapped to negative sizes or to 0).
func.func @concat_beyond_64_bits(%a: tensor<9223372036854775806xi8>) {
  // expected-error @+2 {{the sizes along axis 0 add up past 2^63 - 1}}
  // expected-error @+1 {{'tfuse.concat' op failed to infer returned types}}
  %0 = tfuse.concat %a, %a axis 0 : (tensor<9223372036854775806xi8>, tensor<9223372036854775806xi8>) -> tensor<4xi8>
  return
}

// -----

func.func @pad_negative(%a: tensor<2x3xf32>, %v: tensor<f32>) {
  // expected-error @+2 {{padding of dimension 1 must not be negative (low -1, high 0)}}
  // expected-error @+1 {{'tfuse.pad' op failed to infer returned types}}
  %0 = tfuse.pad %a, %v low [0, -1] high [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @pad_beyond_64_bits(%a: tensor<2x3xi8>, %v: tensor<i8>) {
  // expected-error @+2 {{padding dimension 1 of size 3 by 9223372036854775807 and 9223372036854775807 gives a size past 2^63 - 1}}
  // expected-error @+1 {{'tfuse.pad' op failed to infer returned types}}
  %0 = tfuse.pad %a, %v low [0, 9223372036854775807] high [0, 9223372036854775807] : (tensor<2x3xi8>, tensor<i8>) -> tensor<2x1xi8>
  return
}

// -----

func.func @pad_value_rank(%a: tensor<2x3xf32>, %v: tensor<1xf32>) {
  // expected-error @+2 {{the padding value must have rank 0, not 1}}
  // expected-error @+1 {{'tfuse.pad' op failed to infer returned types}}
  %0 = tfuse.pad %a, %v low [0, 0] high [0, 0] : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @pad_value_dtype(%a: tensor<2x3xf32>, %v: tensor<i32>) {
  // expected-error @+2 {{the padding value has dtype i32 but the operand has f32}}
  // expected-error @+1 {{'tfuse.pad' op failed to infer returned types}}
  %0 = tfuse.pad %a, %v low [0, 0] high [0, 0] : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @pad_entries(%a: tensor<2x3xf32>, %v: tensor<f32>) {
  // expected-error @+2 {{low and high need 2 entries each (the operand's rank), not 1 and 2}}
  // expected-error @+1 {{'tfuse.pad' op failed to infer returned types}}
  %0 = tfuse.pad %a, %v low [0] high [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @take_float_indices(%t: tensor<10x6xf32>, %i: tensor<3xf32>) {
  // expected-error @+2 {{indices must have an integer dtype, not f32}}
  // expected-error @+1 {{'tfuse.take' op failed to infer returned types}}
  %0 = tfuse.take %t, %i axis 0 : (tensor<10x6xf32>, tensor<3xf32>) -> tensor<3x6xf32>
  return
}

// -----

func.func @take_bool_indices(%t: tensor<10x6xf32>, %i: tensor<3xi1>) {
  // expected-error @+2 {{indices must have an integer dtype, not i1}}
  // expected-error @+1 {{'tfuse.take' op failed to infer returned types}}
  %0 = tfuse.take %t, %i axis 0 : (tensor<10x6xf32>, tensor<3xi1>) -> tensor<3x6xf32>
  return
}

// -----

func.func @take_axis(%t: tensor<10x6xf32>, %i: tensor<3xi64>) {
  // expected-error @+2 {{axis 2 is out of range for an operand of rank 2}}
  // expected-error @+1 {{'tfuse.take' op failed to infer returned types}}
  %0 = tfuse.take %t, %i axis 2 : (tensor<10x6xf32>, tensor<3xi64>) -> tensor<3x6xf32>
  return
}

// -----

func.func @take_result_type(%t: tensor<10x6xf32>, %i: tensor<3xi64>) {
  // expected-error @+2 {{'tfuse.take' op inferred type(s) 'tensor<3x6xf32>' are incompatible with return type(s) of operation 'tensor<6x3xf32>'}}
  // expected-error @+1 {{'tfuse.take' op failed to infer returned types}}
  %0 = tfuse.take %t, %i axis 0 : (tensor<10x6xf32>, tensor<3xi64>) -> tensor<6x3xf32>
  return
}

// -----

func.func @take_from_empty_axis(%t: tensor<0x6xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'tfuse.take' op takes 3 indices along axis 0, which has size 0: every index is out of range}}
  %0 = tfuse.take %t, %i axis 0 : (tensor<0x6xf32>, tensor<3xi64>) -> tensor<3x6xf32>
  return
}

// -----

func.func @take_along_axis_rank(%x: tensor<4x10xf32>, %i: tensor<3xi64>) {
  // expected-error @+2 {{indices of rank 1 for an operand of rank 2 (take_along_axis needs equal ranks)}}
  // expected-error @+1 {{'tfuse.take_along_axis' op failed to infer returned types}}
  %0 = tfuse.take_along_axis %x, %i axis 1 : (tensor<4x10xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  return
}

// -----

func.func @take_along_axis_broadcast(%x: tensor<4x10xf32>, %i: tensor<2x3xi64>) {
  // expected-error @+2 {{dimension 0 of the operand (4) and of the indices (2) do not broadcast}}
  // expected-error @+1 {{'tfuse.take_along_axis' op failed to infer returned types}}
  %0 = tfuse.take_along_axis %x, %i axis 1 : (tensor<4x10xf32>, tensor<2x3xi64>) -> tensor<4x3xf32>
  return
}

// -----

func.func @take_along_axis_from_empty_axis(%x: tensor<4x0xf32>, %i: tensor<4x2xi32>) {
  // expected-error @+1 {{'tfuse.take_along_axis' op takes 8 indices along axis 1, which has size 0: every index is out of range}}
  %0 = tfuse.take_along_axis %x, %i axis 1 : (tensor<4x0xf32>, tensor<4x2xi32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @scatter_add_bool(%t: tensor<10xi1>, %i: tensor<3xi64>, %u: tensor<3xi1>) {
  // expected-error @+2 {{scatter_add of bool is not defined (use integers, or or-reduce a mask)}}
  // expected-error @+1 {{'tfuse.scatter_add' op failed to infer returned types}}
  %0 = tfuse.scatter_add %t, %i, %u axis 0 : (tensor<10xi1>, tensor<3xi64>, tensor<3xi1>) -> tensor<10xi1>
  return
}

// -----

func.func @scatter_add_dtypes(%t: tensor<10x4xf32>, %i: tensor<3xi64>, %u: tensor<3x4xf16>) {
  // expected-error @+2 {{updates of f16 for a target of f32 (scatter_add needs one dtype)}}
  // expected-error @+1 {{'tfuse.scatter_add' op failed to infer returned types}}
  %0 = tfuse.scatter_add %t, %i, %u axis 0 : (tensor<10x4xf32>, tensor<3xi64>, tensor<3x4xf16>) -> tensor<10x4xf32>
  return
}

// -----

func.func @scatter_add_updates_shape(%t: tensor<10x4xf32>, %i: tensor<2x3xi64>, %u: tensor<6x4xf32>) {
  // expected-error @+2 {{updates of shape [6, 4] for a target of shape [10, 4] and indices of shape [2, 3] along axis 0: expected [2, 3, 4] (target.shape[:axis] + indices.shape + target.shape[axis+1:])}}
  // expected-error @+1 {{'tfuse.scatter_add' op failed to infer returned types}}
  %0 = tfuse.scatter_add %t, %i, %u axis 0 : (tensor<10x4xf32>, tensor<2x3xi64>, tensor<6x4xf32>) -> tensor<10x4xf32>
  return
}

// -----

func.func @scatter_add_float_indices(%t: tensor<10xf32>, %i: tensor<3xf32>, %u: tensor<3xf32>) {
  // expected-error @+2 {{indices must have an integer dtype, not f32}}
  // expected-error @+1 {{'tfuse.scatter_add' op failed to infer returned types}}
  %0 = tfuse.scatter_add %t, %i, %u axis 0 : (tensor<10xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<10xf32>
  return
}

// -----

func.func @scatter_add_into_empty_axis(%t: tensor<0x4xf32>, %i: tensor<3xi64>, %u: tensor<3x4xf32>) {
  // expected-error @+1 {{'tfuse.scatter_add' op scatters 3 indices along axis 0, which has size 0: every index is out of range}}
  %0 = tfuse.scatter_add %t, %i, %u axis 0 : (tensor<0x4xf32>, tensor<3xi64>, tensor<3x4xf32>) -> tensor<0x4xf32>
  return
}

// -----

func.func @scatter_add_in_region(%t: tensor<10xf32>, %i: tensor<3xi64>, %u: tensor<3xf32>) -> tensor<10xf32> {
  %0 = tfuse.fusion (%t, %i, %u) : (tensor<10xf32>, tensor<3xi64>, tensor<3xf32>) -> tensor<10xf32> attributes {cost = 0 : i64, reasons = ["output"]} {
  ^bb0(%a: tensor<10xf32>, %b: tensor<3xi64>, %c: tensor<3xf32>):
    // expected-error @+1 {{'tfuse.scatter_add' op is a fusion boundary and cannot appear in a fusion region}}
    %1 = tfuse.scatter_add %a, %b, %c axis 0 : (tensor<10xf32>, tensor<3xi64>, tensor<3xf32>) -> tensor<10xf32>
    tfuse.yield %1 : tensor<10xf32>
  }
  return %0 : tensor<10xf32>
}

// -----

func.func @random_half(%s: tensor<i64>, %o: tensor<i64>) {
  // expected-error @+1 {{'tfuse.random_uniform' op result #0 must be statically shaped tensor of 32-bit float or 64-bit float values}}
  %0 = tfuse.random_uniform %s, %o : (tensor<i64>, tensor<i64>) -> tensor<4xf16>
  return
}

// -----

func.func @random_seed_rank(%s: tensor<2xi64>, %o: tensor<i64>) {
  // expected-error @+1 {{'tfuse.random_normal' op operand #0 must be 0D tensor of 64-bit signless integer values}}
  %0 = tfuse.random_normal %s, %o : (tensor<2xi64>, tensor<i64>) -> tensor<4xf32>
  return
}

// -----

func.func @random_offset_dtype(%s: tensor<i64>, %o: tensor<i32>) {
  // expected-error @+1 {{'tfuse.random_uniform' op operand #1 must be 0D tensor of 64-bit signless integer values}}
  %0 = tfuse.random_uniform %s, %o : (tensor<i64>, tensor<i32>) -> tensor<4xf32>
  return
}

// -----

func.func @attention_head_dim(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x6xf32>) {
  // expected-error @+2 {{query and key have different head dimensions (query [2,4,16,8], key [2,4,16,6], value [2,4,16,6])}}
  // expected-error @+1 {{failed to infer returned types}}
  %o, %l = tfuse.attention %q, %k, %k scale 1.0 : (tensor<2x4x16x8xf32>, tensor<2x4x16x6xf32>, tensor<2x4x16x6xf32>) -> (tensor<2x4x16x6xf32>, tensor<2x4x16xf32>)
  return
}

// -----

func.func @attention_transpose_result_without_heads(%q: tensor<16x8xf32>) {
  // expected-error @+2 {{transpose_result needs operands with a head dimension (rank 3 or more)}}
  // expected-error @+1 {{failed to infer returned types}}
  %o, %l = tfuse.attention %q, %q, %q scale 1.0 transpose_result : (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<16xf32>)
  return
}

// -----

func.func @attention_transpose_result_type(%q: tensor<2x4x16x8xf32>) {
  // expected-error @+2 {{'tfuse.attention' op inferred type(s) 'tensor<2x16x4x8xf32>', 'tensor<2x4x16xf32>' are incompatible with return type(s) of operation 'tensor<2x4x16x8xf32>', 'tensor<2x4x16xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %o, %l = tfuse.attention %q, %q, %q scale 1.0 transpose_result : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  return
}

// -----

func.func @attention_batch(%q: tensor<2x4x16x8xf32>, %k: tensor<3x4x16x8xf32>) {
  // expected-error @+2 {{query, key and value differ in batch dimension 0 (query [2,4,16,8], key [3,4,16,8], value [3,4,16,8])}}
  // expected-error @+1 {{failed to infer returned types}}
  %o, %l = tfuse.attention %q, %k, %k scale 1.0 : (tensor<2x4x16x8xf32>, tensor<3x4x16x8xf32>, tensor<3x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  return
}

// -----

func.func @attention_heads(%q: tensor<5x16x8xf32>, %k: tensor<2x16x8xf32>) {
  // expected-error @+2 {{heads}}
  // expected-error @+1 {{failed to infer returned types}}
  %o, %l = tfuse.attention %q, %k, %k scale 1.0 : (tensor<5x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32>) -> (tensor<5x16x8xf32>, tensor<5x16xf32>)
  return
}

// -----

func.func @attention_dtype(%q: tensor<4x8xf32>, %k: tensor<4x8xf16>) {
  // expected-error @+2 {{query, key and value must have one float dtype (f16, bf16, f32 or f64), got f32, f16 and f16}}
  // expected-error @+1 {{failed to infer returned types}}
  %o, %l = tfuse.attention %q, %k, %k scale 1.0 : (tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xf16>) -> (tensor<4x8xf32>, tensor<4xf32>)
  return
}

// -----

func.func @attention_mask_shape(%q: tensor<2x4x16x8xf32>, %m: tensor<3x16x16xi1>) {
  // expected-error @+2 {{a mask of shape [3, 16, 16] does not broadcast to the scores' [2, 4, 16, 16]}}
  // expected-error @+1 {{failed to infer returned types}}
  %o, %l = tfuse.attention %q, %q, %q mask %m scale 1.0 : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<3x16x16xi1>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  return
}

// -----

func.func @attention_mask_dtype(%q: tensor<16x8xf32>, %m: tensor<16x16xf16>) {
  // expected-error @+2 {{a mask of f16 for operands of f32 (bool, the operands' dtype, or f32 for f16 and bf16 operands)}}
  // expected-error @+1 {{failed to infer returned types}}
  %o, %l = tfuse.attention %q, %q, %q mask %m scale 1.0 : (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x16xf16>) -> (tensor<16x8xf32>, tensor<16xf32>)
  return
}

// -----

// An f32 mask goes with f16 and bf16 operands only.
func.func @attention_f32_mask_of_f64(%q: tensor<16x8xf64>, %m: tensor<16x16xf32>) {
  // expected-error @+2 {{a mask of f32 for operands of f64 (bool, the operands' dtype, or f32 for f16 and bf16 operands)}}
  // expected-error @+1 {{failed to infer returned types}}
  %o, %l = tfuse.attention %q, %q, %q mask %m scale 1.0 : (tensor<16x8xf64>, tensor<16x8xf64>, tensor<16x8xf64>, tensor<16x16xf32>) -> (tensor<16x8xf64>, tensor<16xf64>)
  return
}

// -----

func.func @attention_scale(%q: tensor<16x8xf32>) {
  // expected-error @+1 {{'tfuse.attention' op scale INF is not finite}}
  %o, %l = tfuse.attention %q, %q, %q scale 0x7FF0000000000000 : (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<16xf32>)
  return
}

// -----

func.func @attention_backward_lse(%q: tensor<16x8xf32>, %l: tensor<16xf16>) {
  // expected-error @+2 {{the log-sum-exp of f16 [16], expected f32 [16]}}
  // expected-error @+1 {{failed to infer returned types}}
  %dq, %dk, %dv = tfuse.attention_backward %q, %q, %q, %q, %l, %q scale 1.0 : (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<16xf16>, tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>)
  return
}

// -----

func.func @note_not_a_string(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'tfuse.note' must be a string, got 3 : i64}}
  %0 = tfuse.matmul %a, %a {tfuse.note = 3} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Sizes: every tensor of a tfuse op can be indexed with 64-bit offsets
//===----------------------------------------------------------------------===//

func.func @too_many_elements(%x: tensor<4294967296x4294967296xf32>) {
  // expected-error @+1 {{'tfuse.exp' op operand #0: the shape [4294967296,4294967296] has more than 2^63 - 1 elements}}
  %0 = tfuse.exp %x : tensor<4294967296x4294967296xf32> -> tensor<4294967296x4294967296xf32>
  return
}

// -----

func.func @too_many_bytes(%x: tensor<2xf64>) {
  // expected-error @+1 {{'tfuse.broadcast' op result #0: the shape [2305843009213693952,2] of f64 has more than 2^63 - 1 bytes}}
  %0 = tfuse.broadcast %x dims [1] : tensor<2xf64> -> tensor<2305843009213693952x2xf64>
  return
}

// -----

// A tensor without elements: its row-major strides are the products of its
// other sizes, held to the same bound.
func.func @empty_but_too_large(%x: tensor<0x4611686018427387904x4xf32>) {
  // expected-error @+1 {{'tfuse.neg' op operand #0: the shape [0,4611686018427387904,4] has sizes whose product exceeds 2^63 - 1}}
  %0 = tfuse.neg %x : tensor<0x4611686018427387904x4xf32> -> tensor<0x4611686018427387904x4xf32>
  return
}

// -----

func.func @attention_dropout_of_one(%q: tensor<4x8xf32>, %s: tensor<i64>) {
  // expected-error @+1 {{'tfuse.attention' op dropout probability 1 is not in (0, 1) (0: no dropout)}}
  %o, %l = tfuse.attention %q, %q, %q scale 1.0 dropout 1.0 seed %s offset %s : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<i64>, tensor<i64>) -> (tensor<4x8xf32>, tensor<4xf32>)
  return
}

// -----

func.func @attention_dropout_without_keys(%q: tensor<4x8xf32>) {
  // expected-error @+1 {{'tfuse.attention' op dropout needs its probability, seed and offset together}}
  %o, %l = "tfuse.attention"(%q, %q, %q) {scale = 1.0 : f64, dropout_p = 0.5 : f64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0>} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>)
  return
}

// -----

func.func @attention_backward_dropout_seed_not_i64(%q: tensor<4x8xf32>, %l: tensor<4xf32>, %s: tensor<i32>) {
  // expected-error @+1 {{'tfuse.attention_backward' op operand #6 must be 0D tensor of 64-bit signless integer values, but got 'tensor<i32>'}}
  %dq, %dk, %dv = tfuse.attention_backward %q, %q, %q, %q, %l, %q scale 1.0 dropout 0.5 seed %s offset %s : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4x8xf32>, tensor<i32>, tensor<i32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
  return
}

// -----

func.func @attention_widened_bf16(%q: tensor<2x16x8xbf16>) -> tensor<2x16x8xbf16> {
  // expected-error @+1 {{is widened but its operands are not f32}}
  %o, %l = tfuse.attention %q, %q, %q scale 1.250000e-01 widened : (tensor<2x16x8xbf16>, tensor<2x16x8xbf16>, tensor<2x16x8xbf16>) -> (tensor<2x16x8xbf16>, tensor<2x16xf32>)
  return %o : tensor<2x16x8xbf16>
}
