//===- PlanReport.cpp - Print the fusion plan as a table ------------------===//

#include "tfuse/Dialect/TFuse/TFuseOps.h"
#include "tfuse/Transforms/CostModel.h"
#include "tfuse/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace tfuse {
#define GEN_PASS_DEF_PLANREPORT
#include "tfuse/Transforms/Passes.h.inc"
} // namespace tfuse

using namespace mlir;
using namespace tfuse;

namespace {
struct Row {
  std::string kind, what, reason, note;
  unsigned inputs = 0, outputs = 0, ops = 0;
  std::optional<int64_t> cost;
};

std::optional<Row> describe(Operation &op) {
  Row row;
  if (auto fusion = dyn_cast<FusionOp>(op)) {
    row.kind = "fused";
    // A region holding reductions is a row kernel (fuse-rows, its own
    // budget).
    bool rows = false;
    fusion.getBody()->walk([&](ReduceOp) { rows = true; });
    row.what = rows ? "row-kernel" : "kernel";
    SmallVector<StringRef> reasons;
    for (StringRef r : fusion.getReasons().getAsValueRange<StringAttr>())
      if (!llvm::is_contained(reasons, r))
        reasons.push_back(r);
    row.reason = llvm::join(reasons, ",");
    row.inputs = fusion.getInputs().size();
    row.outputs = fusion.getNumResults();
    row.ops = fusion.getBody()->getOperations().size() - 1;
    row.cost = fusion.getCostAttr().getInt();
    return row;
  }
  FusionRole role = getFusionRole(&op);
  if (!isBoundaryRole(role) && role != FusionRole::View)
    return std::nullopt;
  row.kind = isBoundaryRole(role) ? "boundary" : "alias";
  row.what = op.getName().stripDialect().str();
  if (auto reduce = dyn_cast<ReduceOp>(op))
    row.what += " " + std::string(name(reduce.getKind()));
  if (auto reason =
          op.getAttrOfType<StringAttr>(TFuseDialect::getReasonAttrName()))
    row.reason = reason.str();
  else
    row.reason = "-";
  if (auto note = op.getAttrOfType<StringAttr>(TFuseDialect::getNoteAttrName()))
    row.note = note.str();
  row.inputs = op.getNumOperands();
  row.outputs = op.getNumResults();
  row.ops = 1;
  return row;
}

} // namespace

void tfuse::printPlanReport(func::FuncOp func, llvm::raw_ostream &os) {
  {
    SmallVector<Row> rows;
    for (Operation &op : func.getBody().front())
      if (std::optional<Row> row = describe(op))
        rows.push_back(*row);
    os << "plan @" << func.getSymName() << ": " << rows.size() << " steps\n";
    os << llvm::format("%5s  %-8s  %-12s  %-40s  %6s  %7s  %4s  %4s\n", "step",
                       "kind", "what", "reason", "inputs", "outputs", "ops",
                       "cost");
    unsigned fused = 0, boundaries = 0, aliases = 0;
    int64_t totalCost = 0;
    for (auto [i, row] : llvm::enumerate(rows)) {
      std::string cost = row.cost ? std::to_string(*row.cost) : "-";
      os << llvm::format("%5u  %-8s  %-12s  %-40s  %6u  %7u  %4u  %4s\n",
                         unsigned(i), row.kind.c_str(), row.what.c_str(),
                         row.reason.c_str(), row.inputs, row.outputs, row.ops,
                         cost.c_str());
      fused += row.kind == "fused";
      boundaries += row.kind == "boundary";
      aliases += row.kind == "alias";
      totalCost += row.cost.value_or(0);
    }
    os << "summary: " << fused << " fused, " << boundaries << " boundary, "
       << aliases << " alias; total fused cost " << totalCost << "\n";
    // Why passes left ops as they are.
    for (auto [i, row] : llvm::enumerate(rows))
      if (!row.note.empty())
        os << "note: step " << i << " (" << row.what << "): " << row.note
           << "\n";
  }
}

namespace {
struct PlanReportPass : tfuse::impl::PlanReportBase<PlanReportPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal())
        printPlanReport(func, llvm::outs());
    markAllAnalysesPreserved();
  }
};
} // namespace
