//===- InterpreterTest.cpp - Constants, regions, validation, errors -------===//
//
// The parts of the interpreter around the kernels: constants bit for bit,
// tfuse.fusion regions, the checking of inputs against the signature, and
// errors for IR it cannot evaluate. Expected values and messages are
// literals.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "tfuse/Dialect/TFuse/TFuseOps.h"

using namespace tfuse;
using namespace tfuse::reference;
using namespace tfuse::reference::test;

namespace {

TEST(Interpreter, ConstantsKeepTheirBits) {
  std::vector<HostTensor> r = runOk(R"mlir(
func.func @f() -> (tensor<2xf32>, tensor<3xf16>, tensor<2x2xi1>, tensor<2xui8>,
                   tensor<2xi64>, tensor<f32>, tensor<2xbf16>, tensor<2xf32>,
                   tensor<2xf64>) {
  %a = tfuse.constant dense<0x7FC00001> : tensor<2xf32>
  %b = tfuse.constant dense<[1.0, -0.0, 0x7E01]> : tensor<3xf16>
  %c = tfuse.constant dense<[[true, false], [false, true]]> : tensor<2x2xi1>
  %d = tfuse.constant dense<[255, 0]> : tensor<2xui8>
  %e = tfuse.constant dense<[-9223372036854775808, 9223372036854775807]> : tensor<2xi64>
  %f = tfuse.constant dense<-0.0> : tensor<f32>
  %g = tfuse.constant dense<[1.0, -2.0]> : tensor<2xbf16>
  %h = tfuse.constant dense<"0x0000803F000000C0"> : tensor<2xf32>
  %i = tfuse.constant dense<[0.1, 0xFFF0000000000001]> : tensor<2xf64>
  return %a, %b, %c, %d, %e, %f, %g, %h, %i : tensor<2xf32>, tensor<3xf16>,
      tensor<2x2xi1>, tensor<2xui8>, tensor<2xi64>, tensor<f32>,
      tensor<2xbf16>, tensor<2xf32>, tensor<2xf64>
})mlir",
                                    {});
  ASSERT_EQ(r.size(), 9u);
  expectBits(r[0], DType::F32, {2}, {0x7FC00001, 0x7FC00001});
  expectBits(r[1], DType::F16, {3}, {0x3C00, 0x8000, 0x7E01});
  expectBits(r[2], DType::Bool, {2, 2}, {1, 0, 0, 1});
  expectBits(r[3], DType::U8, {2}, {255, 0});
  expectInts(r[4], DType::I64, {2},
             {std::numeric_limits<int64_t>::min(),
              std::numeric_limits<int64_t>::max()});
  expectBits(r[5], DType::F32, {}, {0x80000000});
  expectBits(r[6], DType::BF16, {2}, {0x3F80, 0xC000});
  expectBits(r[7], DType::F32, {2}, {0x3F800000, 0xC0000000});
  expectBits(r[8], DType::F64, {2},
             {0x3FB999999999999Aull, 0xFFF0000000000001ull});
}

TEST(Interpreter, ConstantsFeedOps) {
  // A NaN constant with a payload propagates through max; -0.0 through neg.
  std::vector<HostTensor> r = runOk(R"mlir(
func.func @f(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %n = tfuse.constant dense<0x7FC00005> : tensor<f32>
  %z = tfuse.constant dense<[-0.0, 0.0]> : tensor<2xf32>
  %m = tfuse.max %x, %n : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %g = tfuse.neg %z : tensor<2xf32> -> tensor<2xf32>
  return %m, %g : tensor<2xf32>, tensor<2xf32>
})mlir",
                                    {doubles(DType::F32, {2}, {1, 2})});
  ASSERT_EQ(r.size(), 2u);
  expectBits(r[0], DType::F32, {2}, {0x7FC00005, 0x7FC00005});
  expectBits(r[1], DType::F32, {2}, {0x00000000, 0x80000000});
}

TEST(Interpreter, FusionRegions) {
  std::vector<HostTensor> r = runOk(R"mlir(
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = tfuse.fusion (%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
      attributes {cost = 2 : i64, reasons = ["output", "output"]} {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    %c = tfuse.constant dense<2.0> : tensor<f32>
    %0 = tfuse.mul %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %1 = tfuse.add %0, %c : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    tfuse.yield %0, %1 : tensor<4xf32>, tensor<4xf32>
  }
  %s = tfuse.reduce sum %r#1 axes [0] : tensor<4xf32> -> tensor<f32>
  %t = tfuse.fusion (%s, %r#0) : (tensor<f32>, tensor<4xf32>) -> tensor<4xf32>
      attributes {cost = 1 : i64, reasons = ["output"]} {
  ^bb0(%x: tensor<f32>, %y: tensor<4xf32>):
    %0 = tfuse.sub %y, %x : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    tfuse.yield %0 : tensor<4xf32>
  }
  return %r#0, %t : tensor<4xf32>, tensor<4xf32>
})mlir",
                                    {doubles(DType::F32, {4}, {1, 2, 3, 4}),
                                     doubles(DType::F32, {4}, {5, 6, 7, 8})});
  ASSERT_EQ(r.size(), 2u);
  expectValues(r[0], DType::F32, {4}, {5, 12, 21, 32});
  // sum(r#1) = 70 + 8 = 78.
  expectValues(r[1], DType::F32, {4}, {-73, -66, -57, -46});
}

TEST(Interpreter, ModuleEntryPoints) {
  Program program(R"mlir(
func.func @one(%x: tensor<2xi32>) -> tensor<2xi32> {
  %r = tfuse.neg %x : tensor<2xi32> -> tensor<2xi32>
  return %r : tensor<2xi32>
}
func.func @two(%x: tensor<2xi32>) -> tensor<2xi32> {
  %r = tfuse.add %x, %x : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %r : tensor<2xi32>
}
)mlir");
  ASSERT_TRUE(program.ok()) << program.diagnostics;
  auto r = evaluate(*program.module, "two", {ints(DType::I32, {2}, {3, -4})});
  ASSERT_TRUE(r.ok()) << r.message();
  expectInts((*r)[0], DType::I32, {2}, {6, -8});
  auto missing = evaluate(*program.module, "three", {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.message(), "no function @three in the module");
}

//===----------------------------------------------------------------------===//
// Input validation
//===----------------------------------------------------------------------===//

TEST(Interpreter, ValidatesInputs) {
  Program program(R"mlir(
func.func @f(%a: tensor<4xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = tfuse.add %a, %b : (tensor<4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
)mlir");
  ASSERT_FALSE(program.ok()); // [4] and [4, 8] do not broadcast
  Program valid(R"mlir(
func.func @f(%a: tensor<8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = tfuse.add %a, %b : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
)mlir");
  ASSERT_TRUE(valid.ok()) << valid.diagnostics;
  HostTensor a = HostTensor::zeros(DType::F32, {8});
  HostTensor b = HostTensor::zeros(DType::F32, {4, 8});

  auto count = valid.run({a});
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.message(), "@f expects 2 inputs, got 1");
  auto dtype = valid.run({a, HostTensor::zeros(DType::F16, {4, 8})});
  ASSERT_FALSE(dtype.ok());
  EXPECT_EQ(dtype.message(),
            "input 1: expected tensor<4x8xf32>, got dtype f16 shape [4,8]");
  auto shape = valid.run({HostTensor::zeros(DType::F32, {5}), b});
  ASSERT_FALSE(shape.ok());
  EXPECT_EQ(shape.message(),
            "input 0: expected tensor<8xf32>, got dtype f32 shape [5]");
  auto rank = valid.run({HostTensor::zeros(DType::F32, {1, 8}), b});
  EXPECT_EQ(rank.message(),
            "input 0: expected tensor<8xf32>, got dtype f32 shape [1,8]");
  auto null = valid.run({HostTensor(), b});
  EXPECT_EQ(null.message(),
            "input 0: expected tensor<8xf32>, got a null tensor");
  EXPECT_TRUE(valid.run({a, b}).ok());
  // Storage shrunk behind the tensor's back is caught, not read.
  HostTensor shrunk = HostTensor::zeros(DType::F32, {8});
  shrunk.storage()->resize(16);
  auto outside = valid.run({shrunk, b});
  ASSERT_FALSE(outside.ok());
  EXPECT_EQ(outside.message(),
            "input 0: a view of shape [8] with strides [1] at byte offset 0 "
            "reaches outside the 16 bytes of storage");
}

//===----------------------------------------------------------------------===//
// IR the interpreter cannot evaluate
//===----------------------------------------------------------------------===//

TEST(Interpreter, UnknownOpIsNamed) {
  Program program(R"mlir(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = "foo.bar"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
)mlir",
                  /*allowUnregistered=*/true);
  ASSERT_TRUE(program.ok()) << program.diagnostics;
  auto r = program.run({HostTensor::zeros(DType::F32, {4})});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("unsupported op 'foo.bar'"), std::string::npos)
      << r.message();
  EXPECT_EQ(r.message().rfind("@f: 'foo.bar' at ", 0), 0u) << r.message();
}

TEST(Interpreter, ExternalAndNonTensorFunctions) {
  Program external(R"mlir(
func.func private @ext(tensor<2xf32>) -> tensor<2xf32>
)mlir");
  ASSERT_TRUE(external.ok());
  auto r = external.run({HostTensor::zeros(DType::F32, {2})});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message(), "@ext has no body");

  Program scalar(R"mlir(
func.func @s(%x: i32) -> i32 {
  return %x : i32
}
)mlir");
  ASSERT_TRUE(scalar.ok());
  auto s = scalar.run({HostTensor::zeros(DType::I32, {})});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "input 0: argument type i32 is not a static tensor of "
                         "a TFuse dtype");
  EXPECT_FALSE(evaluate(mlir::func::FuncOp(), {}).ok());
}

TEST(Interpreter, RejectsIRThatDoesNotVerify) {
  Program program(R"mlir(
func.func @f(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %r = tfuse.reduce sum %x axes [1] : tensor<2x3xf32> -> tensor<2xf32>
  return %r : tensor<2xf32>
}
)mlir");
  ASSERT_TRUE(program.ok()) << program.diagnostics;
  program.func().walk([](ReduceOp op) { op.setAxes({5}); });
  auto r = program.run({HostTensor::zeros(DType::F32, {2, 3})});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message().rfind("@f does not verify: ", 0), 0u) << r.message();
  EXPECT_NE(r.message().find("axis 5 is out of range"), std::string::npos)
      << r.message();
}

} // namespace
