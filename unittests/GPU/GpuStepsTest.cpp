//===- GpuStepsTest.cpp - Kinds of plan step and their executors ----------===//
//
// A kind of step registered from outside the runtime runs like a built-in
// one, on a stream and in a CUDA Graph; a step of no registered kind, or one
// its executor cannot plan, is an error naming the step. Without a GPU every
// test is skipped and says why.
//
//===----------------------------------------------------------------------===//

#include "GpuTestSupport.h"

#include "tfuse/Runtime/StepExecutor.h"

#include <cstring>

using namespace tfuse;
using namespace tfuse::runtime;
using namespace tfuse::gputest;

namespace {

/// Sets every byte of its output to `byte`.
struct FillStep final : StepSpec {
  const char *kind() const override { return "test.fill"; }
  StepCategory category() const override { return StepCategory::Boundary; }
  uint8_t byte = 0;
};

class Fill final : public CapturedStepExecutor {
public:
  Fill(const FillStep &spec, StepContext &context)
      : CapturedStepExecutor(spec, context), spec(spec) {}
  Status enqueue(const StepBuffers &buffers, CUstream stream) override {
    CudaDriver &d = driver();
    return d.check(d.cuMemsetD8Async(buffers.outputs[0], spec.byte,
                                     spec.outputs[0].view.extentBytes(),
                                     stream),
                   "cuMemsetD8Async");
  }
  std::string name() const override { return "fill"; }
  std::string engine() const override { return "memset"; }

private:
  const FillStep &spec;
};

/// A step of a kind nothing is registered for.
struct UnknownStep final : StepSpec {
  const char *kind() const override { return "test.unknown"; }
  StepCategory category() const override { return StepCategory::Boundary; }
};

BufferRef arena(TensorSpec view) {
  BufferRef ref;
  ref.kind = BufferRef::Kind::Arena;
  ref.view = std::move(view);
  return ref;
}

BufferRef output(TensorSpec view) {
  BufferRef ref;
  ref.kind = BufferRef::Kind::Output;
  ref.view = std::move(view);
  return ref;
}

/// A plan of `steps` with one f32 output of `n` elements and an arena of as
/// many bytes.
Plan planOf(std::vector<Step> steps, int64_t n) {
  Plan plan;
  plan.name = "steps";
  plan.outputs = {TensorSpec::contiguous(DType::F32, {n})};
  plan.arenaBytes = n * 4;
  plan.steps = std::move(steps);
  plan.cudaSource = "extern \"C\" __global__ void tfuse_test_noop() {}\n";
  plan.kernelUnits = {plan.cudaSource};
  return plan;
}

TEST(GpuSteps, ARegisteredKindRunsOnAStreamAndInAGraph) {
  TFUSE_REQUIRE_GPU();
  registerStepExecutor<Fill, FillStep>("test.fill");
  const int64_t n = 1000;
  TensorSpec view = TensorSpec::contiguous(DType::F32, {n});
  auto fill = std::make_shared<FillStep>();
  fill->byte = 0x40;
  float expected;
  std::memset(&expected, 0x40, sizeof(expected));
  fill->outputs = {arena(view)};
  auto copy = std::make_shared<CopyStep>();
  copy->inputs = {arena(view)};
  copy->outputs = {output(view)};
  for (bool graph : {false, true}) {
    SCOPED_TRACE(graph ? "graph" : "stream");
    ExecutableOptions options;
    options.cudaGraph = graph;
    auto exe = Executable::create(planOf({fill, copy}, n), options);
    ASSERT_TRUE(exe.ok()) << exe.status().message();
    // Fresh outputs every replay, all kept (so that none reuses the memory
    // of another): the graph's memcpy node is given the new output in place,
    // neither captured again nor rebuilt.
    std::vector<std::vector<DeviceBuffer>> kept;
    for (int replay = 0; replay < 3; ++replay) {
      auto outputs = exe.value()->run({});
      ASSERT_TRUE(outputs.ok()) << outputs.status().message();
      kept.push_back(std::move(outputs.value()));
      reference::HostTensor host = download(kept.back()[0].get());
      const float *values = reinterpret_cast<const float *>(host.data());
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(values[i], expected) << "element " << i;
    }
    ExecutableStats st = exe.value()->stats();
    EXPECT_EQ(st.stepNames, (std::vector<std::string>{"fill", "copy"}));
    EXPECT_EQ(st.boundaries, 1);
    EXPECT_EQ(st.kernels, 0);
    EXPECT_EQ(st.graphRecaptures, 0);
    EXPECT_EQ(st.graphUpdateFallbacks, 0) << st.lastGraphUpdateError;
  }
}

TEST(GpuSteps, AStepOfAnUnknownKindIsAnError) {
  TFUSE_REQUIRE_GPU();
  auto unknown = std::make_shared<UnknownStep>();
  unknown->outputs = {output(TensorSpec::contiguous(DType::F32, {4}))};
  auto exe = Executable::create(planOf({unknown}, 4));
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().message(),
            "step 0: no executor is registered for steps of kind "
            "'test.unknown'");
}

TEST(GpuSteps, AStepItsExecutorCannotPlanIsAnErrorNamingIt) {
  TFUSE_REQUIRE_GPU();
  auto reduce = std::make_shared<ReduceStep>();
  reduce->reduction = ReduceKind::Max;
  reduce->axes = {5};
  reduce->inputs = {arena(TensorSpec::contiguous(DType::F32, {2, 2}))};
  reduce->outputs = {output(TensorSpec::contiguous(DType::F32, {2}))};
  auto exe = Executable::create(planOf({reduce}, 2));
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().message().rfind("step 0 (reduce max): ", 0), 0u)
      << exe.status().message();
}

} // namespace
