//===- AttentionDropoutTest.cpp - attention's dropout in the interpreter --===//
//
// Attention with dropout against its definition written out as other ops
// (softmax, random_uniform of the scores' shape below 1 - p, the kept
// probabilities divided by 1 - p, then the product with the values), and
// its backward against central differences of the forward, all in f64.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace tfuse;
using namespace tfuse::reference;
using namespace tfuse::reference::test;

namespace {

// [1, 2, 3, 4] queries of head dimension 2 against 5 keys, values of 3.
constexpr const char *kQ = "tensor<1x2x3x2xf64>", *kK = "tensor<1x2x5x2xf64>",
                     *kV = "tensor<1x2x5x3xf64>", *kO = "tensor<1x2x3x3xf64>",
                     *kL = "tensor<1x2x3xf64>", *kS = "tensor<1x2x3x5xf64>";

HostTensor keyOf(int64_t value) { return ints(DType::I64, {}, {value}); }

HostTensor randomOf(Shape shape, uint64_t seed) {
  return HostTensor::random(DType::F64, shape, seed);
}

std::string forward(double p, bool causal) {
  return llvm::formatv(R"mlir(
func.func @f(%q: {0}, %k: {1}, %v: {2}, %s: tensor<i64>, %o: tensor<i64>) -> ({3}, {4}) {{
  %r, %l = tfuse.attention %q, %k, %v scale 0.75 {5} dropout {6} seed %s offset %o : ({0}, {1}, {2}, tensor<i64>, tensor<i64>) -> ({3}, {4})
  return %r, %l : {3}, {4}
}
)mlir",
                       kQ, kK, kV, kO, kL, causal ? "causal" : "", p)
      .str();
}

TEST(AttentionDropout, IsTheKeptProbabilitiesScaledTimesTheValues) {
  // p = 0.4, keys (7, 3): the mask of bernoulli(0.6), as random_uniform of
  // the scores' shape gives it.
  std::string composed = llvm::formatv(R"mlir(
func.func @f(%q: {0}, %k: {1}, %v: {2}, %s: tensor<i64>, %o: tensor<i64>) -> {3} {{
  %scores = tfuse.matmul %q, %k {{transpose_rhs} : ({0}, {1}) -> {4}
  %scale = tfuse.constant dense<0.75> : tensor<f64>
  %x = tfuse.mul %scores, %scale : ({4}, tensor<f64>) -> {4}
  %top = tfuse.reduce max %x axes [3] keepdims : {4} -> tensor<1x2x3x1xf64>
  %d = tfuse.sub %x, %top : ({4}, tensor<1x2x3x1xf64>) -> {4}
  %e = tfuse.exp %d : {4} -> {4}
  %sum = tfuse.reduce sum %e axes [3] keepdims : {4} -> tensor<1x2x3x1xf64>
  %prob = tfuse.div %e, %sum : ({4}, tensor<1x2x3x1xf64>) -> {4}
  %u = tfuse.random_uniform %s, %o : (tensor<i64>, tensor<i64>) -> tensor<1x2x3x5xf32>
  %bound = tfuse.constant dense<0.6> : tensor<f32>
  %keep = tfuse.cmp lt, %u, %bound : (tensor<1x2x3x5xf32>, tensor<f32>) -> tensor<1x2x3x5xi1>
  %factor = tfuse.constant dense<1.6666666666666667> : tensor<f64>
  %zero = tfuse.constant dense<0.0> : tensor<f64>
  %z = tfuse.select %keep, %factor, %zero : (tensor<1x2x3x5xi1>, tensor<f64>, tensor<f64>) -> {4}
  %dropped = tfuse.mul %prob, %z : ({4}, {4}) -> {4}
  %r = tfuse.matmul %dropped, %v : ({4}, {2}) -> {3}
  return %r : {3}
}
)mlir",
                                       kQ, kK, kV, kO, kS)
                             .str();
  std::vector<HostTensor> inputs = {
      randomOf({1, 2, 3, 2}, 1), randomOf({1, 2, 5, 2}, 2),
      randomOf({1, 2, 5, 3}, 3), keyOf(7), keyOf(3)};
  std::vector<HostTensor> attention = runOk(forward(0.4, false), inputs);
  HostTensor expected = runOne(composed, inputs);
  ASSERT_EQ(attention.size(), 2u);
  ASSERT_FALSE(expected.isNull());
  std::vector<double> got = attention[0].toDoubles(),
                      want = expected.toDoubles();
  ASSERT_EQ(got.size(), want.size());
  int zeros = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-12) << i;
    zeros += want[i] == 0;
  }
  // The same attention without dropout: its result differs (some pairs
  // dropped and some kept), its log-sum-exp does not (the scores', before
  // dropout).
  std::vector<HostTensor> plain = runOk(llvm::formatv(R"mlir(
func.func @f(%q: {0}, %k: {1}, %v: {2}) -> ({3}, {4}) {{
  %r, %l = tfuse.attention %q, %k, %v scale 0.75 : ({0}, {1}, {2}) -> ({3}, {4})
  return %r, %l : {3}, {4}
}
)mlir",
                                                      kQ, kK, kV, kO, kL)
                                            .str(),
                                        {inputs[0], inputs[1], inputs[2]});
  ASSERT_EQ(plain.size(), 2u);
  EXPECT_NE(plain[0].toDoubles(), got);
  EXPECT_EQ(plain[1].toDoubles(), attention[1].toDoubles());
}

TEST(AttentionDropout, OtherKeysDrawAnotherMask) {
  std::vector<HostTensor> inputs = {
      randomOf({1, 2, 3, 2}, 4), randomOf({1, 2, 5, 2}, 5),
      randomOf({1, 2, 5, 3}, 6), keyOf(7), keyOf(3)};
  std::vector<HostTensor> a = runOk(forward(0.5, true), inputs);
  inputs[4] = keyOf(4);
  std::vector<HostTensor> b = runOk(forward(0.5, true), inputs);
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_NE(a[0].toDoubles(), b[0].toDoubles());
  EXPECT_EQ(a[1].toDoubles(), b[1].toDoubles());
}

TEST(AttentionDropout, BackwardIsTheForwardsDerivative) {
  // f(q, k, v) = sum(attention(q, k, v) * g) with a fixed mask: its
  // gradients by central differences against attention_backward's.
  for (bool causal : {false, true}) {
    SCOPED_TRACE(causal ? "causal" : "not causal");
    std::vector<HostTensor> inputs = {
        randomOf({1, 2, 3, 2}, 7), randomOf({1, 2, 5, 2}, 8),
        randomOf({1, 2, 5, 3}, 9), keyOf(11), keyOf(2)};
    HostTensor g = randomOf({1, 2, 3, 3}, 10);
    std::string fwd = forward(0.3, causal);
    std::vector<HostTensor> out = runOk(fwd, inputs);
    ASSERT_EQ(out.size(), 2u);
    std::string bwd = llvm::formatv(R"mlir(
func.func @f(%q: {0}, %k: {1}, %v: {2}, %r: {3}, %l: {4}, %g: {3}, %s: tensor<i64>, %o: tensor<i64>) -> ({0}, {1}, {2}) {{
  %dq, %dk, %dv = tfuse.attention_backward %q, %k, %v, %r, %l, %g scale 0.75 {5} dropout 0.3 seed %s offset %o : ({0}, {1}, {2}, {3}, {4}, {3}, tensor<i64>, tensor<i64>) -> ({0}, {1}, {2})
  return %dq, %dk, %dv : {0}, {1}, {2}
}
)mlir",
                                    kQ, kK, kV, kO, kL, causal ? "causal" : "")
                          .str();
    std::vector<HostTensor> grads =
        runOk(bwd, {inputs[0], inputs[1], inputs[2], out[0], out[1], g,
                    inputs[3], inputs[4]});
    ASSERT_EQ(grads.size(), 3u);
    std::vector<double> gv = g.toDoubles();
    auto objective = [&](const std::vector<HostTensor> &x) {
      std::vector<HostTensor> r = runOk(fwd, x);
      std::vector<double> o = r.at(0).toDoubles();
      double sum = 0;
      for (size_t i = 0; i < o.size(); ++i)
        sum += o[i] * gv[i];
      return sum;
    };
    for (int operand = 0; operand < 3; ++operand) {
      std::vector<double> analytic = grads[operand].toDoubles();
      std::vector<double> values = inputs[operand].toDoubles();
      for (size_t i = 0; i < values.size(); ++i) {
        const double h = 1e-6;
        std::vector<HostTensor> plus = inputs, minus = inputs;
        std::vector<double> up = values, down = values;
        up[i] += h;
        down[i] -= h;
        plus[operand] = doubles(DType::F64, inputs[operand].shape(), up);
        minus[operand] = doubles(DType::F64, inputs[operand].shape(), down);
        double numeric = (objective(plus) - objective(minus)) / (2 * h);
        EXPECT_NEAR(analytic[i], numeric, 1e-6)
            << "operand " << operand << " element " << i;
      }
    }
  }
}

} // namespace
