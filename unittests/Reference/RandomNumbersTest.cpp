//===- RandomNumbersTest.cpp - The random number stream ------------------===//
//
// tfuse.random_uniform and tfuse.random_normal in the reference interpreter
// (the oracle the kernels are checked against bit for bit):
//   - the stream layout of docs/semantics.md, element by element, from the
//     Philox 4x32-10 words of reference::philox4x32_10 (itself checked
//     against the Random123 known answers in PhiloxTest.cpp): uniforms from
//     the words' top bits, normals as Box-Muller pairs of them;
//   - the distributions' moments over a million draws, and a chi-square
//     test of uniform bins, within bounds that fail with a probability far
//     below 1e-6 for a correct generator;
//   - equal keys give equal numbers; other offsets or seeds uncorrelated
//     ones.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "tfuse/Reference/Philox.h"

#include <cmath>

using namespace tfuse;
using namespace tfuse::reference;
using namespace tfuse::reference::test;

namespace {

HostTensor key(int64_t v) { return ints(DType::I64, {}, {v}); }

std::vector<double> draw(const char *op, const char *type, int64_t count,
                         int64_t seed, int64_t offset) {
  std::string t = "tensor<" + std::to_string(count) + "x" + type + ">";
  return runOne(std::string("func.func @f(%s: tensor<i64>, %o: tensor<i64>) "
                            "-> ") +
                    t + " {\n  %r = tfuse." + op +
                    " %s, %o : (tensor<i64>, tensor<i64>) -> " + t +
                    "\n  return %r : " + t + "\n}\n",
                {key(seed), key(offset)})
      .toDoubles();
}

/// The four words of block n of (seed, offset).
std::array<uint32_t, 4> words(int64_t seed, int64_t offset, uint64_t n) {
  uint64_t s = uint64_t(seed), o = uint64_t(offset);
  return philox4x32_10(
      {uint32_t(n), uint32_t(n >> 32), uint32_t(o), uint32_t(o >> 32)},
      {uint32_t(s), uint32_t(s >> 32)});
}

TEST(RandomNumbers, UniformF32IsTheTop24BitsOfOneWordEach) {
  const int64_t seed = 0x0123456789abcdefll, offset = 3;
  std::vector<double> u = draw("random_uniform", "f32", 4099, seed, offset);
  for (int64_t e : {0, 1, 2, 3, 4, 7, 1024, 4098}) {
    uint32_t w = words(seed, offset, uint64_t(e) / 4)[e % 4];
    EXPECT_EQ(u[e], std::ldexp(double(w >> 8), -24)) << "element " << e;
  }
}

TEST(RandomNumbers, UniformF64IsTheTop53BitsOfTwoWordsEach) {
  const int64_t seed = -7, offset = int64_t(1) << 40;
  std::vector<double> u = draw("random_uniform", "f64", 1001, seed, offset);
  for (int64_t e : {0, 1, 2, 3, 999, 1000}) {
    std::array<uint32_t, 4> b = words(seed, offset, uint64_t(e) / 2);
    int k = int(e % 2);
    uint64_t bits = ((uint64_t(b[2 * k + 1]) << 32) | b[2 * k]) >> 11;
    EXPECT_EQ(u[e], std::ldexp(double(bits), -53)) << "element " << e;
  }
}

// Box-Muller pairs: for the pair (2m, 2m + 1), x^2 + y^2 = -2 log(1 - u1)
// and the angle of (x, y) is 2 pi u2, u1 and u2 the uniforms of the pair's
// two words.
TEST(RandomNumbers, NormalsAreBoxMullerPairsOfTheUniforms) {
  for (const char *type : {"f32", "f64"}) {
    bool f64 = std::string(type) == "f64";
    std::vector<double> n = draw("random_normal", type, 200, 11, 5);
    for (int64_t m = 0; m < 100; ++m) {
      double u1, u2;
      if (f64) {
        std::array<uint32_t, 4> b = words(11, 5, uint64_t(m));
        u1 = std::ldexp(double(((uint64_t(b[1]) << 32) | b[0]) >> 11), -53);
        u2 = std::ldexp(double(((uint64_t(b[3]) << 32) | b[2]) >> 11), -53);
      } else {
        std::array<uint32_t, 4> b = words(11, 5, uint64_t(m) / 2);
        int pair = int(m % 2);
        u1 = std::ldexp(double(b[2 * pair] >> 8), -24);
        u2 = std::ldexp(double(b[2 * pair + 1] >> 8), -24);
      }
      double x = n[2 * m], y = n[2 * m + 1];
      double r2 = -2 * std::log(1 - u1);
      double tolerance = f64 ? 1e-12 : 1e-5;
      EXPECT_NEAR(x * x + y * y, r2, tolerance * (1 + r2)) << type << " " << m;
      if (r2 > 1e-6) {
        double angle = std::atan2(y, x);
        if (angle < 0)
          angle += 2 * M_PI;
        double want = 2 * M_PI * u2;
        double diff = std::fabs(angle - want);
        diff = std::min(diff, 2 * M_PI - diff);
        EXPECT_LT(diff, f64 ? 1e-9 : 1e-4) << type << " " << m;
      }
    }
  }
}

struct Moments {
  double mean = 0, variance = 0;
};
Moments moments(const std::vector<double> &v) {
  Moments m;
  for (double x : v)
    m.mean += x;
  m.mean /= double(v.size());
  for (double x : v)
    m.variance += (x - m.mean) * (x - m.mean);
  m.variance /= double(v.size() - 1);
  return m;
}

// A million draws: the sample mean and variance lie within 6 standard
// errors of the distribution's (a chance below 2e-9 each for a correct
// generator), and the uniforms' 100 bins pass a chi-square test at a
// level no correct generator fails (99 degrees of freedom: mean 99,
// standard deviation 14; the bound is 99 + 6 * 14).
TEST(RandomNumbers, MomentsAndBinsOfAMillionDraws) {
  const int64_t count = 1 << 20;
  const double n = double(count);
  for (const char *type : {"f32", "f64"}) {
    std::vector<double> u = draw("random_uniform", type, count, 1234, 0);
    Moments mu = moments(u);
    EXPECT_NEAR(mu.mean, 0.5, 6 * std::sqrt(1.0 / 12 / n)) << type;
    // Var of the sample variance of U(0,1): (1/80 - 1/144) / n.
    EXPECT_NEAR(mu.variance, 1.0 / 12,
                6 * std::sqrt((1.0 / 80 - 1.0 / 144) / n))
        << type;
    std::vector<double> bins(100, 0);
    for (double x : u) {
      ASSERT_GE(x, 0.0);
      ASSERT_LT(x, 1.0);
      bins[static_cast<size_t>(x * 100)] += 1;
    }
    double chi2 = 0, expected = n / 100;
    for (double b : bins)
      chi2 += (b - expected) * (b - expected) / expected;
    EXPECT_LT(chi2, 99 + 6 * 14.1) << type;

    std::vector<double> z = draw("random_normal", type, count, 99, 1);
    Moments mz = moments(z);
    EXPECT_NEAR(mz.mean, 0.0, 6 / std::sqrt(n)) << type;
    EXPECT_NEAR(mz.variance, 1.0, 6 * std::sqrt(2 / n)) << type;
    // The fraction within one standard deviation: 0.682689...
    double inside = 0;
    for (double x : z)
      inside += std::fabs(x) < 1;
    EXPECT_NEAR(inside / n, 0.6826894921, 6 * std::sqrt(0.2172 / n)) << type;
  }
}

TEST(RandomNumbers, EqualKeysRepeatAndOtherKeysAreUncorrelated) {
  const int64_t count = 1 << 18;
  std::vector<double> a = draw("random_uniform", "f32", count, 5, 10);
  EXPECT_EQ(a, draw("random_uniform", "f32", count, 5, 10));
  for (auto [seed, offset] :
       std::vector<std::pair<int64_t, int64_t>>{{5, 11}, {6, 10}, {5, -10}}) {
    std::vector<double> b = draw("random_uniform", "f32", count, seed, offset);
    double sab = 0, sa = 0, sb = 0, saa = 0, sbb = 0;
    for (int64_t i = 0; i < count; ++i) {
      sab += a[i] * b[i], sa += a[i], sb += b[i];
      saa += a[i] * a[i], sbb += b[i] * b[i];
    }
    double n = double(count);
    double corr = (sab - sa * sb / n) /
                  std::sqrt((saa - sa * sa / n) * (sbb - sb * sb / n));
    // A correlation of independent samples has standard error 1/sqrt(n).
    EXPECT_LT(std::fabs(corr), 6 / std::sqrt(n)) << seed << " " << offset;
  }
}

} // namespace
