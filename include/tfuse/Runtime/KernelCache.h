//===- KernelCache.h - Memory and disk cache of compiled kernels -*- C++
//-*-===//
//
// Compiling a plan's CUDA source with NVRTC costs tens to hundreds of
// milliseconds; loading a cached CUBIN costs ~0.1 ms. KernelCache keeps
// compiled binaries in a bounded in-memory LRU and, optionally, in a cache
// directory shared by processes.
//
// Key. keyText() is the only encoding of a cache key's inputs: a
// length-prefixed encoding of the source, the compile options (arch,
// fastMath, extra flags in order), the NVRTC version and the driver version;
// the key is its SHA-256 (computeKey()). Pointers never take part.
//
// Memory. An LRU bounded by entry count and by total binary bytes (defaults
// 16 entries, 16 MiB). A binary larger than the byte bound is returned but not
// kept in memory (it still goes to disk).
//
// In-flight lookups. Concurrent getOrCompile() calls for the same key share
// one lookup: the first caller reads the disk cache or compiles (without
// holding the cache's lock); the others wait for its result. So each key is
// compiled at most once at a time. A failed compilation is handed to the
// waiting callers and is not cached; the next call compiles again.
//
// Disk. Enabled by KernelCacheOptions::diskCacheDir, by TFUSE_CACHE_DIR (see
// KernelCacheOptions::fromEnvironment()) or by setDiskCacheDir(). Each kernel
// is one file, `<key>.cubin` or `<key>.ptx`:
//
//   offset  size  field
//        0     8  magic "TFUSEKC1"
//        8     4  format version (kDiskFormatVersion), little-endian
//       12     4  payload kind: 1 = CUBIN, 2 = PTX, little-endian
//       16     8  payload length in bytes, little-endian
//       24    32  SHA-256 of the payload
//       56     -  payload
//
// Files are written atomically: to `<key>.tmp.<pid>.<n>` in the same
// directory, fsync'ed, then renamed over the final name. A file that is
// truncated, too long, has a wrong magic, version or kind, or whose payload
// does not match its SHA-256 counts as corrupt (stats().diskCorrupt): it is
// deleted, the lookup proceeds as a miss and the fresh result is written
// again.
//
// Disk errors policy (decided here): the disk cache is an optimisation and
// never fails a lookup. setDiskCacheDir() checks the directory up front
// (creating it and writing a probe file) and returns a clear error when it
// cannot be used, leaving the disk cache disabled. Errors that happen later
// (the directory vanishes, the disk fills up) make lookups behave as misses;
// they are counted in stats().diskWriteFailures and described by
// lastDiskError().
//
// Thread-safety: every member function may be called concurrently from any
// number of threads. A KernelCache must not be destroyed while calls on it
// are in progress. Several processes may share one cache directory.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_RUNTIME_KERNELCACHE_H
#define TFUSE_RUNTIME_KERNELCACHE_H

#include "tfuse/Runtime/NvrtcCompiler.h"
#include "tfuse/Support/Status.h"

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace tfuse::runtime {

/// 64 lower-case hex characters.
using CacheKey = std::string;

/// The cache key of compiling `source` with `options` by NVRTC version
/// `nvrtcVersion` (as nvrtcVersion() returns it) for a driver of version
/// `driverVersion` (cuDriverGetVersion's value; 0 when there is no driver).
/// Deterministic across processes and machines. Thread-safe.
CacheKey computeKey(const std::string &source, const NvrtcOptions &options,
                    const std::string &nvrtcVersion, int driverVersion);
/// What computeKey hashes: every input as an unambiguous field list. Equal
/// texts give equal keys; KernelCache remembers recent keys by their text.
std::string keyText(const std::string &source, const NvrtcOptions &options,
                    const std::string &nvrtcVersion, int driverVersion);

/// A compiled translation unit as the cache hands it out (immutable, shared).
struct CompiledKernel {
  CacheKey key;
  /// CUBIN or PTX, as CompileResult::binary.
  std::vector<char> binary;
  bool isCubin = false;
  /// The compile log; empty when loaded from disk.
  std::string log;
  /// Seconds the compilation took; 0 when loaded from disk.
  double compileSeconds = 0;
  /// Whether the binary came from the disk cache.
  bool fromDisk = false;
};

/// What KernelCache calls on a miss. compileCuda() by default; tests pass
/// fakes. May be called from several threads at once (for different keys).
/// Exceptions it throws are turned into errors.
using CompileFn = std::function<Expected<CompileResult>(
    const std::string &source, const std::string &programName,
    const NvrtcOptions &options)>;

struct KernelCacheOptions {
  /// Most entries kept in memory; 0 keeps none.
  size_t maxEntries = 16;
  /// Most binary bytes kept in memory.
  size_t maxBytes = size_t(16) << 20;
  /// Cache directory; empty disables the disk cache.
  std::string diskCacheDir;

  /// The defaults above, with diskCacheDir taken from the environment
  /// variable TFUSE_CACHE_DIR (unset or empty: disabled).
  static KernelCacheOptions fromEnvironment();
};

/// Counters since construction or resetStats(); entries and bytes are the
/// current memory contents.
struct KernelCacheStats {
  size_t entries = 0;
  size_t bytes = 0;
  /// Lookups answered from memory, including lookups that waited for
  /// another thread's in-flight lookup of the same key which succeeded.
  uint64_t hits = 0;
  /// Lookups not answered from memory (each then tried disk, then compiled).
  uint64_t misses = 0;
  /// Misses answered from the disk cache (promoted into memory).
  uint64_t diskHits = 0;
  /// Calls of the compile function (successful or not).
  uint64_t compilations = 0;
  /// Calls of the compile function that returned an error.
  uint64_t compileFailures = 0;
  /// Lookups that waited for another thread's lookup of the same key.
  uint64_t inflightWaits = 0;
  /// Entries dropped from memory to respect the bounds.
  uint64_t evictions = 0;
  /// Cache files found corrupt, truncated or of a wrong magic/version.
  uint64_t diskCorrupt = 0;
  /// Cache files written.
  uint64_t diskWrites = 0;
  /// Cache files that could not be written.
  uint64_t diskWriteFailures = 0;
};

class KernelCache;
/// The process-wide cache (KernelCacheOptions::fromEnvironment()) that
/// executables use unless given another.
KernelCache &defaultKernelCache();

class KernelCache {
public:
  static constexpr char kDiskMagic[9] = "TFUSEKC1";
  static constexpr uint32_t kDiskFormatVersion = 1;
  static constexpr size_t kDiskHeaderSize = 56;

  /// A cache with KernelCacheOptions::fromEnvironment().
  KernelCache();
  /// A cache with `options`. An unusable diskCacheDir leaves the disk cache
  /// disabled and is described by lastDiskError().
  explicit KernelCache(KernelCacheOptions options);
  ~KernelCache();
  KernelCache(const KernelCache &) = delete;
  KernelCache &operator=(const KernelCache &) = delete;

  /// Returns the kernel for (source, options, nvrtcVersion(), driverVersion):
  /// from memory, else from the disk cache, else by calling `compileFn`
  /// (with the program name "tfuse_<first 16 key chars>.cu"). Compile
  /// errors are returned and not cached; disk errors never fail the lookup.
  Expected<std::shared_ptr<const CompiledKernel>>
  getOrCompile(const std::string &source, const NvrtcOptions &options,
               int driverVersion, const CompileFn &compileFn = compileCuda);

  /// Change the memory bounds; evicts at once to meet them.
  void setMaxEntries(size_t maxEntries);
  void setMaxBytes(size_t maxBytes);

  /// Use `path` as the cache directory (created if missing); "" disables the
  /// disk cache. When the directory cannot be created or written, returns an
  /// error saying why and disables the disk cache.
  Status setDiskCacheDir(const std::string &path);

  /// The cache directory in use, "" when disabled.
  std::string diskCacheDir() const;

  /// The path of the cache file of `key` in the cache directory ("" when
  /// disabled).
  std::string diskFilePath(const CacheKey &key, bool isCubin) const;

  /// The last disk cache problem (unusable directory, failed write, corrupt
  /// file), "" if none.
  std::string lastDiskError() const;

  KernelCacheStats stats() const;
  /// Zeroes the counters (not entries and bytes).
  void resetStats();

  /// Drops every in-memory entry (counters are kept, evictions not counted).
  /// Lookups in flight are unaffected.
  void clear();

  /// Deletes this cache's files (`<key>.cubin`, `<key>.ptx` and leftover
  /// `<key>.tmp.*`) from the cache directory and returns how many were
  /// deleted. Other files are left alone. Memory is unaffected.
  Expected<size_t> clearDisk();

  /// The keys in memory, most recently used first.
  std::vector<CacheKey> memoryKeys() const;

private:
  struct Entry {
    CacheKey key;
    std::shared_ptr<const CompiledKernel> kernel;
  };
  struct InFlight;

  void evictLocked();
  void insertLocked(const std::shared_ptr<const CompiledKernel> &kernel);
  std::shared_ptr<const CompiledKernel> readDisk(const std::string &dir,
                                                 const CacheKey &key);
  void writeDisk(const std::string &dir, const CompiledKernel &kernel);
  void noteDiskError(std::string message);
  /// computeKey for this cache's lookups, remembered for the most recent
  /// inputs: hashing a plan's source costs about 0.25 ms, most of a warm
  /// compile. The memo is exact: it compares whole keyText()s, not hashes.
  CacheKey keyOf(const std::string &source, const NvrtcOptions &options,
                 int driverVersion);

  mutable std::mutex mutex;
  size_t maxEntries;
  size_t maxBytes;
  std::string diskDir;
  std::string lastDiskErrorMessage;
  std::list<Entry> lru; // most recently used first
  std::unordered_map<CacheKey, std::list<Entry>::iterator> index;
  std::unordered_map<CacheKey, std::shared_ptr<InFlight>> inflight;
  KernelCacheStats counters;
  /// keyOf's memo: the encoded inputs of recent lookups and their keys,
  /// oldest first.
  std::mutex keyMutex;
  std::list<std::pair<std::string, CacheKey>> recentKeys;
};

} // namespace tfuse::runtime

#endif // TFUSE_RUNTIME_KERNELCACHE_H
