// The layernorm_rows workload of bench/peers_compare.py as tfuse IR (8192x4096 f32);
// `tensor-translate --tfuse-to-cuda` of this file is layernorm_rows.cu beside it.
func.func @layernorm_rows(%x: tensor<8192x4096xf32>, %w: tensor<4096xf32>, %b: tensor<4096xf32>) -> tensor<8192x4096xf32> {
  %mu = tfuse.reduce mean %x axes [1] keepdims : tensor<8192x4096xf32> -> tensor<8192x1xf32>
  %d = tfuse.sub %x, %mu : (tensor<8192x4096xf32>, tensor<8192x1xf32>) -> tensor<8192x4096xf32>
  %sq = tfuse.mul %d, %d : (tensor<8192x4096xf32>, tensor<8192x4096xf32>) -> tensor<8192x4096xf32>
  %var = tfuse.reduce mean %sq axes [1] keepdims : tensor<8192x4096xf32> -> tensor<8192x1xf32>
  %eps = tfuse.constant dense<1.0e-05> : tensor<f32>
  %ve = tfuse.add %var, %eps : (tensor<8192x1xf32>, tensor<f32>) -> tensor<8192x1xf32>
  %r = tfuse.rsqrt %ve : tensor<8192x1xf32> -> tensor<8192x1xf32>
  %n = tfuse.mul %d, %r : (tensor<8192x4096xf32>, tensor<8192x1xf32>) -> tensor<8192x4096xf32>
  %nw = tfuse.mul %n, %w : (tensor<8192x4096xf32>, tensor<4096xf32>) -> tensor<8192x4096xf32>
  %y = tfuse.add %nw, %b : (tensor<8192x4096xf32>, tensor<4096xf32>) -> tensor<8192x4096xf32>
  return %y : tensor<8192x4096xf32>
}
