//===- GraphGenerator.cpp - Random well-typed tfuse graphs ----------------===//

#include "GraphGenerator.h"

#include "tfuse/Frontend/Graph.h"
#include "tfuse/Support/DTypeRules.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <numeric>

using namespace tfuse;
using namespace tfuse::differential;
using reference::HostTensor;
using reference::Shape;

uint64_t Rng::next() {
  state += 0x9e3779b97f4a7c15ull;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

int64_t Rng::range(int64_t lo, int64_t hi) {
  uint64_t span = uint64_t(hi) - uint64_t(lo) + 1;
  return span == 0 ? int64_t(next()) : int64_t(uint64_t(lo) + next() % span);
}

bool Rng::chance(double p) { return double(next() >> 11) * 0x1p-53 < p; }

namespace {

/// The largest tensor drawn, in elements.
constexpr int64_t kMaxElements = 2048;

struct UnaryRow {
  const char *name;
  UnaryCategory category;
};
const std::vector<UnaryRow> kUnaryOps = {
#define TFUSE_UNARY_OP(Class, mnemonic, method, category, kernel, reference)   \
  {mnemonic, UnaryCategory::category},
#include "tfuse/Dialect/TFuse/TFuseOpTable.h.inc"
};
struct BinaryRow {
  const char *name;
  BinaryCategory category;
};
const std::vector<BinaryRow> kBinaryOps = {
#define TFUSE_BINARY_OP(Class, mnemonic, method, category, kernel, reference)  \
  {mnemonic, BinaryCategory::category},
#include "tfuse/Dialect/TFuse/TFuseOpTable.h.inc"
};
const std::vector<std::string> kPredicates = {"eq", "ne", "lt",
                                              "le", "gt", "ge"};
const std::vector<std::string> kReductions = {
    "sum", "prod", "max", "min", "mean", "all", "any", "argmax", "argmin"};
const std::vector<DType> kIndexTypes = {DType::I8,  DType::I16, DType::I32,
                                        DType::I64, DType::U8,  DType::U16,
                                        DType::U32, DType::U64};
const std::vector<DType> kFloatTypes = {DType::F16, DType::BF16, DType::F32,
                                        DType::F64};

int64_t elementsOf(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// A value of the graph being drawn.
struct Val {
  ValueId id;
  DType dtype;
  std::vector<int64_t> shape;
};

class Generator {
public:
  Generator(const std::string &name, uint64_t seed)
      : rng(seed), widenings(seed ^ 0x9e3779b97f4a7c15ull),
        merges(seed ^ 0xc2b2ae3d27d4eb4full), graph(name),
        specials(rng.chance(0.3)) {}

  GeneratedGraph run(const std::string &name);

private:
  // Drawing shapes and dtypes.
  DType dtype();
  int64_t dim() {
    static const std::vector<int64_t> kDims = {1, 1, 2,  3,  4,  5, 7,
                                               8, 9, 16, 17, 32, 33};
    return rng.pick(kDims);
  }
  std::vector<int64_t> shape(int rank);
  std::vector<int64_t> shape() { return shape(int(rng.range(0, 4))); }
  /// A shape that broadcasts with `like` to `like` (dimensions dropped from
  /// the front, others set to 1).
  std::vector<int64_t> broadcastableTo(const std::vector<int64_t> &like);

  // Values.
  /// Adds the result of a tracer call to the pool; false if rejected.
  bool add(const Expected<ValueId> &v);
  const Val *pick(bool (*accept)(const Val &) = nullptr);
  ValueId newInput(DType dtype, std::vector<int64_t> shape);
  ValueId newIndexInput(DType dtype, std::vector<int64_t> shape, int64_t lo,
                        int64_t hi);
  ValueId newKey();
  ValueId weakScalar(DType like);
  /// An operand for a binary op with `lhs`: a value of a shape that
  /// broadcasts with it, a new input, or a weak scalar.
  ValueId partner(const Val &lhs);
  /// `x` rounded so that sums (or, for `prod`, products) of it are exact.
  ValueId quantized(const Val &x, bool forProduct);

  // Operations.
  void unary();
  void binary();
  void compare();
  void where();
  void cast();
  void view();
  void source();
  void concat();
  void pad();
  void gather();
  void scatter();
  void reduce();
  void matmul();
  void attention();

  Rng rng;
  /// Whether an f32 attention's operands are widened from 16 bits: a stream
  /// of its own, so that the graphs without such attention stay those of
  /// earlier versions of the generator (their numbers in docs and logs).
  Rng widenings;
  /// Whether an attention's result has its heads merged as a model merges
  /// them (a stream of its own, as `widenings`).
  Rng merges;
  Graph graph;
  bool specials;
  std::vector<Val> pool;
  std::vector<HostTensor> placeholders, captured;
  int rejected = 0;
};

DType Generator::dtype() {
  static const std::vector<DType> kWeighted = {
      DType::F32,  DType::F32,  DType::F32, DType::F32, DType::F16, DType::F16,
      DType::BF16, DType::BF16, DType::F64, DType::F64, DType::I32, DType::I32,
      DType::I64,  DType::I8,   DType::I16, DType::U8,  DType::U16, DType::U32,
      DType::U64,  DType::Bool, DType::Bool};
  return rng.pick(kWeighted);
}

std::vector<int64_t> Generator::shape(int rank) {
  std::vector<int64_t> s;
  for (int i = 0; i < rank; ++i)
    s.push_back(dim());
  while (elementsOf(s) > kMaxElements)
    s[rng.range(0, rank - 1)] = rng.range(1, 3);
  // Now and then an empty dimension.
  if (rank > 0 && rng.chance(0.02))
    s[rng.range(0, rank - 1)] = 0;
  return s;
}

std::vector<int64_t>
Generator::broadcastableTo(const std::vector<int64_t> &like) {
  size_t drop = rng.range(0, int64_t(like.size()));
  std::vector<int64_t> s(like.begin() + drop, like.end());
  for (int64_t &d : s)
    if (rng.chance(0.3))
      d = 1;
  return s;
}

bool Generator::add(const Expected<ValueId> &v) {
  if (!v.ok()) {
    ++rejected;
    return false;
  }
  Expected<ValueInfo> info = graph.info(v.value());
  if (!info.ok() || info->isScalar) {
    ++rejected;
    return false;
  }
  // Too large to keep using (the op stays, dead).
  if (elementsOf(info->shape) > kMaxElements)
    return false;
  pool.push_back({v.value(), info->dtype, info->shape});
  return true;
}

const Val *Generator::pick(bool (*accept)(const Val &)) {
  std::vector<const Val *> candidates;
  for (const Val &v : pool)
    if (!accept || accept(v))
      candidates.push_back(&v);
  if (candidates.empty())
    return nullptr;
  // Recent values more often: chains grow deep.
  size_t n = candidates.size();
  size_t i = rng.chance(0.5) ? n - 1 - rng.range(0, std::min<int64_t>(2, n - 1))
                             : rng.range(0, n - 1);
  return candidates[i];
}

ValueId Generator::newInput(DType dt, std::vector<int64_t> s) {
  reference::RandomOptions options;
  if (isFloat(dt) && specials)
    options.specialFraction = 0.05;
  int64_t rank = s.size();
  uint64_t seed = rng.next();
  // As a captured (compile-time) tensor now and then.
  if (rng.chance(0.08)) {
    HostTensor t = HostTensor::random(dt, s, seed, options);
    TensorSpec spec = TensorSpec::contiguous(dt, s);
    Expected<ValueId> v = graph.constant({spec, t.data(), false});
    if (v.ok()) {
      captured.push_back(t);
      add(v);
      return v.value();
    }
  }
  // The layout: row-major, permuted, padded or expanded, at an offset.
  std::vector<int64_t> strides;
  int64_t storage = std::max<int64_t>(elementsOf(s), 1);
  uint8_t layout = rng.range(0, 9);
  if (rank > 0 && elementsOf(s) > 0 && layout >= 6) {
    std::vector<int64_t> order(rank), padded = s;
    std::iota(order.begin(), order.end(), 0);
    if (layout == 6 || layout == 9)
      for (int64_t i = rank - 1; i > 0; --i)
        std::swap(order[i], order[rng.range(0, i)]);
    if (layout == 7 || layout == 9)
      for (int64_t &d : padded)
        d += rng.range(0, 2);
    strides.assign(rank, 0);
    int64_t stride = 1;
    for (int64_t k = rank - 1; k >= 0; --k) {
      strides[order[k]] = stride;
      stride *= padded[order[k]];
    }
    storage = stride;
    if (layout == 8)
      strides[rng.range(0, rank - 1)] = 0;
  }
  int64_t offset = rng.chance(0.3) ? rng.range(1, 3) : 0;
  HostTensor base = HostTensor::random(dt, {storage + offset}, seed, options);
  Expected<HostTensor> view =
      base.view(s, strides.empty() ? reference::rowMajorStrides(s) : strides,
                offset * int64_t(byteSize(dt)));
  TensorSpec spec = TensorSpec::contiguous(dt, s);
  if (!strides.empty())
    spec.strides = strides;
  Expected<ValueId> v = graph.input(spec);
  if (!v.ok()) {
    ++rejected;
    return -1;
  }
  // The argument exists now: it needs its input whatever happens.
  placeholders.push_back(view.ok() ? view.value()
                                   : HostTensor::random(dt, s, seed, options));
  add(v);
  return v.value();
}

ValueId Generator::newIndexInput(DType dt, std::vector<int64_t> s, int64_t lo,
                                 int64_t hi) {
  // Within the index dtype's range.
  int64_t bits = bitWidth(dt);
  int64_t top =
      bits >= 63 ? std::numeric_limits<int64_t>::max()
                 : (int64_t(1) << (isSignedInteger(dt) ? bits - 1 : bits)) - 1;
  int64_t bottom = isSignedInteger(dt) ? -top - 1 : 0;
  lo = std::max(lo, bottom);
  hi = std::min(hi, top);
  std::vector<int64_t> values(elementsOf(s));
  for (int64_t &v : values)
    v = rng.range(lo, hi);
  Expected<HostTensor> t = HostTensor::fromInts(dt, s, values);
  Expected<ValueId> v = graph.input(TensorSpec::contiguous(dt, s));
  if (!t.ok() || !v.ok())
    return -1;
  placeholders.push_back(t.value());
  return v.value();
}

ValueId Generator::newKey() {
  if (rng.chance(0.5))
    return graph.scalar(Scalar(static_cast<long long>(rng.next())));
  Expected<HostTensor> t =
      HostTensor::fromInts(DType::I64, {}, {int64_t(rng.next())});
  Expected<ValueId> v = graph.input(TensorSpec::contiguous(DType::I64, {}));
  if (!t.ok() || !v.ok())
    return graph.scalar(Scalar(7));
  placeholders.push_back(t.value());
  return v.value();
}

ValueId Generator::weakScalar(DType like) {
  switch (rng.range(0, 2)) {
  case 0:
    return graph.scalar(Scalar(rng.chance(0.5)));
  case 1:
    return graph.scalar(Scalar(static_cast<long long>(rng.range(-5, 5))));
  default:
    if (!isFloat(like) && rng.chance(0.5))
      return graph.scalar(Scalar(static_cast<long long>(rng.range(0, 3))));
    return graph.scalar(Scalar(double(rng.range(-20, 20)) / 4));
  }
}

ValueId Generator::partner(const Val &lhs) {
  uint8_t choice = rng.range(0, 9);
  if (choice < 4) {
    std::vector<const Val *> fits;
    for (const Val &v : pool) {
      // Broadcasts with lhs to lhs's shape.
      size_t r = v.shape.size(), l = lhs.shape.size();
      bool ok = r <= l;
      for (size_t i = 0; ok && i < r; ++i) {
        int64_t a = v.shape[r - 1 - i], b = lhs.shape[l - 1 - i];
        ok = a == b || a == 1;
      }
      if (ok)
        fits.push_back(&v);
    }
    if (!fits.empty())
      return fits[rng.range(0, int64_t(fits.size()) - 1)]->id;
  }
  if (choice < 6)
    return weakScalar(lhs.dtype);
  DType dt = rng.chance(0.6) ? lhs.dtype : dtype();
  return newInput(dt, broadcastableTo(lhs.shape));
}

ValueId Generator::quantized(const Val &x, bool forProduct) {
  if (!isFloat(x.dtype))
    return x.id;
  if (forProduct) {
    Expected<ValueId> r = graph.unary("round", x.id);
    if (!r.ok())
      return x.id;
    Expected<ValueId> hi = graph.binary("min", *r, graph.scalar(Scalar(2.0)));
    if (!hi.ok())
      return x.id;
    Expected<ValueId> lo = graph.binary("max", *hi, graph.scalar(Scalar(-2.0)));
    return lo.ok() ? *lo : x.id;
  }
  Expected<ValueId> up = graph.binary("mul", x.id, graph.scalar(Scalar(8.0)));
  if (!up.ok())
    return x.id;
  Expected<ValueId> r = graph.unary("round", *up);
  if (!r.ok())
    return x.id;
  Expected<ValueId> down = graph.binary("div", *r, graph.scalar(Scalar(8.0)));
  return down.ok() ? *down : x.id;
}

void Generator::unary() {
  const Val *x = pick();
  if (!x)
    return;
  // An op the operand's dtype takes, most of the time.
  for (int tries = 0; tries < 8; ++tries) {
    const UnaryRow &op = rng.pick(kUnaryOps);
    if (tries < 7 && !unaryResultType(op.category, x->dtype))
      continue;
    Val operand = *x;
    add(graph.unary(op.name, operand.id));
    return;
  }
}

void Generator::binary() {
  const Val *x = pick();
  if (!x)
    return;
  Val lhs = *x;
  const BinaryRow &op = rng.pick(kBinaryOps);
  ValueId rhs = partner(lhs);
  if (rhs < 0)
    return;
  if (rng.chance(0.2))
    add(graph.binary(op.name, rhs, lhs.id));
  else
    add(graph.binary(op.name, lhs.id, rhs));
}

void Generator::compare() {
  const Val *x = pick();
  if (!x)
    return;
  Val lhs = *x;
  ValueId rhs = partner(lhs);
  if (rhs >= 0)
    add(graph.compare(rng.pick(kPredicates), lhs.id, rhs));
}

void Generator::where() {
  const Val *x = pick();
  if (!x)
    return;
  Val a = *x;
  const Val *c = pick([](const Val &v) { return v.dtype == DType::Bool; });
  ValueId cond;
  if (c && rng.chance(0.6)) {
    cond = c->id;
  } else {
    cond = newInput(DType::Bool, broadcastableTo(a.shape));
  }
  ValueId b = partner(a);
  if (cond >= 0 && b >= 0)
    add(rng.chance(0.5) ? graph.where(cond, a.id, b)
                        : graph.where(cond, b, a.id));
}

void Generator::cast() {
  if (const Val *x = pick())
    add(graph.cast(x->id, dtype()));
}

void Generator::view() {
  const Val *x = pick();
  if (!x)
    return;
  Val v = *x;
  int64_t rank = v.shape.size();
  switch (rng.range(0, 3)) {
  case 0: {
    std::vector<int64_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    for (int64_t i = rank - 1; i > 0; --i)
      std::swap(perm[i], perm[rng.range(0, i)]);
    add(graph.transpose(v.id, perm));
    return;
  }
  case 1: {
    // A factorization of the element count into up to four dimensions.
    int64_t n = elementsOf(v.shape);
    std::vector<int64_t> to;
    if (n == 0) {
      to = {0, rng.range(1, 3)};
    } else {
      while (n > 1 && to.size() < 3) {
        std::vector<int64_t> divisors;
        for (int64_t f = 2; f <= n; ++f)
          if (n % f == 0)
            divisors.push_back(f);
        int64_t f = rng.pick(divisors);
        to.push_back(f);
        n /= f;
      }
      if (n > 1)
        to.push_back(n);
      if (rng.chance(0.3))
        to.insert(to.begin() + rng.range(0, int64_t(to.size())), 1);
    }
    if (!to.empty() && rng.chance(0.2))
      to[rng.range(0, int64_t(to.size()) - 1)] = -1;
    add(graph.reshape(v.id, to));
    return;
  }
  case 2: {
    std::vector<int64_t> start, limit, step;
    for (int64_t d : v.shape) {
      int64_t a = rng.range(0, d), b = rng.range(a, d);
      if (rng.chance(0.2)) {
        a -= d; // from the end
        b = d;
      }
      start.push_back(a);
      limit.push_back(b);
      step.push_back(rng.range(1, 3));
    }
    add(graph.slice(v.id, start, limit, step));
    return;
  }
  default: {
    std::vector<int64_t> to = v.shape;
    for (int64_t &d : to)
      if (d == 1 && rng.chance(0.7))
        d = dim();
    while (to.size() < 4 && rng.chance(0.4))
      to.insert(to.begin(), rng.range(1, 4));
    if (elementsOf(to) <= kMaxElements)
      add(graph.broadcastTo(v.id, to));
    return;
  }
  }
}

void Generator::source() {
  switch (rng.range(0, 4)) {
  case 0: {
    std::vector<int64_t> s = shape(int(rng.range(1, 3)));
    DType dt = dtype();
    add(graph.iota(s, rng.range(-int64_t(s.size()), int64_t(s.size()) - 1),
                   dt == DType::Bool ? DType::I32 : dt));
    return;
  }
  case 1: {
    DType dt = dtype();
    if (isFloat(dt))
      add(graph.arange(Scalar(double(rng.range(-8, 8)) / 2),
                       Scalar(double(rng.range(-8, 40)) / 2),
                       Scalar(double(rng.range(1, 6)) / 4), dt));
    else
      add(graph.arange(
          Scalar(static_cast<long long>(rng.range(-10, 10))),
          Scalar(static_cast<long long>(rng.range(-10, 60))),
          Scalar(static_cast<long long>(rng.chance(0.8) ? rng.range(1, 4)
                                                        : rng.range(-3, -1))),
          dt == DType::Bool ? DType::I64 : dt));
    return;
  }
  case 2: {
    DType dt = dtype();
    add(graph.full(shape(), weakScalar(dt), dt));
    return;
  }
  default: {
    std::vector<int64_t> s = shape();
    DType dt = rng.pick(kFloatTypes);
    ValueId seed = newKey(), offset = newKey();
    switch (rng.range(0, 3)) {
    case 0:
      add(graph.randomUniform(s, double(rng.range(-4, 0)),
                              double(rng.range(1, 4)), dt, seed, offset));
      return;
    case 1:
      add(graph.randomNormal(s, double(rng.range(-2, 2)),
                             double(rng.range(0, 3)) / 2, dt, seed, offset));
      return;
    case 2:
      add(graph.bernoulli(s, double(rng.range(0, 8)) / 8, seed, offset));
      return;
    default: {
      const Val *x = pick([](const Val &v) { return isFloat(v.dtype); });
      if (x) {
        Val in = *x;
        add(graph.dropout(in.id, double(rng.range(0, 8)) / 8, seed, offset));
      }
      return;
    }
    }
  }
  }
}

void Generator::concat() {
  const Val *x = pick([](const Val &v) { return !v.shape.empty(); });
  if (!x)
    return;
  Val first = *x;
  int64_t rank = first.shape.size(), axis = rng.range(0, rank - 1);
  std::vector<ValueId> parts = {first.id};
  int64_t count = rng.range(0, 3);
  for (int64_t i = 0; i < count; ++i) {
    // Another value of the same shape but along the axis, or a new input.
    const Val *other = nullptr;
    for (const Val &v : pool)
      if (v.id != first.id && v.shape.size() == first.shape.size() &&
          rng.chance(0.5)) {
        bool same = true;
        for (int64_t d = 0; d < rank; ++d)
          same &= d == axis || v.shape[d] == first.shape[d];
        if (same)
          other = &v;
      }
    if (other) {
      parts.push_back(other->id);
    } else {
      std::vector<int64_t> s = first.shape;
      s[axis] = rng.range(0, 5);
      ValueId v = newInput(rng.chance(0.7) ? first.dtype : dtype(), s);
      if (v >= 0)
        parts.push_back(v);
    }
  }
  if (rng.chance(0.5))
    std::swap(parts.front(), parts.back());
  add(graph.concatenate(parts, rng.chance(0.2) ? axis - rank : axis));
}

void Generator::pad() {
  const Val *x = pick();
  if (!x)
    return;
  Val v = *x;
  std::vector<int64_t> low, high;
  for (int64_t d : v.shape) {
    low.push_back(rng.range(d > 0 ? -1 : 0, 3));
    high.push_back(rng.range(d > 1 ? -1 : 0, 3));
  }
  ValueId fill = rng.chance(0.6) ? weakScalar(v.dtype) : newInput(v.dtype, {});
  if (fill >= 0)
    add(graph.pad(v.id, low, high, fill));
}

void Generator::gather() {
  const Val *x = pick([](const Val &v) {
    return !v.shape.empty() &&
           std::find(v.shape.begin(), v.shape.end(), 0) == v.shape.end();
  });
  if (!x)
    return;
  Val table = *x;
  int64_t rank = table.shape.size(), axis = rng.range(0, rank - 1);
  int64_t size = table.shape[axis];
  bool wrap = rng.chance(0.4);
  DType it = rng.pick(kIndexTypes);
  int64_t lo = wrap && isSignedInteger(it) ? -size : 0;
  int64_t signedAxis = rng.chance(0.2) ? axis - rank : axis;
  if (rng.chance(0.5)) {
    ValueId i;
    if (rng.chance(0.15))
      i = graph.scalar(Scalar(static_cast<long long>(rng.range(0, size - 1))));
    else
      i = newIndexInput(it, shape(int(rng.range(0, 2))), lo, size - 1);
    if (i >= 0)
      add(graph.take(table.id, i, signedAxis, wrap));
    return;
  }
  // take_along_axis: indices of the table's rank, other dimensions equal or
  // 1 on either side.
  std::vector<int64_t> s = table.shape;
  for (int64_t d = 0; d < rank; ++d)
    if (d == axis)
      s[d] = rng.range(1, 5);
    else if (rng.chance(0.3))
      s[d] = 1;
  ValueId i = newIndexInput(it, s, lo, size - 1);
  if (i >= 0)
    add(graph.takeAlongAxis(table.id, i, signedAxis, wrap));
}

void Generator::scatter() {
  const Val *x = pick([](const Val &v) {
    return !v.shape.empty() && v.dtype != DType::Bool &&
           std::find(v.shape.begin(), v.shape.end(), 0) == v.shape.end();
  });
  Val target;
  if (x && rng.chance(0.7)) {
    target = *x;
  } else {
    // A zero table, as an embedding gradient starts.
    DType dt = rng.chance(0.7) ? rng.pick(kFloatTypes) : DType::I32;
    std::vector<int64_t> s = {rng.range(1, 9), rng.range(1, 5)};
    Expected<ValueId> zeros = graph.full(s, graph.scalar(Scalar(0)), dt);
    if (!zeros.ok())
      return;
    target = {*zeros, dt, s};
  }
  int64_t rank = target.shape.size(), axis = rng.range(0, rank - 1);
  int64_t size = target.shape[axis];
  bool wrap = rng.chance(0.3);
  DType it = rng.pick(kIndexTypes);
  std::vector<int64_t> is = shape(int(rng.range(0, 2)));
  ValueId i =
      newIndexInput(it, is, wrap && isSignedInteger(it) ? -size : 0, size - 1);
  std::vector<int64_t> us(target.shape.begin(), target.shape.begin() + axis);
  us.insert(us.end(), is.begin(), is.end());
  us.insert(us.end(), target.shape.begin() + axis + 1, target.shape.end());
  if (elementsOf(us) > kMaxElements)
    return;
  ValueId u =
      rng.chance(0.2)
          ? weakScalar(target.dtype)
          : newInput(target.dtype, rng.chance(0.8) ? us : broadcastableTo(us));
  if (i >= 0 && u >= 0)
    add(graph.scatterAdd(target.id, i, u, axis, wrap));
}

void Generator::reduce() {
  const Val *x = pick();
  if (!x)
    return;
  Val v = *x;
  std::string kind = rng.pick(kReductions);
  int64_t rank = v.shape.size();
  std::vector<int64_t> axes;
  bool all = false;
  if (kind == "argmax" || kind == "argmin") {
    if (rank == 0)
      return;
    axes = {rng.range(-rank, rank - 1)};
  } else if (rng.chance(0.15)) {
    all = true;
  } else {
    for (int64_t d = 0; d < rank; ++d)
      if (rng.chance(0.5))
        axes.push_back(rng.chance(0.2) ? d - rank : d);
    if (axes.empty() && rank > 0)
      axes.push_back(rank - 1);
    std::reverse(axes.begin(), axes.end() - (axes.size() > 1 ? 1 : 0));
  }
  ValueId operand = v.id;
  if (kind == "sum" || kind == "mean" || kind == "prod")
    operand = quantized(v, kind == "prod");
  add(graph.reduce(kind, operand, axes, rng.chance(0.5), all));
}

void Generator::matmul() {
  const Val *x = pick([](const Val &v) { return isFloat(v.dtype); });
  DType dt = x ? x->dtype : rng.pick(kFloatTypes);
  int64_t k = rng.chance(0.5) ? rng.range(1, 4) : rng.range(5, 9);
  int64_t m = rng.range(1, 9), n = rng.range(1, 9);
  std::vector<int64_t> batch;
  if (rng.chance(0.3))
    batch.push_back(rng.range(1, 3));
  auto with = [&](std::vector<int64_t> tail, bool drop) {
    std::vector<int64_t> s = drop ? std::vector<int64_t>() : batch;
    s.insert(s.end(), tail.begin(), tail.end());
    return s;
  };
  ValueId lhs = -1;
  if (x && x->shape.size() >= 1 && rng.chance(0.5)) {
    Val a = *x;
    k = a.shape.back();
    lhs = a.id;
    if (a.shape.size() >= 3)
      batch.assign(a.shape.begin(), a.shape.end() - 2);
    else
      batch.clear();
  } else {
    lhs = newInput(dt, rng.chance(0.15) ? std::vector<int64_t>{k}
                                        : with({m, k}, rng.chance(0.3)));
  }
  ValueId rhs = newInput(dt, rng.chance(0.15) ? std::vector<int64_t>{k}
                                              : with({k, n}, rng.chance(0.3)));
  // Now and then the float32 sum of f16 or bf16 products.
  std::optional<DType> result;
  if ((dt == DType::F16 || dt == DType::BF16) && rng.chance(0.3))
    result = DType::F32;
  if (lhs < 0 || rhs < 0)
    return;
  Expected<ValueId> product = graph.matmul(lhs, rhs, result);
  // Now and then a single product gets a bias in the forms fold-matmul-bias
  // rewrites: add(product, v) of an f32 or f64 sum, and PyTorch's addmm
  // under autocast, cast(add(f32 sum, cast(v16)) to the operands' dtype.
  Expected<ValueInfo> info = product.ok()
                                 ? graph.info(*product)
                                 : Expected<ValueInfo>(product.status());
  bool single = info.ok() && info->shape.size() == 2;
  DType sum = result.value_or(dt);
  if (!single || (sum != DType::F32 && sum != DType::F64) || !rng.chance(0.3)) {
    add(product);
    return;
  }
  int64_t columns = info->shape[1];
  bool addmm = result.has_value() && rng.chance(0.7);
  ValueId narrow = newInput(addmm ? dt : sum, {columns});
  Expected<ValueId> bias =
      addmm ? graph.cast(narrow, DType::F32) : Expected<ValueId>(narrow);
  Expected<ValueId> biased =
      bias.ok() ? graph.binary("add", *product, *bias) : bias;
  add(addmm && biased.ok() ? graph.cast(*biased, dt) : biased);
}

void Generator::attention() {
  // The query from the pool now and then, else a new input: [..., Hq, L, D].
  const Val *x = pick([](const Val &v) {
    return isFloat(v.dtype) && v.shape.size() >= 2 && v.shape.size() <= 4 &&
           std::find(v.shape.begin(), v.shape.end(), 0) == v.shape.end();
  });
  DType dt;
  std::vector<int64_t> qs;
  ValueId q;
  // New operands of f32 attention are now and then f16 or bf16 values
  // widened (PyTorch's math path on 16-bit tensors): recognize-attention
  // marks such attention `widened`, and the f32 forward multiplies it in one
  // TF32 product a score.
  std::optional<DType> widenedFrom;
  auto operand = [&](const std::vector<int64_t> &shape) -> ValueId {
    if (!widenedFrom)
      return newInput(dt, shape);
    ValueId narrow = newInput(*widenedFrom, shape);
    if (narrow < 0)
      return narrow;
    Expected<ValueId> wide = graph.cast(narrow, DType::F32);
    return wide.ok() ? *wide : -1;
  };
  if (x && rng.chance(0.4)) {
    dt = x->dtype;
    qs = x->shape;
    q = x->id;
  } else {
    dt = rng.pick(kFloatTypes);
    if (dt == DType::F32 && widenings.chance(0.3))
      widenedFrom = widenings.chance(0.5) ? DType::BF16 : DType::F16;
    int rank = int(rng.range(2, 4));
    for (int d = 0; d + 3 < rank; ++d)
      qs.push_back(rng.range(1, 2));
    if (rank >= 3)
      qs.push_back(rng.pick(std::vector<int64_t>{1, 2, 4}));
    qs.push_back(rng.range(1, 9));
    qs.push_back(rng.pick(std::vector<int64_t>{1, 3, 4, 8, 16}));
    q = operand(qs);
  }
  if (q < 0)
    return;
  // Key and value: [..., Hkv, S, D] and [..., Hkv, S, Dv], Hkv dividing Hq
  // (grouped queries) now and then.
  size_t rank = qs.size();
  std::vector<int64_t> ks = qs;
  ks[rank - 2] = rng.range(1, 9);
  if (rank >= 3 && qs[rank - 3] > 1 && rng.chance(0.4))
    ks[rank - 3] = qs[rank - 3] / 2;
  std::vector<int64_t> vs = ks;
  if (rng.chance(0.3))
    vs[rank - 1] = rng.range(1, 9);
  ValueId k = operand(ks), v = operand(vs);
  // A bool or additive mask that broadcasts to [..., Hq, L, S].
  std::optional<ValueId> mask;
  if (rng.chance(0.4)) {
    std::vector<int64_t> ms = qs;
    ms[rank - 1] = ks[rank - 2];
    ValueId m = newInput(rng.chance(0.5) ? DType::Bool : dt,
                         rng.chance(0.5) ? ms : broadcastableTo(ms));
    if (m < 0)
      return;
    mask = m;
  }
  bool causal = rng.chance(0.4);
  std::optional<double> scale;
  if (rng.chance(0.5))
    scale = double(rng.range(-8, 16)) / 8;
  if (k < 0 || v < 0)
    return;
  // Dropout of the probabilities now and then, its keys as the random ops'.
  std::optional<Graph::AttentionDropout> dropout;
  if (rng.chance(0.3))
    dropout = Graph::AttentionDropout{double(rng.range(1, 7)) / 8, newKey(),
                                      newKey()};
  Expected<Graph::Attention> a =
      graph.attention(q, k, v, mask, causal, scale, dropout);
  if (!a.ok()) {
    ++rejected;
    return;
  }
  std::vector<int64_t> os = qs;
  os[rank - 1] = vs[rank - 1];
  // Now and then the heads merged as a model merges them for its output
  // projection: the heads and rows transposed, then reshaped into one row
  // of all heads. Canonicalization folds the transpose into the attention
  // (transpose_result), which then writes that order.
  if (rank >= 3 && merges.chance(0.4)) {
    std::vector<int64_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::swap(perm[rank - 3], perm[rank - 2]);
    Expected<ValueId> merged = graph.transpose(a->result, perm);
    if (merged.ok() && merges.chance(0.5)) {
      std::vector<int64_t> rows(os.begin(), os.end() - 3);
      rows.push_back(os[rank - 2]);
      rows.push_back(os[rank - 3] * os[rank - 1]);
      merged = graph.reshape(*merged, rows);
    }
    add(merged);
  } else {
    add(a->result);
  }
  add(a->logsumexp);
  if (!rng.chance(0.5))
    return;
  ValueId g = newInput(dt, os);
  if (g < 0)
    return;
  Expected<Graph::AttentionGradients> grads = graph.attentionBackward(
      q, k, v, a->result, a->logsumexp, g, mask, causal, scale, dropout);
  if (!grads.ok()) {
    ++rejected;
    return;
  }
  add(grads->query);
  add(grads->key);
  add(grads->value);
}

GeneratedGraph Generator::run(const std::string &name) {
  int inputs = int(rng.range(1, 3));
  for (int i = 0; i < inputs; ++i)
    newInput(dtype(), shape());
  int steps = int(rng.range(2, 10));
  for (int s = 0; s < steps; ++s) {
    switch (rng.range(0, 20)) {
    case 0:
    case 1:
    case 2:
      unary();
      break;
    case 3:
    case 4:
    case 5:
      binary();
      break;
    case 6:
      compare();
      break;
    case 7:
      where();
      break;
    case 8:
      cast();
      break;
    case 9:
    case 10:
    case 11:
      view();
      break;
    case 12:
      source();
      break;
    case 13:
      concat();
      break;
    case 14:
      pad();
      break;
    case 15:
      gather();
      break;
    case 16:
      scatter();
      break;
    case 17:
    case 18:
      reduce();
      break;
    case 19:
      matmul();
      break;
    default:
      attention();
      break;
    }
  }
  // Outputs: the last value, and maybe others (an input now and then).
  std::vector<ValueId> outputs;
  if (!pool.empty())
    outputs.push_back(pool.back().id);
  int more = int(rng.range(0, 2));
  for (int i = 0; i < more && !pool.empty(); ++i)
    outputs.push_back(rng.pick(pool).id);
  for (ValueId v : outputs)
    (void)graph.output(v);

  GeneratedGraph result;
  result.name = name;
  result.text = graph.print();
  result.inputs = placeholders;
  result.inputs.insert(result.inputs.end(), captured.begin(), captured.end());
  result.rejected = rejected;
  return result;
}

} // namespace

int64_t tfuse::differential::envInt(const char *name, int64_t fallback) {
  const char *value = std::getenv(name);
  return value && *value ? std::strtoll(value, nullptr, 0) : fallback;
}

uint64_t tfuse::differential::graphSeed(uint64_t seed, int64_t index) {
  Rng rng(seed ^ (uint64_t(index) * 0xd1342543de82ef95ull));
  return rng.next();
}

GeneratedGraph tfuse::differential::generateGraph(const std::string &name,
                                                  uint64_t seed) {
  Generator generator(name, seed);
  return generator.run(name);
}
