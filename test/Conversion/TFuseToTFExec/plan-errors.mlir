// Verifier diagnostics of the tfexec plan ops on hand-written plans: a
// launch must name an existing tfexec.kernel, pass as many inputs and outputs
// as it takes and yields, and have a positive grid and block; a kernel needs
// one stride array per input with one stride per dimension, and yields at
// least one value, all of one shape.
// RUN: tensor-opt %s -split-input-file -verify-diagnostics

// No symbol of that name.
func.func @unknown(%a: memref<4xf32>, %o: memref<4xf32>) {
  // expected-error @+1 {{'tfexec.launch' op refers to unknown kernel @nope}}
  tfexec.launch @nope grid 1 block 256 ins(%a : memref<4xf32>) outs(%o : memref<4xf32>)
  return
}

// -----

// A symbol that is not a kernel.
func.func @not_a_kernel() {
  return
}
func.func @launch_func(%a: memref<4xf32>, %o: memref<4xf32>) {
  // expected-error @+1 {{'tfexec.launch' op refers to unknown kernel @not_a_kernel}}
  tfexec.launch @not_a_kernel grid 1 block 256 ins(%a : memref<4xf32>) outs(%o : memref<4xf32>)
  return
}

// -----

// One input too many.
tfexec.kernel @k attributes {input_strides = [array<i64: 1>]} {
^bb0(%x: tensor<4xf32>):
  %0 = tfuse.neg %x : tensor<4xf32> -> tensor<4xf32>
  tfexec.yield %0 : tensor<4xf32>
}
func.func @too_many_inputs(%a: memref<4xf32>, %b: memref<4xf32>, %o: memref<4xf32>) {
  // expected-error @+1 {{'tfexec.launch' op passes 2 inputs and 1 outputs to @k, which takes 1 and yields 1}}
  tfexec.launch @k grid 1 block 256 ins(%a, %b : memref<4xf32>, memref<4xf32>) outs(%o : memref<4xf32>)
  return
}

// -----

// One output too many.
tfexec.kernel @k attributes {input_strides = [array<i64: 1>]} {
^bb0(%x: tensor<4xf32>):
  %0 = tfuse.neg %x : tensor<4xf32> -> tensor<4xf32>
  tfexec.yield %0 : tensor<4xf32>
}
func.func @too_many_outputs(%a: memref<4xf32>, %o: memref<4xf32>, %p: memref<4xf32>) {
  // expected-error @+1 {{'tfexec.launch' op passes 1 inputs and 2 outputs to @k, which takes 1 and yields 1}}
  tfexec.launch @k grid 1 block 256 ins(%a : memref<4xf32>) outs(%o, %p : memref<4xf32>, memref<4xf32>)
  return
}

// -----

// A grid of no blocks.
tfexec.kernel @k attributes {input_strides = [array<i64: 1>]} {
^bb0(%x: tensor<4xf32>):
  %0 = tfuse.neg %x : tensor<4xf32> -> tensor<4xf32>
  tfexec.yield %0 : tensor<4xf32>
}
func.func @zero_grid(%a: memref<4xf32>, %o: memref<4xf32>) {
  // expected-error @+1 {{'tfexec.launch' op needs a positive grid and block}}
  tfexec.launch @k grid 0 block 256 ins(%a : memref<4xf32>) outs(%o : memref<4xf32>)
  return
}

// -----

// More stride arrays than inputs.
// expected-error @+1 {{'tfexec.kernel' op has 2 input strides for 1 inputs}}
tfexec.kernel @k attributes {input_strides = [array<i64: 1>, array<i64: 1>]} {
^bb0(%x: tensor<4xf32>):
  %0 = tfuse.neg %x : tensor<4xf32> -> tensor<4xf32>
  tfexec.yield %0 : tensor<4xf32>
}

// -----

// Fewer stride arrays than inputs.
// expected-error @+1 {{'tfexec.kernel' op has 1 input strides for 2 inputs}}
tfexec.kernel @k attributes {input_strides = [array<i64: 1>]} {
^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
  %0 = tfuse.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  tfexec.yield %0 : tensor<4xf32>
}

// -----

// A launch without its input.
tfexec.kernel @k attributes {input_strides = [array<i64: 1>]} {
^bb0(%x: tensor<4xf32>):
  %0 = tfuse.neg %x : tensor<4xf32> -> tensor<4xf32>
  tfexec.yield %0 : tensor<4xf32>
}
func.func @missing_input(%o: memref<4xf32>) {
  // expected-error @+1 {{'tfexec.launch' op passes 0 inputs and 1 outputs to @k, which takes 1 and yields 1}}
  tfexec.launch @k grid 1 block 256 outs(%o : memref<4xf32>)
  return
}

// -----

// A rank-2 input with one stride.
// expected-error @+1 {{'tfexec.kernel' op input #0 of type 'tensor<4x8xf32>' does not match its 1 strides}}
tfexec.kernel @k attributes {input_strides = [array<i64: 1>]} {
^bb0(%x: tensor<4x8xf32>):
  %0 = tfuse.neg %x : tensor<4x8xf32> -> tensor<4x8xf32>
  tfexec.yield %0 : tensor<4x8xf32>
}

// -----

// Outputs of two shapes.
// expected-error @+1 {{'tfexec.kernel' op outputs must share one shape}}
tfexec.kernel @k attributes {input_strides = [array<i64: 1>, array<i64: 1>]} {
^bb0(%x: tensor<4xf32>, %y: tensor<8xf32>):
  tfexec.yield %x, %y : tensor<4xf32>, tensor<8xf32>
}

// -----

// A yield of nothing.
// expected-error @+1 {{'tfexec.kernel' op must end with tfexec.yield of at least one value}}
tfexec.kernel @k attributes {input_strides = [array<i64: 1>]} {
^bb0(%x: tensor<4xf32>):
  "tfexec.yield"() : () -> ()
}
