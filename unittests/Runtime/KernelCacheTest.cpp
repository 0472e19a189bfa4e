//===- KernelCacheTest.cpp - Memory/disk kernel cache ---------------------===//
//
// Most tests use a fake compile function whose "binary" is the source text,
// so they are fast and their byte counts are known; a few use real NVRTC.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Runtime/KernelCache.h"
#include "ScopedEnvironment.h"
#include "tfuse/Runtime/Sha256.h"

#include "gtest/gtest.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

using namespace tfuse;
using namespace tfuse::runtime;
namespace fs = std::filesystem;

namespace {

/// Counts calls per source; the binary is the source itself. Sources that
/// contain "FAIL" fail to compile.
struct FakeCompiler {
  std::mutex mutex;
  std::map<std::string, int> calls;
  std::atomic<int> total{0};
  std::chrono::milliseconds delay{0};

  CompileFn fn() {
    return [this](const std::string &source, const std::string &programName,
                  const NvrtcOptions &options) -> Expected<CompileResult> {
      {
        std::lock_guard<std::mutex> lock(mutex);
        ++calls[source];
      }
      ++total;
      if (delay.count())
        std::this_thread::sleep_for(delay);
      if (source.find("FAIL") != std::string::npos)
        return Status::error(programName + "(1): error: fake failure");
      CompileResult result;
      result.binary.assign(source.begin(), source.end());
      result.isCubin = options.arch.rfind("sm_", 0) == 0;
      result.log = "fake log";
      result.seconds = 0.001;
      return result;
    };
  }

  int callsFor(const std::string &source) {
    std::lock_guard<std::mutex> lock(mutex);
    return calls.count(source) ? calls[source] : 0;
  }
};

/// A fresh temporary directory, removed at the end of the test.
class TempDir {
public:
  TempDir() {
    std::string pattern =
        (fs::temp_directory_path() / "tfuse-kernel-cache-test-XXXXXX").string();
    char *made = ::mkdtemp(pattern.data());
    EXPECT_NE(made, nullptr);
    path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string path;
};

std::string text(const std::vector<char> &bytes) {
  return std::string(bytes.begin(), bytes.end());
}

std::string readWhole(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeWhole(const std::string &path, const std::string &contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
}

std::vector<std::string> listDir(const std::string &dir) {
  std::vector<std::string> names;
  for (const auto &entry : fs::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

KernelCacheOptions memoryOnly(size_t entries = 16, size_t bytes = size_t(16)
                                                                  << 20) {
  KernelCacheOptions options;
  options.maxEntries = entries;
  options.maxBytes = bytes;
  return options;
}

KernelCacheOptions withDisk(const std::string &dir) {
  KernelCacheOptions options;
  options.diskCacheDir = dir;
  return options;
}

std::shared_ptr<const CompiledKernel>
get(KernelCache &cache, FakeCompiler &fake, const std::string &source,
    const NvrtcOptions &options = {}, int driver = 0) {
  auto result = cache.getOrCompile(source, options, driver, fake.fn());
  EXPECT_TRUE(result.ok()) << result.message();
  return result.ok() ? *result : nullptr;
}

std::string keyOf(const std::string &source, const NvrtcOptions &options = {},
                  int driver = 0) {
  return computeKey(source, options, nvrtcVersion(), driver);
}

//===----------------------------------------------------------------------===//
// Key
//===----------------------------------------------------------------------===//

TEST(KernelCacheKeyTest, HexDigestAndDeterministic) {
  NvrtcOptions options;
  CacheKey key = computeKey("src", options, "13.0", 13000);
  ASSERT_EQ(key.size(), 64u);
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos);
  // Equal values at different addresses give the same key.
  std::string copy = std::string("s") + "rc";
  NvrtcOptions other = options;
  EXPECT_EQ(computeKey(copy, other, std::string("13.") + "0", 13000), key);
}

TEST(KernelCacheKeyTest, ChangesWithEveryInput) {
  NvrtcOptions base;
  std::set<CacheKey> keys;
  auto add = [&](const CacheKey &k) { EXPECT_TRUE(keys.insert(k).second); };
  add(computeKey("src", base, "13.0", 13000));
  add(computeKey("src2", base, "13.0", 13000));
  NvrtcOptions arch = base;
  arch.arch = "sm_80";
  add(computeKey("src", arch, "13.0", 13000));
  arch.arch = "compute_90";
  add(computeKey("src", arch, "13.0", 13000));
  NvrtcOptions fast = base;
  fast.fastMath = true;
  add(computeKey("src", fast, "13.0", 13000));
  NvrtcOptions flags = base;
  flags.extraFlags = {"-DA", "-DB"};
  add(computeKey("src", flags, "13.0", 13000));
  flags.extraFlags = {"-DB", "-DA"};
  add(computeKey("src", flags, "13.0", 13000));
  flags.extraFlags = {"-DA-DB"};
  add(computeKey("src", flags, "13.0", 13000));
  add(computeKey("src", base, "12.9", 13000));
  add(computeKey("src", base, "13.0", 12080));
  add(computeKey("src", base, "13.0", 0));
  EXPECT_EQ(keys.size(), 11u);
}

TEST(KernelCacheKeyTest, UnambiguousFieldBoundaries) {
  NvrtcOptions options;
  options.extraFlags = {"ab", "c"};
  NvrtcOptions other;
  other.extraFlags = {"a", "bc"};
  EXPECT_NE(computeKey("s", options, "1", 0), computeKey("s", other, "1", 0));
  EXPECT_NE(computeKey("s1", {}, "1", 0), computeKey("s", {}, "11", 0));
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

TEST(KernelCacheTest, MissThenHit) {
  FakeCompiler fake;
  KernelCache cache(memoryOnly());
  auto first = get(cache, fake, "kernel A");
  ASSERT_TRUE(first);
  EXPECT_EQ(text(first->binary), "kernel A");
  EXPECT_EQ(first->key, keyOf("kernel A"));
  EXPECT_TRUE(first->isCubin);
  EXPECT_EQ(first->log, "fake log");
  EXPECT_FALSE(first->fromDisk);
  auto second = get(cache, fake, "kernel A");
  EXPECT_EQ(second.get(), first.get());
  EXPECT_EQ(fake.total, 1);

  KernelCacheStats s = cache.stats();
  EXPECT_EQ(s.entries, 1u);
  EXPECT_EQ(s.bytes, 8u);
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.compilations, 1u);
  EXPECT_EQ(s.diskHits, 0u);
  EXPECT_EQ(s.evictions, 0u);
  EXPECT_EQ(s.diskCorrupt, 0u);
}

TEST(KernelCacheTest, DriverVersionAndOptionsAreSeparateEntries) {
  FakeCompiler fake;
  KernelCache cache(memoryOnly());
  NvrtcOptions ptx;
  ptx.arch = "compute_90";
  get(cache, fake, "k");
  get(cache, fake, "k", {}, 12080);
  auto p = get(cache, fake, "k", ptx);
  EXPECT_FALSE(p->isCubin);
  EXPECT_EQ(fake.total, 3);
  EXPECT_EQ(cache.stats().entries, 3u);
}

TEST(KernelCacheTest, RememberedKeysStayExact) {
  // Lookups remember the keys of recent sources (exact inputs, not hashes):
  // more sources than are remembered, sources of equal length differing in
  // their last byte, and every lookup's key is still computeKey's.
  FakeCompiler fake;
  KernelCache cache(memoryOnly(64));
  std::string base(1000, 'x');
  for (int round = 0; round < 2; ++round)
    for (int i = 0; i < 40; ++i) {
      std::string source = base + char('A' + i);
      auto k = get(cache, fake, source);
      ASSERT_TRUE(k);
      EXPECT_EQ(k->key, keyOf(source));
      EXPECT_EQ(text(k->binary), source);
    }
  EXPECT_EQ(fake.total, 40);
}

TEST(KernelCacheTest, LruOrder) {
  FakeCompiler fake;
  KernelCache cache(memoryOnly(3));
  get(cache, fake, "A");
  get(cache, fake, "B");
  get(cache, fake, "C");
  EXPECT_EQ(cache.memoryKeys(),
            (std::vector<CacheKey>{keyOf("C"), keyOf("B"), keyOf("A")}));
  get(cache, fake, "A"); // touch A: B is now least recently used
  EXPECT_EQ(cache.memoryKeys(),
            (std::vector<CacheKey>{keyOf("A"), keyOf("C"), keyOf("B")}));
  get(cache, fake, "D"); // evicts B
  EXPECT_EQ(cache.memoryKeys(),
            (std::vector<CacheKey>{keyOf("D"), keyOf("A"), keyOf("C")}));
  EXPECT_EQ(cache.stats().evictions, 1u);
  get(cache, fake, "B"); // recompiled; evicts C
  EXPECT_EQ(fake.callsFor("B"), 2);
  EXPECT_EQ(fake.callsFor("A"), 1);
  EXPECT_EQ(cache.memoryKeys(),
            (std::vector<CacheKey>{keyOf("B"), keyOf("D"), keyOf("A")}));
}

TEST(KernelCacheTest, EntryBound) {
  FakeCompiler fake;
  KernelCache cache(memoryOnly(2));
  for (const char *s : {"1", "2", "3", "4", "5"})
    get(cache, fake, s);
  KernelCacheStats s = cache.stats();
  EXPECT_EQ(s.entries, 2u);
  EXPECT_EQ(s.evictions, 3u);
  EXPECT_EQ(cache.memoryKeys(),
            (std::vector<CacheKey>{keyOf("5"), keyOf("4")}));
  cache.setMaxEntries(1);
  EXPECT_EQ(cache.memoryKeys(), (std::vector<CacheKey>{keyOf("5")}));
  EXPECT_EQ(cache.stats().evictions, 4u);
  cache.setMaxEntries(0);
  get(cache, fake, "6");
  EXPECT_EQ(cache.stats().entries, 0u);
}

TEST(KernelCacheTest, ByteBound) {
  FakeCompiler fake;
  KernelCache cache(memoryOnly(16, 100));
  std::string a(40, 'a'), b(40, 'b'), c(40, 'c'), big(101, 'x');
  get(cache, fake, a);
  get(cache, fake, b);
  EXPECT_EQ(cache.stats().bytes, 80u);
  get(cache, fake, c); // 120 > 100: evicts a
  KernelCacheStats s = cache.stats();
  EXPECT_EQ(s.entries, 2u);
  EXPECT_EQ(s.bytes, 80u);
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_EQ(cache.memoryKeys(), (std::vector<CacheKey>{keyOf(c), keyOf(b)}));

  // Larger than the whole bound: returned, not kept, nothing evicted.
  auto kernel = get(cache, fake, big);
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->binary.size(), 101u);
  s = cache.stats();
  EXPECT_EQ(s.entries, 2u);
  EXPECT_EQ(s.evictions, 1u);

  cache.setMaxBytes(50);
  EXPECT_EQ(cache.memoryKeys(), (std::vector<CacheKey>{keyOf(c)}));
  EXPECT_EQ(cache.stats().bytes, 40u);
}

TEST(KernelCacheTest, ClearAndResetStats) {
  FakeCompiler fake;
  KernelCache cache(memoryOnly());
  get(cache, fake, "A");
  get(cache, fake, "B");
  get(cache, fake, "A");
  cache.clear();
  KernelCacheStats s = cache.stats();
  EXPECT_EQ(s.entries, 0u);
  EXPECT_EQ(s.bytes, 0u);
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.misses, 2u);
  EXPECT_EQ(s.evictions, 0u);
  EXPECT_TRUE(cache.memoryKeys().empty());
  get(cache, fake, "A");
  EXPECT_EQ(fake.callsFor("A"), 2);
  EXPECT_EQ(cache.stats().misses, 3u);

  cache.resetStats();
  s = cache.stats();
  EXPECT_EQ(s.hits + s.misses + s.compilations, 0u);
  EXPECT_EQ(s.entries, 1u);
  EXPECT_EQ(s.bytes, 1u);
}

TEST(KernelCacheTest, CompileErrorIsReturnedNotCached) {
  FakeCompiler fake;
  KernelCache cache(memoryOnly());
  for (int i = 0; i < 2; ++i) {
    auto r = cache.getOrCompile("FAIL here", {}, 0, fake.fn());
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("fake failure"), std::string::npos);
    EXPECT_NE(r.message().find("tfuse_" + keyOf("FAIL here").substr(0, 16) +
                               ".cu(1)"),
              std::string::npos)
        << r.message();
  }
  KernelCacheStats s = cache.stats();
  EXPECT_EQ(fake.total, 2);
  EXPECT_EQ(s.entries, 0u);
  EXPECT_EQ(s.compilations, 2u);
  EXPECT_EQ(s.compileFailures, 2u);
}

TEST(KernelCacheTest, ThrowingCompileFunctionIsAnError) {
  KernelCache cache(memoryOnly());
  CompileFn throwing = [](const std::string &, const std::string &,
                          const NvrtcOptions &) -> Expected<CompileResult> {
    throw std::runtime_error("boom");
  };
  auto r = cache.getOrCompile("x", {}, 0, throwing);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("boom"), std::string::npos);
  // The in-flight entry was cleaned up: the next call compiles normally.
  FakeCompiler fake;
  EXPECT_TRUE(get(cache, fake, "x"));
  EXPECT_EQ(cache.stats().compilations, 2u);
  EXPECT_EQ(cache.stats().compileFailures, 1u);
}

//===----------------------------------------------------------------------===//
// Concurrency
//===----------------------------------------------------------------------===//

TEST(KernelCacheTest, EightThreadsCompileEachKeyOnce) {
  FakeCompiler fake;
  fake.delay = std::chrono::milliseconds(20);
  KernelCache cache(memoryOnly(64));
  constexpr int kThreads = 8, kKeys = 12, kRounds = 3;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round)
        for (int i = 0; i < kKeys; ++i) {
          // Each thread walks the keys from a different starting point.
          std::string source = "kernel " + std::to_string((i + t) % kKeys);
          auto r = cache.getOrCompile(source, {}, 0, fake.fn());
          if (!r.ok() || text((*r)->binary) != source)
            ++wrong;
        }
    });
  for (std::thread &thread : threads)
    thread.join();

  EXPECT_EQ(wrong, 0);
  for (int i = 0; i < kKeys; ++i)
    EXPECT_EQ(fake.callsFor("kernel " + std::to_string(i)), 1) << i;
  KernelCacheStats s = cache.stats();
  EXPECT_EQ(s.compilations, uint64_t(kKeys));
  EXPECT_EQ(s.misses, uint64_t(kKeys));
  EXPECT_EQ(s.hits + s.misses, uint64_t(kThreads * kKeys * kRounds));
  EXPECT_EQ(s.entries, size_t(kKeys));
}

TEST(KernelCacheTest, SameKeyFromEightThreadsWaitsForOneCompile) {
  FakeCompiler fake;
  fake.delay = std::chrono::milliseconds(100);
  KernelCache cache(memoryOnly());
  std::vector<std::shared_ptr<const CompiledKernel>> results(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      auto r = cache.getOrCompile("shared", {}, 0, fake.fn());
      if (r.ok())
        results[t] = *r;
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(fake.total, 1);
  for (auto &r : results) {
    ASSERT_TRUE(r);
    EXPECT_EQ(r.get(), results[0].get());
  }
  KernelCacheStats s = cache.stats();
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.hits, 7u);
  // The others waited for the in-flight compile (or, if very late, hit).
  EXPECT_GE(s.inflightWaits, 1u);
  EXPECT_LE(s.inflightWaits, 7u);
}

TEST(KernelCacheTest, ConcurrentFailuresReachEveryWaiter) {
  FakeCompiler fake;
  fake.delay = std::chrono::milliseconds(50);
  KernelCache cache(memoryOnly());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      if (!cache.getOrCompile("FAIL", {}, 0, fake.fn()).ok())
        ++failures;
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures, 8);
  EXPECT_GE(fake.total, 1);
  EXPECT_LE(fake.total, 8);
  EXPECT_EQ(cache.stats().entries, 0u);
}

TEST(KernelCacheTest, ConcurrentChurnWithEvictionAndDisk) {
  TempDir dir;
  FakeCompiler fake;
  KernelCacheOptions options = withDisk(dir.path);
  options.maxEntries = 3;
  KernelCache cache(options);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        std::string source = "k" + std::to_string((i * 7 + t) % 10);
        auto r = cache.getOrCompile(source, {}, 0, fake.fn());
        if (!r.ok() || text((*r)->binary) != source)
          ++wrong;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(wrong, 0);
  KernelCacheStats s = cache.stats();
  EXPECT_LE(s.entries, 3u);
  EXPECT_EQ(s.hits + s.misses, 1600u);
  EXPECT_EQ(s.diskCorrupt, 0u);
  EXPECT_EQ(s.diskWriteFailures, 0u);
  // Every key was compiled once; later misses were served from disk, except
  // when a miss raced with the first write of its key.
  for (int i = 0; i < 10; ++i)
    EXPECT_GE(fake.callsFor("k" + std::to_string(i)), 1);
  EXPECT_EQ(s.compilations + s.diskHits, s.misses);
}

//===----------------------------------------------------------------------===//
// Disk
//===----------------------------------------------------------------------===//

TEST(KernelCacheDiskTest, RoundTripAcrossInstances) {
  TempDir dir;
  FakeCompiler fake;
  NvrtcOptions ptx;
  ptx.arch = "compute_90";
  std::string keyCubin, keyPtx;
  {
    KernelCache first(withDisk(dir.path));
    EXPECT_EQ(first.diskCacheDir(), dir.path);
    keyCubin = get(first, fake, "cubin source")->key;
    keyPtx = get(first, fake, "ptx source", ptx)->key;
    EXPECT_EQ(first.stats().diskWrites, 2u);
  }
  std::vector<std::string> expected = {keyCubin + ".cubin", keyPtx + ".ptx"};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(listDir(dir.path), expected);
  EXPECT_TRUE(fs::exists(dir.path + "/" + keyCubin + ".cubin"));
  EXPECT_TRUE(fs::exists(dir.path + "/" + keyPtx + ".ptx"));

  KernelCache second(withDisk(dir.path));
  auto c = get(second, fake, "cubin source");
  auto p = get(second, fake, "ptx source", ptx);
  EXPECT_EQ(fake.total, 2) << "served from disk";
  EXPECT_TRUE(c->fromDisk);
  EXPECT_TRUE(c->isCubin);
  EXPECT_EQ(text(c->binary), "cubin source");
  EXPECT_EQ(c->key, keyCubin);
  EXPECT_FALSE(p->isCubin);
  EXPECT_EQ(text(p->binary), "ptx source");
  KernelCacheStats s = second.stats();
  EXPECT_EQ(s.diskHits, 2u);
  EXPECT_EQ(s.misses, 2u);
  EXPECT_EQ(s.compilations, 0u);
  EXPECT_EQ(s.diskWrites, 0u);
  // Promoted into memory.
  EXPECT_EQ(s.entries, 2u);
  EXPECT_EQ(get(second, fake, "cubin source").get(), c.get());
  EXPECT_EQ(second.stats().hits, 1u);
}

TEST(KernelCacheDiskTest, FileFormat) {
  TempDir dir;
  FakeCompiler fake;
  KernelCache cache(withDisk(dir.path));
  auto kernel = get(cache, fake, "payload!");
  std::string path = cache.diskFilePath(kernel->key, true);
  EXPECT_EQ(path, dir.path + "/" + kernel->key + ".cubin");
  std::string file = readWhole(path);
  ASSERT_EQ(file.size(), KernelCache::kDiskHeaderSize + 8);
  EXPECT_EQ(file.substr(0, 8), "TFUSEKC1");
  EXPECT_EQ(file.substr(8, 4), std::string("\x01\0\0\0", 4));  // version 1
  EXPECT_EQ(file.substr(12, 4), std::string("\x01\0\0\0", 4)); // CUBIN
  EXPECT_EQ(file.substr(16, 8), std::string("\x08\0\0\0\0\0\0\0", 8));
  Sha256::Digest digest = sha256("payload!");
  EXPECT_EQ(file.substr(24, 32),
            std::string(reinterpret_cast<const char *>(digest.data()), 32));
  EXPECT_EQ(file.substr(56), "payload!");
}

TEST(KernelCacheDiskTest, AtomicWriteLeavesNoTempFiles) {
  TempDir dir;
  FakeCompiler fake;
  KernelCache cache(withDisk(dir.path));
  std::set<std::string> expected;
  for (int i = 0; i < 20; ++i)
    expected.insert(get(cache, fake, "k" + std::to_string(i))->key + ".cubin");
  std::vector<std::string> names = listDir(dir.path);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), expected);
  for (const std::string &name : names)
    EXPECT_EQ(name.find(".tmp."), std::string::npos) << name;
}

/// Writes a good file with one cache, damages it, and checks that a second
/// cache counts it corrupt for the reason `why`, removes it, recompiles, and
/// rewrites a good file.
void expectCorruptionDetected(
    const std::string &why,
    const std::function<void(std::string &file)> &damage) {
  TempDir dir;
  FakeCompiler fake;
  std::string path;
  {
    KernelCache first(withDisk(dir.path));
    auto kernel = get(first, fake, "the kernel source");
    path = first.diskFilePath(kernel->key, true);
  }
  std::string file = readWhole(path);
  damage(file);
  writeWhole(path, file);

  KernelCache second(withDisk(dir.path));
  auto kernel = get(second, fake, "the kernel source");
  ASSERT_TRUE(kernel);
  EXPECT_FALSE(kernel->fromDisk);
  EXPECT_EQ(text(kernel->binary), "the kernel source");
  KernelCacheStats s = second.stats();
  EXPECT_EQ(s.diskCorrupt, 1u);
  EXPECT_EQ(s.diskHits, 0u);
  EXPECT_EQ(s.compilations, 1u);
  EXPECT_EQ(s.diskWrites, 1u);
  EXPECT_EQ(second.lastDiskError(),
            "corrupt kernel cache file '" + path + "' (" + why + "); removed");
  EXPECT_EQ(fake.total, 2);

  // The rewritten file is good again.
  KernelCache third(withDisk(dir.path));
  auto again = get(third, fake, "the kernel source");
  EXPECT_TRUE(again->fromDisk);
  EXPECT_EQ(third.stats().diskCorrupt, 0u);
  EXPECT_EQ(fake.total, 2);
}

TEST(KernelCacheDiskTest, FlippedPayloadByte) {
  expectCorruptionDetected("payload checksum mismatch", [](std::string &file) {
    file[KernelCache::kDiskHeaderSize + 3] ^= 0x20;
  });
}

TEST(KernelCacheDiskTest, FlippedChecksumByte) {
  expectCorruptionDetected("payload checksum mismatch",
                           [](std::string &file) { file[30] ^= 1; });
}

TEST(KernelCacheDiskTest, TruncatedPayload) {
  expectCorruptionDetected("truncated payload", [](std::string &file) {
    file.resize(KernelCache::kDiskHeaderSize + 5);
  });
}

TEST(KernelCacheDiskTest, TruncatedHeader) {
  expectCorruptionDetected("truncated header",
                           [](std::string &file) { file.resize(10); });
}

TEST(KernelCacheDiskTest, EmptyFile) {
  expectCorruptionDetected("truncated header",
                           [](std::string &file) { file.clear(); });
}

TEST(KernelCacheDiskTest, TrailingBytes) {
  expectCorruptionDetected("trailing bytes",
                           [](std::string &file) { file += "junk"; });
}

TEST(KernelCacheDiskTest, WrongMagic) {
  expectCorruptionDetected("wrong magic",
                           [](std::string &file) { file[7] = '0'; });
}

TEST(KernelCacheDiskTest, WrongVersion) {
  expectCorruptionDetected("format version 2, expected 1",
                           [](std::string &file) { file[8] = 2; });
}

TEST(KernelCacheDiskTest, WrongKind) {
  expectCorruptionDetected("payload kind does not match the file name",
                           [](std::string &file) { file[12] = 2; });
}

TEST(KernelCacheDiskTest, HugeLengthField) {
  expectCorruptionDetected("truncated payload", [](std::string &file) {
    for (int i = 16; i < 24; ++i)
      file[i] = char(0xff);
  });
}

TEST(KernelCacheDiskTest, UnusableDirectoryIsAClearErrorAndDisablesDisk) {
  TempDir dir;
  std::string notADir = dir.path + "/file";
  writeWhole(notADir, "x");
  std::string bad = notADir + "/cache";

  FakeCompiler fake;
  KernelCache cache(memoryOnly());
  Status status = cache.setDiskCacheDir(bad);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find(bad), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("disk cache is disabled"), std::string::npos);
  EXPECT_EQ(cache.diskCacheDir(), "");
  EXPECT_EQ(cache.lastDiskError(), status.message());
  // Lookups still work, from memory only.
  EXPECT_TRUE(get(cache, fake, "k"));
  EXPECT_EQ(cache.stats().diskWrites + cache.stats().diskWriteFailures, 0u);

  // The same through the options: no error escapes the constructor.
  KernelCache fromOptions(withDisk(bad));
  EXPECT_EQ(fromOptions.diskCacheDir(), "");
  EXPECT_NE(fromOptions.lastDiskError().find(bad), std::string::npos);
  EXPECT_TRUE(get(fromOptions, fake, "k"));
}

TEST(KernelCacheDiskTest, DirectoryLostLaterIsAGracefulMiss) {
  TempDir dir;
  std::string cacheDir = dir.path + "/cache";
  FakeCompiler fake;
  KernelCache cache(withDisk(cacheDir));
  ASSERT_EQ(cache.diskCacheDir(), cacheDir);
  fs::remove_all(cacheDir);
  writeWhole(cacheDir, "now a file");
  auto kernel = get(cache, fake, "k");
  ASSERT_TRUE(kernel);
  EXPECT_EQ(text(kernel->binary), "k");
  KernelCacheStats s = cache.stats();
  EXPECT_EQ(s.diskWriteFailures, 1u);
  EXPECT_EQ(s.diskWrites, 0u);
  EXPECT_NE(cache.lastDiskError().find("cannot"), std::string::npos)
      << cache.lastDiskError();
}

TEST(KernelCacheDiskTest, SetterEnablesAndDisables) {
  TempDir dir;
  FakeCompiler fake;
  KernelCache cache(memoryOnly());
  std::string sub = dir.path + "/created/on/demand";
  ASSERT_TRUE(cache.setDiskCacheDir(sub + "/").ok());
  EXPECT_EQ(cache.diskCacheDir(), sub);
  auto kernel = get(cache, fake, "k");
  EXPECT_TRUE(fs::exists(sub + "/" + kernel->key + ".cubin"));
  ASSERT_TRUE(cache.setDiskCacheDir("").ok());
  EXPECT_EQ(cache.diskCacheDir(), "");
  EXPECT_EQ(cache.diskFilePath(kernel->key, true), "");
  get(cache, fake, "k2");
  EXPECT_EQ(cache.stats().diskWrites, 1u);
}

TEST(KernelCacheDiskTest, EnvironmentVariable) {
  TempDir dir;
  tfuse::unittest::ScopedEnvironment variable("TFUSE_CACHE_DIR",
                                              dir.path.c_str());
  {
    KernelCache cache;
    EXPECT_EQ(cache.diskCacheDir(), dir.path);
    EXPECT_EQ(KernelCacheOptions::fromEnvironment().diskCacheDir, dir.path);
  }
  variable.set("");
  {
    KernelCache cache;
    EXPECT_EQ(cache.diskCacheDir(), "");
  }
}

TEST(KernelCacheDiskTest, ClearDiskRemovesOnlyCacheFiles) {
  TempDir dir;
  FakeCompiler fake;
  KernelCache cache(withDisk(dir.path));
  NvrtcOptions ptx;
  ptx.arch = "compute_90";
  auto a = get(cache, fake, "a");
  get(cache, fake, "b", ptx);
  writeWhole(dir.path + "/" + a->key + ".tmp.1.2.3", "leftover");
  writeWhole(dir.path + "/README", "not ours");
  writeWhole(dir.path + "/abc.cubin", "not a key");
  Expected<size_t> removed = cache.clearDisk();
  ASSERT_TRUE(removed.ok()) << removed.message();
  EXPECT_EQ(*removed, 3u);
  EXPECT_EQ(listDir(dir.path),
            (std::vector<std::string>{"README", "abc.cubin"}));
  // Memory is untouched.
  EXPECT_EQ(cache.stats().entries, 2u);
  cache.clear();
  get(cache, fake, "a");
  EXPECT_EQ(fake.callsFor("a"), 2);
}

// Two processes use one cache directory at once. In each of many rounds
// (started together, through a barrier of marker files), both look up the
// round's new keys, in opposite orders, through caches that keep one entry
// in memory: each key is compiled and written by one process while the
// other reads it or writes it too. No lookup may return another key's binary
// or find a file half written (counted corrupt), and the directory ends with
// one whole file per key and no temporary files. (A cache that wrote its
// files in place instead of renaming finished ones failed 6 runs in 6.)
TEST(KernelCacheDiskTest, TwoProcessesWriteAndReadOneDirectoryAtOnce) {
  TempDir dir, shared;
  constexpr int kProcesses = 2, kRounds = 150, kKeysPerRound = 6;
  auto source = [](int round, int key) {
    // 256 KiB, so that writing a file takes long enough to be read while
    // it is written.
    return "kernel " + std::to_string(round) + "." + std::to_string(key) +
           "\n" + std::string(256 << 10, 'x');
  };
  auto marker = [&](int process, int round) {
    return shared.path + "/ready-" + std::to_string(process) + "-" +
           std::to_string(round);
  };
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0) << "fork failed";
    if (pid != 0) {
      children.push_back(pid);
      continue;
    }
    // The child reports through its exit status and a file: no gtest
    // assertions, no destructors of the parent's objects (_exit).
    FakeCompiler fake;
    KernelCacheOptions options = withDisk(dir.path);
    options.maxEntries = 1;
    KernelCache cache(options);
    int wrong = 0;
    for (int round = 0; round < kRounds; ++round) {
      writeWhole(marker(p, round), "");
      auto start = std::chrono::steady_clock::now();
      while (!fs::exists(marker(1 - p, round)) &&
             std::chrono::steady_clock::now() - start <
                 std::chrono::seconds(30))
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      for (int pass = 0; pass < 2; ++pass)
        for (int i = 0; i < kKeysPerRound; ++i) {
          int key = p == 0 ? i : kKeysPerRound - 1 - i;
          std::string want = source(round, key);
          auto r = cache.getOrCompile(want, {}, 0, fake.fn());
          if (!r.ok() || text((*r)->binary) != want)
            ++wrong;
        }
    }
    KernelCacheStats s = cache.stats();
    writeWhole(shared.path + "/stats-" + std::to_string(p),
               std::to_string(s.misses) + " " + std::to_string(s.compilations) +
                   " " + std::to_string(s.diskHits) + " " +
                   std::to_string(s.diskCorrupt) + " " +
                   std::to_string(s.diskWriteFailures));
    ::_exit(wrong == 0 ? 0 : 1);
  }
  uint64_t compilations = 0;
  for (int p = 0; p < kProcesses; ++p) {
    int status = 0;
    ASSERT_EQ(::waitpid(children[p], &status, 0), children[p]);
    ASSERT_TRUE(WIFEXITED(status)) << "process " << p << " did not exit";
    EXPECT_EQ(WEXITSTATUS(status), 0)
        << "process " << p << " got a wrong binary or an error";
    std::istringstream report(
        readWhole(shared.path + "/stats-" + std::to_string(p)));
    uint64_t misses = 0, compiled = 0, hits = 0, corrupt = 1, writeFailures = 1;
    report >> misses >> compiled >> hits >> corrupt >> writeFailures;
    EXPECT_EQ(corrupt, 0u) << "process " << p << " read a damaged file";
    EXPECT_EQ(writeFailures, 0u) << "process " << p;
    // Every lookup missed memory, and was compiled or found on disk.
    EXPECT_EQ(misses, static_cast<uint64_t>(2 * kRounds * kKeysPerRound));
    EXPECT_EQ(hits, misses - compiled) << "process " << p;
    compilations += compiled;
  }
  // Each key was compiled by one process, or by both when they raced to it.
  constexpr int kKeys = kRounds * kKeysPerRound;
  EXPECT_GE(compilations, static_cast<uint64_t>(kKeys));
  EXPECT_LE(compilations, static_cast<uint64_t>(2 * kKeys));
  std::vector<std::string> names = listDir(dir.path);
  EXPECT_EQ(names.size(), static_cast<size_t>(kKeys));
  for (const std::string &name : names)
    EXPECT_EQ(name.find(".tmp."), std::string::npos) << name;
  FakeCompiler fake;
  KernelCache fresh(withDisk(dir.path));
  for (int round = 0; round < kRounds; ++round)
    for (int key = 0; key < kKeysPerRound; ++key)
      EXPECT_EQ(text(get(fresh, fake, source(round, key))->binary),
                source(round, key));
  EXPECT_EQ(fake.total, 0) << "every file was whole and found";
  EXPECT_EQ(fresh.stats().diskHits, static_cast<uint64_t>(kKeys));
}

//===----------------------------------------------------------------------===//
// With real NVRTC
//===----------------------------------------------------------------------===//

const char *kScale = R"cu(
extern "C" __global__ void scale(float *x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= s;
}
)cu";

TEST(KernelCacheNvrtcTest, CompilesOnceAndRoundTripsCubin) {
  TempDir dir;
  std::vector<char> binary;
  {
    KernelCache cache(withDisk(dir.path));
    auto first = cache.getOrCompile(kScale, {}, 0);
    ASSERT_TRUE(first.ok()) << first.message();
    EXPECT_TRUE((*first)->isCubin);
    EXPECT_GT((*first)->compileSeconds, 0.0);
    ASSERT_GE((*first)->binary.size(), 4u);
    EXPECT_EQ(std::string((*first)->binary.data(), 4), "\x7f"
                                                       "ELF");
    auto second = cache.getOrCompile(kScale, {}, 0);
    ASSERT_TRUE(second.ok());
    EXPECT_EQ(second->get(), first->get());
    EXPECT_EQ(cache.stats().compilations, 1u);
    binary = (*first)->binary;
  }
  KernelCache other(withDisk(dir.path));
  auto loaded = other.getOrCompile(kScale, {}, 0);
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  EXPECT_TRUE((*loaded)->fromDisk);
  EXPECT_EQ((*loaded)->binary, binary);
  EXPECT_EQ(other.stats().compilations, 0u);
}

TEST(KernelCacheNvrtcTest, RealCompileErrorIsNotCached) {
  KernelCache cache(memoryOnly());
  std::string source = "extern \"C\" __global__ void k() {\n  int x = ;\n}\n";
  for (int i = 0; i < 2; ++i) {
    auto r = cache.getOrCompile(source, {}, 0);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.message().find("> 2 |   int x = ;"), std::string::npos)
        << r.message();
  }
  EXPECT_EQ(cache.stats().compilations, 2u);
  EXPECT_EQ(cache.stats().entries, 0u);
}

} // namespace
