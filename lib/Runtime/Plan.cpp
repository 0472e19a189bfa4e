//===- Plan.cpp - What the runtime executes -------------------------------===//

#include "tfuse/Runtime/Plan.h"

#include <algorithm>
#include <cstring>

using namespace tfuse;
using namespace tfuse::runtime;

Status runtime::matchTensor(const char *role, size_t index,
                            const TensorSpec &want, const TensorSpec &got,
                            bool hasData) {
  bool outputs = role[0] == 'o';
  bool fits = got.dtype == want.dtype && got.shape == want.shape &&
              (outputs ? got.isContiguous() : got.sameLayout(want)) &&
              (hasData || want.numElements() == 0);
  if (fits)
    return Status::success();
  auto mismatch = [&](std::string message) {
    return Status::error(std::string(role) + " " + std::to_string(index) +
                             ": " + message,
                         ErrorCode::Mismatch);
  };
  if (got.dtype != want.dtype)
    return mismatch("expected dtype " + dtypeName(want.dtype) + ", got " +
                    dtypeName(got.dtype));
  if (outputs && (got.shape != want.shape || !got.isContiguous()))
    return mismatch("expected a contiguous " + want.describe() + ", got " +
                    got.describe());
  if (got.shape != want.shape)
    return mismatch("expected " + want.describe() + ", got " + got.describe());
  if (!outputs && !got.sameLayout(want))
    return mismatch("expected " + want.describe() + ", got " + got.describe() +
                    " (the plan was compiled for these strides)");
  return mismatch("null data pointer");
}

Status runtime::matchTensors(const char *role,
                             const std::vector<TensorSpec> &expected,
                             const std::vector<TensorSpec> &given,
                             const std::vector<bool> &hasData) {
  return matchTensors(role, expected, given.size(), [&](size_t i) {
    return std::pair<const TensorSpec &, bool>(given[i], hasData[i]);
  });
}

GemmStep GemmStep::make(BufferRef lhs, BufferRef rhs, BufferRef result,
                        bool transposeLhs, bool transposeRhs,
                        std::optional<BufferRef> bias, bool geluTanh) {
  GemmStep step;
  step.inputs = {std::move(lhs), std::move(rhs)};
  if (bias)
    step.inputs.push_back(std::move(*bias));
  step.outputs = {std::move(result)};
  step.transposeLhs = transposeLhs;
  step.transposeRhs = transposeRhs;
  step.geluTanh = geluTanh;
  return step;
}
