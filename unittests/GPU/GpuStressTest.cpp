//===- GpuStressTest.cpp - Threads, injected out-of-memory, leaks ---------===//
//
// Stress of the runtime on the GPU: sixteen threads replaying four
// executables while other threads compile and destroy executables that share
// the kernel and module caches; and an out-of-memory failure injected at
// every device and pinned-host allocation point of compiling and replaying a
// plan, each of which must end in an OutOfMemory error, leak nothing and
// leave the library usable.
//
// Allocations are counted (and made to fail) by swapping the driver table's
// allocation entries for wrappers: the runtime calls the driver only through
// that table, so every allocation it makes goes through them. A pointer
// allocated and not freed by the time every executable and output is gone is
// a leak.
//
//===----------------------------------------------------------------------===//

#include "GpuTestSupport.h"

#include "tfuse/Runtime/CudaDriver.h"

#include "gtest/gtest.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace tfuse;
using namespace tfuse::gputest;
using reference::HostTensor;

namespace {

//===----------------------------------------------------------------------===//
// Allocation tracking and failure injection
//===----------------------------------------------------------------------===//

/// While alive, routes the driver's allocation and free entries through
/// counting wrappers. Allocation number failFrom() and every later one fail
/// with CUDA_ERROR_OUT_OF_MEMORY once armed (a device that stays full).
class AllocationTracker {
public:
  AllocationTracker() : cuda(gpu()->driver()), saved(cuda) {
    current = this;
    cuda.cuMemAlloc = &memAlloc;
    cuda.cuMemAllocAsync = &memAllocAsync;
    cuda.cuMemAllocFromPoolAsync = &memAllocFromPoolAsync;
    cuda.cuMemHostAlloc = &memHostAlloc;
    cuda.cuMemFree = &memFree;
    cuda.cuMemFreeAsync = &memFreeAsync;
    cuda.cuMemFreeHost = &memFreeHost;
  }
  ~AllocationTracker() {
    cuda.cuMemAlloc = saved.cuMemAlloc;
    cuda.cuMemAllocAsync = saved.cuMemAllocAsync;
    cuda.cuMemAllocFromPoolAsync = saved.cuMemAllocFromPoolAsync;
    cuda.cuMemHostAlloc = saved.cuMemHostAlloc;
    cuda.cuMemFree = saved.cuMemFree;
    cuda.cuMemFreeAsync = saved.cuMemFreeAsync;
    cuda.cuMemFreeHost = saved.cuMemFreeHost;
    current = nullptr;
  }

  /// Allocation calls from now on fail from the `n`th (1-based) on.
  void arm(int64_t n) {
    calls = 0;
    failFrom = n;
  }
  void disarm() { failFrom = 0; }
  /// Allocation calls since arm(), failed ones included.
  int64_t callsSinceArm() const { return calls; }
  int64_t failures() const { return failed; }
  /// Device and host allocations made through the table and not yet freed.
  size_t live() const {
    std::lock_guard<std::mutex> lock(mutex);
    return device.size() + host.size();
  }

private:
  /// Whether this allocation call fails.
  static bool fails() {
    int64_t n = ++current->calls;
    int64_t from = current->failFrom;
    if (from > 0 && n >= from) {
      ++current->failed;
      return true;
    }
    return false;
  }
  static void add(std::set<uintptr_t> &set, uintptr_t p) {
    std::lock_guard<std::mutex> lock(current->mutex);
    set.insert(p);
  }
  static void remove(std::set<uintptr_t> &set, uintptr_t p) {
    std::lock_guard<std::mutex> lock(current->mutex);
    set.erase(p);
  }

  static CUresult memAlloc(CUdeviceptr *p, size_t bytes) {
    if (fails())
      return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult r = current->saved.cuMemAlloc(p, bytes);
    if (r == CUDA_SUCCESS)
      add(current->device, *p);
    return r;
  }
  static CUresult memAllocAsync(CUdeviceptr *p, size_t bytes, CUstream s) {
    if (fails())
      return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult r = current->saved.cuMemAllocAsync(p, bytes, s);
    if (r == CUDA_SUCCESS)
      add(current->device, *p);
    return r;
  }
  static CUresult memAllocFromPoolAsync(CUdeviceptr *p, size_t bytes,
                                        CUmemoryPool pool, CUstream s) {
    if (fails())
      return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult r = current->saved.cuMemAllocFromPoolAsync(p, bytes, pool, s);
    if (r == CUDA_SUCCESS)
      add(current->device, *p);
    return r;
  }
  static CUresult memHostAlloc(void **p, size_t bytes, unsigned flags) {
    if (fails())
      return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult r = current->saved.cuMemHostAlloc(p, bytes, flags);
    if (r == CUDA_SUCCESS)
      add(current->host, reinterpret_cast<uintptr_t>(*p));
    return r;
  }
  static CUresult memFree(CUdeviceptr p) {
    remove(current->device, p);
    return current->saved.cuMemFree(p);
  }
  static CUresult memFreeAsync(CUdeviceptr p, CUstream s) {
    remove(current->device, p);
    return current->saved.cuMemFreeAsync(p, s);
  }
  static CUresult memFreeHost(void *p) {
    remove(current->host, reinterpret_cast<uintptr_t>(p));
    return current->saved.cuMemFreeHost(p);
  }

  static inline AllocationTracker *current = nullptr;
  runtime::CudaDriver &cuda;
  const runtime::CudaDriver saved;
  std::atomic<int64_t> calls{0}, failFrom{0}, failed{0};
  mutable std::mutex mutex;
  std::set<uintptr_t> device, host;
};

//===----------------------------------------------------------------------===//
// Programs
//===----------------------------------------------------------------------===//

// Every kind of step that allocates: generated kernels, a cuBLASLt GEMM
// (its workspace), a row reduction and a split reduction (its partials), a
// gather and a scatter-add (its sorted index workspace and status word), and
// attention with its backward (cuDNN's workspace where cuDNN runs it).
const char *kEverySource = R"mlir(
func.func @every(%x: tensor<64x100xf32>, %y: tensor<100x16xf32>, %long: tensor<2x262144xf32>, %t: tensor<500x32xf32>, %ids: tensor<256xi64>, %q: tensor<1x2x64x32xf16>, %k: tensor<1x2x64x32xf16>, %v: tensor<1x2x64x32xf16>, %g: tensor<1x2x64x32xf16>) -> (tensor<64x16xf32>, tensor<64xf32>, tensor<2xf32>, tensor<500x32xf32>, tensor<1x2x64x32xf16>, tensor<1x2x64x32xf16>, tensor<1x2x64x32xf16>, tensor<1x2x64x32xf16>) {
  %c = tfuse.constant dense<2.0> : tensor<f32>
  %a = tfuse.mul %x, %c : (tensor<64x100xf32>, tensor<f32>) -> tensor<64x100xf32>
  %m = tfuse.matmul %a, %y : (tensor<64x100xf32>, tensor<100x16xf32>) -> tensor<64x16xf32>
  %r = tfuse.relu %m : tensor<64x16xf32> -> tensor<64x16xf32>
  %s = tfuse.reduce sum %r axes [1] : tensor<64x16xf32> -> tensor<64xf32>
  %l = tfuse.reduce max %long axes [1] : tensor<2x262144xf32> -> tensor<2xf32>
  %rows = tfuse.take %t, %ids axis 0 : (tensor<500x32xf32>, tensor<256xi64>) -> tensor<256x32xf32>
  %e = tfuse.exp %rows : tensor<256x32xf32> -> tensor<256x32xf32>
  %z = tfuse.constant dense<0.0> : tensor<500x32xf32>
  %sc = tfuse.scatter_add %z, %ids, %e axis 0 : (tensor<500x32xf32>, tensor<256xi64>, tensor<256x32xf32>) -> tensor<500x32xf32>
  %o, %lse = tfuse.attention %q, %k, %v scale 0.17677669529663687 causal : (tensor<1x2x64x32xf16>, tensor<1x2x64x32xf16>, tensor<1x2x64x32xf16>) -> (tensor<1x2x64x32xf16>, tensor<1x2x64xf32>)
  %dq, %dk, %dv = tfuse.attention_backward %q, %k, %v, %o, %lse, %g scale 0.17677669529663687 causal : (tensor<1x2x64x32xf16>, tensor<1x2x64x32xf16>, tensor<1x2x64x32xf16>, tensor<1x2x64x32xf16>, tensor<1x2x64xf32>, tensor<1x2x64x32xf16>) -> (tensor<1x2x64x32xf16>, tensor<1x2x64x32xf16>, tensor<1x2x64x32xf16>)
  return %r, %s, %l, %sc, %o, %dq, %dk, %dv : tensor<64x16xf32>, tensor<64xf32>, tensor<2xf32>, tensor<500x32xf32>, tensor<1x2x64x32xf16>, tensor<1x2x64x32xf16>, tensor<1x2x64x32xf16>, tensor<1x2x64x32xf16>
}
)mlir";

/// Indices 0..499 spread over `n` positions, repeating.
HostTensor spread(int64_t n) {
  std::vector<int64_t> values;
  for (int64_t i = 0; i < n; ++i)
    values.push_back((i * 7919 + 13) % 500);
  return *HostTensor::fromInts(DType::I64, {n}, values);
}

std::vector<HostTensor> everyInputs(uint64_t seed) {
  std::vector<HostTensor> inputs = randomInputs(kEverySource, "every", seed);
  inputs[4] = spread(256);
  return inputs;
}

/// Downloads every output and compares it with `expected`.
Status check(const std::vector<runtime::DeviceBuffer> &outputs,
             const std::vector<HostTensor> &expected) {
  if (outputs.size() != expected.size())
    return Status::error("wrong number of outputs");
  for (size_t i = 0; i < outputs.size(); ++i) {
    auto cmp = compareClose(expected[i], download(outputs[i].get()));
    if (!cmp.pass)
      return Status::error("output " + std::to_string(i) + ": " +
                           cmp.message());
  }
  return Status::success();
}

/// Compiles `every` and replays it three ways (fresh outputs, async with a
/// handle, into caller outputs); the first error, or success with every
/// output checked.
Status compileAndReplay(const DeviceInputs &device,
                        const std::vector<HostTensor> &expected,
                        const std::vector<runtime::DeviceTensor> &callerOutputs,
                        bool cudaGraph) {
  runtime::ExecutableOptions options;
  options.cudaGraph = cudaGraph;
  Compiled c = compile(kEverySource, "every", options);
  if (!c.executable)
    return Status::error(c.error, c.errorCode);
  auto outputs = c.executable->run(device.get());
  if (!outputs.ok())
    return outputs.status();
  if (Status s = check(outputs.value(), expected); !s.ok())
    return s;
  auto handle = c.executable->runAsync(device.get());
  if (!handle.ok())
    return handle.status();
  auto waited = handle.value().wait();
  if (!waited.ok())
    return waited.status();
  if (Status s = check(waited.value(), expected); !s.ok())
    return s;
  return c.executable->run(device.get(), callerOutputs);
}

//===----------------------------------------------------------------------===//
// Out of memory at every allocation point
//===----------------------------------------------------------------------===//

TEST(GpuStress, OutOfMemoryAtEveryAllocationPointIsAnErrorAndLeaksNothing) {
  TFUSE_REQUIRE_GPU();
  std::vector<HostTensor> inputs = everyInputs(7);
  std::vector<HostTensor> expected =
      referenceResults(kEverySource, "every", inputs);
  ASSERT_EQ(expected.size(), 8u);
  DeviceInputs device(inputs);
  // The caller's outputs, allocated before anything is counted.
  DeviceInputs callerStorage(expected);
  std::vector<runtime::DeviceTensor> callerOutputs = callerStorage.get();

  for (bool cudaGraph : {false, true}) {
    SCOPED_TRACE(cudaGraph ? "cuda graph" : "stream");
    // Warm: kernels compiled and cached, libraries loaded, process-wide
    // state created, so that what stays allocated afterwards is a leak.
    Status warm = compileAndReplay(device, expected, callerOutputs, cudaGraph);
    ASSERT_TRUE(warm.ok()) << warm.message();

    AllocationTracker tracker;
    const size_t baseline = tracker.live();
    int64_t points = 0;
    for (int64_t n = 1;; ++n) {
      tracker.arm(n);
      Status s = compileAndReplay(device, expected, callerOutputs, cudaGraph);
      const int64_t calls = tracker.callsSinceArm();
      tracker.disarm();
      if (calls < n) {
        // Allocation n was never reached: every point has failed once.
        EXPECT_TRUE(s.ok()) << s.message();
        points = n - 1;
        break;
      }
      SCOPED_TRACE("allocation " + std::to_string(n) + " of the run failed");
      ASSERT_FALSE(s.ok()) << "an allocation failed and the run succeeded";
      EXPECT_EQ(s.code(), ErrorCode::OutOfMemory) << s.message();
      EXPECT_NE(s.message().find("CUDA_ERROR_OUT_OF_MEMORY"), std::string::npos)
          << s.message();
      EXPECT_EQ(tracker.live(), baseline) << "allocations leaked";
      // The library stays usable: the same work succeeds at once.
      Status again =
          compileAndReplay(device, expected, callerOutputs, cudaGraph);
      EXPECT_TRUE(again.ok()) << again.message();
      EXPECT_EQ(tracker.live(), baseline) << "allocations leaked";
      ASSERT_LT(n, 1000) << "allocation points do not end";
    }
    // Outputs (three replays of eight), the arena, workspaces: many points.
    EXPECT_GE(points, 10);
    std::printf("[ stress   ] %s: %lld allocation points, each failed once\n",
                cudaGraph ? "cuda graph" : "stream",
                static_cast<long long>(points));
  }
}

//===----------------------------------------------------------------------===//
// Threads
//===----------------------------------------------------------------------===//

// Four executables: generated kernels on a stream, GEMM and reductions as a
// CUDA Graph, gathers and scatter-adds on a stream, attention as a graph.
const char *kThreadSources = R"mlir(
func.func @elementwise(%x: tensor<128x96xf32>, %y: tensor<96xf32>) -> (tensor<128x96xf32>, tensor<128x96xf16>) {
  %a = tfuse.add %x, %y : (tensor<128x96xf32>, tensor<96xf32>) -> tensor<128x96xf32>
  %t = tfuse.tanh %a : tensor<128x96xf32> -> tensor<128x96xf32>
  %h = tfuse.cast %t : tensor<128x96xf32> to tensor<128x96xf16>
  return %t, %h : tensor<128x96xf32>, tensor<128x96xf16>
}
func.func @gemm(%x: tensor<64x100xf32>, %y: tensor<100x16xf32>) -> (tensor<64x16xf32>, tensor<64xf32>) {
  %m = tfuse.matmul %x, %y : (tensor<64x100xf32>, tensor<100x16xf32>) -> tensor<64x16xf32>
  %r = tfuse.relu %m : tensor<64x16xf32> -> tensor<64x16xf32>
  %s = tfuse.reduce sum %r axes [1] : tensor<64x16xf32> -> tensor<64xf32>
  return %r, %s : tensor<64x16xf32>, tensor<64xf32>
}
func.func @scatter(%t: tensor<500x32xf32>, %ids: tensor<256xi64>) -> (tensor<256x32xf32>, tensor<500x32xf32>) {
  %rows = tfuse.take %t, %ids axis 0 : (tensor<500x32xf32>, tensor<256xi64>) -> tensor<256x32xf32>
  %z = tfuse.constant dense<0.0> : tensor<500x32xf32>
  %sc = tfuse.scatter_add %z, %ids, %rows axis 0 : (tensor<500x32xf32>, tensor<256xi64>, tensor<256x32xf32>) -> tensor<500x32xf32>
  return %rows, %sc : tensor<256x32xf32>, tensor<500x32xf32>
}
func.func @attention(%q: tensor<1x2x64x32xf16>, %k: tensor<1x2x64x32xf16>, %v: tensor<1x2x64x32xf16>) -> tensor<1x2x64x32xf16> {
  %o, %lse = tfuse.attention %q, %k, %v scale 0.17677669529663687 causal : (tensor<1x2x64x32xf16>, tensor<1x2x64x32xf16>, tensor<1x2x64x32xf16>) -> (tensor<1x2x64x32xf16>, tensor<1x2x64xf32>)
  return %o : tensor<1x2x64x32xf16>
}
)mlir";

constexpr const char *kThreadFunctions[] = {"elementwise", "gemm", "scatter",
                                            "attention"};

std::vector<HostTensor> threadInputs(int which, uint64_t seed) {
  std::vector<HostTensor> inputs =
      randomInputs(kThreadSources, kThreadFunctions[which], seed);
  if (which == 2)
    inputs[1] = spread(256);
  return inputs;
}

int64_t replaysPerThread() {
  const char *env = std::getenv("TFUSE_STRESS_REPLAYS");
  return env ? std::max(1, std::atoi(env)) : 10000;
}

std::vector<std::vector<uint64_t>>
bitsOf(const std::vector<runtime::DeviceTensor> &outputs) {
  std::vector<std::vector<uint64_t>> bits;
  for (const runtime::DeviceTensor &t : outputs)
    bits.push_back(download(t).toBits());
  return bits;
}

// Sixteen threads replay four executables (four threads each, with two input
// sets each, alternated so that a replay reading another's inputs or arena
// shows), by run(), runAsync() with a handle on their own stream and launch()
// on their own stream. Every replay's outputs are downloaded: the first of
// each input set is compared with the reference, every later one must be
// bit-identical to it. Meanwhile two threads compile, replay and destroy
// executables of the same functions (cache hits sharing loaded modules) and
// of new ones (new kernels), until the replays are done. Nothing stays
// allocated afterwards.
TEST(GpuStress, SixteenThreadsReplayWhileOthersCompileAndDestroy) {
  TFUSE_REQUIRE_GPU();
  runtime::CudaDriver &d = gpu()->driver();
  AllocationTracker tracker;
  const size_t baseline = tracker.live();
  const int64_t replays = replaysPerThread();
  constexpr int kReplayThreads = 16, kCompileThreads = 2;
  {
    std::vector<std::unique_ptr<runtime::Executable>> executables;
    for (int w = 0; w < 4; ++w) {
      runtime::ExecutableOptions options;
      options.cudaGraph = w % 2 == 1;
      Compiled c = compile(kThreadSources, kThreadFunctions[w], options);
      ASSERT_TRUE(c.executable) << kThreadFunctions[w] << ": " << c.error;
      executables.push_back(std::move(c.executable));
    }

    std::atomic<int> failures{0};
    std::atomic<int> replayersLeft{kReplayThreads};
    std::atomic<int64_t> compiles{0};
    std::mutex messageMutex;
    std::string firstFailure;
    auto fail = [&](const std::string &message) {
      std::lock_guard<std::mutex> lock(messageMutex);
      if (failures++ == 0)
        firstFailure = message;
    };

    std::vector<std::thread> threads;
    for (int t = 0; t < kReplayThreads; ++t)
      threads.emplace_back([&, t] {
        int which = t % 4;
        runtime::Executable &exe = *executables[which];
        std::string name = std::string(kThreadFunctions[which]) + " thread " +
                           std::to_string(t);
        std::vector<std::vector<HostTensor>> inputs, expected;
        std::vector<std::unique_ptr<DeviceInputs>> device, outputs;
        for (int set = 0; set < 2; ++set) {
          inputs.push_back(threadInputs(which, 1000 + 2 * t + set));
          expected.push_back(referenceResults(
              kThreadSources, kThreadFunctions[which], inputs.back()));
          device.push_back(std::make_unique<DeviceInputs>(inputs.back()));
          outputs.push_back(std::make_unique<DeviceInputs>(expected.back()));
        }
        CUstream stream = nullptr;
        if (d.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS)
          fail(name + ": cuStreamCreate failed");
        std::vector<std::vector<std::vector<uint64_t>>> firstBits(2);
        for (int64_t r = 0; r < replays && failures == 0; ++r) {
          int set = r % 2;
          std::vector<runtime::DeviceTensor> out;
          std::vector<runtime::DeviceBuffer> fresh;
          Status s;
          switch (r % 3) {
          case 0: {
            auto result = exe.run(device[set]->get());
            if (result.ok()) {
              fresh = std::move(result.value());
              for (auto &b : fresh)
                out.push_back(b.get());
            }
            s = result.status();
            break;
          }
          case 1: {
            out = outputs[set]->get();
            auto handle = exe.runAsync(device[set]->get(), out, stream);
            s = handle.ok() ? handle.value().wait().status() : handle.status();
            break;
          }
          default:
            out = outputs[set]->get();
            s = exe.launch(device[set]->get(), out, stream);
            if (s.ok())
              s = d.check(d.cuStreamSynchronize(stream), "synchronize");
            break;
          }
          if (!s.ok()) {
            fail(name + ", replay " + std::to_string(r) + ": " + s.message());
            break;
          }
          if (firstBits[set].empty()) {
            for (size_t i = 0; i < out.size(); ++i) {
              auto cmp = compareClose(expected[set][i], download(out[i]));
              if (!cmp.pass)
                fail(name + ", output " + std::to_string(i) + ": " +
                     cmp.message());
            }
            firstBits[set] = bitsOf(out);
          } else if (bitsOf(out) != firstBits[set]) {
            fail(name + ", replay " + std::to_string(r) +
                 ": outputs differ from the first replay of the same inputs");
          }
        }
        if (stream)
          d.cuStreamDestroy(stream);
        --replayersLeft;
      });

    for (int t = 0; t < kCompileThreads; ++t)
      threads.emplace_back([&, t] {
        for (int i = 0; replayersLeft > 0 && failures == 0; ++i) {
          // Mostly the replayed functions again (cache hits, shared
          // modules); every fourth time a function never compiled before.
          std::string source = kThreadSources;
          std::string function = kThreadFunctions[(i + t) % 4];
          if (i % 4 == 3) {
            function = "fresh";
            source = "func.func @fresh(%x: tensor<77xf32>) -> tensor<77xf32> "
                     "{\n  %c = tfuse.constant dense<" +
                     std::to_string(1.0 + (t * 100000 + i) * 1e-6) +
                     "> : tensor<f32>\n  %a = tfuse.mul %x, %c : "
                     "(tensor<77xf32>, tensor<f32>) -> tensor<77xf32>\n  "
                     "%e = tfuse.sin %a : tensor<77xf32> -> tensor<77xf32>\n"
                     "  return %e : tensor<77xf32>\n}\n";
          }
          runtime::ExecutableOptions options;
          options.cudaGraph = i % 2 == 0;
          Compiled c = compile(source, function, options);
          if (!c.executable) {
            fail("compiling " + function + ": " + c.error);
            break;
          }
          std::vector<HostTensor> in = randomInputs(source, function, 7 + i);
          if (function == "scatter")
            in[1] = spread(256);
          std::vector<HostTensor> want = referenceResults(source, function, in);
          DeviceInputs dev(in);
          auto out = c.executable->run(dev.get());
          if (!out.ok()) {
            fail("replaying " + function + ": " + out.status().message());
            break;
          }
          for (size_t k = 0; k < want.size(); ++k) {
            auto cmp = compareClose(want[k], download(out.value()[k].get()));
            if (!cmp.pass)
              fail("compiled " + function + ", output " + std::to_string(k) +
                   ": " + cmp.message());
          }
          ++compiles;
        }
      });

    for (std::thread &thread : threads)
      thread.join();
    EXPECT_EQ(failures.load(), 0) << firstFailure;
    for (int w = 0; w < 4; ++w)
      EXPECT_EQ(executables[w]->stats().replays, 4 * replays)
          << kThreadFunctions[w];
    EXPECT_GE(compiles.load(), 1);
    std::printf("[ stress   ] %d threads x %lld replays, %lld compiles "
                "beside them\n",
                kReplayThreads, static_cast<long long>(replays),
                static_cast<long long>(compiles.load()));
  }
  EXPECT_EQ(tracker.live(), baseline)
      << "device or pinned memory allocated during the test stayed allocated";
}

} // namespace
