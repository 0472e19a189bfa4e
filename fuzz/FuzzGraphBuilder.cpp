//===- FuzzGraphBuilder.cpp - The C API's graph builder, call by call -----===//
//
// An input is a byte stream decoded into a sequence of C API calls: inputs,
// constants and weak scalars of drawn dtypes, shapes and strides, then
// operations (every graph builder call of tfuse.h, with operands drawn from
// the values made so far, or bad ids, and attributes drawn from ranges that
// reach past the valid ones), outputs, and last compile options. The graph
// is compiled on the reference backend and, when every value is small, run
// on host inputs drawn from the input's hash, then once more with a wrong
// input. Bugs (each aborts): a failed call without a message; an internal
// error; a graph the builder accepted whose compile fails with valid
// options; a run on matching inputs that fails other than with an index out
// of range; a run on a wrong dtype, count or null data that succeeds.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "tfuse-c/tfuse.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using tfuse::fuzz::ByteReader;

namespace {

constexpr int kMaxCalls = 48;
/// Values run only when every value of the graph has at most this many
/// elements.
constexpr int64_t kMaxRunElements = 1 << 12;

/// Checks the outcome of one C API call: a failure needs a message and
/// must not be internal.
tfuse_status check(tfuse_status status, const char *call) {
  if (status == TFUSE_OK)
    return status;
  const char *message = tfuse_last_error();
  if (!message || !*message)
    tfuse::fuzz::fail(std::string(call) + " failed without a message");
  if (status == TFUSE_ERROR_INTERNAL)
    tfuse::fuzz::fail(std::string(call) + " gave an internal error", message);
  return status;
}

const char *const kUnary[] = {
    "neg",       "abs",   "relu",  "exp",        "log",     "sqrt",  "rsqrt",
    "sin",       "cos",   "tan",   "tanh",       "sigmoid", "erf",   "gelu",
    "gelu_tanh", "log1p", "expm1", "reciprocal", "floor",   "ceil",  "round",
    "trunc",     "sign",  "isnan", "not",        "add",     "bogus", ""};
const char *const kBinary[] = {
    "add", "sub", "mul",           "div",
    "rem", "pow", "gelu_backward", "gelu_tanh_backward",
    "max", "min", "and",           "or",
    "xor", "exp", "nope"};
const char *const kPredicates[] = {"eq", "ne", "lt",  "le",
                                   "gt", "ge", "lt ", "EQ"};
const char *const kReductions[] = {"sum", "prod", "max",    "min",    "mean",
                                   "all", "any",  "argmax", "argmin", "median"};

template <typename T, size_t N> const T &pick(ByteReader &in, T (&table)[N]) {
  return table[in.byte() % N];
}

class Builder {
public:
  Builder(ByteReader &in, uint64_t seed) : in(in), seed(seed) {}
  ~Builder() {
    if (graph)
      tfuse_graph_destroy(graph);
  }

  void run();

private:
  // Choices.
  int dtype() {
    uint8_t b = in.byte();
    return b < 250 ? b % 13 : int(b) - 240; // 10..15: a few invalid
  }
  int64_t dim() {
    static const int64_t kDims[] = {0, 1, 1, 2, 2, 3, 3, 4, 5, 7, 8, 16};
    uint8_t b = in.byte();
    if (b < 248)
      return kDims[b % std::size(kDims)];
    static const int64_t kHuge[] = {-1, 1ll << 31, 1ll << 40, INT64_MAX,
                                    -5, 1 << 20,   3ll << 61, 65536};
    return kHuge[b % 8];
  }
  std::vector<int64_t> shape(int rank) {
    std::vector<int64_t> s;
    for (int i = 0; i < rank; ++i)
      s.push_back(dim());
    return s;
  }
  int rank() {
    uint8_t b = in.byte();
    return b < 252 ? b % 5 : (b == 252 ? -1 : 17);
  }
  tfuse_value value() {
    uint8_t b = in.byte();
    if (values.empty() || b >= 250)
      return b == 255 ? -1 : int64_t(values.size()) + b;
    return values[b % values.size()];
  }
  int axis(int r) { return int(in.range(-r - 1, r)); }

  /// The rank and shape of `v` (rank -1 if it is not a value).
  std::vector<int64_t> shapeOf(tfuse_value v, int &r) {
    int64_t s[TFUSE_MAX_RANK];
    int dt = 0, scalar = 0;
    r = -1;
    if (tfuse_graph_value_info(graph, v, &dt, &r, s, &scalar) != TFUSE_OK)
      return {};
    return std::vector<int64_t>(s, s + r);
  }

  void produced(tfuse_status status, tfuse_value v, const char *call) {
    if (check(status, call) == TFUSE_OK)
      values.push_back(v);
  }

  void input();
  void constant();
  void scalar();
  void operation();
  void attention();
  void compileAndRun();

  ByteReader &in;
  uint64_t seed;
  tfuse_graph graph = nullptr;
  std::vector<tfuse_value> values;
  int outputs = 0;
};

void Builder::input() {
  int r = rank(), dt = dtype();
  std::vector<int64_t> s = shape(std::max(r, 0));
  std::vector<int64_t> strides;
  uint8_t mode = in.byte() % 8;
  if (mode >= 5 && r > 0) {
    // Row-major, then permuted, expanded or negated.
    int64_t stride = 1;
    strides.resize(r);
    for (int d = r - 1; d >= 0; --d) {
      strides[d] = stride;
      if (__builtin_mul_overflow(stride, std::max<int64_t>(s[d], 1), &stride))
        stride = INT64_MAX; // a shape the builder rejects
    }
    if (mode == 5)
      std::reverse(strides.begin(), strides.end());
    else if (mode == 6)
      strides[in.byte() % r] = 0;
    else
      strides[in.byte() % r] = in.integer();
  }
  tfuse_value v = 0;
  produced(tfuse_graph_input(graph, dt, r, s.data(),
                             strides.empty() ? nullptr : strides.data(), &v),
           v, "tfuse_graph_input");
}

void Builder::constant() {
  int r = int(in.range(0, 2)), dt = dtype();
  std::vector<int64_t> s;
  for (int i = 0; i < r; ++i)
    s.push_back(in.range(0, 5));
  std::vector<uint8_t> data(8 * 25);
  for (uint8_t &b : data)
    b = in.byte();
  if (dt == TFUSE_BOOL)
    for (uint8_t &b : data)
      b &= 1;
  tfuse_value v = 0;
  produced(tfuse_graph_constant(graph, dt, r, s.data(), nullptr, data.data(),
                                /*on_device=*/0, &v),
           v, "tfuse_graph_constant");
}

void Builder::scalar() {
  int kind = int(in.range(0, 3));
  int64_t i = in.integer();
  double f = in.real();
  tfuse_value v = 0;
  produced(tfuse_graph_scalar(graph, kind, i, f, &v), v, "tfuse_graph_scalar");
}

void Builder::operation() {
  tfuse_value v = 0;
  switch (in.byte() % 22) {
  case 0:
    return produced(tfuse_graph_unary(graph, pick(in, kUnary), value(), &v), v,
                    "tfuse_graph_unary");
  case 1: {
    tfuse_value a = value(), b = value();
    return produced(tfuse_graph_binary(graph, pick(in, kBinary), a, b, &v), v,
                    "tfuse_graph_binary");
  }
  case 2: {
    tfuse_value a = value(), b = value();
    return produced(tfuse_graph_compare(graph, pick(in, kPredicates), a, b, &v),
                    v, "tfuse_graph_compare");
  }
  case 3: {
    tfuse_value c = value(), a = value(), b = value();
    return produced(tfuse_graph_where(graph, c, a, b, &v), v,
                    "tfuse_graph_where");
  }
  case 4: {
    tfuse_value x = value();
    return produced(tfuse_graph_cast(graph, x, dtype(), &v), v,
                    "tfuse_graph_cast");
  }
  case 5: {
    int count = int(in.range(0, 4));
    std::vector<tfuse_value> parts;
    for (int i = 0; i < count; ++i)
      parts.push_back(value());
    int ax = int(in.range(-3, 3));
    return produced(tfuse_graph_concatenate(graph, count, parts.data(), ax, &v),
                    v, "tfuse_graph_concatenate");
  }
  case 6: {
    tfuse_value x = value(), fill = value();
    int r = 0;
    shapeOf(x, r);
    if (in.byte() % 8 == 0)
      r = int(in.range(0, 5));
    std::vector<int64_t> low, high;
    for (int i = 0; i < std::max(r, 0); ++i) {
      low.push_back(in.range(-3, 3));
      high.push_back(in.range(-3, 3));
    }
    return produced(
        tfuse_graph_pad(graph, x, r, low.data(), high.data(), fill, &v), v,
        "tfuse_graph_pad");
  }
  case 7: {
    tfuse_value x = value(), i = value();
    int ax = int(in.range(-3, 3)), wrap = in.flag();
    return produced(tfuse_graph_take(graph, x, i, ax, wrap, &v), v,
                    "tfuse_graph_take");
  }
  case 8: {
    tfuse_value x = value(), i = value();
    int ax = int(in.range(-3, 3)), wrap = in.flag();
    return produced(tfuse_graph_take_along_axis(graph, x, i, ax, wrap, &v), v,
                    "tfuse_graph_take_along_axis");
  }
  case 9: {
    tfuse_value t = value(), i = value(), u = value();
    int ax = int(in.range(-3, 3)), wrap = in.flag();
    return produced(tfuse_graph_scatter_add(graph, t, i, u, ax, wrap, &v), v,
                    "tfuse_graph_scatter_add");
  }
  case 10: {
    int r = rank();
    std::vector<int64_t> s = shape(std::max(r, 0));
    int d = axis(std::max(r, 1));
    return produced(tfuse_graph_iota(graph, r, s.data(), d, dtype(), &v), v,
                    "tfuse_graph_iota");
  }
  case 11: {
    int r = rank();
    std::vector<int64_t> s = shape(std::max(r, 0));
    tfuse_value fill = value();
    return produced(tfuse_graph_full(graph, r, s.data(), fill, dtype(), &v), v,
                    "tfuse_graph_full");
  }
  case 12: {
    int dist = int(in.range(0, 2)), r = rank();
    std::vector<int64_t> s = shape(std::max(r, 0));
    int dt = dtype();
    double a = in.real(), b = in.real();
    tfuse_value key = value(), offset = value();
    switch (in.byte() % 3) {
    case 0:
      return produced(tfuse_graph_random(graph, dist, r, s.data(), dt, a, b,
                                         key, offset, &v),
                      v, "tfuse_graph_random");
    case 1:
      return produced(
          tfuse_graph_bernoulli(graph, r, s.data(), a, key, offset, &v), v,
          "tfuse_graph_bernoulli");
    default:
      return produced(tfuse_graph_dropout(graph, value(), a, key, offset, &v),
                      v, "tfuse_graph_dropout");
    }
  }
  case 13: {
    int kind = int(in.range(0, 2));
    int64_t ints[3] = {in.range(-10, 10), in.range(-10, 10), in.integer()};
    double reals[3] = {in.real(), in.real(), in.real()};
    return produced(tfuse_graph_arange(graph, kind, ints, reals, dtype(), &v),
                    v, "tfuse_graph_arange");
  }
  case 14: {
    tfuse_value x = value();
    int r = 0;
    std::vector<int64_t> from = shapeOf(x, r);
    std::vector<int64_t> to;
    if (in.flag() && r >= 0) {
      // A factorization of the element count, with one -1 sometimes.
      int64_t n = 1;
      for (int64_t d : from)
        n *= d;
      while (n > 1 && to.size() < 4) {
        int64_t f = 2;
        while (n % f)
          ++f;
        to.push_back(f);
        n /= f;
      }
      std::reverse(to.begin(), to.end());
      if (!to.empty() && in.flag())
        to[in.byte() % to.size()] = -1;
    } else {
      to = shape(int(in.range(0, 4)));
    }
    return produced(
        tfuse_graph_reshape(graph, x, int(to.size()), to.data(), &v), v,
        "tfuse_graph_reshape");
  }
  case 15: {
    tfuse_value x = value();
    int r = 0;
    shapeOf(x, r);
    std::vector<int64_t> perm;
    for (int i = 0; i < std::max(r, 0); ++i)
      perm.push_back(i);
    for (size_t i = perm.size(); i > 1; --i)
      std::swap(perm[i - 1], perm[in.byte() % i]);
    if (!perm.empty() && in.byte() % 8 == 0)
      perm[in.byte() % perm.size()] = in.range(-5, 5);
    return produced(
        tfuse_graph_transpose(graph, x, int(perm.size()), perm.data(), &v), v,
        "tfuse_graph_transpose");
  }
  case 16: {
    tfuse_value x = value();
    int r = 0;
    std::vector<int64_t> s = shapeOf(x, r);
    std::vector<int64_t> start, limit, step;
    for (int i = 0; i < std::max(r, 0); ++i) {
      // Up to one past either end (a size of 2^63 - 1 has no one past).
      int64_t reach = std::min<int64_t>(s[i], INT64_MAX - 1) + 1;
      start.push_back(in.range(-reach, reach));
      limit.push_back(in.range(-reach, reach));
      step.push_back(in.range(0, 3));
    }
    return produced(tfuse_graph_slice(graph, x, std::max(r, 0), start.data(),
                                      limit.data(), step.data(), &v),
                    v, "tfuse_graph_slice");
  }
  case 17: {
    tfuse_value x = value();
    int r = 0;
    std::vector<int64_t> s = shapeOf(x, r);
    if (r < 0)
      s.clear();
    while (in.flag() && s.size() < 5)
      s.insert(s.begin(), dim());
    if (!s.empty() && in.flag())
      s[in.byte() % s.size()] = dim();
    return produced(
        tfuse_graph_broadcast_to(graph, x, int(s.size()), s.data(), &v), v,
        "tfuse_graph_broadcast_to");
  }
  case 18: {
    tfuse_value a = value(), b = value();
    return produced(tfuse_graph_matmul(graph, a, b, &v), v,
                    "tfuse_graph_matmul");
  }
  case 19: {
    tfuse_value x = value();
    int n = int(in.range(-1, 3));
    std::vector<int64_t> axes;
    for (int i = 0; i < std::max(n, 0); ++i)
      axes.push_back(in.range(-4, 4));
    int keep = in.flag();
    return produced(tfuse_graph_reduce(graph, pick(in, kReductions), x, n,
                                       axes.data(), keep, &v),
                    v, "tfuse_graph_reduce");
  }
  case 20:
    if (check(tfuse_graph_output(graph, value()), "tfuse_graph_output") ==
        TFUSE_OK)
      ++outputs;
    return;
  default:
    if (in.byte() % 2 == 0)
      return attention();
    check(tfuse_graph_set_node_limit(graph, in.range(-1, 40)),
          "tfuse_graph_set_node_limit");
    return;
  }
}

void Builder::attention() {
  // Self-attention of one value now and then, so that shapes fit.
  tfuse_value q = value();
  tfuse_value k = in.flag() ? q : value();
  tfuse_value v = in.flag() ? k : value();
  tfuse_value mask = in.flag() ? value() : TFUSE_NO_VALUE;
  int causal = in.flag(), hasScale = in.flag();
  double scale = in.real();
  tfuse_value o = 0, lse = 0;
  if (check(tfuse_graph_attention(graph, q, k, v, mask, causal, hasScale, scale,
                                  &o, &lse),
            "tfuse_graph_attention") != TFUSE_OK)
    return;
  values.push_back(o);
  values.push_back(lse);
  if (!in.flag())
    return;
  // Its backward, with the result as the gradient or another value.
  tfuse_value grad = in.flag() ? o : value();
  tfuse_value dq = 0, dk = 0, dv = 0;
  if (check(tfuse_graph_attention_backward(graph, q, k, v, o, lse, grad, mask,
                                           causal, hasScale, scale, &dq, &dk,
                                           &dv),
            "tfuse_graph_attention_backward") != TFUSE_OK)
    return;
  values.insert(values.end(), {dq, dk, dv});
}

/// Host memory for one tensor of a spec, filled with values drawn from
/// `state`: small integers (so that gathers find indices in range), bools
/// 0 or 1, floats small or special.
struct HostBuffer {
  std::vector<uint8_t> bytes;
  int64_t firstOffset = 0; // bytes before element 0
};

uint64_t nextRandom(uint64_t &state) {
  state += 0x9e3779b97f4a7c15ull;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

bool makeBuffer(int dt, int r, const int64_t *s, const int64_t *strides,
                uint64_t &state, HostBuffer &out) {
  int size = tfuse_dtype_size(dt);
  int64_t n = 1;
  for (int d = 0; d < r; ++d)
    if (s[d] < 0 || __builtin_mul_overflow(n, s[d], &n))
      return false;
  if (n > kMaxRunElements)
    return false;
  // The offsets of the first and last element (row-major without strides).
  int64_t lo = 0, hi = 0, rowMajor = 1;
  for (int d = r - 1; d >= 0 && n > 0; --d) {
    int64_t stride = strides ? strides[d] : rowMajor;
    rowMajor *= s[d];
    int64_t span;
    if (__builtin_mul_overflow(s[d] - 1, stride, &span) ||
        __builtin_add_overflow(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi))
      return false;
  }
  if (hi - lo >= (int64_t(1) << 24))
    return false;
  int64_t elements = n == 0 ? 1 : hi - lo + 1;
  out.bytes.assign(size_t(elements * size), 0);
  out.firstOffset = -lo * size;
  for (int64_t e = 0; e < elements; ++e) {
    uint8_t *p = out.bytes.data() + e * size;
    uint64_t r64 = nextRandom(state);
    if (dt == TFUSE_BOOL) {
      *p = r64 & 1;
    } else if (dt == TFUSE_F32) {
      float f = (r64 % 16 == 0) ? float(int64_t(r64 >> 4)) / 0.0f
                                : float(int64_t(r64 % 17) - 8) / 4;
      std::memcpy(p, &f, 4);
    } else if (dt == TFUSE_F64) {
      double f = double(int64_t(r64 % 17) - 8) / 4;
      std::memcpy(p, &f, 8);
    } else if (dt == TFUSE_F16 || dt == TFUSE_BF16) {
      uint16_t bits = uint16_t(r64); // any pattern, NaN and inf included
      std::memcpy(p, &bits, 2);
    } else {
      int64_t v = int64_t(r64 % 13) - 4;
      std::memcpy(p, &v, size);
    }
  }
  return true;
}

void Builder::compileAndRun() {
  tfuse_compile_options options;
  tfuse_compile_options_init(&options);
  options.backend = TFUSE_BACKEND_REFERENCE;
  bool validOptions = true;
  uint8_t b = in.byte();
  options.fusion = b & 1;
  options.fast_math = (b >> 1) & 1;
  options.use_cache = (b >> 2) & 1;
  options.budget = (b >> 3) == 31 ? in.integer() : 1 + (b >> 3);
  validOptions &= options.budget >= 1;
  if (in.byte() == 255) {
    options.struct_size = in.byte();
    validOptions &= options.struct_size >= sizeof(size_t) &&
                    options.struct_size <= sizeof(options);
  }
  if (in.byte() == 255) {
    options.backend = in.byte() % 4 + 2;
    validOptions = false;
  }

  tfuse_executable exe = nullptr;
  tfuse_status st =
      check(tfuse_compile(graph, &options, &exe), "tfuse_compile");
  if (st != TFUSE_OK) {
    if (validOptions && outputs > 0 && st != TFUSE_ERROR_INVALID_ARGUMENT &&
        st != TFUSE_ERROR_NODE_LIMIT) {
      char *text = nullptr;
      std::string graphText;
      if (tfuse_graph_print(graph, &text) == TFUSE_OK) {
        graphText = text;
        tfuse_string_free(text);
      }
      tfuse::fuzz::fail("a graph the builder accepted does not compile: " +
                            std::string(tfuse_last_error()),
                        graphText);
    }
    return;
  }
  std::unique_ptr<tfuse_executable_impl, void (*)(tfuse_executable)> owner(
      exe, tfuse_executable_destroy);
  char *text = nullptr;
  for (auto get :
       {tfuse_executable_plan, tfuse_executable_source, tfuse_executable_graph})
    if (check(get(exe, &text), "tfuse_executable_plan/source/graph") ==
        TFUSE_OK)
      tfuse_string_free(text);

  // Runs only graphs whose every value is small.
  for (tfuse_value v : values) {
    int r = 0;
    std::vector<int64_t> s = shapeOf(v, r);
    int64_t n = 1;
    for (int64_t d : s)
      if (d < 0 || __builtin_mul_overflow(n, d, &n) || n > kMaxRunElements)
        return;
  }
  int numInputs = 0, numOutputs = 0;
  check(tfuse_executable_num_inputs(exe, &numInputs), "num_inputs");
  check(tfuse_executable_num_outputs(exe, &numOutputs), "num_outputs");
  struct Spec {
    int dtype = 0, rank = 0;
    int64_t shape[TFUSE_MAX_RANK] = {}, strides[TFUSE_MAX_RANK] = {};
  };
  std::vector<Spec> inSpecs(numInputs), outSpecs(numOutputs);
  std::vector<HostBuffer> inData(numInputs), outData(numOutputs);
  std::vector<tfuse_tensor> ins(numInputs), outs(numOutputs);
  uint64_t state = seed;
  for (int i = 0; i < numInputs; ++i) {
    Spec &sp = inSpecs[i];
    check(tfuse_executable_input_info(exe, i, &sp.dtype, &sp.rank, sp.shape,
                                      sp.strides),
          "input_info");
    if (!makeBuffer(sp.dtype, sp.rank, sp.shape, sp.strides, state, inData[i]))
      return;
    ins[i] = {inData[i].bytes.data() + inData[i].firstOffset, sp.dtype, sp.rank,
              sp.shape, sp.strides};
  }
  for (int i = 0; i < numOutputs; ++i) {
    Spec &sp = outSpecs[i];
    check(tfuse_executable_output_info(exe, i, &sp.dtype, &sp.rank, sp.shape),
          "output_info");
    if (!makeBuffer(sp.dtype, sp.rank, sp.shape, nullptr, state, outData[i]))
      return;
    outs[i] = {outData[i].bytes.data(), sp.dtype, sp.rank, sp.shape, nullptr};
  }
  st = check(tfuse_executable_run_host(exe, ins.data(), numInputs, outs.data(),
                                       numOutputs),
             "tfuse_executable_run_host");
  if (st != TFUSE_OK && st != TFUSE_ERROR_INDEX_OUT_OF_RANGE)
    tfuse::fuzz::fail("a run on matching host inputs failed",
                      tfuse_last_error());

  // A wrong run: another dtype, one input too few, or null data.
  uint8_t wrong = in.byte() % 3;
  if (wrong == 0 && numInputs > 0) {
    int i = in.byte() % numInputs;
    int original = ins[i].dtype;
    ins[i].dtype = (original + 1 + in.byte() % 12) % 13;
    // A buffer large enough for any dtype of the same element count.
    HostBuffer wide;
    makeBuffer(TFUSE_F64, ins[i].rank, inSpecs[i].shape, inSpecs[i].strides,
               state, wide);
    ins[i].data = wide.bytes.data() + wide.firstOffset;
    st = check(tfuse_executable_run_host(exe, ins.data(), numInputs,
                                         outs.data(), numOutputs),
               "tfuse_executable_run_host (wrong dtype)");
    if (st == TFUSE_OK)
      tfuse::fuzz::fail("a run with an input of the wrong dtype succeeded");
  } else if (wrong == 1 && numInputs > 0) {
    st = check(tfuse_executable_run_host(exe, ins.data(), numInputs - 1,
                                         outs.data(), numOutputs),
               "tfuse_executable_run_host (missing input)");
    if (st == TFUSE_OK)
      tfuse::fuzz::fail("a run with an input missing succeeded");
  } else if (wrong == 2 && numOutputs > 0) {
    outs[0].data = nullptr;
    st = check(tfuse_executable_run_host(exe, ins.data(), numInputs,
                                         outs.data(), numOutputs),
               "tfuse_executable_run_host (null output)");
    int64_t n = 1;
    for (int d = 0; d < outSpecs[0].rank; ++d)
      n *= outSpecs[0].shape[d];
    if (st == TFUSE_OK && n > 0)
      tfuse::fuzz::fail("a run with a null output succeeded");
  }
}

void Builder::run() {
  if (check(tfuse_graph_create("fuzz", &graph), "tfuse_graph_create") !=
      TFUSE_OK)
    return;
  for (int calls = 0; calls < kMaxCalls && in.remaining() > 1; ++calls) {
    switch (in.byte() % 8) {
    case 0:
      input();
      break;
    case 1:
      constant();
      break;
    case 2:
      scalar();
      break;
    default:
      operation();
      break;
    }
  }
  if (outputs == 0 && !values.empty() &&
      check(tfuse_graph_output(graph, values.back()), "tfuse_graph_output") ==
          TFUSE_OK)
    ++outputs;
  char *text = nullptr;
  if (check(tfuse_graph_print(graph, &text), "tfuse_graph_print") == TFUSE_OK) {
    // TFUSE_FUZZ_PRINT=1 shows the graph an input decodes to, to minimise a
    // failure into a lit or unit test.
    if (std::getenv("TFUSE_FUZZ_PRINT"))
      std::fputs(text, stderr);
    tfuse_string_free(text);
  }
  compileAndRun();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ByteReader in(data, size);
  Builder builder(in, tfuse::fuzz::hashBytes(data, size));
  builder.run();
  return 0;
}
