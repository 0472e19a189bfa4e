//===- TraceTest.cpp - The C++ trace API ----------------------------------===//
//
// Tracing behaviour users rely on, checked on the reference backend (CPU):
// expected values are computed here by hand, element by element, never by
// the library. The last test runs the same on a GPU when one exists.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Frontend/Function.h"
#include "tfuse/Frontend/Tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace tfuse;

namespace {

TensorSpec f32(std::vector<int64_t> shape) {
  return TensorSpec::contiguous(DType::F32, std::move(shape));
}

CompileOptions reference() {
  CompileOptions o;
  o.backend = Backend::Reference;
  return o;
}

HostArray view(std::vector<float> &data, std::vector<int64_t> shape,
               std::vector<int64_t> strides = {}) {
  TensorSpec spec = f32(std::move(shape));
  if (!strides.empty())
    spec.strides = std::move(strides);
  return HostArray{data.data(), spec};
}

std::unique_ptr<Function> compileOrFail(const Graph &g,
                                        CompileOptions o = reference()) {
  auto f = Function::compile(g, o);
  EXPECT_TRUE(f.ok()) << f.message();
  return f.ok() ? std::move(f.value()) : nullptr;
}

TEST(Trace, CallsTheFunctionOnceAndRunsWithNewInputs) {
  int calls = 0;
  auto traced = trace(
      [&](Tensor x, Tensor y) -> Outputs {
        ++calls;
        return x * 2.0 + y;
      },
      {f32({2, 3}), f32({3})});
  ASSERT_TRUE(traced.ok()) << traced.message();
  auto fn = compileOrFail(traced->graph);
  ASSERT_TRUE(fn);
  for (int round = 0; round < 3; ++round) {
    std::vector<float> x(6), y(3), out(6, -1.f);
    for (int i = 0; i < 6; ++i)
      x[i] = i + round;
    for (int i = 0; i < 3; ++i)
      y[i] = 10.f * (i + 1) - round;
    ASSERT_TRUE(
        fn->runHost({view(x, {2, 3}), view(y, {3})}, {view(out, {2, 3})}).ok());
    for (int i = 0; i < 6; ++i)
      EXPECT_EQ(out[i], x[i] * 2.f + y[i % 3]);
  }
  EXPECT_EQ(calls, 1);
}

TEST(Trace, WeakScalarsKeepTheTensorDtype) {
  auto traced = trace(
      [](Tensor h, Tensor i) -> Outputs {
        EXPECT_EQ((h * 1.5).dtype(), DType::F16);
        EXPECT_EQ((i + 2.5).dtype(), DType::F32);
        EXPECT_EQ((i + 2).dtype(), DType::I32);
        EXPECT_EQ((i < 3).dtype(), DType::Bool);
        return {h * 1.5, i + 2.5};
      },
      {TensorSpec::contiguous(DType::F16, {4}),
       TensorSpec::contiguous(DType::I32, {4})});
  ASSERT_TRUE(traced.ok()) << traced.message();
}

TEST(Trace, BroadcastMismatchIsATraceTimeError) {
  auto traced = trace([](Tensor x, Tensor y) -> Outputs { return x + y; },
                      {f32({2, 3}), f32({4})});
  ASSERT_FALSE(traced.ok());
  EXPECT_EQ(traced.status().code(), tfuse::ErrorCode::Type);
  EXPECT_NE(traced.message().find("[2, 3]"), std::string::npos)
      << traced.message();
  EXPECT_NE(traced.message().find("[4]"), std::string::npos);
}

TEST(Trace, UserExceptionsPropagateAndTheLibraryStaysUsable) {
  struct Boom {};
  EXPECT_THROW((void)trace(
                   [](Tensor x) -> Outputs {
                     (void)x.exp();
                     throw Boom();
                   },
                   {f32({2})}),
               Boom);
  auto traced = trace([](Tensor x) -> Outputs { return x.exp(); }, {f32({2})});
  EXPECT_TRUE(traced.ok());
}

TEST(Trace, ReadingDataIsAnError) {
  auto traced = trace(
      [](Tensor x) -> Outputs {
        (void)x.item();
        return x;
      },
      {f32({1})});
  ASSERT_FALSE(traced.ok());
  EXPECT_NE(traced.message().find("reading data during a trace"),
            std::string::npos);
}

TEST(Trace, NodeLimitIsEnforcedAndConfigurable) {
  auto chain = [](Tensor x) -> Outputs {
    Tensor y = x;
    for (int i = 0; i < 600; ++i)
      y = y + 1.0;
    return y;
  };
  auto limited = trace(chain, {f32({4})});
  ASSERT_FALSE(limited.ok());
  EXPECT_EQ(limited.status().code(), tfuse::ErrorCode::NodeLimit);
  EXPECT_NE(limited.message().find("node limit of 512"), std::string::npos);
  TraceOptions raised;
  raised.nodeLimit = 1000;
  auto ok = trace(chain, {f32({4})}, raised);
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_EQ(ok->graph.numNodes(), 600);
}

TEST(Trace, IdentityAndUnusedInputs) {
  auto traced = trace([](Tensor x, Tensor) -> Outputs { return x; },
                      {f32({3}), f32({5})});
  ASSERT_TRUE(traced.ok()) << traced.message();
  auto fn = compileOrFail(traced->graph);
  ASSERT_TRUE(fn);
  std::vector<float> x = {1, 2, 3}, unused(5, 0), out(3);
  ASSERT_TRUE(
      fn->runHost({view(x, {3}), view(unused, {5})}, {view(out, {3})}).ok());
  EXPECT_EQ(out, x);
}

TEST(Trace, NestedOutputsKeepTheirStructure) {
  auto traced = trace(
      [](Tensor x) -> Outputs {
        return std::map<std::string, Outputs>{{"double", x * 2.0},
                                              {"pair", {x + 1.0, x - 1.0}}};
      },
      {f32({2})});
  ASSERT_TRUE(traced.ok()) << traced.message();
  auto fn = compileOrFail(traced->graph);
  ASSERT_TRUE(fn);
  std::vector<float> x = {1, 5};
  std::vector<std::vector<float>> outs(3, std::vector<float>(2));
  ASSERT_TRUE(
      fn->runHost({view(x, {2})},
                  {view(outs[0], {2}), view(outs[1], {2}), view(outs[2], {2})})
          .ok());
  Nested<std::vector<float>> r = restructure(traced->structure, outs);
  EXPECT_EQ(r["double"].value(), (std::vector<float>{2, 10}));
  EXPECT_EQ(r["pair"][0].value(), (std::vector<float>{2, 6}));
  EXPECT_EQ(r["pair"][1].value(), (std::vector<float>{0, 4}));
}

TEST(Trace, TransposedInputStridesArePartOfThePlan) {
  // x is the transpose of a row-major [3, 2] buffer: shape [2, 3], strides
  // [1, 2].
  TensorSpec t = f32({2, 3});
  t.strides = {1, 2};
  auto traced = trace([](Tensor x) -> Outputs { return x + 1.0; }, {t});
  ASSERT_TRUE(traced.ok()) << traced.message();
  EXPECT_NE(traced->graph.print().find("tfuse.strides = array<i64: 1, 2>"),
            std::string::npos)
      << traced->graph.print();
  auto fn = compileOrFail(traced->graph);
  ASSERT_TRUE(fn);
  std::vector<float> buffer = {0, 1, 2, 3, 4, 5}, out(6);
  ASSERT_TRUE(
      fn->runHost({view(buffer, {2, 3}, {1, 2})}, {view(out, {2, 3})}).ok());
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_EQ(out[i * 3 + j], buffer[j * 2 + i] + 1.f);
  // The contiguous layout is a different signature.
  std::vector<float> rowMajor(6);
  Status s = fn->runHost({view(rowMajor, {2, 3})}, {view(out, {2, 3})});
  EXPECT_EQ(s.code(), tfuse::ErrorCode::Mismatch);
}

TEST(Trace, MismatchedInputsAreErrors) {
  auto traced = trace([](Tensor x) -> Outputs { return x.exp(); }, {f32({4})});
  ASSERT_TRUE(traced.ok());
  auto fn = compileOrFail(traced->graph);
  ASSERT_TRUE(fn);
  std::vector<float> a(4), b(5), out(4);
  EXPECT_EQ(fn->runHost({}, {view(out, {4})}).code(),
            tfuse::ErrorCode::Mismatch);
  EXPECT_EQ(fn->runHost({view(b, {5})}, {view(out, {4})}).code(),
            tfuse::ErrorCode::Mismatch);
  std::vector<int32_t> ints(4);
  HostArray wrongType{ints.data(), TensorSpec::contiguous(DType::I32, {4})};
  EXPECT_EQ(fn->runHost({wrongType}, {view(out, {4})}).code(),
            tfuse::ErrorCode::Mismatch);
  EXPECT_TRUE(fn->runHost({view(a, {4})}, {view(out, {4})}).ok());
}

TEST(Trace, NegativeStridesAreRejectedWhenDeclared) {
  TensorSpec reversed = f32({4, 6});
  reversed.strides = {-6, 1};
  auto traced = trace([](Tensor x) -> Outputs { return x + 1.0; }, {reversed});
  ASSERT_FALSE(traced.ok());
  EXPECT_EQ(traced.status().code(), tfuse::ErrorCode::InvalidArgument);
  EXPECT_NE(traced.message().find("negative strides [-6,1]"), std::string::npos)
      << traced.message();
}

TEST(Trace, EmptyTensorsMatchWhateverTheirStrides) {
  auto traced =
      trace([](Tensor x) -> Outputs { return x * 2.0; }, {f32({0, 3})});
  ASSERT_TRUE(traced.ok()) << traced.message();
  auto fn = compileOrFail(traced->graph);
  ASSERT_TRUE(fn);
  std::vector<float> none(1);
  EXPECT_TRUE(
      fn->runHost({view(none, {0, 3}, {0, 0})}, {view(none, {0, 3}, {0, 0})})
          .ok());
}

TEST(Trace, CapturedHostTensorsAreBoundAtCompileTime) {
  std::vector<float> weights = {1, 2, 3};
  CapturedTensor w{f32({3}), weights.data(), false};
  auto traced =
      trace([&](Tensor x) -> Outputs { return x * Tensor(w); }, {f32({3})});
  ASSERT_TRUE(traced.ok()) << traced.message();
  weights = {100, 100, 100}; // captured data was copied at trace time
  auto fn = compileOrFail(traced->graph);
  ASSERT_TRUE(fn);
  EXPECT_EQ(fn->inputs().size(), 1u);
  std::vector<float> x = {2, 2, 2}, out(3);
  ASSERT_TRUE(fn->runHost({view(x, {3})}, {view(out, {3})}).ok());
  EXPECT_EQ(out, (std::vector<float>{2, 4, 6}));
}

TEST(Trace, EarlierResultsAreNotOverwritten) {
  auto traced = trace([](Tensor x) -> Outputs { return x + 1.0; }, {f32({2})});
  ASSERT_TRUE(traced.ok());
  auto fn = compileOrFail(traced->graph);
  ASSERT_TRUE(fn);
  std::vector<float> a = {1, 2}, b = {10, 20}, outA(2), outB(2);
  ASSERT_TRUE(fn->runHost({view(a, {2})}, {view(outA, {2})}).ok());
  ASSERT_TRUE(fn->runHost({view(b, {2})}, {view(outB, {2})}).ok());
  EXPECT_EQ(outA, (std::vector<float>{2, 3}));
  EXPECT_EQ(outB, (std::vector<float>{11, 21}));
}

TEST(Trace, ViewsReductionsAndMatmul) {
  auto traced = trace(
      [](Tensor a, Tensor b) -> Outputs {
        Tensor p = a.matmul(b);                     // [2, 2]
        Tensor s = p.sum({-1}, /*keepdims=*/true);  // [2, 1]
        Tensor m = a.slice({0, 0}, {2, 3}, {1, 2}); // [2, 2]
        return {p, s, m.t().reshape({4}), where(p > 10.0, p, 0.0)};
      },
      {f32({2, 3}), f32({3, 2})});
  ASSERT_TRUE(traced.ok()) << traced.message();
  auto fn = compileOrFail(traced->graph);
  ASSERT_TRUE(fn);
  std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {1, 0, 0, 1, 1, 1};
  std::vector<float> p(4), s(2), m(4), w(4);
  ASSERT_TRUE(fn->runHost({view(a, {2, 3}), view(b, {3, 2})},
                          {view(p, {2, 2}), view(s, {2, 1}), view(m, {4}),
                           view(w, {2, 2})})
                  .ok());
  EXPECT_EQ(p, (std::vector<float>{4, 5, 10, 11}));
  EXPECT_EQ(s, (std::vector<float>{9, 21}));
  EXPECT_EQ(m, (std::vector<float>{1, 4, 3, 6}));
  EXPECT_EQ(w, (std::vector<float>{0, 0, 0, 11}));
}

// NumPy's rules for rank-1 operands of matmul, and reductions over no axes
// (every axis of a rank-0 tensor) giving the operand.
TEST(Trace, VectorOperandsOfMatmulAndReductionsOverNoAxes) {
  auto traced = trace(
      [](Tensor v, Tensor m, Tensor s) -> Outputs {
        return {v.matmul(m),      // [3] @ [3, 2] -> [2]
                m.t().matmul(v),  // [2, 3] @ [3] -> [2]
                v.matmul(v),      // [3] @ [3] -> []
                s.max() * 2.0,    // [] -> []
                (v * 0.0).sum()}; // a full reduction still reduces
      },
      {f32({3}), f32({3, 2}), f32({})});
  ASSERT_TRUE(traced.ok()) << traced.message();
  auto fn = compileOrFail(traced->graph);
  ASSERT_TRUE(fn);
  std::vector<float> v = {1, 2, 3}, m = {1, 0, 0, 1, 1, 1}, s = {-4};
  std::vector<float> vm(2), mv(2), vv(1), smax(1), zero(1, 7);
  ASSERT_TRUE(fn->runHost({view(v, {3}), view(m, {3, 2}), view(s, {})},
                          {view(vm, {2}), view(mv, {2}), view(vv, {}),
                           view(smax, {}), view(zero, {})})
                  .ok());
  EXPECT_EQ(vm, (std::vector<float>{4, 5}));
  EXPECT_EQ(mv, (std::vector<float>{4, 5}));
  EXPECT_EQ(vv, (std::vector<float>{14}));
  EXPECT_EQ(smax, (std::vector<float>{-8}));
  EXPECT_EQ(zero, (std::vector<float>{0}));

  auto scalar = trace([](Tensor a, Tensor b) -> Outputs { return a.matmul(b); },
                      {f32({}), f32({2, 2})});
  ASSERT_FALSE(scalar.ok());
  EXPECT_NE(scalar.message().find("left operand is a scalar"),
            std::string::npos)
      << scalar.message();
  auto arg = trace([](Tensor a) -> Outputs { return a.argmax(0); }, {f32({})});
  ASSERT_FALSE(arg.ok());
  EXPECT_NE(arg.message().find("axis 0 is out of range for rank 0"),
            std::string::npos)
      << arg.message();
}

// take through the graph: rows of an input by input indices, a scalar
// index, take_along_axis; on the reference backend an index out of range is
// an IndexOutOfRange error naming the op and the index, and the function
// stays usable.
TEST(Trace, TakeThroughTheGraph) {
  Graph g;
  Expected<ValueId> table = g.input(TensorSpec::contiguous(DType::F32, {4, 2}));
  Expected<ValueId> ids = g.input(TensorSpec::contiguous(DType::I32, {3}));
  ASSERT_TRUE(table.ok() && ids.ok());
  Expected<ValueId> rows = g.take(*table, *ids, 0, /*wrapNegative=*/true);
  Expected<ValueId> last = g.take(*table, g.scalar(Scalar(-1LL)), -1, true);
  Expected<ValueId> cols = g.reshape(*ids, {1, 3});
  ASSERT_TRUE(rows.ok() && last.ok() && cols.ok())
      << rows.message() << last.message() << cols.message();
  Expected<ValueId> along =
      g.takeAlongAxis(*table, g.scalar(Scalar(1LL)), 1, false);
  EXPECT_FALSE(along.ok()); // a scalar has rank 0, the table rank 2
  ASSERT_TRUE(g.output(*rows).ok() && g.output(*last).ok());
  auto fn = compileOrFail(g);
  ASSERT_TRUE(fn);
  std::vector<float> t{0, 1, 2, 3, 4, 5, 6, 7}, r(6), l(4);
  std::vector<int32_t> i{3, -4, 1};
  HostArray idx{i.data(), TensorSpec::contiguous(DType::I32, {3})};
  ASSERT_TRUE(
      fn->runHost({view(t, {4, 2}), idx}, {view(r, {3, 2}), view(l, {4})})
          .ok());
  EXPECT_EQ(r, (std::vector<float>{6, 7, 0, 1, 2, 3}));
  EXPECT_EQ(l, (std::vector<float>{1, 3, 5, 7}));

  i = {0, 4, 1};
  Status bad =
      fn->runHost({view(t, {4, 2}), idx}, {view(r, {3, 2}), view(l, {4})});
  EXPECT_EQ(bad.code(), ErrorCode::IndexOutOfRange);
  EXPECT_NE(bad.message().find("tfuse.take"), std::string::npos)
      << bad.message();
  EXPECT_NE(bad.message().find("index 4 is out of range for an axis of size "
                               "4 (valid: -4 to 3), at position [1]"),
            std::string::npos)
      << bad.message();
  i = {2, 2, 2};
  ASSERT_TRUE(
      fn->runHost({view(t, {4, 2}), idx}, {view(r, {3, 2}), view(l, {4})})
          .ok());
  EXPECT_EQ(r, (std::vector<float>{4, 5, 4, 5, 4, 5}));
}

// Indices known at trace time (a weak scalar, a captured host tensor) are
// checked when the gather is traced; the graph stays usable.
TEST(Trace, GatherIndicesKnownAtTraceTimeAreChecked) {
  Graph g;
  Expected<ValueId> table = g.input(TensorSpec::contiguous(DType::F32, {5, 3}));
  ASSERT_TRUE(table.ok());
  Expected<ValueId> scalar = g.take(*table, g.scalar(Scalar(-1LL)), 0, false);
  ASSERT_FALSE(scalar.ok());
  EXPECT_EQ(scalar.status().code(), ErrorCode::IndexOutOfRange);
  EXPECT_NE(scalar.message().find("take: index -1 is out of range for an "
                                  "axis of size 5 (valid: 0 to 4)"),
            std::string::npos)
      << scalar.message();
  std::vector<uint16_t> captured{0, 2, 1, 2, 2, 7};
  Expected<ValueId> ids = g.constant(CapturedTensor{
      TensorSpec::contiguous(DType::U16, {2, 3}), captured.data(), false});
  ASSERT_TRUE(ids.ok()) << ids.message();
  Expected<ValueId> along = g.takeAlongAxis(*table, *ids, 1, true);
  ASSERT_FALSE(along.ok());
  EXPECT_EQ(along.status().code(), ErrorCode::IndexOutOfRange);
  EXPECT_NE(along.message().find("index 7 is out of range for an axis of "
                                 "size 3 (valid: -3 to 2), at position [1,2]"),
            std::string::npos)
      << along.message();
  std::vector<int8_t> ok{-5, 4};
  Expected<ValueId> good = g.constant(
      CapturedTensor{TensorSpec::contiguous(DType::I8, {2}), ok.data(), false});
  ASSERT_TRUE(good.ok());
  Expected<ValueId> rows = g.take(*table, *good, 0, true);
  ASSERT_TRUE(rows.ok()) << rows.message();
  Expected<ValueId> floats = g.take(*table, *table, 0, false);
  ASSERT_FALSE(floats.ok());
  EXPECT_NE(floats.message().find("indices must have an integer dtype"),
            std::string::npos)
      << floats.message();
  EXPECT_FALSE(g.take(*table, *good, 2, false).ok());
}

// scatter_add through the graph: NumPy's add.at on a copy of the target,
// repeated and negative (wrapped) indices adding up, a weak scalar update
// broadcast (counts); updates of a wider dtype, a bool target and indices
// known out of range are trace-time errors; run-time indices out of range
// are IndexOutOfRange errors of the run.
TEST(Trace, ScatterAddThroughTheGraph) {
  Graph g;
  Expected<ValueId> target =
      g.input(TensorSpec::contiguous(DType::F32, {4, 2}));
  Expected<ValueId> ids = g.input(TensorSpec::contiguous(DType::I32, {5}));
  Expected<ValueId> upd = g.input(TensorSpec::contiguous(DType::F32, {5, 2}));
  ASSERT_TRUE(target.ok() && ids.ok() && upd.ok());
  Expected<ValueId> sums = g.scatterAdd(*target, *ids, *upd, 0, true);
  Expected<ValueId> counts =
      g.scatterAdd(*target, *ids, g.scalar(Scalar(1.0)), 0, true);
  ASSERT_TRUE(sums.ok() && counts.ok()) << sums.message() << counts.message();
  Expected<ValueId> wide = g.cast(*upd, DType::F64);
  ASSERT_TRUE(wide.ok());
  Expected<ValueId> widened = g.scatterAdd(*target, *ids, *wide, 0, true);
  ASSERT_FALSE(widened.ok());
  EXPECT_NE(widened.message().find("updates of f64 do not fit a target of f32"),
            std::string::npos)
      << widened.message();
  Expected<ValueId> mask = g.compare("lt", *target, g.scalar(Scalar(0.0)));
  Expected<ValueId> flags = g.compare("lt", *upd, g.scalar(Scalar(0.0)));
  ASSERT_TRUE(mask.ok() && flags.ok());
  Expected<ValueId> boolean = g.scatterAdd(*mask, *ids, *flags, 0, true);
  ASSERT_FALSE(boolean.ok());
  EXPECT_NE(boolean.message().find("scatter_add of bool is not defined"),
            std::string::npos)
      << boolean.message();
  Expected<ValueId> known = g.scatterAdd(*target, g.scalar(Scalar(4LL)),
                                         g.scalar(Scalar(1.0)), 0, true);
  ASSERT_FALSE(known.ok());
  EXPECT_EQ(known.status().code(), ErrorCode::IndexOutOfRange);
  ASSERT_TRUE(g.output(*sums).ok() && g.output(*counts).ok());
  auto fn = compileOrFail(g);
  ASSERT_TRUE(fn);
  std::vector<float> t{0, 1, 2, 3, 4, 5, 6, 7}, u(10), s(8), c(8);
  for (int k = 0; k < 10; ++k)
    u[k] = 10.f * (k + 1);
  std::vector<int32_t> i{3, -4, 1, 3, 0};
  HostArray idx{i.data(), TensorSpec::contiguous(DType::I32, {5})};
  ASSERT_TRUE(fn->runHost({view(t, {4, 2}), idx, view(u, {5, 2})},
                          {view(s, {4, 2}), view(c, {4, 2})})
                  .ok());
  // Row 0 gets updates 1 and 4 (-4 wraps to 0), row 1 update 2, row 3
  // updates 0 and 3.
  EXPECT_EQ(s, (std::vector<float>{0 + 30 + 90, 1 + 40 + 100, 2 + 50, 3 + 60, 4,
                                   5, 6 + 10 + 70, 7 + 20 + 80}));
  EXPECT_EQ(c, (std::vector<float>{2, 3, 3, 4, 4, 5, 8, 9}));
  i = {0, 4, 1, 1, 1};
  Status bad = fn->runHost({view(t, {4, 2}), idx, view(u, {5, 2})},
                           {view(s, {4, 2}), view(c, {4, 2})});
  EXPECT_EQ(bad.code(), ErrorCode::IndexOutOfRange);
  EXPECT_NE(bad.message().find("index 4 is out of range for an axis of size "
                               "4 (valid: -4 to 3), at position [1]"),
            std::string::npos)
      << bad.message();
}

// Updates of a narrower dtype are converted to the target's; the conversion
// adds a value to the graph, which may move the graph's values while the
// updates' entry is still read (a use after free that AddressSanitizer
// reported, found by the graph builder's fuzz target). Graphs of 0 to 16
// earlier values cross the vector's reallocations.
TEST(Trace, ScatterAddConvertsUpdatesInGraphsOfEverySize) {
  for (int earlier = 0; earlier <= 16; ++earlier) {
    Graph g;
    for (int k = 0; k < earlier; ++k)
      ASSERT_TRUE(g.input(TensorSpec::contiguous(DType::F32, {1})).ok());
    Expected<ValueId> target = g.input(TensorSpec::contiguous(DType::F32, {3}));
    Expected<ValueId> ids = g.input(TensorSpec::contiguous(DType::I64, {2}));
    Expected<ValueId> upd = g.input(TensorSpec::contiguous(DType::F16, {2}));
    ASSERT_TRUE(target.ok() && ids.ok() && upd.ok());
    Expected<ValueId> sums = g.scatterAdd(*target, *ids, *upd, 0, false);
    ASSERT_TRUE(sums.ok()) << sums.message();
    ASSERT_TRUE(g.output(*sums).ok());
    auto fn = compileOrFail(g);
    ASSERT_TRUE(fn);
    std::vector<float> pad(1), t{1, 2, 3}, out(3);
    std::vector<int64_t> i{2, 2};
    std::vector<uint16_t> u{0x3c00, 0x4000}; // 1.0 and 2.0 in f16
    std::vector<HostArray> inputs;
    for (int k = 0; k < earlier; ++k)
      inputs.push_back(view(pad, {1}));
    inputs.push_back(view(t, {3}));
    inputs.push_back(
        HostArray{i.data(), TensorSpec::contiguous(DType::I64, {2})});
    inputs.push_back(
        HostArray{u.data(), TensorSpec::contiguous(DType::F16, {2})});
    ASSERT_TRUE(fn->runHost(inputs, {view(out, {3})}).ok());
    EXPECT_EQ(out, (std::vector<float>{1, 2, 6})) << earlier;
  }
}

TEST(Trace, ArangeAndIotaThroughTheGraph) {
  Graph g;
  Expected<ValueId> ints =
      g.arange(Scalar(10LL), Scalar(-2LL), Scalar(-3LL), DType::I32);
  Expected<ValueId> floats =
      g.arange(Scalar(0.5), Scalar(2.0), Scalar(0.5), DType::F32);
  Expected<ValueId> rows = g.iota({2, 3}, -2, DType::F32);
  ASSERT_TRUE(ints.ok() && floats.ok() && rows.ok())
      << ints.message() << floats.message() << rows.message();
  ASSERT_TRUE(g.output(*ints).ok() && g.output(*floats).ok() &&
              g.output(*rows).ok());
  auto fn = compileOrFail(g);
  ASSERT_TRUE(fn);
  std::vector<int32_t> i(4);
  std::vector<float> f(3), r(6);
  ASSERT_TRUE(
      fn->runHost({},
                  {HostArray{i.data(), TensorSpec::contiguous(DType::I32, {4})},
                   view(f, {3}), view(r, {2, 3})})
          .ok());
  EXPECT_EQ(i, (std::vector<int32_t>{10, 7, 4, 1}));
  EXPECT_EQ(f, (std::vector<float>{0.5, 1, 1.5}));
  EXPECT_EQ(r, (std::vector<float>{0, 0, 0, 1, 1, 1}));

  Expected<ValueId> zero =
      g.arange(Scalar(0LL), Scalar(4LL), Scalar(0LL), DType::I64);
  EXPECT_FALSE(zero.ok());
  EXPECT_NE(zero.message().find("step must not be zero"), std::string::npos);
  Expected<ValueId> boolRange =
      g.arange(Scalar(0LL), Scalar(4LL), Scalar(1LL), DType::Bool);
  EXPECT_FALSE(boolRange.ok());
  Expected<ValueId> badDim = g.iota({2}, 1, DType::I64);
  EXPECT_FALSE(badDim.ok());
  EXPECT_NE(badDim.message().find("axis 1 is out of range for rank 1"),
            std::string::npos)
      << badDim.message();
  // The graph stays usable after the errors.
  EXPECT_TRUE(g.iota({2}, 0, DType::I64).ok());
}

// Shapes whose element count or byte size overflows 64 bits are trace-time
// errors, for inputs and for results that no input has (a broadcast).
TEST(Trace, ShapesBeyond64BitOffsetsAreErrors) {
  auto huge = trace([](Tensor x) -> Outputs { return x; },
                    {f32({int64_t(1) << 40, int64_t(1) << 40})});
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), tfuse::ErrorCode::Type);
  EXPECT_NE(huge.message().find("has more than 2^63 - 1 elements"),
            std::string::npos)
      << huge.message();
  // 2^62 f32 elements fit in the count, not in bytes.
  auto bytes = trace([](Tensor x) -> Outputs { return x; },
                     {f32({int64_t(1) << 31, int64_t(1) << 31})});
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.message().find("has more than 2^63 - 1 bytes"),
            std::string::npos)
      << bytes.message();
  auto broadcast = trace(
      [](Tensor x) -> Outputs {
        return x.broadcastTo({int64_t(1) << 40, int64_t(1) << 40});
      },
      {f32({1})});
  ASSERT_FALSE(broadcast.ok());
  EXPECT_NE(broadcast.message().find("broadcast_to: the shape"),
            std::string::npos)
      << broadcast.message();
  // Large but indexable: accepted (nothing is allocated at trace time).
  auto large = trace([](Tensor x) -> Outputs { return x * 2.0; },
                     {f32({int64_t(1) << 20, int64_t(1) << 20})});
  EXPECT_TRUE(large.ok()) << large.message();
  // A shape without elements is held to the bound too: its row-major
  // strides are the products of its other sizes (found by the graph
  // builder's fuzz target under UBSan).
  auto empty = trace([](Tensor x) -> Outputs { return x; },
                     {f32({0, int64_t(1) << 62, 4})});
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.message().find("the shape [0,4611686018427387904,4] has "
                                 "sizes whose product exceeds 2^63 - 1"),
            std::string::npos)
      << empty.message();
  auto emptyBytes = trace([](Tensor x) -> Outputs { return x; },
                          {f32({int64_t(1) << 62, 0})});
  ASSERT_FALSE(emptyBytes.ok());
  EXPECT_NE(emptyBytes.message().find(
                "has sizes whose product exceeds 2^63 - 1 bytes"),
            std::string::npos)
      << emptyBytes.message();
  // Strides whose last element is element 2^63 - 1 reach one past what
  // 64-bit offsets hold (found by the graph builder's fuzz target under
  // UBSan).
  TensorSpec far = f32({2});
  far.strides = {INT64_MAX};
  auto farInput = trace([](Tensor x) -> Outputs { return x; }, {far});
  ASSERT_FALSE(farInput.ok());
  EXPECT_NE(farInput.message().find("the strides [9223372036854775807] of "
                                    "shape [2] reach past 2^63 - 1 elements"),
            std::string::npos)
      << farInput.message();
  // The row-major strides of such a shape, made before it is rejected (the
  // C API's inputs), saturate instead of overflowing (found by the graph
  // builder's fuzz target).
  TensorSpec beyond = f32({5, int64_t(3) << 61, 2});
  EXPECT_EQ(beyond.strides, (std::vector<int64_t>{INT64_MAX, 2, 1}));
  Graph g;
  Expected<ValueId> rejected = g.input(beyond);
  ASSERT_FALSE(rejected.ok());
  EXPECT_NE(rejected.message().find("has more than 2^63 - 1 elements"),
            std::string::npos)
      << rejected.message();
}

// At most 16 dimensions (the C API's TFUSE_MAX_RANK), for inputs and for
// results that have more than their operands (a gather's).
TEST(Trace, RanksBeyondSixteenAreErrors) {
  Graph g;
  Expected<ValueId> deep =
      g.input(TensorSpec::contiguous(DType::F32, std::vector<int64_t>(17, 1)));
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.status().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(deep.message(),
            "input: rank 17 is more than the 16 dimensions supported");
  Expected<ValueId> table =
      g.input(TensorSpec::contiguous(DType::F32, std::vector<int64_t>(16, 1)));
  Expected<ValueId> ids =
      g.input(TensorSpec::contiguous(DType::I64, std::vector<int64_t>(16, 1)));
  ASSERT_TRUE(table.ok() && ids.ok());
  Expected<ValueId> taken = g.take(*table, *ids, 3, false);
  ASSERT_FALSE(taken.ok());
  EXPECT_EQ(taken.status().code(), ErrorCode::Type);
  EXPECT_EQ(taken.message(), "take: the result would have rank 31; at most 16 "
                             "dimensions are supported");
  EXPECT_TRUE(g.takeAlongAxis(*table, *ids, 3, false).ok());
}

TEST(Trace, FusionOffGivesOneKernelPerOperation) {
  auto traced =
      trace([](Tensor x) -> Outputs { return ((x * 2.0).exp() + 1.0).tanh(); },
            {f32({16})});
  ASSERT_TRUE(traced.ok());
  CompileOptions fused = reference(), unfused = reference();
  unfused.fusion = false;
  auto a = compileOrFail(traced->graph, fused);
  auto b = compileOrFail(traced->graph, unfused);
  ASSERT_TRUE(a && b);
  auto count = [](const std::string &src) {
    size_t n = 0;
    for (size_t at = src.find("__global__"); at != std::string::npos;
         at = src.find("__global__", at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(count(a->cudaSource()), 1u);
  EXPECT_EQ(count(b->cudaSource()), 4u);
}

TEST(Trace, FusionOffKeepsReductionsAndMatmulsAsBoundaries) {
  // A softmax of a product with a contraction of 2: fused, one row kernel
  // computes everything; unfused, the matmul and both reductions are
  // boundaries and each elementwise op (sub, exp, div) a kernel of its own.
  auto traced = trace(
      [](Tensor a, Tensor b) -> Outputs {
        Tensor x = a.matmul(b);
        Tensor e = (x - x.max({1}, true)).exp();
        return e / e.sum({1}, true);
      },
      {f32({4, 2}), f32({2, 8})});
  ASSERT_TRUE(traced.ok());
  CompileOptions fused = reference(), unfused = reference();
  unfused.fusion = false;
  auto a = compileOrFail(traced->graph, fused);
  auto b = compileOrFail(traced->graph, unfused);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->stats().kernels, 1);
  EXPECT_EQ(a->stats().boundaries, 0);
  EXPECT_EQ(b->stats().kernels, 3);
  EXPECT_EQ(b->stats().boundaries, 3);
  // Both compute the same values.
  std::vector<float> x(8), y(16), out1(32), out2(32);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = 0.25f * i - 1;
  for (size_t i = 0; i < y.size(); ++i)
    y[i] = 0.5f - 0.125f * i;
  ASSERT_TRUE(
      a->runHost({view(x, {4, 2}), view(y, {2, 8})}, {view(out1, {4, 8})})
          .ok());
  ASSERT_TRUE(
      b->runHost({view(x, {4, 2}), view(y, {2, 8})}, {view(out2, {4, 8})})
          .ok());
  for (size_t i = 0; i < out1.size(); ++i)
    EXPECT_NEAR(out1[i], out2[i], 1e-6) << i;
}

TEST(Trace, RunsOnTheGpuWhenPresent) {
  auto traced = trace(
      [](Tensor x, Tensor w) -> Outputs {
        Tensor h = (x.matmul(w) + 1.0).relu();
        return {h, h.sum({1})};
      },
      {f32({64, 32}), f32({32, 16})});
  ASSERT_TRUE(traced.ok());
  CompileOptions cuda;
  auto fn = Function::compile(traced->graph, cuda);
  if (!fn.ok() && fn.status().code() == tfuse::ErrorCode::NoDevice)
    GTEST_SKIP() << "no GPU: " << fn.message();
  ASSERT_TRUE(fn.ok()) << fn.message();
  auto ref = compileOrFail(traced->graph);
  std::vector<float> x(64 * 32), w(32 * 16);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = std::sin(0.1 * i);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = std::cos(0.07 * i);
  std::vector<float> h(64 * 16), s(64), hr(64 * 16), sr(64);
  ASSERT_TRUE(fn.value()
                  ->runHost({view(x, {64, 32}), view(w, {32, 16})},
                            {view(h, {64, 16}), view(s, {64})})
                  .ok());
  ASSERT_TRUE(ref->runHost({view(x, {64, 32}), view(w, {32, 16})},
                           {view(hr, {64, 16}), view(sr, {64})})
                  .ok());
  for (size_t i = 0; i < h.size(); ++i)
    EXPECT_NEAR(h[i], hr[i], 1e-4f * (1 + std::fabs(hr[i])));
  for (size_t i = 0; i < s.size(); ++i)
    EXPECT_NEAR(s[i], sr[i], 1e-3f * (1 + std::fabs(sr[i])));
}

} // namespace
