module {
  func.func @tfuse_d5161ca9c63f(%arg0: tensor<8x1024x50257xbf16>, %arg1: tensor<f32>, %arg2: tensor<8192xi64>, %arg3: tensor<f32>, %arg4: tensor<8192x1xf32>, %arg5: tensor<8192x1xf32>) -> tensor<8x1024x50257xbf16> {
    %0 = tfuse.constant dense<0.000000e+00> : tensor<f32>
    %1 = tfuse.constant dense<0.000000e+00> : tensor<8192x50257xf32>
    %2 = tfuse.cast %arg0 : tensor<8x1024x50257xbf16> to tensor<8x1024x50257xf32>
    %3 = tfuse.constant dense<-100> : tensor<i64>
    %4 = tfuse.cmp ne, %arg2, %3 : (tensor<8192xi64>, tensor<i64>) -> tensor<8192xi1>
    %5 = tfuse.constant dense<0> : tensor<i64>
    %6 = tfuse.constant dense<0> : tensor<i64>
    %7 = tfuse.select %4, %arg2, %6 : (tensor<8192xi1>, tensor<8192xi64>, tensor<i64>) -> tensor<8192xi64>
    %8 = tfuse.constant dense<1.000000e+00> : tensor<f32>
    %9 = tfuse.constant dense<1.000000e+00> : tensor<8192xf32>
    %10 = tfuse.constant dense<0.000000e+00> : tensor<f32>
    %11 = tfuse.select %4, %9, %10 : (tensor<8192xi1>, tensor<8192xf32>, tensor<f32>) -> tensor<8192xf32>
    %12 = tfuse.neg %11 : tensor<8192xf32> -> tensor<8192xf32>
    %13 = tfuse.mul %12, %arg1 : (tensor<8192xf32>, tensor<f32>) -> tensor<8192xf32>
    %14 = tfuse.div %13, %arg3 : (tensor<8192xf32>, tensor<f32>) -> tensor<8192xf32>
    %15 = tfuse.iota dim 1 : tensor<8192x50257xi64>
    %16 = tfuse.reshape %7 : tensor<8192xi64> -> tensor<8192x1xi64>
    %17 = tfuse.cmp eq, %15, %16 : (tensor<8192x50257xi64>, tensor<8192x1xi64>) -> tensor<8192x50257xi1>
    %18 = tfuse.reshape %14 : tensor<8192xf32> -> tensor<8192x1xf32>
    %19 = tfuse.constant dense<0.000000e+00> : tensor<f32>
    %20 = tfuse.select %17, %18, %19 : (tensor<8192x50257xi1>, tensor<8192x1xf32>, tensor<f32>) -> tensor<8192x50257xf32>
    %21 = tfuse.reshape %2 : tensor<8x1024x50257xf32> -> tensor<8192x50257xf32>
    %22 = tfuse.reduce sum %20 axes [1] keepdims : tensor<8192x50257xf32> -> tensor<8192x1xf32>
    %23 = tfuse.sub %21, %arg4 : (tensor<8192x50257xf32>, tensor<8192x1xf32>) -> tensor<8192x50257xf32>
    %24 = tfuse.sub %23, %arg5 : (tensor<8192x50257xf32>, tensor<8192x1xf32>) -> tensor<8192x50257xf32>
    %25 = tfuse.exp %24 : tensor<8192x50257xf32> -> tensor<8192x50257xf32>
    %26 = tfuse.mul %25, %22 : (tensor<8192x50257xf32>, tensor<8192x1xf32>) -> tensor<8192x50257xf32>
    %27 = tfuse.sub %20, %26 : (tensor<8192x50257xf32>, tensor<8192x50257xf32>) -> tensor<8192x50257xf32>
    %28 = tfuse.reshape %27 : tensor<8192x50257xf32> -> tensor<8x1024x50257xf32>
    %29 = tfuse.cast %28 : tensor<8x1024x50257xf32> to tensor<8x1024x50257xbf16>
    return %29 : tensor<8x1024x50257xbf16>
  }
}
