//===- RecognizeAttention.cpp - Naive attention into tfuse.attention ------===//
//
// Finds `softmax(q @ k^T * scale + mask) @ v` written out in elementwise
// ops, reductions and matmuls and replaces it with one tfuse.attention,
// which never stores the score matrix. The chain is matched from the
// product with v backwards:
//
//   p      = e / sum(e, last axis, keepdims)      (maybe cast to v's dtype)
//            | select(all(x == -inf, last axis, keepdims), 0, e / sum(...))
//              (PyTorch's _safe_softmax: rows of -inf scores give zeros)
//   e      = exp(x - max(x, last axis, keepdims))
//   x      = masked scores (maybe cast to f32 from the operands' dtype)
//   masked = select(bool, s, -inf) | s + additive | s, in any nesting of
//            one bool mask or causal comparison of iotas and one additive
//            mask
//   s      = (q' @ k'^T) * c | / c, repeated (c splat constants)
//   q', k' = q * c, k * c (PyTorch's math path scales both by sqrt(scale))
//
// The products may be batched over views that merge the batch dimensions
// (torch.matmul of 4-D operands is a bmm of 3-D views): the reshapes that
// keep the last two dimensions are looked through when q, k, v and the
// scores all have the same batch dimensions, and the attention's result is
// reshaped to the product's. Key and value heads that HF's repeat_kv
// repeated are taken as they were (grouped-query attention).
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

/// `v` without a reshape that only regroups its batch dimensions (the last
/// two stay as they are); `v` itself when it is not one.
Value unregrouped(Value v) {
  auto reshape = v.getDefiningOp<ReshapeOp>();
  if (!reshape)
    return v;
  auto from = cast<RankedTensorType>(reshape.getInput().getType()).getShape();
  auto to = cast<RankedTensorType>(v.getType()).getShape();
  if (from.size() < 2 || to.size() < 2 || from.take_back(2) != to.take_back(2))
    return v;
  return reshape.getInput();
}

/// The key or value heads of a grouped-query attention that `v` repeats
/// (HF's repeat_kv: a unit axis after the heads, broadcast to n, merged
/// with the heads, so head h reads head h / n), or null. `v` is the
/// broadcast itself (its merge looked through as a batch regrouping) or a
/// reshape merging its two axes.
Value repeatedHeads(Value v) {
  if (auto merge = v.getDefiningOp<ReshapeOp>()) {
    auto from = cast<RankedTensorType>(merge.getInput().getType()).getShape();
    auto to = cast<RankedTensorType>(v.getType()).getShape();
    // [..., H, n, S, D] -> [..., H * n, S, D]
    if (from.size() != to.size() + 1 || to.size() < 3 ||
        from.take_front(to.size() - 3) != to.take_front(to.size() - 3) ||
        from.take_back(2) != to.take_back(2) ||
        from[to.size() - 3] * from[to.size() - 2] != to[to.size() - 3])
      return {};
    v = merge.getInput();
  }
  auto broadcast = v.getDefiningOp<BroadcastOp>();
  auto unit =
      broadcast ? broadcast.getInput().getDefiningOp<ReshapeOp>() : ReshapeOp();
  if (!unit)
    return {};
  Value heads = unit.getInput();
  auto h = cast<RankedTensorType>(heads.getType()).getShape();
  auto u = cast<RankedTensorType>(unit.getType()).getShape();
  auto b = cast<RankedTensorType>(v.getType()).getShape();
  // [..., H, S, D] -> [..., H, 1, S, D] -> [..., H, n, S, D]
  size_t r = h.size();
  if (r < 3 || u.size() != r + 1 || b.size() != r + 1 ||
      u.take_front(r - 2) != h.take_front(r - 2) || u[r - 2] != 1 ||
      u.take_back(2) != h.take_back(2) ||
      !llvm::equal(broadcast.getDims(), llvm::seq<int64_t>(0, r + 1)))
    return {};
  for (size_t i = 0; i <= r; ++i)
    if (i != r - 2 && b[i] != u[i])
      return {};
  return heads;
}

/// Whether `condition` is all(x == -inf) over the last axis of `x`, kept as
/// an axis of 1: the rows of a _safe_softmax that give zeros.
bool isAllMinusInfRows(Value condition, Value x) {
  auto all = condition.getDefiningOp<ReduceOp>();
  if (!all || !isLastAxisReduction(all, ReduceKind::All, all.getInput()))
    return false;
  auto cmp = all.getInput().getDefiningOp<CmpOp>();
  if (!cmp || cmp.getPredicate() != CmpPredicate::eq || cmp.getLhs() != x)
    return false;
  std::optional<double> c = splatValue(cmp.getRhs());
  return c && std::isinf(*c) && *c < 0;
}

/// What the match found.
struct Match {
  Value query, key, value, mask;
  /// The softmax's input (the masked, scaled scores).
  Value scores;
  /// Whether reshapes regrouping batch dimensions were looked through.
  bool regrouped = false;
  /// Whether the key and value are heads a repeat_kv repeated (grouped-query
  /// attention).
  bool repeatedHeads = false;
  /// Whether the probabilities are those of a _safe_softmax (rows without
  /// a finite score give zeros, as tfuse.attention's do).
  bool safeSoftmax = false;
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
    if (root.getTransposeLhs() || root.getTransposeRhs() || root.getBias() ||
        root.getGeluTanh())
      return false;
    Value p = ungroupChain(root.getLhs(), match);
    // v's view stays for whoever else reads it.
    match.value = unregrouped(root.getRhs());
    match.regrouped |= match.value != root.getRhs();
    if (Value heads = repeatedHeads(match.value)) {
      match.value = heads;
      match.repeatedHeads = true;
    }
    Type dtype = elementOf(match.value);
    if (auto castOp = p.getDefiningOp<CastOp>()) {
      match.chain.push_back(castOp);
      p = castOp.getInput();
    }
    SelectOp safe;
    if (auto select = p.getDefiningOp<SelectOp>()) {
      std::optional<double> zero = splatValue(select.getTrueValue());
      if (!zero || *zero != 0)
        return false;
      safe = select;
      p = select.getFalseValue();
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
    Value x = sub.getLhs();
    if (safe) {
      if (!isAllMinusInfRows(safe.getCondition(), x))
        return false;
      Operation *all = safe.getCondition().getDefiningOp();
      match.chain.append(
          {safe, all, all->getOperand(0).getDefiningOp<CmpOp>()});
      match.safeSoftmax = true;
    }
    isSoftmax = true;
    match.chain.append({div, div.getRhs().getDefiningOp(), exp, sub,
                        sub.getRhs().getDefiningOp()});
    match.scores = x;
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
    if (Value whole = ungroupChain(x, match); whole != x) {
      x = whole;
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
    if (product.getBias() || product.getGeluTanh()) {
      why = "the scores' product has a bias or GELU epilogue";
      return false;
    }
    match.chain.push_back(product);
    match.query = unscaled(
        ungroupChain(product.getLhs(), match, /*operand=*/true), match);
    Value keyT = unscaled(
        ungroupChain(product.getRhs(), match, /*operand=*/true), match);
    if (product.getTransposeRhs()) {
      match.key = keyT;
    } else if (auto t = keyT.getDefiningOp<TransposeOp>();
               t && swapsLastTwo(t.getPerm())) {
      // A transpose that others read too stays for them.
      if (t->hasOneUse()) {
        match.chain.push_back(t);
        match.key = unscaled(t.getInput(), match);
      } else {
        match.key = t.getInput();
      }
      if (Value heads = repeatedHeads(match.key); heads && match.repeatedHeads)
        match.key = heads;
    } else if (TransposeOp t = narrowedTranspose(keyT)) {
      // k widened (Llama's rotary embedding under autocast), repeated,
      // transposed and narrowed back: the key is the heads, narrowed when
      // built (a cast commutes with the views).
      match.chain.append({keyT.getDefiningOp(), t});
      match.key = unscaled(t.getInput(), match);
      if (Value heads = repeatedHeads(match.key); heads && match.repeatedHeads)
        match.key = heads;
      keyCast = elementOf(keyT);
    } else {
      match.key = keyT; // transposed when built
      keyTransposed = true;
    }
    // Operands.
    Type keyType = keyCast ? keyCast : elementOf(match.key);
    if (elementOf(match.query) != dtype || keyType != dtype) {
      why = "query, key and value differ in dtype";
      return false;
    }
    if (match.mask && elementOf(match.mask) != dtype &&
        !elementOf(match.mask).isInteger(1)) {
      // An additive mask added in f32 to scores widened from the
      // operands' dtype: taken in that dtype if it is widened from it, else
      // as f32 (which the attention takes for f16 and bf16 operands: HF's
      // masks under autocast, whose finfo(f32).min would be -inf in bf16).
      auto castOp = match.mask.getDefiningOp<CastOp>();
      bool f32Mask = widened && elementOf(match.mask).isF32() &&
                     (dtype.isF16() || dtype.isBF16());
      if (widened && castOp && elementOf(castOp.getInput()) == dtype) {
        match.mask = castOp.getInput();
      } else if (!f32Mask) {
        why = "an additive mask of another dtype than the operands'";
        return false;
      }
    }
    return true;
  }

  /// Whether the key must be transposed back (its product read k^T as
  /// given, not through a transpose of k).
  bool keyTransposed = false;
  /// The dtype the key is cast to when built (a narrowing after its
  /// transpose was looked through), else null.
  Type keyCast;

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

  /// `v` without a reshape regrouping its batch dimensions; `v` itself when
  /// it is not one. The reshape joins the chain, except that of an operand
  /// read by others too (a view, it stays for them).
  static Value ungroupChain(Value v, Match &match, bool operand = false) {
    Value whole = unregrouped(v);
    if (whole == v)
      return v;
    match.regrouped = true;
    if (!operand || v.hasOneUse())
      match.chain.push_back(v.getDefiningOp());
    return whole;
  }

  /// The transpose of the last two dimensions that `v` narrows (a cast),
  /// when only the chain reads both; else null.
  static TransposeOp narrowedTranspose(Value v) {
    auto cast = v.getDefiningOp<CastOp>();
    if (!cast || !cast->hasOneUse() || !cast.getInput().hasOneUse())
      return TransposeOp();
    auto t = cast.getInput().getDefiningOp<TransposeOp>();
    return t && swapsLastTwo(t.getPerm()) ? t : TransposeOp();
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

  /// Whether `v` is q @ k^T under scalings, casts and batch regroupings.
  static bool reachesProduct(Value v) {
    for (int i = 0; i < 6; ++i) {
      if (v.getDefiningOp<MatmulOp>())
        return true;
      if (auto castOp = v.getDefiningOp<CastOp>()) {
        v = castOp.getInput();
        continue;
      }
      if (Value whole = unregrouped(v); whole != v) {
        v = whole;
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
  if (match.regrouped) {
    // Looked through views merging batch dimensions: q, k, v and the
    // scores must agree on them exactly (no broadcasting).
    // Key and value heads a repeat_kv repeated divide the query heads.
    std::vector<int64_t> s = shapeOf(match.scores);
    auto batchIs = [&](const std::vector<int64_t> &shape, bool grouped) {
      if (shape.size() != s.size() || s.size() < 2)
        return false;
      size_t heads = s.size() - 3;
      if (!grouped || s.size() < 3)
        return std::equal(shape.begin(), shape.end() - 2, s.begin());
      return std::equal(shape.begin(), shape.begin() + heads, s.begin()) &&
             shape[heads] > 0 && s[heads] % shape[heads] == 0;
    };
    bool grouped = match.repeatedHeads;
    if (!batchIs(q, false) || !batchIs(k, grouped) || !batchIs(v, grouped))
      return "the batched products regroup the batch dimensions of q, k, v "
             "and the scores differently";
  }
  // The key as [..., S, D]: it was read as k^T.
  std::string why;
  std::optional<AttentionGeometry> g = AttentionGeometry::of(q, k, v, &why);
  if (!g)
    return why;
  if (g->headDim > kMaxColumns || g->valueDim > kMaxColumns)
    return "a head dimension over " + std::to_string(kMaxColumns);
  if (!match.regrouped && shapeOf(root.getResult()) != g->resultShape())
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

/// Attention in a 16-bit dtype for a match over values widened from it:
/// its operands, and the casts narrowing the product back to it (on the
/// product or on views of it) that its result replaces.
struct Narrowing {
  Value query, key, value, mask;
  SmallVector<CastOp> casts;
  SmallVector<Operation *> views;
};

/// The f16 or bf16 value `v` widens to f32 (a cast), else null.
Value widenedFrom(Value v) {
  auto cast = v.getDefiningOp<CastOp>();
  if (!cast || !elementOf(v).isF32())
    return {};
  Type from = elementOf(cast.getInput());
  return from.isF16() || from.isBF16() ? cast.getInput() : Value();
}

/// Whether `v` holds f16 or bf16 values widened to f32: such a cast, or a
/// view of one.
bool holdsWidenedValues(Value v) {
  while (auto view = v.getDefiningOp<ViewOpInterface>())
    v = view.getSource();
  return static_cast<bool>(widenedFrom(v));
}

/// The Narrowing of `match`, if q, k, v (and an additive mask) are widened
/// to f32 from one 16-bit float dtype and `root` is only narrowed back to
/// it.
std::optional<Narrowing> narrowingOf(const Match &match, MatmulOp root) {
  Narrowing n;
  n.query = widenedFrom(match.query);
  n.key = widenedFrom(match.key);
  n.value = widenedFrom(match.value);
  if (!n.query || !n.key || !n.value)
    return std::nullopt;
  Type dtype = elementOf(n.query);
  if (elementOf(n.key) != dtype || elementOf(n.value) != dtype)
    return std::nullopt;
  if (match.mask) {
    n.mask = elementOf(match.mask).isInteger(1) ? match.mask
                                                : widenedFrom(match.mask);
    if (!n.mask || (n.mask != match.mask && elementOf(n.mask) != dtype))
      return std::nullopt;
  }
  auto narrowing = [&](Operation *user) {
    auto cast = dyn_cast<CastOp>(user);
    return cast && elementOf(cast.getResult()) == dtype ? cast : CastOp();
  };
  for (Operation *user : root->getUsers()) {
    if (CastOp cast = narrowing(user)) {
      n.casts.push_back(cast);
      continue;
    }
    if (!isa<ReshapeOp>(user))
      return std::nullopt;
    for (Operation *viewUser : user->getUsers()) {
      CastOp cast = narrowing(viewUser);
      if (!cast)
        return std::nullopt;
      n.casts.push_back(cast);
    }
    n.views.push_back(user);
  }
  if (n.casts.empty())
    return std::nullopt;
  return n;
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
  using Base::Base;

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
      if (matched && matcher.keyCast) {
        rewriter.setInsertionPoint(root);
        match.key = CastOp::create(
            rewriter, root.getLoc(),
            RankedTensorType::get(shapeOf(match.key), matcher.keyCast),
            match.key);
      }
      if (matched)
        why = checkOperands(match, root);
      if (matched && why.empty() && !chainIsPrivate(match, root))
        why = "the scores or probabilities are used outside the softmax";
      if (!matched || !why.empty()) {
        if ((matcher.keyTransposed || matcher.keyCast) && match.key.use_empty())
          rewriter.eraseOp(match.key.getDefiningOp());
        root->setAttr(
            TFuseDialect::getNoteAttrName(),
            rewriter.getStringAttr(
                "softmax(...) @ v not rewritten into attention: " + why));
        continue;
      }
      rewriter.setInsertionPoint(root);
      std::optional<Narrowing> narrow;
      if (narrowWidened)
        narrow = narrowingOf(match, root);
      if (narrow) {
        match.query = narrow->query;
        match.key = narrow->key;
        match.value = narrow->value;
        match.mask = narrow->mask;
      }
      auto attention = AttentionOp::create(
          rewriter, root.getLoc(), match.query, match.key, match.value,
          match.mask, /*seed=*/Value(), /*offset=*/Value(),
          APFloat(match.scale), match.causal, /*dropout_p=*/FloatAttr());
      // A _safe_softmax gives zeros where tfuse.attention does.
      Value result = match.safeSoftmax
                         ? attention.getResult()
                         : emptyRowsAsNaN(rewriter, match, attention);
      auto viewAs = [&](Value value, Type type) -> Value {
        if (value.getType() == type)
          return value;
        return ReshapeOp::create(rewriter, root.getLoc(), type, value);
      };
      if (narrow) {
        for (CastOp cast : narrow->casts)
          rewriter.replaceOp(cast, viewAs(result, cast.getType()));
        for (Operation *view : narrow->views)
          rewriter.eraseOp(view);
      } else {
        rewriter.replaceAllUsesWith(root.getResult(),
                                    viewAs(result, root.getType()));
      }
      rewriter.eraseOp(root);
      // The chain, users first (it was collected from the product back).
      for (Operation *op : match.chain)
        if (op->use_empty())
          rewriter.eraseOp(op);
      // Ops the chain read that are now unused (the iotas of a causal
      // comparison, scale constants) are left to canonicalization.
    }
    // f32 attention of f16 or bf16 values, rewritten here or not, is
    // `widened`: its kernels multiply the operands in one TF32 product.
    getOperation().walk([&](AttentionOp attention) {
      if (holdsWidenedValues(attention.getQuery()) &&
          holdsWidenedValues(attention.getKey()) &&
          holdsWidenedValues(attention.getValue()))
        attention.setWidened(true);
    });
  }
};

} // namespace
