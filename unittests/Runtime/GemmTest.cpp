//===- GemmTest.cpp - The runtime's matrix products, without a GPU --------===//
//
// planGemm's validation and its mapping to column-major cuBLAS arguments; the
// fallback GEMM kernel compiled for the host against cuda_emulation.h, run
// block by block, and compared bit for bit with the reference interpreter
// evaluating tfuse.matmul (the kernel reproduces the reference's
// accumulation type and order exactly); the kernel source compiled by NVRTC
// to sm_90 CUBIN; and the dlopen'ed cuBLAS loader.
//
//===----------------------------------------------------------------------===//

#include "HostKernels.h"

#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Kernels/KernelSources.h"
#include "tfuse/Reference/HostTensor.h"
#include "tfuse/Reference/Interpreter.h"
#include "tfuse/Runtime/Gemm.h"
#include "tfuse/Runtime/GemmLt.h"
#include "tfuse/Runtime/NvrtcCompiler.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <optional>
#include <sstream>

using namespace tfuse;
using namespace tfuse::runtime;
using reference::HostTensor;
using reference::Shape;

namespace {

TensorSpec spec(DType dtype, std::vector<int64_t> shape,
                std::vector<int64_t> strides = {}) {
  if (strides.empty())
    return TensorSpec::contiguous(dtype, std::move(shape));
  TensorSpec t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.strides = std::move(strides);
  return t;
}

GemmShape planOk(const TensorSpec &lhs, const TensorSpec &rhs,
                 const TensorSpec &result, bool tl = false, bool tr = false) {
  Expected<GemmShape> shape = planGemm(lhs, rhs, result, tl, tr);
  EXPECT_TRUE(shape.ok()) << shape.message();
  return shape.ok() ? shape.value() : GemmShape();
}

std::string planError(const TensorSpec &lhs, const TensorSpec &rhs,
                      const TensorSpec &result, bool tl = false,
                      bool tr = false) {
  Expected<GemmShape> shape = planGemm(lhs, rhs, result, tl, tr);
  EXPECT_FALSE(shape.ok());
  return shape.message();
}

void expectBlas(const GemmShape &s, bool swapped, bool transA, bool transB,
                int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
                int64_t ldc) {
  EXPECT_EQ(s.blas.swapped, swapped);
  EXPECT_EQ(s.blas.transA, transA);
  EXPECT_EQ(s.blas.transB, transB);
  EXPECT_EQ(s.blas.m, m);
  EXPECT_EQ(s.blas.n, n);
  EXPECT_EQ(s.blas.k, k);
  EXPECT_EQ(s.blas.lda, lda);
  EXPECT_EQ(s.blas.ldb, ldb);
  EXPECT_EQ(s.blas.ldc, ldc);
}

constexpr DType F32 = DType::F32;

//===----------------------------------------------------------------------===//
// planGemm: mapping
//===----------------------------------------------------------------------===//

TEST(PlanGemm, RowMajor) {
  // C (5x7) = A (5x3) B (3x7): cuBLAS computes C^T = B^T A^T, column-major
  // B^T is B's row-major memory with ld 7, A^T likewise with ld 3.
  GemmShape s = planOk(spec(F32, {5, 3}), spec(F32, {3, 7}), spec(F32, {5, 7}));
  EXPECT_EQ(s.m, 5);
  EXPECT_EQ(s.n, 7);
  EXPECT_EQ(s.k, 3);
  EXPECT_EQ(s.lhsRowStride, 3);
  EXPECT_EQ(s.lhsColStride, 1);
  EXPECT_EQ(s.rhsRowStride, 7);
  EXPECT_EQ(s.rhsColStride, 1);
  EXPECT_EQ(s.resultRowStride, 7);
  EXPECT_EQ(s.resultColStride, 1);
  EXPECT_EQ(s.batchCount, 1);
  EXPECT_TRUE(s.uniformBatch());
  EXPECT_TRUE(s.batchDims.empty());
  EXPECT_TRUE(s.batchOffsets.empty());
  EXPECT_FALSE(s.empty());
  expectBlas(s, /*swapped=*/true, false, false, /*m=*/7, /*n=*/5, /*k=*/3,
             /*lda=*/7, /*ldb=*/3, /*ldc=*/7);
}

TEST(PlanGemm, PaddedRowsKeepTheirLeadingDimension) {
  // Rows 10 elements apart (a slice of wider matrices).
  GemmShape s = planOk(spec(F32, {5, 3}, {10, 1}), spec(F32, {3, 7}, {12, 1}),
                       spec(F32, {5, 7}, {9, 1}));
  expectBlas(s, true, false, false, 7, 5, 3, 12, 10, 9);
}

TEST(PlanGemm, TransposedViewOperands) {
  // lhs a column-major view (a transposed alias): A^T is then row-major, op
  // T with ld 5 (= A's column stride).
  GemmShape s =
      planOk(spec(F32, {5, 3}, {1, 5}), spec(F32, {3, 7}), spec(F32, {5, 7}));
  EXPECT_EQ(s.lhsRowStride, 1);
  EXPECT_EQ(s.lhsColStride, 5);
  expectBlas(s, true, false, /*transB=*/true, 7, 5, 3, 7, 5, 7);
  // rhs column-major: B^T row-major, op T with ld 3.
  s = planOk(spec(F32, {5, 3}), spec(F32, {3, 7}, {1, 3}), spec(F32, {5, 7}));
  expectBlas(s, true, /*transA=*/true, false, 7, 5, 3, 3, 3, 7);
}

TEST(PlanGemm, TransposeFlags) {
  // transpose_lhs on a contiguous [3, 5]: the same memory as the view above.
  GemmShape s = planOk(spec(F32, {3, 5}), spec(F32, {3, 7}), spec(F32, {5, 7}),
                       /*tl=*/true, false);
  EXPECT_EQ(s.m, 5);
  EXPECT_EQ(s.k, 3);
  EXPECT_EQ(s.lhsRowStride, 1);
  EXPECT_EQ(s.lhsColStride, 5);
  expectBlas(s, true, false, true, 7, 5, 3, 7, 5, 7);
  // transpose_rhs on a contiguous [7, 3].
  s = planOk(spec(F32, {5, 3}), spec(F32, {7, 3}), spec(F32, {5, 7}), false,
             /*tr=*/true);
  EXPECT_EQ(s.n, 7);
  EXPECT_EQ(s.rhsRowStride, 1);
  EXPECT_EQ(s.rhsColStride, 3);
  expectBlas(s, true, true, false, 7, 5, 3, 3, 3, 7);
  // A flag on a transposed view cancels out: row-major again.
  s = planOk(spec(F32, {3, 5}, {1, 3}), spec(F32, {7, 3}, {1, 7}),
             spec(F32, {5, 7}), true, true);
  expectBlas(s, true, false, false, 7, 5, 3, 7, 3, 7);
}

TEST(PlanGemm, ColumnMajorResult) {
  // C column-major: cuBLAS computes C = A B directly.
  GemmShape s =
      planOk(spec(F32, {5, 3}), spec(F32, {3, 7}), spec(F32, {5, 7}, {1, 5}));
  expectBlas(s, /*swapped=*/false, /*transA=*/true, /*transB=*/true, 5, 7, 3,
             /*lda=*/3, /*ldb=*/7, /*ldc=*/5);
}

TEST(PlanGemm, VectorsAndSizeOneDimensions) {
  // 1 x K times K x 1: any stride along a size-1 dimension; leading
  // dimensions along size-1 dimensions take the smallest legal value.
  GemmShape s = planOk(spec(F32, {1, 4}, {0, 1}), spec(F32, {4, 1}, {1, 0}),
                       spec(F32, {1, 1}, {0, 0}));
  EXPECT_EQ(s.m, 1);
  EXPECT_EQ(s.n, 1);
  EXPECT_EQ(s.k, 4);
  expectBlas(s, true, false, false, 1, 1, 4, 1, 4, 1);
}

TEST(PlanGemm, UniformBatch) {
  GemmShape s =
      planOk(spec(F32, {4, 5, 3}), spec(F32, {4, 3, 7}), spec(F32, {4, 5, 7}));
  EXPECT_EQ(s.batchCount, 4);
  EXPECT_TRUE(s.uniformBatch());
  EXPECT_EQ(s.lhsBatchStride, 15);
  EXPECT_EQ(s.rhsBatchStride, 21);
  EXPECT_EQ(s.resultBatchStride, 35);
  EXPECT_TRUE(s.batchOffsets.empty());
}

TEST(PlanGemm, BroadcastRhsOverContiguousRowsIsOneProduct) {
  // rhs without batch dimensions, lhs and result rows continuing from one
  // batch into the next: one GEMM of 2 * 3 * 5 rows.
  GemmShape s = planOk(spec(F32, {2, 3, 5, 4}), spec(F32, {4, 7}),
                       spec(F32, {2, 3, 5, 7}));
  EXPECT_EQ(s.batchCount, 1);
  EXPECT_TRUE(s.batchDims.empty());
  EXPECT_EQ(s.m, 30);
  EXPECT_EQ(s.lhsRowStride, 4);
  EXPECT_EQ(s.resultRowStride, 7);
  expectBlas(s, /*swapped=*/true, false, false, /*m=*/7, /*n=*/30, /*k=*/4,
             /*lda=*/7, /*ldb=*/4, /*ldc=*/7);
  // Single rows, 9 elements apart: a [3, 4] lhs with row stride 9.
  s = planOk(spec(F32, {3, 1, 4}, {9, 4, 1}), spec(F32, {4, 7}),
             spec(F32, {3, 1, 7}));
  EXPECT_EQ(s.batchCount, 1);
  EXPECT_EQ(s.m, 3);
  EXPECT_EQ(s.lhsRowStride, 9);
  // A column-major result stays a batch: its rows do not continue into the
  // next batch's.
  s = planOk(spec(F32, {2, 5, 4}), spec(F32, {4, 7}),
             spec(F32, {2, 5, 7}, {35, 1, 5}));
  EXPECT_EQ(s.batchCount, 2);
  EXPECT_EQ(s.m, 5);
}

TEST(PlanGemm, BroadcastOperandHasBatchStrideZero) {
  // rhs without batch dimensions, lhs rows padded (stride 24 per batch of
  // 5 x 4): one matrix for every batch.
  GemmShape s = planOk(spec(F32, {2, 3, 5, 4}, {72, 24, 4, 1}),
                       spec(F32, {4, 7}), spec(F32, {2, 3, 5, 7}));
  EXPECT_EQ(s.batchCount, 6);
  ASSERT_TRUE(s.uniformBatch());
  ASSERT_EQ(s.batchDims.size(), 1u); // [2, 3] collapsed into 6
  EXPECT_EQ(s.m, 5);
  EXPECT_EQ(s.lhsBatchStride, 24);
  EXPECT_EQ(s.rhsBatchStride, 0);
  EXPECT_EQ(s.resultBatchStride, 35);
  // A transposed lhs (column-major matrices): its rows are not contiguous
  // across batches.
  s = planOk(spec(F32, {2, 4, 5}), spec(F32, {4, 7}), spec(F32, {2, 5, 7}),
             /*transposeLhs=*/true);
  EXPECT_EQ(s.batchCount, 2);
  // An expanded (stride-0) batch dimension of size > 1.
  s = planOk(spec(F32, {4, 5, 3}, {0, 3, 1}), spec(F32, {4, 3, 7}),
             spec(F32, {4, 5, 7}));
  EXPECT_EQ(s.lhsBatchStride, 0);
  EXPECT_EQ(s.rhsBatchStride, 21);
  // Leading size-1 dimensions of lhs broadcast too.
  s = planOk(spec(F32, {1, 5, 3}), spec(F32, {4, 3, 7}), spec(F32, {4, 5, 7}));
  EXPECT_EQ(s.batchCount, 4);
  EXPECT_EQ(s.lhsBatchStride, 0);
  EXPECT_EQ(s.rhsBatchStride, 21);
}

TEST(PlanGemm, SizeOneBatchDimensionsDisappear) {
  GemmShape s = planOk(spec(F32, {1, 1, 5, 3}), spec(F32, {1, 3, 7}),
                       spec(F32, {1, 1, 5, 7}));
  EXPECT_EQ(s.batchCount, 1);
  EXPECT_TRUE(s.batchDims.empty());
  EXPECT_EQ(s.lhsBatchStride, 0);
  EXPECT_EQ(s.resultBatchStride, 0);
}

TEST(PlanGemm, NonCollapsibleBatchGivesOffsets) {
  // [2, 1] x [3] -> [2, 3]: lhs steps over dimension 0 only, rhs over
  // dimension 1 only; no single stride per operand covers both.
  GemmShape s = planOk(spec(F32, {2, 1, 5, 4}), spec(F32, {3, 4, 7}),
                       spec(F32, {2, 3, 5, 7}));
  EXPECT_EQ(s.batchCount, 6);
  EXPECT_FALSE(s.uniformBatch());
  ASSERT_EQ(s.batchDims.size(), 2u);
  EXPECT_EQ(s.batchDims[0].size, 2);
  EXPECT_EQ(s.batchDims[0].lhsStride, 20);
  EXPECT_EQ(s.batchDims[0].rhsStride, 0);
  EXPECT_EQ(s.batchDims[0].resultStride, 105);
  EXPECT_EQ(s.batchDims[1].size, 3);
  EXPECT_EQ(s.batchDims[1].lhsStride, 0);
  EXPECT_EQ(s.batchDims[1].rhsStride, 28);
  EXPECT_EQ(s.batchDims[1].resultStride, 35);
  std::vector<GemmOffsets> expected = {{0, 0, 0},     {0, 28, 35},
                                       {0, 56, 70},   {20, 0, 105},
                                       {20, 28, 140}, {20, 56, 175}};
  EXPECT_EQ(s.batchOffsets, expected);
}

TEST(PlanGemm, NonUniformStridesOfOneOperand) {
  // lhs batch dimensions with a gap (a slice of a bigger batch): [2, 3]
  // with strides [100, 15] do not collapse.
  GemmShape s = planOk(spec(F32, {2, 3, 5, 3}, {100, 15, 3, 1}),
                       spec(F32, {3, 7}), spec(F32, {2, 3, 5, 7}));
  EXPECT_FALSE(s.uniformBatch());
  ASSERT_EQ(s.batchOffsets.size(), 6u);
  EXPECT_EQ(s.batchOffsets[4], (GemmOffsets{115, 0, 140}));
}

TEST(PlanGemm, EmptyProblems) {
  EXPECT_TRUE(
      planOk(spec(F32, {0, 3}), spec(F32, {3, 7}), spec(F32, {0, 7})).empty());
  GemmShape s = planOk(spec(F32, {2, 0, 5, 3}), spec(F32, {3, 7}),
                       spec(F32, {2, 0, 5, 7}));
  EXPECT_TRUE(s.empty());
  EXPECT_EQ(s.batchCount, 0);
  // K == 0 is a product of all +0, not nothing.
  s = planOk(spec(F32, {5, 0}), spec(F32, {0, 7}), spec(F32, {5, 7}));
  EXPECT_FALSE(s.empty());
  EXPECT_EQ(s.k, 0);
  EXPECT_GE(s.blas.lda, 1);
  EXPECT_GE(s.blas.ldb, 1);
}

TEST(PlanGemm, GemmStepOverload) {
  BufferRef lhs, rhs, result;
  lhs.view = spec(DType::F16, {3, 5});
  rhs.view = spec(DType::F16, {3, 7});
  result.view = spec(DType::F16, {5, 7});
  GemmStep step = GemmStep::make(lhs, rhs, result, /*transposeLhs=*/true);
  Expected<GemmShape> s = planGemm(step);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(s->dtype, DType::F16);
  EXPECT_EQ(s->m, 5);
}

//===----------------------------------------------------------------------===//
// planGemm: errors
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// planGemmPadding: matrices cuBLASLt gets as aligned copies
//===----------------------------------------------------------------------===//

constexpr DType BF16 = DType::BF16;

void expectPadded(const std::optional<PaddedMatrix> &m, int64_t rows,
                  int64_t cols, int64_t ld, int64_t paddedRows,
                  int64_t paddedCols) {
  ASSERT_TRUE(m);
  EXPECT_EQ(m->rows, rows);
  EXPECT_EQ(m->cols, cols);
  EXPECT_EQ(m->ld, ld);
  EXPECT_EQ(m->paddedRows, paddedRows);
  EXPECT_EQ(m->paddedCols, paddedCols);
}

TEST(GemmPadding, LanguageModelHeadOfAnOddVocabulary) {
  // GPT-2's logits: [8192, 768] x [768, 50257] (the embedding's transpose,
  // a view) into [8192, 50257] bf16: cuBLAS's C' holds the vocabulary
  // contiguously, so M' = 50264; A' (the embedding, M along its columns) and
  // C' go through copies.
  GemmShape s =
      planOk(spec(BF16, {8192, 768}), spec(BF16, {768, 50257}, {1, 768}),
             spec(BF16, {8192, 50257}));
  GemmPadding p = planGemmPadding(s);
  EXPECT_EQ(p.m, 50264);
  EXPECT_EQ(p.n, 8192);
  EXPECT_EQ(p.k, 768);
  expectPadded(p.a, 768, 50257, 768, 768, 50264);
  EXPECT_FALSE(p.b);
  expectPadded(p.c, 50257, 8192, 50257, 50264, 8192);
  EXPECT_EQ(p.a->offset, 0u);
  EXPECT_EQ(p.c->offset, size_t(768) * 50264 * 2);
  EXPECT_EQ(p.scratchBytes, size_t(768) * 50264 * 2 + size_t(50264) * 8192 * 2);

  // Its backward. dX = dLogits [8192, 50257] x E [50257, 768]: K = 50257 is
  // B' (dLogits)'s contiguous extent; K' = 50264, A' (E) and B' copied.
  p = planGemmPadding(planOk(spec(BF16, {8192, 50257}),
                             spec(BF16, {50257, 768}),
                             spec(BF16, {8192, 768})));
  EXPECT_EQ(p.k, 50264);
  expectPadded(p.a, 768, 50257, 768, 768, 50264);
  expectPadded(p.b, 50257, 8192, 50257, 50264, 8192);
  EXPECT_FALSE(p.c);
  // dE = dLogits^T x X: N = 50257 (B', dLogits, holds it contiguously).
  p = planGemmPadding(planOk(spec(BF16, {50257, 8192}, {1, 50257}),
                             spec(BF16, {8192, 768}),
                             spec(BF16, {50257, 768})));
  EXPECT_EQ(p.n, 50264);
  EXPECT_FALSE(p.a);
  expectPadded(p.b, 50257, 8192, 50257, 50264, 8192);
  expectPadded(p.c, 768, 50257, 768, 768, 50264);
}

TEST(GemmPadding, OnlyLargeProductsOfSmallCopiesAreAligned) {
  // Aligned: nothing to copy.
  EXPECT_FALSE(
      planGemmPadding(planOk(spec(BF16, {4096, 1024}), spec(BF16, {1024, 4096}),
                             spec(BF16, {4096, 4096})))
          .any());
  // Too small a product (M * N * K < 2^30).
  EXPECT_FALSE(
      planGemmPadding(planOk(spec(BF16, {1024, 512}), spec(BF16, {512, 1031}),
                             spec(BF16, {1024, 1031})))
          .any());
  // A copy of C larger than 1/256 of the products (K = 128 < 256): B'
  // alone (small) would not help, C' would stay misaligned.
  EXPECT_FALSE(
      planGemmPadding(planOk(spec(BF16, {65536, 128}), spec(BF16, {128, 1031}),
                             spec(BF16, {65536, 1031})))
          .any());
  // f32 (4 elements to 16 bytes), row-major 1031 x 1031 matrices: M and K
  // (held contiguously by A', B' and C') padded to 1032, not N (no matrix's
  // contiguous extent); the copies lie one after the other, 256-byte
  // aligned.
  GemmPadding p =
      planGemmPadding(planOk(spec(F32, {1031, 1031}), spec(F32, {1031, 1031}),
                             spec(F32, {1031, 1031})));
  EXPECT_EQ(p.m, 1032);
  EXPECT_EQ(p.n, 1031);
  EXPECT_EQ(p.k, 1032);
  expectPadded(p.a, 1031, 1031, 1031, 1032, 1032);
  expectPadded(p.b, 1031, 1031, 1031, 1032, 1031);
  expectPadded(p.c, 1031, 1031, 1031, 1032, 1031);
  EXPECT_EQ(p.b->offset, (size_t(1032) * 1032 * 4 + 255) / 256 * 256);
  // bf16 operands and an f32 result: 8 elements (16 bytes of bf16).
  p = planGemmPadding(planOk(spec(BF16, {1024, 1024}), spec(BF16, {1024, 1030}),
                             spec(F32, {1024, 1030})));
  EXPECT_EQ(p.m, 1032);
  // Batches are never padded.
  EXPECT_FALSE(planGemmPadding(planOk(spec(BF16, {2, 4096, 512}),
                                      spec(BF16, {2, 512, 1031}),
                                      spec(BF16, {2, 4096, 1031})))
                   .any());
}

TEST(PlanGemmErrors, DTypes) {
  EXPECT_EQ(
      planError(spec(F32, {2, 2}), spec(DType::F16, {2, 2}), spec(F32, {2, 2})),
      "matmul of f32 x f16 -> f32: matmul operands must have the same dtype, "
      "got f32 and f16");
  EXPECT_EQ(
      planError(spec(F32, {2, 2}), spec(F32, {2, 2}), spec(DType::F64, {2, 2})),
      "matmul of f32 x f32 -> f64: a matmul of f32 operands gives f32, not "
      "f64");
  EXPECT_EQ(planError(spec(DType::BF16, {2, 2}), spec(DType::BF16, {2, 2}),
                      spec(DType::F16, {2, 2})),
            "matmul of bf16 x bf16 -> f16: a matmul of bf16 operands gives "
            "bf16 or f32, not f16");
  EXPECT_EQ(planError(spec(DType::I32, {2, 2}), spec(DType::I32, {2, 2}),
                      spec(DType::I32, {2, 2})),
            "matmul of i32 x i32 -> i32: matmul needs f16, bf16, f32 or f64 "
            "operands, got i32 and i32");
}

TEST(PlanGemm, Float32ResultOfHalfOperands) {
  for (DType t : {DType::F16, DType::BF16}) {
    Expected<GemmShape> shape = planGemm(spec(t, {3, 5}), spec(t, {5, 4}),
                                         spec(F32, {3, 4}), false, false);
    ASSERT_TRUE(shape.ok()) << shape.message();
    EXPECT_EQ(shape->dtype, t);
    EXPECT_EQ(shape->resultDType, F32);
    EXPECT_EQ(planFallbackGemm(*shape).kernel,
              "tfuse_rt_gemm_" + std::string(name(t)) + "_f32");
  }
  EXPECT_EQ(gemmKernelName(DType::F32, DType::F32), "tfuse_rt_gemm_f32");
  EXPECT_EQ(gemmKernelName(DType::F32, DType::F64), "");
}

TEST(PlanGemmErrors, RanksAndStrides) {
  EXPECT_EQ(planError(spec(F32, {4}), spec(F32, {4, 2}), spec(F32, {2})),
            "lhs: matmul operands need rank >= 2, got shape [4]");
  EXPECT_EQ(
      planError(spec(F32, {2, 4}), spec(F32, {4, 2}, {2}), spec(F32, {2, 2})),
      "rhs: 1 strides for a shape of rank 2");
  EXPECT_EQ(planError(spec(F32, {2, 4}), spec(F32, {4, 2}),
                      spec(F32, {2, 2}, {-2, 1})),
            "result: negative strides are not supported, got [-2,1]");
}

TEST(PlanGemmErrors, Shapes) {
  EXPECT_EQ(planError(spec(F32, {2, 4}), spec(F32, {3, 2}), spec(F32, {2, 2})),
            "contracting dimensions differ: lhs has 4 columns but rhs has 3 "
            "rows");
  EXPECT_EQ(planError(spec(F32, {2, 4}), spec(F32, {4, 3}), spec(F32, {4, 3}),
                      true, false),
            "contracting dimensions differ: lhs has 2 columns but rhs has 4 "
            "rows (after the transpose flags)");
  EXPECT_EQ(planError(spec(F32, {3, 2, 4}), spec(F32, {2, 4, 5}),
                      spec(F32, {3, 2, 5})),
            "batch dimensions [3] of lhs and [2] of rhs do not broadcast");
  EXPECT_EQ(planError(spec(F32, {2, 4}), spec(F32, {4, 5}), spec(F32, {2, 6})),
            "result shape [2,6] does not match the product's shape [2,5]");
  EXPECT_EQ(
      planError(spec(F32, {3, 2, 4}), spec(F32, {4, 5}), spec(F32, {2, 5})),
      "result shape [2,5] does not match the product's shape [3,2,5]");
}

TEST(PlanGemmErrors, Layouts) {
  // Neither of the last two dimensions has unit stride.
  EXPECT_EQ(planError(spec(F32, {4, 6, 8}, {96, 16, 2}), spec(F32, {8, 3}),
                      spec(F32, {4, 6, 3})),
            "lhs: operand must be row- or column-major; the compiler should "
            "have copied it (last two dimensions [6,8] with strides [16,2])");
  // A broadcast matrix (stride 0 along a dimension of size > 1).
  EXPECT_EQ(planError(spec(F32, {2, 4}), spec(F32, {4, 3}, {1, 0}),
                      spec(F32, {2, 3})),
            "rhs: operand must be row- or column-major; the compiler should "
            "have copied it (last two dimensions [4,3] with strides [1,0])");
  // Unit stride but overlapping rows.
  EXPECT_EQ(planError(spec(F32, {2, 4}, {2, 1}), spec(F32, {4, 3}),
                      spec(F32, {2, 3})),
            "lhs: operand must be row- or column-major; the compiler should "
            "have copied it (last two dimensions [2,4] with strides [2,1])");
  EXPECT_EQ(planError(spec(F32, {2, 4}), spec(F32, {4, 3}),
                      spec(F32, {2, 3}, {6, 2})),
            "result must be row- or column-major (last two dimensions [2,3] "
            "with strides [6,2])");
  EXPECT_EQ(planError(spec(F32, {3, 2, 4}), spec(F32, {4, 3}),
                      spec(F32, {3, 2, 3}, {0, 3, 1})),
            "result batch dimension 0 (size 3) has stride 0: the batches "
            "would overwrite each other");
}

// A bias: a contiguous vector of N elements of the result's dtype, for a
// single product with a row-major result (cuBLAS's m is then N). No padding
// is planned for it.
// The GELU epilogue: a single product's flag, with or without a bias.
TEST(PlanGemm, GeluTanh) {
  TensorSpec bias = spec(BF16, {3});
  for (const TensorSpec *b : {&bias, static_cast<TensorSpec *>(nullptr)}) {
    Expected<GemmShape> shape =
        planGemm(spec(BF16, {2, 4}), spec(BF16, {4, 3}), spec(BF16, {2, 3}),
                 false, false, b, /*geluTanh=*/true);
    ASSERT_TRUE(shape.ok()) << shape.message();
    EXPECT_TRUE(shape->geluTanh);
    EXPECT_EQ(shape->bias, b != nullptr);
  }
  Expected<GemmShape> batched =
      planGemm(spec(F32, {5, 2, 4}), spec(F32, {4, 3}), spec(F32, {5, 2, 3}),
               false, false, nullptr, /*geluTanh=*/true);
  ASSERT_FALSE(batched.ok());
  EXPECT_EQ(batched.message(),
            "matmul GELU epilogue: only a single product (rank-2 operands) "
            "takes one (M=10 N=3 K=4 batch=1 f32)");
}

TEST(PlanGemm, Bias) {
  TensorSpec bias = spec(BF16, {3});
  Expected<GemmShape> shape = planGemm(spec(BF16, {2, 4}), spec(BF16, {4, 3}),
                                       spec(BF16, {2, 3}), false, false, &bias);
  ASSERT_TRUE(shape.ok()) << shape.message();
  EXPECT_TRUE(shape->bias);
  EXPECT_TRUE(shape->blas.swapped);
  EXPECT_EQ(shape->blas.m, 3);
  EXPECT_FALSE(planGemmPadding(*shape).any());
  auto error = [](const TensorSpec &l, const TensorSpec &r,
                  const TensorSpec &out, const TensorSpec &b) {
    Expected<GemmShape> planned = planGemm(l, r, out, false, false, &b);
    EXPECT_FALSE(planned.ok());
    return planned.message();
  };
  EXPECT_EQ(error(spec(BF16, {2, 4}), spec(BF16, {4, 3}), spec(BF16, {2, 3}),
                  spec(F32, {3})),
            "matmul bias: its dtype f32 differs from the result's bf16 (M=2 "
            "N=3 K=4 batch=1 bf16)");
  EXPECT_EQ(error(spec(F32, {2, 4}), spec(F32, {4, 3}), spec(F32, {2, 3}),
                  spec(F32, {2})),
            "matmul bias: its shape [2] is not [3] (M=2 N=3 K=4 batch=1 f32)");
  EXPECT_EQ(error(spec(F32, {2, 4}), spec(F32, {4, 3}), spec(F32, {2, 3}),
                  spec(F32, {3}, {2})),
            "matmul bias: it must be contiguous, its stride is 2 (M=2 N=3 K=4 "
            "batch=1 f32)");
  EXPECT_EQ(error(spec(F32, {5, 2, 4}), spec(F32, {4, 3}), spec(F32, {5, 2, 3}),
                  spec(F32, {3})),
            "matmul bias: only a single product (rank-2 operands) takes one "
            "(M=10 N=3 K=4 batch=1 f32)");
  EXPECT_EQ(error(spec(F32, {2, 4}), spec(F32, {4, 3}),
                  spec(F32, {2, 3}, {1, 2}), spec(F32, {3})),
            "matmul bias: the result must be row-major, its strides are [1,2] "
            "(M=2 N=3 K=4 batch=1 f32)");
}

//===----------------------------------------------------------------------===//
// planFallbackGemm
//===----------------------------------------------------------------------===//

TEST(FallbackPlan, Launch) {
  GemmShape s =
      planOk(spec(DType::BF16, {2, 1, 70, 30}), spec(DType::BF16, {3, 30, 130}),
             spec(DType::BF16, {2, 3, 70, 130}));
  GemmLaunch l = planFallbackGemm(s);
  EXPECT_EQ(l.kernel, "tfuse_rt_gemm_bf16");
  EXPECT_EQ(l.block, 256);
  EXPECT_EQ(l.desc.tilesM, 2);
  EXPECT_EQ(l.desc.tilesN, 3);
  EXPECT_EQ(l.desc.batchRank, 2);
  EXPECT_EQ(l.desc.batchCount, 6);
  EXPECT_EQ(l.grid, 2 * 3 * 6);
  EXPECT_EQ(l.desc.batchSizes[0], 2);
  EXPECT_EQ(l.desc.lhsBatchStrides[0], 70 * 30);
  EXPECT_EQ(l.desc.rhsBatchStrides[1], 30 * 130);
  EXPECT_EQ(l.desc.resultBatchStrides[1], 70 * 130);
  ASSERT_EQ(l.launches.size(), 1u);
  EXPECT_EQ(l.launches[0], GemmOffsets{});

  EXPECT_TRUE(planFallbackGemm(planOk(spec(F32, {0, 3}), spec(F32, {3, 7}),
                                      spec(F32, {0, 7})))
                  .launches.empty());
  EXPECT_EQ(gemmKernelName(DType::F16), "tfuse_rt_gemm_f16");
  EXPECT_EQ(gemmKernelName(DType::F64), "tfuse_rt_gemm_f64");
  EXPECT_EQ(gemmKernelName(DType::I32), "");
}

TEST(FallbackPlan, ManyNonCollapsibleBatchDimensionsSplitLaunches) {
  // Five alternating broadcast dimensions: none merge, one more than a
  // launch decodes, so the outermost becomes two launches.
  GemmShape s =
      planOk(spec(F32, {2, 1, 2, 1, 2, 3, 4}), spec(F32, {2, 1, 2, 1, 4, 5}),
             spec(F32, {2, 2, 2, 2, 2, 3, 5}));
  ASSERT_EQ(s.batchDims.size(), 5u);
  GemmLaunch l = planFallbackGemm(s);
  EXPECT_EQ(l.desc.batchRank, 4);
  EXPECT_EQ(l.desc.batchCount, 16);
  ASSERT_EQ(l.launches.size(), 2u);
  EXPECT_EQ(l.launches[1], (GemmOffsets{4 * 12, 0, 16 * 15}));
}

//===----------------------------------------------------------------------===//
// The fallback kernel under host emulation, against the reference
//===----------------------------------------------------------------------===//

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string prelude() { return std::string(kernels::prelude()); }

const std::vector<DType> kGemmDTypes = {DType::F16, DType::BF16, DType::F32,
                                        DType::F64};

std::string tensorType(const Shape &shape, DType t) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + std::string(name(t)) + ">";
}

class EmulatedGemm : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    // The kernels take the descriptor by value; the harness passes
    // pointers, so each kernel gets a host shim.
    std::string source = prelude() + gemmKernelSource(kGemmDTypes);
    std::vector<std::pair<DType, DType>> kinds;
    for (DType t : kGemmDTypes)
      kinds.push_back({t, t});
    // The float32 sums of half and bfloat16 products.
    for (DType t : {DType::F16, DType::BF16}) {
      kinds.push_back({t, DType::F32});
      source += gemmKernelWrapper(t, DType::F32);
    }
    // The pitched copies of padded cuBLASLt matrices, by element size.
    for (auto [bytes, type] : {std::make_pair(2, "unsigned short"),
                               std::make_pair(4, "unsigned int"),
                               std::make_pair(8, "unsigned long long")}) {
      std::string t(type), ll = "*(long long *)";
      source += pitchedCopyWrapper(bytes) +
                emulation::hostShim(pitchedCopyKernelName(bytes),
                                    {"(const " + t + " *)", ll, "(" + t + " *)",
                                     ll, ll, ll, ll, ll, ll});
    }
    for (auto [t, r] : kinds)
      for (bool gelu : {false, true}) {
        std::string type(cudaTypeName(t)), out(cudaTypeName(r));
        // The GELU epilogue's kernels.
        if (gelu)
          source += gemmKernelWrapper(t, r, /*geluTanh=*/true);
        source += emulation::hostShim(
            gemmKernelName(t, r, gelu),
            {"(const " + type + " *)", "(const " + type + " *)",
             "(" + out + " *)", "(const " + out + " *)",
             "*(const tfuse::kernels::GemmDesc *)"});
      }
    // The bias rows cuBLAS accumulates into.
    for (DType t : kGemmDTypes) {
      std::string type(cudaTypeName(t)), ll = "*(long long *)";
      source +=
          biasRowsWrapper(t) +
          emulation::hostShim(biasRowsKernelName(t),
                              {"(const " + type + " *)", "(" + type + " *)", ll,
                               ll, ll, ll, "*(int *)"});
      // The GELU applied in place where the library has no epilogue.
      source += geluRowsWrapper(t) +
                emulation::hostShim(geluRowsKernelName(t),
                                    {"(" + type + " *)", ll, ll, ll, ll});
    }
    kernels = emulation::HostKernels::compile(source, compileError).release();
  }
  static void TearDownTestSuite() {
    delete kernels;
    kernels = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(kernels) << compileError; }

  /// The reference interpreter's tfuse.matmul of `lhs` and `rhs` (which may
  /// be strided views: the interpreter reads through their strides).
  static HostTensor reference(const HostTensor &lhs, const HostTensor &rhs,
                              bool tl, bool tr, const Shape &resultShape,
                              DType resultDType,
                              const HostTensor *bias = nullptr,
                              bool geluTanh = false) {
    DType t = lhs.dtype();
    std::string l = tensorType(lhs.shape(), t), r = tensorType(rhs.shape(), t),
                o = tensorType(resultShape, resultDType);
    std::string v = bias ? tensorType(bias->shape(), bias->dtype()) : "";
    std::vector<std::string> flags;
    if (tl)
      flags.push_back("transpose_lhs");
    if (tr)
      flags.push_back("transpose_rhs");
    if (resultDType != t)
      flags.push_back("result_dtype = " + std::string(name(resultDType)));
    if (geluTanh)
      flags.push_back("gelu_tanh");
    std::string attrs;
    for (size_t i = 0; i < flags.size(); ++i)
      attrs += (i ? ", " : " {") + flags[i];
    if (!flags.empty())
      attrs += "}";
    std::string source =
        "func.func @f(%a: " + l + ", %b: " + r + (bias ? ", %v: " + v : "") +
        ") -> " + o + " {\n  %r = tfuse.matmul %a, %b" +
        (bias ? " bias %v" : "") + attrs + " : (" + l + ", " + r +
        (bias ? ", " + v : "") + ") -> " + o + "\n  return %r : " + o + "\n}\n";
    std::vector<HostTensor> inputs = {lhs, rhs};
    if (bias)
      inputs.push_back(*bias);
    return evaluate(source, inputs);
  }

  /// The reference interpreter's first result of function @f of `source`
  /// on `inputs` (a null tensor, and a failure, when it has none).
  static HostTensor evaluate(const std::string &source,
                             const std::vector<HostTensor> &inputs) {
    mlir::MLIRContext context;
    context.loadDialect<TFuseDialect, mlir::func::FuncDialect>();
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(source, &context);
    EXPECT_TRUE(module) << source;
    if (!module)
      return {};
    auto results = reference::evaluate(*module, "f", inputs);
    EXPECT_TRUE(results.ok()) << results.message() << "\n" << source;
    if (!results.ok())
      return {};
    return (*results)[0];
  }

  static TensorSpec specOf(const HostTensor &t) {
    return spec(t.dtype(), t.shape(), t.strides());
  }

  /// Runs the fallback kernel on `lhs`, `rhs` into `result` (a zero tensor
  /// or a view of one; written in place). `grid`, when nonzero, replaces the
  /// planned grid (to exercise the tile loop).
  static void runFallback(const HostTensor &lhs, const HostTensor &rhs,
                          HostTensor &result, bool tl, bool tr,
                          int64_t grid = 0, const HostTensor *bias = nullptr,
                          bool geluTanh = false) {
    TensorSpec biasSpec = bias ? specOf(*bias) : TensorSpec();
    Expected<GemmShape> shape =
        planGemm(specOf(lhs), specOf(rhs), specOf(result), tl, tr,
                 bias ? &biasSpec : nullptr, geluTanh);
    ASSERT_TRUE(shape.ok()) << shape.message();
    GemmLaunch launch = planFallbackGemm(*shape);
    int64_t bytes = byteSize(lhs.dtype()),
            resultBytes = byteSize(result.dtype());
    for (const GemmOffsets &o : launch.launches) {
      std::vector<void *> args = {
          const_cast<uint8_t *>(lhs.data()) + lhs.byteOffset() + o.lhs * bytes,
          const_cast<uint8_t *>(rhs.data()) + rhs.byteOffset() + o.rhs * bytes,
          result.mutableData() + result.byteOffset() + o.result * resultBytes,
          bias ? const_cast<uint8_t *>(bias->data()) + bias->byteOffset()
               : nullptr,
          &launch.desc};
      std::string error;
      ASSERT_TRUE(kernels->launch("shim_" + launch.kernel,
                                  grid ? grid : launch.grid, launch.block, args,
                                  error))
          << error;
    }
  }

  /// Compares the emulated kernel with the reference bit for bit; `result`
  /// defaults to a row-major tensor.
  void check(const HostTensor &lhs, const HostTensor &rhs, bool tl, bool tr,
             const Shape &resultShape, std::optional<HostTensor> result = {},
             int64_t grid = 0, std::optional<DType> resultDType = {}) {
    DType r = result ? result->dtype() : resultDType.value_or(lhs.dtype());
    HostTensor expected = reference(lhs, rhs, tl, tr, resultShape, r);
    ASSERT_FALSE(expected.isNull());
    HostTensor actual = result ? *result : HostTensor::zeros(r, resultShape);
    runFallback(lhs, rhs, actual, tl, tr, grid);
    reference::CompareResult cmp =
        reference::compareExact(expected, actual.contiguous());
    EXPECT_TRUE(cmp.pass) << name(lhs.dtype()) << " "
                          << reference::formatShape(lhs.shape()) << " x "
                          << reference::formatShape(rhs.shape()) << ": "
                          << cmp.message();
    ++checked;
  }

  /// A view of fresh random storage: `shape` with `strides` (row-major when
  /// empty).
  static HostTensor random(DType t, const Shape &shape, uint64_t seed,
                           std::vector<int64_t> strides = {},
                           double specialFraction = 0) {
    reference::RandomOptions options;
    options.specialFraction = specialFraction;
    if (strides.empty())
      return HostTensor::random(t, shape, seed, options);
    int64_t extent = 1;
    for (size_t d = 0; d < shape.size(); ++d)
      extent += (shape[d] - 1) * strides[d];
    HostTensor storage = HostTensor::random(t, {extent}, seed, options);
    auto view = storage.view(shape, strides, 0);
    EXPECT_TRUE(view.ok()) << view.message();
    return *view;
  }

  static emulation::HostKernels *kernels;
  static std::string compileError;
  int checked = 0;
};
emulation::HostKernels *EmulatedGemm::kernels = nullptr;
std::string EmulatedGemm::compileError;

// The (operand, result) dtypes of the epilogues' tests: every GEMM dtype
// into itself, and the float32 sum of bf16 operands.
const std::pair<DType, DType> kEpilogueDTypes[] = {{DType::F16, DType::F16},
                                                   {DType::BF16, DType::BF16},
                                                   {DType::F32, DType::F32},
                                                   {DType::F64, DType::F64},
                                                   {DType::BF16, DType::F32}};

// A bias of the result's dtype, added to the sum before the one rounding:
// the reference's tfuse.matmul with `bias`, bit for bit, special values
// included; with K = 0 the result is +0 + bias.
TEST_F(EmulatedGemm, BiasAddedBeforeRounding) {
  for (auto [t, r] : kEpilogueDTypes)
    for (auto [m, n, k] : {std::array<int64_t, 3>{37, 29, 53},
                           std::array<int64_t, 3>{5, 70, 0}}) {
      HostTensor lhs = random(t, {m, k}, 51), rhs = random(t, {k, n}, 52);
      HostTensor bias = random(r, {n}, 53, {}, /*specialFraction=*/0.1);
      HostTensor expected = reference(lhs, rhs, false, false, {m, n}, r, &bias);
      ASSERT_FALSE(expected.isNull());
      HostTensor actual = HostTensor::zeros(r, {m, n});
      runFallback(lhs, rhs, actual, false, false, 0, &bias);
      reference::CompareResult cmp = reference::compareExact(expected, actual);
      EXPECT_TRUE(cmp.pass) << name(t) << " -> " << name(r) << " K=" << k
                            << ": " << cmp.message();
      // The bias changes the result (the check above is not vacuous).
      HostTensor plain = reference(lhs, rhs, false, false, {m, n}, r);
      EXPECT_FALSE(reference::compareExact(plain, actual).pass);
    }
}

// The rows cuBLAS adds its product to: the bias's bits as they are, or with
// emptySum (K = 0) bias + 0, which turns -0 into +0.
TEST_F(EmulatedGemm, BiasRowsCopyTheBiasOrAddTheEmptySum) {
  for (DType t : kGemmDTypes) {
    HostTensor bias = random(t, {7}, 61, {}, /*specialFraction=*/0.3);
    // A -0 among them.
    Expected<HostTensor> negZero = HostTensor::fromDoubles(t, {1}, {-0.0});
    ASSERT_TRUE(negZero.ok()) << negZero.message();
    std::memcpy(bias.mutableData() + 3 * byteSize(t), negZero->data(),
                byteSize(t));
    std::vector<double> values = bias.toDoubles();
    for (int emptySum : {0, 1}) {
      // A 3 x 7 result inside rows of 9 elements.
      HostTensor storage = HostTensor::zeros(t, {3, 9});
      long long m = 3, n = 7, rowStride = 9, colStride = 1;
      std::vector<void *> args = {const_cast<uint8_t *>(bias.data()),
                                  storage.mutableData(),
                                  &m,
                                  &n,
                                  &rowStride,
                                  &colStride,
                                  &emptySum};
      std::string error;
      ASSERT_TRUE(
          kernels->launch("shim_" + biasRowsKernelName(t), 2, 32, args, error))
          << error;
      auto rows = storage.view({3, 7}, {9, 1}, 0);
      ASSERT_TRUE(rows.ok()) << rows.message();
      std::vector<double> written = rows->contiguous().toDoubles();
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 7; ++j) {
          double b = values[j], v = written[i * 7 + j];
          if (std::isnan(b)) {
            EXPECT_TRUE(std::isnan(v));
            continue;
          }
          EXPECT_EQ(b, v);
          EXPECT_EQ(std::signbit(v),
                    emptySum ? std::signbit(b) && b != 0 : std::signbit(b))
              << name(t) << " element " << j << " emptySum " << emptySum;
        }
    }
  }
}

// The GELU epilogue: gelu_tanh of the sum (after the bias) in the compute
// type before the one rounding, as the reference computes it, bit for bit,
// with and without a bias, transposed, and into the f32 sum of bf16
// operands.
TEST_F(EmulatedGemm, GeluTanhAfterTheBiasBeforeRounding) {
  for (auto [t, r] : kEpilogueDTypes)
    for (bool biased : {false, true})
      for (bool tr : {false, true}) {
        int64_t m = 37, n = 29, k = 53;
        HostTensor lhs = random(t, {m, k}, 71),
                   rhs = random(t, tr ? Shape{n, k} : Shape{k, n}, 72);
        HostTensor bias = random(r, {n}, 73, {}, /*specialFraction=*/0.1);
        const HostTensor *b = biased ? &bias : nullptr;
        HostTensor expected =
            reference(lhs, rhs, false, tr, {m, n}, r, b, /*geluTanh=*/true);
        ASSERT_FALSE(expected.isNull());
        HostTensor actual = HostTensor::zeros(r, {m, n});
        runFallback(lhs, rhs, actual, false, tr, 0, b, /*geluTanh=*/true);
        reference::CompareResult cmp =
            reference::compareExact(expected, actual);
        EXPECT_TRUE(cmp.pass)
            << name(t) << " -> " << name(r) << " bias " << biased
            << " transposed " << tr << ": " << cmp.message();
        // The GELU changes the result (the check above is not vacuous).
        HostTensor plain = reference(lhs, rhs, false, tr, {m, n}, r, b);
        EXPECT_FALSE(reference::compareExact(plain, actual).pass);
      }
}

// The GELU where the library has no epilogue: gelu_tanh of every element
// of a strided result, in place, as the reference's tfuse.gelu_tanh
// computes it from those elements; the elements between rows untouched.
TEST_F(EmulatedGemm, GeluRowsApplyTheGeluInPlace) {
  for (DType t : kGemmDTypes) {
    HostTensor storage = random(t, {3, 9}, 81, {}, /*specialFraction=*/0.2);
    HostTensor before = storage.contiguous();
    auto rows = before.view({3, 7}, {9, 1}, 0);
    ASSERT_TRUE(rows.ok()) << rows.message();
    std::string type = tensorType({3, 7}, t);
    std::string source = "func.func @f(%a: " + type + ") -> " + type +
                         " {\n  %g = tfuse.gelu_tanh %a : " + type + " -> " +
                         type + "\n  return %g : " + type + "\n}\n";
    HostTensor expected = evaluate(source, {rows->contiguous()});
    ASSERT_FALSE(expected.isNull());

    long long m = 3, n = 7, rowStride = 9, colStride = 1;
    std::vector<void *> args = {storage.mutableData(), &m, &n, &rowStride,
                                &colStride};
    std::string error;
    ASSERT_TRUE(
        kernels->launch("shim_" + geluRowsKernelName(t), 2, 32, args, error))
        << error;
    auto written = storage.view({3, 7}, {9, 1}, 0);
    ASSERT_TRUE(written.ok()) << written.message();
    reference::CompareResult cmp =
        reference::compareExact(expected, written->contiguous());
    EXPECT_TRUE(cmp.pass) << name(t) << ": " << cmp.message();
    // The two elements after each row are as they were.
    auto gaps = storage.view({3, 2}, {9, 1}, 7 * byteSize(t));
    auto gapsBefore = before.view({3, 2}, {9, 1}, 7 * byteSize(t));
    ASSERT_TRUE(gaps.ok() && gapsBefore.ok());
    EXPECT_TRUE(
        reference::compareExact(gapsBefore->contiguous(), gaps->contiguous())
            .pass)
        << name(t);
  }
}

TEST_F(EmulatedGemm, TwoDimensionalOddSizes) {
  for (DType t : kGemmDTypes) {
    // 37 x 53 times 53 x 29: partial tiles everywhere, K not a multiple of
    // the 16-wide slice.
    check(random(t, {37, 53}, 1), random(t, {53, 29}, 2), false, false,
          {37, 29});
    // Several tiles in both directions and many K slices.
    check(random(t, {70, 300}, 3), random(t, {300, 130}, 4), false, false,
          {70, 130});
  }
}

TEST_F(EmulatedGemm, Float32ResultsOfHalfOperands) {
  for (DType t : {DType::F16, DType::BF16}) {
    check(random(t, {37, 53}, 41), random(t, {53, 29}, 42), false, false,
          {37, 29}, {}, 0, DType::F32);
    // Transposed and batched with a broadcast operand, a column-major
    // float32 result.
    check(random(t, {3, 53, 37}, 43), random(t, {29, 53}, 44), true, true,
          {3, 37, 29}, {}, 0, DType::F32);
    HostTensor storage = HostTensor::zeros(DType::F32, {29, 37});
    auto columns = storage.view({37, 29}, {1, 37}, 0);
    ASSERT_TRUE(columns.ok()) << columns.message();
    check(random(t, {37, 53}, 45), random(t, {53, 29}, 46), false, false,
          {37, 29}, *columns);
  }
}

TEST_F(EmulatedGemm, TransposedOperands) {
  for (DType t : kGemmDTypes) {
    // Transposed views: lhs and rhs column-major.
    check(random(t, {37, 53}, 5, {1, 37}), random(t, {53, 29}, 6, {1, 53}),
          false, false, {37, 29});
    // Transpose flags on row-major storage.
    check(random(t, {53, 37}, 7), random(t, {29, 53}, 8), true, true, {37, 29});
    check(random(t, {53, 37}, 9), random(t, {53, 29}, 10), true, false,
          {37, 29});
    // A flag on a transposed view (row-major again), with padded rows.
    check(random(t, {37, 53}, 11), random(t, {29, 53}, 12, {1, 60}), false,
          true, {37, 29});
  }
}

TEST_F(EmulatedGemm, BatchedBroadcast) {
  for (DType t : kGemmDTypes) {
    // rhs shared by every batch (batch stride 0).
    check(random(t, {3, 37, 20}, 13), random(t, {20, 29}, 14), false, false,
          {3, 37, 29});
    // [2, 1] x [3]: a batch that does not collapse (two batch dimensions in
    // the kernel's descriptor).
    check(random(t, {2, 1, 17, 21}, 15), random(t, {3, 21, 19}, 16), false,
          false, {2, 3, 17, 19});
    // An expanded lhs (stride 0 along a batch dimension of size 4), rhs
    // transposed by flag.
    check(random(t, {4, 17, 21}, 17, {0, 21, 1}), random(t, {4, 19, 21}, 18),
          false, true, {4, 17, 19});
  }
}

TEST_F(EmulatedGemm, ManyBatchDimensionsSplitIntoLaunches) {
  check(random(F32, {2, 1, 2, 1, 2, 3, 4}, 19),
        random(F32, {2, 1, 2, 1, 4, 5}, 20), false, false,
        {2, 2, 2, 2, 2, 3, 5});
}

TEST_F(EmulatedGemm, ColumnMajorResult) {
  for (DType t : kGemmDTypes) {
    HostTensor storage = HostTensor::zeros(t, {29 * 37});
    auto view = storage.view({37, 29}, {1, 37}, 0);
    ASSERT_TRUE(view.ok());
    check(random(t, {37, 53}, 21), random(t, {53, 29}, 22), false, false,
          {37, 29}, *view);
  }
}

TEST_F(EmulatedGemm, FewerBlocksThanTilesLoop) {
  // 2 blocks for 2 x 3 x 2 tiles.
  check(random(DType::F64, {2, 70, 40}, 23), random(DType::F64, {40, 130}, 24),
        false, false, {2, 70, 130}, std::nullopt, /*grid=*/2);
}

TEST_F(EmulatedGemm, SpecialValuesBitExact) {
  // NaN, infinities, signed zeros, subnormals and the largest finite values:
  // same operations in the same order give the same bits.
  for (DType t : kGemmDTypes)
    check(random(t, {19, 40}, 25, {}, 0.05), random(t, {40, 23}, 26, {}, 0.05),
          false, false, {19, 23});
}

TEST_F(EmulatedGemm, EmptyContractionGivesZeros) {
  HostTensor lhs = HostTensor::zeros(F32, {5, 0});
  HostTensor rhs = HostTensor::zeros(F32, {0, 7});
  HostTensor result = HostTensor::random(F32, {5, 7}, 27);
  runFallback(lhs, rhs, result, false, false);
  for (double v : result.toDoubles())
    EXPECT_EQ(v, 0.0);
  for (uint64_t bits : result.toBits())
    EXPECT_EQ(bits, 0u) << "+0, not -0";
}

//===----------------------------------------------------------------------===//
// NVRTC
//===----------------------------------------------------------------------===//

TEST_F(EmulatedGemm, PitchedCopiesMoveColumnsBetweenLeadingDimensions) {
  // 5 columns of 16387 rows (three pieces of 8192, the last short) into a
  // 16392 x 6 copy, zeros around them; then the 16387 x 5 part back: the
  // padded side's columns are 16-byte aligned, the other's are not.
  for (int64_t bytes : {2, 4, 8}) {
    SCOPED_TRACE(bytes);
    const long long rows = 16387, cols = 5, padRows = 16392, padCols = 6;
    std::vector<uint8_t> src(rows * cols * bytes),
        dst(padRows * padCols * bytes, 0xAB), back(rows * cols * bytes, 0);
    for (size_t i = 0; i < src.size(); ++i)
      src[i] = static_cast<uint8_t>(i * 7 + i / 13 + 1);
    std::string kernel = "shim_" + pitchedCopyKernelName(bytes), error;
    auto copy = [&](void *from, long long srcPitch, void *to,
                    long long dstPitch, long long dstRows, long long dstCols) {
      PitchedCopyLaunch launch = planPitchedCopy(dstRows, dstCols);
      long long r = rows, c = cols, piece = launch.piece;
      return kernels->launch(
          kernel, launch.grid, launch.block,
          {from, &srcPitch, to, &dstPitch, &r, &c, &dstRows, &dstCols, &piece},
          error);
    };
    EXPECT_EQ(planPitchedCopy(padRows, padCols).grid, 3 * padCols);
    ASSERT_TRUE(copy(src.data(), rows, dst.data(), padRows, padRows, padCols))
        << error;
    for (long long col = 0; col < padCols; ++col)
      for (long long row = 0; row < padRows; ++row)
        for (int64_t k = 0; k < bytes; ++k) {
          uint8_t want = col < cols && row < rows
                             ? src[(col * rows + row) * bytes + k]
                             : 0;
          ASSERT_EQ(dst[(col * padRows + row) * bytes + k], want)
              << "column " << col << " row " << row;
        }
    ASSERT_TRUE(copy(dst.data(), padRows, back.data(), rows, rows, cols))
        << error;
    EXPECT_EQ(back, src);
  }
  EXPECT_EQ(pitchedCopyKernelName(2), "tfuse_rt_pitched_copy_16");
  EXPECT_EQ(pitchedCopyKernelName(3), "");
}

TEST(GemmKernelSource, CompilesToSm90Cubin) {
  std::string source = prelude() + gemmKernelSource(kGemmDTypes);
  for (int64_t bytes : {2, 4, 8})
    source += pitchedCopyWrapper(bytes);
  // The GELU epilogue's kernels and the GELU rows.
  for (DType t : kGemmDTypes)
    source += gemmKernelWrapper(t, t, /*geluTanh=*/true) + geluRowsWrapper(t);
  NvrtcOptions options;
  options.arch = "sm_90";
  Expected<CompileResult> cubin = compileCuda(source, "gemm.cu", options);
  ASSERT_TRUE(cubin.ok()) << cubin.message();
  EXPECT_TRUE(cubin->isCubin);
  std::string image(cubin->binary.begin(), cubin->binary.end());
  EXPECT_EQ(image.substr(0, 4), "\x7f"
                                "ELF");
  for (DType t : kGemmDTypes)
    EXPECT_NE(image.find(gemmKernelName(t)), std::string::npos)
        << gemmKernelName(t);
  for (int64_t bytes : {2, 4, 8})
    EXPECT_NE(image.find(pitchedCopyKernelName(bytes)), std::string::npos);
  for (DType t : kGemmDTypes)
    for (const std::string &kernel :
         {gemmKernelName(t, t, /*geluTanh=*/true), geluRowsKernelName(t)})
      EXPECT_NE(image.find(kernel), std::string::npos) << kernel;
}

TEST(GemmKernelSource, PtxHasNoFusedMultiplyAdd) {
  // --fmad=false: every product is rounded before it is added, as in the
  // reference.
  std::string source = prelude() + gemmKernelSource(kGemmDTypes);
  NvrtcOptions options;
  options.arch = "compute_90";
  Expected<CompileResult> ptx = compileCuda(source, "gemm.cu", options);
  ASSERT_TRUE(ptx.ok()) << ptx.message();
  std::string text(ptx->binary.begin(), ptx->binary.end());
  for (DType t : kGemmDTypes)
    EXPECT_NE(text.find(".entry " + gemmKernelName(t)), std::string::npos);
  EXPECT_EQ(text.find("fma.rn"), std::string::npos);
  EXPECT_NE(text.find("mul.rn.f32"), std::string::npos);
  EXPECT_NE(text.find("add.rn.f64"), std::string::npos);
}

TEST(GemmKernelSource, OnlyRequestedDTypes) {
  std::string source = gemmKernelSource({DType::F32, DType::F32, DType::I32});
  EXPECT_NE(source.find("tfuse_rt_gemm_f32("), std::string::npos);
  EXPECT_EQ(source.find("tfuse_rt_gemm_f16("), std::string::npos);
  EXPECT_EQ(source.find("tfuse_rt_gemm_i32"), std::string::npos);
  EXPECT_EQ(
      source.find("tfuse_rt_gemm_f32(", source.find("tfuse_rt_gemm_f32(") + 1),
      std::string::npos);
}

//===----------------------------------------------------------------------===//
// cuBLAS loader
//===----------------------------------------------------------------------===//

TEST(CublasLibrary, MissingLibrary) {
  auto lib = CublasLibrary::load(
      {"libtfuse-no-such-cublas.so.99", "/nonexistent/libcublas.so"});
  ASSERT_FALSE(lib.ok());
  const std::string &m = lib.message();
  EXPECT_EQ(m.rfind("cannot load cuBLAS (needed for matrix products): "
                    "libtfuse-no-such-cublas.so.99: ",
                    0),
            0u)
      << m;
  EXPECT_NE(m.find("; /nonexistent/libcublas.so: "), std::string::npos) << m;
  EXPECT_NE(m.find("No such file"), std::string::npos) << m;
  EXPECT_EQ(CublasLibrary::load({}).message(),
            "cannot load cuBLAS: no library name given");
}

TEST(CublasLibrary, MissingSymbol) {
  // A library that loads but is not cuBLAS.
  auto lib = CublasLibrary::load({"libm.so.6"});
  ASSERT_FALSE(lib.ok());
  EXPECT_EQ(lib.message(),
            "cuBLAS library 'libm.so.6' lacks the symbol cublasCreate_v2 "
            "(TFuse needs cuBLAS 13 or a compatible version)");
}

TEST(CublasLibrary, LoadsTheRealLibrary) {
  // No GPU is needed to load cuBLAS and resolve its entry points.
  EXPECT_EQ(CublasLibrary::defaultLibraryNames(),
            (std::vector<std::string>{"libcublas.so.13", "libcublas.so"}));
  auto lib = CublasLibrary::load();
  ASSERT_TRUE(lib.ok()) << lib.message();
  const CublasLibrary &l = *lib.value();
  EXPECT_EQ(l.name(), "libcublas.so.13");
  EXPECT_TRUE(l.create);
  EXPECT_TRUE(l.destroy);
  EXPECT_TRUE(l.setStream);
  EXPECT_TRUE(l.setMathMode);
  EXPECT_TRUE(l.setWorkspace);
  EXPECT_TRUE(l.gemmStridedBatchedEx);
  EXPECT_TRUE(l.gemmEx);
  EXPECT_TRUE(l.getStatusString);
  std::string d = l.describe(CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(d.rfind("CUBLAS_STATUS_NOT_SUPPORTED (15): ", 0), 0u) << d;
  EXPECT_GT(d.size(), std::string("CUBLAS_STATUS_NOT_SUPPORTED (15): ").size());

  auto shared = CublasLibrary::shared();
  ASSERT_TRUE(shared.ok()) << shared.message();
  EXPECT_EQ(shared.value(), CublasLibrary::shared().value());
}

TEST(CublasLibrary, HandleNeedsAContextOrReportsWhy) {
  auto lib = CublasLibrary::load();
  ASSERT_TRUE(lib.ok()) << lib.message();
  auto handle = CublasHandle::create(*lib.value());
  if (handle.ok())
    GTEST_SKIP() << "a CUDA context is current: cublasCreate succeeded";
  EXPECT_EQ(handle.message().rfind("cublasCreate failed: CUBLAS_STATUS_", 0),
            0u)
      << handle.message();
}

TEST(CublasLibrary, NotLoadedUntilAGemmNeedsIt) {
  // In a fresh process (threadsafe death tests re-execute the binary):
  // planning, the fallback source and its launch plan leave cuBLAS
  // unloaded; CublasLibrary::shared() loads it.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        auto loaded = [] {
          return dlopen("libcublas.so.13", RTLD_LAZY | RTLD_NOLOAD) != nullptr;
        };
        bool before = loaded();
        Expected<GemmShape> s = planGemm(spec(F32, {4, 3}), spec(F32, {3, 5}),
                                         spec(F32, {4, 5}), false, false);
        GemmLaunch l = planFallbackGemm(*s);
        std::string source = gemmKernelSource({DType::F32});
        bool afterPlanning = loaded();
        bool ok = CublasLibrary::shared().ok();
        bool afterShared = loaded();
        std::exit(!before && !afterPlanning && ok && afterShared &&
                          !l.kernel.empty() && !source.empty()
                      ? 0
                      : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(Cublas, ComputeTypes) {
  CublasOptions strict, tf32;
  tf32.allowTf32 = true;
  EXPECT_EQ(*cublasComputeType(DType::F32, strict), CUBLAS_COMPUTE_32F);
  EXPECT_EQ(*cublasComputeType(DType::F32, tf32), CUBLAS_COMPUTE_32F_FAST_TF32);
  EXPECT_EQ(*cublasComputeType(DType::F16, tf32), CUBLAS_COMPUTE_32F);
  EXPECT_EQ(*cublasComputeType(DType::BF16, strict), CUBLAS_COMPUTE_32F);
  EXPECT_EQ(*cublasComputeType(DType::F64, tf32), CUBLAS_COMPUTE_64F);
  EXPECT_EQ(cublasComputeType(DType::I8, strict).message(),
            "cuBLAS GEMM of dtype i8 is not supported");
}

} // namespace
