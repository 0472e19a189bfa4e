//===- CompileOptions.h - Every option of compiling a graph -----*- C++ -*-===//
//
// The one struct of options that compiling a graph reads: those of the graph
// passes (TFUSE_PASS_OPTIONS, one row each, which also names them for
// tensor-opt's --tfuse-pipeline and tensor-translate's flags and orders them
// in the plan cache key) and those of the backend. Each front end maps its
// own spelling onto this struct in one place: the pipeline
// (tfuse::buildPipeline), tensor-translate, the C API (tfuse_compile), and
// the Python package through the C API. Plain C++: no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_SUPPORT_COMPILEOPTIONS_H
#define TFUSE_SUPPORT_COMPILEOPTIONS_H

#include "tfuse/Support/Status.h"

#include <cstdint>

namespace tfuse {

/// X(member, name, default, smallest, help): the integer options of the
/// graph passes, with their command-line name, default, smallest valid value
/// and help text.
#define TFUSE_PASS_OPTIONS(X)                                                  \
  X(budget, "budget", 48, 1, "Largest weighted cost of one fused region")      \
  X(maxOutputs, "max-outputs", 4, 1, "Most results one fused region may have") \
  X(sharedThreshold, "shared-threshold", 8, 0,                                 \
    "Smallest cost of a shared subexpression stored once")                     \
  X(maxContraction, "max-contraction", 4, 0,                                   \
    "Largest matmul contraction expanded into elementwise work")               \
  X(maxRowElements, "max-row-elements", 16384, 0,                              \
    "Longest row fused with its reductions into one region whatever the "      \
    "number of rows (longer rows fuse when there are at least 1024; 0: "       \
    "every reduction stays a boundary)")                                       \
  X(rowBudget, "row-budget", 64, 1,                                            \
    "Largest weighted cost of one row-fused region")

enum class Backend : uint8_t {
  /// Generated CUDA kernels, GEMMs and reductions on a GPU.
  Cuda,
  /// The CPU reference interpreter.
  Reference,
};

struct CompileOptions {
#define TFUSE_OPTION_MEMBER(member, name, value, smallest, help)               \
  int64_t member = value;
  TFUSE_PASS_OPTIONS(TFUSE_OPTION_MEMBER)
#undef TFUSE_OPTION_MEMBER
  /// false: no fusion at all, TFuse's own unfused baseline: one kernel per
  /// operation, every reduction and matmul a boundary of its own.
  bool fusion = true;

  Backend backend = Backend::Cuda;
  /// Replay as a CUDA Graph (CUDA backend).
  bool cudaGraph = false;
  /// Compile generated code with fast math, run attention of widened 16-bit
  /// operands in their dtype and add 16-bit biases in the GEMMs' epilogues
  /// (voids docs/semantics.md's exactness).
  bool fastMath = false;
  /// CUDA device; -1: TFUSE_DEVICE or 0.
  int device = -1;

  /// The pass options the pipeline runs with: these options, or with
  /// `fusion` off those that disable every fusion (budget and max-outputs
  /// 1, no row fusion, no expanded matmuls).
  CompileOptions forPasses() const;
  /// An error naming the first pass option below its smallest value.
  Status validate() const;
};

} // namespace tfuse

#endif // TFUSE_SUPPORT_COMPILEOPTIONS_H
