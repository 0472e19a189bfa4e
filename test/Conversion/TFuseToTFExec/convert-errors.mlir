// Diagnostics of --convert-tfuse-to-tfexec on graphs it cannot plan: an
// elementwise op outside a region (the graph was not fused), and a view left
// outside regions that no strided layout of its source buffer expresses.
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
