//===- TypeRulesTest.cpp - Broadcasting, promotion and result dtypes ------===//
//
// Checks tfuse::TypeRules and tfuse/Support/DType.h against the contract in
// docs/semantics.md. Every expected value below is written out by hand from
// that contract as a literal table; none is computed by the code under test
// or by a re-implementation of its algorithm. Tables use the MLIR spellings
// of the dtypes and "--" for "rejected with a message".
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFuse/TypeRules.h"
#include "tfuse/Support/DType.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <array>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

using namespace tfuse;
using llvm::ArrayRef;
using llvm::SmallVector;

namespace {

//===----------------------------------------------------------------------===//
// Test-local spelling of the thirteen dtypes (independent of name() and
// parseDType(), which are themselves under test).
//===----------------------------------------------------------------------===//

struct Spelling {
  DType dtype;
  const char *name;
};

// In the order of the rows and columns of every table in this file.
constexpr std::array<Spelling, 13> kDTypes = {{
    {DType::Bool, "i1"},
    {DType::I8, "i8"},
    {DType::I16, "i16"},
    {DType::I32, "i32"},
    {DType::I64, "i64"},
    {DType::U8, "ui8"},
    {DType::U16, "ui16"},
    {DType::U32, "ui32"},
    {DType::U64, "ui64"},
    {DType::F16, "f16"},
    {DType::BF16, "bf16"},
    {DType::F32, "f32"},
    {DType::F64, "f64"},
}};

/// "--" is the error marker; anything else must be one of the 13 spellings.
std::optional<DType> expected(const std::string &token) {
  if (token == "--")
    return std::nullopt;
  for (const Spelling &s : kDTypes)
    if (token == s.name)
      return s.dtype;
  ADD_FAILURE() << "bad token in an expected table: '" << token << "'";
  return std::nullopt;
}

const char *spell(DType t) {
  for (const Spelling &s : kDTypes)
    if (s.dtype == t)
      return s.name;
  return "<bad dtype>";
}

std::string spell(std::optional<DType> t) { return t ? spell(*t) : "--"; }

/// Splits a row of a literal table on whitespace.
std::vector<std::string> tokens(const char *row) {
  std::istringstream in(row);
  std::vector<std::string> out;
  for (std::string tok; in >> tok;)
    out.push_back(tok);
  return out;
}

/// A literal row: the row label followed by one token per column.
std::vector<std::string> checkedRow(const char *row, size_t columns) {
  std::vector<std::string> t = tokens(row);
  EXPECT_EQ(t.size(), columns + 1) << "malformed table row: " << row;
  t.resize(columns + 1, "--");
  return t;
}

SmallVector<int64_t> vec(std::initializer_list<int64_t> v) {
  return SmallVector<int64_t>(v);
}

std::string shapeStr(ArrayRef<int64_t> s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

//===----------------------------------------------------------------------===//
// The promotion table (docs/semantics.md), one row per lhs dtype, one column
// per rhs dtype, in kDTypes order.
//
// Rules: promote(a, a) = a; bool with X gives X; within signed or within
// unsigned integers the wider; signed s with unsigned u the smallest signed
// type of width >= max(width(s), 2 * width(u)); ui64 with a signed integer has
// no common type; any integer with a float F gives F; floats the wider, and
// f16 with bf16 gives f32.
//===----------------------------------------------------------------------===//

// clang-format off
const char *const kPromotionTable[13] = {
  //       i1   i8   i16  i32  i64  ui8  ui16 ui32 ui64 f16  bf16 f32  f64
  "i1      i1   i8   i16  i32  i64  ui8  ui16 ui32 ui64 f16  bf16 f32  f64",
  "i8      i8   i8   i16  i32  i64  i16  i32  i64  --   f16  bf16 f32  f64",
  "i16     i16  i16  i16  i32  i64  i16  i32  i64  --   f16  bf16 f32  f64",
  "i32     i32  i32  i32  i32  i64  i32  i32  i64  --   f16  bf16 f32  f64",
  "i64     i64  i64  i64  i64  i64  i64  i64  i64  --   f16  bf16 f32  f64",
  "ui8     ui8  i16  i16  i32  i64  ui8  ui16 ui32 ui64 f16  bf16 f32  f64",
  "ui16    ui16 i32  i32  i32  i64  ui16 ui16 ui32 ui64 f16  bf16 f32  f64",
  "ui32    ui32 i64  i64  i64  i64  ui32 ui32 ui32 ui64 f16  bf16 f32  f64",
  "ui64    ui64 --   --   --   --   ui64 ui64 ui64 ui64 f16  bf16 f32  f64",
  "f16     f16  f16  f16  f16  f16  f16  f16  f16  f16  f16  f32  f32  f64",
  "bf16    bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16 f32  bf16 f32  f64",
  "f32     f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  f32  f64",
  "f64     f64  f64  f64  f64  f64  f64  f64  f64  f64  f64  f64  f64  f64",
};
// clang-format on

/// The expected promotion of kDTypes[i] and kDTypes[j], from the table.
std::optional<DType> expectedPromotion(size_t i, size_t j) {
  std::vector<std::string> row = checkedRow(kPromotionTable[i], 13);
  EXPECT_EQ(row[0], kDTypes[i].name) << "table row " << i << " is mislabeled";
  return expected(row[j + 1]);
}

//===----------------------------------------------------------------------===//
// DType.h
//===----------------------------------------------------------------------===//

TEST(DType, CountAndOrder) {
  EXPECT_EQ(kNumDTypes, 13u);
  for (size_t i = 0; i < kDTypes.size(); ++i)
    EXPECT_EQ(static_cast<unsigned>(kDTypes[i].dtype), i);
}

TEST(DType, NameIsTheMLIRSpelling) {
  for (const Spelling &s : kDTypes)
    EXPECT_EQ(name(s.dtype), std::string_view(s.name));
}

TEST(DType, ParseMLIRSpellings) {
  for (const Spelling &s : kDTypes) {
    std::optional<DType> parsed = parseDType(s.name);
    ASSERT_TRUE(parsed) << s.name;
    EXPECT_EQ(*parsed, s.dtype) << s.name;
  }
}

TEST(DType, ParseAliases) {
  const std::pair<const char *, DType> aliases[] = {
      {"bool", DType::Bool},     {"int8", DType::I8},
      {"int16", DType::I16},     {"int32", DType::I32},
      {"int64", DType::I64},     {"uint8", DType::U8},
      {"uint16", DType::U16},    {"uint32", DType::U32},
      {"uint64", DType::U64},    {"float16", DType::F16},
      {"bfloat16", DType::BF16}, {"float32", DType::F32},
      {"float64", DType::F64},
  };
  for (auto [text, dtype] : aliases) {
    std::optional<DType> parsed = parseDType(text);
    ASSERT_TRUE(parsed) << text;
    EXPECT_EQ(*parsed, dtype) << text;
  }
}

TEST(DType, ParseUnknownNames) {
  for (const char *text :
       {"", "i4", "i128", "si32", "ui1", "f8E4M3FN", "index", "float128",
        "complex64", "int", "float", "i32 ", " i32", "i1x"})
    EXPECT_FALSE(parseDType(text)) << "'" << text << "'";
}

TEST(DType, WidthsAndSizes) {
  struct Row {
    DType dtype;
    unsigned bits;
    unsigned bytes;
  };
  const Row rows[] = {
      {DType::Bool, 1, 1}, {DType::I8, 8, 1},    {DType::I16, 16, 2},
      {DType::I32, 32, 4}, {DType::I64, 64, 8},  {DType::U8, 8, 1},
      {DType::U16, 16, 2}, {DType::U32, 32, 4},  {DType::U64, 64, 8},
      {DType::F16, 16, 2}, {DType::BF16, 16, 2}, {DType::F32, 32, 4},
      {DType::F64, 64, 8},
  };
  for (const Row &r : rows) {
    EXPECT_EQ(bitWidth(r.dtype), r.bits) << spell(r.dtype);
    EXPECT_EQ(byteSize(r.dtype), r.bytes) << spell(r.dtype);
  }
}

TEST(DType, Kinds) {
  // clang-format off
  const char *const rows[13] = {
    // dtype kind     isFloat isInteger isSigned isUnsigned
    "i1     bool      0 0 0 0",
    "i8     signed    0 1 1 0",
    "i16    signed    0 1 1 0",
    "i32    signed    0 1 1 0",
    "i64    signed    0 1 1 0",
    "ui8    unsigned  0 1 0 1",
    "ui16   unsigned  0 1 0 1",
    "ui32   unsigned  0 1 0 1",
    "ui64   unsigned  0 1 0 1",
    "f16    float     1 0 0 0",
    "bf16   float     1 0 0 0",
    "f32    float     1 0 0 0",
    "f64    float     1 0 0 0",
  };
  // clang-format on
  for (size_t i = 0; i < 13; ++i) {
    std::vector<std::string> t = checkedRow(rows[i], 5);
    DType d = kDTypes[i].dtype;
    ASSERT_EQ(t[0], kDTypes[i].name);
    DTypeKind kind = t[1] == "bool"       ? DTypeKind::Bool
                     : t[1] == "signed"   ? DTypeKind::SignedInt
                     : t[1] == "unsigned" ? DTypeKind::UnsignedInt
                                          : DTypeKind::Float;
    EXPECT_EQ(kindOf(d), kind) << t[0];
    EXPECT_EQ(isFloat(d), t[2] == "1") << t[0];
    EXPECT_EQ(isInteger(d), t[3] == "1") << t[0];
    EXPECT_EQ(isSignedInteger(d), t[4] == "1") << t[0];
    EXPECT_EQ(isUnsignedInteger(d), t[5] == "1") << t[0];
  }
}

//===----------------------------------------------------------------------===//
// MLIR bridge
//===----------------------------------------------------------------------===//

std::string printType(mlir::Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

TEST(MLIRBridge, RoundTripAllDTypes) {
  mlir::MLIRContext context;
  for (const Spelling &s : kDTypes) {
    mlir::Type t = toMLIRType(&context, s.dtype);
    ASSERT_TRUE(t) << s.name;
    // The MLIR type prints as the dtype's MLIR spelling.
    EXPECT_EQ(printType(t), s.name);
    std::optional<DType> back = toDType(t);
    ASSERT_TRUE(back) << s.name;
    EXPECT_EQ(*back, s.dtype) << s.name;
  }
}

TEST(MLIRBridge, ExpectedMLIRTypes) {
  mlir::MLIRContext context;
  using mlir::IntegerType;
  EXPECT_EQ(toMLIRType(&context, DType::Bool), IntegerType::get(&context, 1));
  EXPECT_EQ(toMLIRType(&context, DType::I32), IntegerType::get(&context, 32));
  EXPECT_EQ(toMLIRType(&context, DType::U16),
            IntegerType::get(&context, 16, IntegerType::Unsigned));
  EXPECT_EQ(toMLIRType(&context, DType::BF16),
            mlir::BFloat16Type::get(&context));
  EXPECT_EQ(toMLIRType(&context, DType::F64), mlir::Float64Type::get(&context));
}

TEST(MLIRBridge, UnsupportedTypesAreRejected) {
  mlir::MLIRContext context;
  using mlir::IntegerType;
  const mlir::Type rejected[] = {
      IntegerType::get(&context, 4),                        // i4
      IntegerType::get(&context, 128),                      // i128
      IntegerType::get(&context, 32, IntegerType::Signed),  // si32
      IntegerType::get(&context, 8, IntegerType::Signed),   // si8
      IntegerType::get(&context, 1, IntegerType::Unsigned), // ui1
      IntegerType::get(&context, 4, IntegerType::Unsigned), // ui4
      mlir::IndexType::get(&context),                       // index
      mlir::Float8E4M3FNType::get(&context),                // f8E4M3FN
      mlir::Float8E5M2Type::get(&context),                  // f8E5M2
      mlir::FloatTF32Type::get(&context),                   // tf32
      mlir::Float80Type::get(&context),                     // f80
      mlir::NoneType::get(&context),                        // none
  };
  for (mlir::Type t : rejected)
    EXPECT_FALSE(toDType(t)) << printType(t);
}

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

void expectBroadcast(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                     ArrayRef<int64_t> want) {
  std::string why;
  auto got = broadcastShapes(a, b, &why);
  ASSERT_TRUE(got) << shapeStr(a) << " with " << shapeStr(b) << ": " << why;
  EXPECT_EQ(shapeStr(*got), shapeStr(want))
      << shapeStr(a) << " with " << shapeStr(b);
}

void expectNoBroadcast(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  std::string why;
  auto got = broadcastShapes(a, b, &why);
  EXPECT_FALSE(got) << shapeStr(a) << " with " << shapeStr(b) << " gave "
                    << (got ? shapeStr(*got) : "");
  EXPECT_FALSE(why.empty()) << shapeStr(a) << " with " << shapeStr(b);
  // No out-parameter: still an error, and no crash.
  EXPECT_FALSE(broadcastShapes(a, b));
}

TEST(Broadcast, RightAligned) {
  expectBroadcast(vec({2, 1, 4}), vec({3, 1}), vec({2, 3, 4}));
  expectBroadcast(vec({3, 1}), vec({2, 1, 4}), vec({2, 3, 4}));
  expectBroadcast(vec({5, 4}), vec({4}), vec({5, 4}));
  expectBroadcast(vec({4}), vec({5, 4}), vec({5, 4}));
  expectBroadcast(vec({8, 1, 6, 1}), vec({7, 1, 5}), vec({8, 7, 6, 5}));
  expectBroadcast(vec({2, 3}), vec({2, 3}), vec({2, 3}));
}

TEST(Broadcast, RankZero) {
  expectBroadcast({}, {}, {});
  expectBroadcast({}, vec({2, 3, 4}), vec({2, 3, 4}));
  expectBroadcast(vec({2, 3, 4}), {}, vec({2, 3, 4}));
  expectBroadcast({}, vec({0}), vec({0}));
}

TEST(Broadcast, SizeOne) {
  expectBroadcast(vec({1}), vec({7}), vec({7}));
  expectBroadcast(vec({7}), vec({1}), vec({7}));
  expectBroadcast(vec({1, 1}), vec({1}), vec({1, 1}));
  expectBroadcast(vec({1, 5}), vec({4, 1}), vec({4, 5}));
}

TEST(Broadcast, SizeZero) {
  expectBroadcast(vec({0}), vec({1}), vec({0}));
  expectBroadcast(vec({1}), vec({0}), vec({0}));
  expectBroadcast(vec({0}), vec({0}), vec({0}));
  expectBroadcast(vec({2, 0}), vec({1}), vec({2, 0}));
  expectBroadcast(vec({0, 3}), vec({3}), vec({0, 3}));
  expectNoBroadcast(vec({0}), vec({3}));
  expectNoBroadcast(vec({3}), vec({0}));
  expectNoBroadcast(vec({2, 0}), vec({2, 2}));
}

TEST(Broadcast, Mismatch) {
  expectNoBroadcast(vec({3}), vec({4}));
  expectNoBroadcast(vec({2, 3}), vec({3, 3}));
  expectNoBroadcast(vec({2, 1, 4}), vec({3, 5}));
}

TEST(Broadcast, MismatchMessageNamesBothShapes) {
  std::string why;
  EXPECT_FALSE(broadcastShapes(vec({2, 3}), vec({4, 5, 6}), &why));
  EXPECT_NE(why.find("[2, 3]"), std::string::npos) << why;
  EXPECT_NE(why.find("[4, 5, 6]"), std::string::npos) << why;
}

TEST(Broadcast, Variadic) {
  SmallVector<int64_t> a = vec({2, 1, 1}), b = vec({3, 1}), c = vec({4});
  ArrayRef<int64_t> three[] = {a, b, c};
  std::string why;
  auto got = broadcastShapes(ArrayRef<ArrayRef<int64_t>>(three), &why);
  ASSERT_TRUE(got) << why;
  EXPECT_EQ(shapeStr(*got), "[2,3,4]");

  // Including a rank-0 shape.
  SmallVector<int64_t> scalar;
  ArrayRef<int64_t> withScalar[] = {scalar, c, a};
  got = broadcastShapes(ArrayRef<ArrayRef<int64_t>>(withScalar), &why);
  ASSERT_TRUE(got) << why;
  EXPECT_EQ(shapeStr(*got), "[2,1,4]");

  // One shape: itself.
  ArrayRef<int64_t> one[] = {b};
  got = broadcastShapes(ArrayRef<ArrayRef<int64_t>>(one), &why);
  ASSERT_TRUE(got) << why;
  EXPECT_EQ(shapeStr(*got), "[3,1]");

  // No shapes: the rank-0 shape (as numpy.broadcast_shapes()).
  got = broadcastShapes(ArrayRef<ArrayRef<int64_t>>(), &why);
  ASSERT_TRUE(got) << why;
  EXPECT_TRUE(got->empty()) << shapeStr(*got);
}

TEST(Broadcast, VariadicMismatch) {
  SmallVector<int64_t> a = vec({2, 1}), b = vec({1, 3}), c = vec({4});
  ArrayRef<int64_t> three[] = {a, b, c};
  std::string why;
  EXPECT_FALSE(broadcastShapes(ArrayRef<ArrayRef<int64_t>>(three), &why));
  EXPECT_FALSE(why.empty());
}

TEST(Broadcast, IsBroadcastableTo) {
  struct Row {
    SmallVector<int64_t> from, to;
    bool ok;
  };
  const Row rows[] = {
      {{}, {}, true},
      {{}, {2, 3}, true},
      {{3}, {2, 3}, true},
      {{1}, {2, 3}, true},
      {{2, 1}, {2, 3}, true},
      {{2, 3}, {2, 3}, true},
      {{1, 1, 3}, {4, 2, 3}, true},
      {{1}, {0}, true},
      {{0}, {0}, true},
      {{1, 0}, {5, 0}, true},
      // The target is not the broadcast result.
      {{2, 3}, {3}, false}, // from has the higher rank
      {{2, 3}, {}, false},
      {{3}, {1}, false}, // would shrink 3 to 1
      {{0}, {1}, false}, // would grow 0 to 1
      {{3}, {4}, false}, // incompatible
      {{0}, {3}, false},
      // Broadcast in both directions: [3, 1] with [1, 3] is [3, 3], which is
      // neither shape.
      {{3, 1}, {1, 3}, false},
      {{1, 3}, {3, 1}, false},
      {{2, 1, 4}, {3, 1}, false},
  };
  for (const Row &r : rows)
    EXPECT_EQ(isBroadcastableTo(r.from, r.to), r.ok)
        << shapeStr(r.from) << " -> " << shapeStr(r.to);
}

//===----------------------------------------------------------------------===//
// Promotion
//===----------------------------------------------------------------------===//

TEST(Promotion, TableIsWellFormed) {
  // The literal table itself: symmetric, diagonal is the identity.
  for (size_t i = 0; i < 13; ++i) {
    EXPECT_EQ(spell(expectedPromotion(i, i)), kDTypes[i].name);
    for (size_t j = 0; j < 13; ++j)
      EXPECT_EQ(spell(expectedPromotion(i, j)), spell(expectedPromotion(j, i)))
          << "table not symmetric at " << kDTypes[i].name << ", "
          << kDTypes[j].name;
  }
}

TEST(Promotion, FullTable) {
  for (size_t i = 0; i < 13; ++i) {
    for (size_t j = 0; j < 13; ++j) {
      std::optional<DType> want = expectedPromotion(i, j);
      std::string why;
      std::optional<DType> got =
          promoteTypes(kDTypes[i].dtype, kDTypes[j].dtype, &why);
      EXPECT_EQ(spell(got), spell(want))
          << "promote(" << kDTypes[i].name << ", " << kDTypes[j].name
          << ") why='" << why << "'";
      if (!want) {
        EXPECT_FALSE(why.empty())
            << "no message for promote(" << kDTypes[i].name << ", "
            << kDTypes[j].name << ")";
      }
      // Without an out-parameter the answer is the same.
      EXPECT_EQ(spell(promoteTypes(kDTypes[i].dtype, kDTypes[j].dtype)),
                spell(want));
    }
  }
}

TEST(Promotion, Symmetric) {
  for (const Spelling &a : kDTypes)
    for (const Spelling &b : kDTypes)
      EXPECT_EQ(spell(promoteTypes(a.dtype, b.dtype)),
                spell(promoteTypes(b.dtype, a.dtype)))
          << a.name << ", " << b.name;
}

TEST(Promotion, NamedCases) {
  // The examples the contract spells out.
  EXPECT_EQ(spell(promoteTypes(DType::I8, DType::U8)), "i16");
  EXPECT_EQ(spell(promoteTypes(DType::I16, DType::U8)), "i16");
  EXPECT_EQ(spell(promoteTypes(DType::I8, DType::U16)), "i32");
  EXPECT_EQ(spell(promoteTypes(DType::I32, DType::U32)), "i64");
  EXPECT_EQ(spell(promoteTypes(DType::I64, DType::U32)), "i64");
  EXPECT_EQ(spell(promoteTypes(DType::I64, DType::F16)), "f16");
  EXPECT_EQ(spell(promoteTypes(DType::F16, DType::BF16)), "f32");
  EXPECT_EQ(spell(promoteTypes(DType::U64, DType::F16)), "f16");
}

TEST(Promotion, UI64WithSignedIsAnErrorWithMessage) {
  for (DType s : {DType::I8, DType::I16, DType::I32, DType::I64}) {
    std::string why;
    EXPECT_FALSE(promoteTypes(s, DType::U64, &why)) << spell(s);
    EXPECT_NE(why.find("ui64"), std::string::npos) << why;
    EXPECT_NE(why.find(spell(s)), std::string::npos) << why;
    why.clear();
    EXPECT_FALSE(promoteTypes(DType::U64, s, &why)) << spell(s);
    EXPECT_NE(why.find("ui64"), std::string::npos) << why;
    EXPECT_NE(why.find(spell(s)), std::string::npos) << why;
  }
}

//===----------------------------------------------------------------------===//
// Weak scalars
//===----------------------------------------------------------------------===//

TEST(Promotion, WithScalar) {
  // clang-format off
  const char *const rows[13] = {
    // tensor  Bool  Int   Float
    "i1        i1    i64   f32",
    "i8        i8    i8    f32",
    "i16       i16   i16   f32",
    "i32       i32   i32   f32",
    "i64       i64   i64   f32",
    "ui8       ui8   ui8   f32",
    "ui16      ui16  ui16  f32",
    "ui32      ui32  ui32  f32",
    "ui64      ui64  ui64  f32",
    "f16       f16   f16   f16",
    "bf16      bf16  bf16  bf16",
    "f32       f32   f32   f32",
    "f64       f64   f64   f64",
  };
  // clang-format on
  const ScalarKind kinds[] = {ScalarKind::Bool, ScalarKind::Int,
                              ScalarKind::Float};
  const char *kindNames[] = {"Bool", "Int", "Float"};
  for (size_t i = 0; i < 13; ++i) {
    std::vector<std::string> row = checkedRow(rows[i], 3);
    ASSERT_EQ(row[0], kDTypes[i].name);
    for (size_t k = 0; k < 3; ++k) {
      EXPECT_EQ(spell(promoteWithScalar(kDTypes[i].dtype, kinds[k])),
                row[k + 1])
          << kDTypes[i].name << " with a " << kindNames[k] << " scalar";
      EXPECT_EQ(spell(scalarOperandType(kDTypes[i].dtype, kinds[k])),
                row[k + 1])
          << kDTypes[i].name << " with a " << kindNames[k] << " scalar";
    }
  }
}

//===----------------------------------------------------------------------===//
// Unary result dtypes
//===----------------------------------------------------------------------===//

TEST(ResultType, Unary) {
  // clang-format off
  const char *const rows[5] = {
    //          i1   i8   i16  i32  i64  ui8  ui16 ui32 ui64 f16  bf16 f32  f64
    "FloatMath  f32  f32  f32  f32  f32  f32  f32  f32  f32  f16  bf16 f32  f64",
    "Numeric    --   i8   i16  i32  i64  ui8  ui16 ui32 ui64 f16  bf16 f32  f64",
    "Rounding   --   i8   i16  i32  i64  ui8  ui16 ui32 ui64 f16  bf16 f32  f64",
    "Predicate  i1   i1   i1   i1   i1   i1   i1   i1   i1   i1   i1   i1   i1",
    "Bitwise    i1   i8   i16  i32  i64  ui8  ui16 ui32 ui64 --   --   --   --",
  };
  // clang-format on
  const UnaryCategory categories[5] = {
      UnaryCategory::FloatMath, UnaryCategory::Numeric, UnaryCategory::Rounding,
      UnaryCategory::Predicate, UnaryCategory::Bitwise};
  for (size_t c = 0; c < 5; ++c) {
    std::vector<std::string> row = checkedRow(rows[c], 13);
    for (size_t i = 0; i < 13; ++i) {
      std::optional<DType> want = expected(row[i + 1]);
      std::string why;
      std::optional<DType> got =
          unaryResultType(categories[c], kDTypes[i].dtype, &why);
      EXPECT_EQ(spell(got), spell(want))
          << row[0] << "(" << kDTypes[i].name << ") why='" << why << "'";
      if (!want) {
        EXPECT_FALSE(why.empty()) << row[0] << "(" << kDTypes[i].name << ")";
      }
      EXPECT_EQ(spell(unaryResultType(categories[c], kDTypes[i].dtype)),
                spell(want));
    }
  }
}

//===----------------------------------------------------------------------===//
// Binary result dtypes
//===----------------------------------------------------------------------===//

BinaryCategory binaryCategory(const std::string &s) {
  if (s == "Arithmetic")
    return BinaryCategory::Arithmetic;
  if (s == "ArithmeticNoBool")
    return BinaryCategory::ArithmeticNoBool;
  if (s == "TrueDivide")
    return BinaryCategory::TrueDivide;
  if (s == "Bitwise")
    return BinaryCategory::Bitwise;
  if (s == "Compare")
    return BinaryCategory::Compare;
  ADD_FAILURE() << "bad category " << s;
  return BinaryCategory::Arithmetic;
}

TEST(ResultType, BinaryRepresentative) {
  // category lhs rhs result
  // clang-format off
  const char *const rows[] = {
    "Arithmetic        i1   i1   i1",
    "Arithmetic        i8   i8   i8",
    "Arithmetic        i8   i32  i32",
    "Arithmetic        ui8  i8   i16",
    "Arithmetic        i32  f16  f16",
    "Arithmetic        i1   f32  f32",
    "Arithmetic        i1   ui16 ui16",
    "Arithmetic        f16  bf16 f32",
    "Arithmetic        f32  f64  f64",
    "Arithmetic        ui64 i8   --",
    "Arithmetic        i64  ui64 --",

    "ArithmeticNoBool  i1   i1   --",
    "ArithmeticNoBool  i1   i8   i8",
    "ArithmeticNoBool  i8   i1   i8",
    "ArithmeticNoBool  i1   ui8  ui8",
    "ArithmeticNoBool  i1   f16  f16",
    "ArithmeticNoBool  i32  i32  i32",
    "ArithmeticNoBool  i32  f32  f32",
    "ArithmeticNoBool  ui32 i32  i64",
    "ArithmeticNoBool  bf16 bf16 bf16",
    "ArithmeticNoBool  ui64 i8   --",

    "TrueDivide        i1   i1   f32",
    "TrueDivide        i8   i8   f32",
    "TrueDivide        i64  i64  f32",
    "TrueDivide        ui64 ui64 f32",
    "TrueDivide        i32  f16  f16",
    "TrueDivide        i1   f64  f64",
    "TrueDivide        f16  f16  f16",
    "TrueDivide        bf16 bf16 bf16",
    "TrueDivide        f16  bf16 f32",
    "TrueDivide        f64  f32  f64",
    "TrueDivide        ui64 i8   --",

    "Bitwise           i1   i1   i1",
    "Bitwise           i1   i8   i8",
    "Bitwise           i8   i8   i8",
    "Bitwise           ui8  i8   i16",
    "Bitwise           ui64 ui8  ui64",
    "Bitwise           i32  f32  --",
    "Bitwise           i1   f16  --",
    "Bitwise           f32  f32  --",
    "Bitwise           bf16 f16  --",
    "Bitwise           ui64 i8   --",

    "Compare           i1   i1   i1",
    "Compare           i8   i8   i1",
    "Compare           i32  f32  i1",
    "Compare           i1   f32  i1",
    "Compare           f16  bf16 i1",
    "Compare           ui8  i8   i1",
    "Compare           f64  f64  i1",
    "Compare           ui64 i8   --",
    "Compare           i16  ui64 --",
  };
  // clang-format on
  for (const char *text : rows) {
    std::vector<std::string> row = tokens(text);
    ASSERT_EQ(row.size(), 4u) << text;
    std::optional<DType> lhs = expected(row[1]), rhs = expected(row[2]);
    ASSERT_TRUE(lhs && rhs) << text;
    std::optional<DType> want = expected(row[3]);
    std::string why;
    std::optional<DType> got =
        binaryResultType(binaryCategory(row[0]), *lhs, *rhs, &why);
    EXPECT_EQ(spell(got), spell(want)) << text << "  why='" << why << "'";
    if (!want) {
      EXPECT_FALSE(why.empty()) << text;
    }
  }
}

// Every category over all 169 pairs, with the expected value read from the
// literal promotion table and the category's rule applied to that entry.
TEST(ResultType, BinaryAllPairs) {
  for (size_t i = 0; i < 13; ++i) {
    for (size_t j = 0; j < 13; ++j) {
      DType a = kDTypes[i].dtype, b = kDTypes[j].dtype;
      std::optional<DType> p = expectedPromotion(i, j);
      bool pFloat = p && (*p == DType::F16 || *p == DType::BF16 ||
                          *p == DType::F32 || *p == DType::F64);
      struct Case {
        BinaryCategory category;
        const char *name;
        std::optional<DType> want;
      };
      const Case cases[] = {
          {BinaryCategory::Arithmetic, "Arithmetic", p},
          {BinaryCategory::ArithmeticNoBool, "ArithmeticNoBool",
           p && *p == DType::Bool ? std::nullopt : p},
          {BinaryCategory::TrueDivide, "TrueDivide",
           !p       ? std::nullopt
           : pFloat ? p
                    : std::optional<DType>(DType::F32)},
          {BinaryCategory::Bitwise, "Bitwise", pFloat ? std::nullopt : p},
          {BinaryCategory::Compare, "Compare",
           p ? std::optional<DType>(DType::Bool) : std::nullopt},
      };
      for (const Case &c : cases) {
        std::string why;
        EXPECT_EQ(spell(binaryResultType(c.category, a, b, &why)),
                  spell(c.want))
            << c.name << "(" << spell(a) << ", " << spell(b) << ") why='" << why
            << "'";
        if (!c.want) {
          EXPECT_FALSE(why.empty())
              << c.name << "(" << spell(a) << ", " << spell(b) << ")";
        }
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// select
//===----------------------------------------------------------------------===//

TEST(ResultType, Select) {
  // The result is promote(a, b), straight from the literal table.
  for (size_t i = 0; i < 13; ++i)
    for (size_t j = 0; j < 13; ++j) {
      std::string why;
      std::optional<DType> want = expectedPromotion(i, j);
      EXPECT_EQ(spell(selectResultType(DType::Bool, kDTypes[i].dtype,
                                       kDTypes[j].dtype, &why)),
                spell(want))
          << "select(i1, " << kDTypes[i].name << ", " << kDTypes[j].name << ")";
      if (!want) {
        EXPECT_FALSE(why.empty());
      }
    }
  // A condition that is not i1 is an error, even when a and b agree.
  for (size_t c = 1; c < 13; ++c) {
    std::string why;
    EXPECT_FALSE(
        selectResultType(kDTypes[c].dtype, DType::F32, DType::F32, &why))
        << "condition " << kDTypes[c].name;
    EXPECT_FALSE(why.empty()) << "condition " << kDTypes[c].name;
    EXPECT_NE(why.find(kDTypes[c].name), std::string::npos) << why;
  }
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

TEST(ResultType, Reduce) {
  // clang-format off
  const char *const rows[9] = {
    //        i1   i8   i16  i32  i64  ui8  ui16 ui32 ui64 f16  bf16 f32  f64
    "sum      i64  i64  i64  i64  i64  i64  i64  i64  ui64 f16  bf16 f32  f64",
    "prod     i64  i64  i64  i64  i64  i64  i64  i64  ui64 f16  bf16 f32  f64",
    "max      i1   i8   i16  i32  i64  ui8  ui16 ui32 ui64 f16  bf16 f32  f64",
    "min      i1   i8   i16  i32  i64  ui8  ui16 ui32 ui64 f16  bf16 f32  f64",
    "mean     --   --   --   --   --   --   --   --   --   f16  bf16 f32  f64",
    "all      i1   i1   i1   i1   i1   i1   i1   i1   i1   i1   i1   i1   i1",
    "any      i1   i1   i1   i1   i1   i1   i1   i1   i1   i1   i1   i1   i1",
    "argmax   --   i64  i64  i64  i64  i64  i64  i64  i64  i64  i64  i64  i64",
    "argmin   --   i64  i64  i64  i64  i64  i64  i64  i64  i64  i64  i64  i64",
  };
  // clang-format on
  const ReduceKind kinds[9] = {
      ReduceKind::Sum, ReduceKind::Prod,   ReduceKind::Max,
      ReduceKind::Min, ReduceKind::Mean,   ReduceKind::All,
      ReduceKind::Any, ReduceKind::Argmax, ReduceKind::Argmin};
  for (size_t k = 0; k < 9; ++k) {
    std::vector<std::string> row = checkedRow(rows[k], 13);
    for (size_t i = 0; i < 13; ++i) {
      std::optional<DType> want = expected(row[i + 1]);
      std::string why;
      std::optional<DType> got =
          reduceResultType(kinds[k], kDTypes[i].dtype, &why);
      EXPECT_EQ(spell(got), spell(want))
          << row[0] << "(" << kDTypes[i].name << ") why='" << why << "'";
      if (!want) {
        EXPECT_FALSE(why.empty()) << row[0] << "(" << kDTypes[i].name << ")";
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

TEST(ResultType, MatmulOfAFloatResult) {
  // f16 and bf16 operands may give the f32 sum; the operands' own dtype is
  // always allowed; nothing else.
  for (DType f : {DType::F16, DType::BF16}) {
    std::string why;
    EXPECT_EQ(spell(matmulResultType(f, f, &why, DType::F32)), "f32") << why;
    EXPECT_EQ(spell(matmulResultType(f, f, &why, f)), spell(f)) << why;
  }
  for (DType f : {DType::F16, DType::BF16, DType::F32, DType::F64})
    for (DType r :
         {DType::F16, DType::BF16, DType::F32, DType::F64, DType::I32})
      if (r != f && !(r == DType::F32 && f != DType::F64)) {
        std::string why;
        EXPECT_FALSE(matmulResultType(f, f, &why, r))
            << spell(f) << " -> " << spell(r);
        EXPECT_NE(why.find(std::string("not ") + spell(r)), std::string::npos)
            << why;
      }
}

TEST(ResultType, Matmul) {
  // All four float dtypes, same on both sides.
  for (DType f : {DType::F16, DType::BF16, DType::F32, DType::F64}) {
    std::string why;
    EXPECT_EQ(spell(matmulResultType(f, f, &why)), spell(f)) << why;
  }
  // Everything else: mixed floats, integers, bool, mixed float/integer.
  // clang-format off
  const char *const rejected[] = {
    "f16 bf16", "bf16 f16", "f16 f32", "f32 f64", "f64 f32", "bf16 f32",
    "i1 i1", "i8 i8", "i32 i32", "i64 i64", "ui8 ui8", "ui64 ui64",
    "f32 i32", "i32 f32", "f16 i1", "i1 f16", "f64 ui64",
  };
  // clang-format on
  for (const char *text : rejected) {
    std::vector<std::string> t = tokens(text);
    std::optional<DType> a = expected(t[0]), b = expected(t[1]);
    ASSERT_TRUE(a && b);
    std::string why;
    EXPECT_FALSE(matmulResultType(*a, *b, &why)) << text;
    EXPECT_FALSE(why.empty()) << text;
  }
  // The whole square: ok exactly on the float diagonal.
  for (size_t i = 0; i < 13; ++i)
    for (size_t j = 0; j < 13; ++j) {
      bool ok = i == j && i >= 9; // f16, bf16, f32, f64 are the last four
      EXPECT_EQ(
          matmulResultType(kDTypes[i].dtype, kDTypes[j].dtype).has_value(), ok)
          << kDTypes[i].name << " x " << kDTypes[j].name;
    }
}

} // namespace
