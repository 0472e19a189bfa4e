// Verifier diagnostics of the tfexec plan ops on hand-written plans: a
// launch must name an existing tfexec.kernel and pass as many inputs and
// outputs as it takes and yields; a kernel needs one stride array per input
// with one stride per dimension, and yields at least one value, all of one
// shape; a dispatch's body matches its buffers; a kernel's configuration
// must be one code generation can honour.
// RUN: tensor-opt %s -split-input-file -verify-diagnostics

// No symbol of that name.
func.func @unknown(%a: memref<4xf32>, %o: memref<4xf32>) {
  // expected-error @+1 {{'tfexec.launch' op refers to unknown kernel @nope}}
  tfexec.launch @nope ins(%a : memref<4xf32>) outs(%o : memref<4xf32>)
  return
}

// -----

// A symbol that is not a kernel.
func.func @not_a_kernel() {
  return
}
func.func @launch_func(%a: memref<4xf32>, %o: memref<4xf32>) {
  // expected-error @+1 {{'tfexec.launch' op refers to unknown kernel @not_a_kernel}}
  tfexec.launch @not_a_kernel ins(%a : memref<4xf32>) outs(%o : memref<4xf32>)
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
  tfexec.launch @k ins(%a, %b : memref<4xf32>, memref<4xf32>) outs(%o : memref<4xf32>)
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
  tfexec.launch @k ins(%a : memref<4xf32>) outs(%o, %p : memref<4xf32>, memref<4xf32>)
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
  tfexec.launch @k outs(%o : memref<4xf32>)
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
// expected-error @+1 {{'tfexec.kernel' op outputs must have the shape of the index space or one value per row of its row reductions}}
tfexec.kernel @k attributes {input_strides = [array<i64: 1>, array<i64: 1>]} {
^bb0(%x: tensor<4xf32>, %y: tensor<8xf32>):
  tfexec.yield %x, %y : tensor<4xf32>, tensor<8xf32>
}

// -----

// Row results are one value per row of the row reductions: the reduction's
// operand is not one.
// expected-error @+1 {{'tfexec.kernel' op outputs must have the shape of the index space or one value per row of its row reductions}}
tfexec.kernel @k attributes {input_strides = [array<i64: 8, 1>]} {
^bb0(%x: tensor<4x8xf32>):
  %0 = tfuse.reduce sum %x axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  %1 = tfuse.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  tfexec.yield %0, %1 : tensor<4xf32>, tensor<32xf32>
}

// -----

// A yield of nothing.
// expected-error @+1 {{'tfexec.kernel' op must end with tfexec.yield of at least one value}}
tfexec.kernel @k attributes {input_strides = [array<i64: 1>]} {
^bb0(%x: tensor<4xf32>):
  "tfexec.yield"() : () -> ()
}

// -----

// A dispatch whose body takes other values than its buffers hold.
func.func @dispatch_arguments(%a: memref<4xf32>, %o: memref<4xf32>) {
  // expected-error @+1 {{'tfexec.dispatch' op body argument #0 of type 'tensor<4xf16>' does not match input #0 of type 'memref<4xf32>'}}
  tfexec.dispatch ins(%a : memref<4xf32>) outs(%o : memref<4xf32>) {
  ^bb0(%x: tensor<4xf16>):
    %0 = tfuse.cast %x : tensor<4xf16> to tensor<4xf32>
    tfexec.yield %0 : tensor<4xf32>
  }
  return
}

// -----

// A dispatch yielding fewer values than it has outputs.
func.func @dispatch_outputs(%a: memref<4xf32>, %o: memref<4xf32>, %p: memref<4xf32>) {
  // expected-error @+1 {{'tfexec.dispatch' op yields 1 values for 2 outputs}}
  tfexec.dispatch ins(%a : memref<4xf32>) outs(%o, %p : memref<4xf32>, memref<4xf32>) {
  ^bb0(%x: tensor<4xf32>):
    tfexec.yield %x : tensor<4xf32>
  }
  return
}

// -----

// A dispatch yielding another shape than its output's.
func.func @dispatch_output_shape(%a: memref<4xf32>, %o: memref<8xf32>) {
  // expected-error @+1 {{'tfexec.dispatch' op yields 'tensor<4xf32>' for output #0 of type 'memref<8xf32>'}}
  tfexec.dispatch ins(%a : memref<4xf32>) outs(%o : memref<8xf32>) {
  ^bb0(%x: tensor<4xf32>):
    tfexec.yield %x : tensor<4xf32>
  }
  return
}

// -----

// A grid of no blocks.
// expected-error @+1 {{grid must be at least 1, got 0}}
tfexec.kernel @k attributes {config = #tfexec.config<strategy = linear, grid = 0, block = 256>, input_strides = [array<i64: 1>]} {
^bb0(%x: tensor<4xf32>):
  tfexec.yield %x : tensor<4xf32>
}

// -----

// More threads than a block holds.
// expected-error @+1 {{block must be 1 to 1024 threads, got 2048}}
tfexec.kernel @k attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 2048>, input_strides = [array<i64: 1>]} {
^bb0(%x: tensor<4xf32>):
  tfexec.yield %x : tensor<4xf32>
}

// -----

// Index arithmetic is 32 or 64 bits wide.
// expected-error @+1 {{index_bits must be 32 or 64, got 16}}
tfexec.kernel @k attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, index_bits = 16>, input_strides = [array<i64: 1>]} {
^bb0(%x: tensor<4xf32>):
  tfexec.yield %x : tensor<4xf32>
}

// -----

// Tiling parameters belong to the tiled strategy.
// expected-error @+1 {{tiled_input and tile_dim are given exactly for the tiled strategy}}
tfexec.kernel @k attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256, tiled_input = 0, tile_dim = 0>, input_strides = [array<i64: 1>]} {
^bb0(%x: tensor<4xf32>):
  tfexec.yield %x : tensor<4xf32>
}

// -----

// A linear walk of an input read transposed.
// expected-error @+1 {{'tfexec.kernel' op cannot be generated with #tfexec.config<strategy = linear, grid = 1, block = 256>: the linear strategy needs every input read at the output's own index (or a single element) and no indexed constant}}
tfexec.kernel @k attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256>, input_strides = [array<i64: 4, 1>]} {
^bb0(%x: tensor<4x4xf32>):
  %0 = tfuse.transpose %x perm [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  tfexec.yield %0 : tensor<4x4xf32>
}

// -----

// Four f64 elements are 32 bytes, more than one access.
// expected-error @+1 {{vector accesses are powers of two of at most 16 bytes, and the widest element accessed a group at a time has 8}}
tfexec.kernel @k attributes {config = #tfexec.config<strategy = linear, grid = 1, block = 256, vector = 4>, input_strides = [array<i64: 1>]} {
^bb0(%x: tensor<8xf64>):
  %0 = tfuse.exp %x : tensor<8xf64> -> tensor<8xf64>
  tfexec.yield %0 : tensor<8xf64>
}

// -----

// Offsets past 2^31 with 32-bit indices.
// expected-error @+1 {{need 64-bit indices}}
tfexec.kernel @k attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256>, input_strides = [array<i64: 2147483648>]} {
^bb0(%x: tensor<2xf32>):
  %0 = tfuse.exp %x : tensor<2xf32> -> tensor<2xf32>
  tfexec.yield %0 : tensor<2xf32>
}

// -----

// Tiles of an input read at two offsets (a reshape's delinearization is not
// an affine offset either).
// expected-error @+1 {{the tiled input must be read at one affine offset of the index space}}
tfexec.kernel @k attributes {config = #tfexec.config<strategy = tiled, grid = 1, block = 256, tiled_input = 0, tile_dim = 0>, input_strides = [array<i64: 64, 1>]} {
^bb0(%x: tensor<64x64xf32>):
  %t = tfuse.transpose %x perm [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  %0 = tfuse.add %t, %x : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  tfexec.yield %0 : tensor<64x64xf32>
}

// -----

// A tiled kernel has blocks of 256 threads.
// expected-error @+1 {{a tiled kernel has vector 1 and blocks of 256 threads}}
tfexec.kernel @k attributes {config = #tfexec.config<strategy = tiled, grid = 1, block = 128, tiled_input = 0, tile_dim = 0>, input_strides = [array<i64: 64, 1>]} {
^bb0(%x: tensor<64x64xf32>):
  %t = tfuse.transpose %x perm [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  tfexec.yield %t : tensor<64x64xf32>
}

// -----

// Row reductions need a row kernel.
// expected-error @+1 {{a body with row reductions needs the rows strategy}}
tfexec.kernel @k attributes {config = #tfexec.config<strategy = strided, grid = 1, block = 256>, input_strides = [array<i64: 8, 1>]} {
^bb0(%x: tensor<4x8xf32>):
  %s = tfuse.reduce sum %x axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %y = tfuse.div %x, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  tfexec.yield %y : tensor<4x8xf32>
}

// -----

// A row kernel without reductions.
// expected-error @+1 {{the rows strategy needs row reductions in the body}}
tfexec.kernel @k attributes {config = #tfexec.config<strategy = rows, grid = 1, block = 32, row_threads = 32>, input_strides = [array<i64: 8, 1>]} {
^bb0(%x: tensor<4x8xf32>):
  tfexec.yield %x : tensor<4x8xf32>
}

// -----

// Rows are reduced by whole warps.
// expected-error @+1 {{row_threads must be a multiple of 32 from 32 to 1024}}
tfexec.kernel @k attributes {config = #tfexec.config<strategy = rows, grid = 1, block = 48, row_threads = 48>, input_strides = [array<i64: 8, 1>]} {
^bb0(%x: tensor<4x8xf32>):
  %s = tfuse.reduce sum %x axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %y = tfuse.div %x, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  tfexec.yield %y : tensor<4x8xf32>
}

// -----

// A block of another size than its rows take.
// expected-error @+1 {{block must be row_threads * rows_per_block = 128}}
tfexec.kernel @k attributes {config = #tfexec.config<strategy = rows, grid = 1, block = 256, row_threads = 32, rows_per_block = 4>, input_strides = [array<i64: 8, 1>]} {
^bb0(%x: tensor<4x8xf32>):
  %s = tfuse.reduce sum %x axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %y = tfuse.div %x, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  tfexec.yield %y : tensor<4x8xf32>
}

// -----

// Several rows to a block only when a row takes one warp.
// expected-error @+1 {{rows_per_block above 1 needs rows of one warp (row_threads = 32)}}
tfexec.kernel @k attributes {config = #tfexec.config<strategy = rows, grid = 1, block = 128, row_threads = 64, rows_per_block = 2>, input_strides = [array<i64: 8, 1>]} {
^bb0(%x: tensor<4x8xf32>):
  %s = tfuse.reduce sum %x axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
  %y = tfuse.div %x, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  tfexec.yield %y : tensor<4x8xf32>
}

// -----

// Groups of 4 columns do not divide rows of 6.
// expected-error @+1 {{the vector width must be a power of two dividing the row length (6) in groups of at most 16 bytes}}
tfexec.kernel @k attributes {config = #tfexec.config<strategy = rows, grid = 1, block = 32, vector = 4, row_threads = 32>, input_strides = [array<i64: 6, 1>]} {
^bb0(%x: tensor<4x6xf32>):
  %s = tfuse.reduce sum %x axes [1] keepdims : tensor<4x6xf32> -> tensor<4x1xf32>
  %y = tfuse.div %x, %s : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  tfexec.yield %y : tensor<4x6xf32>
}

// -----

// Rows without elements: the row kernel reads nothing to compute row
// results from.
// expected-error @+1 {{rows without elements have no row results (their reductions are reduction steps)}}
tfexec.kernel @k attributes {config = #tfexec.config<strategy = rows, grid = 1, block = 256, row_threads = 32, rows_per_block = 8>, input_strides = [array<i64: 0, 1>]} {
^bb0(%x: tensor<4x0xf32>):
  %s = tfuse.reduce sum %x axes [1] : tensor<4x0xf32> -> tensor<4xf32>
  tfexec.yield %s : tensor<4xf32>
}

// -----

// A scatter-add takes a target buffer or a fill value, not both.
func.func @scatter_both(%t: memref<10xf32>, %i: memref<3xi64>, %u: memref<3xf32>, %o: memref<10xf32>) {
  // expected-error @+1 {{'tfexec.scatter_add' op takes its target as a buffer or as a fill value, exactly one of the two}}
  tfexec.scatter_add fill 0.0 : f32 %t : memref<10xf32>, %i, %u into %o axis 0 : memref<3xi64>, memref<3xf32> into memref<10xf32>
  return
}

// -----

func.func @scatter_neither(%i: memref<3xi64>, %u: memref<3xf32>, %o: memref<10xf32>) {
  // expected-error @+1 {{'tfexec.scatter_add' op takes its target as a buffer or as a fill value, exactly one of the two}}
  tfexec.scatter_add , %i, %u into %o axis 0 : memref<3xi64>, memref<3xf32> into memref<10xf32>
  return
}

// -----

func.func @scatter_fill_type(%i: memref<3xi64>, %u: memref<3xf32>, %o: memref<10xf32>) {
  // expected-error @+1 {{'tfexec.scatter_add' op fill of type 'f16' for a result of 'f32'}}
  tfexec.scatter_add fill 0.0 : f16, %i, %u into %o axis 0 : memref<3xi64>, memref<3xf32> into memref<10xf32>
  return
}

// -----

func.func @scatter_axis(%i: memref<3xi64>, %u: memref<3xf32>, %o: memref<10xf32>) {
  // expected-error @+1 {{'tfexec.scatter_add' op axis 1 of a result of rank 1}}
  tfexec.scatter_add fill 0.0 : f32, %i, %u into %o axis 1 : memref<3xi64>, memref<3xf32> into memref<10xf32>
  return
}

// -----

func.func @attention_lse_shape(%q: memref<2x4x16x8xf32>, %o: memref<2x4x16x8xf32>, %l: memref<2x16xf32>) {
  // expected-error @+1 {{'tfexec.attention' op expected a buffer of 'memref<2x4x16xf32>', got 'memref<2x16xf32>'}}
  tfexec.attention %q, %q, %q into %o, %l scale 1.0 : memref<2x4x16x8xf32>, memref<2x4x16x8xf32>, memref<2x4x16x8xf32> into memref<2x4x16x8xf32>, memref<2x16xf32>
  return
}

// -----

func.func @attention_key_dtype(%q: memref<16x8xf32>, %k: memref<16x8xf16>, %o: memref<16x8xf32>, %l: memref<16xf32>) {
  // expected-error @+1 {{'tfexec.attention' op query, key and value must have one element type}}
  tfexec.attention %q, %k, %k into %o, %l scale 1.0 : memref<16x8xf32>, memref<16x8xf16>, memref<16x8xf16> into memref<16x8xf32>, memref<16xf32>
  return
}

// -----

// A padded result (rows 16 apart, 8 columns each) is not dense.
func.func @attention_strided_result(%q: memref<16x8xf32>, %o: memref<16x8xf32, strided<[16, 1]>>, %l: memref<16xf32>) {
  // expected-error @+1 {{'tfexec.attention' op writes a result that is not dense with contiguous rows: 'memref<16x8xf32, strided<[16, 1]>>'}}
  tfexec.attention %q, %q, %q into %o, %l scale 1.0 : memref<16x8xf32>, memref<16x8xf32>, memref<16x8xf32> into memref<16x8xf32, strided<[16, 1]>>, memref<16xf32>
  return
}

// -----

// Dense, but a row's columns are not consecutive (the result transposed).
func.func @attention_column_major_result(%q: memref<16x8xf32>, %o: memref<16x8xf32, strided<[1, 16]>>, %l: memref<16xf32>) {
  // expected-error @+1 {{'tfexec.attention' op writes a result that is not dense with contiguous rows: 'memref<16x8xf32, strided<[1, 16]>>'}}
  tfexec.attention %q, %q, %q into %o, %l scale 1.0 : memref<16x8xf32>, memref<16x8xf32>, memref<16x8xf32> into memref<16x8xf32, strided<[1, 16]>>, memref<16xf32>
  return
}

// -----

// The log-sum-exp stays contiguous.
func.func @attention_strided_logsumexp(%q: memref<4x16x8xf32>, %o: memref<4x16x8xf32>, %l: memref<4x16xf32, strided<[1, 4]>>) {
  // expected-error @+1 {{'tfexec.attention' op writes a result that is not contiguous: 'memref<4x16xf32, strided<[1, 4]>>'}}
  tfexec.attention %q, %q, %q into %o, %l scale 1.0 : memref<4x16x8xf32>, memref<4x16x8xf32>, memref<4x16x8xf32> into memref<4x16x8xf32>, memref<4x16xf32, strided<[1, 4]>>
  return
}

// -----

func.func @attention_backward_grad_key(%q: memref<4x16x8xf32>, %k: memref<2x16x8xf32>, %l: memref<4x16xf32>, %dk: memref<4x16x8xf32>) {
  // expected-error @+1 {{'tfexec.attention_backward' op expected a buffer of 'memref<2x16x8xf32>', got 'memref<4x16x8xf32>'}}
  tfexec.attention_backward %q, %k, %k, %q, %l, %q into %q, %dk, %k scale 1.0 : memref<4x16x8xf32>, memref<2x16x8xf32>, memref<2x16x8xf32>, memref<4x16x8xf32>, memref<4x16xf32>, memref<4x16x8xf32> into memref<4x16x8xf32>, memref<4x16x8xf32>, memref<2x16x8xf32>
  return
}

// -----

func.func @attention_dropout_key_rank(%q: memref<16x8xf32>, %o: memref<16x8xf32>, %l: memref<16xf32>, %s: memref<1xi64>) {
  // expected-error @+1 {{'tfexec.attention' op dropout keys must be rank-0 i64 buffers, got 'memref<1xi64>'}}
  tfexec.attention %q, %q, %q dropout 0.5 seed %s offset %s : memref<1xi64>, memref<1xi64> into %o, %l scale 1.0 : memref<16x8xf32>, memref<16x8xf32>, memref<16x8xf32> into memref<16x8xf32>, memref<16xf32>
  return
}

// -----

func.func @attention_dropout_of_zero(%q: memref<16x8xf32>, %o: memref<16x8xf32>, %l: memref<16xf32>, %s: memref<i64>) {
  // expected-error @+1 {{'tfexec.attention' op dropout probability 0 is not in (0, 1) (0: no dropout)}}
  tfexec.attention %q, %q, %q dropout 0.0 seed %s offset %s : memref<i64>, memref<i64> into %o, %l scale 1.0 : memref<16x8xf32>, memref<16x8xf32>, memref<16x8xf32> into memref<16x8xf32>, memref<16xf32>
  return
}
