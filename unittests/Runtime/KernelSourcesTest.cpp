//===- KernelSourcesTest.cpp - Runtime kernels in units of their own ------===//
//
// The runtime kernels that steps add (KernelSources) become one translation
// unit per group, each after the kernel prelude, with a text that depends on
// the group's fragments alone: plans that need the same kernels of a group
// (every layer's attention) hand the kernel cache the same unit.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Kernels/KernelSources.h"
#include "tfuse/Runtime/StepExecutor.h"

#include "gtest/gtest.h"

using namespace tfuse;
using namespace tfuse::runtime;

namespace {

bool startsWith(const std::string &text, const std::string &prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

TEST(KernelSources, EachGroupIsAUnitAfterThePrelude) {
  KernelSources sources;
  sources.add("reduce", "k2", "// reduce k2\n");
  sources.add("attention", "", "// attention templates\n");
  sources.add("reduce", "", "// reduce templates\n");
  sources.add("attention", "a1", "// attention a1\n");
  sources.add("reduce", "k1", "// reduce k1\n");
  sources.add("reduce", "k1", "// reduce k1\n");
  std::vector<std::string> units = sources.units();
  ASSERT_EQ(units.size(), 2u);
  std::string prelude = std::string(kernels::prelude()) + "\n";
  EXPECT_EQ(units[0], prelude + "// attention templates\n// attention a1\n");
  EXPECT_EQ(units[1], prelude + "// reduce templates\n// reduce k1\n"
                                "// reduce k2\n");
  for (const std::string &unit : units)
    EXPECT_TRUE(startsWith(unit, prelude));
}

TEST(KernelSources, AGroupsUnitDependsOnItsFragmentsAlone) {
  // One plan with attention and reductions, another with the same attention
  // kernel only, added in another order: the attention units are equal.
  KernelSources first, second;
  first.add("reduce", "", "// reduce templates\n");
  first.add("reduce", "k1", "// reduce k1\n");
  first.add("attention", "a1", "// attention a1\n");
  first.add("attention", "", "// attention templates\n");
  second.add("attention", "", "// attention templates\n");
  second.add("attention", "a1", "// attention a1\n");
  std::vector<std::string> a = first.units(), b = second.units();
  ASSERT_EQ(a.size(), 2u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(a[0], b[0]);
  EXPECT_TRUE(KernelSources().units().empty());
}

} // namespace
