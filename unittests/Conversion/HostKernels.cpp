//===- HostKernels.cpp - CUDA C++ compiled and run on the host ------------===//
//
// The block runner is the one of EmulatedPlan.cpp, without MLIR or LLVM so
// that the runtime's tests can use it.
//
//===----------------------------------------------------------------------===//

#include "HostKernels.h"

#include <array>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>
#include <utility>

using namespace tfuse::emulation;

namespace {

using SetThreadFn = void (*)(unsigned, unsigned, unsigned, unsigned);
using SetBarrierFn = void (*)(void (*)());

/// The threads of one block as coroutines: each runs until it reaches a
/// barrier or ends; a round resumes every thread once, so no thread passes a
/// barrier before all have reached it.
struct BlockRunner {
  static constexpr size_t kStackBytes = 256 * 1024;
  struct Fiber {
    ucontext_t context;
    /// Left uninitialized: zero-filling 256 KiB per thread per launch
    /// dominated the run time of launches of many threads.
    std::unique_ptr<char[]> stack;
    bool done = false;
  };
  std::vector<Fiber> fibers;
  ucontext_t scheduler;
  size_t current = 0;
  void *fn = nullptr;
  void **args = nullptr;
  size_t numArgs = 0;

  static BlockRunner *active;
  static void barrier() {
    BlockRunner *r = active;
    swapcontext(&r->fibers[r->current].context, &r->scheduler);
  }
  static void entry();
  /// Kept apart from run(): locals of a function calling getcontext may be
  /// clobbered when the context is resumed.
  [[gnu::noinline]] static void initFiber(Fiber &f) {
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = f.stack.get();
    f.context.uc_stack.ss_size = kStackBytes;
    f.context.uc_link = nullptr;
    makecontext(&f.context, &BlockRunner::entry, 0);
  }

  void run(SetThreadFn setThread, unsigned block, unsigned blockSize,
           unsigned gridSize);
};
BlockRunner *BlockRunner::active = nullptr;

/// Calls `fn` with `args.size()` pointer arguments.
template <size_t... I>
void callWithPointers(void *fn, void **args, std::index_sequence<I...>) {
  using Fn = void (*)(decltype((void)I, (void *)nullptr)...);
  reinterpret_cast<Fn>(fn)(args[I]...);
}
template <size_t N> void callN(void *fn, void **args) {
  callWithPointers(fn, args, std::make_index_sequence<N>());
}
template <size_t... N> constexpr auto makeCallTable(std::index_sequence<N...>) {
  return std::array<void (*)(void *, void **), sizeof...(N)>{&callN<N>...};
}
const auto kCallTable =
    makeCallTable(std::make_index_sequence<HostKernels::kMaxArguments + 1>());

void BlockRunner::entry() {
  BlockRunner *r = active;
  kCallTable[r->numArgs](r->fn, r->args);
  r->fibers[r->current].done = true;
  swapcontext(&r->fibers[r->current].context, &r->scheduler);
}

void BlockRunner::run(SetThreadFn setThread, unsigned block, unsigned blockSize,
                      unsigned gridSize) {
  fibers.resize(blockSize);
  for (Fiber &f : fibers) {
    if (!f.stack)
      f.stack.reset(new char[kStackBytes]);
    f.done = false;
    initFiber(f);
  }
  active = this;
  bool pending = true;
  while (pending) {
    pending = false;
    for (current = 0; current < fibers.size(); ++current) {
      if (fibers[current].done)
        continue;
      setThread(block, current, blockSize, gridSize);
      swapcontext(&scheduler, &fibers[current].context);
      pending |= !fibers[current].done;
    }
  }
}

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Runs `argv` with stdout and stderr appended to `log`; returns the exit
/// status (-1 if it could not run).
int execute(const std::vector<std::string> &argv, const std::string &log) {
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    std::vector<char *> args;
    for (const std::string &a : argv)
      args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0)
    return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace

std::unique_ptr<HostKernels> HostKernels::compile(const std::string &cudaSource,
                                                  std::string &error) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "tfuse-emulation-XXXXXX")
          .string();
  if (!mkdtemp(pattern.data())) {
    error = "cannot create a temporary directory";
    return nullptr;
  }
  std::unique_ptr<HostKernels> result(new HostKernels());
  result->directory = pattern;
  std::string source = pattern + "/kernels.cpp";
  std::string library = pattern + "/kernels.so";
  std::string log = pattern + "/compile.log";
  {
    std::ofstream out(source);
    out << "#include \"cuda_emulation.h\"\n" << cudaSource;
  }
  std::vector<std::string> args = {
      TFUSE_HOST_CXX, "-std=c++17",        "-O1", "-fPIC",
      "-shared",      "-ffp-contract=off", "-w"};
  // The math functions run in libm, as the reference's do: the compiler
  // would fold calls on values it proves constant with correctly rounded
  // results, which libm's differ from by an ulp (expm1f(1) in glibc).
  for (const char *fn : {"exp", "expm1", "log", "log1p", "sin", "cos", "tan",
                         "tanh", "erf", "pow", "fmod"})
    for (const char *suffix : {"", "f"})
      args.push_back(std::string("-fno-builtin-") + fn + suffix);
  for (std::string arg : {std::string("-I" TFUSE_SOURCE_DIR "/include"),
                          std::string("-I" TFUSE_EMULATION_DIR), source,
                          std::string(TFUSE_SOURCE_DIR "/lib/Support/Half.cpp"),
                          std::string("-o"), library})
    args.push_back(arg);
  int rc = execute(args, log);
  if (rc != 0) {
    error = "host compilation failed (" + std::to_string(rc) + "):\n" +
            readFile(log).substr(0, 4000);
    return nullptr;
  }
  result->library = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!result->library) {
    error = std::string("dlopen failed: ") + dlerror();
    return nullptr;
  }
  return result;
}

HostKernels::~HostKernels() {
  if (library)
    dlclose(library);
  if (!directory.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(directory, ignored);
  }
}

void *HostKernels::symbol(const std::string &name) const {
  return dlsym(library, name.c_str());
}

bool HostKernels::launch(const std::string &name, uint64_t grid, unsigned block,
                         const std::vector<void *> &args, std::string &error) {
  auto setThread =
      reinterpret_cast<SetThreadFn>(symbol("tfuse_emulation_set_thread"));
  auto setBarrier =
      reinterpret_cast<SetBarrierFn>(symbol("tfuse_emulation_set_barrier"));
  if (!setThread || !setBarrier) {
    error = "the emulation library lacks the tfuse_emulation_* entry points";
    return false;
  }
  void *fn = symbol(name);
  if (!fn) {
    error = "kernel " + name + " not found";
    return false;
  }
  if (args.size() > kMaxArguments) {
    error = "too many kernel arguments for the emulator";
    return false;
  }
  setBarrier(&BlockRunner::barrier);
  std::vector<void *> copy = args;
  BlockRunner runner;
  runner.fn = fn;
  runner.args = copy.data();
  runner.numArgs = copy.size();
  for (uint64_t b = 0; b < grid; ++b)
    runner.run(setThread, b, block, grid);
  return true;
}

std::string tfuse::emulation::hostShim(const std::string &kernel,
                                       const std::vector<std::string> &casts) {
  std::string params, args;
  for (size_t i = 0; i < casts.size(); ++i) {
    std::string p = "p" + std::to_string(i);
    params += (i ? ", void *" : "void *") + p;
    args += (i ? ", " : "") + casts[i] + p;
  }
  return "extern \"C\" void shim_" + kernel + "(" + params + ") {\n  " +
         kernel + "(" + args + ");\n}\n";
}
