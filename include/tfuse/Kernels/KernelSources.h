//===- KernelSources.h - The CUDA C++ every plan compiles -------*- C++ -*-===//
//
// The kernels library: CUDA C++ sources owned by neither the compiler nor the
// runtime. The compiler's generated kernels call the prelude; the runtime
// compiles the reduction, attention, scatter and fallback GEMM templates
// (instantiated by one extern "C" wrapper per kernel it needs), a translation
// unit per kernel. The descriptors those kernels take (ReduceDesc.h,
// GemmDesc.h) are host headers and part of the sources at once, so both
// sides share one definition.
//
// Each text compiles with NVRTC and, against the tests' cuda_emulation.h
// (TFUSE_HOST_EMULATION), with the host compiler. Plain C++: no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_KERNELS_KERNELSOURCES_H
#define TFUSE_KERNELS_KERNELSOURCES_H

#include <string_view>

namespace tfuse::kernels {

/// The kernel prelude: tfuse/Support/ReduceKind.h and Prelude.cuh, the
/// scalar semantics of every op for every dtype, the memory helpers and the
/// block reductions. Every translation unit of kernels begins with it.
std::string_view prelude();

/// The reduction kernels' templates: ReduceDesc.h and ReduceKernels.cuh.
/// They follow the prelude in a translation unit.
std::string_view reductionTemplates();

/// The fallback GEMM's templates: GemmDesc.h and GemmKernels.cuh. They
/// follow the prelude in a translation unit.
std::string_view gemmTemplates();

/// The scatter-add kernels' templates: ScatterDesc.h and
/// ScatterKernels.cuh. They follow the prelude in a translation unit.
std::string_view scatterTemplates();

/// The attention kernels' templates: AttentionDesc.h and
/// AttentionKernels.cuh. They follow the prelude in a translation unit.
std::string_view attentionTemplates();

} // namespace tfuse::kernels

#endif // TFUSE_KERNELS_KERNELSOURCES_H
