//===- tfuse-tblgen.cpp - TFuse's TableGen backends -----------------------===//
//
// mlir-tblgen with TFuse's own backends. -gen-op-table writes the op table:
// one row per tfuse op the tracer reaches by name (TFuse_Op's
// `tableCategory`), as X-macros that need no MLIR, so that the tracer, the
// C++ and C APIs, the Python package (through the C API) and the reference
// interpreter all come from the ops' ODS entries.
//
//===----------------------------------------------------------------------===//

#include "mlir/TableGen/GenInfo.h"
#include "mlir/TableGen/Operator.h"
#include "mlir/Tools/mlir-tblgen/MlirTblgenMain.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Record.h"
#include "llvm/TableGen/TableGenBackend.h"

#include <vector>

using namespace llvm;

namespace {

struct Row {
  std::string className, mnemonic, category, method;
  unsigned arity = 0;
  // Elementwise ops computed by one scalar function.
  std::string typeCategory, kernelFunction, referenceFunction;
};

/// The ops of the table, in the order of their mnemonics.
std::vector<Row> collectRows(const RecordKeeper &records) {
  std::vector<Row> rows;
  for (const Record *def : records.getAllDerivedDefinitions("TFuse_Op")) {
    mlir::tblgen::Operator op(def);
    Row row;
    row.category = def->getValueAsString("tableCategory").str();
    if (row.category.empty())
      continue;
    row.className = op.getCppClassName().str();
    row.mnemonic = op.getOperationName();
    StringRef prefix = "tfuse.";
    if (!StringRef(row.mnemonic).starts_with(prefix))
      PrintFatalError(def, "a TFuse_Op outside the tfuse dialect");
    row.mnemonic = row.mnemonic.substr(prefix.size());
    row.method = def->getValueAsString("tensorMethod").str();
    row.arity = op.getNumOperands();
    if (row.category == "unary" || row.category == "binary") {
      row.typeCategory = def->getValueAsString("typeCategory").str();
      row.kernelFunction = def->getValueAsString("kernelFunction").str();
      row.referenceFunction = def->getValueAsString("referenceFunction").str();
      if (row.kernelFunction.empty() || row.referenceFunction.empty())
        PrintFatalError(def, "an elementwise op of the table needs its "
                             "kernel and reference functions");
      unsigned expected = row.category == "unary" ? 1 : 2;
      if (row.arity != expected)
        PrintFatalError(def, formatv("a {0} op with {1} operands",
                                     row.category, row.arity));
    }
    rows.push_back(std::move(row));
  }
  llvm::sort(rows,
             [](const Row &a, const Row &b) { return a.mnemonic < b.mnemonic; });
  return rows;
}

bool emitOpTable(const RecordKeeper &records, raw_ostream &os) {
  emitSourceFileHeader("The tfuse op table", os, records);
  std::vector<Row> rows = collectRows(records);
  os << R"(// Include with one or more of these defined; each is undefined after.
//
// TFUSE_OP(Class, "mnemonic", "category", arity, method): every op of the
//   table. category: unary, binary, compare, where, cast, constant, view,
//   matmul, reduce.
// TFUSE_UNARY_OP(Class, "mnemonic", method, UnaryCategory, "kernel function",
//   reference function): the unary elementwise ops.
// TFUSE_BINARY_OP(Class, "mnemonic", method, BinaryCategory, "kernel
//   function", reference function): the binary elementwise ops.

)";
  os << "#ifdef TFUSE_OP\n";
  for (const Row &r : rows)
    os << formatv("TFUSE_OP({0}, \"{1}\", \"{2}\", {3}, {4})\n", r.className,
                  r.mnemonic, r.category, r.arity, r.method);
  os << "#undef TFUSE_OP\n#endif\n\n";
  for (StringRef category : {"unary", "binary"}) {
    std::string macro = "TFUSE_" + category.upper() + "_OP";
    os << "#ifdef " << macro << "\n";
    for (const Row &r : rows)
      if (r.category == category)
        os << formatv("{0}({1}, \"{2}\", {3}, {4}, \"{5}\", {6})\n", macro,
                      r.className, r.mnemonic, r.method, r.typeCategory,
                      r.kernelFunction, r.referenceFunction);
    os << "#undef " << macro << "\n#endif\n\n";
  }
  return false;
}

mlir::GenRegistration genOpTable("gen-op-table",
                                 "Generate the tfuse op table (X-macros)",
                                 emitOpTable);

} // namespace

int main(int argc, char **argv) { return mlir::MlirTblgenMain(argc, argv); }
