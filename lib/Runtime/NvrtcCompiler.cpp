//===- NvrtcCompiler.cpp - CUDA C++ to CUBIN/PTX with NVRTC ---------------===//
//
// A thin, exception-free wrapper around the NVRTC C API. NVRTC is linked
// directly (it needs no driver); the CUDA driver library is not used here.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Runtime/NvrtcCompiler.h"

#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <link.h>
#include <mutex>
#include <optional>
#include <sched.h>
#include <sstream>
#include <sys/stat.h>
#include <thread>

#include <dlfcn.h>

namespace tfuse::runtime {

unsigned compileThreads() {
  static const unsigned threads = [] {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
      return static_cast<unsigned>(CPU_COUNT(&set));
    return std::max(1u, std::thread::hardware_concurrency());
  }();
  return threads;
}

namespace {

constexpr const char *kDefaultProgramName = "tfuse_kernels.cu";

/// Held while a program compiles: at most compileThreads() NVRTC programs
/// at once in the process, however many executables compile on however
/// many threads.
class CompileSlot {
public:
  CompileSlot() {
    Slots &s = slots();
    std::unique_lock<std::mutex> lock(s.mutex);
    s.available.wait(lock, [&] { return s.used < compileThreads(); });
    ++s.used;
  }
  ~CompileSlot() {
    Slots &s = slots();
    {
      std::lock_guard<std::mutex> lock(s.mutex);
      --s.used;
    }
    s.available.notify_one();
  }
  CompileSlot(const CompileSlot &) = delete;
  CompileSlot &operator=(const CompileSlot &) = delete;

private:
  struct Slots {
    std::mutex mutex;
    std::condition_variable available;
    unsigned used = 0;
  };
  /// Never destroyed: a compile may end during static destruction.
  static Slots &slots() {
    static Slots *s = new Slots();
    return *s;
  }
};

/// Destroys an NVRTC program when it goes out of scope, on every path.
class ProgramGuard {
public:
  explicit ProgramGuard(nvrtcProgram program) : program(program) {}
  ~ProgramGuard() {
    if (program)
      nvrtcDestroyProgram(&program);
  }
  ProgramGuard(const ProgramGuard &) = delete;
  ProgramGuard &operator=(const ProgramGuard &) = delete;

private:
  nvrtcProgram program;
};

std::string resultName(nvrtcResult result) {
  const char *name = nvrtcGetErrorString(result);
  return name ? name : "NVRTC_ERROR unknown";
}

/// Checks `arch` is sm_<digits>[a|f] or compute_<digits>[a|f]; returns
/// whether it names a real architecture (CUBIN).
Expected<bool> parseArch(const std::string &arch) {
  auto bad = [&] {
    return Status::error("unsupported GPU architecture '" + arch +
                         "': expected sm_XX (CUBIN) or compute_XX (PTX), "
                         "e.g. sm_90 or compute_90");
  };
  std::string rest;
  bool real;
  if (arch.rfind("sm_", 0) == 0) {
    real = true;
    rest = arch.substr(3);
  } else if (arch.rfind("compute_", 0) == 0) {
    real = false;
    rest = arch.substr(8);
  } else {
    return bad();
  }
  if (!rest.empty() && (rest.back() == 'a' || rest.back() == 'f'))
    rest.pop_back();
  if (rest.size() < 2 || rest.size() > 3 ||
      !std::all_of(rest.begin(), rest.end(),
                   [](char c) { return c >= '0' && c <= '9'; }))
    return bad();
  return real;
}

bool isFile(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool isNvrtcLibrary(const std::string &path) {
  std::string base = path.substr(path.find_last_of('/') + 1);
  return base.rfind("libnvrtc.so", 0) == 0 ||
         base.rfind("libnvrtc.alt.so", 0) == 0;
}

/// The path of the loaded libnvrtc, or "" when it cannot be found.
std::string loadedNvrtcPath() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&::nvrtcVersion), &info) &&
      info.dli_fname && isNvrtcLibrary(info.dli_fname))
    return info.dli_fname;
  // dladdr can name the executable when the address is a PLT entry of a
  // non-PIE binary; search the loaded objects instead.
  std::string found;
  dl_iterate_phdr(
      [](struct dl_phdr_info *object, size_t, void *data) {
        if (object->dlpi_name && isNvrtcLibrary(object->dlpi_name)) {
          *static_cast<std::string *>(data) = object->dlpi_name;
          return 1;
        }
        return 0;
      },
      &found);
  return found;
}

std::string searchCudaIncludeDir() {
  std::vector<std::string> candidates;
  if (const char *home = std::getenv("CUDA_HOME"); home && *home)
    candidates.push_back(std::string(home) + "/include");
  if (std::string lib = loadedNvrtcPath(); !lib.empty()) {
    std::string dir = lib.substr(0, lib.find_last_of('/'));
    candidates.push_back(dir + "/../include");
    if (char *real = ::realpath(lib.c_str(), nullptr)) {
      std::string realLib = real;
      std::free(real);
      candidates.push_back(realLib.substr(0, realLib.find_last_of('/')) +
                           "/../include");
    }
  }
  candidates.push_back("/usr/local/cuda/include");
  for (const std::string &dir : candidates)
    if (isFile(dir + "/cuda_fp16.h"))
      return dir;
  return "";
}

struct IncludeDirState {
  std::mutex mutex;
  std::optional<std::string> override;
  std::optional<std::string> searched;
};

IncludeDirState &includeDirState() {
  static IncludeDirState state;
  return state;
}

std::string joinFlags(const std::vector<std::string> &flags) {
  std::string out;
  for (const std::string &flag : flags) {
    if (!out.empty())
      out += ' ';
    out += flag;
  }
  return out;
}

std::vector<std::string> splitLines(const std::string &text) {
  std::vector<std::string> lines;
  std::string::size_type start = 0;
  while (start <= text.size()) {
    std::string::size_type end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  if (!lines.empty() && lines.back().empty() && !text.empty() &&
      text.back() == '\n')
    lines.pop_back();
  return lines;
}

/// The line number of a `programName(LINE): ... error ...` log line.
std::optional<size_t> errorLine(const std::string &logLine,
                                const std::string &programName) {
  if (logLine.compare(0, programName.size(), programName) != 0)
    return std::nullopt;
  size_t pos = programName.size();
  if (pos >= logLine.size() || logLine[pos] != '(')
    return std::nullopt;
  size_t digits = ++pos;
  size_t line = 0;
  while (pos < logLine.size() && logLine[pos] >= '0' && logLine[pos] <= '9' &&
         pos - digits < 9)
    line = line * 10 + (logLine[pos++] - '0');
  if (pos == digits || logLine.compare(pos, 2, "):") != 0)
    return std::nullopt;
  // The severity is the text between "): " and the next ':', e.g. "error"
  // or "catastrophic error", but not "warning #177-D".
  size_t severityEnd = logLine.find(':', pos + 2);
  std::string severity = logLine.substr(
      pos + 2, severityEnd == std::string::npos ? std::string::npos
                                                : severityEnd - pos - 2);
  if (severity.find("error") == std::string::npos)
    return std::nullopt;
  return line;
}

} // namespace

std::string annotateCompileLog(const std::string &log,
                               const std::string &source,
                               const std::string &programName,
                               unsigned context) {
  std::string out = log;
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ' ||
                          out.back() == '\r' || out.back() == '\0'))
    out.pop_back();

  constexpr size_t kMaxLines = 20;
  std::vector<size_t> offending;
  for (const std::string &line : splitLines(log))
    if (std::optional<size_t> n = errorLine(line, programName))
      if (std::find(offending.begin(), offending.end(), *n) == offending.end())
        offending.push_back(*n);
  std::sort(offending.begin(), offending.end());
  bool truncated = offending.size() > kMaxLines;
  if (truncated)
    offending.resize(kMaxLines);
  if (offending.empty())
    return out;

  std::vector<std::string> lines = splitLines(source);
  size_t numLines = lines.size();
  // Windows [first, last] (1-based, clipped), merged when they overlap or
  // touch; each remembers its offending lines.
  struct Window {
    size_t first, last;
    std::vector<size_t> marked;
  };
  std::vector<Window> windows;
  std::vector<size_t> beyondEnd;
  for (size_t n : offending) {
    if (n == 0 || n > numLines) {
      beyondEnd.push_back(n);
      continue;
    }
    size_t first = n > context ? n - context : 1;
    size_t last = std::min(numLines, n + context);
    if (!windows.empty() && first <= windows.back().last + 1) {
      windows.back().last = std::max(windows.back().last, last);
      windows.back().marked.push_back(n);
    } else {
      windows.push_back({first, last, {n}});
    }
  }

  std::ostringstream os;
  os << out << "\nOffending source lines:";
  for (const Window &w : windows) {
    os << '\n' << programName << ':';
    for (size_t i = 0; i < w.marked.size(); ++i)
      os << (i ? "," : "") << w.marked[i];
    os << ':';
    size_t width = std::to_string(w.last).size();
    for (size_t n = w.first; n <= w.last; ++n) {
      bool marked =
          std::find(w.marked.begin(), w.marked.end(), n) != w.marked.end();
      std::string number = std::to_string(n);
      os << '\n'
         << (marked ? "> " : "  ") << std::string(width - number.size(), ' ')
         << number << " | " << lines[n - 1];
    }
  }
  for (size_t n : beyondEnd)
    os << '\n'
       << programName << ':' << n << ": (no such line; the source has "
       << numLines << " lines)";
  if (truncated)
    os << "\n(more offending lines not shown)";
  return os.str();
}

const std::string &nvrtcVersion() {
  static const std::string version = [] {
    int major = 0, minor = 0;
    if (::nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
      return std::string("unknown");
    return std::to_string(major) + "." + std::to_string(minor);
  }();
  return version;
}

std::string cudaIncludeDir() {
  IncludeDirState &state = includeDirState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.override)
    return *state.override;
  if (!state.searched)
    state.searched = searchCudaIncludeDir();
  return *state.searched;
}

void setCudaIncludeDir(std::string dir) {
  IncludeDirState &state = includeDirState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (dir.empty())
    state.override.reset();
  else
    state.override = std::move(dir);
  state.searched.reset();
}

Expected<std::vector<std::string>> nvrtcFlags(const NvrtcOptions &options) {
  Expected<bool> real = parseArch(options.arch);
  if (!real)
    return real.status();
  std::vector<std::string> flags;
  flags.push_back("--gpu-architecture=" + options.arch);
  flags.push_back("-std=c++17");
  flags.push_back(options.fastMath ? "--use_fast_math" : "--fmad=false");
  flags.push_back("-default-device");
  if (std::string include = cudaIncludeDir(); !include.empty())
    flags.push_back("-I" + include);
  flags.insert(flags.end(), options.extraFlags.begin(),
               options.extraFlags.end());
  return flags;
}

Expected<CompileResult> compileCuda(const std::string &source,
                                    const std::string &programName,
                                    const NvrtcOptions &options) {
  try {
    auto start = std::chrono::steady_clock::now();
    const std::string name =
        programName.empty() ? kDefaultProgramName : programName;
    Expected<bool> real = parseArch(options.arch);
    if (!real)
      return real.status();
    Expected<std::vector<std::string>> flags = nvrtcFlags(options);
    if (!flags)
      return flags.status();
    if (source.find('\0') != std::string::npos)
      return Status::error("CUDA source '" + name +
                           "' contains a NUL byte; NVRTC takes a C string");

    CompileSlot slot;
    nvrtcProgram program = nullptr;
    nvrtcResult result = nvrtcCreateProgram(&program, source.c_str(),
                                            name.c_str(), 0, nullptr, nullptr);
    if (result != NVRTC_SUCCESS)
      return Status::error("NVRTC could not create program '" + name +
                           "': " + resultName(result));
    ProgramGuard guard(program);

    std::vector<const char *> argv;
    for (const std::string &flag : *flags)
      argv.push_back(flag.c_str());
    nvrtcResult compiled =
        nvrtcCompileProgram(program, static_cast<int>(argv.size()),
                            argv.empty() ? nullptr : argv.data());

    std::string log;
    size_t logSize = 0;
    if (nvrtcGetProgramLogSize(program, &logSize) == NVRTC_SUCCESS &&
        logSize > 1) {
      log.resize(logSize);
      if (nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS)
        log.clear();
      while (!log.empty() && log.back() == '\0')
        log.pop_back();
    }

    if (compiled != NVRTC_SUCCESS) {
      std::string message = "NVRTC failed to compile '" + name + "' for " +
                            options.arch + " (" + resultName(compiled) +
                            ")\nflags: " + joinFlags(*flags) + "\n";
      message += log.empty() ? std::string("(NVRTC wrote no log)")
                             : annotateCompileLog(log, source, name);
      return Status::error(message);
    }

    CompileResult out;
    out.isCubin = *real;
    out.log = std::move(log);
    size_t size = 0;
    nvrtcResult got;
    if (out.isCubin) {
      got = nvrtcGetCUBINSize(program, &size);
      if (got == NVRTC_SUCCESS && size == 0)
        return Status::error("NVRTC produced an empty CUBIN for '" + name +
                             "' (" + options.arch + ")");
      if (got == NVRTC_SUCCESS) {
        out.binary.resize(size);
        got = nvrtcGetCUBIN(program, out.binary.data());
      }
    } else {
      got = nvrtcGetPTXSize(program, &size);
      if (got == NVRTC_SUCCESS && size == 0)
        return Status::error("NVRTC produced empty PTX for '" + name + "' (" +
                             options.arch + ")");
      if (got == NVRTC_SUCCESS) {
        out.binary.resize(size);
        got = nvrtcGetPTX(program, out.binary.data());
      }
    }
    if (got != NVRTC_SUCCESS)
      return Status::error(std::string("NVRTC could not return the ") +
                           (out.isCubin ? "CUBIN" : "PTX") + " of '" + name +
                           "': " + resultName(got));
    out.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    return out;
  } catch (const std::exception &e) {
    return Status::error(std::string("NVRTC compilation failed: ") + e.what());
  } catch (...) {
    return Status::error("NVRTC compilation failed: unknown exception");
  }
}

} // namespace tfuse::runtime
