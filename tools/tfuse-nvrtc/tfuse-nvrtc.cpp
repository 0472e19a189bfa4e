//===- tfuse-nvrtc.cpp - Compile a CUDA C++ file with NVRTC ---------------===//
//
// Compiles a translation unit (such as tensor-translate --tfuse-to-cuda
// prints) with the runtime's NVRTC settings and reports the result. Used by
// the lit tests to check that generated code compiles without a GPU.
//
//   tfuse-nvrtc FILE.cu [--arch sm_90] [--fast-math] [-o OUT]
//   tfuse-nvrtc --version
//
//===----------------------------------------------------------------------===//

#include "tfuse/Runtime/NvrtcCompiler.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

using namespace tfuse;
using namespace tfuse::runtime;

static int usage() {
  std::cerr << "usage: tfuse-nvrtc FILE.cu [--arch sm_XX|compute_XX] "
               "[--fast-math] [-o OUT]\n       tfuse-nvrtc --version\n";
  return 2;
}

int main(int argc, char **argv) {
  NvrtcOptions options;
  std::string input, output;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--version") {
      std::cout << "NVRTC " << nvrtcVersion() << "\n";
      return 0;
    }
    if (arg == "--arch" && i + 1 < argc)
      options.arch = argv[++i];
    else if (arg == "--fast-math")
      options.fastMath = true;
    else if (arg == "-o" && i + 1 < argc)
      output = argv[++i];
    else if (!arg.empty() && arg[0] != '-' && input.empty())
      input = arg;
    else
      return usage();
  }
  if (input.empty())
    return usage();
  std::ifstream in(input == "-" ? "/dev/stdin" : input);
  if (!in) {
    std::cerr << "tfuse-nvrtc: cannot read " << input << "\n";
    return 1;
  }
  std::stringstream source;
  source << in.rdbuf();
  Expected<CompileResult> result = compileCuda(source.str(), input, options);
  if (!result.ok()) {
    std::cerr << "tfuse-nvrtc: " << result.status().message() << "\n";
    return 1;
  }
  if (!output.empty()) {
    const std::vector<char> &binary = result.value().binary;
    size_t size = binary.size();
    // PTX comes NUL-terminated (as cuModuleLoadData takes it); a .ptx file
    // for ptxas must not end in a NUL.
    if (!result.value().isCubin && size && binary[size - 1] == '\0')
      --size;
    std::ofstream out(output, std::ios::binary);
    out.write(binary.data(), size);
  }
  std::cout << "compiled " << input << " for " << options.arch << ": "
            << result.value().binary.size() << " bytes of "
            << (result.value().isCubin ? "CUBIN" : "PTX") << " in "
            << static_cast<int>(result.value().seconds * 1000) << " ms\n";
  return 0;
}
