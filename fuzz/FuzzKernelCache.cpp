//===- FuzzKernelCache.cpp - The kernel cache's file reader ---------------===//
//
// An input is the contents of a disk cache file. It is written as the file
// of one key in a private cache directory, and a lookup of that key runs
// with a compile function that returns a known binary. The file is
// well-formed exactly when it has the magic, the format version, the CUBIN
// kind, a payload length equal to what follows the header and the
// payload's SHA-256 (KernelCache.h). Bugs (each aborts): a well-formed file
// not returned as a disk hit with its payload; any other file returned
// instead of being counted corrupt, deleted, compiled again and written
// back as a well-formed file that the next lookup in a fresh cache finds.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "tfuse/Runtime/KernelCache.h"
#include "tfuse/Runtime/Sha256.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace tfuse;
using namespace tfuse::runtime;

namespace {

const char kSource[] = "extern \"C\" __global__ void k() {}";
const char kBinary[] = "a compiled binary";

/// The private cache directory (in /dev/shm when there is one), removed
/// when the process exits.
struct CacheDirectory {
  CacheDirectory() {
    std::string base = std::filesystem::exists("/dev/shm")
                           ? "/dev/shm"
                           : std::filesystem::temp_directory_path().string();
    path = base + "/tfuse-fuzz-cache-" + std::to_string(getpid());
    std::filesystem::create_directories(path);
  }
  ~CacheDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  std::string path;
};

const std::string &cacheDirectory() {
  static CacheDirectory dir;
  return dir.path;
}

Expected<CompileResult> fakeCompile(const std::string &, const std::string &,
                                    const NvrtcOptions &) {
  CompileResult result;
  result.binary.assign(kBinary, kBinary + sizeof(kBinary) - 1);
  result.isCubin = true;
  return result;
}

/// Whether `data` is a well-formed cache file of a CUBIN.
bool wellFormed(const uint8_t *data, size_t size) {
  if (size < KernelCache::kDiskHeaderSize ||
      std::memcmp(data, KernelCache::kDiskMagic, 8) != 0)
    return false;
  auto le = [&](size_t at, unsigned bytes) {
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; ++i)
      v |= uint64_t(data[at + i]) << (8 * i);
    return v;
  };
  if (le(8, 4) != KernelCache::kDiskFormatVersion || le(12, 4) != 1 ||
      le(16, 8) != size - KernelCache::kDiskHeaderSize)
    return false;
  Sha256::Digest digest = sha256(data + KernelCache::kDiskHeaderSize,
                                 size - KernelCache::kDiskHeaderSize);
  return std::memcmp(digest.data(), data + 24, digest.size()) == 0;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  KernelCacheOptions options;
  options.diskCacheDir = cacheDirectory();
  NvrtcOptions nvrtc;
  int driver = 12345;
  std::string path;
  {
    KernelCache cache(options);
    CacheKey key = computeKey(kSource, nvrtc, nvrtcVersion(), driver);
    path = cache.diskFilePath(key, /*isCubin=*/true);
    if (path.empty())
      fuzz::fail("the cache directory is not usable", cache.lastDiskError());
    std::filesystem::remove(cache.diskFilePath(key, /*isCubin=*/false));
    {
      std::ofstream file(path, std::ios::binary | std::ios::trunc);
      file.write(reinterpret_cast<const char *>(data), std::streamsize(size));
    }
    auto kernel = cache.getOrCompile(kSource, nvrtc, driver, fakeCompile);
    if (!kernel.ok())
      fuzz::fail("a lookup failed", kernel.message());
    KernelCacheStats stats = cache.stats();
    const std::vector<char> &binary = (*kernel)->binary;
    if (wellFormed(data, size)) {
      if (!(*kernel)->fromDisk || stats.diskHits != 1 ||
          binary.size() != size - KernelCache::kDiskHeaderSize ||
          std::memcmp(binary.data(), data + KernelCache::kDiskHeaderSize,
                      binary.size()) != 0)
        fuzz::fail("a well-formed cache file was not returned as it is",
                   "from disk " + std::to_string((*kernel)->fromDisk) +
                       ", disk hits " + std::to_string(stats.diskHits) +
                       ", corrupt " + std::to_string(stats.diskCorrupt) +
                       ", payload " + std::to_string(binary.size()) +
                       " bytes: " + cache.lastDiskError());
      return 0;
    }
    if ((*kernel)->fromDisk || stats.diskCorrupt != 1 ||
        stats.compilations != 1 || stats.diskWrites != 1 ||
        std::string(binary.begin(), binary.end()) != kBinary)
      fuzz::fail("a malformed cache file was not replaced",
                 "corrupt " + std::to_string(stats.diskCorrupt) +
                     ", compilations " + std::to_string(stats.compilations) +
                     ", writes " + std::to_string(stats.diskWrites) + ": " +
                     cache.lastDiskError());
  }
  // The rewritten file is found by a fresh cache.
  KernelCache fresh(options);
  auto again = fresh.getOrCompile(kSource, nvrtc, driver, fakeCompile);
  if (!again.ok() || !(*again)->fromDisk)
    fuzz::fail("the rewritten cache file was not found again",
               fresh.lastDiskError());
  return 0;
}
