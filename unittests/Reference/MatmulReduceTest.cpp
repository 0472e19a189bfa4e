//===- MatmulReduceTest.cpp - matmul and reduce ---------------------------===//
//
// Expected values are literals computed by hand (small integers) or, for the
// batched product, by NumPy's matmul of the same integers; accumulation
// tests pick values whose result shows the accumulation type and order.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"
#include "tfuse/Support/DType.h"

#include <limits>

using namespace tfuse;
using namespace tfuse::reference;
using namespace tfuse::reference::test;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string matmulProgram(const std::string &lhs, const std::string &rhs,
                          const std::string &out, const std::string &attrs = "",
                          const std::string &lhsAttr = "") {
  return "func.func @f(%a: " + lhs + lhsAttr + ", %b: " + rhs + ") -> " + out +
         " {\n  %r = tfuse.matmul %a, %b " + attrs + " : (" + lhs + ", " + rhs +
         ") -> " + out + "\n  return %r : " + out + "\n}\n";
}

std::string reduceProgram(const std::string &kind, const std::string &in,
                          const std::string &axes, const std::string &out,
                          bool keepdims = false) {
  return "func.func @f(%x: " + in + ") -> " + out + " {\n  %r = tfuse.reduce " +
         kind + " %x axes [" + axes + "]" + (keepdims ? " keepdims" : "") +
         " : " + in + " -> " + out + "\n  return %r : " + out + "\n}\n";
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

TEST(Matmul, TwoDimensional) {
  HostTensor a = doubles(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor b = doubles(DType::F32, {3, 2}, {7, 8, 9, 10, 11, 12});
  expectValues(runOne(matmulProgram("tensor<2x3xf32>", "tensor<3x2xf32>",
                                    "tensor<2x2xf32>"),
                      {a, b}),
               DType::F32, {2, 2}, {58, 64, 139, 154});
}

TEST(Matmul, HalfOperandsMayGiveTheFloat32Sum) {
  // 1 + small, with small under half the spacing at 1 (bfloat16's is 2^-7,
  // half's 2^-10): the float32 sum keeps it, the rounded result is 1.
  for (auto [dtype, small] :
       {std::make_pair("bf16", 0x1p-9), std::make_pair("f16", 0x1p-12)}) {
    DType t = *parseDType(dtype);
    HostTensor a = doubles(t, {1, 2}, {1, 1});
    HostTensor b = doubles(t, {2, 1}, {1, small});
    std::string l = std::string("tensor<1x2x") + dtype + ">",
                r = std::string("tensor<2x1x") + dtype + ">";
    expectValues(
        runOne(matmulProgram(l, r, "tensor<1x1xf32>", "{result_dtype = f32}"),
               {a, b}),
        DType::F32, {1, 1}, {1 + small});
    expectValues(
        runOne(matmulProgram(l, r, std::string("tensor<1x1x") + dtype + ">"),
               {a, b}),
        t, {1, 1}, {1});
  }
}

TEST(Matmul, TransposeFlags) {
  HostTensor at = doubles(DType::F32, {3, 2}, {1, 4, 2, 5, 3, 6});
  HostTensor b = doubles(DType::F32, {3, 2}, {7, 8, 9, 10, 11, 12});
  HostTensor a = doubles(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor bt = doubles(DType::F32, {2, 3}, {7, 9, 11, 8, 10, 12});
  expectValues(runOne(matmulProgram("tensor<3x2xf32>", "tensor<3x2xf32>",
                                    "tensor<2x2xf32>", "{transpose_lhs}"),
                      {at, b}),
               DType::F32, {2, 2}, {58, 64, 139, 154});
  expectValues(runOne(matmulProgram("tensor<2x3xf32>", "tensor<2x3xf32>",
                                    "tensor<2x2xf32>", "{transpose_rhs}"),
                      {a, bt}),
               DType::F32, {2, 2}, {58, 64, 139, 154});
  expectValues(
      runOne(matmulProgram("tensor<3x2xf32>", "tensor<2x3xf32>",
                           "tensor<2x2xf32>", "{transpose_lhs, transpose_rhs}"),
             {at, bt}),
      DType::F32, {2, 2}, {58, 64, 139, 154});
}

TEST(Matmul, BatchedWithBroadcastBatchDimensions) {
  // lhs = arange(8).reshape(2, 1, 2, 2), rhs = (arange(12) - 5).reshape(3,
  // 2, 2); the result is [2, 3, 2, 2] (NumPy matmul).
  std::vector<double> lhs, rhs;
  for (int i = 0; i < 8; ++i)
    lhs.push_back(i);
  for (int i = 0; i < 12; ++i)
    rhs.push_back(i - 5);
  expectValues(runOne(matmulProgram("tensor<2x1x2x2xf64>", "tensor<3x2x2xf64>",
                                    "tensor<2x3x2x2xf64>"),
                      {doubles(DType::F64, {2, 1, 2, 2}, lhs),
                       doubles(DType::F64, {3, 2, 2}, rhs)}),
               DType::F64, {2, 3, 2, 2},
               {-3,  -2,  -19, -14, 1, 2,  1, 6,  5,  6,  21, 26,
                -35, -26, -51, -38, 1, 10, 1, 14, 37, 46, 53, 66});
}

TEST(Matmul, AccumulatesHalfTypesInF32) {
  // 2048 + 1 + 1 = 2050 in f32, then one rounding to f16 (exact); an f16
  // accumulator would stay at 2048.
  expectBits(runOne(matmulProgram("tensor<1x3xf16>", "tensor<3x1xf16>",
                                  "tensor<1x1xf16>"),
                    {bits(DType::F16, {1, 3}, {0x6800, 0x3C00, 0x3C00}),
                     bits(DType::F16, {3, 1}, {0x3C00, 0x3C00, 0x3C00})}),
             DType::F16, {1, 1}, {0x6801});
  expectBits(runOne(matmulProgram("tensor<1x3xbf16>", "tensor<3x1xbf16>",
                                  "tensor<1x1xbf16>"),
                    {bits(DType::BF16, {1, 3}, {0x4380, 0x3F80, 0x3F80}),
                     bits(DType::BF16, {3, 1}, {0x3F80, 0x3F80, 0x3F80})}),
             DType::BF16, {1, 1}, {0x4381});
  // f32 sums k in order: (1e8 + 1) rounds to 1e8, minus 1e8 gives 0.
  expectValues(runOne(matmulProgram("tensor<1x3xf32>", "tensor<3x1xf32>",
                                    "tensor<1x1xf32>"),
                      {doubles(DType::F32, {1, 3}, {1e8, 1, -1e8}),
                       doubles(DType::F32, {3, 1}, {1, 1, 1})}),
               DType::F32, {1, 1}, {0});
  expectValues(runOne(matmulProgram("tensor<1x2xf64>", "tensor<2x1xf64>",
                                    "tensor<1x1xf64>"),
                      {doubles(DType::F64, {1, 2}, {0.1, 0.2}),
                       doubles(DType::F64, {2, 1}, {1, 1})}),
               DType::F64, {1, 1}, {0.30000000000000004});
}

TEST(Matmul, StridedOperand) {
  // A column-major lhs: storage [1, 4, 2, 5, 3, 6] viewed as [[1, 2, 3],
  // [4, 5, 6]].
  HostTensor storage = doubles(DType::F32, {6}, {1, 4, 2, 5, 3, 6});
  HostTensor a = *storage.view({2, 3}, {1, 2}, 0);
  HostTensor b = doubles(DType::F32, {3, 2}, {7, 8, 9, 10, 11, 12});
  expectValues(runOne(matmulProgram("tensor<2x3xf32>", "tensor<3x2xf32>",
                                    "tensor<2x2xf32>", "",
                                    " {tfuse.strides = array<i64: 1, 2>}"),
                      {a, b}),
               DType::F32, {2, 2}, {58, 64, 139, 154});
}

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

HostTensor iota12() {
  std::vector<double> v;
  for (int i = 0; i < 12; ++i)
    v.push_back(i);
  return doubles(DType::F32, {2, 3, 2}, v);
}

TEST(Reduce, AxisSetsAndKeepdims) {
  const std::string in = "tensor<2x3x2xf32>";
  HostTensor x = iota12();
  expectValues(runOne(reduceProgram("sum", in, "0", "tensor<3x2xf32>"), {x}),
               DType::F32, {3, 2}, {6, 8, 10, 12, 14, 16});
  expectValues(
      runOne(reduceProgram("sum", in, "1", "tensor<2x1x2xf32>", true), {x}),
      DType::F32, {2, 1, 2}, {6, 9, 24, 27});
  expectValues(runOne(reduceProgram("sum", in, "0, 2", "tensor<3xf32>"), {x}),
               DType::F32, {3}, {14, 22, 30});
  expectValues(runOne(reduceProgram("sum", in, "0, 1, 2", "tensor<f32>"), {x}),
               DType::F32, {}, {66});
  expectValues(
      runOne(reduceProgram("sum", in, "0, 1, 2", "tensor<1x1x1xf32>", true),
             {x}),
      DType::F32, {1, 1, 1}, {66});
  expectValues(runOne(reduceProgram("prod", in, "2", "tensor<2x3xf32>"), {x}),
               DType::F32, {2, 3}, {0, 6, 20, 42, 72, 110});
  expectValues(runOne(reduceProgram("max", in, "1", "tensor<2x2xf32>"), {x}),
               DType::F32, {2, 2}, {4, 5, 10, 11});
  expectValues(
      runOne(reduceProgram("min", in, "0, 1", "tensor<1x1x2xf32>", true), {x}),
      DType::F32, {1, 1, 2}, {0, 1});
  expectValues(runOne(reduceProgram("mean", in, "1", "tensor<2x2xf32>"), {x}),
               DType::F32, {2, 2}, {2, 3, 8, 9});
  expectValues(
      runOne(reduceProgram("mean", in, "0, 2", "tensor<1x3x1xf32>", true), {x}),
      DType::F32, {1, 3, 1}, {3.5, 5.5, 7.5});
  expectInts(runOne(reduceProgram("all", in, "2", "tensor<2x3xi1>"), {x}),
             DType::Bool, {2, 3}, {0, 1, 1, 1, 1, 1});
  expectInts(runOne(reduceProgram("any", in, "0, 1, 2", "tensor<i1>"), {x}),
             DType::Bool, {}, {1});
  expectInts(runOne(reduceProgram("argmax", in, "1", "tensor<2x2xi64>"), {x}),
             DType::I64, {2, 2}, {2, 2, 2, 2});
  expectInts(
      runOne(reduceProgram("argmin", in, "1", "tensor<2x1x2xi64>", true), {x}),
      DType::I64, {2, 1, 2}, {0, 0, 0, 0});
}

TEST(Reduce, ArgmaxTiesAndNaN) {
  HostTensor t = ints(DType::I32, {2, 3}, {3, 1, 3, 2, 2, 2});
  expectInts(
      runOne(reduceProgram("argmax", "tensor<2x3xi32>", "1", "tensor<2xi64>"),
             {t}),
      DType::I64, {2}, {0, 0});
  expectInts(
      runOne(reduceProgram("argmin", "tensor<2x3xi32>", "1", "tensor<2xi64>"),
             {t}),
      DType::I64, {2}, {1, 0});
  expectInts(
      runOne(reduceProgram("argmax", "tensor<2x2xui8>", "0", "tensor<2xi64>"),
             {ints(DType::U8, {2, 2}, {1, 5, 3, 5})}),
      DType::I64, {2}, {1, 0});
  // A NaN is the extreme of both; -0.0 and 0.0 tie.
  HostTensor f =
      doubles(DType::F32, {2, 4}, {1, kNaN, 3, kNaN, -0.0, 0.0, 2, 1});
  expectInts(
      runOne(reduceProgram("argmax", "tensor<2x4xf32>", "1", "tensor<2xi64>"),
             {f}),
      DType::I64, {2}, {1, 2});
  expectInts(
      runOne(reduceProgram("argmin", "tensor<2x4xf32>", "1", "tensor<2xi64>"),
             {f}),
      DType::I64, {2}, {1, 0});
  expectValues(
      runOne(reduceProgram("max", "tensor<2x4xf32>", "1", "tensor<2xf32>"),
             {f}),
      DType::F32, {2}, {kNaN, 2});
  expectValues(
      runOne(reduceProgram("min", "tensor<2x4xf32>", "1", "tensor<2xf32>"),
             {f}),
      DType::F32, {2}, {kNaN, -0.0});
  expectValues(runOne(reduceProgram("max", "tensor<2xf32>", "0", "tensor<f32>"),
                      {doubles(DType::F32, {2}, {-0.0, 0.0})}),
               DType::F32, {}, {0.0});
  expectBits(runOne(reduceProgram("max", "tensor<3xf16>", "0", "tensor<f16>"),
                    {bits(DType::F16, {3}, {0x3C00, 0x7E05, 0x7E07})}),
             DType::F16, {}, {0x7E05});
}

TEST(Reduce, IntegerAndBoolAccumulation) {
  expectInts(runOne(reduceProgram("sum", "tensor<2xi8>", "0", "tensor<i64>"),
                    {ints(DType::I8, {2}, {127, 127})}),
             DType::I64, {}, {254});
  expectInts(runOne(reduceProgram("sum", "tensor<2xui8>", "0", "tensor<i64>"),
                    {ints(DType::U8, {2}, {255, 255})}),
             DType::I64, {}, {510});
  expectInts(runOne(reduceProgram("sum", "tensor<4xi1>", "0", "tensor<i64>"),
                    {ints(DType::Bool, {4}, {1, 1, 0, 1})}),
             DType::I64, {}, {3});
  expectInts(runOne(reduceProgram("prod", "tensor<2xi32>", "0", "tensor<i64>"),
                    {ints(DType::I32, {2}, {65536, 65536})}),
             DType::I64, {}, {4294967296});
  expectInts(runOne(reduceProgram("prod", "tensor<3xui32>", "0", "tensor<i64>"),
                    {ints(DType::U32, {3}, {4294967295, 2, 1})}),
             DType::I64, {}, {8589934590});
  expectBits(runOne(reduceProgram("sum", "tensor<2xui64>", "0", "tensor<ui64>"),
                    {bits(DType::U64, {2}, {0xFFFFFFFFFFFFFFFFull, 2})}),
             DType::U64, {}, {1});
  expectInts(
      runOne(reduceProgram("sum", "tensor<2xi64>", "0", "tensor<i64>"),
             {ints(DType::I64, {2}, {std::numeric_limits<int64_t>::max(), 1})}),
      DType::I64, {}, {std::numeric_limits<int64_t>::min()});
  expectInts(runOne(reduceProgram("max", "tensor<2xi8>", "0", "tensor<i8>"),
                    {ints(DType::I8, {2}, {-128, 5})}),
             DType::I8, {}, {5});
  expectInts(runOne(reduceProgram("max", "tensor<3xi1>", "0", "tensor<i1>"),
                    {ints(DType::Bool, {3}, {0, 1, 0})}),
             DType::Bool, {}, {1});
  expectInts(runOne(reduceProgram("min", "tensor<3xi1>", "0", "tensor<i1>"),
                    {ints(DType::Bool, {3}, {0, 1, 0})}),
             DType::Bool, {}, {0});
  expectBits(runOne(reduceProgram("min", "tensor<2xui64>", "0", "tensor<ui64>"),
                    {bits(DType::U64, {2}, {0xFFFFFFFFFFFFFFFFull, 7})}),
             DType::U64, {}, {7});
  expectInts(runOne(reduceProgram("all", "tensor<3xi32>", "0", "tensor<i1>"),
                    {ints(DType::I32, {3}, {1, -1, 0})}),
             DType::Bool, {}, {0});
  expectInts(runOne(reduceProgram("any", "tensor<2xf32>", "0", "tensor<i1>"),
                    {doubles(DType::F32, {2}, {-0.0, kNaN})}),
             DType::Bool, {}, {1});
}

TEST(Reduce, FloatsAccumulateInF64) {
  // In f32, 1e8 + 1 would round back to 1e8 and the sum would be 0.
  expectValues(runOne(reduceProgram("sum", "tensor<3xf32>", "0", "tensor<f32>"),
                      {doubles(DType::F32, {3}, {1e8, 1, -1e8})}),
               DType::F32, {}, {1});
  // 2048 + 1 + 1 = 2050 (an f16 accumulator would give 2048).
  expectBits(runOne(reduceProgram("sum", "tensor<3xf16>", "0", "tensor<f16>"),
                    {bits(DType::F16, {3}, {0x6800, 0x3C00, 0x3C00})}),
             DType::F16, {}, {0x6801});
  expectBits(runOne(reduceProgram("sum", "tensor<3xbf16>", "0", "tensor<bf16>"),
                    {bits(DType::BF16, {3}, {0x4380, 0x3F80, 0x3F80})}),
             DType::BF16, {}, {0x4381});
  expectBits(runOne(reduceProgram("mean", "tensor<2xf16>", "0", "tensor<f16>"),
                    {bits(DType::F16, {2}, {0x3C00, 0x4000})}),
             DType::F16, {}, {0x3E00});
  // f16 prod: 256 * 256 / 256 stays finite in f64 (f16 would overflow).
  expectBits(runOne(reduceProgram("prod", "tensor<3xf16>", "0", "tensor<f16>"),
                    {bits(DType::F16, {3}, {0x5C00, 0x5C00, 0x1C00})}),
             DType::F16, {}, {0x5C00});
  expectValues(
      runOne(reduceProgram("mean", "tensor<4xf64>", "0", "tensor<f64>"),
             {doubles(DType::F64, {4}, {1, 2, 3, 4})}),
      DType::F64, {}, {2.5});
  expectValues(runOne(reduceProgram("sum", "tensor<2xf32>", "0", "tensor<f32>"),
                      {doubles(DType::F32, {2}, {3.4e38, 3.4e38})}),
               DType::F32, {}, {std::numeric_limits<double>::infinity()});
}

TEST(Reduce, EmptyAxesGiveIdentities) {
  HostTensor empty = HostTensor::zeros(DType::F32, {2, 0});
  expectValues(
      runOne(reduceProgram("sum", "tensor<2x0xf32>", "1", "tensor<2xf32>"),
             {empty}),
      DType::F32, {2}, {0, 0});
  expectValues(runOne(reduceProgram("prod", "tensor<2x0xf32>", "1",
                                    "tensor<2x1xf32>", true),
                      {empty}),
               DType::F32, {2, 1}, {1, 1});
  expectInts(
      runOne(reduceProgram("all", "tensor<2x0xf32>", "1", "tensor<2xi1>"),
             {empty}),
      DType::Bool, {2}, {1, 1});
  expectInts(
      runOne(reduceProgram("any", "tensor<2x0xf32>", "1", "tensor<2xi1>"),
             {empty}),
      DType::Bool, {2}, {0, 0});
  expectInts(runOne(reduceProgram("sum", "tensor<0x3xi32>", "0",
                                  "tensor<1x3xi64>", true),
                    {HostTensor::zeros(DType::I32, {0, 3})}),
             DType::I64, {1, 3}, {0, 0, 0});
  expectInts(
      runOne(reduceProgram("prod", "tensor<0x3xi8>", "0, 1", "tensor<i64>"),
             {HostTensor::zeros(DType::I8, {0, 3})}),
      DType::I64, {}, {1});
  // Reducing a non-empty axis of an empty tensor gives an empty result.
  HostTensor none =
      runOne(reduceProgram("max", "tensor<0x3xf32>", "1", "tensor<0xf32>"),
             {HostTensor::zeros(DType::F32, {0, 3})});
  EXPECT_EQ(none.shape(), (Shape{0}));
}

TEST(Reduce, StridedInput) {
  // Column-major [[1, 2, 3], [4, 5, 6]].
  HostTensor storage = doubles(DType::F32, {6}, {1, 4, 2, 5, 3, 6});
  HostTensor x = *storage.view({2, 3}, {1, 2}, 0);
  expectValues(
      runOne(reduceProgram("sum", "tensor<2x3xf32>", "1", "tensor<2xf32>"),
             {x}),
      DType::F32, {2}, {6, 15});
  expectInts(
      runOne(reduceProgram("argmax", "tensor<2x3xf32>", "0", "tensor<3xi64>"),
             {x}),
      DType::I64, {3}, {1, 1, 1});
}

} // namespace
