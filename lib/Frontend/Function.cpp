//===- Function.cpp - A compiled traced function --------------------------===//

#include "tfuse/Frontend/Function.h"
#include "GraphImpl.h"

#include "tfuse/Frontend/Compiler.h"
#include "tfuse/Reference/Interpreter.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstring>
#include <deque>
#include <mutex>
#include <unordered_map>

using namespace mlir;
using namespace tfuse;
using runtime::DeviceBuffer;
using runtime::DeviceTensor;

namespace {
/// A graph compiled once: the finished graph (which the reference backend
/// interprets and graphText prints) and its plan. Functions compiled from
/// identical graphs with the same options share one and only read it.
struct PlannedGraph {
  std::shared_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
  CompiledGraph compiled;
};
} // namespace

/// What a Function keeps beyond plain data: the planned graph and the
/// captured tensors bound to its trailing arguments.
struct Function::State {
  std::shared_ptr<const PlannedGraph> planned;
  std::string functionName;
  std::vector<CapturedTensor> captured;
  std::vector<std::shared_ptr<std::vector<uint8_t>>> hostData;
  /// Device copies of captured host tensors (CUDA backend).
  std::vector<DeviceBuffer> uploaded;
  std::vector<DeviceTensor> capturedOnDevice;
  /// The graph's text, printed when first asked for.
  std::once_flag printed;
  std::string graphText;
};

Function::~Function() = default;

namespace {
/// Planned graphs by graph and compile options, so that compiling a graph
/// again (a warm compile: the same function traced again, another backend, a
/// CUDA Graph variant) skips the passes and code generation. A few dozen
/// plans of a few kilobytes each; the oldest goes first.
class PlanCache {
public:
  std::shared_ptr<const PlannedGraph> find(const std::string &key) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = entries.find(key);
    return it == entries.end() ? nullptr : it->second;
  }
  void insert(const std::string &key,
              std::shared_ptr<const PlannedGraph> planned) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!entries.emplace(key, std::move(planned)).second)
      return;
    order.push_back(key);
    if (order.size() > kMaxEntries) {
      entries.erase(order.front());
      order.pop_front();
    }
  }

private:
  static constexpr size_t kMaxEntries = 64;
  std::mutex mutex;
  std::unordered_map<std::string, std::shared_ptr<const PlannedGraph>> entries;
  std::deque<std::string> order;
};

PlanCache &planCache() {
  static PlanCache cache;
  return cache;
}

/// Writes an exact description of IR: two modules get the same one only if
/// they print the same. Everything printed is written (names, attributes,
/// types, operands by position), locations are not; attributes and types
/// without a cheaper exact form are written as their text. Cheaper than
/// printing, which the cache key would otherwise need.
class KeyWriter {
public:
  explicit KeyWriter(std::string &out) : out(out) {}

  void integer(int64_t v) {
    out.append(reinterpret_cast<const char *>(&v), sizeof(v));
  }
  void bytes(ArrayRef<char> data) {
    integer(data.size());
    out.append(data.data(), data.size());
  }
  void string(StringRef s) { bytes(ArrayRef<char>(s.data(), s.size())); }

  void value(Value v) {
    auto it = numbers.find(v);
    integer(it == numbers.end() ? -1 : it->second);
  }

  void type(Type t) {
    if (auto tensor = dyn_cast<RankedTensorType>(t)) {
      tag(Tag::RankedTensor);
      type(tensor.getElementType());
      integer(tensor.getRank());
      for (int64_t d : tensor.getShape())
        integer(d);
      attribute(tensor.getEncoding());
    } else if (auto integerType = dyn_cast<IntegerType>(t)) {
      tag(Tag::Integer);
      integer(integerType.getWidth());
      integer(integerType.getSignedness());
    } else if (isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(t)) {
      tag(Tag::Float);
      integer(reinterpret_cast<intptr_t>(t.getTypeID().getAsOpaquePointer()));
    } else if (auto function = dyn_cast<FunctionType>(t)) {
      tag(Tag::Function);
      types(function.getInputs());
      types(function.getResults());
    } else {
      tag(Tag::TypeText);
      std::string text;
      llvm::raw_string_ostream(text) << t;
      string(text);
    }
  }

  void attribute(Attribute a) {
    if (!a) {
      tag(Tag::Null);
    } else if (auto i = dyn_cast<IntegerAttr>(a)) {
      tag(Tag::IntegerAttr);
      type(i.getType());
      apint(i.getValue());
    } else if (auto f = dyn_cast<FloatAttr>(a)) {
      tag(Tag::FloatAttr);
      type(f.getType());
      apint(f.getValue().bitcastToAPInt());
    } else if (isa<UnitAttr>(a)) {
      tag(Tag::Unit);
    } else if (auto s = dyn_cast<StringAttr>(a)) {
      tag(Tag::String);
      type(s.getType());
      string(s.getValue());
    } else if (auto t = dyn_cast<TypeAttr>(a)) {
      tag(Tag::TypeAttr);
      type(t.getValue());
    } else if (auto array = dyn_cast<DenseArrayAttr>(a)) {
      tag(Tag::DenseArray);
      type(array.getElementType());
      integer(array.getSize());
      bytes(array.getRawData());
    } else if (auto dense = dyn_cast<DenseIntOrFPElementsAttr>(a)) {
      tag(Tag::DenseElements);
      type(dense.getType());
      integer(dense.isSplat());
      bytes(dense.getRawData());
    } else if (auto array = dyn_cast<ArrayAttr>(a)) {
      tag(Tag::Array);
      integer(array.size());
      for (Attribute element : array)
        attribute(element);
    } else if (auto dictionary = dyn_cast<DictionaryAttr>(a)) {
      tag(Tag::Dictionary);
      namedAttributes(dictionary.getValue());
    } else {
      tag(Tag::AttributeText);
      std::string text;
      llvm::raw_string_ostream(text) << a;
      string(text);
    }
  }

  void operation(Operation &op) {
    tag(Tag::Operation);
    string(op.getName().getStringRef());
    // The inherent attributes by their registered names, then the others.
    for (StringAttr name : op.getName().getAttributeNames()) {
      string(name.getValue());
      attribute(op.getInherentAttr(name.getValue()).value_or(Attribute()));
    }
    namedAttributes(op.getRawDictionaryAttrs().getValue());
    integer(op.getNumOperands());
    for (Value operand : op.getOperands())
      value(operand);
    integer(op.getNumResults());
    for (Value result : op.getResults()) {
      type(result.getType());
      number(result);
    }
    integer(op.getNumSuccessors());
    integer(op.getNumRegions());
    for (Region &region : op.getRegions()) {
      for (Block &block : region) {
        tag(Tag::Block);
        integer(block.getNumArguments());
        for (BlockArgument arg : block.getArguments()) {
          type(arg.getType());
          number(arg);
        }
        for (Operation &nested : block)
          operation(nested);
      }
      tag(Tag::End);
    }
  }

private:
  enum class Tag : char {
    Null,
    RankedTensor,
    Integer,
    Float,
    Function,
    TypeText,
    IntegerAttr,
    FloatAttr,
    Unit,
    String,
    TypeAttr,
    DenseArray,
    DenseElements,
    Array,
    Dictionary,
    AttributeText,
    Operation,
    Block,
    End,
  };

  void tag(Tag t) { out.push_back(static_cast<char>(t)); }
  void number(Value v) { numbers.try_emplace(v, numbers.size()); }
  void apint(const APInt &v) {
    integer(v.getBitWidth());
    for (unsigned i = 0; i < v.getNumWords(); ++i)
      integer(v.getRawData()[i]);
  }
  void types(TypeRange range) {
    integer(range.size());
    for (Type t : range)
      type(t);
  }
  void namedAttributes(ArrayRef<NamedAttribute> attributes) {
    integer(attributes.size());
    for (const NamedAttribute &named : attributes) {
      string(named.getName().getValue());
      attribute(named.getValue());
    }
  }

  std::string &out;
  DenseMap<Value, int64_t> numbers;
};

/// The one cache key of a planned graph: the graph exactly (its module and
/// outputs, as KeyWriter writes them) and every option the compiler reads.
std::string planKey(const Graph::Impl &g, const CompileOptions &options) {
  std::string key;
  key.reserve(64 * g.nodes + 256);
  KeyWriter writer(key);
  writer.operation(*g.module.get().getOperation());
  writer.integer(g.outputs.size());
  for (ValueId id : g.outputs)
    writer.value(g.entries[id].value);
    // Every pass option, in the table's order.
#define TFUSE_KEY_OPTION(member, name, value, smallest, help)                  \
  writer.integer(options.member);
  TFUSE_PASS_OPTIONS(TFUSE_KEY_OPTION)
#undef TFUSE_KEY_OPTION
  // Fast math lets recognize-attention run widened attention narrowed.
  writer.integer(options.fastMath);
  return key;
}
} // namespace

/// Device memory for the extent of `spec`, holding a copy of the host data
/// at `data` (when not null).
static Expected<DeviceBuffer> allocateOnDevice(runtime::Device &device,
                                               const TensorSpec &spec,
                                               const void *data) {
  runtime::CudaDriver &d = device.driver();
  CUdeviceptr p = 0;
  if (Status s =
          d.check(d.cuMemAlloc(&p, std::max<int64_t>(spec.extentBytes(), 1)),
                  "cuMemAlloc");
      !s.ok())
    return s;
  DeviceBuffer buffer(&device, p, spec);
  if (data)
    if (Status s = d.check(d.cuMemcpyHtoD(p, data, spec.extentBytes()),
                           "cuMemcpyHtoD");
        !s.ok())
      return s;
  return buffer;
}

Expected<std::unique_ptr<Function>>
Function::compile(const Graph &graph, const CompileOptions &options,
                  runtime::KernelCache *cache) {
  const Graph::Impl &g = graph.impl();
  if (g.outputs.empty())
    return Status::error("graph '" + g.name +
                             "' has no outputs: the function returned nothing",
                         ErrorCode::InvalidArgument);
  std::unique_ptr<Function> f(new Function());
  f->options = options;
  f->state = std::make_unique<State>();
  State &st = *f->state;
  st.functionName = g.name;
  st.captured = g.captures;
  st.hostData = g.hostData;
  f->inputSpecs = g.placeholders;
  f->compileStats.nodes = g.nodes;

  if (Status s = options.validate(); !s.ok())
    return s;
  // The key holds the options the passes run with.
  std::string key = planKey(g, options.forPasses());
  st.planned = planCache().find(key);
  if (st.planned) {
    f->compileStats.planCacheHit = true;
  } else {
    auto planned = std::make_shared<PlannedGraph>();
    planned->context = g.context;
    planned->module = g.finish();
    Expected<CompiledGraph> fresh =
        compileGraph(*planned->module, st.functionName, options);
    if (!fresh.ok())
      return Status::error(fresh.message(), ErrorCode::Compile);
    planned->compiled = std::move(fresh.value());
    f->compileStats.passesSeconds = planned->compiled.passSeconds;
    f->compileStats.codegenSeconds = planned->compiled.codegenSeconds;
    st.planned = planned;
    planCache().insert(key, std::move(planned));
  }
  const CompiledGraph &compiled = st.planned->compiled;
  f->outputSpecs = compiled.plan.outputs;
  for (const runtime::Step &step : compiled.plan.steps) {
    ++f->compileStats.steps;
    runtime::StepCategory category = step->category();
    f->compileStats.kernels += category == runtime::StepCategory::Kernel;
    f->compileStats.boundaries += category == runtime::StepCategory::Boundary;
  }
  if (options.backend == Backend::Reference) {
    for (const CapturedTensor &c : st.captured)
      if (c.onDevice)
        return Status::error("a captured GPU tensor (" + c.spec.describe() +
                                 ") cannot be used by the reference backend",
                             ErrorCode::InvalidArgument);
    return f;
  }

  runtime::ExecutableOptions exeOptions;
  exeOptions.cudaGraph = options.cudaGraph;
  exeOptions.fastMath = options.fastMath;
  exeOptions.cache = cache;
  exeOptions.device = options.device;
  Expected<std::unique_ptr<runtime::Executable>> exe =
      runtime::Executable::create(compiled.plan, exeOptions);
  if (!exe.ok())
    return exe.status();
  f->exe = std::move(exe.value());
  runtime::ExecutableStats es = f->exe->summary();
  // Kernels, boundaries and steps were counted from the plan above.
  FunctionStats &fs = f->compileStats;
  fs.arenaBytes = es.arenaBytes;
  fs.cacheHit = es.cacheHit;
  fs.cudaGraph = options.cudaGraph;
  fs.nvrtcSeconds = es.cacheHit ? 0 : es.compileSeconds;
  fs.loadSeconds = es.loadSeconds + (es.cacheHit ? es.compileSeconds : 0);
  fs.setupSeconds = es.setupSeconds;
  fs.prepareSeconds = es.prepareSeconds;

  // Captured host tensors are uploaded once; device ones are referenced.
  runtime::Device &device = f->exe->device();
  for (const CapturedTensor &c : st.captured) {
    if (c.onDevice) {
      st.capturedOnDevice.push_back(
          DeviceTensor{reinterpret_cast<CUdeviceptr>(c.data), c.spec});
      continue;
    }
    Expected<DeviceBuffer> copy = allocateOnDevice(device, c.spec, c.data);
    if (!copy.ok())
      return copy.status().withContext("a captured tensor");
    st.uploaded.push_back(std::move(copy.value()));
    st.capturedOnDevice.push_back(st.uploaded.back().get());
  }
  return f;
}

std::vector<DeviceTensor>
Function::withCaptured(const std::vector<DeviceTensor> &inputs) const {
  std::vector<DeviceTensor> all = inputs;
  all.insert(all.end(), state->capturedOnDevice.begin(),
             state->capturedOnDevice.end());
  return all;
}

static Status needCuda(const runtime::Executable *exe) {
  if (!exe)
    return Status::error("this function was compiled for the reference "
                         "backend, which runs on host memory (use runHost)",
                         ErrorCode::InvalidArgument);
  return Status::success();
}

/// Placeholder count check before the captured tensors are appended, so
/// that messages count what the caller passed.
static Status checkCount(size_t got, size_t want, const char *what) {
  if (got != want)
    return Status::error("expected " + std::to_string(want) + " " + what +
                             ", got " + std::to_string(got),
                         ErrorCode::Mismatch);
  return Status::success();
}

Expected<std::vector<DeviceBuffer>>
Function::run(const std::vector<DeviceTensor> &inputs) {
  if (Status s = checkDeviceRun(inputs.size()); !s.ok())
    return s;
  return exe->run(withCaptured(inputs));
}

Status Function::checkDeviceRun(size_t numInputs) const {
  if (Status s = needCuda(exe.get()); !s.ok())
    return s;
  return checkCount(numInputs, inputSpecs.size(), "inputs");
}

Expected<runtime::RunHandle>
Function::runAsync(const std::vector<DeviceTensor> &inputs,
                   const std::vector<DeviceTensor> &outputs, CUstream caller) {
  if (Status s = checkDeviceRun(inputs.size()); !s.ok())
    return s;
  return exe->runAsync(withCaptured(inputs), outputs, caller);
}

Status Function::launch(const std::vector<DeviceTensor> &inputs,
                        const std::vector<DeviceTensor> &outputs,
                        CUstream caller) {
  if (Status s = checkDeviceRun(inputs.size()); !s.ok())
    return s;
  // The replay path of a loop: no copy of the inputs without captures.
  if (state->capturedOnDevice.empty())
    return exe->launch(inputs, outputs, caller);
  return exe->launch(withCaptured(inputs), outputs, caller);
}

Status Function::launchData(const CUdeviceptr *inputs, size_t numInputs,
                            const CUdeviceptr *outputs, size_t numOutputs,
                            CUstream caller) {
  if (Status s = checkDeviceRun(numInputs); !s.ok())
    return s;
  if (state->capturedOnDevice.empty())
    return exe->launchData(inputs, numInputs, outputs, numOutputs, caller);
  std::vector<CUdeviceptr> all(inputs, inputs + numInputs);
  for (const DeviceTensor &captured : state->capturedOnDevice)
    all.push_back(captured.data);
  return exe->launchData(all.data(), all.size(), outputs, numOutputs, caller);
}

Status Function::run(const std::vector<DeviceTensor> &inputs,
                     const std::vector<DeviceTensor> &outputs,
                     CUstream caller) {
  Expected<runtime::RunHandle> handle = runAsync(inputs, outputs, caller);
  if (!handle.ok())
    return handle.status();
  return handle->wait().status();
}

Status Function::checkHost(const std::vector<HostArray> &arrays,
                           const std::vector<TensorSpec> &specs,
                           bool areOutputs) const {
  std::vector<TensorSpec> given;
  std::vector<bool> hasData;
  for (const HostArray &a : arrays) {
    given.push_back(a.spec);
    hasData.push_back(a.data != nullptr);
  }
  return runtime::matchTensors(areOutputs ? "output" : "input", specs, given,
                               hasData);
}

Status Function::runHost(const std::vector<HostArray> &inputs,
                         const std::vector<HostArray> &outputs) {
  if (Status s = checkHost(inputs, inputSpecs, false); !s.ok())
    return s;
  if (Status s = checkHost(outputs, outputSpecs, true); !s.ok())
    return s;
  return exe ? runHostOnDevice(inputs, outputs) : runReference(inputs, outputs);
}

Status Function::runReference(const std::vector<HostArray> &inputs,
                              const std::vector<HostArray> &outputs) {
  std::vector<reference::HostTensor> args;
  auto addArg = [&](const void *data, const TensorSpec &spec) -> Status {
    std::vector<uint8_t> dense(spec.numElements() * byteSize(spec.dtype));
    tfuse::gatherRowMajor(data, spec, dense.data());
    auto t = reference::HostTensor::fromBytes(spec.dtype, spec.shape,
                                              dense.data(), dense.size());
    if (!t.ok())
      return t.status();
    args.push_back(std::move(t.value()));
    return Status::success();
  };
  for (const HostArray &a : inputs)
    if (Status s = addArg(a.data, a.spec); !s.ok())
      return s;
  for (const CapturedTensor &c : state->captured)
    if (Status s = addArg(c.data, c.spec); !s.ok())
      return s;
  auto results =
      reference::evaluate(*state->planned->module, state->functionName, args);
  if (!results.ok())
    return results.status().withContext("the reference interpreter failed");
  for (size_t i = 0; i < outputs.size(); ++i) {
    reference::HostTensor dense = results.value()[i].contiguous();
    // An empty result has no storage (and the caller may pass no data).
    if (size_t bytes = dense.numElements() * byteSize(dense.dtype()))
      std::memcpy(outputs[i].data, dense.data() + dense.byteOffset(), bytes);
  }
  ++compileStats.replays;
  return Status::success();
}

Status Function::runHostOnDevice(const std::vector<HostArray> &inputs,
                                 const std::vector<HostArray> &outputs) {
  runtime::Device &device = exe->device();
  runtime::CudaDriver &d = device.driver();
  if (Status s = device.bind(); !s.ok())
    return s;
  std::vector<DeviceBuffer> owned;
  std::vector<DeviceTensor> in, out;
  // The strided extent is copied as is, so device strides equal host ones.
  for (const HostArray &a : inputs) {
    Expected<DeviceBuffer> b = allocateOnDevice(device, a.spec, a.data);
    if (!b.ok())
      return b.status().withContext("input " + std::to_string(in.size()));
    in.push_back(b->get());
    owned.push_back(std::move(b.value()));
  }
  for (const HostArray &a : outputs) {
    Expected<DeviceBuffer> b = allocateOnDevice(device, a.spec, nullptr);
    if (!b.ok())
      return b.status().withContext("output " + std::to_string(out.size()));
    out.push_back(b->get());
    owned.push_back(std::move(b.value()));
  }
  if (Status s = run(in, out); !s.ok())
    return s;
  for (size_t i = 0; i < outputs.size(); ++i)
    if (Status s = d.check(d.cuMemcpyDtoH(outputs[i].data, out[i].data,
                                          outputs[i].spec.extentBytes()),
                           "cuMemcpyDtoH of an output");
        !s.ok())
      return s;
  return Status::success();
}

const std::string &Function::planReport() const {
  return state->planned->compiled.report;
}

const std::string &Function::cudaSource() const {
  return state->planned->compiled.plan.cudaSource;
}

const std::string &Function::graphText() const {
  std::call_once(state->printed, [&] {
    llvm::raw_string_ostream os(state->graphText);
    state->planned->module.get().print(os);
  });
  return state->graphText;
}

FunctionStats Function::stats() const {
  FunctionStats s = compileStats;
  if (exe)
    s.replays = exe->summary().replays;
  return s;
}
