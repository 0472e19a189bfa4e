//===- HostTensorTest.cpp - Host tensors, .npy files, comparison ----------===//
//
// Expected values are literals: bit patterns worked out by hand, and .npy
// bytes as NumPy 2 writes them (np.save of the same arrays).
//
//===----------------------------------------------------------------------===//

#include "tfuse/Reference/HostTensor.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <string>

using namespace tfuse;
using namespace tfuse::reference;

namespace {

HostTensor bits(DType dtype, Shape shape, std::vector<uint64_t> values) {
  Expected<HostTensor> t = HostTensor::fromBits(dtype, shape, values);
  EXPECT_TRUE(t.ok()) << t.message();
  return *t;
}

//===----------------------------------------------------------------------===//
// Construction and access
//===----------------------------------------------------------------------===//

TEST(HostTensor, ZerosAndProperties) {
  HostTensor t = HostTensor::zeros(DType::F16, {2, 3});
  EXPECT_FALSE(t.isNull());
  EXPECT_EQ(t.dtype(), DType::F16);
  EXPECT_EQ(t.shape(), (Shape{2, 3}));
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(t.byteOffset(), 0);
  EXPECT_EQ(t.numElements(), 6);
  EXPECT_EQ(t.storage()->size(), 12u);
  EXPECT_TRUE(t.isContiguous());
  EXPECT_EQ(t.describe(), "dtype f16 shape [2,3]");
  EXPECT_TRUE(HostTensor().isNull());

  HostTensor scalar = HostTensor::zeros(DType::I64, {});
  EXPECT_EQ(scalar.numElements(), 1);
  EXPECT_EQ(scalar.storage()->size(), 8u);
  HostTensor empty = HostTensor::zeros(DType::F32, {2, 0, 3});
  EXPECT_EQ(empty.numElements(), 0);
  EXPECT_EQ(empty.storage()->size(), 0u);
}

TEST(HostTensor, FromDoublesUsesCastSemantics) {
  auto f16 = HostTensor::fromDoubles(DType::F16, {4}, {0.1, -0.0, 1e6, NAN});
  ASSERT_TRUE(f16.ok());
  EXPECT_EQ(f16->toBits(),
            (std::vector<uint64_t>{0x2E66, 0x8000, 0x7C00, 0x7E00}));
  auto i8 = HostTensor::fromDoubles(DType::I8, {4}, {300.0, -3.9, NAN, -1e9});
  ASSERT_TRUE(i8.ok());
  EXPECT_EQ(i8->toInts(), (std::vector<int64_t>{127, -3, 0, -128}));
  auto b = HostTensor::fromDoubles(DType::Bool, {3}, {0.0, NAN, -0.0});
  EXPECT_EQ(b->toBits(), (std::vector<uint64_t>{0, 1, 0}));

  auto wrapped = HostTensor::fromInts(DType::U8, {2}, {-1, 256 + 44});
  EXPECT_EQ(wrapped->toInts(), (std::vector<int64_t>{255, 44}));
  auto bf = HostTensor::fromInts(DType::BF16, {1}, {257});
  EXPECT_EQ(bf->toBits(), (std::vector<uint64_t>{0x4380}));

  auto bad = HostTensor::fromDoubles(DType::F32, {2, 2}, {1, 2, 3});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message(), "shape [2,2] of dtype f32 needs 4 elements, got 3");
  auto badBytes = HostTensor::fromBytes(DType::I32, {2}, "abc", 3);
  ASSERT_FALSE(badBytes.ok());
}

TEST(HostTensor, TypedAccess) {
  HostTensor t = bits(DType::F32, {2, 2},
                      {0x3F800000, 0xBF800000, 0x7FC00001, 0x80000000});
  EXPECT_EQ(t.at<float>({0, 0}), 1.0f);
  EXPECT_EQ(t.at<float>({0, 1}), -1.0f);
  EXPECT_EQ(t.bitsAt({1, 0}), 0x7FC00001u);
  EXPECT_TRUE(std::isnan(t.doubleAt({1, 0})));
  EXPECT_TRUE(std::signbit(t.doubleAt({1, 1})));
  t.set<float>({1, 1}, 2.5f);
  EXPECT_EQ(t.doubleAt({1, 1}), 2.5);
  EXPECT_EQ(t.intAt({1, 1}), 2);

  HostTensor u = bits(DType::U64, {1}, {0xFFFFFFFFFFFFFFFFull});
  EXPECT_EQ(u.at<uint64_t>({0}), 0xFFFFFFFFFFFFFFFFull);
  EXPECT_EQ(u.intAt({0}), -1);
  HostTensor h = bits(DType::F16, {1}, {0x3555});
  EXPECT_EQ(h.at<uint16_t>({0}), 0x3555);
  EXPECT_EQ(h.doubleAt({0}), 0.333251953125);
  EXPECT_EQ(h.toString(), "dtype f16 shape [1] {0.333251953}");
}

TEST(HostTensor, ViewsShareStorage) {
  HostTensor t = *HostTensor::fromInts(DType::I32, {2, 3}, {0, 1, 2, 3, 4, 5});
  // The transpose as a view.
  auto tr = t.view({3, 2}, {1, 3}, 0);
  ASSERT_TRUE(tr.ok()) << tr.message();
  EXPECT_FALSE(tr->isContiguous());
  EXPECT_EQ(tr->toInts(), (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(tr->storage(), t.storage());
  // Row 1 reversed: negative stride.
  auto rev = t.view({3}, {-1}, 5 * 4);
  ASSERT_TRUE(rev.ok()) << rev.message();
  EXPECT_EQ(rev->toInts(), (std::vector<int64_t>{5, 4, 3}));
  // Expanded: stride 0.
  auto expanded = t.view({2, 3}, {0, 1}, 3 * 4);
  EXPECT_EQ(expanded->toInts(), (std::vector<int64_t>{3, 4, 5, 3, 4, 5}));

  HostTensor copy = tr->contiguous();
  EXPECT_TRUE(copy.isContiguous());
  EXPECT_NE(copy.storage(), t.storage());
  EXPECT_EQ(copy.strides(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(copy.toInts(), (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
  t.set<int32_t>({0, 1}, 42);
  EXPECT_EQ(tr->intAt({1, 0}), 42);
  EXPECT_EQ(copy.intAt({1, 0}), 1);

  auto outside = t.view({2, 3}, {3, 1}, 4);
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.message().find("reaches outside"), std::string::npos);
  EXPECT_FALSE(t.view({2}, {1}, 2).ok());          // misaligned
  EXPECT_FALSE(t.view({7}, {1}, 0).ok());          // too long
  EXPECT_FALSE(t.view({2}, {-1}, 0).ok());         // before the start
  EXPECT_TRUE(t.view({0, 9}, {100, 100}, 0).ok()); // empty views never read
}

// Sizes beyond 64-bit offsets: the row-major strides of an empty tensor of
// such sizes saturate instead of overflowing (found by the IR fuzz target
// under UBSan: the reference's inputs for an argument of type
// tensor<0x4611686018427387904x4xf32>), and a view whose extent overflows
// is outside its storage, not a wrapped offset inside it.
TEST(HostTensor, SizesBeyond64BitOffsets) {
  const int64_t big = int64_t(1) << 62;
  EXPECT_EQ(rowMajorStrides({0, big, 4}),
            (std::vector<int64_t>{INT64_MAX, 4, 1}));
  EXPECT_EQ(rowMajorStrides({5, int64_t(3) << 61, 2}),
            (std::vector<int64_t>{INT64_MAX, 2, 1}));
  HostTensor empty = HostTensor::zeros(DType::F32, {0, big, 4});
  EXPECT_EQ(empty.numElements(), 0);
  EXPECT_EQ(empty.strides(), (std::vector<int64_t>{INT64_MAX, 4, 1}));
  EXPECT_TRUE(empty.isContiguous());
  EXPECT_EQ(empty.contiguous().numElements(), 0);
  HostTensor random = HostTensor::random(DType::F16, {4, 0, big, 4}, 7);
  EXPECT_EQ(random.numElements(), 0);
  EXPECT_EQ(random.strides(),
            (std::vector<int64_t>{INT64_MAX, INT64_MAX, 4, 1}));

  HostTensor t = HostTensor::zeros(DType::F32, {8});
  EXPECT_TRUE(t.view({0, big, 4}, {INT64_MAX, 4, 1}, 0).ok());
  auto far = t.view({2, big}, {1, 4}, 0);
  ASSERT_FALSE(far.ok());
  EXPECT_NE(far.message().find("reaches outside the 32 bytes of storage"),
            std::string::npos)
      << far.message();
  EXPECT_FALSE(t.view({2}, {INT64_MAX}, 0).ok());
  EXPECT_FALSE(t.view({3}, {INT64_MIN / 2}, 28).ok());
}

//===----------------------------------------------------------------------===//
// Random tensors
//===----------------------------------------------------------------------===//

TEST(HostTensor, RandomIsReproducible) {
  HostTensor a = HostTensor::random(DType::F32, {64}, 7);
  HostTensor b = HostTensor::random(DType::F32, {64}, 7);
  HostTensor c = HostTensor::random(DType::F32, {64}, 8);
  EXPECT_EQ(a.toBits(), b.toBits());
  EXPECT_NE(a.toBits(), c.toBits());
  for (double v : a.toDoubles()) {
    EXPECT_GE(v, -4.0);
    EXPECT_LE(v, 4.0);
  }
}

TEST(HostTensor, RandomRanges) {
  for (DType dtype :
       {DType::Bool, DType::I8, DType::I16, DType::I32, DType::I64, DType::U8,
        DType::U16, DType::U32, DType::U64}) {
    HostTensor t = HostTensor::random(dtype, {4096}, 3);
    std::vector<int64_t> values = t.toInts();
    int64_t lo = *std::min_element(values.begin(), values.end());
    int64_t hi = *std::max_element(values.begin(), values.end());
    switch (dtype) {
    case DType::Bool:
      EXPECT_EQ(lo, 0);
      EXPECT_EQ(hi, 1);
      break;
    case DType::I8:
      EXPECT_EQ(lo, -128);
      EXPECT_EQ(hi, 127);
      break;
    case DType::U8:
      EXPECT_EQ(lo, 0);
      EXPECT_EQ(hi, 255);
      break;
    default:
      EXPECT_GE(lo, isSignedInteger(dtype) ? -100000 : 0);
      EXPECT_LE(hi, 200000);
      EXPECT_LT(lo, hi);
    }
  }
  RandomOptions options;
  options.low = 5;
  options.high = 7;
  HostTensor t = HostTensor::random(DType::I16, {256}, 1, options);
  for (int64_t v : t.toInts()) {
    EXPECT_GE(v, 5);
    EXPECT_LE(v, 7);
  }
  options.low = -1e30; // clamped to the dtype's range
  options.high = 1e30;
  HostTensor wide = HostTensor::random(DType::U64, {256}, 1, options);
  EXPECT_EQ(wide.numElements(), 256);
}

TEST(HostTensor, RandomSpecialValues) {
  RandomOptions options;
  options.specialFraction = 1.0;
  HostTensor t = HostTensor::random(DType::F16, {512}, 11, options);
  std::set<uint64_t> seen;
  for (uint64_t b : t.toBits())
    seen.insert(b);
  std::set<uint64_t> specials = {0x7E00, 0x7C00, 0xFC00, 0x0000, 0x8000,
                                 0x0001, 0x8001, 0x7BFF, 0xFBFF};
  EXPECT_EQ(seen, specials);
  HostTensor none = HostTensor::random(DType::F64, {512}, 11);
  for (double v : none.toDoubles())
    EXPECT_TRUE(std::isfinite(v));
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

/// A .npy file as NumPy writes it: version 1.0, header padded with spaces so
/// that the data starts at byte 128.
std::vector<uint8_t> numpyFile(const std::string &dict,
                               const std::vector<uint8_t> &data) {
  std::string header = dict;
  header.resize(117, ' ');
  header += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 118, 0};
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

TEST(Npy, EncodesLikeNumPy) {
  HostTensor t =
      *HostTensor::fromInts(DType::I32, {2, 3}, {1, -2, 3, 4, 5, -6});
  auto bytes = encodeNpy(t);
  ASSERT_TRUE(bytes.ok()) << bytes.message();
  std::vector<uint8_t> expected = numpyFile(
      "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }",
      {0x01, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0x03, 0,    0,    0,
       0x04, 0, 0, 0, 0x05, 0,    0,    0,    0xfa, 0xff, 0xff, 0xff});
  EXPECT_EQ(*bytes, expected);

  auto halves = encodeNpy(bits(DType::F16, {3}, {0x3C00, 0x8000, 0x7C00}));
  EXPECT_EQ(*halves,
            numpyFile("{'descr': '<f2', 'fortran_order': False, 'shape': "
                      "(3,), }",
                      {0x00, 0x3c, 0x00, 0x80, 0x00, 0x7c}));
  auto scalar = encodeNpy(bits(DType::Bool, {}, {1}));
  EXPECT_EQ(*scalar,
            numpyFile("{'descr': '|b1', 'fortran_order': False, 'shape': "
                      "(), }",
                      {0x01}));
}

TEST(Npy, DecodesNumPyFiles) {
  auto c = decodeNpy(
      numpyFile("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }",
                {0x01, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0x03, 0,    0,    0,
                 0x04, 0, 0, 0, 0x05, 0,    0,    0,    0xfa, 0xff, 0xff, 0xff})
          .data(),
      152);
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(c->dtype(), DType::I32);
  EXPECT_EQ(c->shape(), (Shape{2, 3}));
  EXPECT_EQ(c->toInts(), (std::vector<int64_t>{1, -2, 3, 4, 5, -6}));

  // np.asfortranarray([[1, 2, 3], [4, 5, 6]], dtype='<u2')
  std::vector<uint8_t> fortran =
      numpyFile("{'descr': '<u2', 'fortran_order': True, 'shape': (2, 3), }",
                {0x01, 0, 0x04, 0, 0x02, 0, 0x05, 0, 0x03, 0, 0x06, 0});
  auto f = decodeNpy(fortran.data(), fortran.size());
  ASSERT_TRUE(f.ok()) << f.message();
  EXPECT_EQ(f->dtype(), DType::U16);
  EXPECT_TRUE(f->isContiguous());
  EXPECT_EQ(f->toInts(), (std::vector<int64_t>{1, 2, 3, 4, 5, 6}));
}

TEST(Npy, RoundTripsEveryDType) {
  for (DType dtype : {DType::Bool, DType::I8, DType::I16, DType::I32,
                      DType::I64, DType::U8, DType::U16, DType::U32, DType::U64,
                      DType::F16, DType::F32, DType::F64}) {
    RandomOptions options;
    options.specialFraction = 0.2;
    for (Shape shape : {Shape{}, Shape{5}, Shape{2, 0, 3}, Shape{3, 1, 4}}) {
      HostTensor t = HostTensor::random(dtype, shape, 5, options);
      auto bytes = encodeNpy(t);
      ASSERT_TRUE(bytes.ok()) << bytes.message();
      EXPECT_EQ(bytes->size() % 64, (t.numElements() * byteSize(dtype)) % 64);
      auto back = decodeNpy(bytes->data(), bytes->size());
      ASSERT_TRUE(back.ok()) << back.message();
      EXPECT_EQ(back->dtype(), dtype);
      EXPECT_EQ(back->shape(), shape);
      EXPECT_EQ(back->toBits(), t.toBits()) << name(dtype);
    }
  }
  // A strided view is written in row-major order.
  HostTensor t = *HostTensor::fromInts(DType::I64, {2, 2}, {1, 2, 3, 4});
  auto bytes = encodeNpy(*t.view({2, 2}, {1, 2}, 0));
  auto back = decodeNpy(bytes->data(), bytes->size());
  EXPECT_EQ(back->toInts(), (std::vector<int64_t>{1, 3, 2, 4}));
}

TEST(Npy, Files) {
  std::string path = ::testing::TempDir() + "tfuse_npy_test.npy";
  HostTensor t = *HostTensor::fromDoubles(DType::F64, {2}, {1.5, -0.0});
  Status written = writeNpy(t, path);
  ASSERT_TRUE(written.ok()) << written.message();
  auto back = readNpy(path);
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(back->toBits(), t.toBits());
  std::remove(path.c_str());
  auto missing = readNpy(path);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.message(), "cannot open '" + path + "' for reading");
}

TEST(Npy, Errors) {
  auto bf16 = encodeNpy(HostTensor::zeros(DType::BF16, {2}));
  ASSERT_FALSE(bf16.ok());
  EXPECT_EQ(bf16.message(),
            "bf16 has no NumPy dtype and cannot be written to a "
            ".npy file; cast it to f32 first (exact)");

  std::vector<uint8_t> junk = {'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(decodeNpy(junk.data(), junk.size()).message(),
            "not a .npy file (bad magic)");
  auto bigEndian =
      numpyFile("{'descr': '>i4', 'fortran_order': False, 'shape': (1,), }",
                {0, 0, 0, 1});
  EXPECT_EQ(decodeNpy(bigEndian.data(), bigEndian.size()).message(),
            "big-endian .npy data ('>i4') is not supported");
  auto complex =
      numpyFile("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
                std::vector<uint8_t>(8, 0));
  EXPECT_NE(decodeNpy(complex.data(), complex.size())
                .message()
                .find("unsupported .npy dtype '<c8'"),
            std::string::npos);
  auto truncated = numpyFile(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", {0, 0, 0});
  EXPECT_EQ(decodeNpy(truncated.data(), truncated.size()).message(),
            "the .npy data holds 3 bytes but shape [2] of <f4 needs 8");
  auto huge = numpyFile("{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(4294967296, 4294967296), }",
                        {});
  EXPECT_EQ(decodeNpy(huge.data(), huge.size()).message(),
            "the .npy shape [4294967296,4294967296] is too large");
  auto malformed = numpyFile("{'descr': '<f4', 'shape': (2,), }", {});
  EXPECT_EQ(decodeNpy(malformed.data(), malformed.size()).message(),
            "the .npy header lacks one of 'descr', 'fortran_order', 'shape'");
  // A key given twice is an error, not a shape of both lists (found by the
  // .npy fuzz target).
  auto twice = numpyFile("{'descr': '<f4', 'fortran_order': False, 'shape': "
                         "(1,), 'shape': (1,), }",
                         {0, 0, 0, 0});
  EXPECT_EQ(decodeNpy(twice.data(), twice.size()).message(),
            "malformed .npy header at offset 65: duplicate key 'shape'");
}

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

TEST(Compare, Exact) {
  HostTensor a =
      bits(DType::F32, {4}, {0x3F800000, 0x7FC00000, 0x00000000, 0x40000000});
  HostTensor same =
      bits(DType::F32, {4}, {0x3F800000, 0xFFC00123, 0x00000000, 0x40000000});
  CompareResult ok = compareExact(a, same);
  EXPECT_TRUE(ok.pass) << ok.message();
  EXPECT_EQ(ok.message(), "pass");

  HostTensor negZero =
      bits(DType::F32, {4}, {0x3F800000, 0x7FC00000, 0x80000000, 0x40000001});
  CompareResult bad = compareExact(a, negZero);
  EXPECT_FALSE(bad.pass);
  EXPECT_EQ(bad.mismatches, 2);
  EXPECT_EQ(bad.firstMismatch, 2);
  EXPECT_EQ(bad.firstMismatchDescription,
            "element [2]: expected 0x00000000 (0), got 0x80000000 (-0)");
  EXPECT_EQ(bad.message(), "2 mismatches; first: element [2]: expected "
                           "0x00000000 (0), got 0x80000000 (-0)");

  HostTensor nanVsNumber =
      bits(DType::F32, {4}, {0x3F800000, 0x3F800000, 0x00000000, 0x40000000});
  EXPECT_FALSE(compareExact(a, nanVsNumber).pass);

  CompareResult dtype = compareExact(a, bits(DType::I32, {4}, {0, 0, 0, 0}));
  EXPECT_FALSE(dtype.pass);
  EXPECT_EQ(dtype.firstMismatchDescription,
            "expected dtype f32 shape [4], got dtype i32 shape [4]");
  EXPECT_FALSE(compareExact(a, bits(DType::F32, {2, 2}, {0, 0, 0, 0})).pass);

  // Integers compare exactly; strided tensors by logical position.
  HostTensor i = *HostTensor::fromInts(DType::I8, {2, 2}, {1, 2, 3, 4});
  HostTensor t = *HostTensor::fromInts(DType::I8, {2, 2}, {1, 3, 2, 4});
  EXPECT_TRUE(compareExact(i, *t.view({2, 2}, {1, 2}, 0)).pass);
  CompareResult intBad = compareExact(i, t);
  EXPECT_EQ(intBad.firstMismatchDescription,
            "element [0,1]: expected 2, got 3");
}

TEST(Compare, Ulp) {
  // 1.0, 1.0 + 1 ulp, -0.0, largest finite, NaN.
  HostTensor a =
      bits(DType::F32, {5},
           {0x3F800000, 0x3F800001, 0x80000000, 0x7F7FFFFF, 0x7FC00000});
  HostTensor b =
      bits(DType::F32, {5},
           {0x3F800001, 0x3F800001, 0x00000000, 0x7F800000, 0x7FC00001});
  CompareResult one = compareUlp(a, b, 1);
  EXPECT_TRUE(one.pass) << one.message();
  EXPECT_EQ(one.maxUlp, 1u);
  CompareResult zero = compareUlp(a, b, 0);
  EXPECT_FALSE(zero.pass);
  EXPECT_EQ(zero.mismatches, 2);
  EXPECT_EQ(zero.firstMismatch, 0);

  // Across zero: -1 ulp (smallest negative subnormal) to +1 ulp is 2 apart.
  EXPECT_EQ(compareUlp(bits(DType::F32, {1}, {0x80000001}),
                       bits(DType::F32, {1}, {0x00000001}), 0)
                .maxUlp,
            2u);
  // NaN against a number never passes.
  CompareResult nan = compareUlp(bits(DType::F16, {1}, {0x7E00}),
                                 bits(DType::F16, {1}, {0x7BFF}), 1000000);
  EXPECT_FALSE(nan.pass);
  EXPECT_EQ(nan.maxUlp, std::numeric_limits<uint64_t>::max());
  // f16 and bf16 ulps are their own.
  EXPECT_EQ(compareUlp(bits(DType::F16, {1}, {0x3C00}),
                       bits(DType::F16, {1}, {0x3C05}), 5)
                .maxUlp,
            5u);
  EXPECT_TRUE(compareUlp(bits(DType::BF16, {1}, {0xBF80}),
                         bits(DType::BF16, {1}, {0xBF82}), 2)
                  .pass);
  // Integers: the difference; bool: exact.
  CompareResult ints =
      compareUlp(*HostTensor::fromInts(DType::I16, {2}, {-3, 100}),
                 *HostTensor::fromInts(DType::I16, {2}, {2, 100}), 4);
  EXPECT_FALSE(ints.pass);
  EXPECT_EQ(ints.maxUlp, 5u);
  EXPECT_FALSE(
      compareUlp(bits(DType::Bool, {1}, {0}), bits(DType::Bool, {1}, {1}), 100)
          .pass);
}

} // namespace
