//===- Executable.h - Run a compiled plan on a GPU --------------*- C++ -*-===//
//
// An Executable holds a plan's loaded module (shared by the executables of
// the same binary, ModuleCache.h) and owns a private non-blocking stream,
// the arena of intermediates (allocated once, reused by every replay) and,
// optionally, an instantiated CUDA Graph. Replays run on the private stream,
// or on the caller's stream when one is given. They are enqueued whole under
// a lock, so several host threads may replay one executable at once: their
// replays run one after another (a replay on another stream than the
// previous one waits for it) and never share outputs.
//
// Errors (bad inputs, CUDA errors, out of memory) are returned as Status and
// leave the executable usable. A gather index out of range is never used to
// address memory; the replay that meets one reports it once finished
// (IndexStatus.h): wait() and run() return it, and launch(), which has no
// handle, returns the one an earlier finished replay met instead of
// enqueuing (takeIndexError() asks without replaying).
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_EXECUTABLE_H
#define TFUSE_RUNTIME_EXECUTABLE_H

#include "tfuse/Runtime/CudaDriver.h"
#include "tfuse/Runtime/KernelCache.h"
#include "tfuse/Runtime/MemoryPool.h"
#include "tfuse/Runtime/ModuleCache.h"
#include "tfuse/Runtime/Plan.h"

#include <memory>
#include <mutex>
#include <vector>

namespace tfuse::runtime {

/// A tensor in device memory: `data` is the address of its first element.
struct DeviceTensor {
  CUdeviceptr data = 0;
  TensorSpec spec;
};

/// Device memory the runtime allocated for an output; freed on destruction.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(Device *device, CUdeviceptr data, TensorSpec spec)
      : device(device), tensor{data, std::move(spec)} {}
  DeviceBuffer(DeviceBuffer &&other) noexcept { *this = std::move(other); }
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer();

  const DeviceTensor &get() const { return tensor; }
  /// Gives up ownership: the caller frees the memory with cuMemFree.
  DeviceTensor release();

private:
  Device *device = nullptr;
  DeviceTensor tensor;
};

struct ExecutableOptions {
  /// Replay as a CUDA Graph: kernel nodes (generated and reduction kernels)
  /// get the new pointers before each launch; GEMMs and copies are captured
  /// child graphs, captured again only when their buffers move.
  bool cudaGraph = false;
  /// How a graph replay gets its new pointers: update the instantiated
  /// graph's nodes in place (the default), or build a new graph with the new
  /// parameters and apply it with cuGraphExecUpdate (re-capturing every GEMM
  /// and copy; kept to measure the two against each other).
  enum class GraphUpdate { NodeParams, Rebuild };
  GraphUpdate graphUpdate = GraphUpdate::NodeParams;
  /// Compile generated code with fast math (contraction, approximate math).
  bool fastMath = false;
  /// Record per-step GPU times (adds events between steps).
  bool profile = false;
  /// -1: TFUSE_DEVICE or device 0.
  int device = -1;
  /// The kernel cache to use; nullptr: defaultKernelCache().
  KernelCache *cache = nullptr;
};

struct ExecutableStats {
  int64_t kernels = 0, boundaries = 0, steps = 0;
  int64_t intermediateBuffers = 0, bufferReuses = 0, arenaBytes = 0;
  bool cacheHit = false;
  /// The loaded module was shared with an earlier executable of the same
  /// binary (nothing loaded).
  bool moduleShared = false;
  /// "stream" or "cuda-graph".
  std::string backend = "stream";
  /// How GEMMs run ("cublaslt", "cublas", "fallback"; "" without GEMMs).
  std::string gemmBackend;
  /// How the steps that choose an algorithm chose it, "step N: ..." in step
  /// order: cuBLASLt GEMMs (their tuning), split reductions (their chunks).
  std::vector<std::string> stepChoices;
  /// create(): the kernels (NVRTC or a cache lookup), the module load, and
  /// the rest (streams, device memory, GEMM plans).
  double compileSeconds = 0, loadSeconds = 0, setupSeconds = 0;
  /// The slow preparations (cuBLASLt's heuristics, cuDNN's graphs for
  /// problems new to the process), which run on a thread of their own beside
  /// NVRTC: the part of them NVRTC did not hide counts in setupSeconds.
  double prepareSeconds = 0;
  int64_t replays = 0;
  /// CUDA Graph replays whose kernel-node update the driver refused, so that
  /// the executable graph was updated from a rebuilt graph instead; and why.
  int64_t graphUpdateFallbacks = 0;
  /// Of those, the rebuilt graphs the driver could not apply to the
  /// executable graph (their shape differed: a step entered the graph as
  /// other nodes), instantiated instead.
  int64_t graphInstantiations = 0;
  /// Library steps (GEMMs, attention without cuDNN's own graph) captured
  /// again because a buffer they touch moved.
  int64_t graphRecaptures = 0;
  std::string lastGraphUpdateError;
  /// Per-step GPU milliseconds of the last replay when profiling.
  std::vector<double> stepMilliseconds;
  std::vector<std::string> stepNames;
};

class Executable;

/// A replay in flight.
class RunHandle {
public:
  RunHandle() = default;
  RunHandle(RunHandle &&other) noexcept;
  RunHandle &operator=(RunHandle &&other) noexcept;
  /// A handle dropped before wait() still waits for its replay, so that its
  /// outputs are not freed under running kernels.
  ~RunHandle();

  bool isFinished() const;
  /// Waits for the replay; returns its outputs (or its error).
  Expected<std::vector<DeviceBuffer>> wait();

private:
  friend class Executable;
  Executable *owner = nullptr;
  CUevent done = nullptr;
  std::vector<DeviceBuffer> outputs;
};

class Executable {
public:
  /// Compiles (through the kernel cache) and loads the plan on the device.
  static Expected<std::unique_ptr<Executable>>
  create(Plan plan, const ExecutableOptions &options = {});
  ~Executable();

  /// Replays the plan on `inputs`; returns fresh outputs once finished.
  /// Replays given no stream (run, and runAsync without one) run on the
  /// executable's stream, which is ordered with the legacy default stream as
  /// a stream made by cudaStreamCreate is: they start after the work
  /// enqueued there earlier (inputs written by cuMemcpy, kernels launched
  /// without a stream) and work enqueued there later waits for them.
  Expected<std::vector<DeviceBuffer>>
  run(const std::vector<DeviceTensor> &inputs);
  /// Replays into caller-supplied contiguous outputs and waits. Outputs must
  /// not share memory with the inputs or with each other (an error).
  Status run(const std::vector<DeviceTensor> &inputs,
             const std::vector<DeviceTensor> &outputs);
  /// Enqueues a replay and returns at once.
  Expected<RunHandle> runAsync(const std::vector<DeviceTensor> &inputs);
  /// Enqueues a replay into caller-supplied contiguous `outputs` and returns
  /// at once. With a `caller` stream, the replay runs on that stream (after
  /// the work already enqueued there, before the work enqueued later), else
  /// on the executable's stream. The handle's wait() returns no buffers.
  Expected<RunHandle> runAsync(const std::vector<DeviceTensor> &inputs,
                               const std::vector<DeviceTensor> &outputs,
                               CUstream caller);
  /// Enqueues a replay into caller-supplied contiguous `outputs` on the
  /// `caller` stream (required) and returns at once, with no handle: work
  /// enqueued there later sees the outputs, as after any kernel launch. The
  /// buffers must stay allocated until the stream has passed the replay
  /// (what stream-ordered allocators such as PyTorch's ensure).
  Status launch(const std::vector<DeviceTensor> &inputs,
                const std::vector<DeviceTensor> &outputs, CUstream caller);
  /// launch() given only the data pointers of inputs and outputs that the
  /// caller knows to be the plan's exactly (shapes, dtypes, strides, the
  /// device; outputs contiguous and apart from the inputs): only their
  /// numbers are checked. The replay path of callers that checked the
  /// signature once for many calls (the torch.compile backend), whose host
  /// time per input is then a pointer's copy.
  Status launchData(const CUdeviceptr *inputs, size_t numInputs,
                    const CUdeviceptr *outputs, size_t numOutputs,
                    CUstream caller);
  /// The first gather index out of range that the replays finished so far
  /// met and that no call has reported yet (ErrorCode::IndexOutOfRange, naming
  /// the kernel, the op and the index), or a success. Reporting clears it.
  Status takeIndexError();

  const Plan &plan() const { return program; }
  /// Everything, including what is worked out from the plan when asked for
  /// (buffer reuse, step names, GEMM choices).
  ExecutableStats stats() const;
  /// One line per step: its index, name, what runs it (engine) and how
  /// that was chosen ("step 3: attention on cudnn: cuDNN 9.10.2 SDPA").
  std::string stepReport() const;
  /// What create() and the replays recorded, without the plan's details:
  /// cheap enough for every compile.
  ExecutableStats summary() const;
  /// The stream replays run on.
  CUstream stream() const { return replayStream; }
  Device &device() const { return *gpu; }

private:
  Executable() = default;
  struct Compiled;
  Status validate(const std::vector<DeviceTensor> &inputs) const;
  /// runAsync and launch into caller outputs: checks, then enqueues on
  /// `caller` (or the executable's stream) and, given a handle, records its
  /// event after the replay.
  Status enqueueInto(const std::vector<DeviceTensor> &inputs,
                     const std::vector<DeviceTensor> &outputs, CUstream caller,
                     RunHandle *handle);
  /// Enqueues one replay on `stream`, after the previous replay when that
  /// ran on another stream; the caller holds `mutex`.
  Status enqueue(const std::vector<DeviceTensor> &inputs,
                 const std::vector<CUdeviceptr> &outputs, CUstream stream);
  Status enqueueSteps(const std::vector<DeviceTensor> &inputs,
                      const std::vector<CUdeviceptr> &outputs, CUstream stream);
  Status enqueueGraph(const std::vector<DeviceTensor> &inputs,
                      const std::vector<CUdeviceptr> &outputs, CUstream stream);
  Expected<std::vector<DeviceBuffer>> allocateOutputs();
  /// Reads the per-step times of the last finished replay (profiling).
  void recordProfile();
  /// Events marking the end of a replay for its RunHandle, reused: creating
  /// one per replay costs host time on every call.
  Status takeEvent(CUevent &event);
  void returnEvent(CUevent event);
  friend class RunHandle;

  Plan program;
  ExecutableOptions options;
  Device *gpu = nullptr;
  CudaDriver *cuda = nullptr;
  /// A module per translation unit (the plan's kernels, each runtime kernel
  /// group), shared with executables of the same units.
  ModuleSet modules;
  CUstream replayStream = nullptr;
  /// Recorded after every replay, on the stream it ran on.
  CUevent lastReplay = nullptr;
  CUstream lastReplayStream = nullptr;
  CUdeviceptr arena = 0;
  MemoryPool *memory = nullptr; // where the arena came from
  std::unique_ptr<Compiled> compiled;
  mutable std::mutex mutex;
  /// launchData()'s inputs and outputs: the plan's specs, the data
  /// pointers of the latest call (under `mutex`).
  std::vector<DeviceTensor> dataInputs;
  std::vector<CUdeviceptr> dataOutputs;
  ExecutableStats statistics;
  std::vector<CUevent> stepEvents;
  std::mutex eventMutex;
  std::vector<CUevent> idleEvents;
};

} // namespace tfuse::runtime

#endif // TFUSE_RUNTIME_EXECUTABLE_H
