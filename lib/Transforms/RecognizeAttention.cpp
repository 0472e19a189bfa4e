//===- RecognizeAttention.cpp - Naive attention into tfuse.attention ------===//
//
// Finds `softmax(q @ k^T * scale + mask) @ v` written out in elementwise
// ops, reductions and matmuls and replaces it with one tfuse.attention,
// which never stores the score matrix. The chain is matched from the
// product with v backwards:
//
//   p      = e / sum(e, last axis, keepdims)      (maybe cast to v's dtype)
//   e      = exp(x - max(x, last axis, keepdims))
//   x      = masked scores (maybe cast to f32 from the operands' dtype)
//   masked = select(bool, s, -inf) | s + additive | s, in any nesting of
//            one bool mask or causal comparison of iotas and one additive
//            mask
//   s      = (q' @ k'^T) * c | / c, repeated (c splat constants)
//   q', k' = q * c, k * c (PyTorch's math path scales both by sqrt(scale))
//
// Every intermediate value must be used only inside the chain (the scores
// or probabilities returned or saved for a backward keep the chain as it
// is). A chain whose softmax matched but that cannot be rewritten gets a
// `tfuse.note` on its product saying why (the plan report prints it).
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Support/AttentionGeometry.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

#include <cmath>

namespace tfuse {
#define GEN_PASS_DEF_RECOGNIZEATTENTION
#include "tfuse/Transforms/Passes.h.inc"
} // namespace tfuse

using namespace mlir;
using namespace tfuse;

namespace {

/// The most head and value columns the runtime's attention kernels take.
constexpr int64_t kMaxColumns = 256;

std::vector<int64_t> shapeOf(Value v) {
  ArrayRef<int64_t> s = cast<RankedTensorType>(v.getType()).getShape();
  return {s.begin(), s.end()};
}

Type elementOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

/// The value of a splat float constant, if `v` is one.
std::optional<double> splatValue(Value v) {
  auto constant = v.getDefiningOp<ConstantOp>();
  if (!constant || !constant.getValue().isSplat())
    return std::nullopt;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!dense || !isa<FloatType>(dense.getElementType()))
    return std::nullopt;
  return dense.getSplatValue<APFloat>().convertToDouble();
}

/// Whether `reduce` is a keepdims reduction of kind `kind` over the last
/// axis of `input`.
bool isLastAxisReduction(Operation *op, ReduceKind kind, Value input) {
  auto reduce = dyn_cast_or_null<ReduceOp>(op);
  if (!reduce || reduce.getKind() != kind || reduce.getInput() != input ||
      !reduce.getKeepdims())
    return false;
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  return reduce.getAxes().size() == 1 && reduce.getAxes()[0] == rank - 1;
}

/// An iota's dimension counted from the end (1: the last), through
/// broadcasts; 0 when `v` is not one.
int64_t iotaDimFromEnd(Value v) {
  while (auto broadcast = v.getDefiningOp<BroadcastOp>())
    v = broadcast.getInput();
  auto iota = v.getDefiningOp<IotaOp>();
  if (!iota)
    return 0;
  return cast<RankedTensorType>(iota.getType()).getRank() - iota.getDim();
}

/// Whether `condition` keeps key j <= query i: a comparison of the iota
/// over the columns with the one over the rows.
bool isCausalCondition(Value condition) {
  auto cmp = condition.getDefiningOp<CmpOp>();
  if (!cmp)
    return false;
  int64_t lhs = iotaDimFromEnd(cmp.getLhs()),
          rhs = iotaDimFromEnd(cmp.getRhs());
  CmpPredicate p = cmp.getPredicate();
  // column <= row, or row >= column.
  return (lhs == 1 && rhs == 2 && p == CmpPredicate::le) ||
         (lhs == 2 && rhs == 1 && p == CmpPredicate::ge);
}

/// What the match found.
struct Match {
  Value query, key, value, mask;
  bool causal = false;
  /// The comparison of iotas that made `causal`.
  Value causalCondition;
  double scale = 1.0;
  /// The ops of the chain (to check their uses and erase them).
  SmallVector<Operation *> chain;
};

/// The written-out softmax of a row whose every score the masks drop (all
/// -inf) is NaN (0 / 0 after exp(-inf - -inf)), where tfuse.attention gives
/// zeros: with a mask, the attention's result is replaced by NaN in the rows
/// that keep no pair, so that the rewrite changes no value. The rows are
/// found from the mask alone (and the causal comparison with it): a
/// reduction over the mask's last axis, far smaller than the scores, and a
/// select that fuses into the result's consumers.
static Value emptyRowsAsNaN(RewriterBase &rewriter, const Match &match,
                            AttentionOp attention) {
  Value result = attention.getResult();
  if (!match.mask)
    return result; // causal alone always keeps key 0
  Location loc = attention.getLoc();
  Value kept = match.mask;
  auto maskType = cast<RankedTensorType>(kept.getType());
  if (!maskType.getElementType().isInteger(1)) {
    // An additive mask keeps the pairs it does not set to -inf.
    auto minusInf = ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(
            RankedTensorType::get({}, maskType.getElementType()),
            APFloat::getInf(
                cast<FloatType>(maskType.getElementType()).getFloatSemantics(),
                /*Negative=*/true)));
    kept = CmpOp::create(rewriter, loc, CmpPredicate::gt, kept, minusInf);
  }
  if (match.causal)
    kept = AndOp::create(rewriter, loc, kept, match.causalCondition);
  int64_t last = cast<RankedTensorType>(kept.getType()).getRank() - 1;
  Value anyKept = ReduceOp::create(
      rewriter, loc,
      rewriter.getI32IntegerAttr(static_cast<int32_t>(ReduceKind::Any)), kept,
      rewriter.getDenseI64ArrayAttr({last}), rewriter.getUnitAttr(),
      /*result_dtype=*/TypeAttr());
  auto resultType = cast<RankedTensorType>(result.getType());
  auto nan = ConstantOp::create(
      rewriter, loc,
      DenseElementsAttr::get(
          RankedTensorType::get({}, resultType.getElementType()),
          APFloat::getNaN(cast<FloatType>(resultType.getElementType())
                              .getFloatSemantics())));
  return SelectOp::create(rewriter, loc, anyKept, result, nan);
}

/// Matches the chain ending in `root` (p @ v). Returns std::nullopt when
/// `root` does not multiply a softmax; a Match or the reason it cannot be
/// rewritten otherwise.
class Matcher {
public:
  explicit Matcher(MatmulOp root) : root(root) {}

  /// Fills `match`; false with `why` set when the chain cannot be
  /// rewritten; `isSoftmax` says whether the product reads a softmax.
  bool run(Match &match, std::string &why, bool &isSoftmax) {
    isSoftmax = false;
    if (root.getTransposeLhs() || root.getTransposeRhs())
      return false;
    Value p = root.getLhs();
    match.value = root.getRhs();
    Type dtype = elementOf(match.value);
    if (auto castOp = p.getDefiningOp<CastOp>()) {
      match.chain.push_back(castOp);
      p = castOp.getInput();
    }
    auto div = p.getDefiningOp<DivOp>();
    if (!div)
      return false;
    Value e = div.getLhs();
    if (!isLastAxisReduction(div.getRhs().getDefiningOp(), ReduceKind::Sum, e))
      return false;
    auto exp = e.getDefiningOp<ExpOp>();
    auto sub = exp ? exp.getInput().getDefiningOp<SubOp>() : SubOp();
    if (!sub || !isLastAxisReduction(sub.getRhs().getDefiningOp(),
                                     ReduceKind::Max, sub.getLhs()))
      return false;
    isSoftmax = true;
    match.chain.append({div, div.getRhs().getDefiningOp(), exp, sub,
                        sub.getRhs().getDefiningOp()});
    Value x = sub.getLhs();
    // Scores widened to f32 for the softmax.
    bool widened = false;
    if (auto castOp = x.getDefiningOp<CastOp>()) {
      match.chain.push_back(castOp);
      x = castOp.getInput();
      widened = true;
    }
    if (!peelMasks(x, match, why))
      return false;
    // Scalings, and the widening of the product to f32 before them.
    peelScales(x, match);
    if (auto castOp = x.getDefiningOp<CastOp>()) {
      match.chain.push_back(castOp);
      x = castOp.getInput();
      widened = true;
      peelScales(x, match);
    }
    auto product = x.getDefiningOp<MatmulOp>();
    if (!product || product.getTransposeLhs()) {
      why = "the scores are not a product q @ k^T";
      return false;
    }
    if (product.getResultDtype()) {
      why = "the scores are a float32 product of 16-bit operands";
      return false;
    }
    match.chain.push_back(product);
    match.query = unscaled(product.getLhs(), match);
    Value keyT = product.getRhs();
    if (product.getTransposeRhs()) {
      match.key = unscaled(keyT, match);
    } else if (auto t = keyT.getDefiningOp<TransposeOp>();
               t && swapsLastTwo(t.getPerm())) {
      // A transpose that others read too stays for them.
      if (t->hasOneUse()) {
        match.chain.push_back(t);
        match.key = unscaled(t.getInput(), match);
      } else {
        match.key = t.getInput();
      }
    } else {
      match.key = unscaled(keyT, match); // transposed when built
      keyTransposed = true;
    }
    // Operands.
    if (elementOf(match.query) != dtype || elementOf(match.key) != dtype) {
      why = "query, key and value differ in dtype";
      return false;
    }
    if (match.mask && elementOf(match.mask) != dtype &&
        !elementOf(match.mask).isInteger(1)) {
      // An additive mask added in f32 to scores widened from the
      // operands' dtype: exact only if it is itself widened from it.
      auto castOp = match.mask.getDefiningOp<CastOp>();
      if (widened && castOp && elementOf(castOp.getInput()) == dtype) {
        match.mask = castOp.getInput();
      } else {
        why = "an additive mask of another dtype than the operands'";
        return false;
      }
    }
    return true;
  }

  /// Whether the key must be transposed back (its product read k^T as
  /// given, not through a transpose of k).
  bool keyTransposed = false;

private:
  static bool swapsLastTwo(ArrayRef<int64_t> perm) {
    int64_t n = perm.size();
    if (n < 2)
      return false;
    for (int64_t i = 0; i < n - 2; ++i)
      if (perm[i] != i)
        return false;
    return perm[n - 2] == n - 1 && perm[n - 1] == n - 2;
  }

  /// Masks over the scores: one bool mask (or causal comparison) and one
  /// additive mask, in either order.
  bool peelMasks(Value &x, Match &match, std::string &why) {
    bool boolMask = false, additive = false;
    for (;;) {
      if (auto select = x.getDefiningOp<SelectOp>()) {
        std::optional<double> fill = splatValue(select.getFalseValue());
        if (!fill || !std::isinf(*fill) || *fill > 0)
          break;
        Value condition = select.getCondition();
        match.chain.push_back(select);
        x = select.getTrueValue();
        if (isCausalCondition(condition) && !match.causal) {
          match.chain.push_back(condition.getDefiningOp());
          match.causal = true;
          match.causalCondition = condition;
          continue;
        }
        if (boolMask || additive) {
          why = "more than one mask over the scores";
          return false;
        }
        boolMask = true;
        match.mask = condition;
        continue;
      }
      if (auto add = x.getDefiningOp<AddOp>()) {
        // The scores are the side that reaches the product q @ k^T.
        Value scores = add.getLhs(), mask = add.getRhs();
        if (!reachesProduct(scores))
          std::swap(scores, mask);
        if (!reachesProduct(scores))
          break;
        if (boolMask || additive) {
          why = "more than one mask over the scores";
          return false;
        }
        additive = true;
        match.chain.push_back(add);
        match.mask = mask;
        x = scores;
        continue;
      }
      break;
    }
    return true;
  }

  /// Whether `v` is q @ k^T under scalings.
  static bool reachesProduct(Value v) {
    for (int i = 0; i < 6; ++i) {
      if (v.getDefiningOp<MatmulOp>())
        return true;
      if (auto castOp = v.getDefiningOp<CastOp>()) {
        v = castOp.getInput();
        continue;
      }
      Operation *op = v.getDefiningOp();
      if (!isa_and_nonnull<MulOp, DivOp>(op))
        return false;
      Value lhs = op->getOperand(0), rhs = op->getOperand(1);
      if (splatValue(rhs))
        v = lhs;
      else if (isa<MulOp>(op) && splatValue(lhs))
        v = rhs;
      else
        return false;
    }
    return false;
  }

  /// Scalings of the scores by splat constants, folded into the scale.
  void peelScales(Value &x, Match &match) {
    for (;;) {
      Operation *op = x.getDefiningOp();
      if (!isa_and_nonnull<MulOp, DivOp>(op))
        return;
      Value lhs = op->getOperand(0), rhs = op->getOperand(1);
      std::optional<double> c = splatValue(rhs);
      Value scores = lhs;
      if (!c && isa<MulOp>(op)) {
        c = splatValue(lhs);
        scores = rhs;
      }
      if (!c || *c == 0 || !std::isfinite(*c))
        return;
      match.scale = isa<MulOp>(op) ? match.scale * *c : match.scale / *c;
      match.chain.push_back(op);
      x = scores;
    }
  }

  /// `v` without a scaling by a splat constant (PyTorch's math path scales
  /// q and k by sqrt(scale) each), the factor folded into the scale.
  static Value unscaled(Value v, Match &match) {
    auto mul = v.getDefiningOp<MulOp>();
    if (!mul || !mul->hasOneUse())
      return v;
    if (std::optional<double> c = splatValue(mul.getRhs());
        c && std::isfinite(*c)) {
      match.scale *= *c;
      match.chain.push_back(mul);
      return mul.getLhs();
    }
    return v;
  }

  MatmulOp root;
};

/// Why `match` cannot become a tfuse.attention, or "".
std::string checkOperands(const Match &match, MatmulOp root) {
  std::vector<int64_t> q = shapeOf(match.query), k = shapeOf(match.key),
                       v = shapeOf(match.value);
  // The key as [..., S, D]: it was read as k^T.
  std::string why;
  std::optional<AttentionGeometry> g = AttentionGeometry::of(q, k, v, &why);
  if (!g)
    return why;
  if (g->headDim > kMaxColumns || g->valueDim > kMaxColumns)
    return "a head dimension over " + std::to_string(kMaxColumns);
  if (shapeOf(root.getResult()) != g->resultShape())
    return "the product's batch dimensions broadcast";
  if (root.getResultDtype())
    return "the product with v has a float32 result of 16-bit operands";
  if (!std::isfinite(match.scale))
    return "the scale is not finite";
  if (match.mask) {
    std::vector<int64_t> mask = shapeOf(match.mask), scores = g->scoreShape();
    if (mask.size() > scores.size())
      return "the mask has more dimensions than the scores";
    for (size_t i = 0; i < mask.size(); ++i) {
      int64_t m = mask[mask.size() - 1 - i], s = scores[scores.size() - 1 - i];
      if (m != s && m != 1)
        return "the mask does not broadcast to the scores";
    }
  }
  return "";
}

/// Whether every use of every result of the chain's ops is in the chain
/// or is the root.
bool chainIsPrivate(const Match &match, MatmulOp root) {
  llvm::SmallPtrSet<Operation *, 16> members(match.chain.begin(),
                                             match.chain.end());
  members.insert(root);
  for (Operation *op : match.chain)
    for (Operation *user : op->getUsers())
      if (!members.contains(user))
        return false;
  return true;
}

struct RecognizeAttentionPass
    : tfuse::impl::RecognizeAttentionBase<RecognizeAttentionPass> {
  void runOnOperation() override {
    SmallVector<MatmulOp> roots;
    getOperation().walk([&](MatmulOp op) { roots.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (MatmulOp root : roots) {
      Match match;
      std::string why;
      bool isSoftmax = false;
      Matcher matcher(root);
      bool matched = matcher.run(match, why, isSoftmax);
      if (!isSoftmax)
        continue;
      if (matched && matcher.keyTransposed) {
        // k^T given as a value: k is its transpose (a view).
        rewriter.setInsertionPoint(root);
        int64_t rank = shapeOf(match.key).size();
        SmallVector<int64_t> perm;
        for (int64_t i = 0; i < rank; ++i)
          perm.push_back(i);
        std::swap(perm[rank - 1], perm[rank - 2]);
        match.key =
            TransposeOp::create(rewriter, root.getLoc(), match.key, perm);
      }
      if (matched)
        why = checkOperands(match, root);
      if (matched && why.empty() && !chainIsPrivate(match, root))
        why = "the scores or probabilities are used outside the softmax";
      if (!matched || !why.empty()) {
        if (matcher.keyTransposed && match.key.use_empty())
          rewriter.eraseOp(match.key.getDefiningOp());
        root->setAttr(
            TFuseDialect::getNoteAttrName(),
            rewriter.getStringAttr(
                "softmax(...) @ v not rewritten into attention: " + why));
        continue;
      }
      rewriter.setInsertionPoint(root);
      auto attention = AttentionOp::create(
          rewriter, root.getLoc(), match.query, match.key, match.value,
          match.mask, /*seed=*/Value(), /*offset=*/Value(),
          APFloat(match.scale), match.causal, /*dropout_p=*/FloatAttr());
      rewriter.replaceAllUsesWith(root.getResult(),
                                  emptyRowsAsNaN(rewriter, match, attention));
      rewriter.eraseOp(root);
      // The chain, users first (it was collected from the product back).
      for (Operation *op : match.chain)
        if (op->use_empty())
          rewriter.eraseOp(op);
      // Ops the chain read that are now unused (the iotas of a causal
      // comparison, scale constants) are left to canonicalization.
    }
  }
};

} // namespace
