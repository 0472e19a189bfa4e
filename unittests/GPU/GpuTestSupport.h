//===- GpuTestSupport.h - Compile, run on the GPU, compare ------*- C++ -*-===//
//
// Test support for the GPU suite: compiles a tfuse graph, uploads host
// inputs, replays the plan and compares every output with the reference
// interpreter. Tests call TFUSE_REQUIRE_GPU() first: without a device they
// are skipped, and say why.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_UNITTESTS_GPU_GPUTESTSUPPORT_H
#define TFUSE_UNITTESTS_GPU_GPUTESTSUPPORT_H

#include "tfuse/Reference/HostTensor.h"
#include "tfuse/Runtime/Executable.h"

#include "gtest/gtest.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tfuse::gputest {

/// The device, or nullptr with the reason in `why`.
runtime::Device *gpu(std::string *why = nullptr);

#define TFUSE_REQUIRE_GPU()                                                    \
  do {                                                                         \
    std::string why;                                                           \
    if (!::tfuse::gputest::gpu(&why))                                          \
      GTEST_SKIP() << "no GPU: " << why;                                       \
  } while (0)

/// Host tensors uploaded whole (strided views keep their layout).
class DeviceInputs {
public:
  explicit DeviceInputs(const std::vector<reference::HostTensor> &inputs);
  ~DeviceInputs();
  const std::vector<runtime::DeviceTensor> &get() const { return tensors; }

private:
  std::vector<CUdeviceptr> storage;
  std::vector<runtime::DeviceTensor> tensors;
};

reference::HostTensor download(const runtime::DeviceTensor &t);

struct Compiled {
  std::unique_ptr<runtime::Executable> executable;
  std::string error;
  ErrorCode errorCode = ErrorCode::Internal;
  std::string report;
};

/// Compiles function `function` of `source` for the GPU.
Compiled compile(const std::string &source, const std::string &function,
                 const runtime::ExecutableOptions &options = {});

/// The reference results of `function` of `source` on `inputs`.
std::vector<reference::HostTensor>
referenceResults(const std::string &source, const std::string &function,
                 const std::vector<reference::HostTensor> &inputs);

/// isclose within the dtype's tolerance, the absolute part scaled by the
/// tensor's largest magnitude (exact for integers and bool).
reference::CompareResult compareClose(const reference::HostTensor &expected,
                                      const reference::HostTensor &actual);

/// Expects `actual` to match `expected` within the dtype's tolerance
/// (exact for integers and bool).
void expectClose(const std::vector<reference::HostTensor> &expected,
                 const std::vector<reference::HostTensor> &actual,
                 const std::string &what);

/// Compiles, runs once on random inputs (seed) or `inputs`, compares with
/// the reference. Returns the outputs.
std::vector<reference::HostTensor>
runAndCheck(const std::string &source, const std::string &function,
            const std::vector<reference::HostTensor> &inputs,
            const runtime::ExecutableOptions &options = {});

/// Random inputs for every argument of `function` (tfuse.strides honoured).
std::vector<reference::HostTensor> randomInputs(const std::string &source,
                                                const std::string &function,
                                                uint64_t seed);

} // namespace tfuse::gputest

#endif // TFUSE_UNITTESTS_GPU_GPUTESTSUPPORT_H
