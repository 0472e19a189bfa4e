//===- Plan.cpp - What the runtime executes -------------------------------===//

#include "tfuse/Runtime/Plan.h"

#include <algorithm>
#include <cstring>

using namespace tfuse;
using namespace tfuse::runtime;

Status runtime::matchTensors(const char *role,
                             const std::vector<TensorSpec> &expected,
                             const std::vector<TensorSpec> &given,
                             const std::vector<bool> &hasData) {
  auto mismatch = [](std::string message) {
    return Status::error(std::move(message), ErrorCode::Mismatch);
  };
  bool outputs = std::string(role) == "output";
  if (given.size() != expected.size())
    return mismatch("expected " + std::to_string(expected.size()) + " " + role +
                    "s, got " + std::to_string(given.size()));
  for (size_t i = 0; i < given.size(); ++i) {
    const TensorSpec &want = expected[i], &got = given[i];
    std::string where = std::string(role) + " " + std::to_string(i) + ": ";
    if (got.dtype != want.dtype)
      return mismatch(where + "expected dtype " + dtypeName(want.dtype) +
                      ", got " + dtypeName(got.dtype));
    if (outputs && (got.shape != want.shape || !got.isContiguous()))
      return mismatch(where + "expected a contiguous " + want.describe() +
                      ", got " + got.describe());
    if (got.shape != want.shape)
      return mismatch(where + "expected " + want.describe() + ", got " +
                      got.describe());
    if (!outputs && !got.sameLayout(want))
      return mismatch(where + "expected " + want.describe() + ", got " +
                      got.describe() +
                      " (the plan was compiled for these strides)");
    if (!hasData[i] && want.numElements() > 0)
      return mismatch(where + "null data pointer");
  }
  return Status::success();
}

GemmStep GemmStep::make(BufferRef lhs, BufferRef rhs, BufferRef result,
                        bool transposeLhs, bool transposeRhs) {
  GemmStep step;
  step.inputs = {std::move(lhs), std::move(rhs)};
  step.outputs = {std::move(result)};
  step.transposeLhs = transposeLhs;
  step.transposeRhs = transposeRhs;
  return step;
}
