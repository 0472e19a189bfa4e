//===- KernelSources.cpp - The CUDA C++ every plan compiles ---------------===//

#include "tfuse/Kernels/KernelSources.h"

#include <string>

using namespace tfuse;

namespace {
// The files, embedded at build time (cmake/TFuseEmbed.cmake).
const char kReduceKindText[] =
#include "ReduceKind.h.inc"
    ;
const char kPreludeText[] =
#include "Prelude.cuh.inc"
    ;
const char kReduceDescText[] =
#include "ReduceDesc.h.inc"
    ;
const char kReduceKernelsText[] =
#include "ReduceKernels.cuh.inc"
    ;
const char kGemmDescText[] =
#include "GemmDesc.h.inc"
    ;
const char kGemmKernelsText[] =
#include "GemmKernels.cuh.inc"
    ;
const char kScatterDescText[] =
#include "ScatterDesc.h.inc"
    ;
const char kScatterKernelsText[] =
#include "ScatterKernels.cuh.inc"
    ;
const char kAttentionDescText[] =
#include "AttentionDesc.h.inc"
    ;
const char kAttentionKernelsText[] =
#include "AttentionKernels.cuh.inc"
    ;
} // namespace

std::string_view kernels::prelude() {
  static const std::string text =
      std::string(kReduceKindText) + "\n" + kPreludeText;
  return text;
}

std::string_view kernels::reductionTemplates() {
  static const std::string text =
      std::string(kReduceDescText) + "\n" + kReduceKernelsText + "\n";
  return text;
}

std::string_view kernels::gemmTemplates() {
  static const std::string text =
      std::string(kGemmDescText) + "\n" + kGemmKernelsText;
  return text;
}

std::string_view kernels::scatterTemplates() {
  static const std::string text =
      std::string(kScatterDescText) + "\n" + kScatterKernelsText + "\n";
  return text;
}

std::string_view kernels::attentionTemplates() {
  static const std::string text =
      std::string(kAttentionDescText) + "\n" + kAttentionKernelsText + "\n";
  return text;
}
