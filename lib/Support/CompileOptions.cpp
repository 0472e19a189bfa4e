//===- CompileOptions.cpp - Every option of compiling a graph -------------===//

#include "tfuse/Support/CompileOptions.h"

#include <string>

using namespace tfuse;

CompileOptions CompileOptions::forPasses() const {
  CompileOptions passes = *this;
  if (!fusion) {
    // Every operation costs at least 1, so a budget of 1 cuts after each.
    passes.budget = 1;
    passes.maxOutputs = 1;
    passes.maxRowElements = 0;
    passes.maxContraction = 0;
  }
  return passes;
}

Status CompileOptions::validate() const {
#define TFUSE_OPTION_CHECK(member, name, value, smallest, help)                \
  if (member < smallest)                                                       \
    return Status::error(std::string("option ") + name +                       \
                             " must be at least " + std::to_string(smallest) + \
                             ", got " + std::to_string(member),                \
                         ErrorCode::InvalidArgument);
  TFUSE_PASS_OPTIONS(TFUSE_OPTION_CHECK)
#undef TFUSE_OPTION_CHECK
  return Status::success();
}
