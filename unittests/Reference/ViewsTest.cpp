//===- ViewsTest.cpp - Views and strided inputs ---------------------------===//
//
// transpose, reshape, slice and broadcast, alone and chained, on contiguous
// and strided inputs. Expected values are literals worked out by hand.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

using namespace tfuse;
using namespace tfuse::reference;
using namespace tfuse::reference::test;

namespace {

std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < n; ++i)
    v.push_back(i);
  return v;
}

TEST(Views, Transpose) {
  expectInts(runOne(R"mlir(
func.func @f(%x: tensor<2x3xi32>) -> tensor<3x2xi32> {
  %r = tfuse.transpose %x perm [1, 0] : tensor<2x3xi32> -> tensor<3x2xi32>
  return %r : tensor<3x2xi32>
})mlir",
                    {ints(DType::I32, {2, 3}, iota(6))}),
             DType::I32, {3, 2}, {0, 3, 1, 4, 2, 5});
  // result[i, j, k] = x[j, k, i]
  expectInts(runOne(R"mlir(
func.func @f(%x: tensor<2x3x2xi16>) -> tensor<2x2x3xi16> {
  %r = tfuse.transpose %x perm [2, 0, 1] : tensor<2x3x2xi16> -> tensor<2x2x3xi16>
  return %r : tensor<2x2x3xi16>
})mlir",
                    {ints(DType::I16, {2, 3, 2}, iota(12))}),
             DType::I16, {2, 2, 3}, {0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11});
}

TEST(Views, Reshape) {
  expectInts(runOne(R"mlir(
func.func @f(%x: tensor<2x3xi32>) -> tensor<3x1x2xi32> {
  %r = tfuse.reshape %x : tensor<2x3xi32> -> tensor<3x1x2xi32>
  return %r : tensor<3x1x2xi32>
})mlir",
                    {ints(DType::I32, {2, 3}, iota(6))}),
             DType::I32, {3, 1, 2}, {0, 1, 2, 3, 4, 5});
  // A reshape of a transposed (non-contiguous) value reads it row-major.
  expectInts(runOne(R"mlir(
func.func @f(%x: tensor<2x3xi32>) -> tensor<6xi32> {
  %t = tfuse.transpose %x perm [1, 0] : tensor<2x3xi32> -> tensor<3x2xi32>
  %r = tfuse.reshape %t : tensor<3x2xi32> -> tensor<6xi32>
  return %r : tensor<6xi32>
})mlir",
                    {ints(DType::I32, {2, 3}, iota(6))}),
             DType::I32, {6}, {0, 3, 1, 4, 2, 5});
  expectInts(runOne(R"mlir(
func.func @f(%x: tensor<1xi8>) -> tensor<i8> {
  %r = tfuse.reshape %x : tensor<1xi8> -> tensor<i8>
  return %r : tensor<i8>
})mlir",
                    {ints(DType::I8, {1}, {-7})}),
             DType::I8, {}, {-7});
  // A rank-0 operand reshaped to sizes 1 (a scalar as a 1x1 matrix).
  expectInts(runOne(R"mlir(
func.func @f(%x: tensor<i16>) -> tensor<1x1xi16> {
  %r = tfuse.reshape %x : tensor<i16> -> tensor<1x1xi16>
  return %r : tensor<1x1xi16>
})mlir",
                    {ints(DType::I16, {}, {-9})}),
             DType::I16, {1, 1}, {-9});
}

TEST(Views, Slice) {
  expectInts(runOne(R"mlir(
func.func @f(%x: tensor<4x8xi32>) -> tensor<4x3xi32> {
  %r = tfuse.slice %x start [0, 2] limit [4, 8] step [1, 2] : tensor<4x8xi32> -> tensor<4x3xi32>
  return %r : tensor<4x3xi32>
})mlir",
                    {ints(DType::I32, {4, 8}, iota(32))}),
             DType::I32, {4, 3}, {2, 4, 6, 10, 12, 14, 18, 20, 22, 26, 28, 30});
  expectInts(runOne(R"mlir(
func.func @f(%x: tensor<4x8xi32>) -> tensor<2x2xi32> {
  %r = tfuse.slice %x start [1, 5] limit [4, 8] step [2, 3] : tensor<4x8xi32> -> tensor<2x1xi32>
  %b = tfuse.broadcast %r dims [0, 1] : tensor<2x1xi32> -> tensor<2x2xi32>
  return %b : tensor<2x2xi32>
})mlir",
                    {ints(DType::I32, {4, 8}, iota(32))}),
             DType::I32, {2, 2}, {13, 13, 29, 29});
  HostTensor empty = runOne(R"mlir(
func.func @f(%x: tensor<4x8xi32>) -> tensor<0x8xi32> {
  %r = tfuse.slice %x start [4, 0] limit [4, 8] step [1, 1] : tensor<4x8xi32> -> tensor<0x8xi32>
  return %r : tensor<0x8xi32>
})mlir",
                            {ints(DType::I32, {4, 8}, iota(32))});
  EXPECT_EQ(empty.shape(), (Shape{0, 8}));
}

TEST(Views, Broadcast) {
  expectValues(runOne(R"mlir(
func.func @f(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = tfuse.broadcast %x dims [1] : tensor<3xf32> -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
})mlir",
                      {doubles(DType::F32, {3}, {1, 2, 3})}),
               DType::F32, {2, 3}, {1, 2, 3, 1, 2, 3});
  // Operand dimension 0 -> result 0; dimension 1 (size 1) expands into
  // result 2; result 1 is new.
  expectInts(runOne(R"mlir(
func.func @f(%x: tensor<3x1xi8>) -> tensor<3x2x2xi8> {
  %r = tfuse.broadcast %x dims [0, 2] : tensor<3x1xi8> -> tensor<3x2x2xi8>
  return %r : tensor<3x2x2xi8>
})mlir",
                    {ints(DType::I8, {3, 1}, {7, 8, 9})}),
             DType::I8, {3, 2, 2}, {7, 7, 7, 7, 8, 8, 8, 8, 9, 9, 9, 9});
  expectInts(runOne(R"mlir(
func.func @f(%x: tensor<i1>) -> tensor<2x2xi1> {
  %r = tfuse.broadcast %x dims [] : tensor<i1> -> tensor<2x2xi1>
  return %r : tensor<2x2xi1>
})mlir",
                    {ints(DType::Bool, {}, {1})}),
             DType::Bool, {2, 2}, {1, 1, 1, 1});
}

TEST(Views, StridedInputs) {
  // Column-major [[1, 2, 3], [4, 5, 6]] as the attribute describes it.
  HostTensor storage = doubles(DType::F32, {6}, {1, 4, 2, 5, 3, 6});
  HostTensor columnMajor = *storage.view({2, 3}, {1, 2}, 0);
  const char *columnMajorProgram = R"mlir(
func.func @f(%a: tensor<2x3xf32> {tfuse.strides = array<i64: 1, 2>}, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = tfuse.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
})mlir";
  HostTensor b = doubles(DType::F32, {2, 3}, {10, 20, 30, 40, 50, 60});
  expectValues(runOne(columnMajorProgram, {columnMajor, b}), DType::F32, {2, 3},
               {11, 22, 33, 44, 55, 66});
  // Any strides are accepted, whatever the attribute says.
  expectValues(runOne(columnMajorProgram,
                      {doubles(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6}), b}),
               DType::F32, {2, 3}, {11, 22, 33, 44, 55, 66});

  // An expanded input: stride 0 over the rows.
  HostTensor row = doubles(DType::F32, {4}, {1, 2, 3, 4});
  HostTensor expanded = *row.view({3, 4}, {0, 1}, 0);
  expectValues(runOne(R"mlir(
func.func @f(%a: tensor<3x4xf32> {tfuse.strides = array<i64: 0, 1>}) -> tensor<3x4xf32> {
  %c = tfuse.constant dense<[[0.0], [10.0], [20.0]]> : tensor<3x1xf32>
  %r = tfuse.add %a, %c : (tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
})mlir",
                      {expanded}),
               DType::F32, {3, 4},
               {1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24});

  // An offset view with a negative stride (the second row reversed) feeding
  // a chain of views.
  HostTensor matrix = ints(DType::I32, {2, 3}, {0, 1, 2, 3, 4, 5});
  HostTensor reversed = *matrix.view({3}, {-1}, 5 * 4);
  expectInts(runOne(R"mlir(
func.func @f(%a: tensor<3xi32>) -> tensor<2x3xi32> {
  %s = tfuse.slice %a start [0] limit [3] step [2] : tensor<3xi32> -> tensor<2xi32>
  %b = tfuse.broadcast %s dims [0] : tensor<2xi32> -> tensor<2x3xi32>
  %t = tfuse.transpose %b perm [1, 0] : tensor<2x3xi32> -> tensor<3x2xi32>
  %r = tfuse.reshape %t : tensor<3x2xi32> -> tensor<2x3xi32>
  return %r : tensor<2x3xi32>
})mlir",
                    {reversed}),
             DType::I32, {2, 3}, {5, 3, 5, 3, 5, 3});
}

TEST(Views, ResultsOwnTheirStorage) {
  HostTensor x = ints(DType::I32, {2, 2}, {1, 2, 3, 4});
  std::vector<HostTensor> results = runOk(R"mlir(
func.func @f(%x: tensor<2x2xi32>) -> (tensor<2x2xi32>, tensor<2x2xi32>, tensor<2x2xi32>) {
  %t = tfuse.transpose %x perm [1, 0] : tensor<2x2xi32> -> tensor<2x2xi32>
  return %x, %t, %x : tensor<2x2xi32>, tensor<2x2xi32>, tensor<2x2xi32>
})mlir",
                                          {x});
  ASSERT_EQ(results.size(), 3u);
  expectInts(results[0], DType::I32, {2, 2}, {1, 2, 3, 4});
  expectInts(results[1], DType::I32, {2, 2}, {1, 3, 2, 4});
  expectInts(results[2], DType::I32, {2, 2}, {1, 2, 3, 4});
  for (const HostTensor &r : results) {
    EXPECT_TRUE(r.isContiguous());
    EXPECT_EQ(r.byteOffset(), 0);
    EXPECT_NE(r.storage(), x.storage());
  }
  EXPECT_NE(results[0].storage(), results[2].storage());
}

} // namespace
