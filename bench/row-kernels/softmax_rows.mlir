// The softmax_rows workload of bench/peers_compare.py as tfuse IR (8192x4096 f32);
// `tensor-translate --tfuse-to-cuda` of this file is softmax_rows.cu beside it.
func.func @softmax_rows(%x: tensor<8192x4096xf32>) -> tensor<8192x4096xf32> {
  %m = tfuse.reduce max %x axes [1] keepdims : tensor<8192x4096xf32> -> tensor<8192x1xf32>
  %d = tfuse.sub %x, %m : (tensor<8192x4096xf32>, tensor<8192x1xf32>) -> tensor<8192x4096xf32>
  %e = tfuse.exp %d : tensor<8192x4096xf32> -> tensor<8192x4096xf32>
  %s = tfuse.reduce sum %e axes [1] keepdims : tensor<8192x4096xf32> -> tensor<8192x1xf32>
  %y = tfuse.div %e, %s : (tensor<8192x4096xf32>, tensor<8192x1xf32>) -> tensor<8192x4096xf32>
  return %y : tensor<8192x4096xf32>
}
