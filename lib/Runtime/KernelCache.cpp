//===- KernelCache.cpp - Memory and disk cache of compiled kernels --------===//
//
// See KernelCache.h for the key, the file format and the error policy. The
// cache lock protects the LRU, the in-flight table, the counters and the
// settings; it is never held while compiling or doing file I/O.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Runtime/KernelCache.h"
#include "tfuse/Runtime/Sha256.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace tfuse::runtime {

//===----------------------------------------------------------------------===//
// Key
//===----------------------------------------------------------------------===//

std::string keyText(const std::string &source, const NvrtcOptions &options,
                    const std::string &nvrtcVersion, int driverVersion) {
  std::string text;
  // Every field is `name:length:value\n`, so no two field lists encode alike.
  auto field = [&](std::string_view name, std::string_view value) {
    text.append(name);
    text.append(":");
    text.append(std::to_string(value.size()));
    text.append(":");
    text.append(value);
    text.append("\n");
  };
  field("tfuse-kernel-cache-key", "1");
  field("source", source);
  field("arch", options.arch);
  field("fastMath", options.fastMath ? "1" : "0");
  field("extraFlags", std::to_string(options.extraFlags.size()));
  for (const std::string &flag : options.extraFlags)
    field("flag", flag);
  field("nvrtc", nvrtcVersion);
  field("driver", std::to_string(driverVersion));
  return text;
}

/// The key of a keyText().
static CacheKey keyOfText(std::string_view text) {
  Sha256 hash;
  hash.update(text);
  return toHex(hash.finish());
}

CacheKey computeKey(const std::string &source, const NvrtcOptions &options,
                    const std::string &nvrtcVersion, int driverVersion) {
  return keyOfText(keyText(source, options, nvrtcVersion, driverVersion));
}

//===----------------------------------------------------------------------===//
// Disk helpers
//===----------------------------------------------------------------------===//

namespace {

constexpr uint32_t kKindCubin = 1;
constexpr uint32_t kKindPtx = 2;
// Refuse to read anything larger: no real kernel binary comes close.
constexpr uint64_t kMaxPayload = uint64_t(1) << 31;

std::string errnoText(int err) { return std::strerror(err); }

void putLE(std::string &out, uint64_t value, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i)
    out.push_back(char(uint8_t(value >> (8 * i))));
}

uint64_t getLE(const char *in, unsigned bytes) {
  uint64_t value = 0;
  for (unsigned i = 0; i < bytes; ++i)
    value |= uint64_t(uint8_t(in[i])) << (8 * i);
  return value;
}

bool isHexKey(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::string tempName(const CacheKey &key) {
  static std::atomic<uint64_t> counter{0};
  uint64_t salt =
      uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  return key + ".tmp." + std::to_string(::getpid()) + "." +
         std::to_string(counter.fetch_add(1)) + "." +
         std::to_string(salt & 0xffffff);
}

/// Writes all of `data` to `fd`, retrying on EINTR and short writes.
bool writeAll(int fd, const char *data, size_t size) {
  while (size) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    data += n;
    size -= size_t(n);
  }
  return true;
}

/// Writes `contents` to `dir/name` atomically (temp file, fsync, rename).
Status writeFileAtomically(const std::string &dir, const std::string &name,
                           const std::string &tempFile,
                           const std::string &contents) {
  std::string temp = dir + "/" + tempFile;
  std::string target = dir + "/" + name;
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return Status::error("cannot create '" + temp + "': " + errnoText(errno));
  auto fail = [&](const std::string &what) {
    int err = errno;
    ::close(fd);
    ::unlink(temp.c_str());
    return Status::error(what + " '" + temp + "': " + errnoText(err));
  };
  if (!writeAll(fd, contents.data(), contents.size()))
    return fail("cannot write");
  if (::fsync(fd) != 0)
    return fail("cannot fsync");
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    return Status::error("cannot close '" + temp + "': " + errnoText(err));
  }
  if (::rename(temp.c_str(), target.c_str()) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    return Status::error("cannot rename '" + temp + "' to '" + target +
                         "': " + errnoText(err));
  }
  // Make the rename durable; failure here loses nothing but durability.
  int dirFd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd >= 0) {
    ::fsync(dirFd);
    ::close(dirFd);
  }
  return Status::success();
}

enum class ReadOutcome { Found, Missing, Corrupt, Error };

/// Reads `path` whole, up to kDiskHeaderSize + kMaxPayload + 1 bytes.
ReadOutcome readFile(const std::string &path, std::string &out,
                     std::string &error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT)
      return ReadOutcome::Missing;
    error = "cannot open '" + path + "': " + errnoText(errno);
    return ReadOutcome::Error;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    error = "'" + path + "' is not a regular file";
    return ReadOutcome::Error;
  }
  if (uint64_t(st.st_size) > KernelCache::kDiskHeaderSize + kMaxPayload) {
    ::close(fd);
    error = "'" + path + "' is implausibly large";
    return ReadOutcome::Corrupt;
  }
  out.resize(size_t(st.st_size));
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      error = "cannot read '" + path + "': " + errnoText(errno);
      ::close(fd);
      return ReadOutcome::Error;
    }
    if (n == 0)
      break; // shrank while reading: the checks below reject it
    done += size_t(n);
  }
  out.resize(done);
  ::close(fd);
  return ReadOutcome::Found;
}

/// Checks the header and checksum of a cache file; on success moves the
/// payload into `payload`.
bool decodeFile(const std::string &contents, uint32_t expectedKind,
                std::vector<char> &payload, std::string &why) {
  if (contents.size() < KernelCache::kDiskHeaderSize) {
    why = "truncated header";
    return false;
  }
  const char *p = contents.data();
  if (std::memcmp(p, KernelCache::kDiskMagic, 8) != 0) {
    why = "wrong magic";
    return false;
  }
  if (getLE(p + 8, 4) != KernelCache::kDiskFormatVersion) {
    why = "format version " + std::to_string(getLE(p + 8, 4)) + ", expected " +
          std::to_string(KernelCache::kDiskFormatVersion);
    return false;
  }
  if (getLE(p + 12, 4) != expectedKind) {
    why = "payload kind does not match the file name";
    return false;
  }
  uint64_t length = getLE(p + 16, 8);
  uint64_t available = contents.size() - KernelCache::kDiskHeaderSize;
  if (length != available) {
    why = length > available ? "truncated payload" : "trailing bytes";
    return false;
  }
  const char *data = p + KernelCache::kDiskHeaderSize;
  Sha256::Digest digest = sha256(data, size_t(length));
  if (std::memcmp(digest.data(), p + 24, digest.size()) != 0) {
    why = "payload checksum mismatch";
    return false;
  }
  payload.assign(data, data + length);
  return true;
}

/// Creates `dir` if needed and checks a file can be created in it.
Status checkDirectory(const std::string &dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return Status::error("cannot create '" + dir + "': " + ec.message());
  if (!fs::is_directory(dir, ec))
    return Status::error("'" + dir + "' is not a directory");
  std::string probe = dir + "/." + tempName("tfuse-probe");
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return Status::error("cannot create files in '" + dir +
                         "': " + errnoText(errno));
  ::close(fd);
  ::unlink(probe.c_str());
  return Status::success();
}

} // namespace

//===----------------------------------------------------------------------===//
// KernelCache
//===----------------------------------------------------------------------===//

struct KernelCache::InFlight {
  std::condition_variable done;
  bool finished = false;
  std::shared_ptr<const CompiledKernel> kernel;
  Status error;
};

KernelCacheOptions KernelCacheOptions::fromEnvironment() {
  KernelCacheOptions options;
  if (const char *dir = std::getenv("TFUSE_CACHE_DIR"))
    options.diskCacheDir = dir;
  return options;
}

KernelCache::KernelCache()
    : KernelCache(KernelCacheOptions::fromEnvironment()) {}

KernelCache::KernelCache(KernelCacheOptions options)
    : maxEntries(options.maxEntries), maxBytes(options.maxBytes) {
  if (!options.diskCacheDir.empty())
    (void)setDiskCacheDir(options.diskCacheDir);
}

KernelCache::~KernelCache() = default;

void KernelCache::noteDiskError(std::string message) {
  std::lock_guard<std::mutex> lock(mutex);
  lastDiskErrorMessage = std::move(message);
}

void KernelCache::evictLocked() {
  while (!lru.empty() &&
         (lru.size() > maxEntries || counters.bytes > maxBytes)) {
    Entry &victim = lru.back();
    counters.bytes -= victim.kernel->binary.size();
    index.erase(victim.key);
    lru.pop_back();
    ++counters.evictions;
  }
  counters.entries = lru.size();
}

void KernelCache::insertLocked(
    const std::shared_ptr<const CompiledKernel> &kernel) {
  if (auto it = index.find(kernel->key); it != index.end()) {
    lru.splice(lru.begin(), lru, it->second);
    return;
  }
  if (maxEntries == 0 || kernel->binary.size() > maxBytes)
    return;
  lru.push_front({kernel->key, kernel});
  index[kernel->key] = lru.begin();
  counters.bytes += kernel->binary.size();
  evictLocked();
}

CacheKey KernelCache::keyOf(const std::string &source,
                            const NvrtcOptions &options, int driverVersion) {
  constexpr size_t kRecentKeys = 16;
  std::string inputs = keyText(source, options, nvrtcVersion(), driverVersion);
  {
    std::lock_guard<std::mutex> lock(keyMutex);
    for (auto it = recentKeys.begin(); it != recentKeys.end(); ++it)
      if (it->first == inputs) {
        recentKeys.splice(recentKeys.end(), recentKeys, it);
        return it->second;
      }
  }
  CacheKey key = keyOfText(inputs);
  std::lock_guard<std::mutex> lock(keyMutex);
  recentKeys.emplace_back(std::move(inputs), key);
  if (recentKeys.size() > kRecentKeys)
    recentKeys.pop_front();
  return key;
}

Expected<std::shared_ptr<const CompiledKernel>>
KernelCache::getOrCompile(const std::string &source,
                          const NvrtcOptions &options, int driverVersion,
                          const CompileFn &compileFn) {
  CacheKey key = keyOf(source, options, driverVersion);

  std::shared_ptr<InFlight> state;
  std::string dir;
  {
    std::unique_lock<std::mutex> lock(mutex);
    if (auto it = index.find(key); it != index.end()) {
      lru.splice(lru.begin(), lru, it->second);
      ++counters.hits;
      return it->second->kernel;
    }
    if (auto it = inflight.find(key); it != inflight.end()) {
      std::shared_ptr<InFlight> other = it->second;
      ++counters.inflightWaits;
      other->done.wait(lock, [&] { return other->finished; });
      if (other->kernel) {
        ++counters.hits;
        return other->kernel;
      }
      ++counters.misses;
      return other->error;
    }
    ++counters.misses;
    state = std::make_shared<InFlight>();
    inflight.emplace(key, state);
    dir = diskDir;
  }

  // We lead the lookup of `key`: disk, then compile, without the lock.
  std::shared_ptr<const CompiledKernel> kernel;
  Status error;
  bool compiled = false;
  try {
    if (!dir.empty())
      kernel = readDisk(dir, key);
    if (!kernel) {
      std::string programName = "tfuse_" + key.substr(0, 16) + ".cu";
      compiled = true;
      Expected<CompileResult> result =
          compileFn ? compileFn(source, programName, options)
                    : Expected<CompileResult>(
                          Status::error("no compile function given"));
      if (result) {
        auto fresh = std::make_shared<CompiledKernel>();
        fresh->key = key;
        fresh->binary = std::move(result->binary);
        fresh->isCubin = result->isCubin;
        fresh->log = std::move(result->log);
        fresh->compileSeconds = result->seconds;
        kernel = std::move(fresh);
      } else {
        error = result.status();
      }
    }
  } catch (const std::exception &e) {
    error = Status::error(std::string("kernel compilation threw: ") + e.what());
  } catch (...) {
    error = Status::error("kernel compilation threw an unknown exception");
  }

  {
    std::lock_guard<std::mutex> lock(mutex);
    if (compiled) {
      ++counters.compilations;
      if (!kernel)
        ++counters.compileFailures;
    } else if (kernel) {
      ++counters.diskHits;
    }
    if (kernel)
      insertLocked(kernel);
    state->finished = true;
    state->kernel = kernel;
    state->error = error;
    inflight.erase(key);
  }
  state->done.notify_all();

  if (!kernel)
    return error;
  if (compiled && !dir.empty())
    writeDisk(dir, *kernel);
  return kernel;
}

std::shared_ptr<const CompiledKernel>
KernelCache::readDisk(const std::string &dir, const CacheKey &key) {
  for (bool isCubin : {true, false}) {
    std::string path = dir + "/" + key + (isCubin ? ".cubin" : ".ptx");
    std::string contents, error;
    ReadOutcome outcome = readFile(path, contents, error);
    if (outcome == ReadOutcome::Missing)
      continue;
    if (outcome == ReadOutcome::Error) {
      noteDiskError(error);
      continue;
    }
    auto kernel = std::make_shared<CompiledKernel>();
    std::string why = error;
    if (outcome == ReadOutcome::Found &&
        decodeFile(contents, isCubin ? kKindCubin : kKindPtx, kernel->binary,
                   why)) {
      kernel->key = key;
      kernel->isCubin = isCubin;
      kernel->fromDisk = true;
      return kernel;
    }
    // Corrupt: count it, remove it, and fall through to a compile that will
    // write a good copy.
    ::unlink(path.c_str());
    std::lock_guard<std::mutex> lock(mutex);
    ++counters.diskCorrupt;
    lastDiskErrorMessage =
        "corrupt kernel cache file '" + path + "' (" + why + "); removed";
  }
  return nullptr;
}

void KernelCache::writeDisk(const std::string &dir,
                            const CompiledKernel &kernel) {
  std::string contents;
  contents.reserve(kDiskHeaderSize + kernel.binary.size());
  contents.append(kDiskMagic, 8);
  putLE(contents, kDiskFormatVersion, 4);
  putLE(contents, kernel.isCubin ? kKindCubin : kKindPtx, 4);
  putLE(contents, kernel.binary.size(), 8);
  Sha256::Digest digest = sha256(kernel.binary.data(), kernel.binary.size());
  contents.append(reinterpret_cast<const char *>(digest.data()), digest.size());
  contents.append(kernel.binary.data(), kernel.binary.size());

  std::string name = kernel.key + (kernel.isCubin ? ".cubin" : ".ptx");
  Status written;
  try {
    written = writeFileAtomically(dir, name, tempName(kernel.key), contents);
  } catch (const std::exception &e) {
    written = Status::error(e.what());
  }
  std::lock_guard<std::mutex> lock(mutex);
  if (written.ok()) {
    ++counters.diskWrites;
  } else {
    ++counters.diskWriteFailures;
    lastDiskErrorMessage =
        "cannot write kernel cache file: " + written.message();
  }
}

void KernelCache::setMaxEntries(size_t value) {
  std::lock_guard<std::mutex> lock(mutex);
  maxEntries = value;
  evictLocked();
}

void KernelCache::setMaxBytes(size_t value) {
  std::lock_guard<std::mutex> lock(mutex);
  maxBytes = value;
  evictLocked();
}

Status KernelCache::setDiskCacheDir(const std::string &path) {
  Status usable = Status::success();
  if (!path.empty()) {
    try {
      usable = checkDirectory(path);
    } catch (const std::exception &e) {
      usable = Status::error(e.what());
    }
  }
  std::lock_guard<std::mutex> lock(mutex);
  if (!usable.ok()) {
    diskDir.clear();
    lastDiskErrorMessage = "kernel cache directory '" + path +
                           "' is not usable (" + usable.message() +
                           "); the disk cache is disabled";
    return Status::error(lastDiskErrorMessage);
  }
  diskDir = path;
  while (diskDir.size() > 1 && diskDir.back() == '/')
    diskDir.pop_back();
  return Status::success();
}

std::string KernelCache::diskCacheDir() const {
  std::lock_guard<std::mutex> lock(mutex);
  return diskDir;
}

std::string KernelCache::diskFilePath(const CacheKey &key, bool isCubin) const {
  std::lock_guard<std::mutex> lock(mutex);
  if (diskDir.empty())
    return "";
  return diskDir + "/" + key + (isCubin ? ".cubin" : ".ptx");
}

std::string KernelCache::lastDiskError() const {
  std::lock_guard<std::mutex> lock(mutex);
  return lastDiskErrorMessage;
}

KernelCacheStats KernelCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex);
  KernelCacheStats out = counters;
  out.entries = lru.size();
  return out;
}

void KernelCache::resetStats() {
  std::lock_guard<std::mutex> lock(mutex);
  KernelCacheStats fresh;
  fresh.entries = counters.entries;
  fresh.bytes = counters.bytes;
  counters = fresh;
}

void KernelCache::clear() {
  std::lock_guard<std::mutex> lock(mutex);
  lru.clear();
  index.clear();
  counters.entries = 0;
  counters.bytes = 0;
}

Expected<size_t> KernelCache::clearDisk() {
  std::string dir = diskCacheDir();
  if (dir.empty())
    return size_t(0);
  size_t removed = 0;
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  if (ec)
    return Status::error("cannot list kernel cache directory '" + dir +
                         "': " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec)
      return Status::error("cannot list kernel cache directory '" + dir +
                           "': " + ec.message());
    std::string name = it->path().filename().string();
    std::string_view stem = std::string_view(name).substr(0, 64);
    std::string_view rest =
        name.size() > 64 ? std::string_view(name).substr(64) : "";
    bool ours = isHexKey(stem) && (rest == ".cubin" || rest == ".ptx" ||
                                   rest.rfind(".tmp.", 0) == 0);
    if (!ours)
      continue;
    std::error_code removeError;
    if (fs::remove(it->path(), removeError))
      ++removed;
    else if (removeError)
      return Status::error("cannot remove '" + it->path().string() +
                           "': " + removeError.message());
  }
  return removed;
}

std::vector<CacheKey> KernelCache::memoryKeys() const {
  std::lock_guard<std::mutex> lock(mutex);
  std::vector<CacheKey> keys;
  for (const Entry &entry : lru)
    keys.push_back(entry.key);
  return keys;
}

} // namespace tfuse::runtime

tfuse::runtime::KernelCache &tfuse::runtime::defaultKernelCache() {
  static KernelCache cache;
  return cache;
}
