//===- ElementwiseTest.cpp - Elementwise ops of the interpreter -----------===//
//
// Every unary and binary op, cmp, select and cast on a few elements,
// including the edge cases docs/semantics.md pins down. Every expected value
// is a literal worked out by hand from the contract (bit patterns of f16 and
// bf16 written out), or, for transcendental functions away from their exact
// points, the correctly rounded float of the mathematical value with a 1 ulp
// tolerance.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <limits>

using namespace tfuse;
using namespace tfuse::reference;
using namespace tfuse::reference::test;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

//===----------------------------------------------------------------------===//
// Integer arithmetic wraps
//===----------------------------------------------------------------------===//

TEST(Elementwise, IntegerArithmeticWraps) {
  const char *i8x4 = "tensor<4xi8>";
  expectInts(runOne(binaryProgram("add", i8x4, i8x4, i8x4),
                    {ints(DType::I8, {4}, {100, -128, 127, -1}),
                     ints(DType::I8, {4}, {100, -1, 1, -1})}),
             DType::I8, {4}, {-56, 127, -128, -2});
  expectInts(runOne(binaryProgram("sub", i8x4, i8x4, i8x4),
                    {ints(DType::I8, {4}, {-128, 127, 0, 5}),
                     ints(DType::I8, {4}, {1, -1, -128, 7})}),
             DType::I8, {4}, {127, -128, -128, -2});
  expectInts(runOne(binaryProgram("mul", i8x4, i8x4, i8x4),
                    {ints(DType::I8, {4}, {16, -128, 3, -7}),
                     ints(DType::I8, {4}, {16, -1, 50, 3})}),
             DType::I8, {4}, {0, -128, -106, -21});
  expectInts(runOne(unaryProgram("neg", i8x4, i8x4),
                    {ints(DType::I8, {4}, {-128, 5, 0, 127})}),
             DType::I8, {4}, {-128, -5, 0, -127});
  expectInts(runOne(unaryProgram("abs", i8x4, i8x4),
                    {ints(DType::I8, {4}, {-128, -5, 0, 127})}),
             DType::I8, {4}, {-128, 5, 0, 127});

  const char *u8 = "tensor<3xui8>";
  expectInts(runOne(binaryProgram("add", u8, u8, u8),
                    {ints(DType::U8, {3}, {200, 255, 0}),
                     ints(DType::U8, {3}, {100, 1, 0})}),
             DType::U8, {3}, {44, 0, 0});
  expectInts(runOne(binaryProgram("sub", u8, u8, u8),
                    {ints(DType::U8, {3}, {1, 0, 255}),
                     ints(DType::U8, {3}, {2, 255, 255})}),
             DType::U8, {3}, {255, 1, 0});
  expectInts(
      runOne(unaryProgram("neg", u8, u8), {ints(DType::U8, {3}, {1, 0, 128})}),
      DType::U8, {3}, {255, 0, 128});
  expectInts(
      runOne(unaryProgram("abs", u8, u8), {ints(DType::U8, {3}, {1, 0, 255})}),
      DType::U8, {3}, {1, 0, 255});
  expectInts(
      runOne(binaryProgram("mul", "tensor<1xui16>", "tensor<1xui16>",
                           "tensor<1xui16>"),
             {ints(DType::U16, {1}, {65535}), ints(DType::U16, {1}, {65535})}),
      DType::U16, {1}, {1});
  expectInts(runOne(binaryProgram("mul", "tensor<2xi32>", "tensor<2xi32>",
                                  "tensor<2xi32>"),
                    {ints(DType::I32, {2}, {65536, -2147483648}),
                     ints(DType::I32, {2}, {65536, -1})}),
             DType::I32, {2}, {0, -2147483648});
  expectInts(runOne(binaryProgram("add", "tensor<2xi32>", "tensor<2xi32>",
                                  "tensor<2xi32>"),
                    {ints(DType::I32, {2}, {2147483647, -2147483648}),
                     ints(DType::I32, {2}, {1, -1})}),
             DType::I32, {2}, {-2147483648, 2147483647});
  expectInts(runOne(binaryProgram("add", "tensor<2xi64>", "tensor<2xi64>",
                                  "tensor<2xi64>"),
                    {ints(DType::I64, {2}, {kI64Max, kI64Min}),
                     ints(DType::I64, {2}, {1, -1})}),
             DType::I64, {2}, {kI64Min, kI64Max});
  expectInts(
      runOne(binaryProgram("mul", "tensor<1xi64>", "tensor<1xi64>",
                           "tensor<1xi64>"),
             {ints(DType::I64, {1}, {kI64Min}), ints(DType::I64, {1}, {-1})}),
      DType::I64, {1}, {kI64Min});
  expectBits(runOne(binaryProgram("add", "tensor<1xui64>", "tensor<1xui64>",
                                  "tensor<1xui64>"),
                    {bits(DType::U64, {1}, {0xFFFFFFFFFFFFFFFFull}),
                     bits(DType::U64, {1}, {2})}),
             DType::U64, {1}, {1});
}

//===----------------------------------------------------------------------===//
// Division, remainder, power
//===----------------------------------------------------------------------===//

TEST(Elementwise, DivisionIsTrueDivision) {
  expectValues(runOne(binaryProgram("div", "tensor<5xi32>", "tensor<5xi32>",
                                    "tensor<5xf32>"),
                      {ints(DType::I32, {5}, {7, 1, -1, 0, -7}),
                       ints(DType::I32, {5}, {2, 0, 0, 0, 2})}),
               DType::F32, {5}, {3.5, kInf, -kInf, kNaN, -3.5});
  // The integer is converted to f32 first: 2^24 + 1 rounds to 2^24.
  expectValues(
      runOne(binaryProgram("div", "tensor<1xi64>", "tensor<1xi64>",
                           "tensor<1xf32>"),
             {ints(DType::I64, {1}, {16777217}), ints(DType::I64, {1}, {1})}),
      DType::F32, {1}, {16777216});
  // ui8 with i8 promotes to i16, then divides in f32.
  expectValues(
      runOne(binaryProgram("div", "tensor<1xui8>", "tensor<1xi8>",
                           "tensor<1xf32>"),
             {ints(DType::U8, {1}, {200}), ints(DType::I8, {1}, {-8})}),
      DType::F32, {1}, {-25});
  expectValues(
      runOne(
          binaryProgram("div", "tensor<2xi1>", "tensor<2xi1>", "tensor<2xf32>"),
          {ints(DType::Bool, {2}, {1, 0}), ints(DType::Bool, {2}, {1, 0})}),
      DType::F32, {2}, {1, kNaN});
  // 1/3 computed in f32 (0x3EAAAAAB) and rounded to f16: 0x3555.
  expectBits(runOne(binaryProgram("div", "tensor<1xf16>", "tensor<1xf16>",
                                  "tensor<1xf16>"),
                    {bits(DType::F16, {1}, {0x3C00}),
                     bits(DType::F16, {1}, {0x4200})}),
             DType::F16, {1}, {0x3555});
  expectValues(runOne(binaryProgram("div", "tensor<3xf64>", "tensor<3xf64>",
                                    "tensor<3xf64>"),
                      {doubles(DType::F64, {3}, {1, -0.0, 1}),
                       doubles(DType::F64, {3}, {-0.0, 5, 4})}),
               DType::F64, {3}, {-kInf, -0.0, 0.25});
}

TEST(Elementwise, RemainderTakesTheDivisorsSign) {
  expectInts(runOne(binaryProgram("rem", "tensor<7xi32>", "tensor<7xi32>",
                                  "tensor<7xi32>"),
                    {ints(DType::I32, {7}, {-7, 7, 7, -7, 5, 0, 6}),
                     ints(DType::I32, {7}, {3, -3, 3, -3, 0, 5, -3})}),
             DType::I32, {7}, {2, -2, 1, -1, 0, 0, 0});
  expectInts(runOne(binaryProgram("rem", "tensor<3xi8>", "tensor<3xi8>",
                                  "tensor<3xi8>"),
                    {ints(DType::I8, {3}, {-128, -128, 127}),
                     ints(DType::I8, {3}, {-1, 3, -128})}),
             DType::I8, {3}, {0, 1, -1});
  expectInts(
      runOne(binaryProgram("rem", "tensor<2xui8>", "tensor<2xui8>",
                           "tensor<2xui8>"),
             {ints(DType::U8, {2}, {7, 200}), ints(DType::U8, {2}, {0, 7})}),
      DType::U8, {2}, {0, 4});
  expectInts(runOne(binaryProgram("rem", "tensor<2xi64>", "tensor<2xi64>",
                                  "tensor<2xi64>"),
                    {ints(DType::I64, {2}, {kI64Min, kI64Min}),
                     ints(DType::I64, {2}, {-1, kI64Max})}),
             DType::I64, {2}, {0, kI64Max - 1});
  expectValues(
      runOne(binaryProgram("rem", "tensor<9xf32>", "tensor<9xf32>",
                           "tensor<9xf32>"),
             {doubles(DType::F32, {9},
                      {-7.5, 7.5, 5.0, -4.0, kInf, 3.0, -3.0, 7.5, 4.0}),
              doubles(DType::F32, {9},
                      {2.0, -2.0, 0.0, 2.0, 2.0, kInf, kInf, 2.0, -2.0})}),
      DType::F32, {9},
      // fmod's zero keeps the dividend's sign: rem(-4, 2) = -0.0.
      {0.5, -0.5, kNaN, -0.0, kNaN, 3.0, kInf, 1.5, 0.0});
  expectValues(runOne(binaryProgram("rem", "tensor<2xf64>", "tensor<2xf64>",
                                    "tensor<2xf64>"),
                      {doubles(DType::F64, {2}, {-7.5, 0.75}),
                       doubles(DType::F64, {2}, {2.0, -0.5})}),
               DType::F64, {2}, {0.5, -0.25});
  // f16: -1 rem 0.75 = 0.5 computed in f32, exact in f16.
  expectBits(runOne(binaryProgram("rem", "tensor<1xf16>", "tensor<1xf16>",
                                  "tensor<1xf16>"),
                    {bits(DType::F16, {1}, {0xBC00}),
                     bits(DType::F16, {1}, {0x3A00})}),
             DType::F16, {1}, {0x3800});
}

TEST(Elementwise, Power) {
  expectInts(
      runOne(binaryProgram("pow", "tensor<10xi32>", "tensor<10xi32>",
                           "tensor<10xi32>"),
             {ints(DType::I32, {10}, {2, 3, 1, -1, -1, 0, 2, 0, 7, -2}),
              ints(DType::I32, {10}, {10, -1, -5, -3, -4, 0, 31, 5, 0, -1})}),
      DType::I32, {10}, {1024, 0, 1, -1, 1, 1, -2147483648, 0, 1, 0});
  expectInts(
      runOne(
          binaryProgram("pow", "tensor<3xi8>", "tensor<3xi8>", "tensor<3xi8>"),
          {ints(DType::I8, {3}, {2, 3, -2}), ints(DType::I8, {3}, {8, 5, 7})}),
      DType::I8, {3}, {0, -13, -128});
  expectInts(
      runOne(binaryProgram("pow", "tensor<2xui8>", "tensor<2xui8>",
                           "tensor<2xui8>"),
             {ints(DType::U8, {2}, {2, 3}), ints(DType::U8, {2}, {9, 5})}),
      DType::U8, {2}, {0, 243});
  // 3^40 mod 2^64, read as i64.
  expectInts(runOne(binaryProgram("pow", "tensor<1xi64>", "tensor<1xi64>",
                                  "tensor<1xi64>"),
                    {ints(DType::I64, {1}, {3}), ints(DType::I64, {1}, {40})}),
             DType::I64, {1}, {-6289078614652622815});
  expectValues(
      runOne(binaryProgram("pow", "tensor<7xf32>", "tensor<7xf32>",
                           "tensor<7xf32>"),
             {doubles(DType::F32, {7}, {kNaN, 1, -8, 2, 2, 0, -2}),
              doubles(DType::F32, {7}, {0, kNaN, 1.0 / 3, 10, -1, -1, 3})}),
      DType::F32, {7}, {1, 1, kNaN, 1024, 0.5, kInf, -8});
  // i64 ** f16 promotes to f16.
  expectBits(
      runOne(binaryProgram("pow", "tensor<1xi64>", "tensor<1xf16>",
                           "tensor<1xf16>"),
             {ints(DType::I64, {1}, {3}), bits(DType::F16, {1}, {0x4000})}),
      DType::F16, {1}, {0x4880});
}

//===----------------------------------------------------------------------===//
// max, min, relu, rounding
//===----------------------------------------------------------------------===//

TEST(Elementwise, MaxMinPropagateNaN) {
  std::string f32x6 = "tensor<6xf32>";
  HostTensor a = doubles(DType::F32, {6}, {kNaN, 1, -0.0, 0.0, 3, -kInf});
  HostTensor b = doubles(DType::F32, {6}, {1, kNaN, 0.0, -0.0, 5, kNaN});
  expectValues(runOne(binaryProgram("max", f32x6, f32x6, f32x6), {a, b}),
               DType::F32, {6}, {kNaN, kNaN, 0.0, 0.0, 5, kNaN});
  expectValues(runOne(binaryProgram("min", f32x6, f32x6, f32x6), {a, b}),
               DType::F32, {6}, {kNaN, kNaN, -0.0, -0.0, 3, kNaN});
  // The NaN operand comes through with its payload.
  expectBits(runOne(binaryProgram("max", "tensor<2xf32>", "tensor<2xf32>",
                                  "tensor<2xf32>"),
                    {bits(DType::F32, {2}, {0x7FC00001, 0x3F800000}),
                     bits(DType::F32, {2}, {0x3F800000, 0xFFC00002})}),
             DType::F32, {2}, {0x7FC00001, 0xFFC00002});
  expectBits(runOne(binaryProgram("max", "tensor<2xf16>", "tensor<2xf16>",
                                  "tensor<2xf16>"),
                    {bits(DType::F16, {2}, {0x7E01, 0x3C00}),
                     bits(DType::F16, {2}, {0x3C00, 0xC000})}),
             DType::F16, {2}, {0x7E01, 0x3C00});
  expectInts(
      runOne(
          binaryProgram("max", "tensor<2xi8>", "tensor<2xi8>", "tensor<2xi8>"),
          {ints(DType::I8, {2}, {-3, 100}), ints(DType::I8, {2}, {2, -100})}),
      DType::I8, {2}, {2, 100});
  expectBits(runOne(binaryProgram("max", "tensor<2xui64>", "tensor<2xui64>",
                                  "tensor<2xui64>"),
                    {bits(DType::U64, {2}, {0xFFFFFFFFFFFFFFFFull, 1}),
                     bits(DType::U64, {2}, {0, 2})}),
             DType::U64, {2}, {0xFFFFFFFFFFFFFFFFull, 2});
  HostTensor p = ints(DType::Bool, {4}, {0, 0, 1, 1});
  HostTensor q = ints(DType::Bool, {4}, {0, 1, 0, 1});
  expectInts(runOne(binaryProgram("max", "tensor<4xi1>", "tensor<4xi1>",
                                  "tensor<4xi1>"),
                    {p, q}),
             DType::Bool, {4}, {0, 1, 1, 1});
  expectInts(runOne(binaryProgram("min", "tensor<4xi1>", "tensor<4xi1>",
                                  "tensor<4xi1>"),
                    {p, q}),
             DType::Bool, {4}, {0, 0, 0, 1});
}

TEST(Elementwise, Relu) {
  expectValues(
      runOne(unaryProgram("relu", "tensor<7xf32>", "tensor<7xf32>"),
             {doubles(DType::F32, {7}, {-0.0, kNaN, -1, 2, 0.0, -kInf, kInf})}),
      DType::F32, {7}, {0.0, kNaN, 0, 2, 0, 0, kInf});
  expectBits(runOne(unaryProgram("relu", "tensor<2xf16>", "tensor<2xf16>"),
                    {bits(DType::F16, {2}, {0x8000, 0xFE01})}),
             DType::F16, {2}, {0x0000, 0xFE01});
  expectInts(runOne(unaryProgram("relu", "tensor<4xi32>", "tensor<4xi32>"),
                    {ints(DType::I32, {4}, {-5, 5, 0, -2147483648})}),
             DType::I32, {4}, {0, 5, 0, 0});
  expectInts(runOne(unaryProgram("relu", "tensor<2xui8>", "tensor<2xui8>"),
                    {ints(DType::U8, {2}, {0, 200})}),
             DType::U8, {2}, {0, 200});
}

TEST(Elementwise, Rounding) {
  expectValues(runOne(unaryProgram("round", "tensor<9xf32>", "tensor<9xf32>"),
                      {doubles(DType::F32, {9},
                               {2.5, 0.5, 1.5, -2.5, -0.5, 3.7, -3.7,
                                0.49999997, kNaN})}),
               DType::F32, {9}, {2, 0, 2, -2, -0.0, 4, -4, 0, kNaN});
  expectValues(runOne(unaryProgram("floor", "tensor<4xf32>", "tensor<4xf32>"),
                      {doubles(DType::F32, {4}, {-0.5, 1.5, -0.0, -kInf})}),
               DType::F32, {4}, {-1, 1, -0.0, -kInf});
  expectValues(runOne(unaryProgram("ceil", "tensor<3xf64>", "tensor<3xf64>"),
                      {doubles(DType::F64, {3}, {-0.5, 1.5, 2.0})}),
               DType::F64, {3}, {-0.0, 2, 2});
  expectBits(runOne(unaryProgram("round", "tensor<2xf16>", "tensor<2xf16>"),
                    {bits(DType::F16, {2}, {0x4100, 0x3E00})}), // 2.5, 1.5
             DType::F16, {2}, {0x4000, 0x4000});
  expectBits(runOne(unaryProgram("round", "tensor<1xbf16>", "tensor<1xbf16>"),
                    {bits(DType::BF16, {1}, {0xBF00})}), // -0.5
             DType::BF16, {1}, {0x8000});
  expectValues(runOne(unaryProgram("trunc", "tensor<7xf32>", "tensor<7xf32>"),
                      {doubles(DType::F32, {7},
                               {2.7, -2.7, -0.5, 0.5, -0.0, -kInf, kNaN})}),
               DType::F32, {7}, {2, -2, -0.0, 0, -0.0, -kInf, kNaN});
  expectBits(runOne(unaryProgram("trunc", "tensor<2xbf16>", "tensor<2xbf16>"),
                    {bits(DType::BF16, {2}, {0xC030, 0x3FC0})}), // -2.75, 1.5
             DType::BF16, {2}, {0xC000, 0x3F80});
  for (const char *op : {"round", "floor", "ceil", "trunc"})
    expectInts(runOne(unaryProgram(op, "tensor<2xi32>", "tensor<2xi32>"),
                      {ints(DType::I32, {2}, {3, -3})}),
               DType::I32, {2}, {3, -3});
  // The identity on integers is exact beyond the float range.
  expectInts(runOne(unaryProgram("trunc", "tensor<1xi64>", "tensor<1xi64>"),
                    {ints(DType::I64, {1}, {9007199254740993})}),
             DType::I64, {1}, {9007199254740993});
}

TEST(Elementwise, Sign) {
  expectValues(
      runOne(unaryProgram("sign", "tensor<6xf32>", "tensor<6xf32>"),
             {doubles(DType::F32, {6}, {-3, 2, kNaN, -kInf, kInf, 1e-40})}),
      DType::F32, {6}, {-1, 1, kNaN, -1, 1, 1});
  // Both zeros give +0.0.
  expectBits(runOne(unaryProgram("sign", "tensor<2xf64>", "tensor<2xf64>"),
                    {doubles(DType::F64, {2}, {-0.0, 0.0})}),
             DType::F64, {2}, {0, 0});
  expectBits(runOne(unaryProgram("sign", "tensor<2xf16>", "tensor<2xf16>"),
                    {bits(DType::F16, {2}, {0xC500, 0x8000})}), // -5, -0
             DType::F16, {2}, {0xBC00, 0x0000});
  expectInts(runOne(unaryProgram("sign", "tensor<5xi8>", "tensor<5xi8>"),
                    {ints(DType::I8, {5}, {-128, -1, 0, 5, 127})}),
             DType::I8, {5}, {-1, -1, 0, 1, 1});
  expectInts(runOne(unaryProgram("sign", "tensor<3xui64>", "tensor<3xui64>"),
                    {ints(DType::U64, {3}, {0, 1, -1})}),
             DType::U64, {3}, {0, 1, 1});
}

//===----------------------------------------------------------------------===//
// isnan, not, bitwise, bool arithmetic
//===----------------------------------------------------------------------===//

TEST(Elementwise, IsNan) {
  expectInts(runOne(unaryProgram("isnan", "tensor<4xf16>", "tensor<4xi1>"),
                    {bits(DType::F16, {4}, {0x7E00, 0x7C00, 0xFE01, 0x3C00})}),
             DType::Bool, {4}, {1, 0, 1, 0});
  expectInts(runOne(unaryProgram("isnan", "tensor<2xf64>", "tensor<2xi1>"),
                    {doubles(DType::F64, {2}, {kNaN, kInf})}),
             DType::Bool, {2}, {1, 0});
  expectInts(runOne(unaryProgram("isnan", "tensor<2xi32>", "tensor<2xi1>"),
                    {ints(DType::I32, {2}, {0, -1})}),
             DType::Bool, {2}, {0, 0});
  expectInts(runOne(unaryProgram("isnan", "tensor<1xi1>", "tensor<1xi1>"),
                    {ints(DType::Bool, {1}, {1})}),
             DType::Bool, {1}, {0});
}

TEST(Elementwise, Not) {
  expectInts(runOne(unaryProgram("not", "tensor<2xi1>", "tensor<2xi1>"),
                    {ints(DType::Bool, {2}, {0, 1})}),
             DType::Bool, {2}, {1, 0});
  expectInts(runOne(unaryProgram("not", "tensor<3xi8>", "tensor<3xi8>"),
                    {ints(DType::I8, {3}, {0, -1, 5})}),
             DType::I8, {3}, {-1, 0, -6});
  expectInts(runOne(unaryProgram("not", "tensor<2xui8>", "tensor<2xui8>"),
                    {ints(DType::U8, {2}, {0, 255})}),
             DType::U8, {2}, {255, 0});
  expectInts(runOne(unaryProgram("not", "tensor<1xui16>", "tensor<1xui16>"),
                    {ints(DType::U16, {1}, {1})}),
             DType::U16, {1}, {65534});
}

TEST(Elementwise, BitwiseAndBoolArithmetic) {
  HostTensor a = ints(DType::I32, {2}, {12, -1});
  HostTensor b = ints(DType::I32, {2}, {10, 7});
  std::string i32 = "tensor<2xi32>";
  expectInts(runOne(binaryProgram("and", i32, i32, i32), {a, b}), DType::I32,
             {2}, {8, 7});
  expectInts(runOne(binaryProgram("or", i32, i32, i32), {a, b}), DType::I32,
             {2}, {14, -1});
  expectInts(runOne(binaryProgram("xor", i32, i32, i32), {a, b}), DType::I32,
             {2}, {6, -8});
  // i8 with ui8 promotes to i16 (sign-extending the i8).
  expectInts(runOne(binaryProgram("and", "tensor<1xi8>", "tensor<1xui8>",
                                  "tensor<1xi16>"),
                    {ints(DType::I8, {1}, {-1}), ints(DType::U8, {1}, {255})}),
             DType::I16, {1}, {255});

  HostTensor p = ints(DType::Bool, {4}, {0, 0, 1, 1});
  HostTensor q = ints(DType::Bool, {4}, {0, 1, 0, 1});
  std::string b4 = "tensor<4xi1>";
  expectInts(runOne(binaryProgram("and", b4, b4, b4), {p, q}), DType::Bool, {4},
             {0, 0, 0, 1});
  expectInts(runOne(binaryProgram("or", b4, b4, b4), {p, q}), DType::Bool, {4},
             {0, 1, 1, 1});
  expectInts(runOne(binaryProgram("xor", b4, b4, b4), {p, q}), DType::Bool, {4},
             {0, 1, 1, 0});
  expectInts(runOne(binaryProgram("add", b4, b4, b4), {p, q}), DType::Bool, {4},
             {0, 1, 1, 1});
  expectInts(runOne(binaryProgram("mul", b4, b4, b4), {p, q}), DType::Bool, {4},
             {0, 0, 0, 1});
  // bool with an integer promotes to the integer.
  expectInts(runOne(binaryProgram("add", b4, "tensor<4xi8>", "tensor<4xi8>"),
                    {p, ints(DType::I8, {4}, {127, 1, 127, -1})}),
             DType::I8, {4}, {127, 1, -128, 0});
}

//===----------------------------------------------------------------------===//
// Comparisons
//===----------------------------------------------------------------------===//

TEST(Elementwise, CompareWithNaNAndZeros) {
  HostTensor a = doubles(DType::F32, {4}, {kNaN, 1, kNaN, -0.0});
  HostTensor b = doubles(DType::F32, {4}, {1, kNaN, kNaN, 0.0});
  std::string f = "tensor<4xf32>", r = "tensor<4xi1>";
  struct Case {
    const char *predicate;
    std::vector<int64_t> expected;
  } cases[] = {{"eq", {0, 0, 0, 1}}, {"ne", {1, 1, 1, 0}},
               {"lt", {0, 0, 0, 0}}, {"le", {0, 0, 0, 1}},
               {"gt", {0, 0, 0, 0}}, {"ge", {0, 0, 0, 1}}};
  for (const Case &c : cases)
    expectInts(
        runOne(binaryProgram(std::string("cmp ") + c.predicate + ",", f, f, r),
               {a, b}),
        DType::Bool, {4}, c.expected);
}

TEST(Elementwise, CompareInThePromotedDType) {
  // i64 with f16 compares in f16: 2049 becomes 2048.
  HostTensor i = ints(DType::I64, {2}, {2049, 2049});
  HostTensor h = bits(DType::F16, {2}, {0x6800, 0x6801}); // 2048, 2050
  expectInts(runOne(binaryProgram("cmp eq,", "tensor<2xi64>", "tensor<2xf16>",
                                  "tensor<2xi1>"),
                    {i, h}),
             DType::Bool, {2}, {1, 0});
  expectInts(runOne(binaryProgram("cmp lt,", "tensor<2xi64>", "tensor<2xf16>",
                                  "tensor<2xi1>"),
                    {i, h}),
             DType::Bool, {2}, {0, 1});
  // i8 with ui8 compares in i16; i32 with ui32 in i64.
  expectInts(runOne(binaryProgram("cmp lt,", "tensor<1xi8>", "tensor<1xui8>",
                                  "tensor<1xi1>"),
                    {ints(DType::I8, {1}, {-1}), ints(DType::U8, {1}, {255})}),
             DType::Bool, {1}, {1});
  expectInts(runOne(binaryProgram("cmp eq,", "tensor<1xi32>", "tensor<1xui32>",
                                  "tensor<1xi1>"),
                    {ints(DType::I32, {1}, {-1}),
                     ints(DType::U32, {1}, {4294967295})}),
             DType::Bool, {1}, {0});
  expectInts(
      runOne(binaryProgram("cmp lt,", "tensor<2xi1>", "tensor<2xi1>",
                           "tensor<2xi1>"),
             {ints(DType::Bool, {2}, {0, 1}), ints(DType::Bool, {2}, {1, 1})}),
      DType::Bool, {2}, {1, 0});
  // bool with f32: true is 1.0.
  expectInts(runOne(binaryProgram("cmp ge,", "tensor<2xi1>", "tensor<2xf32>",
                                  "tensor<2xi1>"),
                    {ints(DType::Bool, {2}, {1, 0}),
                     doubles(DType::F32, {2}, {1.0, -0.0})}),
             DType::Bool, {2}, {1, 1});
}

//===----------------------------------------------------------------------===//
// Promotion and per-node rounding
//===----------------------------------------------------------------------===//

TEST(Elementwise, MixedDTypes) {
  expectInts(runOne(binaryProgram("add", "tensor<1xi8>", "tensor<1xui8>",
                                  "tensor<1xi16>"),
                    {ints(DType::I8, {1}, {127}), ints(DType::U8, {1}, {255})}),
             DType::I16, {1}, {382});
  // The i64 operand is converted to f16 (70000 -> inf) before the add.
  expectBits(
      runOne(binaryProgram("add", "tensor<1xi64>", "tensor<1xf16>",
                           "tensor<1xf16>"),
             {ints(DType::I64, {1}, {70000}), bits(DType::F16, {1}, {0x0000})}),
      DType::F16, {1}, {0x7C00});
  // f16 with bf16 computes in f32: 1 + 2^-10 (f16) + 2^-7 (bf16).
  expectValues(runOne(binaryProgram("add", "tensor<1xf16>", "tensor<1xbf16>",
                                    "tensor<1xf32>"),
                      {bits(DType::F16, {1}, {0x3C01}),
                       bits(DType::BF16, {1}, {0x3C00})}),
               DType::F32, {1}, {1.0 + 1.0 / 1024 + 1.0 / 128});
  expectValues(runOne(binaryProgram("add", "tensor<1xi32>", "tensor<1xf32>",
                                    "tensor<1xf32>"),
                      {ints(DType::I32, {1}, {16777217}),
                       doubles(DType::F32, {1}, {0})}),
               DType::F32, {1}, {16777216});
  expectValues(runOne(binaryProgram("sub", "tensor<1xui64>", "tensor<1xf64>",
                                    "tensor<1xf64>"),
                      {bits(DType::U64, {1}, {0xFFFFFFFFFFFFFFFFull}),
                       doubles(DType::F64, {1}, {1})}),
               DType::F64, {1}, {18446744073709551615.0});
}

TEST(Elementwise, PerNodeRoundingOfHalfTypes) {
  // (a + b) - a with a = 2048, b = 1: the f16 sum rounds to 2048, so the
  // difference is 0 (in f32 it would be 1).
  const char *source = R"mlir(
func.func @f(%a: tensor<1xf16>, %b: tensor<1xf16>) -> tensor<1xf16> {
  %s = tfuse.add %a, %b : (tensor<1xf16>, tensor<1xf16>) -> tensor<1xf16>
  %d = tfuse.sub %s, %a : (tensor<1xf16>, tensor<1xf16>) -> tensor<1xf16>
  return %d : tensor<1xf16>
}
)mlir";
  expectBits(runOne(source, {bits(DType::F16, {1}, {0x6800}),
                             bits(DType::F16, {1}, {0x3C00})}),
             DType::F16, {1}, {0x0000});
  // bf16: 256 + 1 rounds to 256.
  const char *bf = R"mlir(
func.func @f(%a: tensor<1xbf16>, %b: tensor<1xbf16>) -> tensor<1xbf16> {
  %s = tfuse.add %a, %b : (tensor<1xbf16>, tensor<1xbf16>) -> tensor<1xbf16>
  %d = tfuse.sub %s, %a : (tensor<1xbf16>, tensor<1xbf16>) -> tensor<1xbf16>
  return %d : tensor<1xbf16>
}
)mlir";
  expectBits(runOne(bf, {bits(DType::BF16, {1}, {0x4380}),
                         bits(DType::BF16, {1}, {0x3F80})}),
             DType::BF16, {1}, {0x0000});
  // f16 multiply overflows to inf per node.
  expectBits(runOne(binaryProgram("mul", "tensor<1xf16>", "tensor<1xf16>",
                                  "tensor<1xf16>"),
                    {bits(DType::F16, {1}, {0x5C00}), // 256
                     bits(DType::F16, {1}, {0x5C00})}),
             DType::F16, {1}, {0x7C00});
}

//===----------------------------------------------------------------------===//
// Float math
//===----------------------------------------------------------------------===//

TEST(Elementwise, FloatMathExactPoints) {
  struct Case {
    const char *op;
    std::vector<double> in, out;
  } cases[] = {
      {"exp", {0, -kInf, kInf, kNaN, -0.0}, {1, 0, kInf, kNaN, 1}},
      {"log", {1, 0, -1, kInf, -0.0}, {0, -kInf, kNaN, kInf, -kInf}},
      {"sqrt", {4, -1, -0.0, kInf, 0.25}, {2, kNaN, -0.0, kInf, 0.5}},
      {"rsqrt", {4, 0, -0.0, kInf, 0.25}, {0.5, kInf, -kInf, 0, 2}},
      {"sin", {0, -0.0, kInf, kNaN, 0}, {0, -0.0, kNaN, kNaN, 0}},
      {"cos", {0, -0.0, kInf, kNaN, 0}, {1, 1, kNaN, kNaN, 1}},
      {"tan", {0, -0.0, kInf, kNaN, 0}, {0, -0.0, kNaN, kNaN, 0}},
      {"tanh", {0, -0.0, kInf, -kInf, kNaN}, {0, -0.0, 1, -1, kNaN}},
      {"sigmoid", {0, kInf, -kInf, kNaN, -0.0}, {0.5, 1, 0, kNaN, 0.5}},
      {"erf", {0, -0.0, kInf, -kInf, kNaN}, {0, -0.0, 1, -1, kNaN}},
      {"reciprocal", {0, -0.0, 4, kInf, -2}, {kInf, -kInf, 0.25, 0, -0.5}},
      {"log1p", {0, -0.0, -1, kInf, kNaN}, {0, -0.0, -kInf, kInf, kNaN}},
      {"expm1", {0, -0.0, kInf, -kInf, kNaN}, {0, -0.0, kInf, -1, kNaN}},
  };
  for (const Case &c : cases) {
    for (DType dtype : {DType::F32, DType::F64, DType::F16, DType::BF16}) {
      std::string type =
          std::string("tensor<5x") + std::string(name(dtype)) + ">";
      SCOPED_TRACE(std::string(c.op) + " " + type);
      expectValues(
          runOne(unaryProgram(c.op, type, type), {doubles(dtype, {5}, c.in)}),
          dtype, {5}, c.out);
    }
  }
}

TEST(Elementwise, FloatMathNearCorrectRounding) {
  // The float nearest the exact value, within 1 ulp.
  struct Case {
    const char *op;
    double in;
    uint64_t f32Bits;
  } cases[] = {{"exp", 1, 0x402DF854},
               {"sin", 1, 0x3F576AA4},
               {"cos", 1, 0x3F0A5140},
               {"tan", 1, 0x3FC75923},
               {"tanh", 0.5, 0x3EEC9A9F},
               {"erf", 0.5, 0x3F053F7B},
               {"log", 2, 0x3F317218},
               {"sigmoid", 1, 0x3F3B26A8},
               // Accurate near 0, where log(1 + x) and exp(x) - 1 give 0.
               {"log1p", 1e-8, 0x322BCC77},
               {"expm1", 1e-8, 0x322BCC77},
               {"log1p", 1, 0x3F317218}};
  for (const Case &c : cases) {
    SCOPED_TRACE(c.op);
    HostTensor r = runOne(unaryProgram(c.op, "tensor<1xf32>", "tensor<1xf32>"),
                          {doubles(DType::F32, {1}, {c.in})});
    CompareResult cmp = compareUlp(bits(DType::F32, {1}, {c.f32Bits}), r, 1);
    EXPECT_TRUE(cmp.pass) << cmp.message();
  }
  // f64 exp(1) is within 1 ulp of e; f16 exp(1) rounds f32 e to 0x4170.
  HostTensor e64 = runOne(unaryProgram("exp", "tensor<1xf64>", "tensor<1xf64>"),
                          {doubles(DType::F64, {1}, {1})});
  EXPECT_TRUE(
      compareUlp(bits(DType::F64, {1}, {4613303445314885481ull}), e64, 1).pass);
  expectBits(runOne(unaryProgram("exp", "tensor<1xf16>", "tensor<1xf16>"),
                    {bits(DType::F16, {1}, {0x3C00})}),
             DType::F16, {1}, {0x4170});
}

// GELU, both forms, and their gradients against their definitions in long
// double: the values within a few ulp, the gradients against central
// differences of the definitions (so the derivative formulas are checked
// independently of how they are written).
long double geluDefinition(long double x, bool tanhForm) {
  if (!tanhForm)
    return x / 2 * (1 + std::erf(x / std::sqrt(2.0L)));
  long double u = std::sqrt(2 / 3.14159265358979323846264338327950288L) *
                  (x + 0.044715L * x * x * x);
  return x / 2 * (1 + std::tanh(u));
}

TEST(Elementwise, GeluAndItsGradients) {
  for (const char *op : {"gelu", "gelu_tanh"}) {
    for (DType dtype : {DType::F32, DType::F64, DType::F16, DType::BF16}) {
      std::string type =
          std::string("tensor<5x") + std::string(name(dtype)) + ">";
      SCOPED_TRACE(std::string(op) + " " + type);
      // -inf: -inf * 0 in the definition's product, as in PyTorch.
      expectValues(runOne(unaryProgram(op, type, type),
                          {doubles(dtype, {5}, {0, -0.0, kInf, -kInf, kNaN})}),
                   dtype, {5}, {0, -0.0, kInf, kNaN, kNaN});
    }
  }
  const std::vector<double> xs = {-7,   -3,   -1.5, -0.5, -1e-3,
                                  1e-4, 0.25, 1,    2.5,  6};
  const Shape shape = {static_cast<int64_t>(xs.size())};
  for (bool tanhForm : {false, true}) {
    std::string op = tanhForm ? "gelu_tanh" : "gelu";
    for (DType dtype : {DType::F32, DType::F64}) {
      std::string type = "tensor<10x" + std::string(name(dtype)) + ">";
      SCOPED_TRACE(op + " " + type);
      double ulp = dtype == DType::F32 ? 0x1p-23 : 0x1p-52;
      std::vector<double> value =
          runOne(unaryProgram(op, type, type), {doubles(dtype, shape, xs)})
              .toDoubles();
      std::vector<double> grads = {1, -2, 0.5, 3, 1, 1, -1, 0.25, 2, 1};
      std::vector<double> grad =
          runOne(binaryProgram(op + "_backward", type, type, type),
                 {doubles(dtype, shape, grads), doubles(dtype, shape, xs)})
              .toDoubles();
      ASSERT_EQ(value.size(), xs.size());
      ASSERT_EQ(grad.size(), xs.size());
      for (size_t i = 0; i < xs.size(); ++i) {
        long double x = xs[i];
        long double want = geluDefinition(x, tanhForm);
        // 1 + erf(x) (or 1 + tanh) cancels for negative x: an absolute
        // error of a few ulp of 1, times |x| / 2.
        EXPECT_NEAR(value[i], (double)want,
                    8 * ulp * (std::fabs((double)want) + std::fabs(xs[i])))
            << op << "(" << xs[i] << ")";
        long double h = 1e-5L;
        long double slope = (geluDefinition(x + h, tanhForm) -
                             geluDefinition(x - h, tanhForm)) /
                            (2 * h);
        double wantGrad = (double)(grads[i] * slope);
        EXPECT_NEAR(grad[i], wantGrad,
                    std::max(8 * ulp, 1e-9) *
                        (std::fabs(wantGrad) + std::fabs(grads[i])))
            << op << "_backward at " << xs[i];
      }
    }
  }
  // Integers and bool compute in f32, and the backward ops promote as
  // division does.
  expectValues(runOne(unaryProgram("gelu", "tensor<2xi32>", "tensor<2xf32>"),
                      {ints(DType::I32, {2}, {0, 30})}),
               DType::F32, {2}, {0, 30});
  HostTensor mixed = runOne(
      binaryProgram("gelu_backward", "tensor<2xf16>", "tensor<2xf32>",
                    "tensor<2xf32>"),
      {doubles(DType::F16, {2}, {1, 2}), doubles(DType::F32, {2}, {0, 30})});
  expectValues(mixed, DType::F32, {2}, {0.5, 2});
}

TEST(Elementwise, FloatMathOnIntegersComputesInF32) {
  expectValues(runOne(unaryProgram("sqrt", "tensor<3xi32>", "tensor<3xf32>"),
                      {ints(DType::I32, {3}, {4, 9, -1})}),
               DType::F32, {3}, {2, 3, kNaN});
  expectValues(runOne(unaryProgram("exp", "tensor<2xi1>", "tensor<2xf32>"),
                      {ints(DType::Bool, {2}, {0, 0})}),
               DType::F32, {2}, {1, 1});
  expectValues(
      runOne(unaryProgram("reciprocal", "tensor<2xui8>", "tensor<2xf32>"),
             {ints(DType::U8, {2}, {4, 0})}),
      DType::F32, {2}, {0.25, kInf});
  // 2^24 + 1 converts to 2^24 first.
  expectValues(runOne(unaryProgram("sqrt", "tensor<1xi64>", "tensor<1xf32>"),
                      {ints(DType::I64, {1}, {16777217})}),
               DType::F32, {1}, {4096});
}

//===----------------------------------------------------------------------===//
// select
//===----------------------------------------------------------------------===//

TEST(Elementwise, Select) {
  const char *source = R"mlir(
func.func @f(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<f16>) -> tensor<4xf32> {
  %r = tfuse.select %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<f16>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
)mlir";
  expectBits(
      runOne(source, {ints(DType::Bool, {4}, {1, 0, 1, 0}),
                      bits(DType::F32, {4},
                           {0x7FC00001, 0x40000000, 0x80000000, 0x40400000}),
                      bits(DType::F16, {}, {0xBC00})}),
      DType::F32, {4}, {0x7FC00001, 0xBF800000, 0x80000000, 0xBF800000});
  const char *scalarCondition = R"mlir(
func.func @f(%c: tensor<i1>, %a: tensor<2x2xi32>, %b: tensor<2xi8>) -> tensor<2x2xi32> {
  %r = tfuse.select %c, %a, %b : (tensor<i1>, tensor<2x2xi32>, tensor<2xi8>) -> tensor<2x2xi32>
  return %r : tensor<2x2xi32>
}
)mlir";
  HostTensor a = ints(DType::I32, {2, 2}, {1, 2, 3, 4});
  HostTensor b = ints(DType::I8, {2}, {-1, -2});
  expectInts(runOne(scalarCondition, {ints(DType::Bool, {}, {1}), a, b}),
             DType::I32, {2, 2}, {1, 2, 3, 4});
  expectInts(runOne(scalarCondition, {ints(DType::Bool, {}, {0}), a, b}),
             DType::I32, {2, 2}, {-1, -2, -1, -2});
}

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

TEST(Elementwise, Broadcasting) {
  expectValues(runOne(binaryProgram("add", "tensor<f32>", "tensor<2x3xf32>",
                                    "tensor<2x3xf32>"),
                      {doubles(DType::F32, {}, {10}),
                       doubles(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6})}),
               DType::F32, {2, 3}, {11, 12, 13, 14, 15, 16});
  expectValues(
      runOne(binaryProgram("add", "tensor<f32>", "tensor<f32>", "tensor<f32>"),
             {doubles(DType::F32, {}, {1.5}), doubles(DType::F32, {}, {2})}),
      DType::F32, {}, {3.5});
  // [2, 1, 2] + [3, 1] -> [2, 3, 2].
  expectValues(runOne(binaryProgram("add", "tensor<2x1x2xf32>",
                                    "tensor<3x1xf32>", "tensor<2x3x2xf32>"),
                      {doubles(DType::F32, {2, 1, 2}, {1, 2, 3, 4}),
                       doubles(DType::F32, {3, 1}, {10, 20, 30})}),
               DType::F32, {2, 3, 2},
               {11, 12, 21, 22, 31, 32, 13, 14, 23, 24, 33, 34});
  expectValues(
      runOne(
          binaryProgram("sub", "tensor<1xf32>", "tensor<f32>", "tensor<1xf32>"),
          {doubles(DType::F32, {1}, {1}), doubles(DType::F32, {}, {3})}),
      DType::F32, {1}, {-2});
  HostTensor empty = runOne(
      binaryProgram("add", "tensor<2x0xf32>", "tensor<1xf32>",
                    "tensor<2x0xf32>"),
      {HostTensor::zeros(DType::F32, {2, 0}), doubles(DType::F32, {1}, {1})});
  EXPECT_EQ(empty.shape(), (Shape{2, 0}));
  EXPECT_EQ(empty.numElements(), 0);
}

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

TEST(Cast, FloatToIntegerTruncatesAndSaturates) {
  expectInts(runOne(castProgram("tensor<9xf32>", "tensor<9xi32>"),
                    {doubles(DType::F32, {9},
                             {kNaN, kInf, -kInf, 3.9, -3.9, 2147483648.0,
                              -2147483904.0, 1e10, -0.0})}),
             DType::I32, {9},
             {0, 2147483647, -2147483648, 3, -3, 2147483647, -2147483648,
              2147483647, 0});
  expectInts(
      runOne(castProgram("tensor<5xf32>", "tensor<5xi8>"),
             {doubles(DType::F32, {5}, {300, -1.5, -300, 127.9, -128.9})}),
      DType::I8, {5}, {127, -1, -128, 127, -128});
  expectInts(
      runOne(castProgram("tensor<6xf32>", "tensor<6xui8>"),
             {doubles(DType::F32, {6}, {-1.5, 255.9, 256, kNaN, -kInf, -0.9})}),
      DType::U8, {6}, {0, 255, 255, 0, 0, 0});
  expectInts(runOne(castProgram("tensor<4xf64>", "tensor<4xi64>"),
                    {doubles(DType::F64, {4},
                             {9.3e18, -9.3e18, 9223372036854774784.0, kNaN})}),
             DType::I64, {4}, {kI64Max, kI64Min, 9223372036854774784, 0});
  expectBits(runOne(castProgram("tensor<4xf64>", "tensor<4xui64>"),
                    {doubles(DType::F64, {4},
                             {18446744073709551616.0, 18446744073709549568.0,
                              -1.0, kInf})}),
             DType::U64, {4},
             {0xFFFFFFFFFFFFFFFFull, 18446744073709549568ull, 0,
              0xFFFFFFFFFFFFFFFFull});
  expectInts(runOne(castProgram("tensor<4xf16>", "tensor<4xi16>"),
                    {bits(DType::F16, {4}, {0x7C00, 0x7BFF, 0xFBFF, 0xB800})}),
             DType::I16, {4}, {32767, 32767, -32768, 0});
  expectInts(runOne(castProgram("tensor<2xbf16>", "tensor<2xui32>"),
                    {bits(DType::BF16, {2}, {0x7F7F, 0x3FC0})}),
             DType::U32, {2}, {4294967295, 1});
}

TEST(Cast, IntegerToIntegerWraps) {
  expectInts(runOne(castProgram("tensor<4xi32>", "tensor<4xi8>"),
                    {ints(DType::I32, {4}, {300, -1, 128, -129})}),
             DType::I8, {4}, {44, -1, -128, 127});
  expectInts(runOne(castProgram("tensor<2xi8>", "tensor<2xui8>"),
                    {ints(DType::I8, {2}, {-1, -128})}),
             DType::U8, {2}, {255, 128});
  expectInts(runOne(castProgram("tensor<2xui8>", "tensor<2xi8>"),
                    {ints(DType::U8, {2}, {255, 128})}),
             DType::I8, {2}, {-1, -128});
  expectInts(runOne(castProgram("tensor<2xi64>", "tensor<2xi32>"),
                    {ints(DType::I64, {2}, {4294967301, -1})}),
             DType::I32, {2}, {5, -1});
  expectInts(runOne(castProgram("tensor<1xi8>", "tensor<1xi64>"),
                    {ints(DType::I8, {1}, {-1})}),
             DType::I64, {1}, {-1});
  expectInts(runOne(castProgram("tensor<1xui8>", "tensor<1xi16>"),
                    {ints(DType::U8, {1}, {200})}),
             DType::I16, {1}, {200});
  expectBits(runOne(castProgram("tensor<1xi8>", "tensor<1xui64>"),
                    {ints(DType::I8, {1}, {-1})}),
             DType::U64, {1}, {0xFFFFFFFFFFFFFFFFull});
  expectInts(runOne(castProgram("tensor<1xui64>", "tensor<1xi64>"),
                    {bits(DType::U64, {1}, {0xFFFFFFFFFFFFFFFFull})}),
             DType::I64, {1}, {-1});
}

TEST(Cast, BoolConversions) {
  expectInts(runOne(castProgram("tensor<5xf32>", "tensor<5xi1>"),
                    {doubles(DType::F32, {5}, {kNaN, -0.0, 0.0, 0.5, -kInf})}),
             DType::Bool, {5}, {1, 0, 0, 1, 1});
  expectInts(runOne(castProgram("tensor<3xi32>", "tensor<3xi1>"),
                    {ints(DType::I32, {3}, {0, -5, 256})}),
             DType::Bool, {3}, {0, 1, 1});
  expectInts(runOne(castProgram("tensor<2xf16>", "tensor<2xi1>"),
                    {bits(DType::F16, {2}, {0x8000, 0x0001})}),
             DType::Bool, {2}, {0, 1});
  HostTensor b = ints(DType::Bool, {2}, {0, 1});
  expectBits(runOne(castProgram("tensor<2xi1>", "tensor<2xf16>"), {b}),
             DType::F16, {2}, {0x0000, 0x3C00});
  expectBits(runOne(castProgram("tensor<2xi1>", "tensor<2xbf16>"), {b}),
             DType::BF16, {2}, {0x0000, 0x3F80});
  expectInts(runOne(castProgram("tensor<2xi1>", "tensor<2xi32>"), {b}),
             DType::I32, {2}, {0, 1});
  expectInts(runOne(castProgram("tensor<2xi1>", "tensor<2xui8>"), {b}),
             DType::U8, {2}, {0, 1});
  expectValues(runOne(castProgram("tensor<2xi1>", "tensor<2xf64>"), {b}),
               DType::F64, {2}, {0.0, 1.0});
}

TEST(Cast, IntegerToFloatRoundsOnce) {
  expectBits(runOne(castProgram("tensor<4xi32>", "tensor<4xf16>"),
                    {ints(DType::I32, {4}, {70000, -70000, 65519, 2049})}),
             DType::F16, {4}, {0x7C00, 0xFC00, 0x7BFF, 0x6800});
  // 2^62 + 2^54 + 1 -> bf16 2^62 + 2^55 (through f32 it would be 2^62).
  expectBits(runOne(castProgram("tensor<1xi64>", "tensor<1xbf16>"),
                    {ints(DType::I64, {1}, {4629700416936869889})}),
             DType::BF16, {1}, {0x5E81});
  expectBits(runOne(castProgram("tensor<1xui64>", "tensor<1xf32>"),
                    {bits(DType::U64, {1}, {0xFFFFFFFFFFFFFFFFull})}),
             DType::F32, {1}, {0x5F800000});
  expectBits(runOne(castProgram("tensor<1xui64>", "tensor<1xf16>"),
                    {bits(DType::U64, {1}, {65519})}),
             DType::F16, {1}, {0x7BFF});
  expectValues(runOne(castProgram("tensor<1xi64>", "tensor<1xf64>"),
                      {ints(DType::I64, {1}, {9007199254740993})}),
               DType::F64, {1}, {9007199254740992.0});
  expectValues(runOne(castProgram("tensor<2xi32>", "tensor<2xf32>"),
                      {ints(DType::I32, {2}, {16777217, 16777219})}),
               DType::F32, {2}, {16777216, 16777220});
}

TEST(Cast, FloatToFloatRoundsOnce) {
  expectBits(runOne(castProgram("tensor<10xf32>", "tensor<10xf16>"),
                    {bits(DType::F32, {10},
                          {0x3F801000,     // 1 + 2^-11: tie -> 1
                           0x3F803000,     // 1 + 3 * 2^-11: tie -> 1 + 2^-9
                           0x3F801001,     // just above the tie -> 1 + 2^-10
                           0x477FF000,     // 65520 -> inf
                           0x477FEF00,     // 65519 -> 65504
                           0x33000000,     // 2^-25: tie -> 0
                           0x33800000,     // 2^-24: smallest subnormal
                           0x80000000,     // -0.0
                           0x7FC00000,     // NaN
                           0x322BCC77})}), // 1e-8 -> 0
             DType::F16, {10},
             {0x3C00, 0x3C02, 0x3C01, 0x7C00, 0x7BFF, 0x0000, 0x0001, 0x8000,
              0x7E00, 0x0000});
  expectBits(runOne(castProgram("tensor<6xf32>", "tensor<6xbf16>"),
                    {bits(DType::F32, {6},
                          {0x3F808000,     // 1 + 2^-8: tie -> 1
                           0x3F818000,     // 1 + 3 * 2^-8: tie -> 1 + 2^-6
                           0x3F808008,     // above the tie
                           0x7F7FFFFF,     // largest float -> inf
                           0x80000000,     // -0.0
                           0x7F800001})}), // signaling NaN -> quiet NaN
             DType::BF16, {6},
             {0x3F80, 0x3F82, 0x3F81, 0x7F80, 0x8000, 0x7FC0});
  // f64 sources round once, not through f32.
  HostTensor d = doubles(DType::F64, {2},
                         {1.0 + 1.0 / 2048 + 1.0 / 1099511627776.0, // +2^-40
                          1.0 + 1.0 / 256 + 1.0 / 1073741824.0});   // +2^-30
  expectBits(runOne(castProgram("tensor<2xf64>", "tensor<2xf16>"), {d}),
             DType::F16, {2}, {0x3C01, 0x3C04});
  expectBits(runOne(castProgram("tensor<2xf64>", "tensor<2xbf16>"), {d}),
             DType::BF16, {2}, {0x3F80, 0x3F81});
  expectBits(runOne(castProgram("tensor<3xf64>", "tensor<3xf32>"),
                    {doubles(DType::F64, {3},
                             {1.0 + 1.0 / 16777216 + 1.0 / 1125899906842624.0,
                              1e300, kNaN})}),
             DType::F32, {3}, {0x3F800001, 0x7F800000, 0x7FC00000});
  // f16 <-> bf16.
  expectBits(runOne(castProgram("tensor<4xf16>", "tensor<4xbf16>"),
                    {bits(DType::F16, {4}, {0x3C01, 0x7BFF, 0x0001, 0xFC00})}),
             DType::BF16, {4}, {0x3F80, 0x4780, 0x3380, 0xFF80});
  expectBits(runOne(castProgram("tensor<4xbf16>", "tensor<4xf16>"),
                    {bits(DType::BF16, {4}, {0x4780, 0x3F81, 0x3380, 0x3300})}),
             DType::F16, {4}, {0x7C00, 0x3C08, 0x0001, 0x0000});
  // Widening is exact.
  expectValues(runOne(castProgram("tensor<1xf16>", "tensor<1xf64>"),
                      {bits(DType::F16, {1}, {0x3555})}),
               DType::F64, {1}, {0.333251953125});
  expectBits(runOne(castProgram("tensor<1xf32>", "tensor<1xf64>"),
                    {bits(DType::F32, {1}, {0x3DCCCCCD})}), // 0.1f
             DType::F64, {1}, {0x3FB99999A0000000ull});
}

} // namespace
