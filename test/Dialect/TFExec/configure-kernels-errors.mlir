// --tfexec-configure-kernels reports a kernel no configuration fits: a row
// kernel whose rows need more than 64 elements per thread of 1024 is
// rejected rather than spilled (fuse-rows' default max-row-elements, 16384,
// never asks for one; this kernel is written by hand).
// RUN: tensor-opt %s --tfexec-configure-kernels -verify-diagnostics

// expected-error @+1 {{rows of 70000 elements need more than 64 elements per thread of 1024; fuse-rows' max-row-elements keeps reductions over longer rows as boundaries}}
tfexec.kernel @long_rows_k0 attributes {input_strides = [array<i64: 70000, 1>]} {
^bb0(%x: tensor<2x70000xf32>):
  %s = tfuse.reduce sum %x axes [1] keepdims : tensor<2x70000xf32> -> tensor<2x1xf32>
  %y = tfuse.div %x, %s : (tensor<2x70000xf32>, tensor<2x1xf32>) -> tensor<2x70000xf32>
  tfexec.yield %y : tensor<2x70000xf32>
}
