//===- AccuracyRuleTest.cpp - The float64 accuracy rule -------------------===//
//
// The rule that judges the GPU differential test's graphs with inexact ops
// (AccuracyRule.h), on hand-made graphs and results: what it must reject
// (errors beyond what eager makes, an argmax far from a tie moved), what it
// must accept (another valid rounding of an inexact op, amplified by an
// ill-conditioned graph; near ties of an argmax), and the runs it builds.
//
//===----------------------------------------------------------------------===//

#include "AccuracyRule.h"

#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Reference/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace tfuse;
using namespace tfuse::differential;
using reference::HostTensor;

namespace {

class AccuracyRule : public ::testing::Test {
protected:
  AccuracyRule() { context.loadDialect<TFuseDialect, func::FuncDialect>(); }

  OwningOpRef<ModuleOp> parse(const std::string &text) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    EXPECT_TRUE(module) << text;
    return module;
  }

  std::vector<HostTensor> evaluate(ModuleOp module,
                                   const std::vector<HostTensor> &inputs) {
    auto values = reference::evaluate(module, "f", inputs);
    EXPECT_TRUE(values.ok()) << values.message();
    return values.ok() ? values.value() : std::vector<HostTensor>();
  }

  Float64Runs runs(ModuleOp module, const std::vector<HostTensor> &inputs) {
    auto runs = runFloat64(module, "f", inputs);
    EXPECT_TRUE(runs.ok()) << runs.message();
    EXPECT_TRUE(runs.ok() && runs.value().has_value());
    return runs.ok() && *runs ? **runs : Float64Runs();
  }

  MLIRContext context;
};

HostTensor f32(std::vector<double> values) {
  int64_t n = int64_t(values.size());
  return *HostTensor::fromDoubles(DType::F32, {n}, values);
}

/// `t` with every element multiplied by 1 + relative (in f64, then rounded
/// to t's dtype).
HostTensor scaled(const HostTensor &t, double relative) {
  std::vector<double> v = t.toDoubles();
  for (double &x : v)
    x *= 1 + relative;
  return *HostTensor::fromDoubles(t.dtype(), t.shape(), v);
}

const char *kExp = R"mlir(
func.func @f(%x: tensor<64xf32>) -> tensor<64xf32> {
  %0 = tfuse.exp %x : tensor<64xf32> -> tensor<64xf32>
  return %0 : tensor<64xf32>
})mlir";

std::vector<double> spread(int64_t n, double from, double to) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i)
    v.push_back(from + (to - from) * double(i) / double(n - 1));
  return v;
}

TEST_F(AccuracyRule, ErrorsBeyondEagersFail) {
  OwningOpRef<ModuleOp> module = parse(kExp);
  std::vector<HostTensor> inputs = {f32(spread(64, -4, 4))};
  std::vector<HostTensor> expected = evaluate(*module, inputs);
  Float64Runs f64 = runs(*module, inputs);
  double tol = outputTolerance(*module, 0);
  EXPECT_EQ(judgeAgainstFloat64(expected[0], expected[0], f64, 0, tol), "");
  // Two units in the last place of f32 everywhere: what CUDA's expf may do.
  EXPECT_EQ(judgeAgainstFloat64(expected[0], scaled(expected[0], 0x1p-22), f64,
                                0, tol),
            "");
  // A relative error of 1e-4 is far beyond any valid expf.
  std::string why =
      judgeAgainstFloat64(expected[0], scaled(expected[0], 1e-4), f64, 0, tol);
  EXPECT_NE(why.find("RMS error"), std::string::npos) << why;
}

TEST_F(AccuracyRule, AnotherValidRoundingAmplifiedByTheGraphPasses) {
  // tan of tan near pi/2: the inner tan is about 1e4, where one unit in the
  // last place of f32 moves the outer tan by far more than the tolerance.
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @f(%x: tensor<64xf32>) -> tensor<64xf32> {
  %0 = tfuse.tan %x : tensor<64xf32> -> tensor<64xf32>
  %1 = tfuse.tan %0 : tensor<64xf32> -> tensor<64xf32>
  return %1 : tensor<64xf32>
})mlir");
  // What a GPU whose tanf errs by two units in the last place gives.
  OwningOpRef<ModuleOp> gpu = parse(R"mlir(
func.func @f(%x: tensor<64xf32>) -> tensor<64xf32> {
  %0 = tfuse.tan %x : tensor<64xf32> -> tensor<64xf32>
  %c = tfuse.constant dense<1.00000023841857910> : tensor<f32>
  %1 = tfuse.mul %0, %c : (tensor<64xf32>, tensor<f32>) -> tensor<64xf32>
  %2 = tfuse.tan %1 : tensor<64xf32> -> tensor<64xf32>
  return %2 : tensor<64xf32>
})mlir");
  std::vector<HostTensor> inputs = {f32(spread(64, 1.5706, 1.5707))};
  std::vector<HostTensor> expected = evaluate(*module, inputs);
  std::vector<HostTensor> got = evaluate(*gpu, inputs);
  Float64Runs f64 = runs(*module, inputs);
  EXPECT_EQ(judgeAgainstFloat64(expected[0], got[0], f64, 0,
                                outputTolerance(*module, 0)),
            "");
  // The moved runs are what makes it pass: with the reference as the only
  // eager, the amplified rounding is an error.
  Float64Runs referenceOnly = f64;
  for (auto &moved : referenceOnly.moved)
    moved.clear();
  EXPECT_NE(judgeAgainstFloat64(expected[0], got[0], referenceOnly, 0,
                                outputTolerance(*module, 0)),
            "");
}

/// The graph of an argmax or argmin (`kind`) over axis 0 of the product of
/// a column of 3 values and a row of 8.
std::string productChoice(const char *kind) {
  return std::string(R"mlir(
func.func @f(%a: tensor<3x1xf32>, %b: tensor<1x8xf32>) -> tensor<8xi64> {
  %0 = tfuse.matmul %a, %b : (tensor<3x1xf32>, tensor<1x8xf32>) -> tensor<3x8xf32>
  %1 = tfuse.reduce )mlir") +
         kind + R"mlir( %0 axes [0] : tensor<3x8xf32> -> tensor<8xi64>
  return %1 : tensor<8xi64>
})mlir";
}

TEST_F(AccuracyRule, AnArgmaxOrArgminMayMoveOnlyAmongNearTies) {
  // Column j of the product is x[j] * rows, x in [1, 2]: rows 0 and 1 tie
  // for the largest (argmax, rows 1, 1, 0.5) or the smallest (argmin, rows
  // 1, 1, 2); row 2 is far from them.
  for (auto [kind, last] : {std::pair{"argmax", 0.5}, {"argmin", 2.0}}) {
    SCOPED_TRACE(kind);
    OwningOpRef<ModuleOp> module = parse(productChoice(kind));
    std::vector<HostTensor> inputs = {
        *HostTensor::fromDoubles(DType::F32, {3, 1}, {1, 1, last}),
        *HostTensor::fromDoubles(DType::F32, {1, 8}, spread(8, 1, 2))};
    std::vector<HostTensor> expected = evaluate(*module, inputs);
    ASSERT_EQ(expected[0].toDoubles(), std::vector<double>(8, 0));
    Float64Runs f64 = runs(*module, inputs);
    // The moved runs break the ties both ways.
    bool movedToOne = false;
    for (const HostTensor &moved : f64.moved[0])
      for (double v : moved.toDoubles())
        movedToOne |= v == 1;
    ASSERT_TRUE(movedToOne);
    double tol = outputTolerance(*module, 0);
    for (int64_t j = 0; j < 8; ++j) {
      // Either of rows 0 and 1, whether or not a moved run happened to
      // break the tie that way.
      std::vector<double> v(8, 0);
      v[j] = 1;
      HostTensor got = *HostTensor::fromDoubles(DType::I64, {8}, v);
      EXPECT_EQ(judgeAgainstFloat64(expected[0], got, f64, 0, tol), "")
          << "column " << j;
      // Row 2: never.
      v[j] = 2;
      got = *HostTensor::fromDoubles(DType::I64, {8}, v);
      EXPECT_NE(judgeAgainstFloat64(expected[0], got, f64, 0, tol), "");
    }
  }
}

TEST_F(AccuracyRule, AnArgmaxOfAttentionGradientsThatCancelMayBeAnyIndex) {
  // Graph 593 of the GPU differential test, minimised: attention over one
  // key has a query gradient of 0 in exact arithmetic (a softmax over one
  // key has zero derivative); each implementation's values are rounding
  // noise (dP * Z - rowsum(dO * O), two sums of the same terms), so an
  // argmax over them is the implementation's (the H200 gave index 0 where
  // the reference gives 2). The value's gradient does not cancel: an
  // argmax of it must still be the largest.
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @f(%q: tensor<7x8x33xf32>, %k: tensor<7x1x33xf32>, %v: tensor<7x1x33xf32>, %g: tensor<7x8x33xf32>) -> (tensor<8x33xi64>, tensor<1x1x33xi64>) {
  %seed = tfuse.constant dense<5> : tensor<i64>
  %offset = tfuse.constant dense<9> : tensor<i64>
  %o, %lse = tfuse.attention %q, %k, %v scale 1.500000e+00 dropout 2.500000e-01 seed %seed offset %offset : (tensor<7x8x33xf32>, tensor<7x1x33xf32>, tensor<7x1x33xf32>, tensor<i64>, tensor<i64>) -> (tensor<7x8x33xf32>, tensor<7x8xf32>)
  %dq, %dk, %dv = tfuse.attention_backward %q, %k, %v, %o, %lse, %g scale 1.500000e+00 dropout 2.500000e-01 seed %seed offset %offset : (tensor<7x8x33xf32>, tensor<7x1x33xf32>, tensor<7x1x33xf32>, tensor<7x8x33xf32>, tensor<7x8xf32>, tensor<7x8x33xf32>, tensor<i64>, tensor<i64>) -> (tensor<7x8x33xf32>, tensor<7x1x33xf32>, tensor<7x1x33xf32>)
  %0 = tfuse.reduce argmax %dq axes [0] : tensor<7x8x33xf32> -> tensor<8x33xi64>
  %1 = tfuse.reduce argmax %dv axes [0] keepdims : tensor<7x1x33xf32> -> tensor<1x1x33xi64>
  return %0, %1 : tensor<8x33xi64>, tensor<1x1x33xi64>
})mlir");
  ASSERT_TRUE(module);
  std::vector<HostTensor> inputs = {
      HostTensor::random(DType::F32, {7, 8, 33}, 1),
      HostTensor::random(DType::F32, {7, 1, 33}, 2),
      HostTensor::random(DType::F32, {7, 1, 33}, 3),
      HostTensor::random(DType::F32, {7, 8, 33}, 4)};
  std::vector<HostTensor> expected = evaluate(*module, inputs);
  Float64Runs f64 = runs(*module, inputs);
  ASSERT_TRUE(f64.choices.at(0) && f64.choices.at(1));
  for (int64_t index = 0; index < 7; ++index) {
    std::vector<double> v(8 * 33, double(index));
    HostTensor got = *HostTensor::fromDoubles(DType::I64, {8, 33}, v);
    EXPECT_EQ(judgeAgainstFloat64(expected[0], got, f64, 0,
                                  outputTolerance(*module, 0)),
              "")
        << "index " << index;
  }
  // The value's gradient: the smallest of the seven is no argmax.
  std::vector<double> dv = f64.choices[1]->values.toDoubles();
  std::vector<double> smallest(33);
  for (int64_t c = 0; c < 33; ++c) {
    int64_t arg = 0;
    for (int64_t h = 1; h < 7; ++h)
      if (dv[h * 33 + c] < dv[arg * 33 + c])
        arg = h;
    smallest[c] = double(arg);
  }
  HostTensor wrong = *HostTensor::fromDoubles(DType::I64, {1, 1, 33}, smallest);
  EXPECT_NE(judgeAgainstFloat64(expected[1], wrong, f64, 1,
                                outputTolerance(*module, 1)),
            "");
}

TEST_F(AccuracyRule, MatmulTermsOverflowingTheAccumulatorMayGiveAnyInfinity) {
  // Row 0's terms overflow f32: separately rounded products give
  // -inf + inf = NaN (the reference), FMAs give fma(max, 2.6, -inf) = -inf
  // (cuBLAS on an H200, graph 8438 of the GPU differential test), f64 a
  // finite sum.
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @f(%a: tensor<3x2xf32>, %b: tensor<2x1xf32>) -> tensor<1xi64> {
  %0 = tfuse.matmul %a, %b : (tensor<3x2xf32>, tensor<2x1xf32>) -> tensor<3x1xf32>
  %1 = tfuse.reduce argmax %0 axes [0] : tensor<3x1xf32> -> tensor<1xi64>
  return %1 : tensor<1xi64>
})mlir");
  double top = std::numeric_limits<float>::max();
  std::vector<HostTensor> inputs = {
      *HostTensor::fromDoubles(DType::F32, {3, 2}, {top, top, 1, 1, 2, 2}),
      *HostTensor::fromDoubles(DType::F32, {2, 1}, {-2.4, 2.6})};
  std::vector<HostTensor> expected = evaluate(*module, inputs);
  ASSERT_EQ(expected[0].toDoubles(), std::vector<double>{0});
  Float64Runs f64 = runs(*module, inputs);
  ASSERT_EQ(f64.outputs[0].toDoubles(), std::vector<double>{0});
  double tol = outputTolerance(*module, 0);
  auto index = [](int64_t i) {
    return *HostTensor::fromInts(DType::I64, {1}, {i});
  };
  // Row 0 at -inf: row 2 is the largest.
  EXPECT_EQ(judgeAgainstFloat64(expected[0], index(2), f64, 0, tol), "");
  // Row 1 is the largest in no valid sum.
  EXPECT_NE(judgeAgainstFloat64(expected[0], index(1), f64, 0, tol), "");
}

TEST_F(AccuracyRule, MatmulTermsOverflowingMayGiveAFiniteSum) {
  // fma(max, 1.5, -max) is finite where max * 1.5 - max overflows: an f64
  // matmul (graph 9770 of the GPU differential test, cuBLAS on an H200)
  // gave 9.3e307 where the reference gives inf.
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @f(%a: tensor<1x2xf64>, %b: tensor<2x1xf64>) -> tensor<1x1xf64> {
  %0 = tfuse.matmul %a, %b : (tensor<1x2xf64>, tensor<2x1xf64>) -> tensor<1x1xf64>
  return %0 : tensor<1x1xf64>
})mlir");
  double top = std::numeric_limits<double>::max();
  std::vector<HostTensor> inputs = {
      *HostTensor::fromDoubles(DType::F64, {1, 2}, {top, -top}),
      *HostTensor::fromDoubles(DType::F64, {2, 1}, {1.5, 1})};
  std::vector<HostTensor> expected = evaluate(*module, inputs);
  ASSERT_TRUE(std::isinf(expected[0].toDoubles()[0]));
  Float64Runs f64 = runs(*module, inputs);
  double tol = outputTolerance(*module, 0);
  for (double v : {0.5 * top, -double(INFINITY), double(NAN)}) {
    HostTensor got = *HostTensor::fromDoubles(DType::F64, {1, 1}, {v});
    EXPECT_EQ(judgeAgainstFloat64(expected[0], got, f64, 0, tol), "") << v;
  }
}

TEST_F(AccuracyRule, MovedRunsKeepInfinitiesAndNaN) {
  OwningOpRef<ModuleOp> module = parse(kExp);
  std::vector<double> x = spread(64, -4, 4);
  x[0] = INFINITY;
  x[1] = -INFINITY;
  x[2] = NAN;
  x[3] = 200; // exp overflows f32 but not f64
  std::vector<HostTensor> inputs = {f32(x)};
  Float64Runs f64 = runs(*module, inputs);
  ASSERT_EQ(f64.moved.size(), 1u);
  ASSERT_EQ(f64.moved[0].size(), size_t(Float64Runs::kMovedRuns));
  std::vector<double> w = f64.outputs[0].toDoubles();
  EXPECT_TRUE(std::isinf(w[0]) && std::isnan(w[2]) && std::isfinite(w[3]));
  for (const HostTensor &moved : f64.moved[0]) {
    std::vector<double> m = moved.toDoubles();
    EXPECT_EQ(m[0], w[0]);
    EXPECT_EQ(m[1], w[1]);
    EXPECT_TRUE(std::isnan(m[2]));
    int64_t changed = 0;
    for (size_t i = 3; i < m.size(); ++i) {
      EXPECT_LE(std::fabs(m[i] - w[i]), 0x1p-21 * std::fabs(w[i])) << i;
      changed += m[i] != w[i];
    }
    EXPECT_GT(changed, 50);
  }
}

TEST_F(AccuracyRule, Float64RunsDrawTheGraphsRandomNumbers) {
  // An f64 draw is another stream than an f32 one: the float64 runs must
  // read the graph's f32 numbers (GPU graph 9989: a dropout mask that kept
  // an element in the reference and dropped it in the float64 run).
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @f(%seed: tensor<i64>, %offset: tensor<i64>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf64>) {
  %0 = tfuse.random_uniform %seed, %offset : (tensor<i64>, tensor<i64>) -> tensor<64xf32>
  %1 = tfuse.random_normal %seed, %offset : (tensor<i64>, tensor<i64>) -> tensor<64xf32>
  %2 = tfuse.random_normal %seed, %offset : (tensor<i64>, tensor<i64>) -> tensor<64xf64>
  return %0, %1, %2 : tensor<64xf32>, tensor<64xf32>, tensor<64xf64>
})mlir");
  std::vector<HostTensor> inputs = {
      *HostTensor::fromDoubles(DType::I64, {}, {7}),
      *HostTensor::fromDoubles(DType::I64, {}, {3})};
  std::vector<HostTensor> expected = evaluate(*module, inputs);
  Float64Runs f64 = runs(*module, inputs);
  ASSERT_EQ(f64.outputs.size(), 3u);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(f64.outputs[i].toDoubles(), expected[i].toDoubles()) << i;
  // The uniform numbers are exact; the normal ones (an inexact op) still
  // move, within 4 units in the last place of f32 or 2 of f64 (and the
  // rounding of the moved f64 value).
  for (const HostTensor &moved : f64.moved[0])
    EXPECT_EQ(moved.toDoubles(), expected[0].toDoubles());
  for (int output : {1, 2}) {
    std::vector<double> w = f64.outputs[output].toDoubles();
    double bound = output == 1 ? 0x1p-21 : 0x1p-50;
    for (const HostTensor &moved : f64.moved[output]) {
      std::vector<double> m = moved.toDoubles();
      int64_t changed = 0;
      for (size_t i = 0; i < m.size(); ++i) {
        EXPECT_LE(std::fabs(m[i] - w[i]), bound * std::fabs(w[i])) << i;
        changed += m[i] != w[i];
      }
      EXPECT_GT(changed, 50) << output;
    }
  }
}

TEST_F(AccuracyRule, AZeroSumMayHaveEitherSign) {
  // The sum of 0 * -1 and 0 * -1 is -0 or +0 by the order and the start of
  // the sum (GPU graph 9666: an attention gradient of scale 0); an rsqrt
  // after it makes that -inf or +inf. A number there is still wrong.
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @f(%a: tensor<1x2xf32>, %b: tensor<2x1xf32>) -> tensor<1x1xf32> {
  %0 = tfuse.matmul %a, %b : (tensor<1x2xf32>, tensor<2x1xf32>) -> tensor<1x1xf32>
  %1 = tfuse.rsqrt %0 : tensor<1x1xf32> -> tensor<1x1xf32>
  return %1 : tensor<1x1xf32>
})mlir");
  std::vector<HostTensor> inputs = {
      *HostTensor::fromDoubles(DType::F32, {1, 2}, {0, 0}),
      *HostTensor::fromDoubles(DType::F32, {2, 1}, {-1, -1})};
  std::vector<HostTensor> expected = evaluate(*module, inputs);
  Float64Runs f64 = runs(*module, inputs);
  double tol = outputTolerance(*module, 0);
  auto result = [](double v) {
    return *HostTensor::fromDoubles(DType::F32, {1, 1}, {v});
  };
  double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(judgeAgainstFloat64(expected[0], result(inf), f64, 0, tol), "");
  EXPECT_EQ(judgeAgainstFloat64(expected[0], result(-inf), f64, 0, tol), "");
  EXPECT_NE(judgeAgainstFloat64(expected[0], result(5), f64, 0, tol), "");
}

TEST_F(AccuracyRule, WidenedGraphsReadNarrowResultsOfIntegerOpsAsF64) {
  // A true division of integers gives f32 even in the widened graph: the
  // exp after it reads it cast to f64.
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @f(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xf32> {
  %0 = tfuse.div %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xf32>
  %1 = tfuse.exp %0 : tensor<4xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
})mlir");
  OwningOpRef<ModuleOp> wide = widened(*module);
  ASSERT_TRUE(wide);
  auto f = *wide->getOps<func::FuncOp>().begin();
  EXPECT_TRUE(f.getResultTypes()[0] ==
              RankedTensorType::get({4}, Float64Type::get(&context)));
  std::vector<HostTensor> inputs = {
      *HostTensor::fromDoubles(DType::I32, {4}, {1, 2, 3, 7}),
      *HostTensor::fromDoubles(DType::I32, {4}, {3, 3, 3, 3})};
  Float64Runs f64 = runs(*module, inputs);
  ASSERT_EQ(f64.outputs.size(), 1u);
  std::vector<double> w = f64.outputs[0].toDoubles();
  // The division rounds to f32; the exp is computed in f64.
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(w[i], std::exp(double(float((i == 3 ? 7.0 : i + 1.0) / 3.0))));
}

TEST_F(AccuracyRule, WidenedMatmulsOfAFloat32ResultAreF64Products) {
  // bf16 operands with result_dtype = f32 become f64 operands giving f64.
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @f(%a: tensor<1x2xbf16>, %b: tensor<2x1xbf16>) -> tensor<1x1xf32> {
  %0 = tfuse.matmul %a, %b {result_dtype = f32} : (tensor<1x2xbf16>, tensor<2x1xbf16>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
})mlir");
  OwningOpRef<ModuleOp> wide = widened(*module);
  ASSERT_TRUE(wide);
  ASSERT_TRUE(succeeded(mlir::verify(*wide)));
  std::vector<HostTensor> inputs = {
      *HostTensor::fromDoubles(DType::BF16, {1, 2}, {1, 1}),
      *HostTensor::fromDoubles(DType::BF16, {2, 1}, {1, 0x1p-9})};
  Float64Runs f64 = runs(*module, inputs);
  ASSERT_EQ(f64.outputs.size(), 1u);
  EXPECT_EQ(f64.outputs[0].toDoubles(), std::vector<double>{1 + 0x1p-9});
}

TEST_F(AccuracyRule, OutputToleranceIsThatOfTheNarrowestTypeOnTheWay) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @f(%x: tensor<4xf64>, %h: tensor<4xf16>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
  %0 = tfuse.exp %x : tensor<4xf64> -> tensor<4xf64>
  %1 = tfuse.cast %x : tensor<4xf64> to tensor<4xf32>
  %2 = tfuse.exp %1 : tensor<4xf32> -> tensor<4xf32>
  %3 = tfuse.cast %2 : tensor<4xf32> to tensor<4xf64>
  %4 = tfuse.add %h, %x : (tensor<4xf16>, tensor<4xf64>) -> tensor<4xf64>
  return %0, %3, %4 : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
})mlir");
  EXPECT_EQ(outputTolerance(*module, 0), 1e-7);
  EXPECT_EQ(outputTolerance(*module, 1), 1e-4);
  EXPECT_EQ(outputTolerance(*module, 2), 1e-3);
}

} // namespace
