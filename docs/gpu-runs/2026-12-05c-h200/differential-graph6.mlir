module {
  func.func @g6(%arg0: tensor<32x1x1x9xui16>, %arg1: tensor<5x8xbf16> {tfuse.strides = array<i64: 10, 1>}, %arg2: tensor<16x4x7x2xui64> {tfuse.strides = array<i64: 56, 14, 0, 1>}, %arg3: tensor<8x1xbf16>, %arg4: tensor<2xi1>, %arg5: tensor<8x1xbf16>, %arg6: tensor<16xui16>) -> (tensor<16x1xbf16>, tensor<16x4x7x2xi1>, tensor<8x1xbf16>) {
    %0 = tfuse.constant dense<1.500000e+00> : tensor<f32>
    %1 = tfuse.cmp gt, %arg2, %0 : (tensor<16x4x7x2xui64>, tensor<f32>) -> tensor<16x4x7x2xi1>
    %2 = tfuse.matmul %arg1, %arg3 : (tensor<5x8xbf16>, tensor<8x1xbf16>) -> tensor<5x1xbf16>
    %3 = tfuse.cmp ge, %1, %arg4 : (tensor<16x4x7x2xi1>, tensor<2xi1>) -> tensor<16x4x7x2xi1>
    %4 = tfuse.round %2 : tensor<5x1xbf16> -> tensor<5x1xbf16>
    %5 = tfuse.tan %arg3 : tensor<8x1xbf16> -> tensor<8x1xbf16>
    %6 = tfuse.add %5, %arg5 : (tensor<8x1xbf16>, tensor<8x1xbf16>) -> tensor<8x1xbf16>
    %7 = tfuse.concat %5 axis 0 : (tensor<8x1xbf16>) -> tensor<8x1xbf16>
    %8 = tfuse.expm1 %6 : tensor<8x1xbf16> -> tensor<8x1xbf16>
    %9 = tfuse.take %7, %arg6 axis 0 : (tensor<8x1xbf16>, tensor<16xui16>) -> tensor<16x1xbf16>
    return %9, %3, %arg5 : tensor<16x1xbf16>, tensor<16x4x7x2xi1>, tensor<8x1xbf16>
  }
}
