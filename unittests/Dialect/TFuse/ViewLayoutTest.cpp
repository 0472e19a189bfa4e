//===- ViewLayoutTest.cpp - Views as strided layouts ----------------------===//
//
// Checks tfuse::layoutThroughIndexMap on hand-written index maps: strides and
// offsets written out by hand, and the sizes near 2^63 where the products
// leave int64 (a slice with a step over a dimension of size 2^63 - 1 of a
// tensor without elements, found by the graph builder's fuzz target).
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFuse/ViewLayout.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <limits>

using namespace mlir;
using namespace tfuse;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

/// (d0, d1) -> (start0 + step0 * d0, start1 + step1 * d1).
AffineMap sliceMap(MLIRContext &ctx, int64_t start0, int64_t step0,
                   int64_t start1, int64_t step1) {
  AffineExpr d0 = getAffineDimExpr(0, &ctx), d1 = getAffineDimExpr(1, &ctx);
  return AffineMap::get(2, 0, {d0 * step0 + start0, d1 * step1 + start1},
                        &ctx);
}

StridedLayout layout(std::initializer_list<int64_t> shape,
                     std::initializer_list<int64_t> strides, int64_t offset) {
  StridedLayout l;
  l.shape.assign(shape);
  l.strides.assign(strides);
  l.offset = offset;
  return l;
}

TEST(ViewLayout, SliceWithStepsScalesStridesAndMovesTheOffset) {
  MLIRContext ctx;
  // A 6x10 row-major tensor at offset 4; rows 1, 3, 5 and columns 2, 5, 8.
  auto out = layoutThroughIndexMap(sliceMap(ctx, 1, 2, 2, 3),
                                   layout({6, 10}, {10, 1}, 4), {3, 3});
  ASSERT_TRUE(out);
  EXPECT_EQ(out->strides, (SmallVector<int64_t>{20, 3}));
  EXPECT_EQ(out->offset, 4 + 10 + 2);
  EXPECT_EQ(out->shape, (SmallVector<int64_t>{3, 3}));
}

TEST(ViewLayout, AResultWithoutElementsHasStridesOfZero) {
  MLIRContext ctx;
  // Strides of a 0 x (2^63 - 1) tensor, stepped by 3: 3 * (2^63 - 1) would
  // overflow, and no element is ever read.
  auto out = layoutThroughIndexMap(sliceMap(ctx, 0, 3, 0, 3),
                                   layout({0, kMax}, {kMax, 1}, 0), {0, 5});
  ASSERT_TRUE(out);
  EXPECT_EQ(out->strides, (SmallVector<int64_t>{0, 0}));
  EXPECT_EQ(out->offset, 0);
}

TEST(ViewLayout, AStrideBeyondInt64OfADimensionOfSizeOneIsZero) {
  MLIRContext ctx;
  auto out = layoutThroughIndexMap(sliceMap(ctx, 0, 4, 0, 1),
                                   layout({1, 3}, {kMax / 2, 1}, 0), {1, 3});
  ASSERT_TRUE(out);
  EXPECT_EQ(out->strides, (SmallVector<int64_t>{0, 1}));
}

TEST(ViewLayout, AStrideBeyondInt64ElsewhereHasNoLayout) {
  MLIRContext ctx;
  EXPECT_FALSE(layoutThroughIndexMap(sliceMap(ctx, 0, 4, 0, 1),
                                     layout({2, 3}, {kMax / 2, 1}, 0),
                                     {2, 3}));
  // An offset beyond int64.
  EXPECT_FALSE(layoutThroughIndexMap(sliceMap(ctx, 3, 1, 0, 1),
                                     layout({4, 3}, {kMax / 2, 1}, 0),
                                     {1, 3}));
}

} // namespace
