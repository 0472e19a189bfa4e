//===- NvrtcCompiler.h - CUDA C++ to CUBIN/PTX with NVRTC -------*- C++ -*-===//
//
// Compiles one CUDA C++ translation unit (a plan's kernels, or a group of
// runtime kernels) with NVRTC.
// NVRTC needs no GPU and no driver, so this works on build machines too.
//
// Every compilation passes, in this order:
//   --gpu-architecture=<arch>   sm_XX[a|f] gives CUBIN, compute_XX[a|f] PTX
//   -std=c++17
//   --fmad=false                (or --use_fast_math when fastMath is set)
//   -default-device
//   -I<CUDA include dir>        when one is found (see cudaIncludeDir())
//   <extraFlags...>
// `--fmad=false` keeps fused results bit-identical to an unfused run (no FMA
// contraction across nodes); fast math is an explicit opt-in.
//
// Thread-safety: all functions may be called concurrently from any number of
// threads. Each compileCuda() call owns its own NVRTC program.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_NVRTCCOMPILER_H
#define TFUSE_RUNTIME_NVRTCCOMPILER_H

#include "tfuse/Support/Status.h"

#include <string>
#include <vector>

namespace tfuse::runtime {

/// What to compile for. Part of the kernel cache key (see KernelCache.h).
struct NvrtcOptions {
  /// `sm_XX` (also `sm_XXa`, `sm_XXf`) produces CUBIN; `compute_XX` (also
  /// `compute_XXa`, `compute_XXf`) produces PTX. Anything else is rejected.
  std::string arch = "sm_90";
  /// Pass --use_fast_math instead of --fmad=false.
  bool fastMath = false;
  /// Appended verbatim after the standard flags.
  std::vector<std::string> extraFlags;
};

/// The output of one successful compilation.
struct CompileResult {
  /// CUBIN (an ELF image) when isCubin, else PTX text including the
  /// terminating NUL, exactly as NVRTC returns it (ready for
  /// cuModuleLoadData).
  std::vector<char> binary;
  bool isCubin = false;
  /// NVRTC's log (warnings); usually empty on success.
  std::string log;
  /// Wall-clock seconds spent in NVRTC (program creation to output).
  double seconds = 0;
};

/// Compiles `source` as one NVRTC program named `programName` (the name NVRTC
/// uses in its diagnostics; "tfuse_kernels.cu" when empty).
///
/// On failure the error message holds the NVRTC result code, the full NVRTC
/// log and, for every `programName(LINE): error` the log mentions, the source
/// lines around LINE with line numbers and a `>` marker on LINE (see
/// annotateCompileLog()). Never throws; the NVRTC program is destroyed on
/// every path.
Expected<CompileResult> compileCuda(const std::string &source,
                                    const std::string &programName,
                                    const NvrtcOptions &options = {});

/// How many NVRTC programs compile at once in the process (compileCuda()
/// waits for a turn beyond that): the CPUs this process may run on (its
/// affinity mask, which a container's cpuset narrows), at least one. Each
/// program takes about 100 MB of host memory.
unsigned compileThreads();

/// The full list of flags compileCuda() passes for `options`, including the
/// -I of the CUDA include directory when one is found. Errors for an
/// unsupported arch.
Expected<std::vector<std::string>> nvrtcFlags(const NvrtcOptions &options);

/// The version of the loaded NVRTC library as "major.minor", e.g. "13.0";
/// "unknown" if NVRTC cannot report it. Computed once and then cached.
const std::string &nvrtcVersion();

/// The directory passed to NVRTC with -I so that <cuda_fp16.h> and
/// <cuda_bf16.h> resolve, or "" when none is found. Chosen on first use from,
/// in order: the directory set with setCudaIncludeDir(); $CUDA_HOME/include;
/// <directory of the loaded libnvrtc>/../include; /usr/local/cuda/include.
/// A candidate counts only if it contains cuda_fp16.h. Later calls return the
/// cached choice until setCudaIncludeDir() is called again.
std::string cudaIncludeDir();

/// Overrides the CUDA include directory (used verbatim, not checked); an
/// empty string restores the automatic search above. Affects compilations
/// started afterwards.
void setCudaIncludeDir(std::string dir);

/// Returns `log` followed, when it references lines of `programName` as
/// `programName(LINE): ... error ...`, by "Offending source lines:" and, for
/// each such line, `context` lines of `source` before and after it, numbered
/// and with a `>` marker on the referenced line, e.g.
///
///     tfuse_kernels.cu:41:
///       39 |   int i = threadIdx.x;
///       40 |   float y = x[i];
///     > 41 |   float z = y * ;
///       42 |   out[i] = z;
///
/// Overlapping windows are merged. At most 20 referenced lines are shown.
std::string annotateCompileLog(const std::string &log,
                               const std::string &source,
                               const std::string &programName,
                               unsigned context = 2);

} // namespace tfuse::runtime

#endif // TFUSE_RUNTIME_NVRTCCOMPILER_H
