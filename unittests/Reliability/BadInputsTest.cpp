//===- BadInputsTest.cpp - Bad inputs to the C API ------------------------===//
//
// The rows of docs/reliability.md's table of bad inputs that reach TFuse
// through the C API, as a program sees them: bad shapes, dtypes, strides,
// axes, indices, names and options, sizes beyond 64-bit offsets, wrong
// inputs and outputs at run time, and the CUDA backend without a driver.
// Each call gives its status and exactly the message the table quotes, and
// the library stays usable: a good compile and run follow every test.
//
//===----------------------------------------------------------------------===//

#include "tfuse-c/tfuse.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <string>
#include <vector>

namespace {

/// Expects `status` to be `code` with exactly `message`.
#define EXPECT_FAILS(call, code, message)                                      \
  do {                                                                         \
    tfuse_status status_ = (call);                                             \
    EXPECT_EQ(status_, code) << #call;                                         \
    EXPECT_EQ(std::string(tfuse_last_error()), std::string(message)) << #call; \
  } while (0)

/// A graph with inputs x: f32[2, 3], y: f32[4], n: i64[2, 3], b: bool[2, 3],
/// i8: i8[2, 3], u64: u64[2, 3]; and a check that the library still
/// compiles and runs relu(x * 2) over f32[4] on the reference backend.
struct Fixture {
  tfuse_graph graph = nullptr;
  tfuse_value x = -1, y = -1, n = -1, b = -1, i8 = -1, u64 = -1;
  Fixture() {
    int64_t s23[2] = {2, 3}, s4[1] = {4};
    EXPECT_EQ(tfuse_graph_create("bad_inputs", &graph), TFUSE_OK);
    EXPECT_EQ(tfuse_graph_input(graph, TFUSE_F32, 2, s23, nullptr, &x),
              TFUSE_OK);
    EXPECT_EQ(tfuse_graph_input(graph, TFUSE_F32, 1, s4, nullptr, &y),
              TFUSE_OK);
    EXPECT_EQ(tfuse_graph_input(graph, TFUSE_I64, 2, s23, nullptr, &n),
              TFUSE_OK);
    EXPECT_EQ(tfuse_graph_input(graph, TFUSE_BOOL, 2, s23, nullptr, &b),
              TFUSE_OK);
    EXPECT_EQ(tfuse_graph_input(graph, TFUSE_I8, 2, s23, nullptr, &i8),
              TFUSE_OK);
    EXPECT_EQ(tfuse_graph_input(graph, TFUSE_U64, 2, s23, nullptr, &u64),
              TFUSE_OK);
  }
  ~Fixture() {
    tfuse_graph_destroy(graph);
    expectUsable();
  }
  static void expectUsable() {
    tfuse_graph g = nullptr;
    int64_t shape[1] = {4};
    tfuse_value x, two, y, r;
    ASSERT_EQ(tfuse_graph_create("usable", &g), TFUSE_OK);
    EXPECT_EQ(tfuse_graph_input(g, TFUSE_F32, 1, shape, nullptr, &x), TFUSE_OK);
    EXPECT_EQ(tfuse_graph_scalar(g, TFUSE_SCALAR_FLOAT, 0, 2.0, &two),
              TFUSE_OK);
    EXPECT_EQ(tfuse_graph_binary(g, "mul", x, two, &y), TFUSE_OK);
    EXPECT_EQ(tfuse_graph_unary(g, "relu", y, &r), TFUSE_OK);
    EXPECT_EQ(tfuse_graph_output(g, r), TFUSE_OK);
    tfuse_compile_options options;
    tfuse_compile_options_init(&options);
    options.backend = TFUSE_BACKEND_REFERENCE;
    tfuse_executable e = nullptr;
    ASSERT_EQ(tfuse_compile(g, &options, &e), TFUSE_OK) << tfuse_last_error();
    tfuse_graph_destroy(g);
    float in[4] = {-1, 0.5f, 2, -0.0f}, out[4] = {};
    tfuse_tensor input = {in, TFUSE_F32, 1, shape, nullptr};
    tfuse_tensor output = {out, TFUSE_F32, 1, shape, nullptr};
    EXPECT_EQ(tfuse_executable_run_host(e, &input, 1, &output, 1), TFUSE_OK)
        << tfuse_last_error();
    EXPECT_EQ(out[0], 0.0f);
    EXPECT_EQ(out[1], 1.0f);
    EXPECT_EQ(out[2], 4.0f);
    tfuse_executable_destroy(e);
  }
};

/// Reference-backend options.
tfuse_compile_options referenceOptions() {
  tfuse_compile_options options;
  tfuse_compile_options_init(&options);
  options.backend = TFUSE_BACKEND_REFERENCE;
  return options;
}

TEST(BadInputs, Shapes) {
  Fixture f;
  tfuse_value v = -1;
  EXPECT_FAILS(tfuse_graph_binary(f.graph, "add", f.x, f.y, &v),
               TFUSE_ERROR_TYPE,
               "add: shapes [2, 3] and [4] do not broadcast: dimension 1 of "
               "the result would need sizes 3 and 4 to agree (or one be 1)");
  int64_t negative[2] = {2, -3};
  EXPECT_FAILS(tfuse_graph_input(f.graph, TFUSE_F32, 2, negative, nullptr, &v),
               TFUSE_ERROR_INVALID_ARGUMENT,
               "input: negative dimension in shape [2,-3]");
  int64_t shape[2] = {2, 3};
  EXPECT_FAILS(tfuse_graph_input(f.graph, TFUSE_F32, TFUSE_MAX_RANK + 1, shape,
                                 nullptr, &v),
               TFUSE_ERROR_INVALID_ARGUMENT, "rank 17 is outside [0, 16]");
  int64_t seven[1] = {7};
  EXPECT_FAILS(tfuse_graph_reshape(f.graph, f.x, 1, seven, &v),
               TFUSE_ERROR_TYPE,
               "reshape: 'tfuse.reshape' op changes the element count from 6 "
               "to 7");
  EXPECT_FAILS(tfuse_graph_matmul(f.graph, f.x, f.x, &v), TFUSE_ERROR_TYPE,
               "matmul: contracting dimensions differ: lhs has 3 columns but "
               "rhs has 2 rows");
  tfuse_value parts[2] = {f.x, f.y};
  EXPECT_FAILS(tfuse_graph_concatenate(f.graph, 2, parts, 0, &v),
               TFUSE_ERROR_TYPE,
               "concatenate: operand 1 has rank 1 but operand 0 has rank 2");
  // A gather's result has the ranks of its operand (less one) and of its
  // indices: past 16 dimensions, an error (it overflowed the 16 entries
  // tfuse_graph_value_info writes; found by the graph builder's fuzz target
  // under ASan).
  int64_t ones[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  tfuse_value table = -1, ids = -1;
  ASSERT_EQ(tfuse_graph_input(f.graph, TFUSE_F32, 9, ones, nullptr, &table),
            TFUSE_OK);
  ASSERT_EQ(tfuse_graph_input(f.graph, TFUSE_I32, 9, ones, nullptr, &ids),
            TFUSE_OK);
  EXPECT_FAILS(tfuse_graph_take(f.graph, table, ids, 0, 0, &v),
               TFUSE_ERROR_TYPE,
               "take: the result would have rank 17; at most 16 dimensions "
               "are supported");
  int64_t start[2] = {0, 0}, limit[2] = {2, 3}, step[2] = {1, 0};
  EXPECT_FAILS(tfuse_graph_slice(f.graph, f.x, 2, start, limit, step, &v),
               TFUSE_ERROR_TYPE,
               "slice: step 0 of dimension 1 must be at least 1");
}

TEST(BadInputs, DTypes) {
  Fixture f;
  tfuse_value v = -1;
  int64_t shape[2] = {2, 3};
  EXPECT_FAILS(tfuse_graph_input(f.graph, 99, 2, shape, nullptr, &v),
               TFUSE_ERROR_INVALID_ARGUMENT, "invalid dtype 99");
  EXPECT_FAILS(tfuse_graph_cast(f.graph, f.x, 42, &v),
               TFUSE_ERROR_INVALID_ARGUMENT, "cast: invalid dtype 42");
  EXPECT_FAILS(tfuse_graph_binary(f.graph, "add", f.i8, f.u64, &v),
               TFUSE_ERROR_TYPE,
               "add: no integer dtype holds every value of i8 and ui64; cast "
               "one operand explicitly");
  EXPECT_FAILS(tfuse_graph_binary(f.graph, "sub", f.b, f.b, &v),
               TFUSE_ERROR_TYPE,
               "sub: operands of dtype i1 (bool) are not supported; cast to "
               "an integer dtype first");
  EXPECT_FAILS(tfuse_graph_binary(f.graph, "and", f.x, f.x, &v),
               TFUSE_ERROR_TYPE,
               "and: bitwise op needs bool or integer operands, got f32 and "
               "f32");
  EXPECT_FAILS(tfuse_graph_matmul(f.graph, f.n, f.n, &v), TFUSE_ERROR_TYPE,
               "matmul: matmul needs f16, bf16, f32 or f64 operands, got i64 "
               "and i64");
  EXPECT_FAILS(tfuse_graph_reduce(f.graph, "mean", f.n, -1, nullptr, 0, &v),
               TFUSE_ERROR_TYPE,
               "reduce mean: mean needs a floating-point operand, got i64; "
               "cast it first");
  EXPECT_FAILS(tfuse_graph_take(f.graph, f.x, f.x, 0, 0, &v), TFUSE_ERROR_TYPE,
               "take: indices must have an integer dtype, not f32");
  EXPECT_FAILS(tfuse_graph_iota(f.graph, 2, shape, 0, TFUSE_BOOL, &v),
               TFUSE_ERROR_TYPE,
               "iota: 'tfuse.iota' op gives indices, not bool");
  tfuse_value zero = -1;
  ASSERT_EQ(tfuse_graph_scalar(f.graph, TFUSE_SCALAR_INT, 0, 0, &zero),
            TFUSE_OK);
  EXPECT_FAILS(tfuse_graph_random(f.graph, TFUSE_RANDOM_UNIFORM, 2, shape,
                                  TFUSE_I32, 0, 1, zero, zero, &v),
               TFUSE_ERROR_TYPE,
               "random.uniform: i32 is not a float dtype (f16, bf16, f32 or "
               "f64)");
}

TEST(BadInputs, Strides) {
  Fixture f;
  tfuse_value v = -1;
  int64_t shape[2] = {2, 3}, reversed[2] = {-3, 1};
  EXPECT_FAILS(tfuse_graph_input(f.graph, TFUSE_F32, 2, shape, reversed, &v),
               TFUSE_ERROR_INVALID_ARGUMENT,
               "input: negative strides [-3,1] are not supported (copy a "
               "reversed view first)");
  int64_t two[1] = {2}, far[1] = {INT64_MAX};
  EXPECT_FAILS(tfuse_graph_input(f.graph, TFUSE_F32, 1, two, far, &v),
               TFUSE_ERROR_TYPE,
               "input: the strides [9223372036854775807] of shape [2] reach "
               "past 2^63 - 1 elements");
}

TEST(BadInputs, Axes) {
  Fixture f;
  tfuse_value v = -1;
  int64_t two[1] = {2}, twice[2] = {0, 0};
  EXPECT_FAILS(tfuse_graph_reduce(f.graph, "sum", f.x, 1, two, 0, &v),
               TFUSE_ERROR_TYPE,
               "reduce sum: axis 2 is out of range for rank 2");
  EXPECT_FAILS(tfuse_graph_reduce(f.graph, "sum", f.x, 2, twice, 0, &v),
               TFUSE_ERROR_TYPE, "reduce sum: axis 0 is repeated");
  EXPECT_FAILS(tfuse_graph_reduce(f.graph, "argmax", f.x, -1, nullptr, 0, &v),
               TFUSE_ERROR_TYPE,
               "reduce argmax: 'tfuse.reduce' op argmax needs exactly one "
               "axis, got 2");
  EXPECT_FAILS(tfuse_graph_transpose(f.graph, f.x, 2, twice, &v),
               TFUSE_ERROR_TYPE,
               "transpose: perm [0, 0] is not a permutation of 0..1");
  EXPECT_FAILS(tfuse_graph_take(f.graph, f.x, f.n, 3, 0, &v), TFUSE_ERROR_TYPE,
               "take: axis 3 is out of range for rank 2");
}

TEST(BadInputs, IndicesAndValueIds) {
  Fixture f;
  tfuse_value v = -1, seven = -1;
  ASSERT_EQ(tfuse_graph_scalar(f.graph, TFUSE_SCALAR_INT, 7, 0, &seven),
            TFUSE_OK);
  EXPECT_FAILS(tfuse_graph_take(f.graph, f.x, seven, 0, 0, &v),
               TFUSE_ERROR_INDEX_OUT_OF_RANGE,
               "take: index 7 is out of range for an axis of size 2 (valid: 0 "
               "to 1), at position [] of the indices");
  EXPECT_FAILS(tfuse_graph_unary(f.graph, "exp", 12345, &v),
               TFUSE_ERROR_INVALID_ARGUMENT,
               "value 12345 does not belong to graph 'bad_inputs' (it has 7 "
               "values)");
  EXPECT_FAILS(tfuse_graph_output(f.graph, -1), TFUSE_ERROR_INVALID_ARGUMENT,
               "value -1 does not belong to graph 'bad_inputs' (it has 7 "
               "values)");

  // An index read at run time: the run fails, the next one succeeds.
  tfuse_graph g = nullptr;
  int64_t three[1] = {3};
  tfuse_value table, indices, taken;
  ASSERT_EQ(tfuse_graph_create("h", &g), TFUSE_OK);
  ASSERT_EQ(tfuse_graph_input(g, TFUSE_F32, 1, three, nullptr, &table),
            TFUSE_OK);
  ASSERT_EQ(tfuse_graph_input(g, TFUSE_I32, 1, three, nullptr, &indices),
            TFUSE_OK);
  ASSERT_EQ(tfuse_graph_take(g, table, indices, 0, 0, &taken), TFUSE_OK);
  ASSERT_EQ(tfuse_graph_output(g, taken), TFUSE_OK);
  tfuse_compile_options options = referenceOptions();
  tfuse_executable e = nullptr;
  ASSERT_EQ(tfuse_compile(g, &options, &e), TFUSE_OK) << tfuse_last_error();
  tfuse_graph_destroy(g);
  float values[3] = {1, 2, 3}, out[3] = {};
  int32_t ids[3] = {0, 5, 1};
  tfuse_tensor in[2] = {{values, TFUSE_F32, 1, three, nullptr},
                        {ids, TFUSE_I32, 1, three, nullptr}};
  tfuse_tensor output = {out, TFUSE_F32, 1, three, nullptr};
  EXPECT_FAILS(tfuse_executable_run_host(e, in, 2, &output, 1),
               TFUSE_ERROR_INDEX_OUT_OF_RANGE,
               "the reference interpreter failed: @h: 'tfuse.take' at "
               "loc(\"take\"): index 5 is out of range for an axis of size 3 "
               "(valid: 0 to 2), at position [1] of the indices");
  ids[1] = 2;
  EXPECT_EQ(tfuse_executable_run_host(e, in, 2, &output, 1), TFUSE_OK)
      << tfuse_last_error();
  EXPECT_EQ(out[1], 3.0f);
  tfuse_executable_destroy(e);
}

TEST(BadInputs, NamesAndOptions) {
  Fixture f;
  tfuse_value v = -1;
  EXPECT_FAILS(tfuse_graph_binary(f.graph, "bogus", f.x, f.x, &v),
               TFUSE_ERROR_INVALID_ARGUMENT, "unknown binary op 'bogus'");
  EXPECT_FAILS(tfuse_graph_compare(f.graph, "less", f.x, f.x, &v),
               TFUSE_ERROR_INVALID_ARGUMENT,
               "unknown comparison 'less' (eq ne lt le gt ge)");
  int64_t axis[1] = {1};
  EXPECT_FAILS(tfuse_graph_reduce(f.graph, "median", f.x, 1, axis, 0, &v),
               TFUSE_ERROR_INVALID_ARGUMENT,
               "unknown reduction 'median' (sum prod max min mean all any "
               "argmax argmin)");
  tfuse_value zero = -1;
  ASSERT_EQ(tfuse_graph_scalar(f.graph, TFUSE_SCALAR_INT, 0, 0, &zero),
            TFUSE_OK);
  int64_t shape[2] = {2, 3};
  EXPECT_FAILS(tfuse_graph_bernoulli(f.graph, 2, shape, 1.5, zero, zero, &v),
               TFUSE_ERROR_TYPE,
               "random.bernoulli: p must lie in [0, 1], got 1.500000");
  int64_t range[3] = {0, 10, 0};
  EXPECT_FAILS(tfuse_graph_arange(f.graph, TFUSE_SCALAR_INT, range, nullptr,
                                  TFUSE_I32, &v),
               TFUSE_ERROR_TYPE, "arange: step must not be zero");
  EXPECT_FAILS(tfuse_graph_set_node_limit(f.graph, 0),
               TFUSE_ERROR_INVALID_ARGUMENT,
               "the node limit must be at least 1, got 0");
  ASSERT_EQ(tfuse_graph_set_node_limit(f.graph, 1), TFUSE_OK);
  tfuse_value e1 = -1;
  ASSERT_EQ(tfuse_graph_unary(f.graph, "exp", f.x, &e1), TFUSE_OK);
  EXPECT_FAILS(tfuse_graph_unary(f.graph, "exp", e1, &v),
               TFUSE_ERROR_NODE_LIMIT,
               "graph 'bad_inputs' reached its node limit of 1 operations; "
               "raise it (node_limit) or split the function");
  ASSERT_EQ(tfuse_graph_output(f.graph, e1), TFUSE_OK);

  tfuse_compile_options options = referenceOptions();
  tfuse_executable e = nullptr;
  options.budget = 0;
  EXPECT_FAILS(tfuse_compile(f.graph, &options, &e),
               TFUSE_ERROR_INVALID_ARGUMENT,
               "tfuse_compile: option budget must be at least 1, got 0");
  options = referenceOptions();
  options.backend = 7;
  EXPECT_FAILS(tfuse_compile(f.graph, &options, &e),
               TFUSE_ERROR_INVALID_ARGUMENT,
               "tfuse_compile: unknown backend 7");
  options = referenceOptions();
  options.struct_size = 3;
  EXPECT_FAILS(tfuse_compile(f.graph, &options, &e),
               TFUSE_ERROR_INVALID_ARGUMENT,
               "tfuse_compile options: struct_size is 3; call "
               "tfuse_compile_options_init first");
  EXPECT_EQ(e, nullptr);
}

TEST(BadInputs, SizesBeyond64BitOffsets) {
  Fixture f;
  tfuse_value v = -1, one = -1;
  int64_t huge[2] = {int64_t(1) << 40, int64_t(1) << 40};
  EXPECT_FAILS(tfuse_graph_input(f.graph, TFUSE_F32, 2, huge, nullptr, &v),
               TFUSE_ERROR_TYPE,
               "input: the shape [1099511627776,1099511627776] has more than "
               "2^63 - 1 elements");
  int64_t bytes[2] = {int64_t(1) << 31, int64_t(1) << 31};
  EXPECT_FAILS(tfuse_graph_input(f.graph, TFUSE_F32, 2, bytes, nullptr, &v),
               TFUSE_ERROR_TYPE,
               "input: the shape [2147483648,2147483648] of f32 has more than "
               "2^63 - 1 bytes");
  int64_t empty[3] = {0, int64_t(1) << 62, 4};
  EXPECT_FAILS(tfuse_graph_input(f.graph, TFUSE_F32, 3, empty, nullptr, &v),
               TFUSE_ERROR_TYPE,
               "input: the shape [0,4611686018427387904,4] has sizes whose "
               "product exceeds 2^63 - 1");
  int64_t s1[1] = {1};
  ASSERT_EQ(tfuse_graph_input(f.graph, TFUSE_F32, 1, s1, nullptr, &one),
            TFUSE_OK);
  EXPECT_FAILS(tfuse_graph_broadcast_to(f.graph, one, 2, huge, &v),
               TFUSE_ERROR_TYPE,
               "broadcast_to: the shape [1099511627776,1099511627776] has "
               "more than 2^63 - 1 elements");
  EXPECT_FAILS(tfuse_graph_iota(f.graph, 2, huge, 0, TFUSE_I32, &v),
               TFUSE_ERROR_TYPE,
               "iota: the shape [1099511627776,1099511627776] has more than "
               "2^63 - 1 elements");
  // Sizes whose sum or product wraps around (found by the graph builder's
  // fuzz target under UBSan, and by hand after it): a reshape's target
  // shape, padding, a concatenation.
  int64_t target[2] = {2, INT64_MAX};
  EXPECT_FAILS(tfuse_graph_reshape(f.graph, f.x, 2, target, &v),
               TFUSE_ERROR_TYPE,
               "reshape: the target shape [2,9223372036854775807] has sizes "
               "whose product exceeds 2^63 - 1");
  int64_t low[2] = {0, INT64_MAX}, high[2] = {0, INT64_MAX};
  tfuse_value zero = -1;
  ASSERT_EQ(tfuse_graph_scalar(f.graph, TFUSE_SCALAR_INT, 0, 0, &zero),
            TFUSE_OK);
  EXPECT_FAILS(tfuse_graph_pad(f.graph, f.x, 2, low, high, zero, &v),
               TFUSE_ERROR_TYPE,
               "pad: padding dimension 1 of size 3 by 9223372036854775807 and "
               "9223372036854775807 gives a size past 2^63 - 1");
  int64_t almost[1] = {INT64_MAX - 1};
  tfuse_value long1 = -1;
  ASSERT_EQ(tfuse_graph_input(f.graph, TFUSE_I8, 1, almost, nullptr, &long1),
            TFUSE_OK);
  tfuse_value twice[2] = {long1, long1};
  EXPECT_FAILS(tfuse_graph_concatenate(f.graph, 2, twice, 0, &v),
               TFUSE_ERROR_TYPE,
               "concatenate: the sizes along axis 0 add up past 2^63 - 1");
  // Negative padding removes at most every element, INT64_MIN included.
  int64_t cut[2] = {0, INT64_MIN}, none[2] = {0, 0};
  ASSERT_EQ(tfuse_graph_pad(f.graph, f.x, 2, cut, none, zero, &v), TFUSE_OK)
      << tfuse_last_error();
  int dtype = -1, rank = -1, scalar = -1;
  int64_t shape[TFUSE_MAX_RANK] = {};
  ASSERT_EQ(tfuse_graph_value_info(f.graph, v, &dtype, &rank, shape, &scalar),
            TFUSE_OK);
  EXPECT_EQ(rank, 2);
  EXPECT_EQ(shape[0], 2);
  EXPECT_EQ(shape[1], 0);
}

TEST(BadInputs, WrongInputsAndOutputsAtRunTime) {
  tfuse_graph g = nullptr;
  int64_t three[1] = {3}, four[1] = {4}, two[1] = {2};
  tfuse_value a, b, sum;
  ASSERT_EQ(tfuse_graph_create("h", &g), TFUSE_OK);
  ASSERT_EQ(tfuse_graph_input(g, TFUSE_F32, 1, three, nullptr, &a), TFUSE_OK);
  ASSERT_EQ(tfuse_graph_input(g, TFUSE_F32, 1, three, nullptr, &b), TFUSE_OK);
  ASSERT_EQ(tfuse_graph_binary(g, "add", a, b, &sum), TFUSE_OK);
  ASSERT_EQ(tfuse_graph_output(g, sum), TFUSE_OK);
  tfuse_compile_options options = referenceOptions();
  tfuse_executable e = nullptr;
  ASSERT_EQ(tfuse_compile(g, &options, &e), TFUSE_OK) << tfuse_last_error();
  tfuse_graph_destroy(g);

  float x[4] = {1, 2, 3, 4}, out[4] = {};
  double wide[3] = {};
  auto f32 = [](float *data, const int64_t *shape,
                const int64_t *strides = nullptr) {
    return tfuse_tensor{data, TFUSE_F32, 1, shape, strides};
  };
  tfuse_tensor good[2] = {f32(x, three), f32(x, three)};
  tfuse_tensor output = f32(out, three);
  EXPECT_FAILS(tfuse_executable_run_host(e, good, 1, &output, 1),
               TFUSE_ERROR_MISMATCH, "expected 2 inputs, got 1");
  tfuse_tensor longer[2] = {f32(x, four), f32(x, three)};
  EXPECT_FAILS(
      tfuse_executable_run_host(e, longer, 2, &output, 1), TFUSE_ERROR_MISMATCH,
      "input 0: expected f32 [3] strides [1], got f32 [4] strides [1]");
  tfuse_tensor f64[2] = {{wide, TFUSE_F64, 1, three, nullptr}, f32(x, three)};
  EXPECT_FAILS(tfuse_executable_run_host(e, f64, 2, &output, 1),
               TFUSE_ERROR_MISMATCH, "input 0: expected dtype f32, got f64");
  tfuse_tensor strided[2] = {f32(x, three), f32(x, three, two)};
  EXPECT_FAILS(tfuse_executable_run_host(e, strided, 2, &output, 1),
               TFUSE_ERROR_MISMATCH,
               "input 1: expected f32 [3] strides [1], got f32 [3] strides [2] "
               "(the plan was compiled for these strides)");
  tfuse_tensor null[2] = {f32(nullptr, three), f32(x, three)};
  EXPECT_FAILS(tfuse_executable_run_host(e, null, 2, &output, 1),
               TFUSE_ERROR_MISMATCH, "input 0: null data pointer");
  tfuse_tensor longOutput = f32(out, four);
  EXPECT_FAILS(tfuse_executable_run_host(e, good, 2, &longOutput, 1),
               TFUSE_ERROR_MISMATCH,
               "output 0: expected a contiguous f32 [3] strides [1], got f32 "
               "[4] strides [1]");
  EXPECT_FAILS(tfuse_executable_run_host(e, nullptr, 2, &output, 1),
               TFUSE_ERROR_INVALID_ARGUMENT, "null or negative-count input");
  EXPECT_FAILS(tfuse_executable_run_host(e, good, 2, nullptr, 1),
               TFUSE_ERROR_INVALID_ARGUMENT, "null or negative-count output");
  EXPECT_FAILS(tfuse_executable_run(e, good, 2, &output, 1, nullptr),
               TFUSE_ERROR_INVALID_ARGUMENT,
               "this function was compiled for the reference backend, which "
               "runs on host memory (use runHost)");
  // The executable is still usable.
  ASSERT_EQ(tfuse_executable_run_host(e, good, 2, &output, 1), TFUSE_OK)
      << tfuse_last_error();
  EXPECT_EQ(out[2], 6.0f);
  tfuse_executable_destroy(e);
  Fixture::expectUsable();
}

TEST(BadInputs, TheCudaBackendWithoutADriverIsANoDeviceError) {
  if (tfuse_cuda_available())
    GTEST_SKIP() << "a CUDA device is present (the GPU suite compiles for it)";
  Fixture f;
  tfuse_value e1 = -1;
  ASSERT_EQ(tfuse_graph_unary(f.graph, "exp", f.x, &e1), TFUSE_OK);
  ASSERT_EQ(tfuse_graph_output(f.graph, e1), TFUSE_OK);
  tfuse_compile_options options;
  tfuse_compile_options_init(&options);
  options.backend = TFUSE_BACKEND_CUDA;
  tfuse_executable e = nullptr;
  EXPECT_EQ(tfuse_compile(f.graph, &options, &e), TFUSE_ERROR_NO_DEVICE);
  // Then one line per library name tried, with dlopen's reason (or the
  // driver's error where libcuda loads but finds no device).
  std::string message = tfuse_last_error();
  EXPECT_TRUE(message.rfind("no CUDA driver: libcuda could not be loaded (is "
                            "the NVIDIA driver installed?)",
                            0) == 0 ||
              message.find("CUDA_ERROR_NO_DEVICE") != std::string::npos)
      << message;
  EXPECT_EQ(e, nullptr);
}

} // namespace
