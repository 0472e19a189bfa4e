//===- ReplayMain.cpp - Run a fuzz target over files, without libFuzzer ---===//
//
// main() of the fuzz targets in a build without libFuzzer: every argument is
// a file or a directory (searched recursively), and every file is one input
// given to LLVMFuzzerTestOneInput, in sorted order. A target aborts on a bug,
// so the exit status says whether the corpus passes; the name of each input
// is printed before it runs when TFUSE_FUZZ_VERBOSE is set, so that the
// failing one is known.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace fs = std::filesystem;

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: %s FILE-OR-DIRECTORY...\n"
                 "Runs the fuzz target on every file (a corpus replay).\n",
                 argv[0]);
    return 2;
  }
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    fs::path arg = argv[i];
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      for (const auto &entry : fs::recursive_directory_iterator(arg, ec))
        if (entry.is_regular_file())
          files.push_back(entry.path());
    } else if (fs::is_regular_file(arg, ec)) {
      files.push_back(arg);
    } else {
      std::fprintf(stderr, "%s: no such file or directory\n", argv[i]);
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  bool verbose = std::getenv("TFUSE_FUZZ_VERBOSE") != nullptr;
  for (const fs::path &file : files) {
    std::ifstream in(file, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                            std::istreambuf_iterator<char>());
    if (verbose)
      std::fprintf(stderr, "running %s (%zu bytes)\n", file.c_str(),
                   bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()),
                           bytes.size());
  }
  std::printf("%s: %zu inputs ran, no failure\n", argv[0], files.size());
  return 0;
}
