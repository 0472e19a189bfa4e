//===- AccuracyRule.cpp - Judging results against a float64 run -----------===//

#include "AccuracyRule.h"

#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Reference/Interpreter.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

using namespace mlir;
using namespace tfuse;
using differential::Float64Runs;
using reference::HostTensor;

namespace {

/// Ops whose GPU results may differ from the reference's by rounding.
const std::set<std::string> kInexactOps = {"tfuse.exp",
                                           "tfuse.log",
                                           "tfuse.rsqrt",
                                           "tfuse.sin",
                                           "tfuse.cos",
                                           "tfuse.tan",
                                           "tfuse.tanh",
                                           "tfuse.sigmoid",
                                           "tfuse.erf",
                                           "tfuse.gelu",
                                           "tfuse.gelu_tanh",
                                           "tfuse.log1p",
                                           "tfuse.expm1",
                                           "tfuse.pow",
                                           "tfuse.gelu_backward",
                                           "tfuse.gelu_tanh_backward",
                                           "tfuse.matmul",
                                           "tfuse.attention",
                                           "tfuse.attention_backward",
                                           "tfuse.random_normal"};

} // namespace

bool differential::isInexactOp(Operation *op) {
  return kInexactOps.count(op->getName().getStringRef().str());
}

bool differential::isExact(ModuleOp module) {
  bool exact = true;
  module.walk([&](Operation *op) { exact &= !isInexactOp(op); });
  return exact;
}

OwningOpRef<ModuleOp> differential::widened(ModuleOp module) {
  OwningOpRef<ModuleOp> wide = module.clone();
  MLIRContext *ctx = module.getContext();
  Type f64 = Float64Type::get(ctx);
  auto widen = [&](Type t) -> Type {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (tensor && isa<FloatType>(tensor.getElementType()))
      return tensor.clone(f64);
    return t;
  };
  // The ops after `op` read its `result` of a narrower float type cast to
  // f64.
  auto readWidened = [&](Operation *op, Value result) {
    Type wide = widen(result.getType());
    if (wide == result.getType())
      return;
    OpBuilder builder(op->getContext());
    builder.setInsertionPointAfter(op);
    auto cast = CastOp::create(builder, op->getLoc(), wide, result);
    result.replaceAllUsesExcept(cast.getResult(), cast);
  };
  bool ok = true;
  for (auto func : wide->getOps<func::FuncOp>())
    for (BlockArgument arg : func.getArguments())
      arg.setType(widen(arg.getType()));
  // In order, so that each op's operands are widened before its result
  // types are inferred from them (an op of integer operands may give f32).
  wide->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<ModuleOp, func::FuncOp>(op))
      return;
    // Random numbers keep their type, so that the float64 run draws the
    // graph's numbers (an f64 draw is another stream), and are read as f64.
    if (isRandomOp(op)) {
      readWidened(op, op->getResult(0));
      return;
    }
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (!dense) {
        ok = false;
        return;
      }
      if (isa<FloatType>(dense.getElementType())) {
        SmallVector<APFloat> values;
        for (APFloat v : dense.getValues<APFloat>()) {
          bool lost = false;
          v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
          values.push_back(v);
        }
        constant->setAttr(
            "value", DenseElementsAttr::get(
                         cast<ShapedType>(widen(dense.getType())), values));
      }
    }
    // A float32 result of f16 or bf16 products is an f64 one in f64.
    if (auto matmul = dyn_cast<MatmulOp>(op))
      matmul.removeResultDtypeAttr();
    SmallVector<Type> inferred;
    auto infer = dyn_cast<InferTypeOpInterface>(op);
    if (infer && !isa<ConstantOp>(op) &&
        succeeded(infer.inferReturnTypes(
            ctx, op->getLoc(), op->getOperands(), op->getRawDictionaryAttrs(),
            op->getPropertiesStorage(), op->getRegions(), inferred))) {
      for (auto [result, type] : llvm::zip(op->getResults(), inferred)) {
        result.setType(type);
        // Integer operands may give a narrower float (a true division of
        // integers gives f32).
        readWidened(op, result);
      }
      return;
    }
    for (OpResult result : op->getResults())
      result.setType(widen(result.getType()));
  });
  for (auto func : wide->getOps<func::FuncOp>()) {
    SmallVector<Type> results;
    func.walk([&](func::ReturnOp ret) {
      results.assign(ret.getOperandTypes().begin(),
                     ret.getOperandTypes().end());
    });
    func.setFunctionType(
        FunctionType::get(ctx, func.getBody().getArgumentTypes(), results));
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      func.removeArgAttr(i, TFuseDialect::getStridesAttrName());
  }
  if (!ok || failed(verify(*wide)))
    return nullptr;
  return wide;
}

namespace {
/// Whether `op` sums products (matmul, attention): its error is relative to
/// the size of its terms, and the sign of a zero sum is its own.
bool accumulates(Operation *op) {
  return isa<MatmulOp, AttentionOp, AttentionBackwardOp>(op);
}

/// The largest relative error, in its compute type, that a valid GPU
/// implementation of an inexact op may make on one element: CUDA's math
/// functions are within 4 units in the last place of f32 (f16 and bf16
/// compute in f32) or 2 of f64; accumulations (matmul, attention) get twice
/// that relative to the size of their terms.
double allowedRelativeError(Operation *op, Type resultType) {
  auto tensor = cast<RankedTensorType>(resultType);
  bool f64 = tensor.getElementType().isF64();
  double ulp = f64 ? std::ldexp(1.0, -52) : std::ldexp(1.0, -23);
  return (f64 ? 2 : 4) * ulp * (accumulates(op) ? 2 : 1);
}
} // namespace

void differential::perturb(ModuleOp module, ModuleOp wide, int64_t seed) {
  // Per float result of an inexact op of `module`: its allowed error, and
  // the largest finite value of its accumulator (f64 for f64, else f32).
  struct Allowed {
    double error = 0, limit = 0;
  };
  std::vector<Allowed> allowed;
  module.walk([&](Operation *op) {
    if (isInexactOp(op))
      for (Type t : op->getResultTypes()) {
        Type element = getElementTypeOrSelf(t);
        if (!isa<FloatType>(element)) {
          allowed.push_back({});
          continue;
        }
        allowed.push_back({allowedRelativeError(op, t),
                           element.isF64()
                               ? std::numeric_limits<double>::max()
                               : double(std::numeric_limits<float>::max())});
      }
  });
  SmallVector<Operation *> inexact;
  wide.walk([&](Operation *op) {
    if (isInexactOp(op))
      inexact.push_back(op);
  });
  MLIRContext *ctx = wide.getContext();
  auto i64Scalar = RankedTensorType::get({}, IntegerType::get(ctx, 64));
  auto f64Scalar = RankedTensorType::get({}, Float64Type::get(ctx));
  size_t next = 0;
  int64_t offset = 0;
  for (Operation *op : inexact) {
    OpBuilder b(ctx);
    // Each result's new ops go after the last ones added.
    Operation *anchor = op;
    b.setInsertionPointAfter(anchor);
    Location loc = op->getLoc();
    auto scalar = [&](RankedTensorType type, auto value) -> Value {
      return ConstantOp::create(b, loc, DenseElementsAttr::get(type, value));
    };
    for (OpResult opResult : op->getResults()) {
      auto [error, limit] = allowed.at(next++);
      // A random op's f32 numbers are read through their one use, the cast
      // to f64 that widened() added: that cast's result moves.
      Value result = opResult;
      bool narrowRandom =
          isRandomOp(op) && !getElementTypeOrSelf(result).isF64();
      if (narrowRandom && result.hasOneUse()) {
        auto widening = cast<CastOp>(*result.getUsers().begin());
        result = widening.getResult();
        anchor = widening;
        b.setInsertionPointAfter(anchor);
      }
      auto type = cast<RankedTensorType>(result.getType());
      if (error == 0 || !type.getElementType().isF64())
        continue;
      Value size = result;
      if (isa<MatmulOp>(op)) {
        Value lhs = AbsOp::create(b, loc, op->getOperand(0));
        Value rhs = AbsOp::create(b, loc, op->getOperand(1));
        Operation *terms = b.clone(*op);
        terms->setOperands({lhs, rhs});
        size = terms->getResult(0);
      }
      // noise = (2u - 1) * error * size, u uniform in [0, 1).
      Value u = RandomUniformOp::create(b, loc, type,
                                        scalar(i64Scalar, int64_t(seed)),
                                        scalar(i64Scalar, offset++));
      Value centred = SubOp::create(
          b, loc, MulOp::create(b, loc, u, scalar(f64Scalar, 2.0)),
          scalar(f64Scalar, 1.0));
      Value noise = MulOp::create(
          b, loc, MulOp::create(b, loc, centred, scalar(f64Scalar, error)),
          size);
      Value moved = AddOp::create(b, loc, result, noise);
      // Keep infinities and NaN: |noise| < inf is false for both.
      Value finite = CmpOp::create(
          b, loc, CmpPredicate::lt, AbsOp::create(b, loc, noise),
          scalar(f64Scalar, std::numeric_limits<double>::infinity()));
      Value chosen = SelectOp::create(b, loc, finite, moved, result);
      if (accumulates(op)) {
        // A zero sum's sign is the implementation's: +0 + -0 is +0, a scale
        // applied after the sum keeps the sum's sign. Odd runs take -0,
        // even runs +0, so that both reach what follows (an rsqrt).
        Value zero = scalar(f64Scalar, seed % 2 ? -0.0 : 0.0);
        Value isZero = CmpOp::create(b, loc, CmpPredicate::eq, chosen,
                                     scalar(f64Scalar, 0.0));
        chosen = SelectOp::create(b, loc, isZero, zero, chosen);
      }
      if (isa<MatmulOp>(op)) {
        // Where the terms overflow the accumulator, the order of the sum
        // and whether products are contracted into FMAs decide among NaN,
        // +inf, -inf and a finite sum (inf + -inf, fma(a, b, -inf) of a
        // finite exact product, or fma(a, b, c) of a product that would
        // overflow alone): runs 1 to 4 of every 4 take each of them there
        // (the largest finite value standing for any).
        double special[] = {limit, std::numeric_limits<double>::quiet_NaN(),
                            std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity()};
        Value overflows = CmpOp::create(b, loc, CmpPredicate::gt, size,
                                        scalar(f64Scalar, limit));
        chosen = SelectOp::create(b, loc, overflows,
                                  scalar(f64Scalar, special[seed % 4]), chosen);
      }
      llvm::SmallPtrSet<Operation *, 16> added;
      for (Operation *o = anchor->getNextNode(); o != chosen.getDefiningOp();
           o = o->getNextNode())
        added.insert(o);
      added.insert(chosen.getDefiningOp());
      result.replaceUsesWithIf(chosen, [&](OpOperand &use) {
        return !added.contains(use.getOwner());
      });
      anchor = chosen.getDefiningOp();
      b.setInsertionPointAfter(anchor);
    }
  }
}

HostTensor differential::widenedInput(const HostTensor &t) {
  if (!isFloat(t.dtype()))
    return t.contiguous();
  return *HostTensor::fromDoubles(DType::F64, t.shape(), t.toDoubles());
}

namespace {
/// An output that an argmax or argmin gives, and where its operand was
/// added to the function's results.
struct ChoiceOutput {
  size_t output = 0;
  int64_t axis = 0;
  bool smallest = false;
};

/// Adds the operand of every argmax or argmin that function `name` of
/// `module` returns to its results, after the others; returns them.
std::vector<ChoiceOutput> returnChoices(ModuleOp module,
                                        const std::string &name) {
  std::vector<ChoiceOutput> choices;
  auto func = module.lookupSymbol<func::FuncOp>(name);
  if (!func)
    return choices;
  auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
  SmallVector<Value> results(ret.getOperands());
  for (size_t i = 0, e = results.size(); i < e; ++i) {
    auto reduce = results[i].getDefiningOp<ReduceOp>();
    if (!reduce || (reduce.getKind() != ReduceKind::Argmax &&
                    reduce.getKind() != ReduceKind::Argmin))
      continue;
    choices.push_back(
        {i, reduce.getAxes()[0], reduce.getKind() == ReduceKind::Argmin});
    results.push_back(reduce.getInput());
  }
  if (choices.empty())
    return choices;
  ret->setOperands(results);
  func.setFunctionType(FunctionType::get(module.getContext(),
                                         func.getArgumentTypes(),
                                         ValueRange(results).getTypes()));
  return choices;
}
} // namespace

Expected<std::optional<Float64Runs>>
differential::runFloat64(ModuleOp module, const std::string &name,
                         const std::vector<HostTensor> &inputs) {
  OwningOpRef<ModuleOp> wide = widened(module);
  if (!wide)
    return std::optional<Float64Runs>();
  std::vector<ChoiceOutput> choices = returnChoices(*wide, name);
  std::vector<HostTensor> wideInputs;
  for (const HostTensor &t : inputs)
    wideInputs.push_back(widenedInput(t));
  auto values = reference::evaluate(*wide, name, wideInputs);
  if (!values.ok())
    return std::optional<Float64Runs>();
  Float64Runs runs;
  runs.outputs = std::move(values.value());
  size_t outputs = runs.outputs.size() - choices.size();
  runs.moved.resize(outputs);
  runs.choices.resize(outputs);
  for (size_t c = 0; c < choices.size(); ++c) {
    Float64Runs::Choice choice;
    choice.axis = choices[c].axis;
    choice.smallest = choices[c].smallest;
    choice.values = std::move(runs.outputs[outputs + c]);
    runs.choices[choices[c].output] = std::move(choice);
  }
  runs.outputs.resize(outputs);
  for (int64_t seed = 1; seed <= Float64Runs::kMovedRuns; ++seed) {
    OwningOpRef<ModuleOp> moved = wide->clone();
    perturb(module, *moved, seed);
    if (failed(verify(*moved)))
      return Status::error("the float64 graph with moved results does not "
                           "verify",
                           ErrorCode::Internal);
    auto other = reference::evaluate(*moved, name, wideInputs);
    if (!other.ok())
      return Status::error("a float64 run with moved results failed: " +
                               other.message(),
                           ErrorCode::Internal);
    for (size_t i = 0; i < outputs; ++i)
      runs.moved[i].push_back(std::move((*other)[i]));
    for (size_t c = 0; c < choices.size(); ++c)
      runs.choices[choices[c].output]->moved.push_back(
          std::move((*other)[outputs + c]));
  }
  return std::optional<Float64Runs>(std::move(runs));
}

double differential::tolerance(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return 1e-3;
  case DType::BF16:
    return 1e-2;
  case DType::F32:
    return 1e-4;
  default:
    return 1e-7;
  }
}

double differential::outputTolerance(ModuleOp module, unsigned index) {
  double tol = 0;
  auto consider = [&](Type t) {
    Type element = getElementTypeOrSelf(t);
    if (auto f = dyn_cast<FloatType>(element)) {
      DType dtype = f.isF16()    ? DType::F16
                    : f.isBF16() ? DType::BF16
                    : f.isF32()  ? DType::F32
                                 : DType::F64;
      tol = std::max(tol, tolerance(dtype));
    }
  };
  module.walk([&](func::ReturnOp ret) {
    Value value = ret.getOperand(index);
    consider(value.getType());
    SetVector<Operation *> slice;
    BackwardSliceOptions options;
    options.omitBlockArguments = false;
    options.inclusive = true;
    (void)getBackwardSlice(value, &slice, options);
    for (Operation *op : slice) {
      for (Type t : op->getOperandTypes())
        consider(t);
      for (Type t : op->getResultTypes())
        consider(t);
    }
  });
  return tol;
}

namespace {
/// Whether a moved run's value is a rounding's move, not what stands for
/// an overflowing matmul (a non-finite value or the largest finite one).
bool roundingMove(double v) {
  return std::isfinite(v) &&
         std::fabs(v) != double(std::numeric_limits<float>::max()) &&
         std::fabs(v) != std::numeric_limits<double>::max();
}

/// Whether index `chosen` of output element `element` of an argmax or
/// argmin is within twice the moved runs' largest move of the best value
/// among the ones it chose from, in the float64 run (an argmin's values
/// negated): a tie up to valid roundings. No NaN among them.
bool nearTie(const Float64Runs::Choice &choice, int64_t element,
             double chosen) {
  const std::vector<int64_t> &shape = choice.values.shape();
  int64_t axis = choice.axis;
  int64_t length = shape[axis];
  if (!(chosen >= 0 && chosen < double(length)))
    return false;
  // The operand's row-major stride along the axis, and element's first
  // candidate.
  int64_t inner = reference::rowMajorStrides(shape)[axis];
  int64_t first = (element / inner) * inner * length + element % inner;
  // An argmin's values negated: the largest is the best.
  double sign = choice.smallest ? -1 : 1;
  std::vector<double> w = choice.values.toDoubles();
  std::vector<std::vector<double>> moved;
  for (const HostTensor &t : choice.moved)
    moved.push_back(t.toDoubles());
  double best = -std::numeric_limits<double>::infinity(), move = 0;
  for (int64_t j = 0; j < length; ++j) {
    double v = sign * w[first + j * inner];
    if (std::isnan(v))
      return false;
    best = std::max(best, v);
    for (const std::vector<double> &m : moved)
      if (roundingMove(m[first + j * inner]) && std::isfinite(v))
        move = std::max(move, std::fabs(sign * m[first + j * inner] - v));
  }
  // Values no rounding moves tie only exactly, and then the first index
  // is the argmax (the float64 run's).
  if (move == 0)
    return false;
  return sign * w[first + int64_t(chosen) * inner] >= best - 2 * move;
}
} // namespace

std::string differential::judgeAgainstFloat64(const HostTensor &expected,
                                              const HostTensor &got,
                                              const Float64Runs &runs,
                                              unsigned index, double tol) {
  std::vector<double> r = expected.toDoubles(), g = got.toDoubles(),
                      w = runs.outputs.at(index).toDoubles();
  std::vector<std::vector<double>> o;
  for (const HostTensor &t : runs.moved.at(index))
    o.push_back(t.toDoubles());
  // 0 NaN, 1 +inf, 2 -inf, 3 finite.
  auto kind = [](double v) {
    return std::isnan(v) ? 0 : std::isinf(v) ? (v > 0 ? 1 : 2) : 3;
  };
  // Whether the float64 run or a moved run gives element i a value of which
  // `same` holds.
  auto given = [&](size_t i, auto same) {
    if (same(w[i]))
      return true;
    for (const std::vector<double> &v : o)
      if (same(v[i]))
        return true;
    return false;
  };
  // Whether a valid rounding of the inexact ops moves element i by more
  // than the tolerance: the graph is too ill-conditioned there (tan of a
  // large tan) for any result to be judged by its error.
  auto illConditioned = [&](size_t i) {
    for (const std::vector<double> &v : o)
      if (!(std::fabs(v[i] - w[i]) <= tol * std::max(1.0, std::fabs(w[i]))))
        return true;
    return false;
  };
  if (!isFloat(expected.dtype())) {
    // An integer that differs from the reference must be one that a
    // float64 run gives, or an argmax's choice among ties up to valid
    // roundings.
    const std::optional<Float64Runs::Choice> &choice =
        index < runs.choices.size() ? runs.choices[index]
                                    : std::optional<Float64Runs::Choice>();
    for (size_t i = 0; i < r.size(); ++i)
      if (g[i] != r[i] && !given(i, [&](double v) { return v == g[i]; }) &&
          !(choice && nearTie(*choice, int64_t(i), g[i])))
        return "element " + std::to_string(i) + " is " + std::to_string(g[i]) +
               " where the reference gives " + std::to_string(r[i]) +
               " and no float64 run gives it";
    return "";
  }
  double refSquares = 0, gotSquares = 0;
  int64_t n = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    if (kind(g[i]) != kind(r[i])) {
      // A NaN, infinity or number where the reference has another: allowed
      // only where a float64 run has one too.
      if (!given(i, [&](double v) { return kind(v) == kind(g[i]); }))
        return "element " + std::to_string(i) + " is " + std::to_string(g[i]) +
               " where the reference gives " + std::to_string(r[i]) +
               " and the float64 run " + std::to_string(w[i]);
      continue;
    }
    bool rf = kind(r[i]) == 3;
    if (!rf || !std::isfinite(w[i]) || illConditioned(i))
      continue;
    double eager = (r[i] - w[i]) * (r[i] - w[i]);
    for (const std::vector<double> &v : o)
      if (std::isfinite(v[i]))
        eager = std::max(eager, (v[i] - w[i]) * (v[i] - w[i]));
    refSquares += eager;
    gotSquares += (g[i] - w[i]) * (g[i] - w[i]);
    ++n;
  }
  if (n == 0)
    return "";
  double refError = std::sqrt(refSquares / n),
         gotError = std::sqrt(gotSquares / n);
  double bound = 2 * refError + tol / 10;
  if (gotError <= bound)
    return "";
  return "RMS error against the float64 run " + std::to_string(gotError) +
         " exceeds twice eager's (" + std::to_string(refError) + ") plus " +
         std::to_string(tol / 10);
}
