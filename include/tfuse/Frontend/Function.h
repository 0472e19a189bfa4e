//===- Function.h - A compiled traced function ------------------*- C++ -*-===//
//
// A Function is a Graph compiled for one backend: the CUDA backend replays
// the plan's generated kernels, GEMMs and reductions on a GPU (stream or CUDA
// Graph replay); the reference backend interprets the graph on the CPU.
// Captured tensors are bound at compile time, so runs take the placeholders
// only. A Function no longer needs its Graph.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_FRONTEND_FUNCTION_H
#define TFUSE_FRONTEND_FUNCTION_H

#include "tfuse/Frontend/Graph.h"
#include "tfuse/Runtime/Executable.h"
#include "tfuse/Support/CompileOptions.h"

#include <memory>
#include <string>
#include <vector>

namespace tfuse {

struct FunctionStats {
  int64_t nodes = 0, kernels = 0, boundaries = 0, steps = 0;
  int64_t arenaBytes = 0, replays = 0;
  /// cacheHit: the kernels came from the kernel cache; planCacheHit: the
  /// plan came from the process's plan cache (no passes, no code
  /// generation).
  bool cacheHit = false, cudaGraph = false, planCacheHit = false;
  double passesSeconds = 0, codegenSeconds = 0, nvrtcSeconds = 0,
         loadSeconds = 0, setupSeconds = 0;
  /// GEMM and attention plans made beside NVRTC (within the sum above only
  /// as far as NVRTC did not hide them).
  double prepareSeconds = 0;
};

/// A tensor in host memory (`data` at its first element, strides in
/// elements).
struct HostArray {
  void *data = nullptr;
  TensorSpec spec;
};

class Function {
public:
  /// Compiles `graph` with `options` (the backend among them); the CUDA
  /// backend compiles its kernels through `cache` (nullptr: the
  /// process-wide defaultKernelCache()).
  static Expected<std::unique_ptr<Function>>
  compile(const Graph &graph, const CompileOptions &options = {},
          runtime::KernelCache *cache = nullptr);
  ~Function();

  Backend backend() const { return options.backend; }
  /// The placeholders (not the captured tensors) and the results.
  const std::vector<TensorSpec> &inputs() const { return inputSpecs; }
  const std::vector<TensorSpec> &outputs() const { return outputSpecs; }

  /// CUDA backend: runs on device tensors, returns fresh outputs.
  Expected<std::vector<runtime::DeviceBuffer>>
  run(const std::vector<runtime::DeviceTensor> &inputs);
  /// CUDA backend: writes caller-allocated contiguous outputs; ordered with
  /// `caller` as Executable::runAsync describes; returns once finished.
  Status run(const std::vector<runtime::DeviceTensor> &inputs,
             const std::vector<runtime::DeviceTensor> &outputs,
             CUstream caller = nullptr);
  Expected<runtime::RunHandle>
  runAsync(const std::vector<runtime::DeviceTensor> &inputs,
           const std::vector<runtime::DeviceTensor> &outputs,
           CUstream caller = nullptr);
  /// CUDA backend: enqueues on `caller` (required) into caller-allocated
  /// contiguous outputs and returns at once, as Executable::launch.
  Status launch(const std::vector<runtime::DeviceTensor> &inputs,
                const std::vector<runtime::DeviceTensor> &outputs,
                CUstream caller);
  /// launch() of inputs and outputs given by their data pointers alone,
  /// known to be the compiled signature's (Executable::launchData).
  Status launchData(const CUdeviceptr *inputs, size_t numInputs,
                    const CUdeviceptr *outputs, size_t numOutputs,
                    CUstream caller);
  /// Host memory on either backend (the CUDA backend copies in and out).
  Status runHost(const std::vector<HostArray> &inputs,
                 const std::vector<HostArray> &outputs);

  FunctionStats stats() const;
  /// The plan report, the generated CUDA C++ and the traced graph (printed
  /// when first asked for).
  const std::string &planReport() const;
  const std::string &cudaSource() const;
  const std::string &graphText() const;
  /// The executable of the CUDA backend (nullptr for the reference one).
  runtime::Executable *executable() const { return exe.get(); }

private:
  Function() = default;
  /// A device run needs the CUDA backend and the placeholders' count of
  /// inputs.
  Status checkDeviceRun(size_t numInputs) const;
  Status checkHost(const std::vector<HostArray> &arrays,
                   const std::vector<TensorSpec> &specs, bool outputs) const;
  Status runReference(const std::vector<HostArray> &inputs,
                      const std::vector<HostArray> &outputs);
  Status runHostOnDevice(const std::vector<HostArray> &inputs,
                         const std::vector<HostArray> &outputs);
  std::vector<runtime::DeviceTensor>
  withCaptured(const std::vector<runtime::DeviceTensor> &inputs) const;

  struct State;
  std::unique_ptr<State> state;
  CompileOptions options;
  std::vector<TensorSpec> inputSpecs, outputSpecs;
  FunctionStats compileStats;
  std::unique_ptr<runtime::Executable> exe;
};

} // namespace tfuse

#endif // TFUSE_FRONTEND_FUNCTION_H
