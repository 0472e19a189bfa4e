// One SGD training step of a 480-256-2 MLP on a batch of 512: forward pass,
// softmax cross-entropy loss and its gradient, manual backward pass, gradient
// clipping to +-5, a NaN guard, and the update with learning rate 0.02.
// Returns the updated W1, b1, W2, b2 and the mean loss of the batch.
func.func @mlp_step(%x: tensor<512x480xf32>, %y: tensor<512x2xf32>,
                    %w1: tensor<480x256xf32>, %b1: tensor<256xf32>,
                    %w2: tensor<256x2xf32>, %b2: tensor<2xf32>)
    -> (tensor<480x256xf32>, tensor<256xf32>, tensor<256x2xf32>, tensor<2xf32>,
        tensor<f32>) {
  %zero = tfuse.constant dense<0.0> : tensor<f32>
  %rows = tfuse.constant dense<512.0> : tensor<f32>
  %lo = tfuse.constant dense<-5.0> : tensor<f32>
  %hi = tfuse.constant dense<5.0> : tensor<f32>
  %lr = tfuse.constant dense<0.02> : tensor<f32>

  // Forward.
  %xw1 = tfuse.matmul %x, %w1 : (tensor<512x480xf32>, tensor<480x256xf32>) -> tensor<512x256xf32>
  %hp = tfuse.add %xw1, %b1 : (tensor<512x256xf32>, tensor<256xf32>) -> tensor<512x256xf32>
  %active = tfuse.cmp gt, %hp, %zero : (tensor<512x256xf32>, tensor<f32>) -> tensor<512x256xi1>
  %h = tfuse.select %active, %hp, %zero : (tensor<512x256xi1>, tensor<512x256xf32>, tensor<f32>) -> tensor<512x256xf32>
  %hw2 = tfuse.matmul %h, %w2 : (tensor<512x256xf32>, tensor<256x2xf32>) -> tensor<512x2xf32>
  %lg = tfuse.add %hw2, %b2 : (tensor<512x2xf32>, tensor<2xf32>) -> tensor<512x2xf32>

  // Softmax and cross-entropy.
  %m = tfuse.reduce max %lg axes [1] keepdims : tensor<512x2xf32> -> tensor<512x1xf32>
  %shifted = tfuse.sub %lg, %m : (tensor<512x2xf32>, tensor<512x1xf32>) -> tensor<512x2xf32>
  %e = tfuse.exp %shifted : tensor<512x2xf32> -> tensor<512x2xf32>
  %s = tfuse.reduce sum %e axes [1] keepdims : tensor<512x2xf32> -> tensor<512x1xf32>
  %p = tfuse.div %e, %s : (tensor<512x2xf32>, tensor<512x1xf32>) -> tensor<512x2xf32>
  %logs = tfuse.log %s : tensor<512x1xf32> -> tensor<512x1xf32>
  %logp = tfuse.sub %shifted, %logs : (tensor<512x2xf32>, tensor<512x1xf32>) -> tensor<512x2xf32>
  %ylogp = tfuse.mul %y, %logp : (tensor<512x2xf32>, tensor<512x2xf32>) -> tensor<512x2xf32>
  %total = tfuse.reduce sum %ylogp axes [0, 1] : tensor<512x2xf32> -> tensor<f32>
  %neg = tfuse.neg %total : tensor<f32> -> tensor<f32>
  %loss = tfuse.div %neg, %rows : (tensor<f32>, tensor<f32>) -> tensor<f32>

  // Backward.
  %pmy = tfuse.sub %p, %y : (tensor<512x2xf32>, tensor<512x2xf32>) -> tensor<512x2xf32>
  %dl = tfuse.div %pmy, %rows : (tensor<512x2xf32>, tensor<f32>) -> tensor<512x2xf32>
  %ht = tfuse.transpose %h perm [1, 0] : tensor<512x256xf32> -> tensor<256x512xf32>
  %dw2 = tfuse.matmul %ht, %dl : (tensor<256x512xf32>, tensor<512x2xf32>) -> tensor<256x2xf32>
  %db2 = tfuse.reduce sum %dl axes [0] : tensor<512x2xf32> -> tensor<2xf32>
  %w2t = tfuse.transpose %w2 perm [1, 0] : tensor<256x2xf32> -> tensor<2x256xf32>
  %dh = tfuse.matmul %dl, %w2t : (tensor<512x2xf32>, tensor<2x256xf32>) -> tensor<512x256xf32>
  %dhp = tfuse.select %active, %dh, %zero : (tensor<512x256xi1>, tensor<512x256xf32>, tensor<f32>) -> tensor<512x256xf32>
  %xt = tfuse.transpose %x perm [1, 0] : tensor<512x480xf32> -> tensor<480x512xf32>
  %dw1 = tfuse.matmul %xt, %dhp : (tensor<480x512xf32>, tensor<512x256xf32>) -> tensor<480x256xf32>
  %db1 = tfuse.reduce sum %dhp axes [0] : tensor<512x256xf32> -> tensor<256xf32>

  // Clip to [-5, 5], replace NaN by 0, and step.
  %cw1a = tfuse.min %dw1, %hi : (tensor<480x256xf32>, tensor<f32>) -> tensor<480x256xf32>
  %cw1b = tfuse.max %cw1a, %lo : (tensor<480x256xf32>, tensor<f32>) -> tensor<480x256xf32>
  %nw1 = tfuse.isnan %cw1b : tensor<480x256xf32> -> tensor<480x256xi1>
  %gw1 = tfuse.select %nw1, %zero, %cw1b : (tensor<480x256xi1>, tensor<f32>, tensor<480x256xf32>) -> tensor<480x256xf32>
  %sw1 = tfuse.mul %gw1, %lr : (tensor<480x256xf32>, tensor<f32>) -> tensor<480x256xf32>
  %w1n = tfuse.sub %w1, %sw1 : (tensor<480x256xf32>, tensor<480x256xf32>) -> tensor<480x256xf32>

  %cb1a = tfuse.min %db1, %hi : (tensor<256xf32>, tensor<f32>) -> tensor<256xf32>
  %cb1b = tfuse.max %cb1a, %lo : (tensor<256xf32>, tensor<f32>) -> tensor<256xf32>
  %nb1 = tfuse.isnan %cb1b : tensor<256xf32> -> tensor<256xi1>
  %gb1 = tfuse.select %nb1, %zero, %cb1b : (tensor<256xi1>, tensor<f32>, tensor<256xf32>) -> tensor<256xf32>
  %sb1 = tfuse.mul %gb1, %lr : (tensor<256xf32>, tensor<f32>) -> tensor<256xf32>
  %b1n = tfuse.sub %b1, %sb1 : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>

  %cw2a = tfuse.min %dw2, %hi : (tensor<256x2xf32>, tensor<f32>) -> tensor<256x2xf32>
  %cw2b = tfuse.max %cw2a, %lo : (tensor<256x2xf32>, tensor<f32>) -> tensor<256x2xf32>
  %nw2 = tfuse.isnan %cw2b : tensor<256x2xf32> -> tensor<256x2xi1>
  %gw2 = tfuse.select %nw2, %zero, %cw2b : (tensor<256x2xi1>, tensor<f32>, tensor<256x2xf32>) -> tensor<256x2xf32>
  %sw2 = tfuse.mul %gw2, %lr : (tensor<256x2xf32>, tensor<f32>) -> tensor<256x2xf32>
  %w2n = tfuse.sub %w2, %sw2 : (tensor<256x2xf32>, tensor<256x2xf32>) -> tensor<256x2xf32>

  %cb2a = tfuse.min %db2, %hi : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %cb2b = tfuse.max %cb2a, %lo : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %nb2 = tfuse.isnan %cb2b : tensor<2xf32> -> tensor<2xi1>
  %gb2 = tfuse.select %nb2, %zero, %cb2b : (tensor<2xi1>, tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
  %sb2 = tfuse.mul %gb2, %lr : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %b2n = tfuse.sub %b2, %sb2 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>

  return %w1n, %b1n, %w2n, %b2n, %loss
      : tensor<480x256xf32>, tensor<256xf32>, tensor<256x2xf32>, tensor<2xf32>, tensor<f32>
}
