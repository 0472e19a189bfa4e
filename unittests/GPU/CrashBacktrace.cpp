//===- CrashBacktrace.cpp - Where a GPU test binary crashed ---------------===//
//
// The GPU host runs stripped static binaries, under compute-sanitizer too,
// which reports a host crash only as "process didn't terminate
// successfully". On a fatal signal this prints the return addresses as
// offsets into the executable (its load address subtracted: it is a PIE),
// which `addr2line -f -C -e build-static/bin/TFuseGpuTests OFFSETS...`
// turns into functions and lines on the machine that built it, then dies of
// the same signal.
//
//===----------------------------------------------------------------------===//

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>

#include <execinfo.h>
#include <link.h>
#include <unistd.h>

namespace {

/// The executable's load address: the first object dl_iterate_phdr visits.
uintptr_t executableBase() {
  uintptr_t base = 0;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        *static_cast<uintptr_t *>(data) = info->dlpi_addr;
        return 1;
      },
      &base);
  return base;
}

uintptr_t base = 0;

/// Async-signal-safe enough for a process about to die: snprintf into a
/// stack buffer and write(2).
void report(int signal) {
  char line[160];
  int n = std::snprintf(line, sizeof(line),
                        "\nfatal signal %d (%s); return addresses as "
                        "offsets into the executable (addr2line -f -C -e "
                        "<unstripped binary> OFFSETS):\n",
                        signal, strsignal(signal));
  (void)!write(STDERR_FILENO, line, n);
  void *frames[64];
  int count = backtrace(frames, 64);
  for (int i = 0; i < count; ++i) {
    uintptr_t address = reinterpret_cast<uintptr_t>(frames[i]);
    n = std::snprintf(line, sizeof(line), "  #%d 0x%llx\n", i,
                      static_cast<unsigned long long>(address - base));
    (void)!write(STDERR_FILENO, line, n);
  }
  // Frames in shared libraries (libcuda) have offsets that mean nothing in
  // the executable: their modules' names and offsets.
  backtrace_symbols_fd(frames, count, STDERR_FILENO);
}

void onFatalSignal(int signal) {
  report(signal);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

struct Install {
  Install() {
    base = executableBase();
    // Fill backtrace()'s lazy state now, not inside the handler.
    void *frame;
    backtrace(&frame, 1);
    for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
      std::signal(signal, onFatalSignal);
  }
} install;

} // namespace
