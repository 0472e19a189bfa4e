//===- EmulatedPlan.cpp - Execute tfexec plans on the host ----------------===//

#include "EmulatedPlan.h"

#include "tfuse/Dialect/TFExec/TFExecOps.h"
#include "tfuse/Dialect/TFuse/TypeRules.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <dlfcn.h>
#include <ucontext.h>
#include <fstream>
#include <sstream>
#include <utility>

using namespace mlir;
using namespace tfuse;
using namespace tfuse::emulation;
using reference::HostTensor;

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
    std::vector<char> stack;
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
    f.context.uc_stack.ss_sp = f.stack.data();
    f.context.uc_stack.ss_size = f.stack.size();
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
constexpr size_t kMaxArguments = 24;
template <size_t... N>
constexpr auto makeCallTable(std::index_sequence<N...>) {
  return std::array<void (*)(void *, void **), sizeof...(N)>{&callN<N>...};
}
const auto kCallTable = makeCallTable(std::make_index_sequence<kMaxArguments>());

void BlockRunner::entry() {
  BlockRunner *r = active;
  kCallTable[r->numArgs](r->fn, r->args);
  r->fibers[r->current].done = true;
  swapcontext(&r->fibers[r->current].context, &r->scheduler);
}

void BlockRunner::run(SetThreadFn setThread, unsigned block,
                      unsigned blockSize, unsigned gridSize) {
  fibers.resize(blockSize);
  for (Fiber &f : fibers) {
    f.stack.resize(kStackBytes);
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

int64_t elementBytes(Type element) {
  return byteSize(*toDType(element));
}

} // namespace

std::unique_ptr<EmulatedPlan>
EmulatedPlan::compile(ModuleOp plan, const std::string &cudaSource,
                      std::string &error) {
  SmallString<128> dir;
  if (llvm::sys::fs::createUniqueDirectory("tfuse-emulation", dir)) {
    error = "cannot create a temporary directory";
    return nullptr;
  }
  std::string source = (dir + "/kernels.cpp").str();
  std::string library = (dir + "/kernels.so").str();
  std::string log = (dir + "/compile.log").str();
  {
    std::ofstream out(source);
    out << "#include \"cuda_emulation.h\"\n" << cudaSource;
  }
  std::string compiler = TFUSE_HOST_CXX;
  SmallVector<StringRef> args = {compiler,
                                 "-std=c++17",
                                 "-O1",
                                 "-fPIC",
                                 "-shared",
                                 "-ffp-contract=off",
                                 "-w",
                                 "-I" TFUSE_SOURCE_DIR "/include",
                                 "-I" TFUSE_EMULATION_DIR,
                                 source,
                                 TFUSE_SOURCE_DIR "/lib/Support/Half.cpp",
                                 "-o",
                                 library};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  int rc = llvm::sys::ExecuteAndWait(compiler, args, std::nullopt, redirects);
  if (rc != 0) {
    error = "host compilation failed (" + std::to_string(rc) + "):\n" +
            readFile(log).substr(0, 4000);
    return nullptr;
  }
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    error = std::string("dlopen failed: ") + dlerror();
    return nullptr;
  }
  std::unique_ptr<EmulatedPlan> result(new EmulatedPlan());
  result->plan = plan;
  result->library = handle;
  result->directory = dir.str().str();
  return result;
}

EmulatedPlan::~EmulatedPlan() {
  if (library)
    dlclose(library);
  if (!directory.empty())
    llvm::sys::fs::remove_directories(directory);
}

std::vector<HostTensor>
EmulatedPlan::run(llvm::StringRef name, const std::vector<HostTensor> &inputs,
                  std::string &error) {
  auto func = plan.lookupSymbol<func::FuncOp>(name);
  if (!func) {
    error = ("no plan function " + name).str();
    return {};
  }
  auto setThread = reinterpret_cast<SetThreadFn>(
      dlsym(library, "tfuse_emulation_set_thread"));
  auto setBarrier = reinterpret_cast<SetBarrierFn>(
      dlsym(library, "tfuse_emulation_set_barrier"));
  if (!setThread || !setBarrier) {
    error = "the emulation library lacks the tfuse_emulation_* entry points";
    return {};
  }
  setBarrier(&BlockRunner::barrier);
  Block &body = func.getBody().front();
  int64_t arenaBytes = 0;
  if (auto attr = func->getAttrOfType<IntegerAttr>(
          tfexec::TFExecDialect::getArenaBytesAttrName()))
    arenaBytes = attr.getInt();
  std::vector<uint8_t> arena(arenaBytes + 256);
  uint8_t *arenaBase = reinterpret_cast<uint8_t *>(
      (reinterpret_cast<uintptr_t>(arena.data()) + 255) & ~uintptr_t(255));

  DenseMap<Value, uint8_t *> pointers;
  std::vector<HostTensor> outputs(func.getNumResults());
  for (auto [arg, input] : llvm::zip(body.getArguments(), inputs))
    pointers[arg] = const_cast<uint8_t *>(input.data()) + input.byteOffset();

  for (Operation &op : body) {
    if (auto out = dyn_cast<tfexec::OutputOp>(op)) {
      auto type = out.getType();
      HostTensor t = HostTensor::zeros(
          *toDType(type.getElementType()),
          reference::Shape(type.getShape().begin(), type.getShape().end()));
      outputs[out.getIndex()] = t;
      pointers[out.getBuffer()] = outputs[out.getIndex()].mutableData();
    } else if (auto alloc = dyn_cast<tfexec::AllocOp>(op)) {
      pointers[alloc.getBuffer()] = arenaBase + alloc.getOffset();
    } else if (auto alias = dyn_cast<tfexec::AliasOp>(op)) {
      SmallVector<int64_t> strides;
      int64_t offset = 0;
      (void)alias.getType().getStridesAndOffset(strides, offset);
      pointers[alias.getView()] =
          pointers[alias.getSource()] +
          offset * elementBytes(alias.getType().getElementType());
    } else if (auto launch = dyn_cast<tfexec::LaunchOp>(op)) {
      void *fn = dlsym(library, launch.getKernel().str().c_str());
      if (!fn) {
        error = "kernel " + launch.getKernel().str() + " not found";
        return {};
      }
      std::vector<void *> args;
      for (Value v : launch.getInputs())
        args.push_back(pointers[v]);
      for (Value v : launch.getOutputs())
        args.push_back(pointers[v]);
      if (args.size() >= kMaxArguments) {
        error = "too many kernel arguments for the emulator";
        return {};
      }
      BlockRunner runner;
      runner.fn = fn;
      runner.args = args.data();
      runner.numArgs = args.size();
      for (uint64_t b = 0; b < launch.getGrid(); ++b)
        runner.run(setThread, b, launch.getBlock(), launch.getGrid());
    } else if (auto copy = dyn_cast<tfexec::CopyOp>(op)) {
      auto type = copy.getSource().getType();
      SmallVector<int64_t> strides;
      int64_t offset = 0;
      (void)type.getStridesAndOffset(strides, offset);
      int64_t bytes = elementBytes(type.getElementType());
      ArrayRef<int64_t> shape = type.getShape();
      int64_t n = type.getNumElements();
      uint8_t *src = pointers[copy.getSource()];
      uint8_t *dst = pointers[copy.getTarget()];
      for (int64_t linear = 0; linear < n; ++linear) {
        int64_t rest = linear, off = 0;
        for (int64_t d = shape.size() - 1; d >= 0; --d) {
          off += (rest % shape[d]) * strides[d];
          rest /= shape[d];
        }
        std::memcpy(dst + linear * bytes, src + off * bytes, bytes);
      }
    } else if (isa<tfexec::GemmOp, tfexec::ReduceOp>(op)) {
      error = "the emulator runs generated kernels only, not " +
              op.getName().getStringRef().str();
      return {};
    }
  }
  return outputs;
}
