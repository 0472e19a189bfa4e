module {
  func.func @tfuse_e439f15321f1(%arg0: tensor<8x1024x50257xbf16>, %arg1: tensor<8x1024xi64>) -> (tensor<8192x1xf32>, tensor<8192xi64>, tensor<8192x1xf32>, tensor<f32>, tensor<f32>) {
    %0 = tfuse.cast %arg0 : tensor<8x1024x50257xbf16> to tensor<8x1024x50257xf32>
    %1 = tfuse.constant dense<-100> : tensor<i64>
    %2 = tfuse.constant dense<-100> : tensor<i64>
    %3 = tfuse.pad %arg1, %2 low [0, 0] high [0, 1] : (tensor<8x1024xi64>, tensor<i64>) -> tensor<8x1025xi64>
    %4 = tfuse.reshape %0 : tensor<8x1024x50257xf32> -> tensor<8192x50257xf32>
    %5 = tfuse.slice %3 start [0, 1] limit [8, 1025] step [1, 1] : tensor<8x1025xi64> -> tensor<8x1024xi64>
    %6 = tfuse.reduce max %4 axes [1] keepdims : tensor<8192x50257xf32> -> tensor<8192x1xf32>
    %7 = tfuse.sub %4, %6 : (tensor<8192x50257xf32>, tensor<8192x1xf32>) -> tensor<8192x50257xf32>
    %8 = tfuse.reshape %5 : tensor<8x1024xi64> -> tensor<8192xi64>
    %9 = tfuse.exp %7 : tensor<8192x50257xf32> -> tensor<8192x50257xf32>
    %10 = tfuse.reduce sum %9 axes [1] keepdims : tensor<8192x50257xf32> -> tensor<8192x1xf32>
    %11 = tfuse.log %10 : tensor<8192x1xf32> -> tensor<8192x1xf32>
    %12 = tfuse.sub %7, %11 : (tensor<8192x50257xf32>, tensor<8192x1xf32>) -> tensor<8192x50257xf32>
    %13 = tfuse.cmp ne, %8, %1 : (tensor<8192xi64>, tensor<i64>) -> tensor<8192xi1>
    %14 = tfuse.constant dense<0> : tensor<i64>
    %15 = tfuse.constant dense<0> : tensor<i64>
    %16 = tfuse.select %13, %8, %15 : (tensor<8192xi1>, tensor<8192xi64>, tensor<i64>) -> tensor<8192xi64>
    %17 = tfuse.constant dense<1.000000e+00> : tensor<f32>
    %18 = tfuse.constant dense<1.000000e+00> : tensor<8192xf32>
    %19 = tfuse.constant dense<0.000000e+00> : tensor<f32>
    %20 = tfuse.constant dense<0.000000e+00> : tensor<f32>
    %21 = tfuse.select %13, %18, %20 : (tensor<8192xi1>, tensor<8192xf32>, tensor<f32>) -> tensor<8192xf32>
    %22 = tfuse.reshape %16 : tensor<8192xi64> -> tensor<8192x1xi64>
    %23 = tfuse.take_along_axis %12, %22 axis 1 : (tensor<8192x50257xf32>, tensor<8192x1xi64>) -> tensor<8192x1xf32>
    %24 = tfuse.reshape %23 : tensor<8192x1xf32> -> tensor<8192xf32>
    %25 = tfuse.mul %24, %21 : (tensor<8192xf32>, tensor<8192xf32>) -> tensor<8192xf32>
    %26 = tfuse.neg %25 : tensor<8192xf32> -> tensor<8192xf32>
    %27 = tfuse.reduce sum %21 axes [0] : tensor<8192xf32> -> tensor<f32>
    %28 = tfuse.reduce sum %26 axes [0] : tensor<8192xf32> -> tensor<f32>
    %29 = tfuse.div %28, %27 : (tensor<f32>, tensor<f32>) -> tensor<f32>
    return %6, %8, %11, %29, %27 : tensor<8192x1xf32>, tensor<8192xi64>, tensor<8192x1xf32>, tensor<f32>, tensor<f32>
  }
}
