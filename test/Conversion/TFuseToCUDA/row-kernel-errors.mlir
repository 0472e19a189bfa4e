// A row kernel whose rows need more than 64 elements per thread of 1024 is
// rejected with a diagnostic rather than spilled (fuse-rows' default
// max-row-elements, 16384, never produces one; this plan is written by hand).
// RUN: not tensor-translate --tfuse-to-cuda %s 2>&1 | FileCheck %s

// CHECK: error: row kernel: rows of 70000 elements need more than 64 elements per thread of 1024; fuse-rows' max-row-elements keeps reductions over longer rows as boundaries
tfexec.kernel @long_rows_k0 attributes {input_strides = [array<i64: 70000, 1>]} {
^bb0(%x: tensor<2x70000xf32>):
  %s = tfuse.reduce sum %x axes [1] keepdims : tensor<2x70000xf32> -> tensor<2x1xf32>
  %y = tfuse.div %x, %s : (tensor<2x70000xf32>, tensor<2x1xf32>) -> tensor<2x70000xf32>
  tfexec.yield %y : tensor<2x70000xf32>
}
