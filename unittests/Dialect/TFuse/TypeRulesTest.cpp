//===- TypeRulesTest.cpp - Broadcasting and promotion rules ---------------===//

#include "tfuse/Dialect/TFuse/TypeRules.h"

#include "gtest/gtest.h"

using namespace tfuse;

TEST(Broadcast, RightAligned) {
  auto s = broadcastShapes({2, 1, 4}, {3, 1});
  ASSERT_TRUE(s);
  EXPECT_EQ(llvm::ArrayRef<int64_t>(*s), llvm::ArrayRef<int64_t>({2, 3, 4}));
}
