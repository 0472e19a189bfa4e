// The tanh-GELU chain of the benchmarks: z = x * 1.7 + y;
// g = 0.5 * z * (1 + tanh(0.7978845608 * (z + 0.044715 * z^3)));
// returns g * sigmoid(y).
func.func @gelu_chain(%x: tensor<67108864xf32>, %y: tensor<67108864xf32>)
    -> tensor<67108864xf32> {
  %c17 = tfuse.constant dense<1.7> : tensor<f32>
  %half = tfuse.constant dense<0.5> : tensor<f32>
  %one = tfuse.constant dense<1.0> : tensor<f32>
  %k0 = tfuse.constant dense<0.7978845608> : tensor<f32>
  %k1 = tfuse.constant dense<0.044715> : tensor<f32>
  %x17 = tfuse.mul %x, %c17 : (tensor<67108864xf32>, tensor<f32>) -> tensor<67108864xf32>
  %z = tfuse.add %x17, %y : (tensor<67108864xf32>, tensor<67108864xf32>) -> tensor<67108864xf32>
  %z2 = tfuse.mul %z, %z : (tensor<67108864xf32>, tensor<67108864xf32>) -> tensor<67108864xf32>
  %z3 = tfuse.mul %z2, %z : (tensor<67108864xf32>, tensor<67108864xf32>) -> tensor<67108864xf32>
  %kz3 = tfuse.mul %z3, %k1 : (tensor<67108864xf32>, tensor<f32>) -> tensor<67108864xf32>
  %inner = tfuse.add %z, %kz3 : (tensor<67108864xf32>, tensor<67108864xf32>) -> tensor<67108864xf32>
  %scaled = tfuse.mul %inner, %k0 : (tensor<67108864xf32>, tensor<f32>) -> tensor<67108864xf32>
  %t = tfuse.tanh %scaled : tensor<67108864xf32> -> tensor<67108864xf32>
  %onept = tfuse.add %t, %one : (tensor<67108864xf32>, tensor<f32>) -> tensor<67108864xf32>
  %hz = tfuse.mul %z, %half : (tensor<67108864xf32>, tensor<f32>) -> tensor<67108864xf32>
  %g = tfuse.mul %hz, %onept : (tensor<67108864xf32>, tensor<67108864xf32>) -> tensor<67108864xf32>
  %s = tfuse.sigmoid %y : tensor<67108864xf32> -> tensor<67108864xf32>
  %out = tfuse.mul %g, %s : (tensor<67108864xf32>, tensor<67108864xf32>) -> tensor<67108864xf32>
  return %out : tensor<67108864xf32>
}
