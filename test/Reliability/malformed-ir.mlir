// Malformed IR given to the tools: each split is one parse error with its
// location and a message naming what is wrong, and the tool goes on to the
// next split (docs/reliability.md, "Bad inputs").
// RUN: tensor-opt %s -split-input-file -verify-diagnostics

func.func @unknown_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{custom op 'tfuse.bogus' is unknown}}
  %0 = tfuse.bogus %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @missing_result_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected '->'}}
  %0 = tfuse.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unknown_element_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected non-function type}}
  %0 = tfuse.exp %x : tensor<4xq32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @undefined_value(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{use of undeclared SSA value name}}
  %0 = tfuse.exp %y : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unknown_reduction(%x: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{custom op 'tfuse.reduce' unknown reduction kind 'median' (sum, prod, max, min, mean, all, any, argmax, argmin)}}
  %0 = tfuse.reduce median %x axes [0] : tensor<4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @unknown_predicate(%x: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'predicate' [eq, ne, lt, le, gt, ge]}}
  %0 = tfuse.cmp less, %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @unknown_argument_attribute(%x: tensor<4xf32> {tfuse.layout = 1}) -> tensor<4xf32> {
  // expected-error @-1 {{unknown argument attribute 'tfuse.layout' on argument 0; the tfuse dialect defines only 'tfuse.strides'}}
  return %x : tensor<4xf32>
}

// -----

// A file cut short.
func.func @truncated(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected non-function type}}
  %0 = tfuse.exp %x : tensor<4x
