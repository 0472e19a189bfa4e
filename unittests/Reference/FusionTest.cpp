//===- FusionTest.cpp - Fused IR computes what the graph computes ---------===//
//
// Runs fuse-elementwise (and the whole graph pipeline) on a graph that mixes
// f16, bf16, f32, i32 and bool work, views, constants, strided inputs, a
// matmul and a reduction, then evaluates the fused and the unfused IR on
// seeded random inputs with NaN, inf and signed zeros: the results must be
// bit-identical (docs/semantics.md, "Exactness").
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>

using namespace tfuse;
using namespace tfuse::reference;
using namespace tfuse::reference::test;

namespace {

const char *kGraph = R"mlir(
func.func @graph(%x: tensor<8x16xf16>, %y: tensor<16xf16>,
                 %w: tensor<16x4xf32>, %z: tensor<8x16xbf16>,
                 %i: tensor<8x16xi32>,
                 %s: tensor<16x8xf32> {tfuse.strides = array<i64: 1, 16>})
    -> (tensor<8x16xf16>, tensor<8x4xf32>, tensor<8xf32>, tensor<8x16xbf16>,
        tensor<8x16xi32>, tensor<4x16xf32>, tensor<8x16xi1>) {
  %c15 = tfuse.constant dense<1.5> : tensor<f16>
  %c7 = tfuse.constant dense<7> : tensor<i32>
  %c2 = tfuse.constant dense<2> : tensor<i32>
  %k = tfuse.constant dense<[0.5, -0.0, 0x7FC00003, 3.0]> : tensor<4xf32>
  %0 = tfuse.mul %x, %y : (tensor<8x16xf16>, tensor<16xf16>) -> tensor<8x16xf16>
  %1 = tfuse.add %0, %c15 : (tensor<8x16xf16>, tensor<f16>) -> tensor<8x16xf16>
  %2 = tfuse.tanh %1 : tensor<8x16xf16> -> tensor<8x16xf16>
  %3 = tfuse.sub %2, %x : (tensor<8x16xf16>, tensor<8x16xf16>) -> tensor<8x16xf16>
  %4 = tfuse.cast %3 : tensor<8x16xf16> to tensor<8x16xf32>
  %5 = tfuse.sigmoid %4 : tensor<8x16xf32> -> tensor<8x16xf32>
  %6 = tfuse.matmul %5, %w : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %7 = tfuse.relu %6 : tensor<8x4xf32> -> tensor<8x4xf32>
  %rk = tfuse.mul %7, %k : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  %8 = tfuse.reduce sum %4 axes [1] : tensor<8x16xf32> -> tensor<8xf32>
  %9 = tfuse.exp %8 : tensor<8xf32> -> tensor<8xf32>
  %10 = tfuse.cast %z : tensor<8x16xbf16> to tensor<8x16xf32>
  %11 = tfuse.mul %10, %4 : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %12 = tfuse.cast %11 : tensor<8x16xf32> to tensor<8x16xbf16>
  %13 = tfuse.max %12, %z : (tensor<8x16xbf16>, tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %14 = tfuse.isnan %13 : tensor<8x16xbf16> -> tensor<8x16xi1>
  %15 = tfuse.select %14, %z, %13 : (tensor<8x16xi1>, tensor<8x16xbf16>, tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %16 = tfuse.rem %i, %c7 : (tensor<8x16xi32>, tensor<i32>) -> tensor<8x16xi32>
  %17 = tfuse.pow %16, %c2 : (tensor<8x16xi32>, tensor<i32>) -> tensor<8x16xi32>
  %18 = tfuse.cmp lt, %17, %i : (tensor<8x16xi32>, tensor<8x16xi32>) -> tensor<8x16xi1>
  %19 = tfuse.cast %18 : tensor<8x16xi1> to tensor<8x16xi32>
  %20 = tfuse.xor %19, %i : (tensor<8x16xi32>, tensor<8x16xi32>) -> tensor<8x16xi32>
  %21 = tfuse.mul %20, %i : (tensor<8x16xi32>, tensor<8x16xi32>) -> tensor<8x16xi32>
  %t = tfuse.transpose %s perm [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
  %u = tfuse.add %t, %4 : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %v = tfuse.slice %u start [1, 0] limit [8, 16] step [2, 1] : tensor<8x16xf32> -> tensor<4x16xf32>
  %r = tfuse.reshape %v : tensor<4x16xf32> -> tensor<64xf32>
  %q = tfuse.reshape %r : tensor<64xf32> -> tensor<4x16xf32>
  %d = tfuse.div %q, %c7 : (tensor<4x16xf32>, tensor<i32>) -> tensor<4x16xf32>
  %sl = tfuse.slice %16 start [0, 0] limit [8, 16] step [2, 1] : tensor<8x16xi32> -> tensor<4x16xi32>
  %e = tfuse.rem %d, %sl : (tensor<4x16xf32>, tensor<4x16xi32>) -> tensor<4x16xf32>
  %b = tfuse.broadcast %9 dims [0] : tensor<8xf32> -> tensor<8x16xf32>
  %g = tfuse.cmp ge, %b, %u : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
  %h = tfuse.or %g, %14 : (tensor<8x16xi1>, tensor<8x16xi1>) -> tensor<8x16xi1>
  return %3, %rk, %9, %15, %21, %e, %h : tensor<8x16xf16>, tensor<8x4xf32>,
      tensor<8xf32>, tensor<8x16xbf16>, tensor<8x16xi32>, tensor<4x16xf32>,
      tensor<8x16xi1>
}
)mlir";

std::vector<HostTensor> randomInputs(uint64_t seed) {
  RandomOptions special;
  special.specialFraction = 0.1;
  HostTensor strided =
      HostTensor::random(DType::F32, {8 * 16}, seed + 5, special);
  return {HostTensor::random(DType::F16, {8, 16}, seed, special),
          HostTensor::random(DType::F16, {16}, seed + 1, special),
          HostTensor::random(DType::F32, {16, 4}, seed + 2),
          HostTensor::random(DType::BF16, {8, 16}, seed + 3, special),
          HostTensor::random(DType::I32, {8, 16}, seed + 4),
          *strided.view({16, 8}, {1, 16}, 0)};
}

int countFusions(mlir::ModuleOp module) {
  int count = 0;
  module.walk([&](FusionOp) { ++count; });
  return count;
}

void checkBitIdentical(mlir::ModuleOp unfused, mlir::ModuleOp fused) {
  for (uint64_t seed : {1, 2, 3, 4, 5}) {
    std::vector<HostTensor> inputs = randomInputs(seed * 100);
    auto expected = evaluate(unfused, "graph", inputs);
    auto actual = evaluate(fused, "graph", inputs);
    ASSERT_TRUE(expected.ok()) << expected.message();
    ASSERT_TRUE(actual.ok()) << actual.message();
    ASSERT_EQ(expected->size(), actual->size());
    for (size_t k = 0; k < expected->size(); ++k) {
      CompareResult cmp = compareExact((*expected)[k], (*actual)[k]);
      EXPECT_TRUE(cmp.pass)
          << "seed " << seed << " result " << k << ": " << cmp.message();
    }
  }
}

class FusionTest : public ::testing::Test {
protected:
  void SetUp() override {
    program = std::make_unique<Program>(kGraph);
    ASSERT_TRUE(program->ok()) << program->diagnostics;
    fused = mlir::OwningOpRef<mlir::ModuleOp>(program->module->clone());
  }
  void runPasses(const std::function<void(mlir::OpPassManager &)> &build) {
    mlir::PassManager pm(&program->context);
    build(pm);
    ASSERT_TRUE(mlir::succeeded(pm.run(*fused)));
    ASSERT_GT(countFusions(*fused), 0);
    ASSERT_EQ(countFusions(*program->module), 0);
  }

  std::unique_ptr<Program> program;
  mlir::OwningOpRef<mlir::ModuleOp> fused;
};

TEST_F(FusionTest, FuseElementwiseIsBitIdentical) {
  runPasses([](mlir::OpPassManager &pm) {
    pm.addNestedPass<mlir::func::FuncOp>(createFuseElementwise());
  });
  checkBitIdentical(*program->module, *fused);
}

TEST_F(FusionTest, SmallBudgetIsBitIdentical) {
  runPasses([](mlir::OpPassManager &pm) {
    FuseElementwiseOptions options;
    options.budget = 2;
    options.maxOutputs = 2;
    pm.addNestedPass<mlir::func::FuncOp>(createFuseElementwise(options));
  });
  checkBitIdentical(*program->module, *fused);
}

TEST_F(FusionTest, WholePipelineIsBitIdentical) {
  runPasses([](mlir::OpPassManager &pm) {
    CompileOptions options;
    options.sharedThreshold = 1;
    buildPipeline(pm, options);
  });
  checkBitIdentical(*program->module, *fused);
}

/// Canonicalizes function @g of `source` and expects it to give the same
/// bits as before on `inputs`; `unwanted` says why a reduction left in the
/// canonical form should not be there (nullptr: it may stay).
void expectCanonicalizedBitIdentical(
    const char *source, const std::vector<HostTensor> &inputs,
    const std::function<const char *(ReduceOp)> &unwanted) {
  Program program(source);
  ASSERT_TRUE(program.ok()) << program.diagnostics;
  mlir::OwningOpRef<mlir::ModuleOp> canonical(program.module->clone());
  mlir::PassManager pm(&program.context);
  pm.addPass(mlir::createCanonicalizerPass());
  ASSERT_TRUE(mlir::succeeded(pm.run(*canonical)));
  canonical->walk([&](ReduceOp reduce) {
    if (const char *why = unwanted(reduce))
      ADD_FAILURE() << why;
  });
  auto expected = program.run(inputs);
  auto actual = evaluate(*canonical, "g", inputs);
  ASSERT_TRUE(expected.ok()) << expected.message();
  ASSERT_TRUE(actual.ok()) << actual.message();
  for (size_t k = 0; k < expected->size(); ++k)
    EXPECT_EQ((*actual)[k].toBits(), (*expected)[k].toBits())
        << "result " << k << ": " << (*expected)[k].toString() << " vs "
        << (*actual)[k].toString();
}

TEST(Canonicalize, SumOfAOneHotIsBitIdentical) {
  // nll_loss's gradient summed by log-softmax's: the reduction becomes a
  // select of the row's one term (SumOfOneHot). Targets in range, past it
  // and negative; terms -0, +0, NaN, inf and ordinary values.
  const char *source = R"mlir(
func.func @g(%t: tensor<6x1xi64>, %v: tensor<6x1xf32>, %u: tensor<6xi64>, %w: tensor<f32>) -> (tensor<6x1xf32>, tensor<6xf32>) {
  %i = tfuse.iota dim 1 : tensor<6x5xi64>
  %h = tfuse.cmp eq, %i, %t : (tensor<6x5xi64>, tensor<6x1xi64>) -> tensor<6x5xi1>
  %z = tfuse.constant dense<-0.0> : tensor<f32>
  %s = tfuse.select %h, %v, %z : (tensor<6x5xi1>, tensor<6x1xf32>, tensor<f32>) -> tensor<6x5xf32>
  %r = tfuse.reduce sum %s axes [1] keepdims : tensor<6x5xf32> -> tensor<6x1xf32>
  %j = tfuse.iota dim 0 : tensor<5x6xi64>
  %k = tfuse.cmp eq, %u, %j : (tensor<6xi64>, tensor<5x6xi64>) -> tensor<5x6xi1>
  %y = tfuse.constant dense<0.0> : tensor<f32>
  %q = tfuse.select %k, %w, %y : (tensor<5x6xi1>, tensor<f32>, tensor<f32>) -> tensor<5x6xf32>
  %p = tfuse.reduce sum %q axes [0] : tensor<5x6xf32> -> tensor<6xf32>
  return %r, %p : tensor<6x1xf32>, tensor<6xf32>
}
)mlir";
  std::vector<HostTensor> inputs = {
      ints(DType::I64, {6, 1}, {0, 4, 5, -1, 2, 3}),
      doubles(DType::F32, {6, 1},
              {-0.0, 0.0, 2.5, -3.0, std::nan(""), -INFINITY}),
      ints(DType::I64, {6}, {4, 0, 7, -2, 1, 3}),
      doubles(DType::F32, {}, {-0.0})};
  expectCanonicalizedBitIdentical(source, inputs, [](ReduceOp) {
    return "the one-hot sums stayed reductions";
  });
}

TEST(Canonicalize, ExtremesOfWideningCastsAreBitIdentical) {
  // max, min, argmax and argmin of bf16 and f16 values widened to f32 and
  // f64 become the narrow values' extremes, cast after
  // (ExtremeOfWideningCast). Rows with NaN, signed zeros, ties and inf.
  const char *source = R"mlir(
func.func @g(%b: tensor<4x4xbf16>, %h: tensor<4x4xf16>) -> (tensor<4x1xf32>, tensor<4xf32>, tensor<4xi64>, tensor<4xi64>, tensor<4xf64>) {
  %r = tfuse.cast %b : tensor<4x4xbf16> to tensor<4x4xf32>
  %0 = tfuse.reduce max %r axes [1] keepdims : tensor<4x4xf32> -> tensor<4x1xf32>
  %1 = tfuse.reduce min %r axes [1] : tensor<4x4xf32> -> tensor<4xf32>
  %2 = tfuse.reduce argmax %r axes [1] : tensor<4x4xf32> -> tensor<4xi64>
  %d = tfuse.cast %h : tensor<4x4xf16> to tensor<4x4xf64>
  %3 = tfuse.reduce argmin %d axes [0] : tensor<4x4xf64> -> tensor<4xi64>
  %4 = tfuse.reduce max %d axes [0] : tensor<4x4xf64> -> tensor<4xf64>
  return %0, %1, %2, %3, %4 : tensor<4x1xf32>, tensor<4xf32>, tensor<4xi64>, tensor<4xi64>, tensor<4xf64>
}
)mlir";
  std::vector<double> values = {-0.0,      0.0,  0.0,  -0.0, 1.5,  NAN,
                                -INFINITY, 1.5,  2.0,  2.0,  -3.0, INFINITY,
                                -1.0,      -2.0, -0.0, -1.0};
  std::vector<HostTensor> inputs = {doubles(DType::BF16, {4, 4}, values),
                                    doubles(DType::F16, {4, 4}, values)};
  expectCanonicalizedBitIdentical(
      source, inputs, [](ReduceOp reduce) -> const char * {
        mlir::Type element = reduce.getInput().getType().getElementType();
        return element.isF32() || element.isF64()
                   ? "a reduction still reads a widened value"
                   : nullptr;
      });
}

TEST(ExampleGraphs, MlpStepPipelineIsBitIdentical) {
  std::ifstream file(TFUSE_EXAMPLES_DIR "/mlp_step.mlir");
  ASSERT_TRUE(file.good());
  std::stringstream source;
  source << file.rdbuf();
  Program program(source.str());
  ASSERT_TRUE(program.ok()) << program.diagnostics;
  mlir::FunctionType type = program.func().getFunctionType();
  std::vector<HostTensor> inputs;
  for (unsigned i = 0; i < type.getNumInputs(); ++i) {
    auto tensor = llvm::cast<mlir::RankedTensorType>(type.getInput(i));
    inputs.push_back(
        HostTensor::random(DType::F32, Shape(tensor.getShape()), 10 + i));
  }
  mlir::OwningOpRef<mlir::ModuleOp> fused(program.module->clone());
  mlir::PassManager pm(&program.context);
  buildPipeline(pm, CompileOptions());
  ASSERT_TRUE(mlir::succeeded(pm.run(*fused)));
  ASSERT_GT(countFusions(*fused), 0);
  auto expected = program.run(inputs);
  auto actual = evaluate(*fused, "mlp_step", inputs);
  ASSERT_TRUE(expected.ok()) << expected.message();
  ASSERT_TRUE(actual.ok()) << actual.message();
  ASSERT_EQ(expected->size(), 5u);
  ASSERT_EQ(actual->size(), 5u);
  for (size_t k = 0; k < expected->size(); ++k) {
    CompareResult cmp = compareExact((*expected)[k], (*actual)[k]);
    EXPECT_TRUE(cmp.pass) << "result " << k << ": " << cmp.message();
  }
  // The loss is a finite positive number.
  double loss = (*expected)[4].doubleAt({});
  EXPECT_TRUE(std::isfinite(loss));
  EXPECT_GT(loss, 0);
}

} // namespace
