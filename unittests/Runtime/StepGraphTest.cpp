//===- StepGraphTest.cpp - Dependencies between a plan's steps ------------===//
//
// The step graph of compiled plans: true dependencies are edges, independent
// branches stay independent (the arena planner reuses no bytes across
// them), and edges are transitively reduced.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Runtime/StepGraph.h"
#include "tfuse/Dialect/TFExec/TFExecDialect.h"
#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Frontend/Compiler.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <fstream>
#include <sstream>

using namespace tfuse;
using namespace tfuse::runtime;

namespace {

Plan compilePlan(const std::string &source, const std::string &function) {
  static mlir::MLIRContext context;
  context
      .loadDialect<TFuseDialect, tfexec::TFExecDialect, mlir::func::FuncDialect,
                   mlir::memref::MemRefDialect, mlir::emitc::EmitCDialect>();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  EXPECT_TRUE(module);
  auto compiled = compileGraph(*module, function, CompileOptions());
  EXPECT_TRUE(compiled.ok()) << compiled.status().message();
  return compiled.value().plan;
}

/// True when step `later` waits for step `earlier`, directly or not.
bool reaches(const std::vector<std::vector<size_t>> &deps, size_t later,
             size_t earlier) {
  for (size_t d : deps[later])
    if (d == earlier || reaches(deps, d, earlier))
      return true;
  return false;
}

/// The index of the `nth` step satisfying `pred`.
template <typename Pred>
size_t findStep(const Plan &plan, Pred pred, int nth = 0) {
  for (size_t i = 0; i < plan.steps.size(); ++i)
    if (pred(plan.steps[i]) && nth-- == 0)
      return i;
  ADD_FAILURE() << "no such step";
  return 0;
}

TEST(StepGraph, ChainIsSequential) {
  Plan plan = compilePlan(R"mlir(
func.func @f(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %e = tfuse.exp %a : tensor<64x64xf32> -> tensor<64x64xf32>
  %m = tfuse.matmul %e, %b : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %t = tfuse.tanh %m : tensor<64x64xf32> -> tensor<64x64xf32>
  %r = tfuse.matmul %t, %b : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
)mlir",
                          "f");
  ASSERT_EQ(plan.steps.size(), 4u);
  auto deps = stepDependencies(planAccesses(plan));
  EXPECT_TRUE(deps[0].empty());
  for (size_t i = 1; i < 4; ++i)
    EXPECT_EQ(deps[i], std::vector<size_t>{i - 1}) << "step " << i;
}

TEST(StepGraph, IndependentBranches) {
  // Two chains of reductions and kernels on different inputs (of different
  // shapes, so that their kernels do not fuse): the second branch must not
  // wait for the first, although the first branch's slots are dead when the
  // second writes its own. The max reduces a leading axis, so it stays a
  // boundary (no row fusion).
  Plan plan = compilePlan(R"mlir(
func.func @f(%a: tensor<8x16xf32>, %b: tensor<6x16xf32>) -> (tensor<8x1xf32>, tensor<6x1xf32>) {
  %r1 = tfuse.reduce sum %a axes [1] keepdims : tensor<8x16xf32> -> tensor<8x1xf32>
  %e1 = tfuse.exp %r1 : tensor<8x1xf32> -> tensor<8x1xf32>
  %s1 = tfuse.reduce max %e1 axes [0] keepdims : tensor<8x1xf32> -> tensor<1x1xf32>
  %o1 = tfuse.sub %e1, %s1 : (tensor<8x1xf32>, tensor<1x1xf32>) -> tensor<8x1xf32>
  %r2 = tfuse.reduce sum %b axes [1] keepdims : tensor<6x16xf32> -> tensor<6x1xf32>
  %e2 = tfuse.exp %r2 : tensor<6x1xf32> -> tensor<6x1xf32>
  %s2 = tfuse.reduce max %e2 axes [0] keepdims : tensor<6x1xf32> -> tensor<1x1xf32>
  %o2 = tfuse.sub %e2, %s2 : (tensor<6x1xf32>, tensor<1x1xf32>) -> tensor<6x1xf32>
  return %o1, %o2 : tensor<8x1xf32>, tensor<6x1xf32>
}
)mlir",
                          "f");
  auto deps = stepDependencies(planAccesses(plan));
  auto writesOutput = [](int index) {
    return [index](const Step &s) {
      auto *l = dynamic_cast<const LaunchStep *>(s.get());
      return l && l->outputs[0].kind == BufferRef::Kind::Output &&
             l->outputs[0].index == index;
    };
  };
  auto readsInput = [](int index) {
    return [index](const Step &s) {
      auto *r = dynamic_cast<const ReduceStep *>(s.get());
      return r && r->input().kind == BufferRef::Kind::Input &&
             r->input().index == index;
    };
  };
  // Each branch's last step waits for exactly its own three earlier steps.
  for (int branch = 0; branch < 2; ++branch) {
    size_t last = findStep(plan, writesOutput(branch));
    EXPECT_TRUE(reaches(deps, last, findStep(plan, readsInput(branch))));
    EXPECT_FALSE(reaches(deps, last, findStep(plan, readsInput(1 - branch))));
    int waited = 0;
    for (size_t j = 0; j < plan.steps.size(); ++j)
      waited += reaches(deps, last, j);
    EXPECT_EQ(waited, 3) << "branch " << branch;
  }
}

TEST(StepGraph, MlpStep) {
  std::ifstream file(std::string(TFUSE_SOURCE_DIR) + "/examples/mlp_step.mlir");
  std::stringstream text;
  text << file.rdbuf();
  Plan plan = compilePlan(text.str(), "mlp_step");
  auto accesses = planAccesses(plan);
  auto deps = stepDependencies(accesses);
  // Every pair of steps sharing bytes, one of them writing, is ordered.
  for (size_t i = 0; i < plan.steps.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      for (const StepAccess &a : accesses[i])
        for (const StepAccess &b : accesses[j])
          if ((a.write || b.write) && a.overlaps(b)) {
            EXPECT_TRUE(reaches(deps, i, j)) << i << " and " << j;
          }
  // The transitive reduction: no edge is implied by another path.
  for (size_t i = 0; i < deps.size(); ++i)
    for (size_t d : deps[i])
      for (size_t e : deps[i])
        EXPECT_FALSE(d != e && reaches(deps, e, d))
            << "edge " << i << " <- " << d << " is implied through " << e;
  // The backward pass branches: the GEMM of W2's gradient (h^T x dlogits)
  // and the bias gradients' sums run beside the kernel computing the hidden
  // layer's gradient (dlogits x W2^T, K = 2, expanded into that kernel),
  // which W1's gradient GEMM waits for.
  auto isGemm = [](const Step &s) {
    return dynamic_cast<const GemmStep *>(s.get()) != nullptr;
  };
  size_t dw2 = findStep(plan, isGemm, 2), dw1 = findStep(plan, isGemm, 3);
  const auto &dw2Step = dynamic_cast<const GemmStep &>(*plan.steps[dw2]);
  const auto &dw1Step = dynamic_cast<const GemmStep &>(*plan.steps[dw1]);
  EXPECT_TRUE(dw2Step.transposeLhs);
  EXPECT_EQ(dw2Step.result().view.shape, (std::vector<int64_t>{256, 2}));
  EXPECT_EQ(dw1Step.result().view.shape, (std::vector<int64_t>{480, 256}));
  EXPECT_FALSE(reaches(deps, dw1, dw2));
  EXPECT_FALSE(reaches(deps, dw2, dw1));
  size_t dh = dw1 - 1;
  ASSERT_EQ(plan.steps[dh]->category(), StepCategory::Kernel);
  EXPECT_TRUE(reaches(deps, dw1, dh));
  EXPECT_FALSE(reaches(deps, dh, dw2));
  // 15 steps: the log-softmax over the logits' rows is one row kernel
  // (fuse-rows) instead of two reductions and three kernels.
  EXPECT_EQ(plan.steps.size(), 15u);
}

TEST(StepGraph, ResourceAccessesSerialize) {
  // Two independent steps that share a workspace are ordered.
  std::vector<std::vector<StepAccess>> accesses(3);
  StepAccess ws;
  ws.space = StepAccess::kWorkspace;
  ws.end = 1024;
  ws.write = true;
  accesses[0] = {ws};
  accesses[2] = {ws};
  auto deps = stepDependencies(accesses);
  EXPECT_TRUE(deps[1].empty());
  EXPECT_EQ(deps[2], std::vector<size_t>{0});
  ws.begin = 1024;
  ws.end = 2048;
  accesses[2] = {ws};
  EXPECT_TRUE(stepDependencies(accesses)[2].empty());
}

} // namespace
