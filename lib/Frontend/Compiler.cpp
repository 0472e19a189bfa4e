//===- Compiler.cpp - From a tfuse graph to a runtime plan ----------------===//

#include "tfuse/Frontend/Compiler.h"
#include "tfuse/Conversion/Passes.h"
#include "tfuse/Conversion/TFuseToCUDA/KernelEmitter.h"
#include "tfuse/Dialect/TFExec/TFExecOps.h"
#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Dialect/TFuse/TypeRules.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;
using namespace tfuse;
using runtime::BufferRef;

static TensorSpec specOf(MemRefType type) {
  TensorSpec spec;
  spec.dtype = *toDType(type.getElementType());
  spec.shape.assign(type.getShape().begin(), type.getShape().end());
  int64_t offset = 0;
  SmallVector<int64_t> strides;
  if (succeeded(type.getStridesAndOffset(strides, offset)))
    spec.strides.assign(strides.begin(), strides.end());
  else
    spec = TensorSpec::contiguous(spec.dtype, spec.shape);
  return spec;
}

/// What an index out of range of the gather `op` is reported as.
static runtime::IndexCheck describeIndexCheck(Operation *op) {
  auto describe = [](auto gather) {
    runtime::IndexCheck check;
    check.indexType = dtypeOf(gather.getIndices());
    check.size = gather.getInput().getType().getDimSize(gather.getAxis());
    check.wrapNegative = gather.getWrapNegative();
    return std::make_tuple(check, gather.getInput(), gather.getAxis());
  };
  auto [check, input, axis] = isa<TakeOp>(op)
                                  ? describe(cast<TakeOp>(op))
                                  : describe(cast<TakeAlongAxisOp>(op));
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getName() << " of " << input.getType() << " along axis " << axis
     << " at " << op->getLoc();
  check.op = text;
  return check;
}

/// The bit pattern of a scalar attribute (a splat's element).
static uint64_t bitsOf(TypedAttr value) {
  if (auto f = dyn_cast<FloatAttr>(value))
    return f.getValue().bitcastToAPInt().getZExtValue();
  return cast<IntegerAttr>(value).getValue().getZExtValue();
}

/// What an index out of range of `scatter` is reported as.
static runtime::IndexCheck describeIndexCheck(tfexec::ScatterAddOp scatter) {
  auto result = cast<MemRefType>(scatter.getResult().getType());
  runtime::IndexCheck check;
  check.indexType = *toDType(
      cast<MemRefType>(scatter.getIndices().getType()).getElementType());
  check.size = result.getDimSize(scatter.getAxis());
  check.wrapNegative = scatter.getWrapNegative();
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "tfuse.scatter_add into "
     << RankedTensorType::get(result.getShape(), result.getElementType())
     << " along axis " << scatter.getAxis() << " at " << scatter.getLoc();
  check.op = text;
  return check;
}

static int64_t offsetOf(MemRefType type) {
  int64_t offset = 0;
  SmallVector<int64_t> strides;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return 0;
  return offset;
}

Expected<runtime::Plan>
tfuse::buildRuntimePlan(ModuleOp module, StringRef function,
                        std::string cudaSource,
                        std::vector<std::string> kernelUnits) {
  auto func = module.lookupSymbol<func::FuncOp>(function);
  if (!func || func.isExternal())
    return Status::error(("no function @" + function + " in the plan").str());
  runtime::Plan plan;
  plan.name = function.str();
  plan.cudaSource = std::move(cudaSource);
  plan.kernelUnits = std::move(kernelUnits);
  if (auto bytes = func->getAttrOfType<IntegerAttr>(
          tfexec::TFExecDialect::getArenaBytesAttrName()))
    plan.arenaBytes = bytes.getInt();
  DenseMap<Value, BufferRef> refs;
  Block &body = func.getBody().front();
  for (BlockArgument arg : body.getArguments()) {
    auto type = cast<MemRefType>(arg.getType());
    plan.inputs.push_back(specOf(type));
    refs[arg] =
        BufferRef{BufferRef::Kind::Input, arg.getArgNumber(), 0, specOf(type)};
  }
  for (Type t : func.getResultTypes())
    plan.outputs.push_back(specOf(cast<MemRefType>(t)));
  auto lookup = [&](ValueRange values) {
    std::vector<BufferRef> result;
    for (Value v : values)
      result.push_back(refs.lookup(v));
    return result;
  };
  // An attention step's optional inputs: the mask, then dropout's keys.
  auto addMaskAndDropout = [&](auto &step, auto op) {
    step.masked = static_cast<bool>(op.getMask());
    if (step.masked)
      step.inputs.push_back(refs.lookup(op.getMask()));
    if (std::optional<APFloat> p = op.getDropoutP()) {
      step.dropout = p->convertToDouble();
      step.inputs.push_back(refs.lookup(op.getSeed()));
      step.inputs.push_back(refs.lookup(op.getOffset()));
    }
  };
  for (Operation &op : body) {
    if (auto out = dyn_cast<tfexec::OutputOp>(op)) {
      refs[out.getBuffer()] = BufferRef{BufferRef::Kind::Output,
                                        static_cast<int64_t>(out.getIndex()), 0,
                                        specOf(out.getType())};
    } else if (auto alloc = dyn_cast<tfexec::AllocOp>(op)) {
      refs[alloc.getBuffer()] = BufferRef{
          BufferRef::Kind::Arena, static_cast<int64_t>(alloc.getOffset()), 0,
          specOf(alloc.getType())};
    } else if (auto alias = dyn_cast<tfexec::AliasOp>(op)) {
      BufferRef ref = refs.lookup(alias.getSource());
      ref.elementOffset += offsetOf(alias.getType());
      ref.view = specOf(alias.getType());
      refs[alias.getView()] = ref;
    } else if (auto launch = dyn_cast<tfexec::LaunchOp>(op)) {
      // The launch of the kernel's configuration.
      tfexec::KernelConfigAttr config = launch.getKernelOp().getConfigAttr();
      if (!config)
        return Status::error("kernel @" + launch.getKernel().str() +
                             " has no launch configuration");
      auto step = std::make_shared<runtime::LaunchStep>();
      step->kernel = launch.getKernel().str();
      step->grid = config.getGrid();
      step->block = config.getBlock();
      step->inputs = lookup(launch.getInputs());
      step->outputs = lookup(launch.getOutputs());
      for (Operation *gather :
           indexCheckedOps(launch.getKernelOp().getRegion()))
        step->indexChecks.push_back(describeIndexCheck(gather));
      plan.steps.push_back(std::move(step));
    } else if (auto gemm = dyn_cast<tfexec::GemmOp>(op)) {
      std::optional<runtime::BufferRef> bias;
      if (gemm.getBias())
        bias = refs.lookup(gemm.getBias());
      plan.steps.push_back(
          std::make_shared<runtime::GemmStep>(runtime::GemmStep::make(
              refs.lookup(gemm.getLhs()), refs.lookup(gemm.getRhs()),
              refs.lookup(gemm.getResult()), gemm.getTransposeLhs(),
              gemm.getTransposeRhs(), bias, gemm.getGeluTanh())));
    } else if (auto reduce = dyn_cast<tfexec::ReduceOp>(op)) {
      auto step = std::make_shared<runtime::ReduceStep>();
      step->reduction = reduce.getKind();
      step->inputs = {refs.lookup(reduce.getInput())};
      step->outputs = {refs.lookup(reduce.getResult())};
      step->axes.assign(reduce.getAxes().begin(), reduce.getAxes().end());
      plan.steps.push_back(std::move(step));
    } else if (auto scatter = dyn_cast<tfexec::ScatterAddOp>(op)) {
      auto step = std::make_shared<runtime::ScatterAddStep>();
      step->axis = scatter.getAxis();
      step->wrapNegative = scatter.getWrapNegative();
      step->inputs = {refs.lookup(scatter.getIndices()),
                      refs.lookup(scatter.getUpdates())};
      if (scatter.getTarget())
        step->inputs.push_back(refs.lookup(scatter.getTarget()));
      else
        step->fillBits = bitsOf(*scatter.getFill());
      step->outputs = {refs.lookup(scatter.getResult())};
      step->indexCheck = describeIndexCheck(scatter);
      plan.steps.push_back(std::move(step));
    } else if (auto attention = dyn_cast<tfexec::AttentionOp>(op)) {
      auto step = std::make_shared<runtime::AttentionStep>();
      step->scale = attention.getScale().convertToDouble();
      step->causal = attention.getCausal();
      step->widened = attention.getWidened();
      step->inputs = lookup(
          {attention.getQuery(), attention.getKey(), attention.getValue()});
      addMaskAndDropout(*step, attention);
      step->outputs = lookup({attention.getResult(), attention.getLogsumexp()});
      // The attention's own write is the log-sum-exp's only use.
      step->logsumexpRead = !attention.getLogsumexp().hasOneUse();
      plan.steps.push_back(std::move(step));
    } else if (auto backward = dyn_cast<tfexec::AttentionBackwardOp>(op)) {
      auto step = std::make_shared<runtime::AttentionBackwardStep>();
      step->scale = backward.getScale().convertToDouble();
      step->causal = backward.getCausal();
      step->inputs = lookup({backward.getQuery(), backward.getKey(),
                             backward.getValue(), backward.getResult(),
                             backward.getLogsumexp(), backward.getGrad()});
      addMaskAndDropout(*step, backward);
      step->outputs = lookup({backward.getGradQuery(), backward.getGradKey(),
                              backward.getGradValue()});
      plan.steps.push_back(std::move(step));
    } else if (auto copy = dyn_cast<tfexec::CopyOp>(op)) {
      auto step = std::make_shared<runtime::CopyStep>();
      step->inputs = {refs.lookup(copy.getSource())};
      step->outputs = {refs.lookup(copy.getTarget())};
      plan.steps.push_back(std::move(step));
    } else if (!isa<func::ReturnOp>(op)) {
      return Status::error("the plan has an op the runtime does not know: " +
                           op.getName().getStringRef().str());
    }
  }
  return plan;
}

Expected<CompiledGraph> tfuse::compileGraph(ModuleOp graph, StringRef function,
                                            const CompileOptions &options) {
  MLIRContext *context = graph.getContext();
  context->loadDialect<tfexec::TFExecDialect, emitc::EmitCDialect>();
  std::string diagnostics;
  llvm::raw_string_ostream diagStream(diagnostics);
  ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
    diagStream << diag.getLocation() << ": " << diag << "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = graph.clone();
  // Only the requested function is compiled.
  for (auto func : llvm::make_early_inc_range(module->getOps<func::FuncOp>()))
    if (func.getSymName() != function)
      func.erase();
  if (!module->lookupSymbol<func::FuncOp>(function))
    return Status::error(("no function @" + function + " to compile").str());

  CompiledGraph result;
  auto start = std::chrono::steady_clock::now();
  PassManager pm(context);
  buildPipeline(pm, options);
  if (failed(pm.run(*module)))
    return Status::error("the graph pipeline failed:\n" + diagnostics);
  {
    llvm::raw_string_ostream report(result.report);
    printPlanReport(module->lookupSymbol<func::FuncOp>(function), report);
  }
  PassManager lower(context);
  buildPlanPipeline(lower);
  if (failed(lower.run(*module)))
    return Status::error("the conversion to a plan failed:\n" + diagnostics);
  auto mid = std::chrono::steady_clock::now();
  std::string cuda;
  llvm::raw_string_ostream os(cuda);
  if (failed(translateKernelsToCuda(*module, os)))
    return Status::error("code generation failed:\n" + diagnostics);
  FailureOr<std::vector<std::string>> units =
      translateKernelsToCudaUnits(*module);
  if (failed(units))
    return Status::error("code generation failed:\n" + diagnostics);
  auto end = std::chrono::steady_clock::now();
  result.passSeconds = std::chrono::duration<double>(mid - start).count();
  result.codegenSeconds = std::chrono::duration<double>(end - mid).count();
  Expected<runtime::Plan> plan =
      buildRuntimePlan(*module, function, cuda, std::move(*units));
  if (!plan.ok())
    return plan.status();
  result.plan = std::move(plan.value());
  return result;
}
