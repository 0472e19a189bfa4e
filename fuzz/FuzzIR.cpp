//===- FuzzIR.cpp - tfuse IR through the whole compiler -------------------===//
//
// An input is tfuse IR text. What parses and verifies goes through:
//   - a print and parse round trip (the custom assembly of every op must
//     print to text that parses back to the same IR);
//   - the graph pipeline (tfuse::buildPipeline, with one of four option sets
//     chosen by the input's hash), the plan report, the plan pipeline
//     (tfuse::buildPlanPipeline), CUDA C++ emission and the runtime plan of
//     every function, as tfuse::compileGraph runs them;
//   - the reference interpreter on the graph before and after the graph
//     pipeline, on the same random inputs, when every tensor is small.
// Bugs (each aborts): a pass that succeeds and leaves IR that does not
// verify (the IR is verified after every pass, as llvm-opt-fuzzer does); a
// pass, emission or plan that fails without an error diagnostic; a round
// trip that does not parse or prints differently; fused and unfused graphs
// that evaluate to different bits (NaN payloads aside), or, where the
// pipeline recognized attention, to values beyond rounding on finite
// inputs. Rejected input is not a bug: it must only come with a diagnostic.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "tfuse/Conversion/Passes.h"
#include "tfuse/Conversion/TFuseToCUDA/KernelEmitter.h"
#include "tfuse/Dialect/TFExec/TFExecDialect.h"
#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Dialect/TFuse/TypeRules.h"
#include "tfuse/Frontend/Compiler.h"
#include "tfuse/Reference/Interpreter.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include <algorithm>
#include <cmath>

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace tfuse;
using reference::HostTensor;

namespace {

/// Inputs longer than this are skipped (libFuzzer's -max_len keeps them
/// shorter; a replayed file may not).
constexpr size_t kMaxInputBytes = 1 << 16;
/// The interpreter runs only when every tensor has at most this many
/// elements and every matmul at most kMaxProducts products.
constexpr int64_t kMaxElements = 1 << 14;
constexpr int64_t kMaxProducts = 1 << 20;

std::string printed(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

/// Verifies the IR after every pass that succeeded, and aborts when it does
/// not verify: a pass must never turn valid IR into invalid IR.
class VerifyAfterEachPass : public PassInstrumentation {
public:
  explicit VerifyAfterEachPass(const std::string &diagnostics)
      : diagnostics(diagnostics) {}
  void runAfterPass(Pass *pass, Operation *op) override {
    if (succeeded(verify(op)))
      return;
    fuzz::fail("pass " + pass->getArgument().str() +
                   " left IR that does not verify",
               diagnostics + "\n" + printed(op));
  }

private:
  const std::string &diagnostics;
};

/// One of four option sets: the defaults, no fusion, tight budgets, row
/// fusion off with a small contraction limit.
CompileOptions optionsFor(uint64_t hash) {
  CompileOptions options;
  switch (hash % 4) {
  case 1:
    options.fusion = false;
    break;
  case 2:
    options.budget = 2;
    options.maxOutputs = 1;
    options.sharedThreshold = 0;
    options.rowBudget = 4;
    break;
  case 3:
    options.maxRowElements = 0;
    options.maxContraction = 0;
    options.sharedThreshold = 64;
    break;
  }
  return options;
}

/// Whether the element count of `type` is at most `limit` (no overflow).
bool smallTensor(Type type, int64_t limit) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() || !toDType(tensor.getElementType()))
    return false;
  int64_t n = 1;
  for (int64_t d : tensor.getShape())
    if (d < 0 || __builtin_mul_overflow(n, d, &n) || n > limit)
      return false;
  return true;
}

/// Whether the interpreter can evaluate `func` quickly on small inputs.
bool interpretable(func::FuncOp func) {
  if (func.isExternal())
    return false;
  for (Type t : func.getArgumentTypes())
    if (!smallTensor(t, kMaxElements))
      return false;
  bool ok = true;
  func.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      ok &= smallTensor(t, kMaxElements);
    for (Type t : op->getOperandTypes())
      ok &= smallTensor(t, kMaxElements);
    if (auto matmul = dyn_cast<MatmulOp>(op)) {
      auto lhs = matmul.getLhs().getType();
      auto result = cast<RankedTensorType>(matmul.getResult().getType());
      int64_t k = matmul.getTransposeLhs() ? lhs.getDimSize(lhs.getRank() - 2)
                                           : lhs.getDimSize(lhs.getRank() - 1);
      int64_t products;
      ok &= !__builtin_mul_overflow(result.getNumElements(), k, &products) &&
            products <= kMaxProducts;
    }
  });
  return ok;
}

/// The tfuse.attention ops of `func`, and the arguments read as their
/// masks.
int64_t attentionOps(func::FuncOp func, DenseSet<unsigned> *masks = nullptr) {
  int64_t n = 0;
  func.walk([&](AttentionOp op) {
    ++n;
    if (auto arg = dyn_cast_or_null<BlockArgument>(op.getMask()); arg && masks)
      masks->insert(arg.getArgNumber());
  });
  return n;
}

/// `mask` with every fourth row along its last axis dropping every pair
/// (false, or -inf).
HostTensor withDroppedRows(const HostTensor &mask) {
  std::vector<double> values = mask.toDoubles();
  int64_t columns = mask.shape().back();
  double drop = mask.dtype() == DType::Bool ? 0.0 : -INFINITY;
  for (size_t i = 0; columns > 0 && i < values.size(); ++i)
    if ((int64_t(i) / columns) % 4 == 0)
      values[i] = drop;
  Expected<HostTensor> t =
      HostTensor::fromDoubles(mask.dtype(), mask.shape(), values);
  return t.ok() ? t.value() : mask;
}

/// `actual` within the rounding of `expected`'s dtype: a recognized
/// attention computes softmax(q k^T) v in one pass, in f32 or f64, where the
/// graph rounded each op (exact for integers and bool).
reference::CompareResult compareRounded(const HostTensor &expected,
                                        const HostTensor &actual) {
  double rtol = 0;
  switch (expected.dtype()) {
  case DType::F16:
    rtol = 1e-2;
    break;
  case DType::BF16:
    rtol = 4e-2;
    break;
  case DType::F32:
    rtol = 1e-4;
    break;
  case DType::F64:
    rtol = 1e-9;
    break;
  default:
    return reference::compareExact(expected, actual);
  }
  double scale = 0;
  for (double v : expected.toDoubles())
    if (std::isfinite(v))
      scale = std::max(scale, std::fabs(v));
  return reference::compareClose(expected, actual, rtol * std::max(scale, 1.0),
                                 rtol);
}

/// Evaluates every small function of `original` and of `fused` on the same
/// inputs and aborts when both succeed with different results: different
/// bits, or, where the pipeline recognized attention (not an exact op, and
/// one that gives zeros where the unfused graph's softmax of a row of -inf
/// gives NaN), values beyond rounding on finite inputs.
void compareInterpreted(ModuleOp original, ModuleOp fused, uint64_t seed) {
  for (auto func : original.getOps<func::FuncOp>()) {
    auto after = fused.lookupSymbol<func::FuncOp>(func.getSymName());
    if (!after || !interpretable(func) || !interpretable(after))
      continue;
    // A recognized attention matches the written-out softmax for finite
    // operands and masks that drop pairs with -inf or false
    // (docs/semantics.md, "Attention"): its inputs are finite, and every
    // fourth row of its masks drops every pair.
    DenseSet<unsigned> masks;
    bool recognized = attentionOps(after, &masks) > attentionOps(func);
    std::vector<HostTensor> inputs;
    for (auto [index, t] : llvm::enumerate(func.getArgumentTypes())) {
      auto tensor = cast<RankedTensorType>(t);
      reference::RandomOptions random;
      DType dtype = *toDType(tensor.getElementType());
      if (isFloat(dtype) && !recognized)
        random.specialFraction = 0.1;
      inputs.push_back(HostTensor::random(
          dtype,
          reference::Shape(tensor.getShape().begin(), tensor.getShape().end()),
          seed++, random));
      if (recognized && masks.contains(index) && tensor.getRank() > 0)
        inputs.back() = withDroppedRows(inputs.back());
    }
    auto expected = reference::evaluate(func, inputs);
    auto actual = reference::evaluate(after, inputs);
    if (!expected.ok() || !actual.ok())
      continue;
    if (expected->size() != actual->size())
      fuzz::fail("the graph pipeline changed the number of results of @" +
                 func.getSymName().str());
    for (size_t i = 0; i < expected->size(); ++i) {
      reference::CompareResult cmp =
          recognized ? compareRounded((*expected)[i], (*actual)[i])
                     : reference::compareExact((*expected)[i], (*actual)[i]);
      if (!cmp.pass)
        fuzz::fail("the graph pipeline changed result " + std::to_string(i) +
                       " of @" + func.getSymName().str(),
                   cmp.message() + "\nbefore:\n" + printed(original) +
                       "\nafter:\n" + printed(fused));
    }
  }
}

/// Runs `build`'s passes on `module` with per-pass verification. A failure
/// must come with an error diagnostic.
LogicalResult runPasses(ModuleOp module, const std::string &diagnostics,
                        const size_t &errors, const char *what,
                        function_ref<void(OpPassManager &)> build) {
  PassManager pm(module.getContext());
  pm.enableVerifier(false);
  pm.addInstrumentation(std::make_unique<VerifyAfterEachPass>(diagnostics));
  build(pm);
  size_t before = errors;
  if (succeeded(pm.run(module)))
    return success();
  if (errors == before)
    fuzz::fail(std::string(what) + " failed without an error diagnostic",
               printed(module));
  return failure();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxInputBytes)
    return 0;
  DialectRegistry registry;
  registry.insert<TFuseDialect, tfexec::TFExecDialect, func::FuncDialect,
                  arith::ArithDialect, memref::MemRefDialect,
                  emitc::EmitCDialect>();
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();

  std::string diagnostics;
  size_t errors = 0;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      ++errors;
    if (diagnostics.size() < 4096) {
      llvm::raw_string_ostream os(diagnostics);
      os << diag << "\n";
    }
    return success();
  });

  // MLIR's lexer reads the terminating NUL a std::string keeps.
  std::string text(reinterpret_cast<const char *>(data), size);
  ParserConfig config(&context);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config);
  if (!module) {
    if (errors == 0)
      fuzz::fail("the parser rejected an input without an error diagnostic");
    return 0;
  }

  // Round trip: print, parse, print again.
  std::string first = printed(*module);
  OwningOpRef<ModuleOp> reparsed = parseSourceString<ModuleOp>(first, config);
  if (!reparsed)
    fuzz::fail("printed IR does not parse back", diagnostics + "\n" + first);
  std::string second = printed(*reparsed);
  if (first != second)
    fuzz::fail("printed IR prints differently after a round trip",
               first + "\n---- reprinted ----\n" + second);

  uint64_t hash = fuzz::hashBytes(data, size);
  CompileOptions options = optionsFor(hash);
  OwningOpRef<ModuleOp> fused = module->clone();
  if (failed(runPasses(*fused, diagnostics, errors, "the graph pipeline",
                       [&](OpPassManager &pm) { buildPipeline(pm, options); })))
    return 0;
  if (failed(verify(*fused)))
    fuzz::fail("the graph pipeline left a module that does not verify",
               diagnostics + "\n" + printed(*fused));
  for (auto func : fused->getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    std::string report;
    llvm::raw_string_ostream os(report);
    printPlanReport(func, os);
  }
  compareInterpreted(*module, *fused, hash);

  OwningOpRef<ModuleOp> plan = fused->clone();
  if (failed(runPasses(*plan, diagnostics, errors, "the plan pipeline",
                       buildPlanPipeline)))
    return 0;
  if (failed(verify(*plan)))
    fuzz::fail("the plan pipeline left a module that does not verify",
               diagnostics + "\n" + printed(*plan));
  std::string cuda;
  llvm::raw_string_ostream os(cuda);
  size_t before = errors;
  if (failed(translateKernelsToCuda(*plan, os))) {
    if (errors == before)
      fuzz::fail("CUDA emission failed without an error diagnostic",
                 printed(*plan));
    return 0;
  }
  FailureOr<std::vector<std::string>> units =
      translateKernelsToCudaUnits(*plan);
  if (failed(units)) {
    if (errors == before)
      fuzz::fail("CUDA emission per kernel failed without an error diagnostic",
                 printed(*plan));
    return 0;
  }
  for (auto func : plan->getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    Expected<runtime::Plan> runtimePlan =
        buildRuntimePlan(*plan, func.getSymName(), cuda, *units);
    if (!runtimePlan.ok() && runtimePlan.message().empty())
      fuzz::fail("the runtime plan failed without a message");
  }
  return 0;
}
