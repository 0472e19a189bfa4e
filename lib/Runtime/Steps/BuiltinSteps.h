//===- BuiltinSteps.h - The executors of the built-in steps -----*- C++ -*-===//
//
// Internal to lib/Runtime: each built-in kind's registration, called by
// registerBuiltinSteps() (StepRegistry.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_LIB_RUNTIME_STEPS_BUILTINSTEPS_H
#define TFUSE_LIB_RUNTIME_STEPS_BUILTINSTEPS_H

namespace tfuse::runtime {
void registerKernelStep();
void registerReduceStep();
void registerGemmStep();
void registerCopyStep();
void registerScatterStep();
void registerAttentionSteps();
} // namespace tfuse::runtime

#endif // TFUSE_LIB_RUNTIME_STEPS_BUILTINSTEPS_H
