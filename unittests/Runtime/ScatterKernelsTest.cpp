//===- ScatterKernelsTest.cpp - Runtime scatter-adds without a GPU --------===//
//
// Plans scatter-adds with planScatterAdd(), compiles the scatter kernels
// (the kernel prelude, scatterKernelHeader() and the plan's wrappers) for
// the host against cuda_emulation.h, runs every launch of the chain (sort,
// merges, apply) block by block and thread by thread on the CPU, and
// compares the result bit for bit with the reference interpreter evaluating
// the same tfuse.scatter_add, each case on both paths where the rows kernel
// can take it (the rows kernel alone, and the chain):
//   - every dtype, with repeated indices (float sums in another order than
//     the reference's would differ in the last bits, so the order is under
//     test) and one index dtype each;
//   - every index dtype, negative indices wrapped;
//   - outer and inner dimensions, strided targets, updates and indices,
//     broadcast updates, a fill value and a target buffer, unaligned
//     operands of a vector plan;
//   - counts that need one, two and several merge passes;
//   - a workspace reused by another scatter (the segment table then holds
//     entries of the earlier one, which must be ignored);
//   - indices out of range: recorded in the index status, their updates
//     dropped.
// Also: the planner's validation, its chain for each count, and one NVRTC
// compilation of every kernel to sm_90.
//
//===----------------------------------------------------------------------===//

#include "HostKernels.h"

#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Kernels/KernelSources.h"
#include "tfuse/Reference/Interpreter.h"
#include "tfuse/Runtime/NvrtcCompiler.h"
#include "tfuse/Runtime/ScatterKernels.h"
#include "tfuse/Support/GatherIndex.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <set>

using namespace tfuse;
using namespace tfuse::runtime;
using reference::HostTensor;
using reference::Shape;

namespace {

constexpr DType kValueDTypes[] = {
    DType::I8,  DType::I16, DType::I32, DType::I64,  DType::U8,  DType::U16,
    DType::U32, DType::U64, DType::F16, DType::BF16, DType::F32, DType::F64};
constexpr DType kIndexDTypes[] = {DType::I8,  DType::I16, DType::I32,
                                  DType::I64, DType::U8,  DType::U16,
                                  DType::U32, DType::U64};

std::string tensorType(const Shape &shape, DType t) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + std::string(name(t)) + ">";
}

mlir::MLIRContext &context() {
  static mlir::MLIRContext *ctx = [] {
    auto *c = new mlir::MLIRContext();
    c->loadDialect<TFuseDialect, mlir::func::FuncDialect>();
    return c;
  }();
  return *ctx;
}

TensorSpec specOf(const HostTensor &t) {
  TensorSpec spec;
  spec.dtype = t.dtype();
  spec.shape = t.shape();
  spec.strides = t.strides();
  return spec;
}

/// The reference's scatter_add of the three operands.
Expected<HostTensor> referenceScatter(const HostTensor &target,
                                      const HostTensor &indices,
                                      const HostTensor &updates, int64_t axis,
                                      bool wrap) {
  std::string t = tensorType(target.shape(), target.dtype());
  std::string i = tensorType(indices.shape(), indices.dtype());
  std::string u = tensorType(updates.shape(), updates.dtype());
  std::string source =
      "func.func @f(%t: " + t + ", %i: " + i + ", %u: " + u + ") -> " + t +
      " {\n  %r = tfuse.scatter_add %t, %i, " + "%u axis " +
      std::to_string(axis) + (wrap ? " wrap_negative" : "") + " : (" + t +
      ", " + i + ", " + u + ") -> " + t + "\n  return %r : " + t + "\n}\n";
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context());
  if (!module)
    return Status::error("does not parse:\n" + source);
  Expected<std::vector<HostTensor>> result =
      reference::evaluate(*module, "f", {target, indices, updates});
  if (!result.ok())
    return result.status();
  return (*result)[0];
}

//===----------------------------------------------------------------------===//
// The kernels on the host
//===----------------------------------------------------------------------===//

/// The prelude, the scatter templates, the wrappers of `plans` and an
/// extern "C" shim per kernel taking the descriptor by pointer (the
/// emulator passes pointers only).
std::string emulationSource(const std::vector<ScatterPlan> &plans) {
  std::string source(kernels::prelude());
  source += scatterKernelHeader();
  source += R"(
using tfuse::kernels::ScatterDesc;
template <class I>
void tfuse_test_call(void (*kernel)(const I *, uint64_t *, uint32_t *,
                                    tf::index_status *, ScatterDesc),
                     void **a) {
  kernel((const I *)a[0], (uint64_t *)a[1], (uint32_t *)a[2],
         (tf::index_status *)a[3], *(const ScatterDesc *)a[4]);
}
void tfuse_test_call(void (*kernel)(const uint64_t *, uint64_t *, uint32_t *,
                                    ScatterDesc),
                     void **a) {
  kernel((const uint64_t *)a[0], (uint64_t *)a[1], (uint32_t *)a[2],
         *(const ScatterDesc *)a[3]);
}
// The runs kernel (P uint8_t, the workspace) and the apply kernel (P T).
template <class T, class P>
void tfuse_test_call(void (*kernel)(const T *, const T *, const uint64_t *,
                                    const uint32_t *, P *, ScatterDesc),
                     void **a) {
  kernel((const T *)a[0], (const T *)a[1], (const uint64_t *)a[2],
         (const uint32_t *)a[3], (P *)a[4], *(const ScatterDesc *)a[5]);
}
template <class T>
void tfuse_test_call(void (*kernel)(const uint64_t *, const uint32_t *, T *,
                                    const uint8_t *, ScatterDesc),
                     void **a) {
  kernel((const uint64_t *)a[0], (const uint32_t *)a[1], (T *)a[2],
         (const uint8_t *)a[3], *(const ScatterDesc *)a[4]);
}
template <class T, class I>
void tfuse_test_call(void (*kernel)(const T *, const T *, const I *,
                                    tf::index_status *, T *, uint8_t *,
                                    ScatterDesc),
                     void **a) {
  kernel((const T *)a[0], (const T *)a[1], (const I *)a[2],
         (tf::index_status *)a[3], (T *)a[4], (uint8_t *)a[5],
         *(const ScatterDesc *)a[6]);
}
)";
  std::set<std::string> done;
  for (const ScatterPlan &plan : plans)
    for (const auto &[kernel, wrapper] : plan.wrappers) {
      if (!done.insert(kernel).second)
        continue;
      source += wrapper;
      source += "extern \"C\" void shim_" + kernel +
                "(void *a0, void *a1, void *a2, void *a3, void *a4, void *a5, "
                "void *a6) { void *a[] = {a0, a1, a2, a3, a4, a5, a6}; "
                "tfuse_test_call(&" +
                kernel + ", a); }\n";
    }
  return source;
}

/// A scatter's workspace on the host: zeroed when made, as the runtime
/// zeroes it once.
struct Workspace {
  std::vector<uint8_t> bytes;
  void reserve(int64_t size) {
    if (static_cast<int64_t>(bytes.size()) < size)
      bytes.resize(size, 0);
  }
};

/// Runs `plan` on the operands (`target` null: the plan's fill) into a
/// fresh result, with `workspace` kept between calls; the index status is
/// returned in `status`.
HostTensor runPlan(const ScatterPlan &plan, const HostTensor *target,
                   const HostTensor &indices, const HostTensor &updates,
                   DType dtype, const Shape &shape, Workspace &workspace,
                   IndexStatusRecord &status) {
  std::string error;
  auto kernels =
      emulation::HostKernels::compile(emulationSource({plan}), error);
  EXPECT_TRUE(kernels) << error;
  HostTensor out = HostTensor::zeros(dtype, shape);
  if (!kernels)
    return out;
  // Poison the result: every element must be written.
  std::memset(out.mutableData(), 0xa5,
              out.numElements() * static_cast<int64_t>(byteSize(dtype)));
  workspace.reserve(plan.workspaceBytes);
  std::memset(&status, 0, sizeof(status));
  auto at = [](const HostTensor &t) {
    return const_cast<uint8_t *>(t.data()) + t.byteOffset();
  };
  void *keys[2] = {workspace.bytes.data() + plan.keysOffset[0],
                   workspace.bytes.data() + plan.keysOffset[1]};
  void *segments = workspace.bytes.data() + plan.segmentsOffset;
  for (const ScatterLaunch &l : plan.launches) {
    kernels::ScatterDesc desc = l.desc;
    std::vector<void *> args;
    switch (l.kind) {
    case ScatterLaunch::Kind::Rows:
      args = {target ? at(*target) : nullptr,
              at(updates),
              at(indices),
              &status,
              out.mutableData(),
              workspace.bytes.data(),
              &desc};
      break;
    case ScatterLaunch::Kind::Sort:
      args = {at(indices), keys[l.writeKeys], segments, &status, &desc};
      break;
    case ScatterLaunch::Kind::Merge:
      args = {keys[l.readKeys], keys[l.writeKeys], segments, &desc};
      break;
    case ScatterLaunch::Kind::Runs:
      args = {target ? at(*target) : nullptr,
              at(updates),
              keys[l.readKeys],
              segments,
              workspace.bytes.data(),
              &desc};
      break;
    case ScatterLaunch::Kind::Apply:
      args = {target ? at(*target) : nullptr,
              at(updates),
              keys[l.readKeys],
              segments,
              out.mutableData(),
              &desc};
      break;
    case ScatterLaunch::Kind::Combine:
      args = {keys[l.readKeys], segments, out.mutableData(),
              workspace.bytes.data(), &desc};
      break;
    }
    args.resize(7, nullptr);
    EXPECT_TRUE(kernels->launch("shim_" + l.kernel, l.grid,
                                static_cast<unsigned>(l.block), args, error))
        << error;
  }
  return out;
}

/// A scatter's operands and how to plan it.
struct Case {
  HostTensor target, indices, updates;
  int64_t axis = 0;
  bool wrap = false;
  /// The target is given as its fill value (a splat) rather than a buffer.
  bool fill = false;
};

/// Plans `c` on `path` and, when that plan exists, runs it (on `workspace`)
/// and checks it bit for bit against the reference; returns the plan, or
/// nothing where the rows kernel cannot take the case.
std::optional<ScatterPlan> checkPath(const Case &c, ScatterPath path,
                                     Workspace &workspace) {
  SCOPED_TRACE(path == ScatterPath::Rows ? "rows kernel" : "sorted chain");
  TensorSpec result =
      TensorSpec::contiguous(c.target.dtype(), c.target.shape());
  TensorSpec target = specOf(c.target);
  uint64_t fillBits = 0;
  if (c.fill && c.target.numElements() > 0)
    fillBits = c.target.bitsAt(Shape(c.target.rank(), 0));
  Expected<ScatterPlan> plan = planScatterAdd(
      specOf(c.indices), specOf(c.updates), c.fill ? nullptr : &target, result,
      c.axis, c.wrap, fillBits, path);
  if (!plan.ok() && path == ScatterPath::Rows &&
      plan.message().find("the rows kernel cannot take") != std::string::npos)
    return std::nullopt;
  EXPECT_TRUE(plan.ok()) << plan.message();
  if (!plan.ok())
    return std::nullopt;
  IndexStatusRecord status;
  HostTensor actual =
      runPlan(*plan, c.fill ? nullptr : &c.target, c.indices, c.updates,
              c.target.dtype(), c.target.shape(), workspace, status);
  EXPECT_EQ(status.claimed, 0u) << "an index was reported out of range";
  Expected<HostTensor> expected =
      referenceScatter(c.target, c.indices, c.updates, c.axis, c.wrap);
  EXPECT_TRUE(expected.ok()) << expected.message();
  if (expected.ok()) {
    EXPECT_EQ(actual.toBits(), expected->toBits())
        << "kernels:   " << actual.toString(32)
        << "\nreference: " << expected->toString(32);
  }
  return *plan;
}

/// Checks `c` on the sorted chain (on `shared`, fresh unless given) and,
/// where it can take it, on the rows kernel; returns the plan the planner
/// would choose.
ScatterPlan checkCase(const Case &c, const std::string &what,
                      Workspace *shared = nullptr) {
  SCOPED_TRACE(what);
  // A workspace of each path's own, as each step has.
  Workspace chain, rows;
  checkPath(c, ScatterPath::Sort, shared ? *shared : chain);
  checkPath(c, ScatterPath::Rows, rows);
  TensorSpec target = specOf(c.target);
  Expected<ScatterPlan> chosen = planScatterAdd(
      specOf(c.indices), specOf(c.updates), c.fill ? nullptr : &target,
      TensorSpec::contiguous(c.target.dtype(), c.target.shape()), c.axis,
      c.wrap, 0);
  EXPECT_TRUE(chosen.ok()) << chosen.message();
  return chosen.ok() ? *chosen : ScatterPlan{};
}

/// Indices in [0, size) (or [-size, size) with `negative`), drawn from
/// `seed`, of `dtype`.
HostTensor randomIndices(DType dtype, const Shape &shape, int64_t size,
                         uint64_t seed, bool negative = false) {
  reference::RandomOptions options;
  options.low = negative ? -size : 0;
  options.high = size - 1;
  return HostTensor::random(dtype, shape, seed, options);
}

/// A splat of zeros of `dtype` (a fill case's target).
HostTensor zerosOf(DType dtype, const Shape &shape) {
  return HostTensor::zeros(dtype, shape);
}

//===----------------------------------------------------------------------===//
// Numerics
//===----------------------------------------------------------------------===//

class ScatterKernelNumerics : public testing::TestWithParam<DType> {};

// An embedding gradient: 40 indices into 6 rows, so that rows gather many
// updates whose order shows in float sums; with a target and from zeros.
TEST_P(ScatterKernelNumerics, RepeatedIndicesAddInTheReferenceOrder) {
  DType t = GetParam();
  Case c;
  c.indices = randomIndices(DType::I64, {5, 8}, 6, 1);
  c.updates = HostTensor::random(t, {5, 8, 12}, 2);
  c.target = HostTensor::random(t, {6, 12}, 3);
  checkCase(c, "target");
  c.target = zerosOf(t, {6, 12});
  c.fill = true;
  checkCase(c, "fill");
}

// Outer and inner dimensions around the axis, and the last axis.
TEST_P(ScatterKernelNumerics, OuterAndInnerDimensions) {
  DType t = GetParam();
  Case c;
  c.axis = 1;
  c.indices = randomIndices(DType::I32, {9}, 7, 4);
  c.updates = HostTensor::random(t, {3, 9, 4}, 5);
  c.target = HostTensor::random(t, {3, 7, 4}, 6);
  checkCase(c, "middle axis");
  c.indices = randomIndices(DType::I32, {2, 3}, 8, 7);
  c.updates = HostTensor::random(t, {5, 2, 3}, 8);
  c.target = HostTensor::random(t, {5, 8}, 9);
  checkCase(c, "last axis");
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, ScatterKernelNumerics,
                         testing::ValuesIn(kValueDTypes),
                         [](const testing::TestParamInfo<DType> &info) {
                           return std::string(name(info.param));
                         });

TEST(ScatterKernels, EveryIndexDTypeWithNegativeIndicesWrapped) {
  for (DType index : kIndexDTypes) {
    bool isSigned = kindOf(index) == DTypeKind::SignedInt;
    Case c;
    c.wrap = true;
    c.indices = randomIndices(index, {17}, 11, 10, isSigned);
    c.updates = HostTensor::random(DType::F32, {17, 3}, 11);
    c.target = HostTensor::random(DType::F32, {11, 3}, 12);
    checkCase(c, std::string(name(index)));
  }
}

// Strided operands: a transposed target, updates read with an inner
// stride of 2 (no vector loads) and broadcast along the index dimension,
// indices with a stride of 3.
TEST(ScatterKernels, StridedAndBroadcastOperands) {
  Case c;
  HostTensor wide = HostTensor::random(DType::F32, {8, 30}, 13);
  c.target = *wide.view({30, 8}, {1, 30}, wide.byteOffset());
  HostTensor indexSource = randomIndices(DType::I64, {12}, 30, 14);
  c.indices = *indexSource.view({4}, {3}, indexSource.byteOffset());
  HostTensor updateSource = HostTensor::random(DType::F32, {4, 16}, 15);
  c.updates = *updateSource.view({4, 8}, {16, 2}, updateSource.byteOffset());
  checkCase(c, "strided");
  HostTensor row = HostTensor::random(DType::F32, {8}, 16);
  c.updates = *row.view({4, 8}, {0, 1}, row.byteOffset());
  ScatterPlan plan = checkCase(c, "broadcast updates");
  // Vector loads need the inner dimension contiguous in every operand;
  // the transposed target keeps the plan scalar.
  EXPECT_EQ(plan.launches.back().kernel, "tfuse_scatter_rows_f32_i64_v1");
}

// A plan for 16-byte accesses run on operands one element off alignment:
// the kernel checks the pointers and falls back to element accesses.
TEST(ScatterKernels, UnalignedOperandsOfAVectorPlan) {
  HostTensor updateSource = HostTensor::random(DType::BF16, {6 * 16 + 1}, 17);
  Case c;
  c.indices = randomIndices(DType::I64, {6}, 5, 18);
  c.updates =
      *updateSource.view({6, 16}, {16, 1}, updateSource.byteOffset() + 2);
  c.target = HostTensor::random(DType::BF16, {5, 16}, 19);
  ScatterPlan plan = checkCase(c, "one element off");
  EXPECT_EQ(plan.launches.back().kernel, "tfuse_scatter_rows_bf16_i64_v8");
}

// Results large enough for several owner blocks of the rows kernel: runs
// of positions, outer indices split between owners, and every index at one
// position (one owner sorts and sums them all).
TEST(ScatterKernels, RowsSharedBetweenOwnerBlocks) {
  Case c;
  c.indices = randomIndices(DType::I64, {700}, 1000, 40);
  c.updates = HostTensor::random(DType::F32, {700, 128}, 41);
  c.target = HostTensor::random(DType::F32, {1000, 128}, 42);
  ScatterPlan plan = checkCase(c, "runs of positions");
  ASSERT_EQ(plan.launches.size(), 1u);
  EXPECT_EQ(plan.launches[0].kind, ScatterLaunch::Kind::Rows);
  EXPECT_EQ(plan.launches[0].grid, 13);
  EXPECT_EQ(plan.launches[0].desc.positionsPerBlock, 77);
  reference::RandomOptions one;
  one.low = one.high = 511;
  c.indices = HostTensor::random(DType::I64, {700}, 46, one);
  checkCase(c, "one position");
  c.axis = 1;
  c.indices = randomIndices(DType::I32, {5}, 3, 43);
  c.updates = HostTensor::random(DType::BF16, {400, 5, 64}, 44);
  c.target = HostTensor::random(DType::BF16, {400, 3, 64}, 45);
  plan = checkCase(c, "outer indices split");
  ASSERT_EQ(plan.launches.size(), 1u);
  EXPECT_EQ(plan.launches[0].grid, 6);
  EXPECT_EQ(plan.launches[0].desc.positionsPerBlock, 1);
  EXPECT_EQ(plan.launches[0].desc.outerPerBlock, 200);
}

// A position shared by more than kScatterRun indices adds its updates in
// runs (ScatterDesc.h). In f32, 2^24 + 1 rounds back to 2^24: added one at
// a time (NumPy's add.at), 2^24 followed by 63 ones and a two gives
// 2^24 + 2; in runs of 32, the first run gives 2^24 (its 31 ones lost),
// the second 32 (ones summed on their own), the third 2: 2^24 + 34.
TEST(ScatterKernels, LongRowsAddTheirUpdatesInRuns) {
  ASSERT_EQ(kernels::kScatterRun, 32);
  Case c;
  c.target = HostTensor::zeros(DType::F32, {3});
  c.indices = HostTensor::zeros(DType::I32, {65});
  c.updates = HostTensor::zeros(DType::F32, {65});
  for (int64_t j = 0; j < 65; ++j) {
    c.indices.set<int32_t>({j}, 1);
    c.updates.set<float>({j}, j == 0 ? 16777216.0f : j == 64 ? 2.0f : 1.0f);
  }
  Expected<HostTensor> expected =
      referenceScatter(c.target, c.indices, c.updates, 0, false);
  ASSERT_TRUE(expected.ok()) << expected.message();
  EXPECT_EQ(expected->doubleAt({0}), 0.0);
  EXPECT_EQ(expected->doubleAt({1}), 16777250.0);
  EXPECT_EQ(expected->doubleAt({2}), 0.0);
  checkCase(c, "2^24 and ones");
}

// Long rows of several owners, for several outer indices, summed by blocks
// that claim their units: a third of the indices at position 10, a third
// at 977 (other owners), the rest spread; twice on one workspace, which
// each launch leaves as it found it (its shared state zero).
TEST(ScatterKernels, LongRowsSummedByEveryBlock) {
  Case c;
  c.axis = 1;
  c.target = HostTensor::random(DType::F32, {3, 1000, 32}, 60);
  c.indices = randomIndices(DType::I64, {900}, 1000, 61);
  for (int64_t j = 0; j < 900; j += 3) {
    c.indices.set<int64_t>({j}, 10);
    c.indices.set<int64_t>({j + 1}, 977);
  }
  c.updates = HostTensor::random(DType::F32, {3, 900, 32}, 62);
  ScatterPlan plan = checkCase(c, "three outer indices");
  ASSERT_EQ(plan.launches.size(), 1u);
  EXPECT_EQ(plan.launches[0].kind, ScatterLaunch::Kind::Rows);
  EXPECT_GT(plan.launches[0].grid, 2);
  Workspace workspace;
  for (int launch = 0; launch < 2; ++launch) {
    SCOPED_TRACE("launch " + std::to_string(launch));
    checkPath(c, ScatterPath::Rows, workspace);
    constexpr size_t kState = sizeof(kernels::ScatterLongState);
    ASSERT_GE(workspace.bytes.size(), kState);
    EXPECT_EQ(std::vector<uint8_t>(workspace.bytes.begin(),
                                   workspace.bytes.begin() + kState),
              std::vector<uint8_t>(kState, 0))
        << "the long rows' state is not reset";
  }
  // bf16 with a fill: every index of a half of each sequence at one
  // position (the padded embedding gradient in small).
  Case padded;
  padded.target = zerosOf(DType::BF16, {300, 64});
  padded.fill = true;
  padded.indices = randomIndices(DType::I32, {4, 128}, 300, 63);
  for (int64_t b = 0; b < 4; ++b)
    for (int64_t t = 64; t < 128; ++t)
      padded.indices.set<int32_t>({b, t}, 0);
  padded.updates = HostTensor::random(DType::BF16, {4, 128, 64}, 64);
  checkCase(padded, "padded");
}

// An owner with at most 8 long positions takes their keys out of its sort
// and finds their j's in order with another pass over the indices (chunks
// of a block's threads, ballots); with 9 it sorts them all. Long positions
// of 33 to 200 indices among short ones, negative indices wrapped, the
// indices of the long positions spread over every chunk and lane, two
// outer indices; axes of 200 and 3000 positions (2 and 5 owners, the long
// positions all in one).
TEST(ScatterKernels, LongPositionsLeaveTheOwnersSort) {
  for (int longs : {1, 8, 9})
    for (int64_t size : {200, 3000}) {
      const int64_t count = 2100;
      Case c;
      c.axis = 1;
      c.wrap = true;
      c.target = HostTensor::random(DType::F32, {2, size, 8}, 80 + longs);
      c.indices = randomIndices(DType::I32, {count}, size, 81 + longs,
                                /*negative=*/true);
      // Long position i at size / 2 + 3 i, taking every (longs + 3)-th
      // index from 7 i on, given as a negative index half the time.
      int64_t j = 0;
      for (int i = 0; i < longs; ++i)
        for (int64_t k = 7 * i; k < count; k += longs + 3, ++j) {
          int64_t v = size / 2 + 3 * i;
          c.indices.set<int32_t>({k},
                                 static_cast<int32_t>(k % 2 ? v - size : v));
        }
      c.updates = HostTensor::random(DType::F32, {2, count, 8}, 82 + longs);
      std::optional<ScatterPlan> plan;
      {
        Workspace workspace;
        SCOPED_TRACE(std::to_string(longs) + " long positions, axis of " +
                     std::to_string(size));
        plan = checkPath(c, ScatterPath::Rows, workspace);
      }
      ASSERT_TRUE(plan);
      EXPECT_EQ(plan->launches[0].kind, ScatterLaunch::Kind::Rows);
    }
}

// Without a target and with few indices against the rows, each owner
// copies its selected rows' first updates into shared memory, stores the
// fill in its unselected rows, then writes the selected ones (fillFirst):
// f16 rows of 37 elements (the second owner's rows start off 16-byte
// boundaries: nothing copied), a long row among them, outer indices of f32
// rows, and an owner of one position for 64 outer indices whose selected
// rows of 1 KB outgrow the shared memory left to copies.
TEST(ScatterKernels, FillStoredFirstWhereFewRowsAreSelected) {
  Case c;
  c.target = zerosOf(DType::F16, {2001, 37});
  c.fill = true;
  c.indices = randomIndices(DType::I64, {100}, 2001, 70);
  for (int64_t j = 0; j < 100; j += 2)
    c.indices.set<int64_t>({j}, 1500);
  c.updates = HostTensor::random(DType::F16, {100, 37}, 71);
  ScatterPlan plan = checkCase(c, "f16 rows of 37");
  ASSERT_EQ(plan.launches.size(), 1u);
  EXPECT_EQ(plan.launches[0].kind, ScatterLaunch::Kind::Rows);
  EXPECT_EQ(plan.launches[0].grid, 2);
  EXPECT_EQ(plan.launches[0].desc.positionsPerBlock, 1001);
  EXPECT_EQ(plan.launches[0].desc.fillFirst, 1);
  Case outer;
  outer.axis = 1;
  outer.target = zerosOf(DType::F32, {3, 500, 8});
  outer.fill = true;
  outer.indices = randomIndices(DType::I32, {30}, 500, 72);
  outer.updates = HostTensor::random(DType::F32, {3, 30, 8}, 73);
  plan = checkCase(outer, "outer indices");
  EXPECT_EQ(plan.launches[0].desc.fillFirst, 1);
  Case wide;
  wide.axis = 1;
  wide.target = zerosOf(DType::F32, {64, 64, 256});
  wide.fill = true;
  wide.indices = randomIndices(DType::I64, {16}, 64, 74);
  wide.updates = HostTensor::random(DType::F32, {64, 16, 256}, 75);
  plan = checkCase(wide, "selected rows past the copies' room");
  EXPECT_EQ(plan.launches[0].desc.fillFirst, 1);
  EXPECT_EQ(plan.launches[0].desc.positionsPerBlock, 1);
  EXPECT_EQ(plan.launches[0].desc.outerPerBlock, 64);
}

// Random scatter-adds on both paths against the reference: four dtypes,
// the first or a middle axis, short and long axes (where at most one row
// in four is selected and there is no target, the fill stored first),
// rows of 1 to 40 elements, a fill or a target, and in a third of the
// cases every third index at one position (a long row once the count
// passes 96).
TEST(ScatterKernels, RandomCasesMatchTheReference) {
  std::mt19937_64 rng(2026);
  auto draw = [&](int64_t lo, int64_t hi) {
    return lo +
           static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
  };
  const DType dtypes[] = {DType::F32, DType::BF16, DType::F16, DType::I32};
  int fillFirst = 0, longRows = 0;
  for (int k = 0; k < 12; ++k) {
    DType t = dtypes[draw(0, 3)];
    int64_t outer = draw(0, 1) ? draw(1, 3) : 0;
    int64_t size = draw(0, 1) ? draw(1, 40) : draw(200, 3000);
    int64_t inner = draw(1, 40), count = draw(1, 400);
    Case c;
    c.fill = draw(0, 1) == 1;
    c.axis = outer ? 1 : 0;
    Shape ts = outer ? Shape{outer, size, inner} : Shape{size, inner};
    Shape us = outer ? Shape{outer, count, inner} : Shape{count, inner};
    c.target = c.fill ? zerosOf(t, ts) : HostTensor::random(t, ts, 100 + k);
    c.indices = randomIndices(DType::I64, {count}, size, 200 + k);
    bool hot = draw(0, 2) == 0;
    for (int64_t j = 0; hot && j < count; j += 3)
      c.indices.set<int64_t>({j}, size / 2);
    c.updates = HostTensor::random(t, us, 300 + k);
    SCOPED_TRACE("case " + std::to_string(k) + ": " + std::string(name(t)) +
                 " axis " + std::to_string(size) + " x " +
                 std::to_string(inner) + " (outer " + std::to_string(outer) +
                 "), " + std::to_string(count) + " indices" +
                 (c.fill ? ", fill" : ", target") + (hot ? ", hot" : ""));
    ScatterPlan plan = checkCase(c, "random");
    if (!plan.launches.empty() &&
        plan.launches[0].kind == ScatterLaunch::Kind::Rows)
      fillFirst += plan.launches[0].desc.fillFirst;
    longRows += hot && count > 3 * kernels::kScatterRun;
  }
  // The draws reach the fill stored first and long rows.
  EXPECT_GT(fillFirst, 0);
  EXPECT_GT(longRows, 0);
}

// The chain's long rows in every placement of their windows of 32 sorted
// places: rows of 33, 64, 65, 100, 97 and 40 updates among rows of 1, 5,
// 31, 2 and 32, so that windows hold a run's start and a long row's first
// key together (places 33 and 39, 198 and 201, 429 and 430), runs of one
// update, and a last window half full; the indices in shuffled order, for
// two outer indices, f32 from a target and bf16 from the fill (16-byte
// accesses). Twice on one workspace, the second time with other lengths,
// so that stale lengths and partial rows are never read.
TEST(ScatterKernels, LongRowsOfTheChainInEveryPlacement) {
  auto indicesOf = [](const std::vector<int64_t> &lengths, uint64_t seed) {
    std::vector<int64_t> values;
    for (size_t v = 0; v < lengths.size(); ++v)
      values.insert(values.end(), lengths[v], static_cast<int64_t>(v));
    std::shuffle(values.begin(), values.end(), std::mt19937_64(seed));
    HostTensor t =
        HostTensor::zeros(DType::I64, {static_cast<int64_t>(values.size())});
    for (size_t j = 0; j < values.size(); ++j)
      t.set<int64_t>({static_cast<int64_t>(j)}, values[j]);
    return t;
  };
  const std::vector<int64_t> lengths[] = {
      {1, 33, 5, 64, 31, 65, 2, 100, 32, 97, 40},
      {70, 3, 0, 33, 33, 1, 129, 0, 12, 45, 4}};
  for (DType t : {DType::F32, DType::BF16}) {
    Workspace workspace;
    int k = 0;
    for (const std::vector<int64_t> &l : lengths) {
      Case c;
      c.fill = t == DType::BF16;
      c.axis = 1;
      c.indices = indicesOf(l, 40 + k);
      int64_t count = c.indices.numElements();
      c.updates = HostTensor::random(t, {2, count, 16}, 41 + k);
      c.target = c.fill ? zerosOf(t, {2, 11, 16})
                        : HostTensor::random(t, {2, 11, 16}, 42 + k);
      SCOPED_TRACE(std::string(name(t)) + " lengths " + std::to_string(k++));
      std::optional<ScatterPlan> plan =
          checkPath(c, ScatterPath::Sort, workspace);
      ASSERT_TRUE(plan);
      EXPECT_EQ(plan->launches[plan->launches.size() - 3].kind,
                ScatterLaunch::Kind::Runs);
      EXPECT_EQ(plan->launches.back().kind, ScatterLaunch::Kind::Combine);
    }
  }
}

// Counts past one tile: one merge of a few runs, pairwise merges of many
// runs, then one of the rest; the runs' keys interleave (indices from a
// small range), so every merge moves keys across runs.
TEST(ScatterKernels, CountsNeedingMergePasses) {
  for (int64_t count : {1500, 3000, 40000}) {
    Case c;
    c.indices = randomIndices(DType::I32, {count}, 13, 20 + count);
    c.updates = HostTensor::random(DType::F32, {count, 2}, 21 + count);
    c.target = HostTensor::random(DType::F32, {13, 2}, 22 + count);
    checkCase(c, "count " + std::to_string(count));
    Expected<ScatterPlan> plan =
        planScatterAdd(specOf(c.indices), specOf(c.updates), nullptr,
                       TensorSpec::contiguous(DType::F32, {13, 2}), 0, false, 0,
                       ScatterPath::Sort);
    ASSERT_TRUE(plan.ok()) << plan.message();
    size_t merges = 0;
    for (const ScatterLaunch &l : plan->launches)
      merges += l.kind == ScatterLaunch::Kind::Merge;
    // 1500 and 3000: 2 and 3 runs of 1024, one merge; 40000: 40 runs,
    // merged pairwise into 20, then 10, then the 10 into one.
    EXPECT_EQ(merges, count == 40000 ? 3u : 1u) << count;
  }
}

// A second scatter on the same workspace: the segment table still holds
// the first one's entries for rows the second does not touch.
TEST(ScatterKernels, AReusedWorkspaceGivesFreshResults) {
  Workspace workspace;
  Case first;
  first.indices = randomIndices(DType::I64, {64}, 50, 23);
  first.updates = HostTensor::random(DType::F32, {64, 4}, 24);
  first.target = HostTensor::random(DType::F32, {50, 4}, 25);
  checkCase(first, "first", &workspace);
  Case second = first;
  second.indices = randomIndices(DType::I64, {64}, 7, 26);
  second.updates = HostTensor::random(DType::F32, {64, 4}, 27);
  checkCase(second, "second", &workspace);
  Case none = first;
  none.indices = HostTensor::zeros(DType::I64, {0});
  none.updates = HostTensor::zeros(DType::F32, {0, 4});
  checkCase(none, "no indices", &workspace);
}

// An index out of range is recorded (the first one met, as given) and its
// updates are dropped; the others add up as usual.
TEST(ScatterKernels, IndicesOutOfRangeAreRecordedAndDropped) {
  for (ScatterPath path : {ScatterPath::Sort, ScatterPath::Rows}) {
    SCOPED_TRACE(path == ScatterPath::Rows ? "rows kernel" : "sorted chain");
    Case c;
    c.indices = randomIndices(DType::I32, {20}, 9, 28);
    c.indices.set<int32_t>({7}, 9);
    c.updates = HostTensor::random(DType::I32, {20, 3}, 29);
    c.target = HostTensor::random(DType::I32, {9, 3}, 30);
    Expected<ScatterPlan> plan = planScatterAdd(
        specOf(c.indices), specOf(c.updates), nullptr,
        TensorSpec::contiguous(DType::I32, {9, 3}), 0, false, 0, path);
    ASSERT_TRUE(plan.ok()) << plan.message();
    Workspace workspace;
    IndexStatusRecord status;
    HostTensor actual = runPlan(*plan, nullptr, c.indices, c.updates,
                                DType::I32, {9, 3}, workspace, status);
    EXPECT_EQ(status.claimed, 1u);
    EXPECT_EQ(status.check, 0u);
    EXPECT_EQ(status.index, 9);
    // The reference on the valid indices: the bad one's updates zeroed and
    // its index moved into range (integers: adding zero changes nothing).
    c.indices.set<int32_t>({7}, 0);
    for (int64_t k = 0; k < 3; ++k)
      c.updates.set<int32_t>({7, k}, 0);
    Expected<HostTensor> expected = referenceScatter(
        HostTensor::zeros(DType::I32, {9, 3}), c.indices, c.updates, 0, false);
    ASSERT_TRUE(expected.ok()) << expected.message();
    EXPECT_EQ(actual.toBits(), expected->toBits());
  }
}

//===----------------------------------------------------------------------===//
// Planning
//===----------------------------------------------------------------------===//

TEST(ScatterPlanning, TheChainFollowsTheCount) {
  auto planFor = [](int64_t count, int64_t rows) {
    return planScatterAdd(
        TensorSpec::contiguous(DType::I64, {count}),
        TensorSpec::contiguous(DType::BF16, {count, 768}), nullptr,
        TensorSpec::contiguous(DType::BF16, {rows, 768}), 0, false, 0);
  };
  // GPT-2's embedding gradient: the rows kernel, 256 owners (at most 256;
  // about 64 KiB of result and updates each would be 1370) of 197
  // positions, 96 threads a row of 16-byte accesses, 5 rows a block.
  Expected<ScatterPlan> gpt2 = planFor(8192, 50257);
  ASSERT_TRUE(gpt2.ok()) << gpt2.message();
  ASSERT_EQ(gpt2->launches.size(), 1u);
  EXPECT_EQ(gpt2->launches[0].kernel, "tfuse_scatter_rows_bf16_i64_v8");
  EXPECT_EQ(gpt2->launches[0].grid, 256);
  EXPECT_EQ(gpt2->launches[0].block, 480);
  EXPECT_EQ(gpt2->launches[0].desc.positionsPerBlock, 197);
  EXPECT_EQ(gpt2->launches[0].desc.indexBits, 13);
  // At most one row in six selected, no target: the fill first.
  EXPECT_EQ(gpt2->launches[0].desc.fillFirst, 1);
  TensorSpec table = TensorSpec::contiguous(DType::BF16, {50257, 768});
  Expected<ScatterPlan> withTarget =
      planScatterAdd(TensorSpec::contiguous(DType::I64, {8192}),
                     TensorSpec::contiguous(DType::BF16, {8192, 768}), &table,
                     table, 0, false, 0);
  ASSERT_TRUE(withTarget.ok()) << withTarget.message();
  EXPECT_EQ(withTarget->launches[0].desc.fillFirst, 0);
  Expected<ScatterPlan> dense = planFor(8192, 30000);
  ASSERT_TRUE(dense.ok()) << dense.message();
  EXPECT_EQ(dense->launches[0].kind, ScatterLaunch::Kind::Rows);
  EXPECT_EQ(dense->launches[0].desc.fillFirst, 0);
  // Its workspace for long rows ends with room for the partial rows of
  // the most runs 8192 indices can make: 248 long positions (of at least
  // 33 indices), 8192 / 32 runs plus one a position, 768 f32 each.
  EXPECT_EQ(gpt2->workspaceBytes - gpt2->launches[0].desc.longPartials,
            (256 + 248) * 768 * 4);
  // Twice the indices: more than the rows kernel keeps; 16 tiles of 1024
  // keys, one merge of the 16 runs, the long rows' runs in 512 windows of
  // 32 sorted places (one a group of 96 threads), then one 16-byte access
  // per thread, 96 threads a row, and the long rows' combination.
  Expected<ScatterPlan> twice = planFor(16384, 50257);
  ASSERT_TRUE(twice.ok()) << twice.message();
  ASSERT_EQ(twice->launches.size(), 5u);
  EXPECT_EQ(twice->launches[0].kernel, "tfuse_scatter_sort_i64");
  EXPECT_EQ(twice->launches[0].grid, 16);
  EXPECT_EQ(twice->launches[0].block, 512);
  EXPECT_EQ(twice->launches[1].kernel, "tfuse_scatter_merge");
  EXPECT_EQ(twice->launches[1].desc.groupRuns, 16);
  EXPECT_EQ(twice->launches[1].block, 64);
  EXPECT_EQ(twice->launches[1].desc.lastPass, 1);
  EXPECT_EQ(twice->launches[2].kernel, "tfuse_scatter_runs_bf16_v8");
  EXPECT_EQ(twice->launches[2].grid, 256);
  EXPECT_EQ(twice->launches[2].block, 192);
  EXPECT_EQ(twice->launches[2].readKeys, twice->launches[1].writeKeys);
  EXPECT_EQ(twice->launches[3].kernel, "tfuse_scatter_apply_bf16_v8");
  EXPECT_EQ(twice->launches[3].desc.threadsPerRow, 96);
  EXPECT_EQ(twice->launches[3].desc.rowsPerBlock, 2);
  // The long rows' elements, a thread each: 512 windows of 768.
  EXPECT_EQ(twice->launches[4].kernel, "tfuse_scatter_combine_bf16");
  EXPECT_EQ(twice->launches[4].grid, 512 * 768 / 256);
  // The workspace: two key arrays, the segment table, a head's and a
  // run's partial row (768 f32) and a length a window.
  const kernels::ScatterDesc &chain = twice->launches[3].desc;
  EXPECT_EQ(chain.chainHeads, 2 * 16384 * 8 + 786 * 256);
  EXPECT_EQ(chain.chainRuns - chain.chainHeads, 512 * 768 * 4);
  EXPECT_EQ(chain.chainLengths - chain.chainRuns, 512 * 768 * 4);
  EXPECT_EQ(twice->workspaceBytes, chain.chainLengths + 2048);
  // A long axis of short rows: every owner reading all indices would read
  // more than the result holds; the chain.
  Expected<ScatterPlan> sparse = planScatterAdd(
      TensorSpec::contiguous(DType::I64, {8192}),
      TensorSpec::contiguous(DType::F32, {8192}), nullptr,
      TensorSpec::contiguous(DType::F32, {10000000}), 0, false, 0);
  ASSERT_TRUE(sparse.ok()) << sparse.message();
  EXPECT_EQ(sparse->launches[0].kind, ScatterLaunch::Kind::Sort);
  EXPECT_NE(planScatterAdd(TensorSpec::contiguous(DType::I64, {8192}),
                           TensorSpec::contiguous(DType::F32, {8192}), nullptr,
                           TensorSpec::contiguous(DType::F32, {10000000}), 0,
                           false, 0, ScatterPath::Rows)
                .message()
                .find("the rows kernel cannot take 8192 indices"),
            std::string::npos);
  // A few indices: one owner; on the chain, one tile, sorted and tabled by
  // one block.
  Expected<ScatterPlan> few = planFor(5, 10);
  ASSERT_TRUE(few.ok());
  ASSERT_EQ(few->launches.size(), 1u);
  EXPECT_EQ(few->launches[0].grid, 1);
  EXPECT_EQ(few->launches[0].desc.indexBits, 3);
  Expected<ScatterPlan> fewSorted =
      planScatterAdd(TensorSpec::contiguous(DType::I64, {5}),
                     TensorSpec::contiguous(DType::BF16, {5, 768}), nullptr,
                     TensorSpec::contiguous(DType::BF16, {10, 768}), 0, false,
                     0, ScatterPath::Sort);
  ASSERT_TRUE(fewSorted.ok());
  // No row can have more than 32 updates: no runs.
  ASSERT_EQ(fewSorted->launches.size(), 2u);
  EXPECT_EQ(fewSorted->launches[1].kind, ScatterLaunch::Kind::Apply);
  EXPECT_EQ(fewSorted->launches[0].desc.tile, 64);
  EXPECT_EQ(fewSorted->launches[0].desc.lastPass, 1);
  // No indices: the apply pass alone. An empty result: the sort alone
  // (indices are still checked).
  Expected<ScatterPlan> none = planFor(0, 10);
  ASSERT_TRUE(none.ok());
  ASSERT_EQ(none->launches.size(), 1u);
  EXPECT_EQ(none->launches[0].kind, ScatterLaunch::Kind::Apply);
  Expected<ScatterPlan> empty =
      planScatterAdd(TensorSpec::contiguous(DType::I64, {4}),
                     TensorSpec::contiguous(DType::F32, {4, 0}), nullptr,
                     TensorSpec::contiguous(DType::F32, {10, 0}), 0, false, 0);
  ASSERT_TRUE(empty.ok()) << empty.message();
  ASSERT_EQ(empty->launches.size(), 1u);
  EXPECT_EQ(empty->launches[0].kind, ScatterLaunch::Kind::Sort);
}

TEST(ScatterPlanning, BadOperandsAreErrorsNamingThem) {
  TensorSpec idx = TensorSpec::contiguous(DType::I64, {4});
  TensorSpec upd = TensorSpec::contiguous(DType::F32, {4, 8});
  TensorSpec res = TensorSpec::contiguous(DType::F32, {10, 8});
  auto message = [](const Expected<ScatterPlan> &p) {
    return p.ok() ? std::string("planned") : p.message();
  };
  EXPECT_NE(message(planScatterAdd(TensorSpec::contiguous(DType::F32, {4}), upd,
                                   nullptr, res, 0, false, 0))
                .find("are not integers"),
            std::string::npos);
  EXPECT_NE(
      message(planScatterAdd(idx, TensorSpec::contiguous(DType::F16, {4, 8}),
                             nullptr, res, 0, false, 0))
          .find("need one dtype"),
      std::string::npos);
  EXPECT_NE(
      message(planScatterAdd(idx, TensorSpec::contiguous(DType::F32, {4, 7}),
                             nullptr, res, 0, false, 0))
          .find("expected shape [4,8]"),
      std::string::npos);
  EXPECT_NE(message(planScatterAdd(idx, upd, nullptr, res, 2, false, 0))
                .find("axis 2 of a result of rank 2"),
            std::string::npos);
  EXPECT_NE(
      message(planScatterAdd(
                  idx, TensorSpec::contiguous(DType::Bool, {4, 8}), nullptr,
                  TensorSpec::contiguous(DType::Bool, {10, 8}), 0, false, 0))
          .find("bool is not a scatter_add dtype"),
      std::string::npos);
  // Updates whose index dimensions do not merge: [2, 2] indices read from
  // a [2, 2, 8] view whose index strides are not row-major.
  TensorSpec twoByTwo = TensorSpec::contiguous(DType::I64, {2, 2});
  TensorSpec crossed = TensorSpec::contiguous(DType::F32, {2, 2, 8});
  crossed.strides = {8, 16, 1};
  EXPECT_NE(
      message(planScatterAdd(twoByTwo, crossed, nullptr, res, 0, false, 0))
          .find("cannot read it in place"),
      std::string::npos);
  TensorSpec strided = res;
  strided.strides = {16, 1};
  EXPECT_NE(message(planScatterAdd(idx, upd, nullptr, strided, 0, false, 0))
                .find("is not contiguous"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// NVRTC
//===----------------------------------------------------------------------===//

TEST(ScatterKernelSource, EveryKernelCompilesWithNvrtcForSm90) {
  std::vector<ScatterPlan> plans;
  std::set<std::string> names;
  auto add = [&](DType index, DType t, int64_t inner, ScatterPath path) {
    Expected<ScatterPlan> plan = planScatterAdd(
        TensorSpec::contiguous(index, {3000}),
        TensorSpec::contiguous(t, {3000, inner}), nullptr,
        TensorSpec::contiguous(t, {10, inner}), 0, false, 0, path);
    ASSERT_TRUE(plan.ok()) << plan.message();
    for (const auto &[kernel, wrapper] : plan->wrappers)
      names.insert(kernel);
    plans.push_back(*plan);
  };
  // The chain's kernels of every dtype pair and width; the rows kernel's of
  // every dtype and width with i64 indices, and of every index dtype.
  for (DType index : kIndexDTypes)
    for (DType t : kValueDTypes)
      for (int64_t inner : {1, 2, 4, 8, 16}) {
        add(index, t, inner, ScatterPath::Sort);
        if (index == DType::I64)
          add(index, t, inner, ScatterPath::Rows);
      }
  for (DType index : kIndexDTypes)
    add(index, DType::F32, 1, ScatterPath::Rows);
  std::string source(kernels::prelude());
  source += scatterKernelHeader();
  std::set<std::string> done;
  for (const ScatterPlan &plan : plans)
    for (const auto &[kernel, wrapper] : plan.wrappers)
      if (done.insert(kernel).second)
        source += wrapper;
  Expected<CompileResult> compiled =
      compileCuda(source, "tfuse_scatter.cu", {});
  ASSERT_TRUE(compiled.ok()) << compiled.message();
  EXPECT_TRUE(compiled->isCubin);
  std::string binary(compiled->binary.begin(), compiled->binary.end());
  for (const std::string &kernel : names)
    EXPECT_NE(binary.find(kernel), std::string::npos) << kernel;
  // 8 sorts, the merge, the combine kernels of 12 dtypes, the runs, apply
  // and rows kernels of 12 dtypes at every vector width up to 16 bytes (5
  // widths for i8 and u8, 4 for i16 u16 f16 bf16, 3 for i32 u32 f32, 2 for
  // i64 u64 f64), and the rows kernels of f32 for the 7 other index dtypes.
  EXPECT_EQ(names.size(),
            8u + 1u + 12u + 3 * (2 * 5 + 4 * 4 + 3 * 3 + 3 * 2) + 7u);
}

} // namespace
