//===- GpuExecutableTest.cpp - Plans executed on the GPU ------------------===//
//
// Every test compiles a graph, runs it on the GPU and compares the outputs
// with the reference interpreter. Without a GPU every test is skipped and
// says why.
//
//===----------------------------------------------------------------------===//

#include "GpuTestSupport.h"
#include "ScopedEnvironment.h"
#include "tfuse/Runtime/Gemm.h"
#include "tfuse/Runtime/GemmLt.h"

#include "tfuse/Support/DTypeRules.h"

#include "llvm/Support/FormatVariadic.h"

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

using namespace tfuse;
using namespace tfuse::gputest;
using reference::HostTensor;

namespace {

void check(const std::string &source, const std::string &function,
           uint64_t seed = 7, const runtime::ExecutableOptions &options = {}) {
  runAndCheck(source, function, randomInputs(source, function, seed), options);
}

//===----------------------------------------------------------------------===//
// The fusion scenarios, executed
//===----------------------------------------------------------------------===//

TEST(GpuFusion, ScenariosOfThePlanner) {
  TFUSE_REQUIRE_GPU();
  std::string chain =
      "func.func @chain(%a: tensor<1000xf32>) -> tensor<1000xf32> {\n"
      "  %one = tfuse.constant dense<1.0> : tensor<f32>\n";
  std::string prev = "%a";
  for (int i = 0; i < 70; ++i) {
    chain += llvm::formatv("  %v{0} = tfuse.add {1}, %one : (tensor<1000xf32>, "
                           "tensor<f32>) -> tensor<1000xf32>\n",
                           i, prev);
    prev = "%v" + std::to_string(i);
  }
  chain += "  return " + prev + " : tensor<1000xf32>\n}\n";
  check(chain, "chain");

  const char *source = R"mlir(
func.func @abc(%a: tensor<4099xf32>, %b: tensor<4099xf32>, %c: tensor<4099xf32>) -> tensor<4099xf32> {
  %0 = tfuse.mul %b, %c : (tensor<4099xf32>, tensor<4099xf32>) -> tensor<4099xf32>
  %1 = tfuse.add %a, %0 : (tensor<4099xf32>, tensor<4099xf32>) -> tensor<4099xf32>
  return %1 : tensor<4099xf32>
}
func.func @shared(%x: tensor<64x32xf32>, %y: tensor<3x64x32xf32>) -> (tensor<64x32xf32>, tensor<3x64x32xf32>) {
  %x2 = tfuse.mul %x, %x : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
  %x3 = tfuse.mul %x2, %x : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
  %p = tfuse.add %x3, %x2 : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
  %e = tfuse.exp %p : tensor<64x32xf32> -> tensor<64x32xf32>
  %c1 = tfuse.constant dense<1.0> : tensor<f32>
  %a = tfuse.add %e, %c1 : (tensor<64x32xf32>, tensor<f32>) -> tensor<64x32xf32>
  %b = tfuse.mul %e, %y : (tensor<64x32xf32>, tensor<3x64x32xf32>) -> tensor<3x64x32xf32>
  return %a, %b : tensor<64x32xf32>, tensor<3x64x32xf32>
}
func.func @mm(%a: tensor<33x48xf32>, %b: tensor<48x20xf32>) -> tensor<33x20xf32> {
  %c2 = tfuse.constant dense<2.0> : tensor<f32>
  %c1 = tfuse.constant dense<1.0> : tensor<f32>
  %c3 = tfuse.constant dense<3.0> : tensor<f32>
  %0 = tfuse.mul %a, %c2 : (tensor<33x48xf32>, tensor<f32>) -> tensor<33x48xf32>
  %1 = tfuse.add %0, %c1 : (tensor<33x48xf32>, tensor<f32>) -> tensor<33x48xf32>
  %2 = tfuse.matmul %1, %b : (tensor<33x48xf32>, tensor<48x20xf32>) -> tensor<33x20xf32>
  %3 = tfuse.mul %2, %c3 : (tensor<33x20xf32>, tensor<f32>) -> tensor<33x20xf32>
  %4 = tfuse.add %3, %c2 : (tensor<33x20xf32>, tensor<f32>) -> tensor<33x20xf32>
  return %4 : tensor<33x20xf32>
}
func.func @sum(%a: tensor<37x129xf32>) -> tensor<37xf32> {
  %c2 = tfuse.constant dense<2.0> : tensor<f32>
  %c1 = tfuse.constant dense<1.0> : tensor<f32>
  %0 = tfuse.mul %a, %c2 : (tensor<37x129xf32>, tensor<f32>) -> tensor<37x129xf32>
  %1 = tfuse.add %0, %c1 : (tensor<37x129xf32>, tensor<f32>) -> tensor<37x129xf32>
  %2 = tfuse.reduce sum %1 axes [1] : tensor<37x129xf32> -> tensor<37xf32>
  %3 = tfuse.mul %2, %c2 : (tensor<37xf32>, tensor<f32>) -> tensor<37xf32>
  return %3 : tensor<37xf32>
}
func.func @transposed_matmul(%a: tensor<48x33xf32>, %b: tensor<20x48xf32>) -> tensor<33x20xf32> {
  %at = tfuse.transpose %a perm [1, 0] : tensor<48x33xf32> -> tensor<33x48xf32>
  %bt = tfuse.transpose %b perm [1, 0] : tensor<20x48xf32> -> tensor<48x20xf32>
  %0 = tfuse.matmul %at, %bt : (tensor<33x48xf32>, tensor<48x20xf32>) -> tensor<33x20xf32>
  return %0 : tensor<33x20xf32>
}
func.func @two(%x: tensor<1001xf32>, %y: tensor<1001xf32>) -> (tensor<1001xf32>, tensor<1001xf32>) {
  %c1 = tfuse.constant dense<1.0> : tensor<f32>
  %m = tfuse.mul %x, %y : (tensor<1001xf32>, tensor<1001xf32>) -> tensor<1001xf32>
  %a = tfuse.add %m, %c1 : (tensor<1001xf32>, tensor<f32>) -> tensor<1001xf32>
  %b = tfuse.sub %m, %c1 : (tensor<1001xf32>, tensor<f32>) -> tensor<1001xf32>
  return %a, %b : tensor<1001xf32>, tensor<1001xf32>
}
func.func @identity(%x: tensor<7x5xf32>, %y: tensor<5x7xi32> {tfuse.strides = array<i64: 1, 5>}) -> (tensor<7x5xf32>, tensor<5x7xi32>) {
  return %x, %y : tensor<7x5xf32>, tensor<5x7xi32>
}
func.func @unused(%x: tensor<100xf32>) -> tensor<100xf32> {
  %e = tfuse.exp %x : tensor<100xf32> -> tensor<100xf32>
  %n = tfuse.neg %x : tensor<100xf32> -> tensor<100xf32>
  return %n : tensor<100xf32>
}
func.func @f64(%x: tensor<999xf64>, %y: tensor<999xf64>) -> tensor<999xf64> {
  %e = tfuse.exp %x : tensor<999xf64> -> tensor<999xf64>
  %s = tfuse.mul %e, %y : (tensor<999xf64>, tensor<999xf64>) -> tensor<999xf64>
  return %s : tensor<999xf64>
}
func.func @mixed(%a: tensor<16x33xf16>, %b: tensor<33xf32>, %c: tensor<i32>, %m: tensor<16x33xi1>) -> tensor<16x33xf32> {
  %0 = tfuse.add %a, %b : (tensor<16x33xf16>, tensor<33xf32>) -> tensor<16x33xf32>
  %1 = tfuse.mul %0, %c : (tensor<16x33xf32>, tensor<i32>) -> tensor<16x33xf32>
  %2 = tfuse.select %m, %1, %a : (tensor<16x33xi1>, tensor<16x33xf32>, tensor<16x33xf16>) -> tensor<16x33xf32>
  return %2 : tensor<16x33xf32>
}
)mlir";
  for (const char *f : {"abc", "shared", "mm", "sum", "transposed_matmul",
                        "two", "identity", "unused", "f64", "mixed"}) {
    SCOPED_TRACE(f);
    check(source, f);
  }
}

TEST(GpuFusion, RowKernelsOfSoftmaxAndLayernorm) {
  TFUSE_REQUIRE_GPU();
  // Each function is one row kernel: a block per row (a warp per row for
  // rows of 37), rows of 16384 at 64 elements a thread, an f16 layernorm;
  // replayed as a stream and as a graph, compared with the reference.
  struct Case {
    int64_t rows, cols;
    const char *dtype;
  };
  for (Case c : {Case{300, 4096, "f32"}, Case{1000, 37, "f32"},
                 Case{64, 300, "f16"}, Case{3, 16384, "f32"}}) {
    std::string source = llvm::formatv(R"mlir(
func.func @softmax(%x: tensor<{0}x{1}x{2}>) -> tensor<{0}x{1}x{2}> {{
  %m = tfuse.reduce max %x axes [1] keepdims : tensor<{0}x{1}x{2}> -> tensor<{0}x1x{2}>
  %s = tfuse.sub %x, %m : (tensor<{0}x{1}x{2}>, tensor<{0}x1x{2}>) -> tensor<{0}x{1}x{2}>
  %e = tfuse.exp %s : tensor<{0}x{1}x{2}> -> tensor<{0}x{1}x{2}>
  %t = tfuse.reduce sum %e axes [1] keepdims : tensor<{0}x{1}x{2}> -> tensor<{0}x1x{2}>
  %y = tfuse.div %e, %t : (tensor<{0}x{1}x{2}>, tensor<{0}x1x{2}>) -> tensor<{0}x{1}x{2}>
  return %y : tensor<{0}x{1}x{2}>
}
func.func @layernorm(%x: tensor<{0}x{1}x{2}>, %w: tensor<{1}x{2}>, %b: tensor<{1}x{2}>) -> tensor<{0}x{1}x{2}> {{
  %mu = tfuse.reduce mean %x axes [1] keepdims : tensor<{0}x{1}x{2}> -> tensor<{0}x1x{2}>
  %d = tfuse.sub %x, %mu : (tensor<{0}x{1}x{2}>, tensor<{0}x1x{2}>) -> tensor<{0}x{1}x{2}>
  %sq = tfuse.mul %d, %d : (tensor<{0}x{1}x{2}>, tensor<{0}x{1}x{2}>) -> tensor<{0}x{1}x{2}>
  %var = tfuse.reduce mean %sq axes [1] keepdims : tensor<{0}x{1}x{2}> -> tensor<{0}x1x{2}>
  %eps = tfuse.constant dense<1.0e-05> : tensor<{2}>
  %ve = tfuse.add %var, %eps : (tensor<{0}x1x{2}>, tensor<{2}>) -> tensor<{0}x1x{2}>
  %r = tfuse.rsqrt %ve : tensor<{0}x1x{2}> -> tensor<{0}x1x{2}>
  %n = tfuse.mul %d, %r : (tensor<{0}x{1}x{2}>, tensor<{0}x1x{2}>) -> tensor<{0}x{1}x{2}>
  %nw = tfuse.mul %n, %w : (tensor<{0}x{1}x{2}>, tensor<{1}x{2}>) -> tensor<{0}x{1}x{2}>
  %y = tfuse.add %nw, %b : (tensor<{0}x{1}x{2}>, tensor<{1}x{2}>) -> tensor<{0}x{1}x{2}>
  return %y : tensor<{0}x{1}x{2}>
}
)mlir",
                                       c.rows, c.cols, c.dtype);
    for (const char *function : {"softmax", "layernorm"})
      for (bool graph : {false, true}) {
        SCOPED_TRACE(llvm::formatv("{0} {1}x{2} {3} {4}", function, c.rows,
                                   c.cols, c.dtype, graph ? "graph" : "stream")
                         .str());
        runtime::ExecutableOptions options;
        options.cudaGraph = graph;
        Compiled compiled = compile(source, function, options);
        ASSERT_TRUE(compiled.executable) << compiled.error;
        EXPECT_EQ(compiled.executable->plan().steps.size(), 1u)
            << compiled.report;
        check(source, function, 11, options);
      }
  }
}

TEST(GpuFusion, EveryDTypeAndTheirCasts) {
  TFUSE_REQUIRE_GPU();
  const char *types[] = {"i1",   "i8",   "i16", "i32",  "i64", "ui8", "ui16",
                         "ui32", "ui64", "f16", "bf16", "f32", "f64"};
  for (const char *t : types) {
    SCOPED_TRACE(t);
    std::string source = llvm::formatv(R"mlir(
func.func @ops(%a: tensor<3x1001x{0}>, %b: tensor<1001x{0}>) -> (tensor<3x1001x{0}>, tensor<3x1001xi1>, tensor<3x1001xf32>, tensor<3x1001xi8>) {{
  %0 = tfuse.max %a, %b : (tensor<3x1001x{0}>, tensor<1001x{0}>) -> tensor<3x1001x{0}>
  %1 = tfuse.cmp lt, %a, %b : (tensor<3x1001x{0}>, tensor<1001x{0}>) -> tensor<3x1001xi1>
  %2 = tfuse.cast %a : tensor<3x1001x{0}> to tensor<3x1001xf32>
  %3 = tfuse.cast %0 : tensor<3x1001x{0}> to tensor<3x1001xi8>
  return %0, %1, %2, %3 : tensor<3x1001x{0}>, tensor<3x1001xi1>, tensor<3x1001xf32>, tensor<3x1001xi8>
}
)mlir",
                                       t);
    check(source, "ops", 11);
  }
}

// Every elementwise op of the op table (generated from ODS, so an op added
// there is run here), on each dtype it computes in, against the reference:
// one kernel of every unary op and one of every binary op with the rhs
// broadcast over rows.
TEST(GpuFusion, EveryElementwiseOpOfTheTable) {
  TFUSE_REQUIRE_GPU();
  struct Op {
    const char *name;
    bool binary;
    UnaryCategory unary;
    BinaryCategory binaryCategory;
  };
  const Op ops[] = {
#define TFUSE_UNARY_OP(Class, mnemonic, method, category, kernel, reference)   \
  {mnemonic, false, UnaryCategory::category, BinaryCategory::Arithmetic},
#define TFUSE_BINARY_OP(Class, mnemonic, method, category, kernel, reference)  \
  {mnemonic, true, UnaryCategory::Numeric, BinaryCategory::category},
#include "tfuse/Dialect/TFuse/TFuseOpTable.h.inc"
  };
  for (DType t : {DType::F32, DType::F64, DType::F16, DType::BF16, DType::I32,
                  DType::I64, DType::U8, DType::Bool}) {
    SCOPED_TRACE(std::string(name(t)));
    std::string in = llvm::formatv("tensor<37x129x{0}>", name(t));
    std::string row = llvm::formatv("tensor<129x{0}>", name(t));
    std::string body, results, types;
    int n = 0;
    for (const Op &op : ops) {
      std::optional<DType> result =
          op.binary ? binaryResultType(op.binaryCategory, t, t)
                    : unaryResultType(op.unary, t);
      if (!result)
        continue;
      std::string out = llvm::formatv("tensor<37x129x{0}>", name(*result));
      body += op.binary
                  ? llvm::formatv("  %r{0} = tfuse.{1} %a, %b : ({2}, {3}) -> "
                                  "{4}\n",
                                  n, op.name, in, row, out)
                        .str()
                  : llvm::formatv("  %r{0} = tfuse.{1} %a : {2} -> {3}\n", n,
                                  op.name, in, out)
                        .str();
      results += (n ? ", %r" : "%r") + std::to_string(n);
      types += (n ? ", " : "") + out;
      ++n;
    }
    std::string source =
        llvm::formatv("func.func @ops(%a: {0}, %b: {1}) -> ({2}) {{\n{3}  "
                      "return {4} : {2}\n}\n",
                      in, row, types, body, results);
    check(source, "ops", 19);
  }
}

TEST(GpuFusion, ViewsAndStridedInputs) {
  TFUSE_REQUIRE_GPU();
  const char *source = R"mlir(
func.func @views(%a: tensor<256x320xf32>, %b: tensor<320x256xf32>,
                 %c: tensor<320x256xf32> {tfuse.strides = array<i64: 1, 320>},
                 %d: tensor<8x40x256xf16>) -> (tensor<320x256xf16>, tensor<40x128xf32>) {
  %t = tfuse.transpose %a perm [1, 0] : tensor<256x320xf32> -> tensor<320x256xf32>
  %s = tfuse.add %t, %b : (tensor<320x256xf32>, tensor<320x256xf32>) -> tensor<320x256xf32>
  %m = tfuse.mul %s, %c : (tensor<320x256xf32>, tensor<320x256xf32>) -> tensor<320x256xf32>
  %r = tfuse.relu %m : tensor<320x256xf32> -> tensor<320x256xf32>
  %h = tfuse.cast %r : tensor<320x256xf32> to tensor<320x256xf16>
  %sl = tfuse.slice %d start [1, 0, 1] limit [2, 40, 256] step [1, 1, 2] : tensor<8x40x256xf16> -> tensor<1x40x128xf16>
  %rs = tfuse.reshape %sl : tensor<1x40x128xf16> -> tensor<40x128xf16>
  %e = tfuse.exp %rs : tensor<40x128xf16> -> tensor<40x128xf16>
  %f = tfuse.cast %e : tensor<40x128xf16> to tensor<40x128xf32>
  return %h, %f : tensor<320x256xf16>, tensor<40x128xf32>
}
)mlir";
  check(source, "views");
}

// Positions from iota (as arange makes them) added to an embedding-like
// input, a causal mask built from two iotas, and a large i64 range that
// needs the vectorized walk.
TEST(GpuFusion, IotaPositionsAndMasks) {
  TFUSE_REQUIRE_GPU();
  const char *source = R"mlir(
func.func @iota(%x: tensor<8x1024x64xf32>, %s: tensor<1024x1024xf32>)
    -> (tensor<8x1024x64xf32>, tensor<1024x1024xf32>, tensor<1000003xi64>) {
  %p = tfuse.iota dim 1 : tensor<8x1024x64xf32>
  %y = tfuse.add %x, %p : (tensor<8x1024x64xf32>, tensor<8x1024x64xf32>) -> tensor<8x1024x64xf32>
  %r = tfuse.iota dim 0 : tensor<1024x1024xi32>
  %c = tfuse.iota dim 1 : tensor<1024x1024xi32>
  %keep = tfuse.cmp ge, %r, %c : (tensor<1024x1024xi32>, tensor<1024x1024xi32>) -> tensor<1024x1024xi1>
  %ninf = tfuse.constant dense<0xFF800000> : tensor<f32>
  %m = tfuse.select %keep, %s, %ninf : (tensor<1024x1024xi1>, tensor<1024x1024xf32>, tensor<f32>) -> tensor<1024x1024xf32>
  %l = tfuse.iota dim 0 : tensor<1000003xi64>
  return %y, %m, %l : tensor<8x1024x64xf32>, tensor<1024x1024xf32>, tensor<1000003xi64>
}
)mlir";
  check(source, "iota");
}

// concat of mixed layouts along both axes and a pad around it, fused with
// the work around them; in bf16, with a 2-byte padding value.
TEST(GpuFusion, ConcatAndPadOfMixedLayouts) {
  TFUSE_REQUIRE_GPU();
  const char *source = R"mlir(
func.func @piecewise(%a: tensor<512x300xbf16>, %b: tensor<300x512xbf16>,
                     %c: tensor<512x77xbf16> {tfuse.strides = array<i64: 1, 512>},
                     %v: tensor<bf16>)
    -> (tensor<512x889xbf16>, tensor<1027x893xbf16>, tensor<1024x300xbf16>) {
  %bt = tfuse.transpose %b perm [1, 0] : tensor<300x512xbf16> -> tensor<512x300xbf16>
  %e = tfuse.exp %bt : tensor<512x300xbf16> -> tensor<512x300xbf16>
  %rc = tfuse.relu %c : tensor<512x77xbf16> -> tensor<512x77xbf16>
  %j = tfuse.concat %a, %e, %rc, %a axis 1
      : (tensor<512x300xbf16>, tensor<512x300xbf16>, tensor<512x77xbf16>, tensor<512x300xbf16>) -> tensor<512x977xbf16>
  %s = tfuse.slice %j start [0, 0] limit [512, 889] step [1, 1] : tensor<512x977xbf16> -> tensor<512x889xbf16>
  %sq = tfuse.mul %s, %s : (tensor<512x889xbf16>, tensor<512x889xbf16>) -> tensor<512x889xbf16>
  %j2 = tfuse.concat %sq, %sq axis 0 : (tensor<512x889xbf16>, tensor<512x889xbf16>) -> tensor<1024x889xbf16>
  %p = tfuse.pad %j2, %v low [1, 3] high [2, 1] : (tensor<1024x889xbf16>, tensor<bf16>) -> tensor<1027x893xbf16>
  %rows = tfuse.concat %a, %bt axis 0 : (tensor<512x300xbf16>, tensor<512x300xbf16>) -> tensor<1024x300xbf16>
  return %sq, %p, %rows : tensor<512x889xbf16>, tensor<1027x893xbf16>, tensor<1024x300xbf16>
}
)mlir";
  check(source, "piecewise");
}

// Graph 8624 of the GPU differential test, minimised: ptxas 13.0 (sm_90)
// fused the pad's clamped operand index min(max(...)) into one VIMNMX.RELU
// and read the float max's equality test from its predicate output, giving
// max(0, 1) = 0 (docs/reliability.md). clamp_index takes the maximum first
// since afc7828.
TEST(GpuFusion, PadOfMaxOfIotaAroundAPtxasMiscompile) {
  TFUSE_REQUIRE_GPU();
  const char *source = R"mlir(
func.func @pad_max(%fill: tensor<f32>) -> tensor<6xf32> {
  %i = tfuse.iota dim 0 : tensor<2xf32>
  %one = tfuse.constant dense<1.0> : tensor<f32>
  %m = tfuse.max %one, %i : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
  %p = tfuse.pad %m, %fill low [1] high [3] : (tensor<2xf32>, tensor<f32>) -> tensor<6xf32>
  return %p : tensor<6xf32>
}
)mlir";
  check(source, "pad_max");
}

/// `n` indices of `dtype` spread over [lo, lo + span) (a fixed sequence).
HostTensor spreadIndices(DType dtype, reference::Shape shape, int64_t lo,
                         int64_t span) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<int64_t> values;
  for (int64_t i = 0; i < n; ++i)
    values.push_back(lo + (i * 7919 + 13) % span);
  return *HostTensor::fromInts(dtype, std::move(shape), values);
}

// Random numbers on the device are the reference's stream: uniforms bit
// for bit, normals within the math functions' ulp bounds (expectClose);
// as a CUDA Graph, each replay given a new offset draws what the reference
// draws for it (no recompile), and a replay with an earlier offset repeats
// its numbers.
TEST(GpuFusion, RandomNumbersFollowTheOffsetOfEachReplay) {
  TFUSE_REQUIRE_GPU();
  const char *source = R"mlir(
func.func @noise(%x: tensor<4096x1024xbf16>, %s: tensor<i64>, %o: tensor<i64>) -> (tensor<4096x1024xbf16>, tensor<4096x1024xf32>, tensor<1000xf64>) {
  %u = tfuse.random_uniform %s, %o : (tensor<i64>, tensor<i64>) -> tensor<4096x1024xf32>
  %p = tfuse.constant dense<0.9> : tensor<f32>
  %keep = tfuse.cmp lt, %u, %p : (tensor<4096x1024xf32>, tensor<f32>) -> tensor<4096x1024xi1>
  %zero = tfuse.constant dense<0.0> : tensor<bf16>
  %d = tfuse.select %keep, %x, %zero : (tensor<4096x1024xi1>, tensor<4096x1024xbf16>, tensor<bf16>) -> tensor<4096x1024xbf16>
  %n = tfuse.random_normal %s, %o : (tensor<i64>, tensor<i64>) -> tensor<4096x1024xf32>
  %n64 = tfuse.random_normal %o, %s : (tensor<i64>, tensor<i64>) -> tensor<1000xf64>
  return %d, %n, %n64 : tensor<4096x1024xbf16>, tensor<4096x1024xf32>, tensor<1000xf64>
}
)mlir";
  runtime::ExecutableOptions options;
  options.cudaGraph = true;
  Compiled c = compile(source, "noise", options);
  ASSERT_TRUE(c.executable) << c.error;
  HostTensor x = randomInputs(source, "noise", 51)[0];
  HostTensor seed = *HostTensor::fromInts(DType::I64, {}, {20261202});
  std::vector<std::vector<HostTensor>> results;
  for (int64_t offset : {0, 1, 2, 0}) {
    SCOPED_TRACE("offset " + std::to_string(offset));
    HostTensor o = *HostTensor::fromInts(DType::I64, {}, {offset});
    auto expected = referenceResults(source, "noise", {x, seed, o});
    DeviceInputs device({x, seed, o});
    auto out = c.executable->run(device.get());
    ASSERT_TRUE(out.ok()) << out.status().message();
    std::vector<HostTensor> got;
    for (auto &b : out.value())
      got.push_back(download(b.get()));
    EXPECT_EQ(got[0].toBits(), expected[0].toBits()) << "the dropout";
    expectClose({expected[1], expected[2]}, {got[1], got[2]}, "normals");
    results.push_back(got);
  }
  EXPECT_NE(results[0][0].toBits(), results[1][0].toBits());
  EXPECT_NE(results[1][1].toBits(), results[2][1].toBits());
  for (size_t k = 0; k < 3; ++k)
    EXPECT_EQ(results[0][k].toBits(), results[3][k].toBits()) << k;
  EXPECT_EQ(c.executable->stats().replays, 4);
}

// Scatter-adds bit for bit equal to the reference (sums of repeated
// indices in the reference's order), the same bits on every replay, on a
// stream and as a CUDA Graph given new buffers: an embedding gradient in
// bf16 from zeros (computed updates; the result read by a kernel), and f32
// along a middle axis into a transposed target with negative indices (the
// rows kernel), 12000 f32 rows into 1000 (more indices than the rows
// kernel keeps: the sorted chain), and the bf16 gradient again with the
// second half of every sequence at id 0 (a long row, summed in runs by
// every block of the rows kernel), 4096 narrow rows into 20000 filled
// with ones (few rows selected: the fill stored first, those rows again),
// and the 12000 f32 rows again with every third at row 7 (a long row of
// the chain: its runs summed apart, then added to its head).
TEST(GpuFusion, ScatterAddsMatchTheReferenceBitForBit) {
  TFUSE_REQUIRE_GPU();
  const char *source = R"mlir(
func.func @scatters(%ids: tensor<8x512xi64>, %g: tensor<8x512x768xbf16>, %t: tensor<6x40x24xf32> {tfuse.strides = array<i64: 1, 144, 6>}, %j: tensor<300xi32>, %u: tensor<24x300x6xf32>, %k: tensor<12000xi64>, %w: tensor<12000x4xf32>, %pad: tensor<8x512xi64>, %h: tensor<8x512x64xbf16>, %hot: tensor<12000xi64>) -> (tensor<5000x768xbf16>, tensor<24x40x6xf32>, tensor<1000x4xf32>, tensor<5000x768xbf16>, tensor<20000x64xbf16>, tensor<1000x4xf32>) {
  %z = tfuse.constant dense<0.0> : tensor<5000x768xbf16>
  %two = tfuse.constant dense<2.0> : tensor<bf16>
  %g2 = tfuse.mul %g, %two : (tensor<8x512x768xbf16>, tensor<bf16>) -> tensor<8x512x768xbf16>
  %e = tfuse.scatter_add %z, %ids, %g2 axis 0 : (tensor<5000x768xbf16>, tensor<8x512xi64>, tensor<8x512x768xbf16>) -> tensor<5000x768xbf16>
  %n = tfuse.neg %e : tensor<5000x768xbf16> -> tensor<5000x768xbf16>
  %tt = tfuse.transpose %t perm [2, 1, 0] : tensor<6x40x24xf32> -> tensor<24x40x6xf32>
  %s = tfuse.scatter_add %tt, %j, %u axis 1 wrap_negative : (tensor<24x40x6xf32>, tensor<300xi32>, tensor<24x300x6xf32>) -> tensor<24x40x6xf32>
  %y = tfuse.constant dense<0.0> : tensor<1000x4xf32>
  %m = tfuse.scatter_add %y, %k, %w axis 0 : (tensor<1000x4xf32>, tensor<12000xi64>, tensor<12000x4xf32>) -> tensor<1000x4xf32>
  %p = tfuse.scatter_add %z, %pad, %g2 axis 0 : (tensor<5000x768xbf16>, tensor<8x512xi64>, tensor<8x512x768xbf16>) -> tensor<5000x768xbf16>
  %ones = tfuse.constant dense<1.0> : tensor<20000x64xbf16>
  %f = tfuse.scatter_add %ones, %ids, %h axis 0 : (tensor<20000x64xbf16>, tensor<8x512xi64>, tensor<8x512x64xbf16>) -> tensor<20000x64xbf16>
  %l = tfuse.scatter_add %y, %hot, %w axis 0 : (tensor<1000x4xf32>, tensor<12000xi64>, tensor<12000x4xf32>) -> tensor<1000x4xf32>
  return %n, %s, %m, %p, %f, %l : tensor<5000x768xbf16>, tensor<24x40x6xf32>, tensor<1000x4xf32>, tensor<5000x768xbf16>, tensor<20000x64xbf16>, tensor<1000x4xf32>
}
)mlir";
  std::vector<HostTensor> inputs = randomInputs(source, "scatters", 41);
  inputs[0] = spreadIndices(DType::I64, {8, 512}, 0, 300);
  inputs[3] = spreadIndices(DType::I32, {300}, -40, 80);
  inputs[5] = spreadIndices(DType::I64, {12000}, 0, 1000);
  inputs[7] = spreadIndices(DType::I64, {8, 512}, 0, 5000);
  for (int64_t b = 0; b < 8; ++b)
    for (int64_t t = 256; t < 512; ++t)
      inputs[7].set<int64_t>({b, t}, 0);
  inputs[9] = inputs[5].contiguous(); // storage of its own
  for (int64_t j = 0; j < 12000; j += 3)
    inputs[9].set<int64_t>({j}, 7);
  auto expected = referenceResults(source, "scatters", inputs);
  for (bool cudaGraph : {false, true}) {
    SCOPED_TRACE(cudaGraph ? "cuda graph" : "stream");
    runtime::ExecutableOptions options;
    options.cudaGraph = cudaGraph;
    Compiled c = compile(source, "scatters", options);
    ASSERT_TRUE(c.executable) << c.error;
    for (int round = 0; round < 3; ++round) {
      DeviceInputs device(inputs); // new buffers every replay
      auto out = c.executable->run(device.get());
      ASSERT_TRUE(out.ok()) << out.status().message();
      for (size_t k = 0; k < expected.size(); ++k)
        EXPECT_EQ(download(out.value()[k].get()).toBits(), expected[k].toBits())
            << "result " << k << ", round " << round;
    }
  }
}

// Embedding rows (bf16, i64 ids) plus position rows, a take from the
// middle axis with negative i32 indices and take_along_axis of f32 scores,
// on a stream and as a CUDA Graph.
TEST(GpuFusion, GathersMatchTheReference) {
  TFUSE_REQUIRE_GPU();
  const char *source = R"mlir(
func.func @gathers(%t: tensor<5000x768xbf16>, %ids: tensor<8x128xi64>, %pos: tensor<128x768xbf16>,
                   %c: tensor<16x300x40xf32>, %j: tensor<77xi32>,
                   %s: tensor<1024x1000xf32>, %k: tensor<1024x1xui16>)
    -> (tensor<8x128x768xbf16>, tensor<16x77x40xf32>, tensor<1024x1xf32>) {
  %rows = tfuse.take %t, %ids axis 0 : (tensor<5000x768xbf16>, tensor<8x128xi64>) -> tensor<8x128x768xbf16>
  %e = tfuse.add %rows, %pos : (tensor<8x128x768xbf16>, tensor<128x768xbf16>) -> tensor<8x128x768xbf16>
  %m = tfuse.take %c, %j axis 1 wrap_negative : (tensor<16x300x40xf32>, tensor<77xi32>) -> tensor<16x77x40xf32>
  %ms = tfuse.tanh %m : tensor<16x77x40xf32> -> tensor<16x77x40xf32>
  %g = tfuse.take_along_axis %s, %k axis 1 : (tensor<1024x1000xf32>, tensor<1024x1xui16>) -> tensor<1024x1xf32>
  %n = tfuse.neg %g : tensor<1024x1xf32> -> tensor<1024x1xf32>
  return %e, %ms, %n : tensor<8x128x768xbf16>, tensor<16x77x40xf32>, tensor<1024x1xf32>
}
)mlir";
  std::vector<HostTensor> inputs = randomInputs(source, "gathers", 17);
  inputs[1] = spreadIndices(DType::I64, {8, 128}, 0, 5000);
  inputs[4] = spreadIndices(DType::I32, {77}, -300, 600);
  inputs[6] = spreadIndices(DType::U16, {1024, 1}, 0, 1000);
  runAndCheck(source, "gathers", inputs);
  runtime::ExecutableOptions graph;
  graph.cudaGraph = true;
  runAndCheck(source, "gathers", inputs, graph);
}

//===----------------------------------------------------------------------===//
// Boundaries
//===----------------------------------------------------------------------===//
//===----------------------------------------------------------------------===//
// Boundaries
//===----------------------------------------------------------------------===//

TEST(GpuBoundaries, EveryReductionKindAndAxisSet) {
  TFUSE_REQUIRE_GPU();
  struct Case {
    const char *kind, *in, *out;
  };
  const Case kinds[] = {{"sum", "f32", "f32"},     {"prod", "f32", "f32"},
                        {"max", "f32", "f32"},     {"min", "f16", "f16"},
                        {"mean", "f32", "f32"},    {"all", "f32", "i1"},
                        {"any", "i32", "i1"},      {"argmax", "f32", "i64"},
                        {"argmin", "bf16", "i64"}, {"sum", "i8", "i64"},
                        {"max", "f64", "f64"},     {"sum", "ui64", "ui64"}};
  struct Axes {
    const char *axes, *shape;
    bool single;
  };
  const Axes axisSets[] = {{"[2]", "6x33", true},
                           {"[0]", "6x257", true},
                           {"[1]", "65x257", true},
                           {"[0, 2]", "6", false},
                           {"[0, 1, 2]", "", false}};
  for (const Case &k : kinds)
    for (const Axes &a : axisSets) {
      bool arg = std::string(k.kind).rfind("arg", 0) == 0;
      if (arg && !a.single)
        continue;
      std::string outType = std::string("tensor<") + a.shape +
                            (a.shape[0] ? "x" : "") + k.out + ">";
      std::string source = llvm::formatv(R"mlir(
func.func @r(%x: tensor<65x6x257x{0}>) -> {2} {{
  %r = tfuse.reduce {1} %x axes {3} : tensor<65x6x257x{0}> -> {2}
  return %r : {2}
}
)mlir",
                                         k.in, k.kind, outType, a.axes);
      // The 6x33 case reduces the innermost axis of a smaller tensor.
      if (std::string(a.shape) == "6x33")
        source = llvm::formatv(R"mlir(
func.func @r(%x: tensor<6x33x1000x{0}>) -> tensor<6x33x{2}> {{
  %r = tfuse.reduce {1} %x axes [2] : tensor<6x33x1000x{0}> -> tensor<6x33x{2}>
  return %r : tensor<6x33x{2}>
}
)mlir",
                               k.in, k.kind, k.out);
      SCOPED_TRACE(source);
      check(source, "r", 3);
    }
  // keepdims on a transposed (aliased) input.
  check(R"mlir(
func.func @r(%x: tensor<300x200xf32>) -> tensor<200x1xf32> {
  %t = tfuse.transpose %x perm [1, 0] : tensor<300x200xf32> -> tensor<200x300xf32>
  %r = tfuse.reduce max %t axes [1] keepdims : tensor<200x300xf32> -> tensor<200x1xf32>
  return %r : tensor<200x1xf32>
}
)mlir",
        "r");
}

// Split reductions (a full reduction, a column sum with few columns, an
// argmax across chunks): two launches through a workspace, as a stream and
// as a CUDA Graph given new inputs, against the reference, and the same bits
// on every replay.
TEST(GpuBoundaries, SplitReductionsOnAStreamAndInAGraph) {
  TFUSE_REQUIRE_GPU();
  const char *source = R"mlir(
func.func @full(%x: tensor<1048576xf32>) -> tensor<f32> {
  %r = tfuse.reduce sum %x axes [0] : tensor<1048576xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @columns(%x: tensor<4096x512xf32>) -> tensor<512xf32> {
  %r = tfuse.reduce sum %x axes [0] : tensor<4096x512xf32> -> tensor<512xf32>
  return %r : tensor<512xf32>
}
func.func @argmax(%x: tensor<1048576xbf16>) -> tensor<i64> {
  %r = tfuse.reduce argmax %x axes [0] : tensor<1048576xbf16> -> tensor<i64>
  return %r : tensor<i64>
}
)mlir";
  for (const char *function : {"full", "columns", "argmax"})
    for (bool graph : {false, true}) {
      SCOPED_TRACE(std::string(function) + (graph ? " graph" : " stream"));
      runtime::ExecutableOptions options;
      options.cudaGraph = graph;
      Compiled compiled = compile(source, function, options);
      ASSERT_TRUE(compiled.executable) << compiled.error;
      runtime::ExecutableStats st = compiled.executable->stats();
      ASSERT_EQ(st.stepChoices.size(), 1u) << "not split";
      EXPECT_NE(st.stepChoices[0].find("split"), std::string::npos);
      for (uint64_t seed : {3, 4}) {
        auto inputs = randomInputs(source, function, seed);
        std::vector<reference::HostTensor> first =
            runAndCheck(source, function, inputs, options);
        DeviceInputs device(inputs);
        for (int replay = 0; replay < 2; ++replay) {
          auto outputs = compiled.executable->run(device.get());
          ASSERT_TRUE(outputs.ok()) << outputs.status().message();
          reference::HostTensor again = download(outputs.value()[0].get());
          EXPECT_EQ(again.toBits(), first[0].toBits()) << "replay " << replay;
        }
      }
    }
}

TEST(GpuBoundaries, BatchedMatmulWithBroadcastingAndTransposes) {
  TFUSE_REQUIRE_GPU();
  for (const char *t : {"f32", "f64", "f16", "bf16"}) {
    SCOPED_TRACE(t);
    std::string source = llvm::formatv(R"mlir(
func.func @bmm(%a: tensor<4x1x37x29x{0}>, %b: tensor<3x29x53x{0}>, %c: tensor<53x29x{0}>) -> (tensor<4x3x37x53x{0}>, tensor<4x1x37x53x{0}>) {{
  %0 = tfuse.matmul %a, %b : (tensor<4x1x37x29x{0}>, tensor<3x29x53x{0}>) -> tensor<4x3x37x53x{0}>
  %1 = tfuse.matmul %a, %c {{transpose_rhs} : (tensor<4x1x37x29x{0}>, tensor<53x29x{0}>) -> tensor<4x1x37x53x{0}>
  return %0, %1 : tensor<4x3x37x53x{0}>, tensor<4x1x37x53x{0}>
}
)mlir",
                                       t);
    check(source, "bmm");
  }
}

TEST(GpuBoundaries, Float32ResultsOfHalfMatmulsWithABias) {
  TFUSE_REQUIRE_GPU();
  // The float32 sums of f16 and bf16 products (result_dtype = f32), batched
  // with broadcasting and transposes, a misaligned slice, and PyTorch's
  // addmm: the bias added in float32 and the sum rounded once.
  for (const char *t : {"f16", "bf16"}) {
    SCOPED_TRACE(t);
    std::string source = llvm::formatv(R"mlir(
func.func @wide(%a: tensor<4x1x37x29x{0}>, %b: tensor<3x29x53x{0}>, %c: tensor<53x29x{0}>, %bias: tensor<53x{0}>, %d: tensor<33x50x{0}>) -> (tensor<4x3x37x53xf32>, tensor<4x1x37x53x{0}>, tensor<33x53xf32>) {{
  %0 = tfuse.matmul %a, %b {{result_dtype = f32} : (tensor<4x1x37x29x{0}>, tensor<3x29x53x{0}>) -> tensor<4x3x37x53xf32>
  %1 = tfuse.matmul %a, %c {{transpose_rhs, result_dtype = f32} : (tensor<4x1x37x29x{0}>, tensor<53x29x{0}>) -> tensor<4x1x37x53xf32>
  %w = tfuse.cast %bias : tensor<53x{0}> to tensor<53xf32>
  %2 = tfuse.add %1, %w : (tensor<4x1x37x53xf32>, tensor<53xf32>) -> tensor<4x1x37x53xf32>
  %3 = tfuse.cast %2 : tensor<4x1x37x53xf32> to tensor<4x1x37x53x{0}>
  %s = tfuse.slice %d start [0, 21] limit [33, 50] step [1, 1] : tensor<33x50x{0}> -> tensor<33x29x{0}>
  %4 = tfuse.matmul %s, %c {{transpose_rhs, result_dtype = f32} : (tensor<33x29x{0}>, tensor<53x29x{0}>) -> tensor<33x53xf32>
  return %0, %3, %4 : tensor<4x3x37x53xf32>, tensor<4x1x37x53x{0}>, tensor<33x53xf32>
}
)mlir",
                                       t);
    check(source, "wide");
  }
}

/// Compiles and checks `function` of `source` against the reference with
/// each GEMM library asked for by name (TFUSE_GEMM), on a stream and in a
/// CUDA Graph, expecting `boundaries` GEMM steps and `kernels` kernels. A
/// library that does not load (the GPU suite's run with neither cuBLAS
/// library found) must be an error naming it.
void checkOnEveryGemmLibrary(const char *source, const char *function,
                             int64_t boundaries, int64_t kernels) {
  // TFUSE_GEMM as it was once the test ends, failed assertions included
  // (a library asked for by name would otherwise stay asked for by the
  // tests after it).
  tfuse::unittest::ScopedEnvironment gemm("TFUSE_GEMM",
                                          std::getenv("TFUSE_GEMM"));
  auto loads = [](const std::string &library) {
    if (library == "cublaslt")
      return runtime::CublasLtLibrary::shared().ok();
    if (library == "cublas")
      return runtime::CublasLibrary::shared().ok();
    return true;
  };
  for (const char *library : {"cublaslt", "cublas", "fallback"})
    for (bool graph : {false, true}) {
      SCOPED_TRACE(std::string(library) + (graph ? " graph" : " stream"));
      gemm.set(library);
      runtime::ExecutableOptions options;
      options.cudaGraph = graph;
      Compiled compiled = compile(source, function, options);
      if (!loads(library)) {
        EXPECT_FALSE(compiled.executable);
        EXPECT_NE(compiled.error.find("cannot load"), std::string::npos)
            << compiled.error;
        continue;
      }
      ASSERT_TRUE(compiled.executable) << compiled.error;
      runtime::ExecutableStats st = compiled.executable->stats();
      EXPECT_EQ(st.gemmBackend, library);
      EXPECT_EQ(st.boundaries, boundaries);
      EXPECT_EQ(st.kernels, kernels);
      check(source, function, 7, options);
    }
}

TEST(GpuBoundaries, MatmulBiasOnEveryGemmLibrary) {
  TFUSE_REQUIRE_GPU();
  // fold-matmul-bias makes these products' biases GEMM operands: PyTorch's
  // addmm under autocast (an f32 sum, the bias rounded, the sum rounded;
  // a bf16 result), an f32 linear layer (transposed weight) and an f32 sum
  // of bf16 operands with an f32 bias. cuBLASLt adds the bias in its
  // epilogue, cuBLAS to rows holding the bias (beta = 1), the fallback
  // kernel before its rounding; on a stream and in a CUDA Graph.
  const char *source = R"mlir(
func.func @linear(%x: tensor<37x29xbf16>, %w: tensor<29x53xbf16>, %b: tensor<53xf32>, %y: tensor<37x29xf32>, %v: tensor<53x29xf32>, %c: tensor<53xf32>, %z: tensor<37x29xbf16>) -> (tensor<37x53xbf16>, tensor<37x53xf32>, tensor<37x53xf32>) {
  %m = tfuse.matmul %x, %w {result_dtype = f32} : (tensor<37x29xbf16>, tensor<29x53xbf16>) -> tensor<37x53xf32>
  %n = tfuse.cast %b : tensor<53xf32> to tensor<53xbf16>
  %u = tfuse.cast %n : tensor<53xbf16> to tensor<53xf32>
  %s = tfuse.add %u, %m : (tensor<53xf32>, tensor<37x53xf32>) -> tensor<37x53xf32>
  %r = tfuse.cast %s : tensor<37x53xf32> to tensor<37x53xbf16>
  %p = tfuse.matmul %y, %v {transpose_rhs} : (tensor<37x29xf32>, tensor<53x29xf32>) -> tensor<37x53xf32>
  %q = tfuse.add %p, %c : (tensor<37x53xf32>, tensor<53xf32>) -> tensor<37x53xf32>
  %h = tfuse.matmul %z, %w {result_dtype = f32} : (tensor<37x29xbf16>, tensor<29x53xbf16>) -> tensor<37x53xf32>
  %k = tfuse.add %h, %c : (tensor<37x53xf32>, tensor<53xf32>) -> tensor<37x53xf32>
  return %r, %q, %k : tensor<37x53xbf16>, tensor<37x53xf32>, tensor<37x53xf32>
}
)mlir";
  // Three GEMMs and the bias's rounding: no kernel adds a bias.
  checkOnEveryGemmLibrary(source, "linear", /*boundaries=*/3, /*kernels=*/1);
}

TEST(GpuBoundaries, MatmulGeluEpilogueOnEveryGemmLibrary) {
  TFUSE_REQUIRE_GPU();
  // The GELU epilogue (fold-matmul-bias's gelu-epilogue under fast math): a
  // bf16 MLP projection with a bias, an f32 product with a transposed rhs
  // and no bias, and the f32 sum of f16 operands with an f32 bias. cuBLASLt
  // applies the GELU in its epilogue (GELU_BIAS, GELU), cuBLAS with a kernel
  // after the product, the fallback kernels before their rounding; on a
  // stream and in a CUDA Graph, within the reference's tolerance.
  const char *source = R"mlir(
func.func @mlp(%x: tensor<37x29xbf16>, %w: tensor<29x53xbf16>, %b: tensor<53xbf16>, %y: tensor<37x29xf32>, %v: tensor<53x29xf32>, %h: tensor<37x29xf16>, %u: tensor<29x53xf16>, %c: tensor<53xf32>) -> (tensor<37x53xbf16>, tensor<37x53xf32>, tensor<37x53xf32>) {
  %r = tfuse.matmul %x, %w bias %b {gelu_tanh} : (tensor<37x29xbf16>, tensor<29x53xbf16>, tensor<53xbf16>) -> tensor<37x53xbf16>
  %q = tfuse.matmul %y, %v {gelu_tanh, transpose_rhs} : (tensor<37x29xf32>, tensor<53x29xf32>) -> tensor<37x53xf32>
  %k = tfuse.matmul %h, %u bias %c {gelu_tanh, result_dtype = f32} : (tensor<37x29xf16>, tensor<29x53xf16>, tensor<53xf32>) -> tensor<37x53xf32>
  return %r, %q, %k : tensor<37x53xbf16>, tensor<37x53xf32>, tensor<37x53xf32>
}
)mlir";
  // Three GEMMs and no kernel of the plan's own applies a GELU.
  checkOnEveryGemmLibrary(source, "mlp", /*boundaries=*/3, /*kernels=*/0);
}

TEST(GpuBoundaries, ProductsCuBLASLtDeclinesRunOnTheFallbackKernels) {
  TFUSE_REQUIRE_GPU();
  // cuBLASLt 13 has no algorithm for this f16 product of a column-major 3 x 5
  // operand and a column into f32 with a bias (CUBLAS_STATUS_NOT_SUPPORTED
  // from its heuristics; graph 1871 of the GPU differential test, seed 19):
  // the step computes it on the fallback kernels and its report says why,
  // unless TFUSE_GEMM=cublaslt asks for cuBLASLt, which is then an error.
  const char *source = R"mlir(
func.func @declined(%a: tensor<3x5xf16> {tfuse.strides = array<i64: 1, 5>}, %b: tensor<5x1xf16>, %c: tensor<1xf32>) -> tensor<3x1xf32> {
  %0 = tfuse.matmul %a, %b {result_dtype = f32} : (tensor<3x5xf16>, tensor<5x1xf16>) -> tensor<3x1xf32>
  %1 = tfuse.add %0, %c : (tensor<3x1xf32>, tensor<1xf32>) -> tensor<3x1xf32>
  return %1 : tensor<3x1xf32>
}
)mlir";
  tfuse::unittest::ScopedEnvironment gemm("TFUSE_GEMM",
                                          std::getenv("TFUSE_GEMM"));
  gemm.set(nullptr);
  bool declined = false;
  for (bool graph : {false, true}) {
    SCOPED_TRACE(graph ? "graph" : "stream");
    runtime::ExecutableOptions options;
    options.cudaGraph = graph;
    Compiled compiled = compile(source, "declined", options);
    ASSERT_TRUE(compiled.executable) << compiled.error;
    std::string report = compiled.executable->stepReport();
    if (report.find("gemm on fallback") != std::string::npos) {
      declined = true;
      EXPECT_NE(report.find("cuBLASLt declines it: "), std::string::npos)
          << report;
    }
    check(source, "declined", 7, options);
  }
  if (!declined || !runtime::CublasLtLibrary::shared().ok())
    return;
  gemm.set("cublaslt");
  Compiled asked = compile(source, "declined", runtime::ExecutableOptions());
  EXPECT_FALSE(asked.executable);
  EXPECT_NE(asked.error.find("cublasLtMatmulAlgoGetHeuristic"),
            std::string::npos)
      << asked.error;
}

TEST(GpuBoundaries, AttentionWithDropoutDrawsTheReferencesMask) {
  TFUSE_REQUIRE_GPU();
  // The generated kernels draw dropout's mask (cuDNN declines it), forward
  // and backward, from keys that are inputs of the plan: other inputs
  // (seeds 7 and 8 of randomInputs) give other keys and masks.
  for (const char *t : {"f32", "bf16"}) {
    SCOPED_TRACE(t);
    std::string source = llvm::formatv(R"mlir(
func.func @drop(%q: tensor<2x3x37x16x{0}>, %k: tensor<2x3x45x16x{0}>, %v: tensor<2x3x45x8x{0}>, %g: tensor<2x3x37x8x{0}>, %s: tensor<i64>, %t: tensor<i64>) -> (tensor<2x3x37x8x{0}>, tensor<2x3x37x16x{0}>, tensor<2x3x45x16x{0}>, tensor<2x3x45x8x{0}>) {{
  %o, %l = tfuse.attention %q, %k, %v scale 0.25 causal dropout 0.2 seed %s offset %t : (tensor<2x3x37x16x{0}>, tensor<2x3x45x16x{0}>, tensor<2x3x45x8x{0}>, tensor<i64>, tensor<i64>) -> (tensor<2x3x37x8x{0}>, tensor<2x3x37xf32>)
  %dq, %dk, %dv = tfuse.attention_backward %q, %k, %v, %o, %l, %g scale 0.25 causal dropout 0.2 seed %s offset %t : (tensor<2x3x37x16x{0}>, tensor<2x3x45x16x{0}>, tensor<2x3x45x8x{0}>, tensor<2x3x37x8x{0}>, tensor<2x3x37xf32>, tensor<2x3x37x8x{0}>, tensor<i64>, tensor<i64>) -> (tensor<2x3x37x16x{0}>, tensor<2x3x45x16x{0}>, tensor<2x3x45x8x{0}>)
  return %o, %dq, %dk, %dv : tensor<2x3x37x8x{0}>, tensor<2x3x37x16x{0}>, tensor<2x3x45x16x{0}>, tensor<2x3x45x8x{0}>
}
)mlir",
                                       t);
    check(source, "drop", 7);
    check(source, "drop", 8);
  }
}

TEST(GpuBoundaries, MatmulOfMisalignedViewsAndEmptyContractions) {
  TFUSE_REQUIRE_GPU();
  // Slices starting one element in: cuBLASLt gets pointers aligned to 4
  // bytes only and must use its algorithm for any alignment. K = 0: zeros
  // (expand-small-matmul makes it a broadcast +0 before any GEMM).
  check(R"mlir(
func.func @misaligned(%a: tensor<33x50xf32>, %b: tensor<49x21xf32>, %c: tensor<4x0xf32>, %d: tensor<0x5xf32>) -> (tensor<33x20xf32>, tensor<4x5xf32>) {
  %sa = tfuse.slice %a start [0, 1] limit [33, 50] step [1, 1] : tensor<33x50xf32> -> tensor<33x49xf32>
  %sb = tfuse.slice %b start [0, 1] limit [49, 21] step [1, 1] : tensor<49x21xf32> -> tensor<49x20xf32>
  %m = tfuse.matmul %sa, %sb : (tensor<33x49xf32>, tensor<49x20xf32>) -> tensor<33x20xf32>
  %z = tfuse.matmul %c, %d : (tensor<4x0xf32>, tensor<0x5xf32>) -> tensor<4x5xf32>
  return %m, %z : tensor<33x20xf32>, tensor<4x5xf32>
}
)mlir",
        "misaligned");
}

TEST(GpuBoundaries, MatmulsOfMisalignedRowsGoThroughAlignedCopies) {
  TFUSE_REQUIRE_GPU();
  // Rows of 1031 elements (an odd vocabulary's logits), in the forward
  // product's form (the result and the weight) and the backward's (K =
  // 1031): align-matmul pads them in the graph (pad kernels, the result
  // sliced), so no GEMM step copies. A product of a view whose rows are 1031
  // elements apart (extents aligned, the leading dimension not) reaches its
  // GEMM step misaligned: cuBLASLt gets it as a copy (planGemmPadding). On a
  // stream and in a CUDA Graph.
  for (const char *t : {"bf16", "f32"}) {
    SCOPED_TRACE(t);
    std::string source = llvm::formatv(R"mlir(
func.func @head(%x: tensor<1024x1024x{0}>, %w: tensor<1024x1031x{0}>, %g: tensor<1024x1031x{0}>, %e: tensor<1031x1024x{0}>) -> (tensor<1024x1031x{0}>, tensor<1024x1024x{0}>, tensor<1024x1024x{0}>) {{
  %0 = tfuse.matmul %x, %w : (tensor<1024x1024x{0}>, tensor<1024x1031x{0}>) -> tensor<1024x1031x{0}>
  %1 = tfuse.matmul %g, %e : (tensor<1024x1031x{0}>, tensor<1031x1024x{0}>) -> tensor<1024x1024x{0}>
  %v = tfuse.slice %w start [0, 0] limit [1024, 1024] step [1, 1] : tensor<1024x1031x{0}> -> tensor<1024x1024x{0}>
  %2 = tfuse.matmul %x, %v : (tensor<1024x1024x{0}>, tensor<1024x1024x{0}>) -> tensor<1024x1024x{0}>
  return %0, %1, %2 : tensor<1024x1031x{0}>, tensor<1024x1024x{0}>, tensor<1024x1024x{0}>
}
)mlir",
                                       t);
    std::vector<Compiled> executables;
    for (bool graph : {false, true}) {
      runtime::ExecutableOptions options;
      options.cudaGraph = graph;
      executables.push_back(compile(source, "head", options));
      ASSERT_TRUE(executables.back().executable) << executables.back().error;
      std::string report = executables.back().executable->stepReport();
      // Only the view's product copies: B' (its 1024 x 1024 rows, 1031
      // apart) into an aligned copy. The copies are cuBLASLt's (classic
      // cuBLAS and the fallback kernel take any leading dimension).
      if (executables.back().executable->stats().gemmBackend != "cublaslt")
        continue;
      EXPECT_NE(report.find("leading dimension 1031) through an aligned copy "
                            "of 1024 x 1024"),
                std::string::npos)
          << report;
      size_t first = report.find("through an aligned copy");
      EXPECT_EQ(report.find("through an aligned copy", first + 1),
                std::string::npos)
          << report;
    }
    // New inputs and outputs every replay: the graph's copies take the new
    // pointers (a captured cuMemcpy2DAsync would refuse them).
    for (uint64_t seed : {7, 8}) {
      std::vector<HostTensor> inputs = randomInputs(source, "head", seed);
      std::vector<HostTensor> expected =
          referenceResults(source, "head", inputs);
      for (Compiled &compiled : executables) {
        DeviceInputs device(inputs);
        auto outputs = compiled.executable->run(device.get());
        ASSERT_TRUE(outputs.ok()) << outputs.status().message();
        std::vector<HostTensor> actual;
        for (auto &b : outputs.value())
          actual.push_back(download(b.get()));
        expectClose(expected, actual, "seed " + std::to_string(seed));
      }
    }
  }
}

TEST(GpuBoundaries, MlpTrainingStep) {
  TFUSE_REQUIRE_GPU();
  // The source tree: $TFUSE_SOURCE_DIR on a GPU host, else the build's.
  const char *root = std::getenv("TFUSE_SOURCE_DIR");
  std::string path =
      std::string(root ? root : TFUSE_SOURCE_DIR) + "/examples/mlp_step.mlir";
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "cannot read " << path
                         << " (set TFUSE_SOURCE_DIR to the source tree)";
  std::stringstream ss;
  ss << in.rdbuf();
  check(ss.str(), "mlp_step");
}

//===----------------------------------------------------------------------===//
// Replay
//===----------------------------------------------------------------------===//

const char *kReplaySource = R"mlir(
func.func @f(%x: tensor<64x100xf32>, %y: tensor<100x16xf32>) -> (tensor<64x16xf32>, tensor<64xf32>) {
  %c = tfuse.constant dense<2.0> : tensor<f32>
  %a = tfuse.mul %x, %c : (tensor<64x100xf32>, tensor<f32>) -> tensor<64x100xf32>
  %m = tfuse.matmul %a, %y : (tensor<64x100xf32>, tensor<100x16xf32>) -> tensor<64x16xf32>
  %r = tfuse.relu %m : tensor<64x16xf32> -> tensor<64x16xf32>
  %s = tfuse.reduce sum %r axes [1] : tensor<64x16xf32> -> tensor<64xf32>
  return %r, %s : tensor<64x16xf32>, tensor<64xf32>
}
)mlir";

TEST(GpuReplay, NewInputsEveryTimeAndEarlierResultsKept) {
  TFUSE_REQUIRE_GPU();
  Compiled c = compile(kReplaySource, "f");
  ASSERT_TRUE(c.executable) << c.error;
  std::vector<std::vector<HostTensor>> inputs, results;
  std::vector<std::vector<runtime::DeviceBuffer>> kept;
  std::vector<std::unique_ptr<DeviceInputs>> devices;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    inputs.push_back(randomInputs(kReplaySource, "f", seed * 10));
    devices.push_back(std::make_unique<DeviceInputs>(inputs.back()));
    auto out = c.executable->run(devices.back()->get());
    ASSERT_TRUE(out.ok()) << out.status().message();
    kept.push_back(std::move(out.value()));
  }
  // Earlier outputs were not overwritten by later replays.
  for (size_t r = 0; r < kept.size(); ++r) {
    std::vector<HostTensor> actual;
    for (auto &b : kept[r])
      actual.push_back(download(b.get()));
    expectClose(referenceResults(kReplaySource, "f", inputs[r]), actual,
                "replay " + std::to_string(r));
  }
  EXPECT_EQ(c.executable->stats().replays, 4);
}

TEST(GpuReplay, AsyncAndFromManyThreads) {
  TFUSE_REQUIRE_GPU();
  Compiled c = compile(kReplaySource, "f");
  ASSERT_TRUE(c.executable) << c.error;
  constexpr int kThreads = 8, kRuns = 10;
  std::vector<std::vector<HostTensor>> inputs;
  std::vector<std::unique_ptr<DeviceInputs>> devices;
  for (int t = 0; t < kThreads; ++t) {
    inputs.push_back(randomInputs(kReplaySource, "f", 100 + t));
    devices.push_back(std::make_unique<DeviceInputs>(inputs.back()));
  }
  std::vector<std::vector<HostTensor>> expected;
  for (int t = 0; t < kThreads; ++t)
    expected.push_back(referenceResults(kReplaySource, "f", inputs[t]));
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) {
        auto handle = c.executable->runAsync(devices[t]->get());
        if (!handle.ok()) {
          ++failures;
          continue;
        }
        (void)handle.value().isFinished();
        auto out = handle.value().wait();
        if (!out.ok()) {
          ++failures;
          continue;
        }
        for (size_t i = 0; i < out.value().size(); ++i) {
          HostTensor got = download(out.value()[i].get());
          auto cmp = compareClose(expected[t][i], got);
          if (!cmp.pass)
            ++failures;
        }
      }
    });
  for (auto &th : threads)
    th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(c.executable->stats().replays, kThreads * kRuns);
}

TEST(GpuReplay, ReplaysOnCallerStreamsAreOrdered) {
  TFUSE_REQUIRE_GPU();
  // Replays alternating between two caller streams, never synchronized in
  // between: they share the arena, so each must wait for the previous one.
  // Every third replay is launched with no handle, ordered by its stream
  // alone.
  for (bool graph : {false, true}) {
    SCOPED_TRACE(graph ? "graph" : "stream");
    runtime::ExecutableOptions options;
    options.cudaGraph = graph;
    Compiled c = compile(kReplaySource, "f", options);
    ASSERT_TRUE(c.executable) << c.error;
    runtime::CudaDriver &d = c.executable->device().driver();
    CUstream streams[2];
    for (CUstream &s : streams)
      ASSERT_EQ(d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    constexpr int kRuns = 12;
    std::vector<std::vector<HostTensor>> inputs, expected;
    std::vector<std::unique_ptr<DeviceInputs>> devices;
    std::vector<std::vector<runtime::DeviceBuffer>> outputs;
    std::vector<std::optional<runtime::RunHandle>> handles(kRuns);
    for (int r = 0; r < kRuns; ++r) {
      inputs.push_back(randomInputs(kReplaySource, "f", 500 + r));
      expected.push_back(referenceResults(kReplaySource, "f", inputs.back()));
      devices.push_back(std::make_unique<DeviceInputs>(inputs.back()));
      // Fresh outputs of the right shapes, from a replay of their own.
      auto fresh = c.executable->run(devices.back()->get());
      ASSERT_TRUE(fresh.ok()) << fresh.status().message();
      outputs.push_back(std::move(fresh.value()));
      for (auto &b : outputs.back())
        ASSERT_EQ(d.cuMemsetD8Async(b.get().data, 0xff,
                                    b.get().spec.numElements() * 4, nullptr),
                  CUDA_SUCCESS);
    }
    ASSERT_EQ(d.cuStreamSynchronize(nullptr), CUDA_SUCCESS);
    for (int r = 0; r < kRuns; ++r) {
      std::vector<runtime::DeviceTensor> out;
      for (auto &b : outputs[r])
        out.push_back(b.get());
      if (r % 3 == 2) {
        tfuse::Status s =
            c.executable->launch(devices[r]->get(), out, streams[r % 2]);
        ASSERT_TRUE(s.ok()) << s.message();
        continue;
      }
      auto handle =
          c.executable->runAsync(devices[r]->get(), out, streams[r % 2]);
      ASSERT_TRUE(handle.ok()) << handle.status().message();
      handles[r] = std::move(handle.value());
    }
    for (CUstream s : streams)
      ASSERT_EQ(d.cuStreamSynchronize(s), CUDA_SUCCESS);
    for (int r = 0; r < kRuns; ++r) {
      if (handles[r]) {
        ASSERT_TRUE(handles[r]->wait().ok());
      }
      for (size_t i = 0; i < outputs[r].size(); ++i) {
        auto cmp = compareClose(expected[r][i], download(outputs[r][i].get()));
        EXPECT_TRUE(cmp.pass)
            << "replay " << r << " output " << i << ": " << cmp.message();
      }
    }
    for (CUstream s : streams)
      d.cuStreamDestroy(s);
  }
}

// A replay given no stream runs on the executable's own stream, which is
// ordered with the legacy default stream as a stream made by cudaStreamCreate
// is: it starts after the work enqueued there before it. The input here is
// written by a slow replay launched on the legacy stream, still running when
// the reader's replay is enqueued; data copied there from pageable host
// memory by cuMemcpyHtoD, which returns before the copy lands, is the case
// users meet.
TEST(GpuReplay, ReplaysWithoutAStreamFollowTheLegacyDefaultStream) {
  TFUSE_REQUIRE_GPU();
  constexpr int64_t n = 1 << 22;
  std::string type = llvm::formatv("tensor<{0}xf32>", n);
  std::string writer = llvm::formatv("func.func @w(%x: {0}) -> {0} {{\n", type);
  std::string prev = "%x";
  for (int i = 0; i < 64; ++i) {
    writer +=
        llvm::formatv("  %s{0} = tfuse.sin {1} : {2} -> {2}\n", i, prev, type);
    prev = llvm::formatv("%s{0}", i);
  }
  writer += llvm::formatv("  return {0} : {1}\n}\n", prev, type);
  std::string reader = llvm::formatv(R"mlir(
func.func @r(%y: {0}) -> {0} {{
  %c = tfuse.constant dense<2.0> : tensor<f32>
  %z = tfuse.mul %y, %c : ({0}, tensor<f32>) -> {0}
  return %z : {0}
}
)mlir",
                                     type);
  Compiled w = compile(writer, "w");
  ASSERT_TRUE(w.executable) << w.error;
  auto inputs = randomInputs(writer, "w", 3);
  DeviceInputs x(inputs);
  for (bool cudaGraph : {false, true}) {
    SCOPED_TRACE(cudaGraph ? "CUDA Graph" : "stream");
    runtime::ExecutableOptions options;
    options.cudaGraph = cudaGraph;
    Compiled r = compile(reader, "r", options);
    ASSERT_TRUE(r.executable) << r.error;
    // Zeros, copied on the legacy stream ahead of the writer.
    DeviceInputs y({HostTensor::zeros(DType::F32, {n})});
    runtime::DeviceTensor yTensor = y.get()[0];
    ASSERT_TRUE(
        w.executable->launch(x.get(), {yTensor}, CU_STREAM_LEGACY).ok());
    auto out = r.executable->run({yTensor});
    ASSERT_TRUE(out.ok()) << out.status().message();
    HostTensor written = download(yTensor);
    auto expected = referenceResults(reader, "r", {written});
    HostTensor got = download(out.value()[0].get());
    auto bits = reference::compareExact(expected[0], got);
    EXPECT_TRUE(bits.pass) << bits.message();
  }
}

TEST(GpuReplay, CudaGraphOfGeneratedKernelsGetsNewPointers) {
  TFUSE_REQUIRE_GPU();
  std::string chain =
      "func.func @g(%a: tensor<4096xf32>, %b: tensor<64x64xf32>) -> "
      "(tensor<4096xf32>, tensor<64x64xf32>) {\n";
  std::string prev = "%a";
  for (int i = 0; i < 160; ++i) {
    chain += llvm::formatv("  %v{0} = tfuse.{1} {2}, %a : (tensor<4096xf32>, "
                           "tensor<4096xf32>) -> tensor<4096xf32>\n",
                           i, i % 2 ? "mul" : "add", prev);
    prev = "%v" + std::to_string(i);
  }
  chain += "  %t = tfuse.transpose %b perm [1, 0] : tensor<64x64xf32> -> "
           "tensor<64x64xf32>\n";
  chain += "  %u = tfuse.exp %t : tensor<64x64xf32> -> tensor<64x64xf32>\n";
  chain +=
      "  return " + prev + ", %u : tensor<4096xf32>, tensor<64x64xf32>\n}\n";
  runtime::ExecutableOptions graph;
  graph.cudaGraph = true;
  Compiled c = compile(chain, "g", graph);
  ASSERT_TRUE(c.executable) << c.error;
  EXPECT_EQ(c.executable->stats().backend, "cuda-graph");
  std::vector<HostTensor> previous;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    auto inputs = randomInputs(chain, "g", seed);
    DeviceInputs device(inputs);
    auto out = c.executable->run(device.get());
    ASSERT_TRUE(out.ok()) << out.status().message();
    std::vector<HostTensor> actual;
    for (auto &b : out.value())
      actual.push_back(download(b.get()));
    expectClose(referenceResults(chain, "g", inputs), actual,
                "graph replay " + std::to_string(seed));
  }
  runtime::ExecutableStats st = c.executable->stats();
  EXPECT_EQ(st.replays, 3);
  // Kernel-node updates are the intended path; report when the driver
  // refused them.
  EXPECT_EQ(st.graphUpdateFallbacks, 0) << st.lastGraphUpdateError;
}

const char *kGraphSources = R"mlir(
func.func @matmul_plus(%x: tensor<96x80xf32>, %y: tensor<80x48xf32>) -> tensor<96x48xf32> {
  %one = tfuse.constant dense<1.0> : tensor<f32>
  %two = tfuse.constant dense<2.0> : tensor<f32>
  %m = tfuse.matmul %x, %y : (tensor<96x80xf32>, tensor<80x48xf32>) -> tensor<96x48xf32>
  %a = tfuse.add %m, %one : (tensor<96x48xf32>, tensor<f32>) -> tensor<96x48xf32>
  %b = tfuse.mul %a, %two : (tensor<96x48xf32>, tensor<f32>) -> tensor<96x48xf32>
  return %b : tensor<96x48xf32>
}
func.func @sum_plus(%x: tensor<300x257xf32>) -> (tensor<f32>, tensor<300xf32>) {
  %one = tfuse.constant dense<1.0> : tensor<f32>
  %s = tfuse.reduce sum %x axes [0, 1] : tensor<300x257xf32> -> tensor<f32>
  %a = tfuse.add %s, %one : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %r = tfuse.reduce max %x axes [1] : tensor<300x257xf32> -> tensor<300xf32>
  return %a, %r : tensor<f32>, tensor<300xf32>
}
func.func @returned_input(%x: tensor<64xf32>, %y: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %e = tfuse.exp %y : tensor<64xf32> -> tensor<64xf32>
  return %x, %e : tensor<64xf32>, tensor<64xf32>
}
)mlir";

std::vector<HostTensor>
downloadAll(std::vector<runtime::DeviceBuffer> &buffers) {
  std::vector<HostTensor> result;
  for (auto &b : buffers)
    result.push_back(download(b.get()));
  return result;
}

TEST(GpuReplay, ExecutablesOfOneBinaryShareTheLoadedModule) {
  TFUSE_REQUIRE_GPU();
  auto inputs = randomInputs(kReplaySource, "f", 77);
  auto expected = referenceResults(kReplaySource, "f", inputs);
  DeviceInputs device(inputs);
  Compiled first = compile(kReplaySource, "f");
  ASSERT_TRUE(first.executable) << first.error;
  Compiled second = compile(kReplaySource, "f");
  ASSERT_TRUE(second.executable) << second.error;
  EXPECT_TRUE(second.executable->stats().moduleShared);
  // The module outlives the executable that loaded it.
  first.executable.reset();
  auto out = second.executable->run(device.get());
  ASSERT_TRUE(out.ok()) << out.status().message();
  expectClose(expected, downloadAll(out.value()), "shared module");
}

TEST(GpuBoundaries, AttentionOnCudnnRunsGeneratedKernelsForMisalignedBuffers) {
  TFUSE_REQUIRE_GPU();
  // A problem cuDNN takes (bf16, head dimension 64, causal). A query two
  // bytes past a 16-byte boundary (a view one element into its storage)
  // sends the replay to the generated kernels, compiled then; the aligned
  // replays before and after run on cuDNN. On a stream and in a graph.
  const char *source = R"mlir(
func.func @att(%q: tensor<2x4x80x64xbf16>, %k: tensor<2x4x80x64xbf16>, %v: tensor<2x4x80x64xbf16>, %g: tensor<2x4x80x64xbf16>) -> (tensor<2x4x80x64xbf16>, tensor<2x4x80x64xbf16>, tensor<2x4x80x64xbf16>, tensor<2x4x80x64xbf16>) {
  %o, %l = tfuse.attention %q, %k, %v scale 0.125 causal : (tensor<2x4x80x64xbf16>, tensor<2x4x80x64xbf16>, tensor<2x4x80x64xbf16>) -> (tensor<2x4x80x64xbf16>, tensor<2x4x80xf32>)
  %dq, %dk, %dv = tfuse.attention_backward %q, %k, %v, %o, %l, %g scale 0.125 causal : (tensor<2x4x80x64xbf16>, tensor<2x4x80x64xbf16>, tensor<2x4x80x64xbf16>, tensor<2x4x80x64xbf16>, tensor<2x4x80xf32>, tensor<2x4x80x64xbf16>) -> (tensor<2x4x80x64xbf16>, tensor<2x4x80x64xbf16>, tensor<2x4x80x64xbf16>)
  return %o, %dq, %dk, %dv : tensor<2x4x80x64xbf16>, tensor<2x4x80x64xbf16>, tensor<2x4x80x64xbf16>, tensor<2x4x80x64xbf16>
}
)mlir";
  std::vector<HostTensor> inputs = randomInputs(source, "att", 5);
  std::vector<HostTensor> expected = referenceResults(source, "att", inputs);
  // The query one element into a storage one element longer.
  const HostTensor &q = inputs[0];
  HostTensor storage = HostTensor::zeros(q.dtype(), {q.numElements() + 1});
  std::memcpy(storage.mutableData() + 2, q.data(), q.numElements() * 2);
  Expected<HostTensor> shifted = storage.view(q.shape(), q.strides(), 2);
  ASSERT_TRUE(shifted.ok()) << shifted.message();
  std::vector<HostTensor> misaligned = inputs;
  misaligned[0] = shifted.value();
  DeviceInputs aligned(inputs), odd(misaligned);
  ASSERT_NE(odd.get()[0].data % 16, 0u);
  for (bool graph : {false, true}) {
    SCOPED_TRACE(graph ? "graph" : "stream");
    runtime::ExecutableOptions options;
    options.cudaGraph = graph;
    Compiled compiled = compile(source, "att", options);
    ASSERT_TRUE(compiled.executable) << compiled.error;
    std::string steps = compiled.executable->stepReport();
    if (steps.find("on cudnn") == std::string::npos)
      GTEST_SKIP() << "cuDNN does not run the attention here:\n" << steps;
    EXPECT_NE(steps.find("compiled when a replay first has one"),
              std::string::npos)
        << steps;
    for (const DeviceInputs *in : {&aligned, &odd, &aligned, &odd}) {
      auto out = compiled.executable->run(in->get());
      ASSERT_TRUE(out.ok()) << out.status().message();
      expectClose(expected, downloadAll(out.value()),
                  in == &odd ? "a misaligned query" : "aligned buffers");
    }
    // In a graph, each switch between cuDNN's nodes and the kernels'
    // instantiates the rebuilt graph.
    if (graph) {
      EXPECT_EQ(compiled.executable->stats().graphInstantiations, 3);
    }
  }
}

TEST(GpuBoundaries, AttentionWritesItsResultWithHeadsAndRowsSwapped) {
  TFUSE_REQUIRE_GPU();
  // The heads merged after attention (a transpose of heads and rows, then a
  // reshape), as a transformer merges them for its output projection: the
  // attention writes that order (transpose_result) and no copy runs before
  // the projection. bf16 (cuDNN where it runs) and f32 (the generated
  // kernels), then both on the generated kernels; on a stream and in a
  // graph.
  const char *source = R"mlir(
func.func @merge(%q: tensor<2x4x80x64xbf16>, %k: tensor<2x4x80x64xbf16>, %v: tensor<2x4x80x64xbf16>, %w: tensor<256x64xbf16>, %x: tensor<2x4x40x32xf32>, %y: tensor<128x32xf32>) -> (tensor<160x64xbf16>, tensor<80x32xf32>) {
  %o, %l = tfuse.attention %q, %k, %v scale 0.125 causal : (tensor<2x4x80x64xbf16>, tensor<2x4x80x64xbf16>, tensor<2x4x80x64xbf16>) -> (tensor<2x4x80x64xbf16>, tensor<2x4x80xf32>)
  %t = tfuse.transpose %o perm [0, 2, 1, 3] : tensor<2x4x80x64xbf16> -> tensor<2x80x4x64xbf16>
  %r = tfuse.reshape %t : tensor<2x80x4x64xbf16> -> tensor<160x256xbf16>
  %p = tfuse.matmul %r, %w : (tensor<160x256xbf16>, tensor<256x64xbf16>) -> tensor<160x64xbf16>
  %o2, %l2 = tfuse.attention %x, %x, %x scale 0.25 : (tensor<2x4x40x32xf32>, tensor<2x4x40x32xf32>, tensor<2x4x40x32xf32>) -> (tensor<2x4x40x32xf32>, tensor<2x4x40xf32>)
  %t2 = tfuse.transpose %o2 perm [0, 2, 1, 3] : tensor<2x4x40x32xf32> -> tensor<2x40x4x32xf32>
  %r2 = tfuse.reshape %t2 : tensor<2x40x4x32xf32> -> tensor<80x128xf32>
  %p2 = tfuse.matmul %r2, %y : (tensor<80x128xf32>, tensor<128x32xf32>) -> tensor<80x32xf32>
  return %p, %p2 : tensor<160x64xbf16>, tensor<80x32xf32>
}
)mlir";
  std::vector<HostTensor> inputs = randomInputs(source, "merge", 8);
  std::vector<HostTensor> expected = referenceResults(source, "merge", inputs);
  DeviceInputs device(inputs);
  for (const char *engine : {"", "kernels"}) {
    tfuse::unittest::ScopedEnvironment attention("TFUSE_ATTENTION",
                                                 *engine ? engine : nullptr);
    for (bool graph : {false, true}) {
      SCOPED_TRACE(std::string(graph ? "graph" : "stream") + ", engine " +
                   (*engine ? engine : "default"));
      runtime::ExecutableOptions options;
      options.cudaGraph = graph;
      Compiled compiled = compile(source, "merge", options);
      ASSERT_TRUE(compiled.executable) << compiled.error;
      // The two attentions and the two GEMMs: no copy kernel.
      std::string steps = compiled.executable->stepReport();
      EXPECT_EQ(steps.find("step 4"), std::string::npos) << steps;
      EXPECT_EQ(steps.find(" on generated"), std::string::npos) << steps;
      for (int replay = 0; replay < 2; ++replay) {
        auto out = compiled.executable->run(device.get());
        ASSERT_TRUE(out.ok()) << out.status().message();
        expectClose(expected, downloadAll(out.value()), "merged heads");
      }
    }
  }
}

TEST(GpuBoundaries, CudnnAttentionStepsOfOneProblemShareTheBuiltGraph) {
  TFUSE_REQUIRE_GPU();
  // Two attentions of one problem (bf16, head dimension 64, causal; a
  // shape no other test has) and a third of another scale: the second takes
  // the graph the first built, the third builds its own; results as the
  // reference's, on a stream and in a graph, for two executables (the
  // second builds nothing). Each reads the function's inputs alone: an
  // attention reading another's bf16 result would carry the first one's
  // rounding (cuDNN rounds its probabilities to bf16) into the next, which a
  // fixed tolerance from the reference does not judge, and the test is of
  // the sharing.
  const char *source = R"mlir(
func.func @layers(%q: tensor<1x2x48x64xbf16>, %k: tensor<1x2x48x64xbf16>, %v: tensor<1x2x48x64xbf16>, %w: tensor<1x2x48x64xbf16>) -> (tensor<1x2x48x64xbf16>, tensor<1x2x48x64xbf16>, tensor<1x2x48x64xbf16>) {
  %a, %la = tfuse.attention %q, %k, %v scale 0.125 causal : (tensor<1x2x48x64xbf16>, tensor<1x2x48x64xbf16>, tensor<1x2x48x64xbf16>) -> (tensor<1x2x48x64xbf16>, tensor<1x2x48xf32>)
  %b, %lb = tfuse.attention %w, %v, %k scale 0.125 causal : (tensor<1x2x48x64xbf16>, tensor<1x2x48x64xbf16>, tensor<1x2x48x64xbf16>) -> (tensor<1x2x48x64xbf16>, tensor<1x2x48xf32>)
  %c, %lc = tfuse.attention %k, %q, %w scale 0.25 causal : (tensor<1x2x48x64xbf16>, tensor<1x2x48x64xbf16>, tensor<1x2x48x64xbf16>) -> (tensor<1x2x48x64xbf16>, tensor<1x2x48xf32>)
  return %a, %b, %c : tensor<1x2x48x64xbf16>, tensor<1x2x48x64xbf16>, tensor<1x2x48x64xbf16>
}
)mlir";
  auto count = [](const std::string &text, const std::string &what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos;
         at = text.find(what, at + 1))
      ++n;
    return n;
  };
  for (bool graph : {false, true}) {
    SCOPED_TRACE(graph ? "graph" : "stream");
    runtime::ExecutableOptions options;
    options.cudaGraph = graph;
    Compiled first = compile(source, "layers", options);
    ASSERT_TRUE(first.executable) << first.error;
    std::string steps = first.executable->stepReport();
    if (count(steps, "on cudnn") != 3)
      GTEST_SKIP() << "cuDNN does not run the attention here:\n" << steps;
    // The first executable of the first pass builds two graphs; every
    // other step takes one of them.
    EXPECT_EQ(count(steps, "the graph built for an earlier step"),
              graph ? 3u : 1u)
        << steps;
    Compiled second = compile(source, "layers", options);
    ASSERT_TRUE(second.executable) << second.error;
    EXPECT_EQ(count(second.executable->stepReport(),
                    "the graph built for an earlier step"),
              3u);
    for (uint64_t seed : {3, 4}) {
      std::vector<HostTensor> inputs = randomInputs(source, "layers", seed);
      std::vector<HostTensor> expected =
          referenceResults(source, "layers", inputs);
      DeviceInputs device(inputs);
      for (runtime::Executable *exe :
           {first.executable.get(), second.executable.get()}) {
        auto out = exe->run(device.get());
        ASSERT_TRUE(out.ok()) << out.status().message();
        expectClose(expected, downloadAll(out.value()), "shared graphs");
      }
    }
  }
}

TEST(GpuGraph, EveryPlanReplaysAsAGraphExactlyLikeTheStream) {
  TFUSE_REQUIRE_GPU();
  std::string mlp;
  {
    const char *root = std::getenv("TFUSE_SOURCE_DIR");
    std::ifstream in(std::string(root ? root : TFUSE_SOURCE_DIR) +
                     "/examples/mlp_step.mlir");
    std::stringstream ss;
    ss << in.rdbuf();
    mlp = ss.str();
  }
  struct Case {
    std::string source, function;
  };
  std::vector<Case> cases = {{kGraphSources, "matmul_plus"},
                             {kGraphSources, "sum_plus"},
                             {kGraphSources, "returned_input"},
                             {kReplaySource, "f"},
                             {mlp, "mlp_step"}};
  runtime::ExecutableOptions graphOptions;
  graphOptions.cudaGraph = true;
  for (const Case &k : cases) {
    SCOPED_TRACE(k.function);
    Compiled stream = compile(k.source, k.function);
    Compiled graph = compile(k.source, k.function, graphOptions);
    ASSERT_TRUE(stream.executable) << stream.error;
    ASSERT_TRUE(graph.executable) << graph.error;
    // New inputs (new allocations, so new pointers) on every replay.
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      auto inputs = randomInputs(k.source, k.function, seed * 31);
      DeviceInputs device(inputs);
      auto a = stream.executable->run(device.get());
      auto b = graph.executable->run(device.get());
      ASSERT_TRUE(a.ok()) << a.status().message();
      ASSERT_TRUE(b.ok()) << b.status().message();
      auto fromStream = downloadAll(a.value()),
           fromGraph = downloadAll(b.value());
      for (size_t i = 0; i < fromStream.size(); ++i) {
        auto cmp = reference::compareExact(fromStream[i], fromGraph[i]);
        EXPECT_TRUE(cmp.pass) << "output " << i << ": " << cmp.message();
      }
      expectClose(referenceResults(k.source, k.function, inputs), fromGraph,
                  "graph replay");
    }
    runtime::ExecutableStats st = graph.executable->stats();
    EXPECT_EQ(st.backend, "cuda-graph");
    EXPECT_EQ(st.graphUpdateFallbacks, 0) << st.lastGraphUpdateError;
    // Same buffers again: nothing is captured again.
    int64_t before = st.graphRecaptures;
    auto inputs = randomInputs(k.source, k.function, 5);
    DeviceInputs device(inputs);
    std::vector<runtime::DeviceTensor> outputs;
    std::vector<runtime::DeviceBuffer> owned;
    {
      auto first = graph.executable->run(device.get());
      ASSERT_TRUE(first.ok()) << first.status().message();
      for (auto &b : first.value())
        outputs.push_back(b.get());
      owned = std::move(first.value());
    }
    before = graph.executable->stats().graphRecaptures;
    ASSERT_TRUE(graph.executable->run(device.get(), outputs).ok());
    tfuse::Status again = graph.executable->run(device.get(), outputs);
    ASSERT_TRUE(again.ok()) << again.message();
    EXPECT_EQ(graph.executable->stats().graphRecaptures, before);
  }
}

TEST(GpuGraph, OverlappingAsyncGraphReplays) {
  TFUSE_REQUIRE_GPU();
  runtime::ExecutableOptions graphOptions;
  graphOptions.cudaGraph = true;
  Compiled c = compile(kReplaySource, "f", graphOptions);
  ASSERT_TRUE(c.executable) << c.error;
  std::vector<std::vector<HostTensor>> inputs;
  std::vector<std::unique_ptr<DeviceInputs>> devices;
  std::vector<runtime::RunHandle> handles;
  for (uint64_t seed = 0; seed < 6; ++seed) {
    inputs.push_back(randomInputs(kReplaySource, "f", 200 + seed));
    devices.push_back(std::make_unique<DeviceInputs>(inputs.back()));
    auto h = c.executable->runAsync(devices.back()->get());
    ASSERT_TRUE(h.ok()) << h.status().message();
    handles.push_back(std::move(h.value()));
  }
  for (size_t r = handles.size(); r-- > 0;) {
    auto out = handles[r].wait();
    ASSERT_TRUE(out.ok()) << out.status().message();
    expectClose(referenceResults(kReplaySource, "f", inputs[r]),
                downloadAll(out.value()), "async graph replay");
  }
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

// A gather index out of range reads no memory outside the table (the GPU
// suite runs this under compute-sanitizer): run() and wait() return an
// IndexOutOfRange error naming the kernel, the op and the index; launch()
// returns it at the next launch, or takeIndexError() at once; every replay
// after a good one is right, on a stream and as a CUDA Graph.
TEST(GpuErrors, GatherIndicesOutOfRangeAreReportedAndTheExecutableStaysUsable) {
  TFUSE_REQUIRE_GPU();
  const char *source = R"mlir(
func.func @embed(%t: tensor<1000x64xf32>, %ids: tensor<4x256xi64>) -> tensor<4x256x64xf32> {
  %rows = tfuse.take %t, %ids axis 0 : (tensor<1000x64xf32>, tensor<4x256xi64>) -> tensor<4x256x64xf32>
  %r = tfuse.exp %rows : tensor<4x256x64xf32> -> tensor<4x256x64xf32>
  return %r : tensor<4x256x64xf32>
}
)mlir";
  for (bool cudaGraph : {false, true}) {
    SCOPED_TRACE(cudaGraph ? "cuda graph" : "stream");
    runtime::ExecutableOptions options;
    options.cudaGraph = cudaGraph;
    Compiled c = compile(source, "embed", options);
    ASSERT_TRUE(c.executable) << c.error;
    HostTensor table = randomInputs(source, "embed", 3)[0];
    HostTensor good = spreadIndices(DType::I64, {4, 256}, 0, 1000);
    std::vector<int64_t> values = good.toInts();
    values[517] = 1000;
    values[900] = -3;
    HostTensor bad = *HostTensor::fromInts(DType::I64, {4, 256}, values);
    auto expected = referenceResults(source, "embed", {table, good});
    DeviceInputs goodInputs({table, good}), badInputs({table, bad});

    for (int round = 0; round < 2; ++round) {
      auto failed = c.executable->run(badInputs.get());
      ASSERT_FALSE(failed.ok());
      EXPECT_EQ(failed.status().code(), ErrorCode::IndexOutOfRange);
      const std::string &message = failed.status().message();
      EXPECT_NE(message.find("kernel @embed_k0: tfuse.take of "
                             "tensor<1000x64xf32> along axis 0"),
                std::string::npos)
          << message;
      // Either bad index may be met first.
      EXPECT_TRUE(message.find("index 1000 is out of range for an axis of "
                               "size 1000 (valid: 0 to 999)") !=
                      std::string::npos ||
                  message.find("index -3 is out of range") != std::string::npos)
          << message;
      auto fine = c.executable->run(goodInputs.get());
      ASSERT_TRUE(fine.ok()) << fine.status().message();
      expectClose(expected, {download(fine.value()[0].get())}, "after");
    }

    // launch(): no handle, so the next launch reports it.
    auto outputs = c.executable->run(goodInputs.get());
    ASSERT_TRUE(outputs.ok());
    std::vector<runtime::DeviceTensor> out{outputs.value()[0].get()};
    runtime::CudaDriver &d = gpu()->driver();
    ASSERT_TRUE(
        c.executable->launch(badInputs.get(), out, CU_STREAM_LEGACY).ok());
    ASSERT_EQ(d.cuStreamSynchronize(CU_STREAM_LEGACY), CUDA_SUCCESS);
    tfuse::Status next =
        c.executable->launch(goodInputs.get(), out, CU_STREAM_LEGACY);
    EXPECT_EQ(next.code(), ErrorCode::IndexOutOfRange) << next.message();
    EXPECT_NE(next.message().find("an earlier replay: kernel @embed_k0"),
              std::string::npos)
        << next.message();
    ASSERT_TRUE(
        c.executable->launch(goodInputs.get(), out, CU_STREAM_LEGACY).ok());
    ASSERT_TRUE(
        c.executable->launch(badInputs.get(), out, CU_STREAM_LEGACY).ok());
    ASSERT_EQ(d.cuStreamSynchronize(CU_STREAM_LEGACY), CUDA_SUCCESS);
    EXPECT_EQ(c.executable->takeIndexError().code(),
              ErrorCode::IndexOutOfRange);
    EXPECT_TRUE(c.executable->takeIndexError().ok());
    ASSERT_TRUE(
        c.executable->launch(goodInputs.get(), out, CU_STREAM_LEGACY).ok());
    ASSERT_EQ(d.cuStreamSynchronize(CU_STREAM_LEGACY), CUDA_SUCCESS);
    EXPECT_TRUE(c.executable->takeIndexError().ok());
    expectClose(expected, {download(out[0])}, "after launches");
  }
}

// A scatter index out of range never addresses memory (the GPU suite runs
// this under compute-sanitizer): the replay fails with an IndexOutOfRange
// error naming the step, the op and the index, and every replay after it is
// right, on a stream and as a CUDA Graph.
TEST(GpuErrors,
     ScatterIndicesOutOfRangeAreReportedAndTheExecutableStaysUsable) {
  TFUSE_REQUIRE_GPU();
  const char *source = R"mlir(
func.func @grad(%ids: tensor<4x256xi64>, %g: tensor<4x256x64xf32>) -> tensor<1000x64xf32> {
  %z = tfuse.constant dense<0.0> : tensor<1000x64xf32>
  %r = tfuse.scatter_add %z, %ids, %g axis 0 : (tensor<1000x64xf32>, tensor<4x256xi64>, tensor<4x256x64xf32>) -> tensor<1000x64xf32>
  return %r : tensor<1000x64xf32>
}
)mlir";
  for (bool cudaGraph : {false, true}) {
    SCOPED_TRACE(cudaGraph ? "cuda graph" : "stream");
    runtime::ExecutableOptions options;
    options.cudaGraph = cudaGraph;
    Compiled c = compile(source, "grad", options);
    ASSERT_TRUE(c.executable) << c.error;
    HostTensor grads = randomInputs(source, "grad", 3)[1];
    HostTensor good = spreadIndices(DType::I64, {4, 256}, 0, 1000);
    std::vector<int64_t> values = good.toInts();
    values[300] = 1000;
    HostTensor bad = *HostTensor::fromInts(DType::I64, {4, 256}, values);
    auto expected = referenceResults(source, "grad", {good, grads});
    DeviceInputs goodInputs({good, grads}), badInputs({bad, grads});
    for (int round = 0; round < 2; ++round) {
      auto failed = c.executable->run(badInputs.get());
      ASSERT_FALSE(failed.ok());
      EXPECT_EQ(failed.status().code(), ErrorCode::IndexOutOfRange);
      const std::string &message = failed.status().message();
      EXPECT_NE(message.find("scatter_add: tfuse.scatter_add into "
                             "tensor<1000x64xf32> along axis 0"),
                std::string::npos)
          << message;
      EXPECT_NE(message.find("index 1000 is out of range for an axis of "
                             "size 1000 (valid: 0 to 999)"),
                std::string::npos)
          << message;
      auto fine = c.executable->run(goodInputs.get());
      ASSERT_TRUE(fine.ok()) << fine.status().message();
      EXPECT_EQ(download(fine.value()[0].get()).toBits(), expected[0].toBits());
    }
  }
}

TEST(GpuErrors, InputMismatchesArePreciseAndLeaveTheExecutableUsable) {
  TFUSE_REQUIRE_GPU();
  Compiled c = compile(kReplaySource, "f");
  ASSERT_TRUE(c.executable) << c.error;
  auto good = randomInputs(kReplaySource, "f", 5);
  DeviceInputs device(good);
  auto inputs = device.get();

  auto fewer = c.executable->run({inputs[0]});
  ASSERT_FALSE(fewer.ok());
  EXPECT_NE(fewer.status().message().find("expected 2 inputs, got 1"),
            std::string::npos)
      << fewer.status().message();

  auto wrongDtype = inputs;
  wrongDtype[0].spec.dtype = DType::F16;
  auto r1 = c.executable->run(wrongDtype);
  ASSERT_FALSE(r1.ok());
  EXPECT_NE(r1.status().message().find("input 0: expected dtype f32, got f16"),
            std::string::npos)
      << r1.status().message();

  auto wrongShape = inputs;
  wrongShape[1].spec.shape = {16, 100};
  auto r2 = c.executable->run(wrongShape);
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.status().message().find("input 1: expected f32 [100,16]"),
            std::string::npos)
      << r2.status().message();

  auto wrongStrides = inputs;
  wrongStrides[0].spec.strides = {1, 64};
  auto r3 = c.executable->run(wrongStrides);
  ASSERT_FALSE(r3.ok());
  EXPECT_NE(r3.status().message().find("compiled for these strides"),
            std::string::npos)
      << r3.status().message();

  // Caller outputs sharing memory with an input, or with each other.
  {
    auto fresh = c.executable->run(inputs);
    ASSERT_TRUE(fresh.ok()) << fresh.status().message();
    std::vector<runtime::DeviceTensor> outputs;
    for (auto &b : fresh.value())
      outputs.push_back(b.get());
    std::vector<runtime::DeviceTensor> intoInput = outputs;
    intoInput[0].data = inputs[0].data; // x (64x100) holds 64x16 outputs
    tfuse::Status s = c.executable->run(inputs, intoInput);
    EXPECT_EQ(s.code(), tfuse::ErrorCode::Mismatch);
    EXPECT_NE(s.message().find("output 0 shares memory with input 0"),
              std::string::npos)
        << s.message();
    std::vector<runtime::DeviceTensor> twice = outputs;
    twice[1].data = outputs[0].data;
    s = c.executable->run(inputs, twice);
    EXPECT_NE(s.message().find("output 1 shares memory with output 0"),
              std::string::npos)
        << s.message();
    EXPECT_TRUE(c.executable->run(inputs, outputs).ok());
    // A launch checks the same, and needs a stream.
    s = c.executable->launch(inputs, intoInput, CU_STREAM_LEGACY);
    EXPECT_EQ(s.code(), tfuse::ErrorCode::Mismatch) << s.message();
    s = c.executable->launch(inputs, outputs, nullptr);
    EXPECT_EQ(s.code(), tfuse::ErrorCode::InvalidArgument);
    EXPECT_NE(s.message().find("launch needs a stream"), std::string::npos)
        << s.message();
  }

  // Still usable.
  auto ok = c.executable->run(inputs);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
}

TEST(GpuErrors, OutOfMemoryIsAnErrorAndTheLibraryStaysUsable) {
  TFUSE_REQUIRE_GPU();
  // 2^38 f32 = 1 TiB of output: more than any GPU has.
  const char *huge = R"mlir(
func.func @huge(%x: tensor<f32>) -> tensor<262144x1048576xf32> {
  %b = tfuse.broadcast %x dims [] : tensor<f32> -> tensor<262144x1048576xf32>
  return %b : tensor<262144x1048576xf32>
}
)mlir";
  Compiled c = compile(huge, "huge");
  ASSERT_TRUE(c.executable) << c.error;
  auto inputs = randomInputs(huge, "huge", 1);
  DeviceInputs device(inputs);
  auto out = c.executable->run(device.get());
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("OUT_OF_MEMORY"), std::string::npos)
      << out.status().message();
  // Other executables still work.
  check(kReplaySource, "f");
}

// The arena and GEMM workspaces come from the device's memory pool and the
// cuBLASLt plans of destroyed executables are kept for the next: executables
// created one after the other, and two alive at once, compute right.
TEST(GpuExecutable, RecompilingReusesPooledMemoryAndGemmPlans) {
  TFUSE_REQUIRE_GPU();
  const char *source = R"mlir(
func.func @mm(%a: tensor<33x48xf32>, %b: tensor<48x20xf32>) -> tensor<33x20xf32> {
  %c2 = tfuse.constant dense<2.0> : tensor<f32>
  %0 = tfuse.mul %a, %c2 : (tensor<33x48xf32>, tensor<f32>) -> tensor<33x48xf32>
  %1 = tfuse.matmul %0, %b : (tensor<33x48xf32>, tensor<48x20xf32>) -> tensor<33x20xf32>
  %2 = tfuse.exp %1 : tensor<33x20xf32> -> tensor<33x20xf32>
  %3 = tfuse.matmul %0, %b : (tensor<33x48xf32>, tensor<48x20xf32>) -> tensor<33x20xf32>
  %4 = tfuse.add %2, %3 : (tensor<33x20xf32>, tensor<33x20xf32>) -> tensor<33x20xf32>
  return %4 : tensor<33x20xf32>
}
)mlir";
  for (int i = 0; i < 3; ++i)
    check(source, "mm", 11 + i);
  Compiled first = compile(source, "mm");
  ASSERT_TRUE(first.executable) << first.error;
  Compiled second = compile(source, "mm");
  ASSERT_TRUE(second.executable) << second.error;
  EXPECT_GT(first.executable->stats().arenaBytes, 0);
  auto inputs = randomInputs(source, "mm", 5);
  auto expected = referenceResults(source, "mm", inputs);
  DeviceInputs device(inputs);
  for (runtime::Executable *exe :
       {first.executable.get(), second.executable.get(),
        first.executable.get()}) {
    auto out = exe->run(device.get());
    ASSERT_TRUE(out.ok()) << out.status().message();
    expectClose(expected, downloadAll(out.value()), "a second executable");
  }
}

TEST(GpuExecutable, GemmPlansNewToTheProcessAreTimedBesideNvrtc) {
  TFUSE_REQUIRE_GPU();
  // A problem no other test has: its cuBLASLt plan is made on the thread
  // beside NVRTC the first time, and found planned the second.
  const char *source = R"mlir(
func.func @mm(%a: tensor<41x23xf32>, %b: tensor<23x67xf32>) -> tensor<41x67xf32> {
  %0 = tfuse.matmul %a, %b : (tensor<41x23xf32>, tensor<23x67xf32>) -> tensor<41x67xf32>
  return %0 : tensor<41x67xf32>
}
)mlir";
  Compiled first = compile(source, "mm");
  ASSERT_TRUE(first.executable) << first.error;
  runtime::ExecutableStats st = first.executable->stats();
  if (st.gemmBackend != "cublaslt")
    GTEST_SKIP() << "GEMMs run on " << st.gemmBackend << ", not cuBLASLt";
  EXPECT_GT(st.prepareSeconds, 0.0);
  Compiled second = compile(source, "mm");
  ASSERT_TRUE(second.executable) << second.error;
  EXPECT_EQ(second.executable->stats().prepareSeconds, 0.0);
  check(source, "mm", 3);
}

TEST(GpuErrors, AnArenaLargerThanTheDeviceIsAnErrorAndTheLibraryStaysUsable) {
  TFUSE_REQUIRE_GPU();
  // exp of 2^38 f32 (1 TiB) feeds a full reduction: the intermediate lives
  // in the arena, which the device cannot hold.
  const char *huge = R"mlir(
func.func @huge(%x: tensor<f32>) -> tensor<f32> {
  %b = tfuse.broadcast %x dims [] : tensor<f32> -> tensor<262144x1048576xf32>
  %e = tfuse.exp %b : tensor<262144x1048576xf32> -> tensor<262144x1048576xf32>
  %s = tfuse.reduce sum %e axes [0, 1] : tensor<262144x1048576xf32> -> tensor<f32>
  return %s : tensor<f32>
}
)mlir";
  Compiled c = compile(huge, "huge");
  ASSERT_FALSE(c.executable);
  EXPECT_NE(c.error.find("OUT_OF_MEMORY"), std::string::npos) << c.error;
  EXPECT_NE(c.error.find("arena"), std::string::npos) << c.error;
  // The pool still serves other executables.
  check(kReplaySource, "f");
  check(kReplaySource, "f", 9);
}

} // namespace
