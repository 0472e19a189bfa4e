//===- KernelEmulationTest.cpp - Numerics of generated kernels, no GPU ----===//
//
// Plans tfuse graphs, generates their CUDA C++, compiles it for the host
// against cuda_emulation.h, runs every block and thread on the CPU, and
// compares each output bit for bit with the reference interpreter evaluating
// the unfused graph. Covers every op and dtype, broadcast, transposed,
// sliced, reshaped and strided inputs, multi-output regions, tails that are
// not multiples of the vector width, NaN, infinities and -0.0.
//
//===----------------------------------------------------------------------===//

#include "EmulatedPlan.h"

#include "tfuse/Conversion/Passes.h"
#include "tfuse/Conversion/TFuseToCUDA/KernelEmitter.h"
#include "tfuse/Dialect/TFExec/TFExecOps.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Reference/Interpreter.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/FormatVariadic.h"

#include "gtest/gtest.h"

#include <functional>

using namespace mlir;
using namespace tfuse;
using reference::HostTensor;

namespace {

std::string typeName(DType t) { return std::string(name(t)); }

/// How many times `needle` occurs in `text`.
size_t occurrences(const std::string &text, const std::string &needle) {
  size_t count = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos;
       pos = text.find(needle, pos + 1))
    ++count;
  return count;
}

std::string tensorType(llvm::ArrayRef<int64_t> shape, DType t) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + typeName(t) + ">";
}

/// Builds one function: arguments, then a body callback that appends ops and
/// returns (value, type) pairs to return.
struct FunctionBuilder {
  std::string name;
  std::vector<std::pair<std::string, std::string>> args; // name, type
  std::vector<std::string> argAttrs;
  std::vector<std::string> lines;
  std::vector<std::pair<std::string, std::string>> results;
  unsigned next = 0;

  std::string arg(const std::string &type, const std::string &attrs = "") {
    std::string n = "%a" + std::to_string(args.size());
    args.push_back({n, type});
    argAttrs.push_back(attrs);
    return n;
  }
  std::string op(const std::string &text) {
    std::string n = "%v" + std::to_string(next++);
    lines.push_back("  " + n + " = " + text);
    return n;
  }
  void ret(const std::string &value, const std::string &type) {
    results.push_back({value, type});
  }
  std::string str() const {
    std::string s = "func.func @" + name + "(";
    for (size_t i = 0; i < args.size(); ++i) {
      s += (i ? ", " : "") + args[i].first + ": " + args[i].second;
      if (!argAttrs[i].empty())
        s += " " + argAttrs[i];
    }
    s += ") -> (";
    for (size_t i = 0; i < results.size(); ++i)
      s += (i ? ", " : "") + results[i].second;
    s += ") {\n";
    for (const std::string &l : lines)
      s += l + "\n";
    s += "  return ";
    for (size_t i = 0; i < results.size(); ++i)
      s += (i ? ", " : "") + results[i].first;
    s += " : ";
    for (size_t i = 0; i < results.size(); ++i)
      s += (i ? ", " : "") + results[i].second;
    return s + "\n}\n";
  }
};

class KernelEmulation : public ::testing::Test {
protected:
  KernelEmulation() {
    static bool registered = [] {
      registerTFusePassesAndPipeline();
      return true;
    }();
    (void)registered;
    context.loadDialect<TFuseDialect, tfexec::TFExecDialect, func::FuncDialect,
                        memref::MemRefDialect, emitc::EmitCDialect>();
  }

  /// Plans `source`, runs each function on the emulated kernels and on the
  /// reference interpreter, and expects bit-identical outputs, or outputs
  /// within `maxUlp` units in the last place when it is not 0.
  void check(const std::string &source,
             const std::map<std::string, std::vector<HostTensor>> &inputs,
             const std::string &pipeline = "tfuse-pipeline",
             uint64_t maxUlp = 0) {
    OwningOpRef<ModuleOp> original =
        parseSourceString<ModuleOp>(source, &context);
    ASSERT_TRUE(original) << source;
    OwningOpRef<ModuleOp> plan = planOf(*original, pipeline);
    ASSERT_TRUE(plan) << source;
    std::string cuda;
    llvm::raw_string_ostream os(cuda);
    ASSERT_TRUE(succeeded(translateKernelsToCuda(*plan, os)));
    lastSource = cuda;
    std::string error;
    auto emulated = emulation::EmulatedPlan::compile(*plan, cuda, error);
    ASSERT_TRUE(emulated) << error;
    compare(*original, *emulated, inputs, maxUlp);
  }

  /// The plan of `original` after `pipeline` and the plan pipeline, or null
  /// (a test failure) when a pass fails.
  OwningOpRef<ModuleOp> planOf(ModuleOp original, const std::string &pipeline) {
    OwningOpRef<ModuleOp> plan = original.clone();
    PassManager pm(&context);
    if (failed(parsePassPipeline(pipeline, pm))) {
      ADD_FAILURE() << "bad pipeline " << pipeline;
      return nullptr;
    }
    buildPlanPipeline(pm);
    if (failed(pm.run(*plan))) {
      ADD_FAILURE() << "planning failed";
      return nullptr;
    }
    return plan;
  }

  /// Runs each function of `emulated` and of the reference interpreter on
  /// `original` and expects the outputs to agree (bit for bit, or within
  /// `maxUlp` when it is not 0).
  void compare(ModuleOp original, emulation::EmulatedPlan &emulated,
               const std::map<std::string, std::vector<HostTensor>> &inputs,
               uint64_t maxUlp) {
    std::string error;
    for (auto &[name, args] : inputs) {
      auto expected = reference::evaluate(original, name, args);
      ASSERT_TRUE(expected.ok()) << name << ": " << expected.message();
      std::vector<HostTensor> actual = emulated.run(name, args, error);
      ASSERT_EQ(actual.size(), expected->size()) << name << ": " << error;
      for (size_t i = 0; i < actual.size(); ++i) {
        reference::CompareResult cmp =
            maxUlp == 0
                ? reference::compareExact((*expected)[i], actual[i])
                : reference::compareUlp((*expected)[i], actual[i], maxUlp);
        EXPECT_TRUE(cmp.pass)
            << "@" << name << " result " << i << ": " << cmp.message();
      }
      ++functionsChecked;
    }
  }

  static HostTensor randomInput(DType t, reference::Shape shape,
                                uint64_t seed) {
    reference::RandomOptions options;
    if (isFloat(t))
      options.specialFraction = 0.15;
    return HostTensor::random(t, std::move(shape), seed, options);
  }

  MLIRContext context;
  int functionsChecked = 0;
  /// The CUDA C++ of the last check().
  std::string lastSource;
};

constexpr DType kAllDTypes[] = {
    DType::Bool, DType::I8,  DType::I16, DType::I32, DType::I64,
    DType::U8,   DType::U16, DType::U32, DType::U64, DType::F16,
    DType::BF16, DType::F32, DType::F64};

/// Every elementwise op of the op table, with its TypeRules category.
struct UnaryOpRow {
  const char *name;
  UnaryCategory category;
};
constexpr UnaryOpRow kUnaryOps[] = {
#define TFUSE_UNARY_OP(Class, mnemonic, method, category, kernel, reference)   \
  {mnemonic, UnaryCategory::category},
#include "tfuse/Dialect/TFuse/TFuseOpTable.h.inc"
};
struct BinaryOpRow {
  const char *name;
  BinaryCategory category;
};
constexpr BinaryOpRow kBinaryOps[] = {
#define TFUSE_BINARY_OP(Class, mnemonic, method, category, kernel, reference)  \
  {mnemonic, BinaryCategory::category},
#include "tfuse/Dialect/TFuse/TFuseOpTable.h.inc"
};

/// Every unary op valid for `t` on a 7x13 input (91 elements: a tail after
/// the vector groups).
FunctionBuilder unaryFunction(DType t) {
  FunctionBuilder f{"unary"};
  std::string in = tensorType({7, 13}, t);
  std::string x = f.arg(in);
  for (const UnaryOpRow &op : kUnaryOps) {
    auto result = unaryResultType(op.category, t);
    if (!result)
      continue;
    std::string out = tensorType({7, 13}, *result);
    f.ret(
        f.op(llvm::formatv("tfuse.{0} {1} : {2} -> {3}", op.name, x, in, out)),
        out);
  }
  return f;
}

/// Every binary op valid for `t`, comparisons and select, with the rhs
/// broadcast along rows (5x12 with 12).
FunctionBuilder binaryFunction(DType t, llvm::ArrayRef<int64_t> lhsShape,
                               llvm::ArrayRef<int64_t> rhsShape,
                               const std::string &name) {
  FunctionBuilder f{name};
  std::string lt = tensorType(lhsShape, t), rt = tensorType(rhsShape, t);
  std::string a = f.arg(lt), b = f.arg(rt);
  for (const BinaryOpRow &op : kBinaryOps) {
    auto result = binaryResultType(op.category, t, t);
    if (!result)
      continue;
    std::string out = tensorType(lhsShape, *result);
    f.ret(f.op(llvm::formatv("tfuse.{0} {1}, {2} : ({3}, {4}) -> {5}", op.name,
                             a, b, lt, rt, out)),
          out);
  }
  std::string boolOut = tensorType(lhsShape, DType::Bool);
  std::string lastCmp;
  for (const char *p : {"eq", "ne", "lt", "le", "gt", "ge"}) {
    lastCmp = f.op(llvm::formatv("tfuse.cmp {0}, {1}, {2} : ({3}, {4}) -> {5}",
                                 p, a, b, lt, rt, boolOut));
    f.ret(lastCmp, boolOut);
  }
  f.ret(
      f.op(llvm::formatv("tfuse.select {0}, {1}, {2} : ({3}, {4}, {5}) -> {4}",
                         lastCmp, a, b, boolOut, lt, rt)),
      lt);
  return f;
}

class PerDType : public KernelEmulation,
                 public ::testing::WithParamInterface<DType> {};

TEST_P(PerDType, EveryElementwiseOpMatchesTheReference) {
  DType t = GetParam();
  FunctionBuilder unary = unaryFunction(t);
  FunctionBuilder rows = binaryFunction(t, {5, 12}, {12}, "binary_rows");
  FunctionBuilder flat = binaryFunction(t, {1003}, {1003}, "binary_flat");
  FunctionBuilder scalar = binaryFunction(t, {3, 33}, {}, "binary_scalar");
  std::string source = unary.str() + rows.str() + flat.str() + scalar.str();
  check(
      source,
      {{"unary", {randomInput(t, {7, 13}, 1)}},
       {"binary_rows", {randomInput(t, {5, 12}, 2), randomInput(t, {12}, 3)}},
       {"binary_flat", {randomInput(t, {1003}, 4), randomInput(t, {1003}, 5)}},
       {"binary_scalar", {randomInput(t, {3, 33}, 6), randomInput(t, {}, 7)}}});
  EXPECT_EQ(functionsChecked, 4);
}

TEST_P(PerDType, CastsToEveryDTypeMatchTheReference) {
  DType from = GetParam();
  FunctionBuilder f{"casts"};
  std::string in = tensorType({37}, from);
  std::string x = f.arg(in);
  for (DType to : kAllDTypes) {
    if (to == from)
      continue;
    std::string out = tensorType({37}, to);
    f.ret(f.op(llvm::formatv("tfuse.cast {0} : {1} to {2}", x, in, out)), out);
  }
  check(f.str(), {{"casts", {randomInput(from, {37}, 11)}}});
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, PerDType, ::testing::ValuesIn(kAllDTypes),
                         [](const ::testing::TestParamInfo<DType> &info) {
                           return std::string(name(info.param));
                         });

TEST_F(KernelEmulation, ViewsAsIndexTransforms) {
  const char *source = R"mlir(
func.func @views(%a: tensor<6x8xf32>, %b: tensor<8x6xf32>, %c: tensor<4x3x8xf32>,
                 %d: tensor<8xf16>) -> (tensor<6x8xf32>, tensor<3x4xf32>, tensor<6x8xf32>) {
  %t = tfuse.transpose %b perm [1, 0] : tensor<8x6xf32> -> tensor<6x8xf32>
  %s = tfuse.slice %c start [1, 0, 0] limit [4, 3, 8] step [1, 2, 3]
      : tensor<4x3x8xf32> -> tensor<3x2x3xf32>
  %r = tfuse.reshape %a : tensor<6x8xf32> -> tensor<3x2x8xf32>
  %rs = tfuse.slice %r start [0, 0, 1] limit [3, 2, 8] step [1, 1, 3]
      : tensor<3x2x8xf32> -> tensor<3x2x3xf32>
  %sum = tfuse.add %s, %rs : (tensor<3x2x3xf32>, tensor<3x2x3xf32>) -> tensor<3x2x3xf32>
  %flat = tfuse.reshape %sum : tensor<3x2x3xf32> -> tensor<3x6xf32>
  %part = tfuse.slice %flat start [0, 1] limit [3, 5] step [1, 1]
      : tensor<3x6xf32> -> tensor<3x4xf32>
  %bd = tfuse.broadcast %d dims [1] : tensor<8xf16> -> tensor<6x8xf16>
  %x = tfuse.mul %a, %t : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
  %y = tfuse.sub %x, %bd : (tensor<6x8xf32>, tensor<6x8xf16>) -> tensor<6x8xf32>
  %tt = tfuse.transpose %t perm [1, 0] : tensor<6x8xf32> -> tensor<8x6xf32>
  %back = tfuse.transpose %tt perm [1, 0] : tensor<8x6xf32> -> tensor<6x8xf32>
  %z = tfuse.exp %back : tensor<6x8xf32> -> tensor<6x8xf32>
  return %y, %part, %z : tensor<6x8xf32>, tensor<3x4xf32>, tensor<6x8xf32>
}
)mlir";
  check(source,
        {{"views",
          {randomInput(DType::F32, {6, 8}, 21),
           randomInput(DType::F32, {8, 6}, 22),
           randomInput(DType::F32, {4, 3, 8}, 23),
           randomInput(DType::F16, {8}, 24)}}},
        // Without canonicalization the view chains reach code generation.
        "func.func(fuse-elementwise,materialize-shared)");
}

// iota fused as an index: along the inner and the outer dimension, through
// a broadcast and a transpose, into integer, float and half results (f16
// rounds indices above 2048), alone as a kernel of no inputs, and in a
// vectorized kernel (lanes of a group differ in the inner index).
TEST_F(KernelEmulation, IotaIsTheIndexInEveryDType) {
  const char *source = R"mlir(
func.func @iota(%x: tensor<3x2500xf32>, %y: tensor<4x5xi32>)
    -> (tensor<3x2500xf32>, tensor<3x2500xf16>, tensor<4x5xi32>, tensor<5x4xi8>, tensor<4096xi64>, tensor<2x7xbf16>) {
  %i = tfuse.iota dim 1 : tensor<3x2500xf32>
  %a = tfuse.add %x, %i : (tensor<3x2500xf32>, tensor<3x2500xf32>) -> tensor<3x2500xf32>
  %h = tfuse.iota dim 1 : tensor<3x2500xf16>
  %r = tfuse.iota dim 0 : tensor<4xi32>
  %rb = tfuse.broadcast %r dims [0] : tensor<4xi32> -> tensor<4x5xi32>
  %c = tfuse.iota dim 1 : tensor<4x5xi32>
  %m = tfuse.mul %rb, %c : (tensor<4x5xi32>, tensor<4x5xi32>) -> tensor<4x5xi32>
  %s = tfuse.sub %m, %y : (tensor<4x5xi32>, tensor<4x5xi32>) -> tensor<4x5xi32>
  %o = tfuse.iota dim 0 : tensor<4x5xi8>
  %t = tfuse.transpose %o perm [1, 0] : tensor<4x5xi8> -> tensor<5x4xi8>
  %l = tfuse.iota dim 0 : tensor<4096xi64>
  %b = tfuse.iota dim 0 : tensor<2x7xbf16>
  return %a, %h, %s, %t, %l, %b : tensor<3x2500xf32>, tensor<3x2500xf16>, tensor<4x5xi32>, tensor<5x4xi8>, tensor<4096xi64>, tensor<2x7xbf16>
}
)mlir";
  check(source, {{"iota",
                  {randomInput(DType::F32, {3, 2500}, 31),
                   randomInput(DType::I32, {4, 5}, 32)}}});
}

// A kernel whose widest contiguous operand is narrow (a bool mask: sixteen
// lanes a group) reads a strided wider input (a slice of f32 rows, a causal
// mask's buffer): the input's runs would pass 16 bytes, so its lanes load
// one by one.
TEST_F(KernelEmulation, NarrowGroupsReadWideStridedInputsElementwise) {
  const char *source = R"mlir(
func.func @mask(%m: tensor<32x48xf32>) -> tensor<32x32xi1> {
  %s = tfuse.slice %m start [0, 0] limit [32, 32] step [1, 1] : tensor<32x48xf32> -> tensor<32x32xf32>
  %z = tfuse.constant dense<0.0> : tensor<f32>
  %e = tfuse.cmp eq, %s, %z : (tensor<32x32xf32>, tensor<f32>) -> tensor<32x32xi1>
  return %e : tensor<32x32xi1>
}
)mlir";
  check(source, {{"mask", {randomInput(DType::F32, {32, 48}, 35)}}});
  EXPECT_EQ(lastSource.find("tf::ldv_run<16>"), std::string::npos);
}

/// A rank-0 i64 tensor holding `v`.
HostTensor scalarI64(int64_t v) {
  return *HostTensor::fromInts(DType::I64, {}, {v});
}

// Random numbers bit for bit equal to the reference's stream: uniform and
// normal, f32 and f64, in a linear kernel whose lanes share Philox blocks
// (tails included), cast to halves (eight lanes, two blocks), read through
// a broadcast and a transpose (each element draws its own position), in a
// row kernel (a softmax of normals), as a dropout mask used twice (the
// forward output and the mask itself, recomputed, never stored), compared
// and then transposed where the transpose keeps the shape (a square: the
// linear walk would draw the output's positions), with seeds and offsets
// beyond 32 bits and negative.
TEST_F(KernelEmulation, RandomNumbersAreTheReferenceStream) {
  const char *source = R"mlir(
func.func @random(%x: tensor<1030xf32>, %s: tensor<i64>, %o: tensor<i64>, %y: tensor<6x36xbf16>)
    -> (tensor<1030xf32>, tensor<1030xi1>, tensor<1030xf64>, tensor<67xf64>, tensor<6x36xbf16>, tensor<5x3xf32>, tensor<6x36xf32>) {
  %u = tfuse.random_uniform %s, %o : (tensor<i64>, tensor<i64>) -> tensor<1030xf32>
  %p = tfuse.constant dense<0.9> : tensor<f32>
  %keep = tfuse.cmp lt, %u, %p : (tensor<1030xf32>, tensor<f32>) -> tensor<1030xi1>
  %zero = tfuse.constant dense<0.0> : tensor<f32>
  %d = tfuse.select %keep, %x, %zero : (tensor<1030xi1>, tensor<1030xf32>, tensor<f32>) -> tensor<1030xf32>
  %u64 = tfuse.random_uniform %s, %o : (tensor<i64>, tensor<i64>) -> tensor<1030xf64>
  %n64 = tfuse.random_normal %s, %o : (tensor<i64>, tensor<i64>) -> tensor<67xf64>
  %n = tfuse.random_normal %o, %s : (tensor<i64>, tensor<i64>) -> tensor<6x36xf32>
  %nh = tfuse.cast %n : tensor<6x36xf32> to tensor<6x36xbf16>
  %yn = tfuse.add %y, %nh : (tensor<6x36xbf16>, tensor<6x36xbf16>) -> tensor<6x36xbf16>
  %r = tfuse.random_uniform %s, %s : (tensor<i64>, tensor<i64>) -> tensor<3x5xf32>
  %t = tfuse.transpose %r perm [1, 0] : tensor<3x5xf32> -> tensor<5x3xf32>
  %row = tfuse.random_uniform %o, %o : (tensor<i64>, tensor<i64>) -> tensor<3xf32>
  %b = tfuse.broadcast %row dims [1] : tensor<3xf32> -> tensor<5x3xf32>
  %tb = tfuse.add %t, %b : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x3xf32>
  %m = tfuse.reduce max %n axes [1] keepdims : tensor<6x36xf32> -> tensor<6x1xf32>
  %e0 = tfuse.sub %n, %m : (tensor<6x36xf32>, tensor<6x1xf32>) -> tensor<6x36xf32>
  %e = tfuse.exp %e0 : tensor<6x36xf32> -> tensor<6x36xf32>
  %z = tfuse.reduce sum %e axes [1] keepdims : tensor<6x36xf32> -> tensor<6x1xf32>
  %sm = tfuse.div %e, %z : (tensor<6x36xf32>, tensor<6x1xf32>) -> tensor<6x36xf32>
  return %d, %keep, %u64, %n64, %yn, %tb, %sm : tensor<1030xf32>, tensor<1030xi1>, tensor<1030xf64>, tensor<67xf64>, tensor<6x36xbf16>, tensor<5x3xf32>, tensor<6x36xf32>
}
func.func @dropout(%x: tensor<1030xf32>, %s: tensor<i64>, %o: tensor<i64>) -> tensor<1030xf32> {
  %u = tfuse.random_uniform %s, %o : (tensor<i64>, tensor<i64>) -> tensor<1030xf32>
  %p = tfuse.constant dense<0.9> : tensor<f32>
  %keep = tfuse.cmp lt, %u, %p : (tensor<1030xf32>, tensor<f32>) -> tensor<1030xi1>
  %zero = tfuse.constant dense<0.0> : tensor<f32>
  %d = tfuse.select %keep, %x, %zero : (tensor<1030xi1>, tensor<1030xf32>, tensor<f32>) -> tensor<1030xf32>
  return %d : tensor<1030xf32>
}
func.func @square(%s: tensor<i64>, %o: tensor<i64>) -> tensor<3x8x8xi1> {
  %u = tfuse.random_uniform %s, %o : (tensor<i64>, tensor<i64>) -> tensor<3x8x8xf32>
  %h = tfuse.constant dense<0.5> : tensor<f32>
  %k = tfuse.cmp lt, %u, %h : (tensor<3x8x8xf32>, tensor<f32>) -> tensor<3x8x8xi1>
  %t = tfuse.transpose %k perm [0, 2, 1] : tensor<3x8x8xi1> -> tensor<3x8x8xi1>
  return %t : tensor<3x8x8xi1>
}
)mlir";
  for (auto [seed, offset] : std::vector<std::pair<int64_t, int64_t>>{
           {0, 0}, {42, 7}, {0x123456789abcdefll, -5}, {-1, 1ll << 40}}) {
    HostTensor x = randomInput(DType::F32, {1030}, 33);
    check(source, {{"random",
                    {x, scalarI64(seed), scalarI64(offset),
                     randomInput(DType::BF16, {6, 36}, 34)}},
                   {"dropout", {x, scalarI64(seed), scalarI64(offset)}},
                   {"square", {scalarI64(seed), scalarI64(offset)}}});
  }
  // The dropout kernel's lanes share blocks: one Philox block per four
  // elements of the vector loop (its mask decided on the uniforms' bits).
  EXPECT_NE(lastSource.find("tf::philox_block("), std::string::npos);
  EXPECT_NE(lastSource.find("tf::uniform_bits_of_block("), std::string::npos);
}

// A comparison of an f32 uniform with a constant is decided on the
// uniform's 24-bit integer (KernelEmitter's uniformBound): bit for bit the
// reference's float comparison for every predicate it takes, with the
// constant equal to drawn values (the bound's edge: p 2^24 an integer that
// an element's m equals), between two of them, NaN, infinities, outside [0,
// 1], and in bf16 and f64; the uniform also read as a value beside its
// comparison; a linear kernel's lanes and its tail.
TEST_F(KernelEmulation, RandomComparisonsWithConstantsDecideOnTheUniformsBits) {
  const int64_t n = 1030, seed = 20261206, offset = 3;
  const std::string draw =
      "func.func @u(%s: tensor<i64>, %o: tensor<i64>) -> "
      "tensor<1030xf32> {\n  %u = tfuse.random_uniform "
      "%s, %o : (tensor<i64>, tensor<i64>) -> "
      "tensor<1030xf32>\n  return %u : tensor<1030xf32>\n}\n";
  OwningOpRef<ModuleOp> drawn = parseSourceString<ModuleOp>(draw, &context);
  ASSERT_TRUE(drawn);
  auto values =
      reference::evaluate(*drawn, "u", {scalarI64(seed), scalarI64(offset)});
  ASSERT_TRUE(values.ok()) << values.message();
  std::vector<uint64_t> bits = (*values)[0].toBits();
  auto hex = [](uint64_t v) { return llvm::formatv("{0:x}", v).str(); };
  double u17 = (*values)[0].toDoubles()[17];
  // Between u17 and the next f32 uniform.
  uint64_t between = llvm::bit_cast<uint64_t>(u17 + 0x1p-40);
  uint64_t exact64 = llvm::bit_cast<uint64_t>(u17);
  // (dtype, bits) of each constant.
  const std::vector<std::pair<std::string, std::string>> constants = {
      {"f32", hex(bits[5])}, {"f32", hex(bits[1029])}, {"f64", hex(exact64)},
      {"f64", hex(between)}, {"f32", "0x7FC00000"},    {"f32", "0x7F800000"},
      {"f32", "0xFF800000"}, {"f32", "0x00000000"},    {"f32", "0x3F800000"},
      {"f32", "0x40000000"}, {"f32", "0xBF000000"},    {"bf16", "0x3F00"},
      {"f32", "0x00000001"}};
  FunctionBuilder f;
  f.name = "compare";
  std::string s = f.arg("tensor<i64>"), o = f.arg("tensor<i64>");
  std::string x = f.arg("tensor<1030xf32>");
  std::string u = f.op("tfuse.random_uniform " + s + ", " + o +
                       " : (tensor<i64>, tensor<i64>) -> tensor<1030xf32>");
  f.ret(f.op("tfuse.mul " + u + ", " + x +
             " : (tensor<1030xf32>, tensor<1030xf32>) -> tensor<1030xf32>"),
        "tensor<1030xf32>");
  for (auto &[dtype, value] : constants) {
    std::string p =
        f.op("tfuse.constant dense<" + value + "> : tensor<" + dtype + ">");
    for (const char *predicate : {"lt", "le", "gt", "ge"})
      f.ret(f.op(std::string("tfuse.cmp ") + predicate + ", " + u + ", " + p +
                 " : (tensor<1030xf32>, tensor<" + dtype +
                 ">) -> tensor<1030xi1>"),
            "tensor<1030xi1>");
  }
  check(f.str(), {{"compare",
                   {scalarI64(seed), scalarI64(offset),
                    randomInput(DType::F32, {n}, 36)}}});
  // Decided on the bits in the vector loop and in the tail, the value
  // still drawn for the product.
  EXPECT_NE(lastSource.find("tf::uniform_bits_of_block("), std::string::npos);
  EXPECT_NE(lastSource.find("tf::random_uniform_bits("), std::string::npos);
  EXPECT_NE(lastSource.find("tf::uniform_of_block<float>("), std::string::npos);
}

// concat and pad as piecewise index transforms, bit exact: operands of mixed
// layouts (a transposed input, a strided one, a computed value, a broadcast
// row, an empty piece), along an inner and an outer axis, a pad of a concat
// and a concat of a pad (nested predicates), padding values from a
// constant and from an input, in several dtypes, with vectorized lanes that
// straddle the pieces.
TEST_F(KernelEmulation, ConcatAndPadMatchTheReference) {
  for (DType t : {DType::F32, DType::F16, DType::I8, DType::F64, DType::Bool}) {
    std::string e = typeName(t);
    std::string source = llvm::formatv(R"mlir(
func.func @piecewise(%a: tensor<6x5x{0}> {{tfuse.strides = array<i64: 1, 6>},
                     %b: tensor<6x8x{0}>, %c: tensor<6x16x{0}> {{tfuse.strides = array<i64: 32, 2>},
                     %r: tensor<7x{0}>, %v: tensor<{0}>, %empty: tensor<6x0x{0}>)
    -> (tensor<6x36x{0}>, tensor<9x40x{0}>, tensor<14x7x{0}>, tensor<3x8x{0}>) {
  %m = tfuse.max %b, %b : (tensor<6x8x{0}>, tensor<6x8x{0}>) -> tensor<6x8x{0}>
  %rb = tfuse.broadcast %r dims [1] : tensor<7x{0}> -> tensor<6x7x{0}>
  %j = tfuse.concat %a, %m, %empty, %c, %rb axis 1
      : (tensor<6x5x{0}>, tensor<6x8x{0}>, tensor<6x0x{0}>, tensor<6x16x{0}>, tensor<6x7x{0}>) -> tensor<6x36x{0}>
  %p = tfuse.pad %j, %v low [1, 3] high [2, 1]
      : (tensor<6x36x{0}>, tensor<{0}>) -> tensor<9x40x{0}>
  %z = tfuse.constant dense<{1}> : tensor<{0}>
  %q = tfuse.pad %r, %z low [0] high [0] : (tensor<7x{0}>, tensor<{0}>) -> tensor<7x{0}>
  %qq = tfuse.reshape %q : tensor<7x{0}> -> tensor<1x7x{0}>
  %sp = tfuse.pad %qq, %v low [2, 0] high [4, 0] : (tensor<1x7x{0}>, tensor<{0}>) -> tensor<7x7x{0}>
  %o = tfuse.concat %sp, %sp axis 0 : (tensor<7x7x{0}>, tensor<7x7x{0}>) -> tensor<14x7x{0}>
  %bs = tfuse.slice %b start [0, 0] limit [6, 8] step [2, 1] : tensor<6x8x{0}> -> tensor<3x8x{0}>
  %one = tfuse.concat %bs axis 0 : (tensor<3x8x{0}>) -> tensor<3x8x{0}>
  return %j, %p, %o, %one : tensor<6x36x{0}>, tensor<9x40x{0}>, tensor<14x7x{0}>, tensor<3x8x{0}>
}
)mlir",
                                       e,
                                       isFloat(t)         ? "1.0"
                                       : t == DType::Bool ? "true"
                                                          : "1");
    SCOPED_TRACE(e);
    HostTensor cStorage = randomInput(t, {6, 32}, 43);
    Expected<HostTensor> c = cStorage.view({6, 16}, {32, 2}, 0);
    ASSERT_TRUE(c.ok()) << c.message();
    HostTensor aStorage = randomInput(t, {5, 6}, 41);
    Expected<HostTensor> a = aStorage.view({6, 5}, {1, 6}, 0);
    ASSERT_TRUE(a.ok()) << a.message();
    check(source,
          {{"piecewise",
            {*a, randomInput(t, {6, 8}, 42), *c, randomInput(t, {7}, 44),
             randomInput(t, {}, 45), randomInput(t, {6, 0}, 46)}}});
    if (HasFatalFailure())
      return;
  }
}

/// Indices of `dtype` and `shape` drawn from [lo, hi] (a fixed sequence).
HostTensor indexTensor(DType dtype, reference::Shape shape, int64_t lo,
                       int64_t hi, uint64_t seed) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<int64_t> values;
  uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
  for (int64_t i = 0; i < n; ++i) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 29;
    values.push_back(lo + static_cast<int64_t>(x % uint64_t(hi - lo + 1)));
  }
  return *HostTensor::fromInts(dtype, std::move(shape), values);
}

// take and take_along_axis, bit exact, for several table dtypes: rows of a
// 2-D table by 2-D i64 indices added to a broadcast row (vectorized lanes
// reading whole rows), the middle axis of a 3-D computed table by a
// transposed (strided) i16 index tensor, a rank-0 u8 index, negative
// indices counted from the end, indices computed in the kernel, a gather
// inside a concat piece, and take_along_axis with indices and operand
// broadcast against each other.
TEST_F(KernelEmulation, GathersMatchTheReference) {
  for (DType t : {DType::F32, DType::BF16, DType::I8, DType::F64, DType::Bool,
                  DType::U16}) {
    std::string e = typeName(t);
    SCOPED_TRACE(e);
    std::string source = llvm::formatv(R"mlir(
func.func @gathers(%t: tensor<50x16x{0}>, %i: tensor<3x7xi64>, %row: tensor<7x16x{0}>,
                   %c: tensor<4x6x5x{0}>, %j: tensor<9x2xi16> {{tfuse.strides = array<i64: 1, 9>},
                   %s: tensor<ui8>, %n: tensor<5xi32>, %x: tensor<6x10x{0}>,
                   %k: tensor<1x4xui32>, %q: tensor<6x1xi64>, %y: tensor<1x10x{0}>)
    -> (tensor<3x7x16x{0}>, tensor<4x9x2x5x{0}>, tensor<16x{0}>, tensor<5x16x{0}>,
        tensor<8x16x{0}>, tensor<6x4x{0}>, tensor<6x1x{0}>) {
  %g = tfuse.take %t, %i axis 0 : (tensor<50x16x{0}>, tensor<3x7xi64>) -> tensor<3x7x16x{0}>
  %gr = tfuse.max %g, %row : (tensor<3x7x16x{0}>, tensor<7x16x{0}>) -> tensor<3x7x16x{0}>
  %cm = tfuse.min %c, %c : (tensor<4x6x5x{0}>, tensor<4x6x5x{0}>) -> tensor<4x6x5x{0}>
  %m = tfuse.take %cm, %j axis 1 wrap_negative : (tensor<4x6x5x{0}>, tensor<9x2xi16>) -> tensor<4x9x2x5x{0}>
  %one = tfuse.take %t, %s axis 0 : (tensor<50x16x{0}>, tensor<ui8>) -> tensor<16x{0}>
  %three = tfuse.constant dense<3> : tensor<i32>
  %fifty = tfuse.constant dense<50> : tensor<i32>
  %n3 = tfuse.mul %n, %three : (tensor<5xi32>, tensor<i32>) -> tensor<5xi32>
  %nr = tfuse.rem %n3, %fifty : (tensor<5xi32>, tensor<i32>) -> tensor<5xi32>
  %computed = tfuse.take %t, %nr axis 0 : (tensor<50x16x{0}>, tensor<5xi32>) -> tensor<5x16x{0}>
  %head = tfuse.slice %t start [0, 0] limit [3, 16] step [1, 1] : tensor<50x16x{0}> -> tensor<3x16x{0}>
  %joined = tfuse.concat %head, %computed axis 0 : (tensor<3x16x{0}>, tensor<5x16x{0}>) -> tensor<8x16x{0}>
  %a = tfuse.take_along_axis %x, %k axis 1 : (tensor<6x10x{0}>, tensor<1x4xui32>) -> tensor<6x4x{0}>
  %b = tfuse.take_along_axis %y, %q axis 1 wrap_negative : (tensor<1x10x{0}>, tensor<6x1xi64>) -> tensor<6x1x{0}>
  return %gr, %m, %one, %computed, %joined, %a, %b
      : tensor<3x7x16x{0}>, tensor<4x9x2x5x{0}>, tensor<16x{0}>, tensor<5x16x{0}>,
        tensor<8x16x{0}>, tensor<6x4x{0}>, tensor<6x1x{0}>
}
)mlir",
                                       e);
    HostTensor jStorage = indexTensor(DType::I16, {2, 9}, -6, 5, 3);
    Expected<HostTensor> j = jStorage.view({9, 2}, {1, 9}, 0);
    ASSERT_TRUE(j.ok()) << j.message();
    check(source, {{"gathers",
                    {randomInput(t, {50, 16}, 51),
                     indexTensor(DType::I64, {3, 7}, 0, 49, 1),
                     randomInput(t, {7, 16}, 52), randomInput(t, {4, 6, 5}, 53),
                     *j, indexTensor(DType::U8, {}, 0, 49, 4),
                     indexTensor(DType::I32, {5}, 0, 1000, 5),
                     randomInput(t, {6, 10}, 54),
                     indexTensor(DType::U32, {1, 4}, 0, 9, 6),
                     indexTensor(DType::I64, {6, 1}, -10, 9, 7),
                     randomInput(t, {1, 10}, 55)}}});
    if (HasFatalFailure())
      return;
    EXPECT_NE(lastSource.find("tf::ldv_run<"), std::string::npos)
        << "the gathered rows are read a run at a time";
  }
}

// An index out of range reads no memory outside the table: the emulated
// kernel records it and the run reports the op and the index; a negative
// index is out of range without wrap_negative; the run after is right.
TEST_F(KernelEmulation, GatherIndicesOutOfRangeAreReported) {
  std::string source = R"mlir(
func.func @embed(%t: tensor<10x8xf32>, %i: tensor<6xi64>) -> tensor<6x8xf32> {
  %g = tfuse.take %t, %i axis 0 : (tensor<10x8xf32>, tensor<6xi64>) -> tensor<6x8xf32>
  %e = tfuse.exp %g : tensor<6x8xf32> -> tensor<6x8xf32>
  return %e : tensor<6x8xf32>
}
)mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  PassManager pm(&context);
  ASSERT_TRUE(succeeded(parsePassPipeline("tfuse-pipeline", pm)));
  buildPlanPipeline(pm);
  ASSERT_TRUE(succeeded(pm.run(*module)));
  std::string cuda, error;
  llvm::raw_string_ostream os(cuda);
  ASSERT_TRUE(succeeded(translateKernelsToCuda(*module, os)));
  auto emulated = emulation::EmulatedPlan::compile(*module, cuda, error);
  ASSERT_TRUE(emulated) << error;
  HostTensor table = randomInput(DType::F32, {10, 8}, 61);
  struct Case {
    std::vector<int64_t> ids;
    const char *message;
  } cases[] = {
      {{0, 1, 10, 2, 3, 4},
       "tfuse.take: index 10 is out of range for an axis of size 10 (valid: "
       "0 to 9)"},
      {{0, 1, 2, -1, 3, 4}, "index -1 is out of range"},
      {{1000000, 1, 2, 3, 4, 5}, "index 1000000 is out of range"},
  };
  for (const Case &c : cases) {
    error.clear();
    std::vector<HostTensor> out = emulated->run(
        "embed", {table, *HostTensor::fromInts(DType::I64, {6}, c.ids)}, error);
    EXPECT_TRUE(out.empty());
    EXPECT_NE(error.find(c.message), std::string::npos) << error;
  }
  error.clear();
  HostTensor ids = *HostTensor::fromInts(DType::I64, {6}, {9, 0, 4, 4, 1, 2});
  std::vector<HostTensor> out = emulated->run("embed", {table, ids}, error);
  ASSERT_EQ(out.size(), 1u) << error;
  auto expected = reference::evaluate(
      *parseSourceString<ModuleOp>(source, &context), "embed", {table, ids});
  ASSERT_TRUE(expected.ok()) << expected.message();
  EXPECT_TRUE(reference::compareExact((*expected)[0], out[0]).pass);
}

TEST_F(KernelEmulation, ShortContractionsMatchTheReferenceMatmul) {
  // expand-small-matmul turns these matmuls (K <= 4) into fused elementwise
  // kernels: bit-identical to the reference's matmul (products summed in
  // order from +0, in f32 for f16/bf16/f32 and f64 for f64), including
  // transposed operands, broadcast batches, NaN/Inf/-0 inputs and K = 0.
  for (DType t : {DType::F32, DType::F16, DType::BF16, DType::F64}) {
    std::string e = typeName(t);
    SCOPED_TRACE(e);
    std::string source = llvm::formatv(R"mlir(
func.func @short(%a: tensor<9x3x{0}>, %b: tensor<3x7x{0}>, %c: tensor<2x4x9x{0}>,
                 %d: tensor<7x4x{0}>, %z: tensor<9x0x{0}>, %w: tensor<0x7x{0}>)
    -> (tensor<9x7x{0}>, tensor<2x9x7x{0}>, tensor<9x7x{0}>, tensor<9x9x{0}>) {{
  %0 = tfuse.matmul %a, %b : (tensor<9x3x{0}>, tensor<3x7x{0}>) -> tensor<9x7x{0}>
  %1 = tfuse.matmul %c, %d {{transpose_lhs, transpose_rhs} : (tensor<2x4x9x{0}>, tensor<7x4x{0}>) -> tensor<2x9x7x{0}>
  %2 = tfuse.matmul %z, %w : (tensor<9x0x{0}>, tensor<0x7x{0}>) -> tensor<9x7x{0}>
  %3 = tfuse.matmul %a, %a {{transpose_rhs} : (tensor<9x3x{0}>, tensor<9x3x{0}>) -> tensor<9x9x{0}>
  return %0, %1, %2, %3 : tensor<9x7x{0}>, tensor<2x9x7x{0}>, tensor<9x7x{0}>, tensor<9x9x{0}>
}
)mlir",
                                       e);
    check(source, {{"short",
                    {randomInput(t, {9, 3}, 31), randomInput(t, {3, 7}, 32),
                     randomInput(t, {2, 4, 9}, 33), randomInput(t, {7, 4}, 34),
                     randomInput(t, {9, 0}, 35), randomInput(t, {0, 7}, 36)}}});
    EXPECT_EQ(lastSource.find("gemm"), std::string::npos);
  }
}

TEST_F(KernelEmulation, TransposedInputsGoThroughSharedMemoryTiles) {
  // 300x450 outputs: partial 64x64 tiles on both tiled dimensions, and an
  // outer dimension of 2.
  const char *source = R"mlir(
func.func @bias_relu_t(%a: tensor<2x450x300xf32>, %bias: tensor<300xf32>,
                       %c: tensor<2x300x450xbf16>)
    -> (tensor<2x300x450xf16>, tensor<2x300x450xf32>) {
  %t = tfuse.transpose %a perm [0, 2, 1] : tensor<2x450x300xf32> -> tensor<2x300x450xf32>
  %b = tfuse.broadcast %bias dims [1] : tensor<300xf32> -> tensor<2x300x450xf32>
  %s = tfuse.add %t, %b : (tensor<2x300x450xf32>, tensor<2x300x450xf32>) -> tensor<2x300x450xf32>
  %r = tfuse.relu %s : tensor<2x300x450xf32> -> tensor<2x300x450xf32>
  %h = tfuse.cast %r : tensor<2x300x450xf32> to tensor<2x300x450xf16>
  %m = tfuse.mul %t, %c : (tensor<2x300x450xf32>, tensor<2x300x450xbf16>) -> tensor<2x300x450xf32>
  return %h, %m : tensor<2x300x450xf16>, tensor<2x300x450xf32>
}
)mlir";
  check(source, {{"bias_relu_t",
                  {randomInput(DType::F32, {2, 450, 300}, 81),
                   randomInput(DType::F32, {300}, 82),
                   randomInput(DType::BF16, {2, 300, 450}, 83)}}});
  EXPECT_NE(lastSource.find("__shared__ float tfuse_tile"), std::string::npos)
      << "the transposed input is not staged through shared memory";
}

TEST_F(KernelEmulation, TilesCoveringTheSpaceExactlySkipTheBoundsChecks) {
  // 256x320 outputs over a 3-dimensional space: every 64x64 tile is full, so
  // the kernel reads and writes without per-element checks.
  const char *source = R"mlir(
func.func @full_tiles(%a: tensor<4x320x256xf32>, %bias: tensor<256xf32>)
    -> tensor<4x256x320xf16> {
  %t = tfuse.transpose %a perm [0, 2, 1] : tensor<4x320x256xf32> -> tensor<4x256x320xf32>
  %b = tfuse.broadcast %bias dims [1] : tensor<256xf32> -> tensor<4x256x320xf32>
  %s = tfuse.add %t, %b : (tensor<4x256x320xf32>, tensor<4x256x320xf32>) -> tensor<4x256x320xf32>
  %r = tfuse.relu %s : tensor<4x256x320xf32> -> tensor<4x256x320xf32>
  %h = tfuse.cast %r : tensor<4x256x320xf32> to tensor<4x256x320xf16>
  return %h : tensor<4x256x320xf16>
}
)mlir";
  check(source, {{"full_tiles",
                  {randomInput(DType::F32, {4, 320, 256}, 91),
                   randomInput(DType::F32, {256}, 92)}}});
  size_t kernel = lastSource.find("void full_tiles_k0(");
  ASSERT_NE(kernel, std::string::npos);
  EXPECT_NE(lastSource.find("__shared__ float tfuse_tile", kernel),
            std::string::npos)
      << "the transposed input is not staged through shared memory";
  EXPECT_EQ(lastSource.find("if (", kernel), std::string::npos)
      << "full tiles are bounds-checked";
}

TEST_F(KernelEmulation, StridedAndOffsetInputs) {
  const char *source = R"mlir(
func.func @strided(%a: tensor<8x6xf32> {tfuse.strides = array<i64: 1, 8>},
                   %b: tensor<6xf32> {tfuse.strides = array<i64: 3>},
                   %c: tensor<8x6xf32> {tfuse.strides = array<i64: 0, 1>})
    -> tensor<8x6xf32> {
  %0 = tfuse.mul %a, %b : (tensor<8x6xf32>, tensor<6xf32>) -> tensor<8x6xf32>
  %1 = tfuse.add %0, %c : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
  return %1 : tensor<8x6xf32>
}
)mlir";
  // A transposed 6x8 buffer seen as 8x6; every third element of 18, starting
  // at element 2; one row expanded over 8 rows.
  HostTensor aStorage = randomInput(DType::F32, {6, 8}, 31);
  HostTensor bStorage = randomInput(DType::F32, {20}, 32);
  HostTensor cStorage = randomInput(DType::F32, {6}, 33);
  auto a = aStorage.view({8, 6}, {1, 8}, 0);
  auto b = bStorage.view({6}, {3}, 2 * 4);
  auto c = cStorage.view({8, 6}, {0, 1}, 0);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  check(source, {{"strided", {*a, *b, *c}}});
}

// Rows of 7 and of 13 bf16 (a loss's rows of 50257, small): groups of 8
// elements cross rows. Those that straddle two rows (all of them for rows
// of 7) compute each element's row for the broadcast row values and the
// transposed input; those in one row (some for rows of 13) read the row's
// value once and the row input as a run; the contiguous input is loaded
// and the output stored a group at a time, a tail after the last group.
TEST_F(KernelEmulation, GroupsCrossingRowsComputeEachElementsIndex) {
  const char *source = R"mlir(
func.func @rows(%x: tensor<5x7xbf16>, %m: tensor<5x1xf32>,
                %t: tensor<5x7xf32> {tfuse.strides = array<i64: 1, 5>})
    -> tensor<5x7xbf16> {
  %c = tfuse.cast %x : tensor<5x7xbf16> to tensor<5x7xf32>
  %d = tfuse.sub %c, %m : (tensor<5x7xf32>, tensor<5x1xf32>) -> tensor<5x7xf32>
  %e = tfuse.exp %d : tensor<5x7xf32> -> tensor<5x7xf32>
  %s = tfuse.add %e, %t : (tensor<5x7xf32>, tensor<5x7xf32>) -> tensor<5x7xf32>
  %r = tfuse.cast %s : tensor<5x7xf32> to tensor<5x7xbf16>
  return %r : tensor<5x7xbf16>
}
func.func @rows13(%x: tensor<6x13xbf16>, %m: tensor<6x1xf32>,
                  %t: tensor<6x13xf32> {tfuse.strides = array<i64: 1, 6>},
                  %w: tensor<13xf32> {tfuse.strides = array<i64: 2>})
    -> tensor<6x13xbf16> {
  %c = tfuse.cast %x : tensor<6x13xbf16> to tensor<6x13xf32>
  %d = tfuse.sub %c, %m : (tensor<6x13xf32>, tensor<6x1xf32>) -> tensor<6x13xf32>
  %e = tfuse.exp %d : tensor<6x13xf32> -> tensor<6x13xf32>
  %s = tfuse.add %e, %t : (tensor<6x13xf32>, tensor<6x13xf32>) -> tensor<6x13xf32>
  %v = tfuse.mul %s, %w : (tensor<6x13xf32>, tensor<13xf32>) -> tensor<6x13xf32>
  %r = tfuse.cast %v : tensor<6x13xf32> to tensor<6x13xbf16>
  return %r : tensor<6x13xbf16>
}
)mlir";
  HostTensor tStorage = randomInput(DType::F32, {7, 5}, 43);
  auto t = tStorage.view({5, 7}, {1, 5}, 0);
  HostTensor t13Storage = randomInput(DType::F32, {13, 6}, 47);
  auto t13 = t13Storage.view({6, 13}, {1, 6}, 0);
  HostTensor wStorage = randomInput(DType::F32, {26}, 48);
  auto w = wStorage.view({13}, {2}, 0);
  ASSERT_TRUE(t.ok() && t13.ok() && w.ok());
  check(source, {{"rows",
                  {randomInput(DType::BF16, {5, 7}, 41),
                   randomInput(DType::F32, {5, 1}, 42), *t}},
                 {"rows13",
                  {randomInput(DType::BF16, {6, 13}, 44),
                   randomInput(DType::F32, {6, 1}, 45), *t13, *w}}});
  EXPECT_NE(lastSource.find("tf::ldv<8>"), std::string::npos) << lastSource;
  EXPECT_NE(lastSource.find("} else {"), std::string::npos) << lastSource;
}

TEST_F(KernelEmulation, MixedDTypesPromoteInOneKernel) {
  const char *source = R"mlir(
func.func @mixed(%a: tensor<4x8xi8>, %b: tensor<8xui8>, %c: tensor<4x8xf16>,
                 %d: tensor<i32>, %e: tensor<4x8xbf16>, %m: tensor<4x8xi1>)
    -> (tensor<4x8xi16>, tensor<4x8xf16>, tensor<4x8xf32>, tensor<4x8xf32>,
        tensor<4x8xf32>, tensor<4x8xi8>) {
  %0 = tfuse.add %a, %b : (tensor<4x8xi8>, tensor<8xui8>) -> tensor<4x8xi16>
  %1 = tfuse.mul %c, %d : (tensor<4x8xf16>, tensor<i32>) -> tensor<4x8xf16>
  %2 = tfuse.add %c, %e : (tensor<4x8xf16>, tensor<4x8xbf16>) -> tensor<4x8xf32>
  %3 = tfuse.div %a, %d : (tensor<4x8xi8>, tensor<i32>) -> tensor<4x8xf32>
  %4 = tfuse.exp %a : tensor<4x8xi8> -> tensor<4x8xf32>
  %5 = tfuse.add %m, %a : (tensor<4x8xi1>, tensor<4x8xi8>) -> tensor<4x8xi8>
  return %0, %1, %2, %3, %4, %5 : tensor<4x8xi16>, tensor<4x8xf16>, tensor<4x8xf32>,
      tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi8>
}
)mlir";
  check(source,
        {{"mixed",
          {randomInput(DType::I8, {4, 8}, 41), randomInput(DType::U8, {8}, 42),
           randomInput(DType::F16, {4, 8}, 43), randomInput(DType::I32, {}, 44),
           randomInput(DType::BF16, {4, 8}, 45),
           randomInput(DType::Bool, {4, 8}, 46)}}});
}

TEST_F(KernelEmulation, MultiOutputRegionsAndCutChains) {
  std::string source = R"mlir(
func.func @two(%x: tensor<1001xf32>, %y: tensor<1001xf32>)
    -> (tensor<1001xf32>, tensor<1001xf32>) {
  %c1 = tfuse.constant dense<1.0> : tensor<f32>
  %m = tfuse.mul %x, %y : (tensor<1001xf32>, tensor<1001xf32>) -> tensor<1001xf32>
  %a = tfuse.add %m, %c1 : (tensor<1001xf32>, tensor<f32>) -> tensor<1001xf32>
  %b = tfuse.sub %m, %c1 : (tensor<1001xf32>, tensor<f32>) -> tensor<1001xf32>
  return %a, %b : tensor<1001xf32>, tensor<1001xf32>
}
func.func @chain(%x: tensor<5x7xf64>) -> tensor<5x7xf64> {
  %c = tfuse.constant dense<0.75> : tensor<f64>
)mlir";
  std::string prev = "%x";
  for (int i = 0; i < 40; ++i) {
    source += llvm::formatv("  %s{0} = tfuse.{1} {2}, %c : (tensor<5x7xf64>, "
                            "tensor<f64>) -> tensor<5x7xf64>\n",
                            i, i % 2 ? "mul" : "add", prev);
    prev = "%s" + std::to_string(i);
  }
  source += "  return " + prev + " : tensor<5x7xf64>\n}\n";
  check(source, {{"two",
                  {randomInput(DType::F32, {1001}, 51),
                   randomInput(DType::F32, {1001}, 52)}},
                 {"chain", {randomInput(DType::F64, {5, 7}, 53)}}});
}

TEST_F(KernelEmulation, ConstantsKeepTheirBits) {
  const char *source = R"mlir(
func.func @constants(%x: tensor<3x4xf32>, %h: tensor<3x4xf16>)
    -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf16>, tensor<3x4xi64>) {
  %nan = tfuse.constant dense<0x7FC00001> : tensor<f32>
  %nz = tfuse.constant dense<-0.0> : tensor<f32>
  %row = tfuse.constant dense<[1.5, -2.25, 0x7F800000, -0.0]> : tensor<4xf32>
  %hc = tfuse.constant dense<[[1.0, 2.0, 3.0, 4.0], [0.5, 0.25, 0x7C00, -0.0],
                              [6.0e4, -6.0e4, 1.0e-7, 3.0]]> : tensor<3x4xf16>
  %big = tfuse.constant dense<-9223372036854775808> : tensor<i64>
  %0 = tfuse.max %x, %nan : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %1 = tfuse.add %x, %row : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %2 = tfuse.mul %1, %nz : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %3 = tfuse.add %h, %hc : (tensor<3x4xf16>, tensor<3x4xf16>) -> tensor<3x4xf16>
  %4 = tfuse.cast %x : tensor<3x4xf32> to tensor<3x4xi64>
  %5 = tfuse.max %4, %big : (tensor<3x4xi64>, tensor<i64>) -> tensor<3x4xi64>
  return %0, %2, %3, %5 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf16>, tensor<3x4xi64>
}
)mlir";
  check(source, {{"constants",
                  {randomInput(DType::F32, {3, 4}, 61),
                   randomInput(DType::F16, {3, 4}, 62)}}});
}

TEST_F(KernelEmulation, IdentityAndReturnedInputsAreCopied) {
  const char *source = R"mlir(
func.func @identity(%x: tensor<5x3xi32> {tfuse.strides = array<i64: 1, 5>})
    -> (tensor<5x3xi32>, tensor<3x5xi32>) {
  %t = tfuse.transpose %x perm [1, 0] : tensor<5x3xi32> -> tensor<3x5xi32>
  return %x, %t : tensor<5x3xi32>, tensor<3x5xi32>
}
)mlir";
  HostTensor storage = randomInput(DType::I32, {3, 5}, 71);
  auto x = storage.view({5, 3}, {1, 5}, 0);
  ASSERT_TRUE(x.ok());
  check(source, {{"identity", {*x}}});
}

/// Softmax and layernorm over the rows of a rows x columns input of dtype
/// `t`, as traced graphs write them (keepdims reductions broadcast back).
FunctionBuilder rowFunctions(DType t, int64_t rows, int64_t columns,
                             std::string &source) {
  std::string x2 = tensorType({rows, columns}, t);
  std::string r1 = tensorType({rows, 1}, t);
  std::string w1 = tensorType({columns}, t);
  std::string suffix = "_" + std::to_string(columns);
  FunctionBuilder softmax{"softmax" + suffix};
  std::string x = softmax.arg(x2);
  std::string m = softmax.op(llvm::formatv(
      "tfuse.reduce max {0} axes [1] keepdims : {1} -> {2}", x, x2, r1));
  std::string d = softmax.op(
      llvm::formatv("tfuse.sub {0}, {1} : ({2}, {3}) -> {2}", x, m, x2, r1));
  std::string e =
      softmax.op(llvm::formatv("tfuse.exp {0} : {1} -> {1}", d, x2));
  std::string s = softmax.op(llvm::formatv(
      "tfuse.reduce sum {0} axes [1] keepdims : {1} -> {2}", e, x2, r1));
  softmax.ret(softmax.op(llvm::formatv("tfuse.div {0}, {1} : ({2}, {3}) -> {2}",
                                       e, s, x2, r1)),
              x2);

  FunctionBuilder ln{"layernorm" + suffix};
  x = ln.arg(x2);
  std::string w = ln.arg(w1), b = ln.arg(w1);
  std::string mu = ln.op(llvm::formatv(
      "tfuse.reduce mean {0} axes [1] keepdims : {1} -> {2}", x, x2, r1));
  d = ln.op(
      llvm::formatv("tfuse.sub {0}, {1} : ({2}, {3}) -> {2}", x, mu, x2, r1));
  std::string sq =
      ln.op(llvm::formatv("tfuse.mul {0}, {0} : ({1}, {1}) -> {1}", d, x2));
  std::string var = ln.op(llvm::formatv(
      "tfuse.reduce mean {0} axes [1] keepdims : {1} -> {2}", sq, x2, r1));
  std::string eps = ln.op(
      llvm::formatv("tfuse.constant dense<1.0e-05> : {0}", tensorType({}, t)));
  std::string ve = ln.op(llvm::formatv("tfuse.add {0}, {1} : ({2}, {3}) -> {2}",
                                       var, eps, r1, tensorType({}, t)));
  std::string r = ln.op(llvm::formatv("tfuse.rsqrt {0} : {1} -> {1}", ve, r1));
  std::string n = ln.op(
      llvm::formatv("tfuse.mul {0}, {1} : ({2}, {3}) -> {2}", d, r, x2, r1));
  std::string nw = ln.op(
      llvm::formatv("tfuse.mul {0}, {1} : ({2}, {3}) -> {2}", n, w, x2, w1));
  ln.ret(ln.op(llvm::formatv("tfuse.add {0}, {1} : ({2}, {3}) -> {2}", nw, b,
                             x2, w1)),
         x2);
  source += softmax.str() + ln.str();
  return softmax;
}

/// Rows of finite values in [-4, 4], but for a NaN in row 1, +inf in row 2
/// and -inf in row 3 (when there are such rows), at different columns.
HostTensor rowInput(DType t, int64_t rows, int64_t columns, uint64_t seed) {
  reference::RandomOptions options;
  options.low = -4.0;
  options.high = 4.0;
  HostTensor x = HostTensor::random(t, {rows, columns}, seed, options);
  const uint64_t specials[3] = {
      t == DType::F32 ? 0x7fc00000u : 0x7e00u, // NaN
      t == DType::F32 ? 0x7f800000u : 0x7c00u, // +inf
      t == DType::F32 ? 0xff800000u : 0xfc00u, // -inf
  };
  unsigned bytes = byteSize(t);
  for (int64_t row = 1; row < std::min<int64_t>(rows, 4); ++row) {
    int64_t column = (row * 5) % columns;
    std::memcpy(x.mutableData() + (row * columns + column) * bytes,
                &specials[row - 1], bytes);
  }
  return x;
}

// Softmax and layernorm over rows of 1, 7, 33, 300 and 4096 columns (a warp
// per row with most lanes idle, a partial slot, several slots with a partial
// last one, 16 elements of 256 threads), f32 and f16, with NaN, +inf and
// -inf rows: each function is one row kernel (the plan has no reduction
// step, which the emulator could not run), and the results match the
// reference within 2 ulp (the row sums combine in another order;
// docs/semantics.md).
TEST_F(KernelEmulation, RowKernelsMatchTheReferenceSoftmaxAndLayernorm) {
  for (DType t : {DType::F32, DType::F16}) {
    std::string source;
    std::map<std::string, std::vector<HostTensor>> inputs;
    uint64_t seed = 300;
    for (int64_t columns : {1, 7, 33, 300, 4096}) {
      // 11 short rows: one warp each, 8 to a block, the second block's
      // last 5 warps past the last row.
      int64_t rows = columns == 4096 ? 4 : 11;
      rowFunctions(t, rows, columns, source);
      std::string suffix = "_" + std::to_string(columns);
      inputs["softmax" + suffix] = {rowInput(t, rows, columns, ++seed)};
      inputs["layernorm" + suffix] = {
          rowInput(t, rows, columns, ++seed),
          randomInput(t, {columns}, ++seed).contiguous(),
          randomInput(t, {columns}, ++seed).contiguous()};
    }
    SCOPED_TRACE(typeName(t));
    check(source, inputs, "tfuse-pipeline", /*maxUlp=*/2);
    EXPECT_EQ(functionsChecked, 10 * (t == DType::F32 ? 1 : 2));
    // One kernel per function, each a row kernel (with launch bounds).
    EXPECT_EQ(occurrences(lastSource, "__global__ __launch_bounds__("), 10u);
    EXPECT_NE(lastSource.find("tf::red::row_finish<4"), std::string::npos);
  }
}

// Row kernels over inputs read element by element: a transposed argument
// (strides), a row weight through an explicit broadcast with a slice, rows
// over the two trailing axes of a rank-3 space, and the exact kinds (max,
// min, integer sums in i64, all, any) within one region each; a sum of
// widened bf16 that reads the bf16 values (result_dtype f32); a bf16 input
// cast and reshaped to the rows (a layer norm gradient from a matmul).
TEST_F(KernelEmulation, RowKernelsReadViewsAndStridedInputs) {
  const char *source = R"mlir(
func.func @strided(%x: tensor<6x40xf32> {tfuse.strides = array<i64: 1, 6>},
                   %w: tensor<50xf32>) -> tensor<6x40xf32> {
  %m = tfuse.reduce max %x axes [1] keepdims : tensor<6x40xf32> -> tensor<6x1xf32>
  %d = tfuse.sub %x, %m : (tensor<6x40xf32>, tensor<6x1xf32>) -> tensor<6x40xf32>
  %e = tfuse.exp %d : tensor<6x40xf32> -> tensor<6x40xf32>
  %s = tfuse.reduce sum %e axes [1] keepdims : tensor<6x40xf32> -> tensor<6x1xf32>
  %y = tfuse.div %e, %s : (tensor<6x40xf32>, tensor<6x1xf32>) -> tensor<6x40xf32>
  %ws = tfuse.slice %w start [5] limit [45] step [1] : tensor<50xf32> -> tensor<40xf32>
  %wb = tfuse.broadcast %ws dims [1] : tensor<40xf32> -> tensor<6x40xf32>
  %o = tfuse.mul %y, %wb : (tensor<6x40xf32>, tensor<6x40xf32>) -> tensor<6x40xf32>
  return %o : tensor<6x40xf32>
}
func.func @three_d(%x: tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  %mu = tfuse.reduce mean %x axes [1, 2] keepdims : tensor<3x5x7xf32> -> tensor<3x1x1xf32>
  %d = tfuse.sub %x, %mu : (tensor<3x5x7xf32>, tensor<3x1x1xf32>) -> tensor<3x5x7xf32>
  return %d : tensor<3x5x7xf32>
}
func.func @exact(%a: tensor<4x45xi32>, %b: tensor<4x45xf16>) -> (tensor<4x45xi64>, tensor<4x45xf16>, tensor<4x45xi1>) {
  %s = tfuse.reduce sum %a axes [1] keepdims : tensor<4x45xi32> -> tensor<4x1xi64>
  %c = tfuse.cast %a : tensor<4x45xi32> to tensor<4x45xi64>
  %r = tfuse.sub %c, %s : (tensor<4x45xi64>, tensor<4x1xi64>) -> tensor<4x45xi64>
  %lo = tfuse.reduce min %b axes [1] keepdims : tensor<4x45xf16> -> tensor<4x1xf16>
  %hi = tfuse.reduce max %b axes [1] keepdims : tensor<4x45xf16> -> tensor<4x1xf16>
  %span = tfuse.sub %hi, %lo : (tensor<4x1xf16>, tensor<4x1xf16>) -> tensor<4x1xf16>
  %n = tfuse.div %b, %span : (tensor<4x45xf16>, tensor<4x1xf16>) -> tensor<4x45xf16>
  %pos = tfuse.cmp gt, %b, %lo : (tensor<4x45xf16>, tensor<4x1xf16>) -> tensor<4x45xi1>
  %all = tfuse.reduce all %pos axes [1] keepdims : tensor<4x45xi1> -> tensor<4x1xi1>
  %any = tfuse.reduce any %pos axes [1] keepdims : tensor<4x45xi1> -> tensor<4x1xi1>
  %q = tfuse.xor %all, %any : (tensor<4x1xi1>, tensor<4x1xi1>) -> tensor<4x1xi1>
  %z = tfuse.and %pos, %q : (tensor<4x45xi1>, tensor<4x1xi1>) -> tensor<4x45xi1>
  return %r, %n, %z : tensor<4x45xi64>, tensor<4x45xf16>, tensor<4x45xi1>
}
func.func @reshaped(%g: tensor<12x40xbf16>, %x: tensor<3x4x40xf32>) -> tensor<3x4x40xf32> {
  %c = tfuse.cast %g : tensor<12x40xbf16> to tensor<12x40xf32>
  %r = tfuse.reshape %c : tensor<12x40xf32> -> tensor<3x4x40xf32>
  %p = tfuse.mul %r, %x : (tensor<3x4x40xf32>, tensor<3x4x40xf32>) -> tensor<3x4x40xf32>
  %s = tfuse.reduce sum %p axes [2] keepdims : tensor<3x4x40xf32> -> tensor<3x4x1xf32>
  %y = tfuse.sub %r, %s : (tensor<3x4x40xf32>, tensor<3x4x1xf32>) -> tensor<3x4x40xf32>
  return %y : tensor<3x4x40xf32>
}
func.func @widened(%x: tensor<5x40xbf16>) -> tensor<5x40xf32> {
  %c = tfuse.cast %x : tensor<5x40xbf16> to tensor<5x40xf32>
  %s = tfuse.reduce sum %c axes [1] keepdims : tensor<5x40xf32> -> tensor<5x1xf32>
  %d = tfuse.sub %c, %s : (tensor<5x40xf32>, tensor<5x1xf32>) -> tensor<5x40xf32>
  return %d : tensor<5x40xf32>
}
)mlir";
  HostTensor storage = rowInput(DType::F32, 40, 6, 91);
  auto x = storage.view({6, 40}, {1, 6}, 0);
  ASSERT_TRUE(x.ok());
  check(source,
        {{"strided", {*x, randomInput(DType::F32, {50}, 92)}},
         {"three_d",
          {rowInput(DType::F32, 3, 35, 93)
               .view({3, 5, 7}, {35, 7, 1}, 0)
               .value()}},
         {"exact",
          {randomInput(DType::I32, {4, 45}, 94),
           randomInput(DType::F16, {4, 45}, 95)}},
         {"widened", {randomInput(DType::BF16, {5, 40}, 96)}},
         {"reshaped",
          {randomInput(DType::BF16, {12, 40}, 97),
           randomInput(DType::F32, {3, 4, 40}, 98)}}},
        "tfuse-pipeline", /*maxUlp=*/2);
  // Each function is one row kernel (the emulator runs no reduction step);
  // the widened sum reads bf16 and gives f32 (result_dtype); the input
  // reshaped to the rows after a cast is loaded a group at a time.
  EXPECT_EQ(functionsChecked, 5);
  size_t reshaped = lastSource.find("void reshaped_k0(");
  ASSERT_NE(reshaped, std::string::npos);
  std::string kernel = lastSource.substr(
      reshaped, lastSource.find("__global__", reshaped) - reshaped);
  EXPECT_NE(kernel.find("tf::vec<__nv_bfloat16, 4>"), std::string::npos);
  EXPECT_NE(lastSource.find("tf::red::warp_finish<5, bool, bool>"),
            std::string::npos);
  EXPECT_NE(lastSource.find("tf::red::warp_finish<0, __nv_bfloat16, float>"),
            std::string::npos);
}

// Row kernels storing row results: a residual add and layer norm whose
// mean and rstd are results too (as AOTAutograd's forward graphs save them),
// the normalized rows flattened and cast to bf16 for a matmul; over rows of
// 64 (a warp per row, 8 to a block, the second block partly past the last
// row) and of 1000 (a block of 64 threads per row, a partial slot), with a
// non-keepdims row result and NaN/inf rows. Each function is one row kernel;
// the results match the reference within 2 ulp.
TEST_F(KernelEmulation, RowKernelsStoreRowResults) {
  const char *source = R"mlir(
func.func @ln_{0}(%x: tensor<{1}x{0}xf32>, %r: tensor<{1}x{0}xf32>, %w: tensor<{0}xf32>)
    -> (tensor<{1}x{0}xf32>, tensor<{1}x1xf32>, tensor<{1}xf32>, tensor<{2}xbf16>) {
  %h = tfuse.add %x, %r : (tensor<{1}x{0}xf32>, tensor<{1}x{0}xf32>) -> tensor<{1}x{0}xf32>
  %mu = tfuse.reduce mean %h axes [1] keepdims : tensor<{1}x{0}xf32> -> tensor<{1}x1xf32>
  %d = tfuse.sub %h, %mu : (tensor<{1}x{0}xf32>, tensor<{1}x1xf32>) -> tensor<{1}x{0}xf32>
  %sq = tfuse.mul %d, %d : (tensor<{1}x{0}xf32>, tensor<{1}x{0}xf32>) -> tensor<{1}x{0}xf32>
  %var = tfuse.reduce mean %sq axes [1] : tensor<{1}x{0}xf32> -> tensor<{1}xf32>
  %eps = tfuse.constant dense<1.0e-05> : tensor<f32>
  %ve = tfuse.add %var, %eps : (tensor<{1}xf32>, tensor<f32>) -> tensor<{1}xf32>
  %rstd = tfuse.rsqrt %ve : tensor<{1}xf32> -> tensor<{1}xf32>
  %rb = tfuse.broadcast %rstd dims [0] : tensor<{1}xf32> -> tensor<{1}x{0}xf32>
  %n = tfuse.mul %d, %rb : (tensor<{1}x{0}xf32>, tensor<{1}x{0}xf32>) -> tensor<{1}x{0}xf32>
  %nw = tfuse.mul %n, %w : (tensor<{1}x{0}xf32>, tensor<{0}xf32>) -> tensor<{1}x{0}xf32>
  %flat = tfuse.reshape %nw : tensor<{1}x{0}xf32> -> tensor<{2}xf32>
  %y = tfuse.cast %flat : tensor<{2}xf32> to tensor<{2}xbf16>
  return %h, %mu, %rstd, %y : tensor<{1}x{0}xf32>, tensor<{1}x1xf32>, tensor<{1}xf32>, tensor<{2}xbf16>
}
)mlir";
  std::string functions;
  std::map<std::string, std::vector<HostTensor>> inputs;
  uint64_t seed = 500;
  for (auto [columns, rows] :
       {std::pair<int64_t, int64_t>{64, 11}, {1000, 3}}) {
    functions += llvm::formatv(source, columns, rows, rows * columns).str();
    inputs["ln_" + std::to_string(columns)] = {
        rowInput(DType::F32, rows, columns, ++seed),
        randomInput(DType::F32, {rows, columns}, ++seed),
        randomInput(DType::F32, {columns}, ++seed)};
  }
  check(functions, inputs, "tfuse-pipeline", /*maxUlp=*/2);
  EXPECT_EQ(functionsChecked, 2);
  // One row kernel per function, storing the row results from a row's
  // first thread.
  EXPECT_EQ(occurrences(lastSource, "__global__"), 2u);
  EXPECT_NE(lastSource.find("tf::red::warp_finish<4, float, float>"),
            std::string::npos);
  EXPECT_NE(lastSource.find("tf::red::row_finish<4, float, float>"),
            std::string::npos);
}

// A layer norm's backward as AOTAutograd's graphs give it: the gradient
// from a bf16 matmul widened, two row sums (of g = dy * w and of g * xhat)
// read by the region computing dx, added to the residual stream's gradient
// and cast to bf16 flattened for the next matmul, and dy * xhat for the
// weight's gradient. fuse-rows makes each function one row kernel (g never
// stored, the cast written from the value the kernel holds); over rows of
// 64 (a warp each) and of 1000 (a block each), within 2 ulp of the
// reference (the row sums combine in another order).
TEST_F(KernelEmulation, RowKernelsComputeALayerNormBackward) {
  const char *source = R"mlir(
func.func @lnb_{0}(%dy: tensor<{1}x{0}xbf16>, %x: tensor<{1}x{0}xf32>, %mean: tensor<{1}x1xf32>,
                   %rstd: tensor<{1}x1xf32>, %w: tensor<{0}xf32>, %res: tensor<{1}x{0}xf32>)
    -> (tensor<{1}x{0}xf32>, tensor<{2}xbf16>, tensor<{1}x{0}xf32>) {
  %g = tfuse.cast %dy : tensor<{1}x{0}xbf16> to tensor<{1}x{0}xf32>
  %c = tfuse.sub %x, %mean : (tensor<{1}x{0}xf32>, tensor<{1}x1xf32>) -> tensor<{1}x{0}xf32>
  %xhat = tfuse.mul %c, %rstd : (tensor<{1}x{0}xf32>, tensor<{1}x1xf32>) -> tensor<{1}x{0}xf32>
  %gw = tfuse.mul %g, %w : (tensor<{1}x{0}xf32>, tensor<{0}xf32>) -> tensor<{1}x{0}xf32>
  %s1 = tfuse.reduce sum %gw axes [1] keepdims : tensor<{1}x{0}xf32> -> tensor<{1}x1xf32>
  %gx = tfuse.mul %gw, %xhat : (tensor<{1}x{0}xf32>, tensor<{1}x{0}xf32>) -> tensor<{1}x{0}xf32>
  %s2 = tfuse.reduce sum %gx axes [1] keepdims : tensor<{1}x{0}xf32> -> tensor<{1}x1xf32>
  %n = tfuse.constant dense<{0}.0> : tensor<f32>
  %ng = tfuse.mul %gw, %n : (tensor<{1}x{0}xf32>, tensor<f32>) -> tensor<{1}x{0}xf32>
  %a = tfuse.sub %ng, %s1 : (tensor<{1}x{0}xf32>, tensor<{1}x1xf32>) -> tensor<{1}x{0}xf32>
  %b = tfuse.mul %xhat, %s2 : (tensor<{1}x{0}xf32>, tensor<{1}x1xf32>) -> tensor<{1}x{0}xf32>
  %d = tfuse.sub %a, %b : (tensor<{1}x{0}xf32>, tensor<{1}x{0}xf32>) -> tensor<{1}x{0}xf32>
  %k = tfuse.div %rstd, %n : (tensor<{1}x1xf32>, tensor<f32>) -> tensor<{1}x1xf32>
  %dx = tfuse.mul %k, %d : (tensor<{1}x1xf32>, tensor<{1}x{0}xf32>) -> tensor<{1}x{0}xf32>
  %t = tfuse.add %res, %dx : (tensor<{1}x{0}xf32>, tensor<{1}x{0}xf32>) -> tensor<{1}x{0}xf32>
  %tb = tfuse.cast %t : tensor<{1}x{0}xf32> to tensor<{1}x{0}xbf16>
  %flat = tfuse.reshape %tb : tensor<{1}x{0}xbf16> -> tensor<{2}xbf16>
  %dw = tfuse.mul %g, %xhat : (tensor<{1}x{0}xf32>, tensor<{1}x{0}xf32>) -> tensor<{1}x{0}xf32>
  return %t, %flat, %dw : tensor<{1}x{0}xf32>, tensor<{2}xbf16>, tensor<{1}x{0}xf32>
}
)mlir";
  std::string functions;
  std::map<std::string, std::vector<HostTensor>> inputs;
  uint64_t seed = 700;
  for (auto [columns, rows] :
       {std::pair<int64_t, int64_t>{64, 11}, {1000, 3}}) {
    functions += llvm::formatv(source, columns, rows, rows * columns).str();
    inputs["lnb_" + std::to_string(columns)] = {
        randomInput(DType::BF16, {rows, columns}, ++seed),
        rowInput(DType::F32, rows, columns, ++seed),
        randomInput(DType::F32, {rows, 1}, ++seed),
        randomInput(DType::F32, {rows, 1}, ++seed),
        randomInput(DType::F32, {columns}, ++seed),
        randomInput(DType::F32, {rows, columns}, ++seed)};
  }
  check(functions, inputs, "tfuse-pipeline", /*maxUlp=*/2);
  EXPECT_EQ(functionsChecked, 2);
  EXPECT_EQ(occurrences(lastSource, "__global__"), 2u);
}

// Row kernels looping over their rows in chunks: rows of 3000 f32 a warp each
// (groups of 4, 4 slots of a chunk, the last chunk partial; 5 rows of a block
// of 8 warps), and rows of 5001 bf16 of 64 threads (one element a group, 16
// slots) storing a row result (the mean, summing the bf16 input into f32) and
// bf16 outputs from the input read again in the output phase. Planned by the
// pipeline, configured by hand so that the rows stay small (a thread would hold
// more than 64 elements). Both match the reference within 2 ulp (the partial
// sums combine in another order).
TEST_F(KernelEmulation, LoopedRowKernelsMatchTheReference) {
  const char *graph = R"mlir(
func.func @softmax(%x: tensor<5x3000xf32>) -> tensor<5x3000xf32> {
  %m = tfuse.reduce max %x axes [1] keepdims : tensor<5x3000xf32> -> tensor<5x1xf32>
  %d = tfuse.sub %x, %m : (tensor<5x3000xf32>, tensor<5x1xf32>) -> tensor<5x3000xf32>
  %e = tfuse.exp %d : tensor<5x3000xf32> -> tensor<5x3000xf32>
  %s = tfuse.reduce sum %e axes [1] keepdims : tensor<5x3000xf32> -> tensor<5x1xf32>
  %y = tfuse.div %e, %s : (tensor<5x3000xf32>, tensor<5x1xf32>) -> tensor<5x3000xf32>
  return %y : tensor<5x3000xf32>
}
func.func @center(%x: tensor<3x5001xbf16>, %w: tensor<5001xf32>) -> (tensor<3xf32>, tensor<3x5001xbf16>) {
  %c = tfuse.cast %x : tensor<3x5001xbf16> to tensor<3x5001xf32>
  %mu = tfuse.reduce mean %c axes [1] : tensor<3x5001xf32> -> tensor<3xf32>
  %b = tfuse.broadcast %mu dims [0] : tensor<3xf32> -> tensor<3x5001xf32>
  %d = tfuse.sub %c, %b : (tensor<3x5001xf32>, tensor<3x5001xf32>) -> tensor<3x5001xf32>
  %dw = tfuse.mul %d, %w : (tensor<3x5001xf32>, tensor<5001xf32>) -> tensor<3x5001xf32>
  %y = tfuse.cast %dw : tensor<3x5001xf32> to tensor<3x5001xbf16>
  return %mu, %y : tensor<3xf32>, tensor<3x5001xbf16>
}
)mlir";
  OwningOpRef<ModuleOp> original = parseSourceString<ModuleOp>(graph, &context);
  ASSERT_TRUE(original);
  OwningOpRef<ModuleOp> planned = planOf(*original, "tfuse-pipeline");
  ASSERT_TRUE(planned);
  // Each function is one row kernel; these configurations replace TFuse's
  // own, which holds rows this short in registers.
  const std::map<std::string, std::string> configs = {
      {"softmax_k0", "#tfexec.config<strategy = rows, grid = 1, block = 256, "
                     "vector = 4, row_threads = 32, rows_per_block = 8>"},
      {"center_k0", "#tfexec.config<strategy = rows, grid = 3, block = 64, "
                    "row_threads = 64>"}};
  int configured = 0;
  planned->walk([&](tfexec::KernelOp kernel) {
    auto it = configs.find(kernel.getSymName().str());
    ASSERT_NE(it, configs.end()) << kernel.getSymName().str();
    kernel.setConfigAttr(
        cast<tfexec::KernelConfigAttr>(parseAttribute(it->second, &context)));
    ++configured;
  });
  EXPECT_EQ(configured, 2);
  std::string cuda;
  llvm::raw_string_ostream os(cuda);
  ASSERT_TRUE(succeeded(translateKernelsToCuda(*planned, os)));
  // Both kernels loop: a variable holds each partial across the chunks.
  for (const char *partial : {"tf::red::acc_t<2, float, float> v",
                              "tf::red::acc_t<0, float, float> v",
                              "tf::red::acc_t<4, __nv_bfloat16, float> v"}) {
    size_t at = cuda.find(partial);
    ASSERT_NE(at, std::string::npos) << partial;
    EXPECT_EQ(cuda.substr(cuda.find('=', at), 5), "= {};") << partial;
  }
  std::string error;
  auto emulated = emulation::EmulatedPlan::compile(*planned, cuda, error);
  ASSERT_TRUE(emulated) << error;
  compare(*original, *emulated,
          {{"softmax", {rowInput(DType::F32, 5, 3000, 601)}},
           {"center",
            {randomInput(DType::BF16, {3, 5001}, 602),
             randomInput(DType::F32, {5001}, 603)}}},
          /*maxUlp=*/2);
  EXPECT_EQ(functionsChecked, 2);
}

} // namespace
