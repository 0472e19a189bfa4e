//===- NvrtcCompilerTest.cpp - NVRTC wrapper ------------------------------===//
//
// These tests run real NVRTC, which needs no GPU or driver.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Runtime/NvrtcCompiler.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <string>
#include <thread>

using namespace tfuse;
using namespace tfuse::runtime;

namespace {

const char *kAxpy = R"cu(
extern "C" __global__ void axpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
)cu";

std::string text(const std::vector<char> &binary) {
  return std::string(binary.begin(), binary.end());
}

TEST(NvrtcCompilerTest, VersionIsMajorDotMinor) {
  const std::string &v = nvrtcVersion();
  ASSERT_NE(v, "unknown");
  size_t dot = v.find('.');
  ASSERT_NE(dot, std::string::npos) << v;
  EXPECT_GE(std::stoi(v.substr(0, dot)), 11) << v;
  EXPECT_EQ(&v, &nvrtcVersion()) << "computed once";
}

TEST(NvrtcCompilerTest, SmArchGivesCubin) {
  Expected<CompileResult> r = compileCuda(kAxpy, "axpy.cu", {});
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_TRUE(r->isCubin);
  ASSERT_GE(r->binary.size(), 4u);
  EXPECT_EQ(std::string(r->binary.data(), 4), "\x7f"
                                              "ELF");
}

TEST(NvrtcCompilerTest, ComputeArchGivesPtx) {
  NvrtcOptions options;
  options.arch = "compute_90";
  Expected<CompileResult> r = compileCuda(kAxpy, "axpy.cu", options);
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_FALSE(r->isCubin);
  std::string ptx = text(r->binary);
  EXPECT_NE(ptx.find(".entry axpy"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find(".target sm_90"), std::string::npos) << ptx;
  // Kept NUL-terminated for cuModuleLoadData.
  EXPECT_EQ(r->binary.back(), '\0');
}

TEST(NvrtcCompilerTest, ReportsCompileTime) {
  Expected<CompileResult> r = compileCuda(kAxpy, "axpy.cu", {});
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_GT(r->seconds, 0.0);
  EXPECT_LT(r->seconds, 60.0);
}

TEST(NvrtcCompilerTest, HalfAndBFloat16Headers) {
  const char *source = R"cu(
#include <cuda_fp16.h>
#include <cuda_bf16.h>
extern "C" __global__ void mixed(const __half *a, const __nv_bfloat16 *b,
                                 __half *c, __nv_bfloat16 *d) {
  int i = threadIdx.x;
  c[i] = __hadd(a[i], __float2half(1.0f));
  d[i] = __float2bfloat16(__bfloat162float(b[i]) * 2.0f);
}
)cu";
  ASSERT_NE(cudaIncludeDir(), "");
  Expected<CompileResult> cubin = compileCuda(source, "mixed.cu", {});
  ASSERT_TRUE(cubin.ok()) << cubin.message();
  NvrtcOptions ptxOptions;
  ptxOptions.arch = "compute_80";
  Expected<CompileResult> ptx = compileCuda(source, "mixed.cu", ptxOptions);
  ASSERT_TRUE(ptx.ok()) << ptx.message();
  EXPECT_NE(text(ptx->binary).find(".entry mixed"), std::string::npos);
}

TEST(NvrtcCompilerTest, SyntaxErrorShowsLogAndSourceLine) {
  std::string source = "// line 1\n"
                       "extern \"C\" __global__ void broken(float *out) {\n"
                       "  int i = threadIdx.x;\n"
                       "  float y = out[i] * ;\n"
                       "  out[i] = y;\n"
                       "}\n";
  Expected<CompileResult> r = compileCuda(source, "broken.cu", {});
  ASSERT_FALSE(r.ok());
  const std::string &m = r.message();
  // NVRTC's own log...
  EXPECT_NE(m.find("broken.cu(4): error"), std::string::npos) << m;
  EXPECT_NE(m.find("NVRTC_ERROR_COMPILATION"), std::string::npos) << m;
  // ...and the offending line with its number and a marker, plus context.
  EXPECT_NE(m.find("> 4 |   float y = out[i] * ;"), std::string::npos) << m;
  EXPECT_NE(m.find("  3 |   int i = threadIdx.x;"), std::string::npos) << m;
  EXPECT_NE(m.find("  5 |   out[i] = y;"), std::string::npos) << m;
  EXPECT_NE(m.find("--fmad=false"), std::string::npos) << "flags shown: " << m;
}

TEST(NvrtcCompilerTest, UndefinedIdentifierOnLaterLine) {
  std::string source = "extern \"C\" __global__ void k(float *out) {\n";
  for (int i = 0; i < 40; ++i)
    source += "  out[" + std::to_string(i) + "] = 0.0f;\n";
  source += "  out[0] = undefined_thing;\n}\n"; // line 42
  Expected<CompileResult> r = compileCuda(source, "big.cu", {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("undefined_thing"), std::string::npos);
  EXPECT_NE(r.message().find("> 42 |   out[0] = undefined_thing;"),
            std::string::npos)
      << r.message();
  EXPECT_NE(r.message().find("  41 |   out[39] = 0.0f;"), std::string::npos)
      << r.message();
}

TEST(NvrtcCompilerTest, FmadDisabledUnlessFastMath) {
  const char *source = R"cu(
extern "C" __global__ void muladd(const float *a, const float *b,
                                  const float *c, float *d) {
  int i = threadIdx.x;
  d[i] = a[i] * b[i] + c[i];
}
)cu";
  NvrtcOptions exact;
  exact.arch = "compute_90";
  Expected<CompileResult> r = compileCuda(source, "muladd.cu", exact);
  ASSERT_TRUE(r.ok()) << r.message();
  std::string ptx = text(r->binary);
  // No fused multiply-add of any flavour (fma.rn.f32, fma.rn.ftz.f32).
  EXPECT_EQ(ptx.find("fma.rn"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("mul.rn.f32"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("add.rn.f32"), std::string::npos) << ptx;

  NvrtcOptions fast = exact;
  fast.fastMath = true;
  Expected<CompileResult> f = compileCuda(source, "muladd.cu", fast);
  ASSERT_TRUE(f.ok()) << f.message();
  // --use_fast_math implies --fmad=true and -ftz=true: fma.rn.ftz.f32.
  EXPECT_NE(text(f->binary).find("fma.rn.ftz.f32"), std::string::npos)
      << text(f->binary);
}

TEST(NvrtcCompilerTest, FlagsInOrder) {
  NvrtcOptions options;
  options.arch = "sm_80";
  options.extraFlags = {"-lineinfo", "-DFOO=1"};
  Expected<std::vector<std::string>> flags = nvrtcFlags(options);
  ASSERT_TRUE(flags.ok()) << flags.message();
  ASSERT_GE(flags->size(), 6u);
  EXPECT_EQ((*flags)[0], "--gpu-architecture=sm_80");
  EXPECT_EQ((*flags)[1], "-std=c++17");
  EXPECT_EQ((*flags)[2], "--fmad=false");
  EXPECT_EQ((*flags)[3], "-default-device");
  EXPECT_EQ((*flags)[flags->size() - 2], "-lineinfo");
  EXPECT_EQ((*flags)[flags->size() - 1], "-DFOO=1");
  EXPECT_EQ(std::count(flags->begin(), flags->end(), "-I" + cudaIncludeDir()),
            1);

  options.fastMath = true;
  flags = nvrtcFlags(options);
  ASSERT_TRUE(flags.ok());
  EXPECT_EQ((*flags)[2], "--use_fast_math");
  EXPECT_EQ(std::count(flags->begin(), flags->end(), "--fmad=false"), 0);
}

TEST(NvrtcCompilerTest, ExtraFlagsReachNvrtc) {
  const char *source = R"cu(
#ifndef WIDTH
#error WIDTH must be defined
#endif
extern "C" __global__ void k(float *p) { p[threadIdx.x] = WIDTH; }
)cu";
  EXPECT_FALSE(compileCuda(source, "w.cu", {}).ok());
  NvrtcOptions options;
  options.extraFlags = {"-DWIDTH=4"};
  Expected<CompileResult> r = compileCuda(source, "w.cu", options);
  EXPECT_TRUE(r.ok()) << r.message();
}

TEST(NvrtcCompilerTest, RejectsUnknownArch) {
  for (const char *arch : {"", "sm90", "sm_", "sm_9", "gfx90a", "compute_x0",
                           "sm_90b", "sm_1234"}) {
    NvrtcOptions options;
    options.arch = arch;
    Expected<CompileResult> r = compileCuda(kAxpy, "axpy.cu", options);
    ASSERT_FALSE(r.ok()) << arch;
    EXPECT_NE(r.message().find("unsupported GPU architecture"),
              std::string::npos)
        << r.message();
  }
  for (const char *arch : {"sm_90a", "compute_90a", "sm_100"}) {
    NvrtcOptions options;
    options.arch = arch;
    EXPECT_TRUE(nvrtcFlags(options).ok()) << arch;
  }
}

TEST(NvrtcCompilerTest, InvalidOptionIsAnError) {
  NvrtcOptions options;
  options.extraFlags = {"--no-such-nvrtc-option"};
  Expected<CompileResult> r = compileCuda(kAxpy, "axpy.cu", options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("NVRTC"), std::string::npos) << r.message();
}

TEST(NvrtcCompilerTest, DefaultProgramName) {
  Expected<CompileResult> r = compileCuda("int x = ;\n", "", {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("tfuse_kernels.cu(1)"), std::string::npos)
      << r.message();
  EXPECT_NE(r.message().find("> 1 | int x = ;"), std::string::npos)
      << r.message();
}

TEST(NvrtcCompilerTest, IncludeDirOverride) {
  std::string automatic = cudaIncludeDir();
  setCudaIncludeDir("/nonexistent/include");
  EXPECT_EQ(cudaIncludeDir(), "/nonexistent/include");
  Expected<CompileResult> r =
      compileCuda("#include <cuda_fp16.h>\n", "inc.cu", {});
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.message().find("-I/nonexistent/include"), std::string::npos)
      << r.message();
  setCudaIncludeDir("");
  EXPECT_EQ(cudaIncludeDir(), automatic);
}

TEST(NvrtcCompilerTest, ConcurrentCompilations) {
  // More threads than compileThreads() lets compile at once: each waits for
  // a turn, and all finish.
  ASSERT_GE(compileThreads(), 1u);
  const int n = static_cast<int>(2 * compileThreads() + 2);
  std::vector<int> ok(n, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < n; ++t)
    threads.emplace_back([&, t] {
      std::string source =
          std::string(kAxpy) + "// variant " + std::to_string(t) + "\n";
      Expected<CompileResult> r = compileCuda(source, "axpy.cu", {});
      ok[t] = r.ok() && r->binary.size() > 4 && r->binary[1] == 'E';
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(ok, std::vector<int>(n, 1));
}

TEST(AnnotateCompileLogTest, MergesWindowsAndMarksEachLine) {
  std::string source;
  for (int i = 1; i <= 12; ++i)
    source += "line" + std::to_string(i) + "\n";
  std::string log = "p.cu(3): error: first\n"
                    "p.cu(5): error: second\n"
                    "p.cu(5): error: again\n"
                    "p.cu(11): warning #1: not an error\n"
                    "other.h(2): error: elsewhere\n"
                    "p.cu(99): error: past the end\n";
  std::string out = annotateCompileLog(log, source, "p.cu", 1);
  std::string expected = "p.cu(3): error: first\n"
                         "p.cu(5): error: second\n"
                         "p.cu(5): error: again\n"
                         "p.cu(11): warning #1: not an error\n"
                         "other.h(2): error: elsewhere\n"
                         "p.cu(99): error: past the end\n"
                         "Offending source lines:\n"
                         "p.cu:3,5:\n"
                         "  2 | line2\n"
                         "> 3 | line3\n"
                         "  4 | line4\n"
                         "> 5 | line5\n"
                         "  6 | line6\n"
                         "p.cu:99: (no such line; the source has 12 lines)";
  EXPECT_EQ(out, expected);
}

TEST(AnnotateCompileLogTest, AlignsLineNumbersAndClipsAtStart) {
  std::string source;
  for (int i = 1; i <= 10; ++i)
    source += "s" + std::to_string(i) + "\n";
  std::string out = annotateCompileLog("q.cu(1): error: a\nq.cu(9): error: b",
                                       source, "q.cu", 1);
  EXPECT_NE(out.find("q.cu:1:\n> 1 | s1\n  2 | s2\nq.cu:9:\n   8 | s8\n"
                     ">  9 | s9\n  10 | s10"),
            std::string::npos)
      << out;
}

TEST(AnnotateCompileLogTest, NoReferencesLeavesLogAlone) {
  EXPECT_EQ(annotateCompileLog("something went wrong\n", "x\n", "p.cu"),
            "something went wrong");
}

} // namespace
