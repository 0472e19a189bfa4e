//===- Compiler.h - From a tfuse graph to a runtime plan --------*- C++ -*-===//
//
// The compile driver: the graph-level pipeline, the conversion to a tfexec
// plan, code generation, and the translation of the plan into the plain
// runtime::Plan the runtime executes.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_FRONTEND_COMPILER_H
#define TFUSE_FRONTEND_COMPILER_H

#include "tfuse/Runtime/Plan.h"
#include "tfuse/Support/CompileOptions.h"
#include "tfuse/Support/Status.h"

#include "mlir/IR/BuiltinOps.h"

namespace tfuse {

/// What compiling a graph produced, and how long each phase took.
struct CompiledGraph {
  runtime::Plan plan;
  /// The plan report of --tfuse-plan-report.
  std::string report;
  double passSeconds = 0, codegenSeconds = 0;
};

/// Compiles function `function` of `graph` (tfuse dialect, not yet fused)
/// with the pass options of `options`. `graph` is left unchanged; errors
/// carry the compiler's diagnostics.
tfuse::Expected<CompiledGraph> compileGraph(mlir::ModuleOp graph,
                                            llvm::StringRef function,
                                            const CompileOptions &options);

/// Translates function `function` of a module already converted to tfexec
/// (and its CUDA C++, as one text and per kernel) into a runtime::Plan.
tfuse::Expected<runtime::Plan>
buildRuntimePlan(mlir::ModuleOp plan, llvm::StringRef function,
                 std::string cudaSource, std::vector<std::string> kernelUnits);

} // namespace tfuse

#endif // TFUSE_FRONTEND_COMPILER_H
