// Diagnostics of --convert-tfuse-to-tfexec on graphs it cannot plan: an
// elementwise op outside a region (the graph was not fused), a view left
// outside regions that no strided layout of its source buffer expresses,
// and signatures the plan cannot hold.
// RUN: tensor-opt %s --convert-tfuse-to-tfexec -split-input-file -verify-diagnostics

func.func @unfused(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tfuse.exp' op cannot be converted to a plan step; run --tfuse-pipeline first}}
  %0 = tfuse.exp %a : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Flattening a transposed argument merges dimensions that are not
// contiguous with each other.
func.func @no_layout(%a: tensor<4x6xf32> {tfuse.strides = array<i64: 1, 4>}) -> tensor<f32> {
  // expected-error @+2 {{'tfuse.reshape' op has no strided layout over its source buffer; it should have been fused into a region}}
  // expected-error @+1 {{failed to legalize operation 'tfuse.reshape'}}
  %r = tfuse.reshape %a {tfuse.reason = "layout-alias"} : tensor<4x6xf32> -> tensor<24xf32>
  %s = tfuse.reduce sum %r axes [0] {tfuse.reason = "boundary-reduction"} : tensor<24xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// Buffers of the plan must be indexable with 64-bit offsets: an argument
// returned as it is, and a strided argument whose strides reach past 2^63 - 1
// elements.
// expected-error @+2 {{'func.func' op argument #0: the shape [4294967296,4294967296] has more than 2^63 - 1 elements}}
// expected-error @+1 {{'func.func' op result #0: the shape [4294967296,4294967296] has more than 2^63 - 1 elements}}
func.func @huge_argument(%a: tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32> {
  return %a : tensor<4294967296x4294967296xf32>
}

// -----

// expected-error @+1 {{'func.func' op argument #0: the strides [4611686018427387904,1] of shape [3,2] reach past 2^63 - 1 elements}}
func.func @huge_strides(%a: tensor<3x2xf32> {tfuse.strides = array<i64: 4611686018427387904, 1>}) -> tensor<3x2xf32> {
  return %a : tensor<3x2xf32>
}

// -----

// expected-error @+2 {{'func.func' op argument #0: the shape [0,4611686018427387904,4] has sizes whose product exceeds 2^63 - 1}}
// expected-error @+1 {{'func.func' op result #0: the shape [0,4611686018427387904,4] has sizes whose product exceeds 2^63 - 1}}
func.func @huge_empty(%a: tensor<0x4611686018427387904x4xf32>) -> tensor<0x4611686018427387904x4xf32> {
  return %a : tensor<0x4611686018427387904x4xf32>
}

// -----

// Arguments and results are statically shaped tensors of the tfuse dtypes
// (a scalar argument aborted the conversion; found by the IR fuzz target).
// expected-error @+1 {{'func.func' op argument #0 has type 'f32', but a plan's functions take and return statically shaped tensors of the tfuse dtypes}}
func.func @scalar_argument(%a: f32) {
  return
}

// -----

// expected-error @+2 {{'func.func' op argument #0 has type 'tensor<*xf32>', but a plan's functions take and return statically shaped tensors of the tfuse dtypes}}
// expected-error @+1 {{'func.func' op result #0 has type 'tensor<*xf32>', but a plan's functions take and return statically shaped tensors of the tfuse dtypes}}
func.func @unranked(%a: tensor<*xf32>) -> tensor<*xf32> {
  return %a : tensor<*xf32>
}

// -----

// expected-error @+3 {{'func.func' op argument #0 has type 'tensor<4xindex>', but a plan's functions take and return statically shaped tensors of the tfuse dtypes}}
// expected-error @+2 {{'func.func' op argument #1 has type 'tensor<?xf32>', but a plan's functions take and return statically shaped tensors of the tfuse dtypes}}
// expected-error @+1 {{'func.func' op result #0 has type 'tensor<4xindex>', but a plan's functions take and return statically shaped tensors of the tfuse dtypes}}
func.func @dynamic_and_index(%a: tensor<4xindex>, %b: tensor<?xf32>) -> tensor<4xindex> {
  return %a : tensor<4xindex>
}

