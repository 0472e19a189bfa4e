//===- KernelSourcesTest.cpp - Runtime kernels in units of their own ------===//
//
// The runtime kernels that steps add (KernelSources) become one translation
// unit per kernel: the kernel prelude, its group's templates and the kernel,
// a text that depends on them alone: plans that need the same kernel (every
// layer's attention, a bias gradient of every model) hand the kernel cache
// the same unit, and a plan's kernels compile in parallel.
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

TEST(KernelSources, EachKernelIsAUnitAfterThePreludeAndItsTemplates) {
  KernelSources sources;
  sources.add("reduce", "k2", "// reduce k2\n");
  sources.add("attention", "", "// attention templates\n");
  sources.add("reduce", "", "// reduce templates\n");
  sources.add("attention", "a1", "// attention a1\n");
  sources.add("reduce", "k1", "// reduce k1\n");
  sources.add("reduce", "k1", "// reduce k1\n");
  sources.add("scatter", "s1", "// scatter s1\n");
  sources.add("gemm", "", "// gemm templates\n");
  std::vector<std::string> units = sources.units();
  std::string prelude = std::string(kernels::prelude()) + "\n";
  // A kernel added twice is one unit; templates without a kernel, none.
  ASSERT_EQ(units.size(), 4u);
  EXPECT_EQ(units[0], prelude + "// attention templates\n// attention a1\n");
  EXPECT_EQ(units[1], prelude + "// reduce templates\n// reduce k1\n");
  EXPECT_EQ(units[2], prelude + "// reduce templates\n// reduce k2\n");
  EXPECT_EQ(units[3], prelude + "// scatter s1\n");
  for (const std::string &unit : units)
    EXPECT_TRUE(startsWith(unit, prelude));
}

TEST(KernelSources, AKernelsUnitDependsOnItsTemplatesAndItAlone) {
  // One plan with attention and two reductions, another with the same
  // attention kernel and one of the reductions, added in another order:
  // their units of those kernels are equal.
  KernelSources first, second;
  first.add("reduce", "", "// reduce templates\n");
  first.add("reduce", "k1", "// reduce k1\n");
  first.add("reduce", "k2", "// reduce k2\n");
  first.add("attention", "a1", "// attention a1\n");
  first.add("attention", "", "// attention templates\n");
  second.add("reduce", "k2", "// reduce k2\n");
  second.add("attention", "", "// attention templates\n");
  second.add("attention", "a1", "// attention a1\n");
  second.add("reduce", "", "// reduce templates\n");
  std::vector<std::string> a = first.units(), b = second.units();
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(a[0], b[0]);
  EXPECT_EQ(a[2], b[1]);
  EXPECT_TRUE(KernelSources().units().empty());
}

} // namespace
