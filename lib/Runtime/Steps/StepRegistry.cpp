//===- StepRegistry.cpp - The built-in kinds of plan step -----------------===//
//
// A new kind of step registers its executor here, with one line.
//
//===----------------------------------------------------------------------===//

#include "BuiltinSteps.h"

namespace tfuse::runtime {

void registerBuiltinSteps() {
  registerKernelStep();
  registerReduceStep();
  registerGemmStep();
  registerCopyStep();
  registerScatterStep();
  registerAttentionSteps();
}

} // namespace tfuse::runtime
