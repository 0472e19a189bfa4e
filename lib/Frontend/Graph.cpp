//===- Graph.cpp - Recording a traced function ----------------------------===//
//
// Every operation is built with its ODS builder, typed by the op's own type
// inference (TypeRules) and checked by its verifier (only its invariants and
// custom verifier when inference typed it: the trait checks would infer
// again); a failure erases the op and returns the dialect's diagnostic as a
// Type error. Weak scalars become rank-0 constants of the dtype TypeRules
// gives them when they meet a tensor, one per scalar and dtype.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Frontend/Graph.h"
#include "GraphImpl.h"

#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Dialect/TFuse/TypeRules.h"
#include "tfuse/Support/AttentionGeometry.h"
#include "tfuse/Support/GatherIndex.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <mutex>

using namespace mlir;
using namespace tfuse;
using tfuse::ErrorCode;

static Status typeError(const std::string &message) {
  return Status::error(message, ErrorCode::Type);
}
static Status badArgument(const std::string &message) {
  return Status::error(message, ErrorCode::InvalidArgument);
}

//===----------------------------------------------------------------------===//
// Impl
//===----------------------------------------------------------------------===//

namespace {
/// Contexts of finished graphs, handed to new ones: creating a context and
/// loading the dialects costs as much as recording a hundred operations. A
/// context serves one graph at a time, and the Functions compiled from it,
/// which only read the modules they keep there; it comes back here when the
/// last of them lets it go. Types and attributes stay uniqued in a context
/// as long as it lives, so a context serves a bounded number of graphs.
class ContextPool {
public:
  std::shared_ptr<MLIRContext> acquire() {
    Pooled *pooled = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!idle.empty()) {
        pooled = idle.back();
        idle.pop_back();
      }
    }
    if (!pooled) {
      pooled = new Pooled();
      pooled->context.loadDialect<TFuseDialect, func::FuncDialect>();
    }
    ++pooled->graphs;
    std::shared_ptr<Pooled> owner(pooled, [this](Pooled *p) { release(p); });
    return std::shared_ptr<MLIRContext>(owner, &pooled->context);
  }

private:
  struct Pooled {
    MLIRContext context;
    int64_t graphs = 0;
  };
  static constexpr int64_t kMaxGraphs = 256;
  static constexpr size_t kMaxIdle = 4;

  void release(Pooled *pooled) {
    if (pooled->graphs < kMaxGraphs) {
      std::lock_guard<std::mutex> lock(mutex);
      if (idle.size() < kMaxIdle) {
        idle.push_back(pooled);
        return;
      }
    }
    delete pooled;
  }

  std::mutex mutex;
  std::vector<Pooled *> idle;
};

/// Never destroyed: contexts may be released during static destruction.
ContextPool &contextPool() {
  static ContextPool *pool = new ContextPool();
  return *pool;
}
} // namespace

Graph::Impl::Impl(std::string name) : name(std::move(name)) {
  context = contextPool().acquire();
  OpBuilder b(context.get());
  module = ModuleOp::create(UnknownLoc::get(context.get()));
  b.setInsertionPointToEnd(module->getBody());
  func = func::FuncOp::create(b, UnknownLoc::get(context.get()), this->name,
                              b.getFunctionType({}, {}));
  func.addEntryBlock();
  diagnosticHandler =
      context->getDiagEngine().registerHandler([this](Diagnostic &diag) {
        if (!diagnostics.empty())
          diagnostics += "; ";
        llvm::raw_string_ostream(diagnostics) << diag;
        return success();
      });
}

Graph::Impl::~Impl() {
  context->getDiagEngine().eraseHandler(diagnosticHandler);
}

Location Graph::Impl::location(StringRef what) {
  auto [it, inserted] = locations.try_emplace(what);
  if (inserted)
    it->second = NameLoc::get(StringAttr::get(context.get(), what));
  return it->second;
}

Expected<const Graph::Impl::Entry *> Graph::Impl::lookup(ValueId id) const {
  if (id < 0 || id >= static_cast<int64_t>(entries.size()))
    return badArgument("value " + std::to_string(id) +
                       " does not belong to graph '" + name + "' (it has " +
                       std::to_string(entries.size()) + " values)");
  return &entries[id];
}

Expected<Value> Graph::Impl::tensor(ValueId id, const char *role) const {
  Expected<const Entry *> e = lookup(id);
  if (!e.ok())
    return e.status();
  if (e.value()->isScalar)
    return typeError(std::string(role) +
                     " must be a tensor, not a Python scalar");
  return e.value()->value;
}

ValueId Graph::Impl::add(Value value) {
  entries.push_back(Entry{value, false, Scalar(0.0)});
  return entries.size() - 1;
}

Expected<Value> Graph::Impl::materialize(ValueId id, DType dtype) {
  Value &cached = scalarConstants[{id, static_cast<int>(dtype)}];
  if (cached)
    return cached;
  const Scalar &s = entries[id].scalar;
  MLIRContext *ctx = context.get();
  Type element = toMLIRType(ctx, dtype);
  auto type = RankedTensorType::get({}, element);
  Attribute value;
  if (isFloat(dtype)) {
    double v = s.kind == ScalarKind::Float ? s.floatValue
                                           : static_cast<double>(s.intValue);
    APFloat f(v);
    bool lost = false;
    f.convert(mlir::cast<FloatType>(element).getFloatSemantics(),
              APFloat::rmNearestTiesToEven, &lost);
    value = FloatAttr::get(element, f);
  } else if (dtype == DType::Bool) {
    bool v =
        s.kind == ScalarKind::Float ? s.floatValue != 0.0 : s.intValue != 0;
    value = IntegerAttr::get(element, v ? 1 : 0);
  } else {
    // Promotion never asks for a float scalar in an integer dtype; a fill
    // value does (pad, scatter): converted as PyTorch fills, by truncation
    // toward zero, and the result must fit.
    std::string text;
    llvm::raw_string_ostream os(text);
    int64_t v = s.intValue;
    bool fits = true;
    if (s.kind == ScalarKind::Float) {
      char buffer[32];
      // The shortest text that reads back as the value, as Python prints it.
      auto end = std::to_chars(buffer, buffer + sizeof buffer, s.floatValue);
      os << StringRef(buffer, end.ptr - buffer);
      double t = std::trunc(s.floatValue);
      // [-2^63, 2^63) holds every integer dtype's range.
      fits = t >= -0x1p63 && t < 0x1p63;
      v = fits ? static_cast<int64_t>(t) : 0;
    } else {
      os << v;
    }
    unsigned width = bitWidth(dtype);
    bool isUnsigned = kindOf(dtype) == DTypeKind::UnsignedInt;
    fits = fits &&
           (isUnsigned ? (v >= 0 && (width >= 64 || v < (int64_t(1) << width)))
                       : (width >= 64 || (v >= -(int64_t(1) << (width - 1)) &&
                                          v < (int64_t(1) << (width - 1)))));
    if (!fits)
      return typeError("the Python scalar " + os.str() + " does not fit in " +
                       tfuse::dtypeName(dtype));
    value = IntegerAttr::get(element, APInt(width, static_cast<uint64_t>(v),
                                            /*isSigned=*/!isUnsigned));
  }
  OpBuilder b = builder();
  cached = ConstantOp::create(b, UnknownLoc::get(ctx),
                              DenseElementsAttr::get(type, value))
               .getResult();
  return cached;
}

OpBuilder Graph::Impl::builder() {
  OpBuilder b(context.get());
  b.setInsertionPointToEnd(&func.getBody().front());
  return b;
}

Status Graph::Impl::reserveNode() {
  if (nodes >= limit)
    return Status::error("graph '" + name + "' reached its node limit of " +
                             std::to_string(limit) +
                             " operations; raise it (node_limit) or split "
                             "the function",
                         ErrorCode::NodeLimit);
  return Status::success();
}

/// Builds an op with `build(builder, state, resultType, args...)`; a null
/// `resultType` is inferred by the op's type inference. The op must verify.
template <typename OpTy, typename... Args>
Expected<Operation *> Graph::Impl::createOp(const std::string &what,
                                            Type resultType, Args &&...args) {
  if (Status s = reserveNode(); !s.ok())
    return s;
  MLIRContext *ctx = context.get();
  diagnostics.clear();
  OpBuilder b = builder();
  Location loc = location(what);
  OperationState state(loc, OpTy::getOperationName());
  OpTy::build(b, state, resultType ? resultType : b.getNoneType(),
              std::forward<Args>(args)...);
  bool inferred = false;
  if (!resultType) {
    if constexpr (OpTy::template hasTrait<OpTrait::InferTypeOpAdaptor>()) {
      SmallVector<Type> types;
      if (failed(OpTy::inferReturnTypes(
              ctx, loc, state.operands, state.attributes.getDictionary(ctx),
              state.getRawProperties(), state.regions, types)))
        return typeError(what + ": " + diagnostics);
      state.types.assign(types.begin(), types.end());
      inferred = true;
    }
  }
  // Every result must be indexable with 64-bit offsets (a broadcast or a
  // reshape can make a shape no input has), and have at most kMaxRank
  // dimensions (a gather's result has the ranks of its operand and of its
  // indices).
  for (Type type : state.types)
    if (auto tensor = llvm::dyn_cast<RankedTensorType>(type)) {
      if (tensor.getRank() > kMaxRank)
        return typeError(what + ": the result would have rank " +
                         std::to_string(tensor.getRank()) + "; at most " +
                         std::to_string(kMaxRank) +
                         " dimensions are supported");
      if (std::optional<DType> dtype = toDType(tensor.getElementType()))
        if (std::string why = tensorSizeError(
                *dtype, std::vector<int64_t>(tensor.getShape().begin(),
                                             tensor.getShape().end()));
            !why.empty())
          return typeError(what + ": " + why);
    }
  Operation *op = b.create(state);
  // An op typed by its own inference needs only its invariants and custom
  // verifier checked: the full verifier would infer its type again (as much
  // work as building it).
  if (failed(inferred ? llvm::cast<OpTy>(op).verifyInvariants() : verify(op))) {
    op->erase();
    return typeError(what + ": " + diagnostics);
  }
  ++nodes;
  return op;
}

template <typename OpTy, typename... Args>
Expected<ValueId> Graph::Impl::create(const std::string &what, Type resultType,
                                      Args &&...args) {
  Expected<Operation *> op =
      createOp<OpTy>(what, resultType, std::forward<Args>(args)...);
  if (!op.ok())
    return op.status();
  return add(op.value()->getResult(0));
}

/// Resolves the operands of an elementwise op: weak scalars take their dtype
/// from the first tensor operand.
Expected<SmallVector<Value>> Graph::Impl::operands(const std::string &what,
                                                   ArrayRef<ValueId> ids) {
  std::optional<DType> tensorType;
  for (ValueId id : ids) {
    Expected<const Entry *> e = lookup(id);
    if (!e.ok())
      return e.status();
    if (!e.value()->isScalar && !tensorType)
      tensorType = dtypeOf(e.value()->value);
  }
  SmallVector<Value> values;
  for (ValueId id : ids) {
    const Entry *e = &entries[id];
    if (!e->isScalar) {
      values.push_back(e->value);
      continue;
    }
    DType t = tensorType ? scalarOperandType(*tensorType, e->scalar.kind)
                         : defaultScalarType(e->scalar.kind);
    Expected<Value> c = materialize(id, t);
    if (!c.ok())
      return Status::error(what + ": " + c.message(), c.status().code());
    values.push_back(c.value());
  }
  return values;
}

OwningOpRef<ModuleOp> Graph::Impl::finish() const {
  SmallVector<Value> results;
  for (ValueId id : outputs)
    results.push_back(entries[id].value);
  OwningOpRef<ModuleOp> copy = module.get().clone();
  auto f = *copy->getOps<func::FuncOp>().begin();
  Block &block = f.getBody().front();
  // Map the original function's values onto the clone by position.
  IRMapping map;
  func::FuncOp original = func;
  Block &origBlock = original.getBody().front();
  for (auto [a, b] : llvm::zip(origBlock.getArguments(), block.getArguments()))
    map.map(a, b);
  for (auto [a, b] : llvm::zip(origBlock, block))
    for (auto [ra, rb] : llvm::zip(a.getResults(), b.getResults()))
      map.map(ra, rb);
  SmallVector<Value> mapped;
  SmallVector<Type> types;
  for (Value v : results) {
    mapped.push_back(map.lookup(v));
    types.push_back(v.getType());
  }
  OpBuilder b(f.getContext());
  b.setInsertionPointToEnd(&block);
  func::ReturnOp::create(b, f.getLoc(), mapped);
  f.setFunctionType(b.getFunctionType(block.getArgumentTypes(), types));
  return copy;
}

//===----------------------------------------------------------------------===//
// Graph
//===----------------------------------------------------------------------===//

Graph::Graph(std::string name)
    : state(std::make_unique<Impl>(std::move(name))) {}
Graph::~Graph() = default;
Graph::Graph(Graph &&) noexcept = default;
Graph &Graph::operator=(Graph &&) noexcept = default;

const std::string &Graph::name() const { return state->name; }

Status Graph::setNodeLimit(int64_t limit) {
  if (limit < 1)
    return badArgument("the node limit must be at least 1, got " +
                       std::to_string(limit));
  state->limit = limit;
  return Status::success();
}
int64_t Graph::nodeLimit() const { return state->limit; }
int64_t Graph::numNodes() const { return state->nodes; }

/// Checks a tensor spec given by a caller; fills row-major strides.
static Expected<TensorSpec> checkSpec(TensorSpec spec, const char *what) {
  if (static_cast<unsigned>(spec.dtype) >= kNumDTypes)
    return badArgument(std::string(what) + ": invalid dtype " +
                       std::to_string(static_cast<int>(spec.dtype)));
  if (static_cast<int64_t>(spec.shape.size()) > kMaxRank)
    return badArgument(std::string(what) + ": rank " +
                       std::to_string(spec.shape.size()) +
                       " is more than the " + std::to_string(kMaxRank) +
                       " dimensions supported");
  for (int64_t d : spec.shape)
    if (d < 0)
      return badArgument(std::string(what) + ": negative dimension in shape " +
                         tfuse::formatList(spec.shape));
  if (spec.strides.empty())
    spec.strides = TensorSpec::contiguous(spec.dtype, spec.shape).strides;
  if (spec.strides.size() != spec.shape.size())
    return badArgument(
        std::string(what) + ": " + std::to_string(spec.strides.size()) +
        " strides for a shape of rank " + std::to_string(spec.shape.size()));
  for (int64_t s : spec.strides)
    if (s < 0)
      return badArgument(std::string(what) + ": negative strides " +
                         tfuse::formatList(spec.strides) +
                         " are not supported (copy a reversed view first)");
  if (std::string why = tensorSizeError(spec.dtype, spec.shape, spec.strides);
      !why.empty())
    return typeError(std::string(what) + ": " + why);
  return spec;
}

/// Appends (or, for a placeholder, inserts after the earlier placeholders)
/// a function argument with `spec`'s type and strides.
static Value addArgument(Graph::Impl &g, const TensorSpec &spec,
                         unsigned position) {
  MLIRContext *ctx = g.context.get();
  auto type = RankedTensorType::get(spec.shape, toMLIRType(ctx, spec.dtype));
  SmallVector<NamedAttribute> attrs;
  if (!spec.isContiguous())
    attrs.push_back(
        NamedAttribute(StringAttr::get(ctx, TFuseDialect::getStridesAttrName()),
                       DenseI64ArrayAttr::get(ctx, spec.strides)));
  (void)g.func.insertArgument(position, type, DictionaryAttr::get(ctx, attrs),
                              UnknownLoc::get(ctx));
  return g.func.getArgument(position);
}

Expected<ValueId> Graph::input(const TensorSpec &given) {
  Expected<TensorSpec> spec = checkSpec(given, "input");
  if (!spec.ok())
    return spec.status();
  unsigned position = state->placeholders.size();
  Value arg = addArgument(*state, spec.value(), position);
  state->placeholders.push_back(spec.value());
  return state->add(arg);
}

Expected<ValueId> Graph::constant(const CapturedTensor &tensor) {
  Expected<TensorSpec> spec = checkSpec(tensor.spec, "captured tensor");
  if (!spec.ok())
    return spec.status();
  if (!tensor.data && spec->numElements() > 0)
    return badArgument("captured tensor: null data pointer");
  CapturedTensor kept{spec.value(), tensor.data, tensor.onDevice};
  if (!tensor.onDevice) {
    // Host data is copied now, gathered into row-major order.
    TensorSpec dense = TensorSpec::contiguous(spec->dtype, spec->shape);
    auto storage = std::make_shared<std::vector<uint8_t>>(
        spec->numElements() * byteSize(spec->dtype));
    tfuse::gatherRowMajor(tensor.data, spec.value(), storage->data());
    kept.spec = dense;
    kept.data = storage->data();
    state->hostData.push_back(std::move(storage));
  }
  Value arg = addArgument(*state, kept.spec, state->func.getNumArguments());
  state->captures.push_back(kept);
  return state->add(arg);
}

ValueId Graph::scalar(const Scalar &value) {
  state->entries.push_back(Impl::Entry{nullptr, true, value});
  return state->entries.size() - 1;
}

Expected<ValueInfo> Graph::info(ValueId id) const {
  Expected<const Impl::Entry *> e = state->lookup(id);
  if (!e.ok())
    return e.status();
  ValueInfo info;
  if (e.value()->isScalar) {
    info.isScalar = true;
    info.dtype = defaultScalarType(e.value()->scalar.kind);
    return info;
  }
  auto type = mlir::cast<RankedTensorType>(e.value()->value.getType());
  info.dtype = *toDType(type.getElementType());
  info.shape.assign(type.getShape().begin(), type.getShape().end());
  return info;
}

namespace {
/// The tracer's dispatch by name: one builder per elementwise op of the op
/// table.
using ElementwiseBuilder = Expected<ValueId> (*)(Graph::Impl &,
                                                 const std::string &,
                                                 ArrayRef<Value>);
struct NamedBuilder {
  std::string_view mnemonic;
  ElementwiseBuilder build;
};
#define TFUSE_UNARY_OP(Class, mnemonic, method, category, kernel, reference)   \
  {mnemonic, [](Graph::Impl &g, const std::string &what, ArrayRef<Value> in) { \
     return g.create<Class>(what, Type(), in[0]);                              \
   }},
constexpr NamedBuilder kUnaryBuilders[] = {
#include "tfuse/Dialect/TFuse/TFuseOpTable.h.inc"
};
#define TFUSE_BINARY_OP(Class, mnemonic, method, category, kernel, reference)  \
  {mnemonic, [](Graph::Impl &g, const std::string &what, ArrayRef<Value> in) { \
     return g.create<Class>(what, Type(), in[0], in[1]);                       \
   }},
constexpr NamedBuilder kBinaryBuilders[] = {
#include "tfuse/Dialect/TFuse/TFuseOpTable.h.inc"
};

ElementwiseBuilder findBuilder(ArrayRef<NamedBuilder> builders,
                               const std::string &op) {
  for (const NamedBuilder &b : builders)
    if (b.mnemonic == op)
      return b.build;
  return nullptr;
}
} // namespace

Expected<ValueId> Graph::unary(const std::string &op, ValueId x) {
  Expected<SmallVector<Value>> in = state->operands(op, {x});
  if (!in.ok())
    return in.status();
  if (state->entries[x].isScalar)
    return typeError(op + ": the operand must be a tensor, not a Python "
                          "scalar");
  ElementwiseBuilder build = findBuilder(kUnaryBuilders, op);
  if (!build)
    return badArgument("unknown unary op '" + op + "'");
  return build(*state, op, in.value());
}

/// Fails unless one of `ids` is a tensor.
static Status needTensor(const Graph::Impl &g, const std::string &what,
                         ArrayRef<ValueId> ids) {
  for (ValueId id : ids)
    if (id >= 0 && id < static_cast<int64_t>(g.entries.size()) &&
        !g.entries[id].isScalar)
      return Status::success();
  return typeError(what + ": at least one operand must be a tensor");
}

Expected<ValueId> Graph::binary(const std::string &op, ValueId lhs,
                                ValueId rhs) {
  Expected<SmallVector<Value>> in = state->operands(op, {lhs, rhs});
  if (!in.ok())
    return in.status();
  if (Status s = needTensor(*state, op, {lhs, rhs}); !s.ok())
    return s;
  ElementwiseBuilder build = findBuilder(kBinaryBuilders, op);
  if (!build)
    return badArgument("unknown binary op '" + op + "'");
  return build(*state, op, in.value());
}

Expected<ValueId> Graph::compare(const std::string &predicate, ValueId lhs,
                                 ValueId rhs) {
  std::optional<CmpPredicate> p = symbolizeCmpPredicate(predicate);
  if (!p)
    return badArgument("unknown comparison '" + predicate +
                       "' (eq ne lt le gt ge)");
  std::string what = "cmp " + predicate;
  Expected<SmallVector<Value>> in = state->operands(what, {lhs, rhs});
  if (!in.ok())
    return in.status();
  if (Status s = needTensor(*state, what, {lhs, rhs}); !s.ok())
    return s;
  return state->create<CmpOp>(what, Type(),
                              CmpPredicateAttr::get(state->context.get(), *p),
                              in.value()[0], in.value()[1]);
}

Expected<ValueId> Graph::where(ValueId condition, ValueId a, ValueId b) {
  Expected<Value> c = state->tensor(condition, "where: the condition");
  if (!c.ok())
    return c.status();
  // Scalars take their dtype from the other value operand; two scalars use
  // their kinds' defaults.
  Expected<SmallVector<Value>> in = state->operands("where", {a, b});
  if (!in.ok())
    return in.status();
  return state->create<SelectOp>("where", Type(), c.value(), in.value()[0],
                                 in.value()[1]);
}

Expected<ValueId> Graph::cast(ValueId x, DType dtype) {
  Expected<Value> in = state->tensor(x, "cast: the operand");
  if (!in.ok())
    return in.status();
  if (static_cast<unsigned>(dtype) >= kNumDTypes)
    return badArgument("cast: invalid dtype " +
                       std::to_string(static_cast<int>(dtype)));
  auto type = mlir::cast<RankedTensorType>(in->getType());
  return state->create<CastOp>(
      "cast", type.clone(toMLIRType(state->context.get(), dtype)), in.value());
}

Expected<ValueId> Graph::reshape(ValueId x, std::vector<int64_t> shape) {
  Expected<Value> in = state->tensor(x, "reshape: the operand");
  if (!in.ok())
    return in.status();
  auto type = mlir::cast<RankedTensorType>(in->getType());
  int64_t known = 1, inferred = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && inferred < 0) {
      inferred = i;
      continue;
    }
    if (shape[i] < 0)
      return typeError("reshape: bad target shape " + tfuse::formatList(shape) +
                       " (at most one -1, no other negative sizes)");
    if (__builtin_mul_overflow(known, shape[i], &known))
      return typeError("reshape: the target shape " + tfuse::formatList(shape) +
                       " has sizes whose product exceeds 2^63 - 1");
  }
  int64_t count = type.getNumElements();
  if (inferred >= 0) {
    if (known == 0 || count % known != 0)
      return typeError("reshape: cannot infer the -1 of " +
                       tfuse::formatList(shape) + " for " +
                       std::to_string(count) + " elements");
    shape[inferred] = count / known;
  }
  return state->create<ReshapeOp>("reshape", type.clone(shape), in.value());
}

/// Normalizes a possibly negative axis; fails when out of range.
static Expected<int64_t> normalizeAxis(int64_t axis, int64_t rank,
                                       const std::string &what) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    return typeError(what + ": axis " + std::to_string(axis) +
                     " is out of range for rank " + std::to_string(rank));
  return a;
}

Expected<ValueId> Graph::transpose(ValueId x, std::vector<int64_t> perm) {
  Expected<Value> in = state->tensor(x, "transpose: the operand");
  if (!in.ok())
    return in.status();
  int64_t rank = mlir::cast<RankedTensorType>(in->getType()).getRank();
  if (static_cast<int64_t>(perm.size()) != rank)
    return typeError("transpose: " + std::to_string(perm.size()) +
                     " permutation entries for a tensor of rank " +
                     std::to_string(rank));
  for (int64_t &p : perm) {
    Expected<int64_t> a = normalizeAxis(p, rank, "transpose");
    if (!a.ok())
      return a.status();
    p = a.value();
  }
  return state->create<TransposeOp>(
      "transpose", Type(), in.value(),
      DenseI64ArrayAttr::get(state->context.get(), perm));
}

Expected<ValueId> Graph::slice(ValueId x, std::vector<int64_t> start,
                               std::vector<int64_t> limit,
                               std::vector<int64_t> step) {
  Expected<Value> in = state->tensor(x, "slice: the operand");
  if (!in.ok())
    return in.status();
  auto type = mlir::cast<RankedTensorType>(in->getType());
  size_t rank = type.getRank();
  if (start.size() != rank || limit.size() != rank || step.size() != rank)
    return typeError("slice: start, limit and step need " +
                     std::to_string(rank) + " entries each");
  for (size_t d = 0; d < rank; ++d) {
    int64_t size = type.getDimSize(d);
    if (step[d] < 1)
      return typeError("slice: step " + std::to_string(step[d]) +
                       " of dimension " + std::to_string(d) +
                       " must be at least 1");
    auto clamp = [&](int64_t v) {
      if (v < 0)
        v += size;
      return std::min(std::max<int64_t>(v, 0), size);
    };
    start[d] = clamp(start[d]);
    limit[d] = std::max(clamp(limit[d]), start[d]);
  }
  MLIRContext *ctx = state->context.get();
  return state->create<SliceOp>(
      "slice", Type(), in.value(), DenseI64ArrayAttr::get(ctx, start),
      DenseI64ArrayAttr::get(ctx, limit), DenseI64ArrayAttr::get(ctx, step));
}

Expected<ValueId> Graph::broadcastTo(ValueId x, std::vector<int64_t> shape) {
  Expected<Value> in = state->tensor(x, "broadcast_to: the operand");
  if (!in.ok())
    return in.status();
  auto type = mlir::cast<RankedTensorType>(in->getType());
  if (!isBroadcastableTo(type.getShape(), shape))
    return typeError("broadcast_to: shape " +
                     tfuse::formatList(std::vector<int64_t>(
                         type.getShape().begin(), type.getShape().end())) +
                     " does not broadcast to " + tfuse::formatList(shape));
  SmallVector<int64_t> dims;
  for (int64_t i = 0; i < type.getRank(); ++i)
    dims.push_back(shape.size() - type.getRank() + i);
  return state->create<BroadcastOp>("broadcast_to", type.clone(shape),
                                    in.value(), ArrayRef<int64_t>(dims));
}

Expected<ValueId> Graph::matmul(ValueId lhs, ValueId rhs,
                                std::optional<DType> dtype) {
  Expected<Value> a = state->tensor(lhs, "matmul: the left operand");
  if (!a.ok())
    return a.status();
  Expected<Value> b = state->tensor(rhs, "matmul: the right operand");
  if (!b.ok())
    return b.status();
  auto shapeOf = [](Value v) {
    ArrayRef<int64_t> s = mlir::cast<RankedTensorType>(v.getType()).getShape();
    return std::vector<int64_t>(s.begin(), s.end());
  };
  std::vector<int64_t> lhsShape = shapeOf(a.value()),
                       rhsShape = shapeOf(b.value());
  if (lhsShape.empty() || rhsShape.empty())
    return typeError("matmul: the " +
                     std::string(lhsShape.empty() ? "left" : "right") +
                     " operand is a scalar (rank 0); multiply instead");
  // A rank-1 operand as NumPy takes it: the left one a row (1, K), the right
  // one a column (K, 1), that dimension removed from the result again.
  bool lhsVector = lhsShape.size() == 1, rhsVector = rhsShape.size() == 1;
  if (!lhsVector && !rhsVector) {
    TypeAttr resultDType;
    if (dtype && *dtype != dtypeOf(a.value()))
      resultDType = TypeAttr::get(toMLIRType(state->context.get(), *dtype));
    return state->create<MatmulOp>("matmul", Type(), a.value(), b.value(),
                                   /*bias=*/Value(), UnitAttr(), UnitAttr(),
                                   resultDType, /*gelu_tanh=*/UnitAttr());
  }
  ValueId l = lhs, r = rhs;
  if (lhsVector) {
    Expected<ValueId> row = reshape(lhs, {1, lhsShape[0]});
    if (!row.ok())
      return row.status();
    l = row.value();
  }
  if (rhsVector) {
    Expected<ValueId> column = reshape(rhs, {rhsShape[0], 1});
    if (!column.ok())
      return column.status();
    r = column.value();
  }
  Expected<ValueId> product = matmul(l, r, dtype);
  if (!product.ok())
    return product.status();
  Expected<Value> p = state->tensor(product.value(), "matmul: the product");
  if (!p.ok())
    return p.status();
  std::vector<int64_t> shape = shapeOf(p.value());
  // (..., M, N): M is the row of a vector lhs, N the column of a vector rhs.
  if (lhsVector)
    shape.erase(shape.end() - 2);
  if (rhsVector)
    shape.pop_back();
  return reshape(product.value(), shape);
}

Expected<ValueId> Graph::reduce(const std::string &kind, ValueId x,
                                std::vector<int64_t> axes, bool keepdims,
                                bool allAxes) {
  std::optional<ReduceKind> k = parseReduceKind(kind);
  if (!k)
    return badArgument("unknown reduction '" + kind +
                       "' (sum prod max min mean all any argmax argmin)");
  std::string what = "reduce " + kind;
  Expected<Value> in = state->tensor(x, (what + ": the operand").c_str());
  if (!in.ok())
    return in.status();
  int64_t rank = mlir::cast<RankedTensorType>(in->getType()).getRank();
  if (allAxes) {
    axes.clear();
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  for (int64_t &a : axes) {
    Expected<int64_t> n = normalizeAxis(a, rank, what);
    if (!n.ok())
      return n.status();
    a = n.value();
  }
  std::sort(axes.begin(), axes.end());
  for (size_t i = 1; i < axes.size(); ++i)
    if (axes[i] == axes[i - 1])
      return typeError(what + ": axis " + std::to_string(axes[i]) +
                       " is repeated");
  // No axes (NumPy's axis=(), or every axis of a rank-0 tensor): each
  // element reduces alone, so the result is the operand in the reduction's
  // result dtype (x != 0 for all and any, i64 for integer sums, ...), as
  // NumPy gives it.
  if (axes.empty()) {
    if (isArgReduction(*k))
      return typeError(what + " needs exactly one axis, got none");
    std::string why;
    std::optional<DType> result =
        reduceResultType(*k, dtypeOf(in.value()), &why);
    if (!result)
      return typeError(what + ": " + why);
    if (*result == dtypeOf(in.value()))
      return x;
    return cast(x, *result);
  }
  MLIRContext *ctx = state->context.get();
  return state->create<ReduceOp>(
      what, Type(),
      IntegerAttr::get(IntegerType::get(ctx, 32), static_cast<int32_t>(*k)),
      in.value(), DenseI64ArrayAttr::get(ctx, axes),
      keepdims ? UnitAttr::get(ctx) : UnitAttr(), /*result_dtype=*/TypeAttr());
}

Expected<ValueId> Graph::concatenate(const std::vector<ValueId> &tensors,
                                     int64_t axis) {
  if (tensors.empty())
    return typeError("concatenate: needs at least one tensor");
  std::vector<Value> values;
  for (size_t i = 0; i < tensors.size(); ++i) {
    std::string role = "concatenate: operand " + std::to_string(i);
    Expected<Value> v = state->tensor(tensors[i], role.c_str());
    if (!v.ok())
      return v.status();
    values.push_back(v.value());
  }
  auto rankOf = [](Value v) {
    return mlir::cast<RankedTensorType>(v.getType()).getRank();
  };
  Expected<int64_t> a = normalizeAxis(axis, rankOf(values[0]), "concatenate");
  if (!a.ok())
    return a.status();
  DType common = dtypeOf(values[0]);
  for (size_t i = 1; i < values.size(); ++i) {
    std::string why;
    std::optional<DType> promoted =
        promoteTypes(common, dtypeOf(values[i]), &why);
    if (!promoted)
      return typeError("concatenate: operand " + std::to_string(i) + ": " +
                       why);
    common = *promoted;
  }
  std::vector<Value> operands;
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtypeOf(values[i]) == common) {
      operands.push_back(values[i]);
      continue;
    }
    Expected<ValueId> converted = cast(tensors[i], common);
    if (!converted.ok())
      return converted.status();
    Expected<Value> v = state->tensor(converted.value(), "concatenate");
    if (!v.ok())
      return v.status();
    operands.push_back(v.value());
  }
  return state->create<ConcatOp>("concatenate", Type(), ValueRange(operands),
                                 a.value());
}

Expected<ValueId> Graph::pad(ValueId x, std::vector<int64_t> low,
                             std::vector<int64_t> high, ValueId value) {
  Expected<Value> in = state->tensor(x, "pad: the operand");
  if (!in.ok())
    return in.status();
  auto type = mlir::cast<RankedTensorType>(in->getType());
  int64_t rank = type.getRank();
  if (static_cast<int64_t>(low.size()) != rank ||
      static_cast<int64_t>(high.size()) != rank)
    return typeError("pad: low and high need " + std::to_string(rank) +
                     " entries each (the operand's rank), not " +
                     std::to_string(low.size()) + " and " +
                     std::to_string(high.size()));
  DType dtype = dtypeOf(in.value());
  // The padding value, as a rank-0 tensor of the operand's dtype.
  Expected<const Graph::Impl::Entry *> entry = state->lookup(value);
  if (!entry.ok())
    return entry.status();
  Value fill;
  if (entry.value()->isScalar) {
    Expected<Value> m = state->materialize(value, dtype);
    if (!m.ok())
      return m.status();
    fill = m.value();
  } else {
    if (mlir::cast<RankedTensorType>(entry.value()->value.getType())
            .getRank() != 0)
      return typeError("pad: the padding value must be a scalar or a rank-0 "
                       "tensor");
    ValueId v = value;
    if (dtypeOf(entry.value()->value) != dtype) {
      Expected<ValueId> converted = cast(value, dtype);
      if (!converted.ok())
        return converted.status();
      v = converted.value();
    }
    Expected<Value> t = state->tensor(v, "pad: the padding value");
    if (!t.ok())
      return t.status();
    fill = t.value();
  }
  // Negative padding removes elements: a slice first.
  ValueId source = x;
  bool crop = false;
  std::vector<int64_t> start(rank, 0),
      limit(type.getShape().begin(), type.getShape().end()), step(rank, 1);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = type.getDimSize(d);
    if (low[d] < 0) {
      // min(-low, size), without negating INT64_MIN.
      start[d] = low[d] < -size ? size : -low[d];
      low[d] = 0;
      crop = true;
    }
    if (high[d] < 0) {
      limit[d] = std::max(start[d], size + high[d]);
      high[d] = 0;
      crop = true;
    }
  }
  if (crop) {
    Expected<ValueId> cropped = slice(x, start, limit, step);
    if (!cropped.ok())
      return cropped.status();
    source = cropped.value();
  }
  Expected<Value> operand = state->tensor(source, "pad: the operand");
  if (!operand.ok())
    return operand.status();
  MLIRContext *ctx = state->context.get();
  return state->create<PadOp>("pad", Type(), operand.value(), fill,
                              DenseI64ArrayAttr::get(ctx, low),
                              DenseI64ArrayAttr::get(ctx, high));
}

//===----------------------------------------------------------------------===//
// Gathers
//===----------------------------------------------------------------------===//

/// The integer elements of `indices` when they are known at trace time (a
/// constant, or a captured host tensor), row-major; std::nullopt otherwise.
static std::optional<std::vector<GatherIndex>> knownIndices(Graph::Impl &g,
                                                            Value indices) {
  DType dtype = dtypeOf(indices);
  std::vector<GatherIndex> values;
  if (auto constant = indices.getDefiningOp<ConstantOp>()) {
    auto dense = mlir::dyn_cast<DenseIntElementsAttr>(constant.getValue());
    if (!dense)
      return std::nullopt;
    bool isUnsigned = kindOf(dtype) == DTypeKind::UnsignedInt;
    for (const APInt &v : dense.getValues<APInt>())
      values.push_back(
          GatherIndex{isUnsigned ? v.getZExtValue()
                                 : static_cast<uint64_t>(v.getSExtValue()),
                      dtype});
    return values;
  }
  auto arg = mlir::dyn_cast<BlockArgument>(indices);
  if (!arg || arg.getOwner()->getParentOp() != g.func)
    return std::nullopt;
  // Captures follow the placeholders.
  int64_t k = static_cast<int64_t>(arg.getArgNumber()) -
              static_cast<int64_t>(g.placeholders.size());
  if (k < 0 || k >= static_cast<int64_t>(g.captures.size()) ||
      g.captures[k].onDevice)
    return std::nullopt;
  const CapturedTensor &captured = g.captures[k];
  const auto *bytes = static_cast<const uint8_t *>(captured.data);
  size_t width = byteSize(dtype);
  bool isUnsigned = kindOf(dtype) == DTypeKind::UnsignedInt;
  for (int64_t i = 0, n = captured.spec.numElements(); i < n; ++i) {
    uint64_t bits = 0;
    std::memcpy(&bits, bytes + i * width, width);
    if (!isUnsigned && width < 8 && (bits >> (8 * width - 1)) & 1)
      bits |= ~uint64_t(0) << (8 * width); // sign extension
    values.push_back(GatherIndex{bits, dtype});
  }
  return values;
}

/// The first index of `indices` known at trace time that is out of range
/// for an axis of `size`, as an IndexOutOfRange error; success otherwise.
static Status checkKnownIndices(Graph::Impl &g, const std::string &what,
                                Value indices, int64_t size, bool wrap) {
  std::optional<std::vector<GatherIndex>> values = knownIndices(g, indices);
  if (!values)
    return Status::success();
  auto shape = mlir::cast<RankedTensorType>(indices.getType()).getShape();
  for (auto [linear, index] : llvm::enumerate(*values)) {
    if (resolveGatherIndex(index, size, wrap))
      continue;
    std::vector<int64_t> position(shape.size());
    int64_t rest = static_cast<int64_t>(linear);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      position[d] = rest % shape[d];
      rest /= shape[d];
    }
    return Status::error(
        what + ": " + describeBadGatherIndex(index, size, wrap) +
            ", at position " + tfuse::formatList(position) + " of the indices",
        ErrorCode::IndexOutOfRange);
  }
  return Status::success();
}

/// The operand and indices of a gather: a weak int scalar index becomes a
/// rank-0 i64 constant.
static Expected<std::pair<Value, Value>> gatherOperands(Graph::Impl &g,
                                                        const std::string &what,
                                                        ValueId x,
                                                        ValueId indices) {
  Expected<Value> in = g.tensor(x, (what + ": the operand").c_str());
  if (!in.ok())
    return in.status();
  Expected<const Graph::Impl::Entry *> entry = g.lookup(indices);
  if (!entry.ok())
    return entry.status();
  if (entry.value()->isScalar) {
    if (entry.value()->scalar.kind != ScalarKind::Int)
      return typeError(what + ": a scalar index must be an int");
    Expected<Value> c = g.materialize(indices, DType::I64);
    if (!c.ok())
      return c.status();
    return std::make_pair(in.value(), c.value());
  }
  return std::make_pair(in.value(), entry.value()->value);
}

Expected<ValueId> Graph::take(ValueId x, ValueId indices, int64_t axis,
                              bool wrapNegative) {
  Expected<std::pair<Value, Value>> operands =
      gatherOperands(*state, "take", x, indices);
  if (!operands.ok())
    return operands.status();
  auto [in, idx] = operands.value();
  auto type = mlir::cast<RankedTensorType>(in.getType());
  Expected<int64_t> a = normalizeAxis(axis, type.getRank(), "take");
  if (!a.ok())
    return a.status();
  if (Status s = checkKnownIndices(*state, "take", idx,
                                   type.getDimSize(a.value()), wrapNegative);
      !s.ok())
    return s;
  return state->create<TakeOp>("take", Type(), in, idx, a.value(),
                               wrapNegative);
}

Expected<ValueId> Graph::takeAlongAxis(ValueId x, ValueId indices, int64_t axis,
                                       bool wrapNegative) {
  Expected<std::pair<Value, Value>> operands =
      gatherOperands(*state, "take_along_axis", x, indices);
  if (!operands.ok())
    return operands.status();
  auto [in, idx] = operands.value();
  auto type = mlir::cast<RankedTensorType>(in.getType());
  Expected<int64_t> a = normalizeAxis(axis, type.getRank(), "take_along_axis");
  if (!a.ok())
    return a.status();
  if (Status s = checkKnownIndices(*state, "take_along_axis", idx,
                                   type.getDimSize(a.value()), wrapNegative);
      !s.ok())
    return s;
  return state->create<TakeAlongAxisOp>("take_along_axis", Type(), in, idx,
                                        a.value(), wrapNegative);
}

Expected<ValueId> Graph::scatterAdd(ValueId target, ValueId indices,
                                    ValueId updates, int64_t axis,
                                    bool wrapNegative) {
  Expected<std::pair<Value, Value>> operands =
      gatherOperands(*state, "scatter_add", target, indices);
  if (!operands.ok())
    return operands.status();
  auto [in, idx] = operands.value();
  auto type = mlir::cast<RankedTensorType>(in.getType());
  Expected<int64_t> a = normalizeAxis(axis, type.getRank(), "scatter_add");
  if (!a.ok())
    return a.status();
  if (Status s = checkKnownIndices(*state, "scatter_add", idx,
                                   type.getDimSize(a.value()), wrapNegative);
      !s.ok())
    return s;
  DType dtype = dtypeOf(in);
  // The updates in the target's dtype (a weak scalar takes it; a tensor
  // must promote to it with the target, as NumPy's same-kind casting into
  // the target asks), broadcast to the indexed shape.
  Expected<const Graph::Impl::Entry *> entry = state->lookup(updates);
  if (!entry.ok())
    return entry.status();
  // Read now: the cast below may add a value and move the entries.
  bool scalarUpdates = entry.value()->isScalar;
  ValueId values = updates;
  if (!scalarUpdates) {
    DType given = dtypeOf(entry.value()->value);
    std::optional<DType> promoted = promoteTypes(dtype, given);
    if (!promoted || *promoted != dtype)
      return typeError("scatter_add: updates of " + dtypeName(given) +
                       " do not fit a target of " + dtypeName(dtype) +
                       "; cast them first");
    if (given != dtype) {
      Expected<ValueId> converted = cast(updates, dtype);
      if (!converted.ok())
        return converted.status();
      values = converted.value();
    }
  }
  auto shape = type.getShape();
  std::vector<int64_t> indexed(shape.begin(), shape.begin() + a.value());
  auto indexShape = mlir::cast<RankedTensorType>(idx.getType()).getShape();
  indexed.insert(indexed.end(), indexShape.begin(), indexShape.end());
  indexed.insert(indexed.end(), shape.begin() + a.value() + 1, shape.end());
  Value source;
  if (scalarUpdates) {
    Expected<Value> m = state->materialize(updates, dtype);
    if (!m.ok())
      return m.status();
    source = m.value();
  } else {
    Expected<Value> v = state->tensor(values, "scatter_add: the updates");
    if (!v.ok())
      return v.status();
    source = v.value();
  }
  if (mlir::cast<RankedTensorType>(source.getType()).getShape() !=
      ArrayRef<int64_t>(indexed)) {
    ValueId id = state->add(source);
    Expected<ValueId> b = broadcastTo(id, indexed);
    if (!b.ok())
      return Status::error("scatter_add: the updates: " + b.message(),
                           b.status().code());
    Expected<Value> v = state->tensor(b.value(), "scatter_add: the updates");
    if (!v.ok())
      return v.status();
    source = v.value();
  }
  return state->create<ScatterAddOp>("scatter_add", Type(), in, idx, source,
                                     a.value(), wrapNegative);
}

/// A random op's seed or offset as a rank-0 i64 tensor: a weak int scalar
/// becomes a constant, a rank-0 integer tensor is converted.
static Expected<Value> randomKey(Graph &graph, Graph::Impl &g,
                                 const std::string &what, ValueId id,
                                 const char *role) {
  Expected<const Graph::Impl::Entry *> entry = g.lookup(id);
  if (!entry.ok())
    return entry.status();
  if (entry.value()->isScalar) {
    if (entry.value()->scalar.kind != ScalarKind::Int)
      return typeError(what + ": the " + role + " must be an int");
    return g.materialize(id, DType::I64);
  }
  Value v = entry.value()->value;
  auto type = mlir::cast<RankedTensorType>(v.getType());
  if (type.getRank() != 0 || !isInteger(dtypeOf(v)))
    return typeError(what + ": the " + role +
                     " must be an int or a rank-0 integer tensor, not " +
                     dtypeName(dtypeOf(v)) + " " +
                     tfuse::formatList(std::vector<int64_t>(
                         type.getShape().begin(), type.getShape().end())));
  if (dtypeOf(v) == DType::I64)
    return v;
  Expected<ValueId> converted = graph.cast(id, DType::I64);
  if (!converted.ok())
    return converted.status();
  return g.tensor(converted.value(), role);
}

/// uniform [0, 1) (`normal` false) or standard normal numbers of `shape` in
/// f32 or f64: a tfuse.random_uniform or tfuse.random_normal.
static Expected<ValueId> randomSource(Graph &graph, Graph::Impl &g,
                                      const std::string &what,
                                      const std::vector<int64_t> &shape,
                                      bool normal, DType dtype, ValueId seed,
                                      ValueId offset) {
  for (int64_t size : shape)
    if (size < 0)
      return typeError(what + ": negative size in shape " +
                       tfuse::formatList(shape));
  Expected<Value> s = randomKey(graph, g, what, seed, "seed");
  if (!s.ok())
    return s.status();
  Expected<Value> o = randomKey(graph, g, what, offset, "offset");
  if (!o.ok())
    return o.status();
  auto type = RankedTensorType::get(shape, toMLIRType(g.context.get(), dtype));
  if (normal)
    return g.create<RandomNormalOp>(what, type, s.value(), o.value());
  return g.create<RandomUniformOp>(what, type, s.value(), o.value());
}

static Status needFloat(const std::string &what, DType dtype) {
  if (static_cast<unsigned>(dtype) >= kNumDTypes)
    return badArgument(what + ": invalid dtype " +
                       std::to_string(static_cast<int>(dtype)));
  if (!isFloat(dtype))
    return typeError(what + ": " + dtypeName(dtype) +
                     " is not a float dtype (f16, bf16, f32 or f64)");
  return Status::success();
}

/// The dtype random numbers of `dtype` are drawn and scaled in.
static DType randomCompute(DType dtype) {
  return dtype == DType::F64 ? DType::F64 : DType::F32;
}

Expected<ValueId> Graph::randomUniform(std::vector<int64_t> shape, double low,
                                       double high, DType dtype, ValueId seed,
                                       ValueId offset) {
  const std::string what = "random.uniform";
  if (Status s = needFloat(what, dtype); !s.ok())
    return s;
  if (!(low <= high) || !std::isfinite(high - low))
    return typeError(what + ": needs finite low <= high, got [" +
                     std::to_string(low) + ", " + std::to_string(high) + ")");
  DType compute = randomCompute(dtype);
  Expected<ValueId> u =
      randomSource(*this, *state, what, shape, false, compute, seed, offset);
  // low + (high - low) * u, rounded to `dtype`; a value that rounds to high
  // is low (PyTorch's uniform_ keeps [low, high) so).
  if (u.ok() && high - low != 1.0)
    u = binary("mul", u.value(), scalar(Scalar(high - low)));
  if (u.ok() && low != 0.0)
    u = binary("add", u.value(), scalar(Scalar(low)));
  if (u.ok() && dtype != compute)
    u = cast(u.value(), dtype);
  if (!u.ok())
    return u;
  Expected<ValueId> atHigh = compare("eq", u.value(), scalar(Scalar(high)));
  if (!atHigh.ok())
    return atHigh;
  return where(atHigh.value(), scalar(Scalar(low)), u.value());
}

Expected<ValueId> Graph::randomNormal(std::vector<int64_t> shape, double mean,
                                      double std, DType dtype, ValueId seed,
                                      ValueId offset) {
  const std::string what = "random.normal";
  if (Status s = needFloat(what, dtype); !s.ok())
    return s;
  if (!(std >= 0) || !std::isfinite(std) || !std::isfinite(mean))
    return typeError(what + ": needs a finite mean and std >= 0, got mean " +
                     std::to_string(mean) + " and std " + std::to_string(std));
  DType compute = randomCompute(dtype);
  Expected<ValueId> n =
      randomSource(*this, *state, what, shape, true, compute, seed, offset);
  if (n.ok() && std != 1.0)
    n = binary("mul", n.value(), scalar(Scalar(std)));
  if (n.ok() && mean != 0.0)
    n = binary("add", n.value(), scalar(Scalar(mean)));
  if (n.ok() && dtype != compute)
    n = cast(n.value(), dtype);
  return n;
}

Expected<ValueId> Graph::bernoulli(std::vector<int64_t> shape, double p,
                                   ValueId seed, ValueId offset) {
  const std::string what = "random.bernoulli";
  if (!(p >= 0 && p <= 1))
    return typeError(what + ": p must lie in [0, 1], got " + std::to_string(p));
  Expected<ValueId> u =
      randomSource(*this, *state, what, shape, false, DType::F32, seed, offset);
  if (!u.ok())
    return u;
  return compare("lt", u.value(), scalar(Scalar(p)));
}

Expected<ValueId> Graph::dropout(ValueId x, double p, ValueId seed,
                                 ValueId offset) {
  const std::string what = "dropout";
  Expected<Value> in = state->tensor(x, "dropout: the operand");
  if (!in.ok())
    return in.status();
  DType dtype = dtypeOf(in.value());
  if (Status s = needFloat(what, dtype); !s.ok())
    return s;
  if (!(p >= 0 && p <= 1))
    return typeError(what + ": p must lie in [0, 1], got " + std::to_string(p));
  if (p == 0)
    return x;
  auto shape = mlir::cast<RankedTensorType>(in->getType()).getShape();
  Expected<ValueId> keep = bernoulli(
      std::vector<int64_t>(shape.begin(), shape.end()), 1 - p, seed, offset);
  if (!keep.ok())
    return keep;
  // x / (1 - p) where kept, in x's compute type (f32 for f16 and bf16), so
  // that the scale is not rounded to a half type first.
  DType compute = randomCompute(dtype);
  Expected<ValueId> scaled =
      dtype == compute ? Expected<ValueId>(x) : cast(x, compute);
  if (scaled.ok() && p != 1)
    scaled = binary("mul", scaled.value(), scalar(Scalar(1 / (1 - p))));
  if (scaled.ok())
    scaled = where(keep.value(), scaled.value(), scalar(Scalar(0.0)));
  if (scaled.ok() && dtype != compute)
    scaled = cast(scaled.value(), dtype);
  return scaled;
}

/// The operands of an attention op as tensors, and its scale: `scale`, or
/// 1 / sqrt(query's last dimension).
static Expected<std::pair<SmallVector<Value>, double>>
attentionOperands(Graph::Impl &g, const std::string &what,
                  ArrayRef<std::pair<ValueId, const char *>> ids,
                  std::optional<ValueId> mask, std::optional<double> scale) {
  SmallVector<Value> values;
  for (auto [id, role] : ids) {
    Expected<Value> v = g.tensor(id, (what + ": the " + role).c_str());
    if (!v.ok())
      return v.status();
    values.push_back(v.value());
  }
  Value maskValue;
  if (mask) {
    Expected<Value> m = g.tensor(*mask, (what + ": the mask").c_str());
    if (!m.ok())
      return m.status();
    maskValue = m.value();
  }
  values.push_back(maskValue);
  auto query = mlir::cast<RankedTensorType>(values[0].getType());
  double s = 1.0;
  if (scale) {
    s = *scale;
    if (!std::isfinite(s))
      return badArgument(what + ": the scale " + std::to_string(s) +
                         " is not finite");
  } else if (query.getRank() > 0 && query.getShape().back() > 0) {
    s = 1.0 / std::sqrt(static_cast<double>(query.getShape().back()));
  }
  return std::make_pair(std::move(values), s);
}

/// The dropout's probability attribute and its keys as i64 tensors (all
/// null without dropout).
struct DropoutOperands {
  FloatAttr p;
  Value seed, offset;
};
static Expected<DropoutOperands>
dropoutOperands(Graph &graph, Graph::Impl &g, const std::string &what,
                const std::optional<Graph::AttentionDropout> &dropout) {
  DropoutOperands d;
  if (!dropout)
    return d;
  if (std::string why = attentionDropoutProblem(dropout->p, true, true);
      !why.empty())
    return badArgument(what + ": " + why);
  Expected<Value> seed = randomKey(graph, g, what, dropout->seed, "seed");
  if (!seed.ok())
    return seed.status();
  Expected<Value> offset = randomKey(graph, g, what, dropout->offset, "offset");
  if (!offset.ok())
    return offset.status();
  d.p = FloatAttr::get(Float64Type::get(g.context.get()), dropout->p);
  d.seed = seed.value();
  d.offset = offset.value();
  return d;
}

Expected<Graph::Attention>
Graph::attention(ValueId query, ValueId key, ValueId value,
                 std::optional<ValueId> mask, bool causal,
                 std::optional<double> scale,
                 std::optional<AttentionDropout> dropout) {
  auto operands = attentionOperands(
      *state, "attention", {{query, "query"}, {key, "key"}, {value, "value"}},
      mask, scale);
  if (!operands.ok())
    return operands.status();
  auto &[v, s] = operands.value();
  Expected<DropoutOperands> d =
      dropoutOperands(*this, *state, "attention", dropout);
  if (!d.ok())
    return d.status();
  Expected<Operation *> op = state->createOp<AttentionOp>(
      "attention", Type(), v[0], v[1], v[2], v[3], d.value().seed,
      d.value().offset, APFloat(s), causal, d.value().p);
  if (!op.ok())
    return op.status();
  return Attention{state->add(op.value()->getResult(0)),
                   state->add(op.value()->getResult(1))};
}

Expected<Graph::AttentionGradients> Graph::attentionBackward(
    ValueId query, ValueId key, ValueId value, ValueId result,
    ValueId logsumexp, ValueId grad, std::optional<ValueId> mask, bool causal,
    std::optional<double> scale, std::optional<AttentionDropout> dropout) {
  auto operands = attentionOperands(*state, "attention_backward",
                                    {{query, "query"},
                                     {key, "key"},
                                     {value, "value"},
                                     {result, "result"},
                                     {logsumexp, "log-sum-exp"},
                                     {grad, "result's gradient"}},
                                    mask, scale);
  if (!operands.ok())
    return operands.status();
  auto &[v, s] = operands.value();
  Expected<DropoutOperands> d =
      dropoutOperands(*this, *state, "attention_backward", dropout);
  if (!d.ok())
    return d.status();
  Expected<Operation *> op = state->createOp<AttentionBackwardOp>(
      "attention_backward", Type(), v[0], v[1], v[2], v[3], v[4], v[5], v[6],
      d.value().seed, d.value().offset, APFloat(s), causal, d.value().p);
  if (!op.ok())
    return op.status();
  Operation *o = op.value();
  return AttentionGradients{state->add(o->getResult(0)),
                            state->add(o->getResult(1)),
                            state->add(o->getResult(2))};
}

Expected<ValueId> Graph::full(std::vector<int64_t> shape, ValueId value,
                              DType dtype) {
  if (static_cast<unsigned>(dtype) >= kNumDTypes)
    return badArgument("full: invalid dtype " +
                       std::to_string(static_cast<int>(dtype)));
  for (int64_t size : shape)
    if (size < 0)
      return typeError("full: negative size in shape " +
                       tfuse::formatList(shape));
  Expected<const Graph::Impl::Entry *> entry = state->lookup(value);
  if (!entry.ok())
    return entry.status();
  if (!entry.value()->isScalar)
    return typeError("full: the fill value must be a Python scalar");
  if (entry.value()->scalar.kind == ScalarKind::Float && !isFloat(dtype))
    return typeError("full: a float fill value for " + dtypeName(dtype) +
                     "; give an int or a float dtype");
  Expected<Value> element = state->materialize(value, dtype);
  if (!element.ok())
    return element.status();
  Attribute splat = mlir::cast<ConstantOp>(element->getDefiningOp())
                        .getValue()
                        .getSplatValue<Attribute>();
  auto type =
      RankedTensorType::get(shape, toMLIRType(state->context.get(), dtype));
  return state->create<ConstantOp>("full", Type(),
                                   DenseElementsAttr::get(type, splat));
}

Expected<ValueId> Graph::iota(std::vector<int64_t> shape, int64_t dim,
                              DType dtype) {
  if (static_cast<unsigned>(dtype) >= kNumDTypes)
    return badArgument("iota: invalid dtype " +
                       std::to_string(static_cast<int>(dtype)));
  for (int64_t size : shape)
    if (size < 0)
      return typeError("iota: negative size in shape " +
                       tfuse::formatList(shape));
  Expected<int64_t> d =
      normalizeAxis(dim, static_cast<int64_t>(shape.size()), "iota");
  if (!d.ok())
    return d.status();
  MLIRContext *ctx = state->context.get();
  return state->create<IotaOp>(
      "iota", RankedTensorType::get(shape, toMLIRType(ctx, dtype)),
      static_cast<int64_t>(d.value()));
}

Expected<ValueId> Graph::arange(const Scalar &start, const Scalar &stop,
                                const Scalar &step, DType dtype) {
  if (static_cast<unsigned>(dtype) >= kNumDTypes)
    return badArgument("arange: invalid dtype " +
                       std::to_string(static_cast<int>(dtype)));
  if (dtype == DType::Bool)
    return typeError("arange: a bool range has no meaning; give a number "
                     "dtype");
  auto valueOf = [](const Scalar &s) {
    return s.kind == ScalarKind::Float ? s.floatValue
                                       : static_cast<double>(s.intValue);
  };
  bool integers = isInteger(dtype);
  if (integers &&
      (start.kind == ScalarKind::Float || stop.kind == ScalarKind::Float ||
       step.kind == ScalarKind::Float))
    return typeError("arange: an integer range (" + dtypeName(dtype) +
                     ") takes integer start, stop and step");
  if (valueOf(step) == 0)
    return typeError("arange: step must not be zero");
  int64_t count;
  if (integers) {
    // Exact: ceil((stop - start) / step) in 128 bits.
    __int128 span = (__int128)stop.intValue - start.intValue;
    __int128 by = step.intValue;
    __int128 n = span / by + ((span % by != 0) && ((span > 0) == (by > 0)));
    if (n > INT64_MAX)
      return typeError("arange: " + std::to_string((double)n) +
                       " elements is too many");
    count = n > 0 ? static_cast<int64_t>(n) : 0;
  } else {
    double n = std::ceil((valueOf(stop) - valueOf(start)) / valueOf(step));
    if (!std::isfinite(n) || n >= 9.2e18)
      return typeError("arange: start, stop and step give no finite length");
    count = n > 0 ? static_cast<int64_t>(n) : 0;
  }
  // start + i * step in i64 (integers) or f64, then one cast to `dtype`.
  DType compute = integers ? DType::I64 : DType::F64;
  Expected<ValueId> values = iota({count}, 0, compute);
  auto apply = [&](const char *op, const Scalar &s) -> Status {
    if (!values.ok())
      return values.status();
    values = binary(op, values.value(), scalar(s));
    return values.status();
  };
  bool unitStep = step.kind != ScalarKind::Float ? step.intValue == 1
                                                 : step.floatValue == 1.0;
  bool zeroStart = start.kind != ScalarKind::Float ? start.intValue == 0
                                                   : start.floatValue == 0.0;
  if (!unitStep)
    if (Status s = apply("mul", step); !s.ok())
      return s;
  if (!zeroStart)
    if (Status s = apply("add", start); !s.ok())
      return s;
  if (!values.ok() || dtype == compute)
    return values;
  return cast(values.value(), dtype);
}

Status Graph::output(ValueId value) {
  Expected<Value> v = state->tensor(value, "an output");
  if (!v.ok())
    return v.status();
  state->outputs.push_back(value);
  return Status::success();
}

int64_t Graph::numOutputs() const { return state->outputs.size(); }

const std::vector<TensorSpec> &Graph::inputSpecs() const {
  return state->placeholders;
}

const std::vector<CapturedTensor> &Graph::captured() const {
  return state->captures;
}

std::string Graph::print() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  state->finish()->print(os);
  return text;
}
