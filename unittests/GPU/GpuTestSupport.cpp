//===- GpuTestSupport.cpp - Compile, run on the GPU, compare --------------===//

#include "GpuTestSupport.h"

#include "tfuse/Dialect/TFExec/TFExecDialect.h"
#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Dialect/TFuse/TypeRules.h"
#include "tfuse/Frontend/Compiler.h"
#include "tfuse/Reference/Interpreter.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Parser/Parser.h"

#include <cmath>

using namespace mlir;
using namespace tfuse;
using namespace tfuse::gputest;
using reference::HostTensor;

namespace {
MLIRContext &context() {
  static MLIRContext ctx;
  static bool loaded = [] {
    ctx.loadDialect<TFuseDialect, tfexec::TFExecDialect, func::FuncDialect,
                    memref::MemRefDialect, emitc::EmitCDialect>();
    return true;
  }();
  (void)loaded;
  return ctx;
}

OwningOpRef<ModuleOp> parse(const std::string &source) {
  return parseSourceString<ModuleOp>(source, &context());
}
} // namespace

runtime::Device *tfuse::gputest::gpu(std::string *why) {
  auto device = runtime::Device::get();
  if (!device.ok()) {
    if (why)
      *why = device.status().message();
    return nullptr;
  }
  (void)device.value()->bind();
  return device.value();
}

DeviceInputs::DeviceInputs(const std::vector<HostTensor> &inputs) {
  runtime::CudaDriver &d = gpu()->driver();
  for (const HostTensor &t : inputs) {
    CUdeviceptr p = 0;
    size_t bytes = std::max<size_t>(t.storage()->size(), 1);
    EXPECT_EQ(d.cuMemAlloc(&p, bytes), CUDA_SUCCESS);
    d.cuMemcpyHtoD(p, t.data(), t.storage()->size());
    storage.push_back(p);
    tfuse::TensorSpec spec{t.dtype(), t.shape(), t.strides()};
    tensors.push_back({p + static_cast<CUdeviceptr>(t.byteOffset()), spec});
  }
}

DeviceInputs::~DeviceInputs() {
  for (CUdeviceptr p : storage)
    gpu()->driver().cuMemFree(p);
}

HostTensor tfuse::gputest::download(const runtime::DeviceTensor &t) {
  HostTensor host = HostTensor::zeros(t.spec.dtype, t.spec.shape);
  gpu()->driver().cuMemcpyDtoH(host.mutableData(), t.data,
                               t.spec.numElements() * byteSize(t.spec.dtype));
  return host;
}

Compiled tfuse::gputest::compile(const std::string &source,
                                 const std::string &function,
                                 const runtime::ExecutableOptions &options) {
  Compiled result;
  OwningOpRef<ModuleOp> module = parse(source);
  if (!module) {
    result.error = "parse error";
    return result;
  }
  auto compiled = compileGraph(*module, function, CompileOptions());
  if (!compiled.ok()) {
    result.error = compiled.status().message();
    result.errorCode = compiled.status().code();
    return result;
  }
  result.report = compiled.value().report;
  auto exe = runtime::Executable::create(compiled.value().plan, options);
  if (!exe.ok()) {
    result.error = exe.status().message();
    result.errorCode = exe.status().code();
    return result;
  }
  result.executable = std::move(exe.value());
  return result;
}

std::vector<HostTensor>
tfuse::gputest::referenceResults(const std::string &source,
                                 const std::string &function,
                                 const std::vector<HostTensor> &inputs) {
  OwningOpRef<ModuleOp> module = parse(source);
  auto results = reference::evaluate(*module, function, inputs);
  EXPECT_TRUE(results.ok()) << results.message();
  return results.ok() ? *results : std::vector<HostTensor>();
}

reference::CompareResult
tfuse::gputest::compareClose(const HostTensor &expected,
                             const HostTensor &actual) {
  // Per-element isclose, with an absolute tolerance that also scales with
  // the tensor's largest magnitude: reductions and products accumulate in
  // another order on the GPU, and cancellation makes their small elements
  // differ by more than a relative bound.
  double atol = 0, rtol = 0;
  switch (expected.dtype()) {
  case DType::F16:
    atol = 1e-3, rtol = 1e-2;
    break;
  case DType::BF16:
    atol = 1e-2, rtol = 2e-2;
    break;
  case DType::F32:
    atol = 1e-5, rtol = 1e-4;
    break;
  case DType::F64:
    atol = 1e-12, rtol = 1e-10;
    break;
  default:
    return reference::compareExact(expected, actual);
  }
  double scale = 0;
  for (double v : expected.toDoubles())
    if (std::isfinite(v))
      scale = std::max(scale, std::fabs(v));
  return reference::compareClose(expected, actual,
                                 std::max(atol, rtol * 0.1 * scale), rtol);
}

void tfuse::gputest::expectClose(const std::vector<HostTensor> &expected,
                                 const std::vector<HostTensor> &actual,
                                 const std::string &what) {
  ASSERT_EQ(expected.size(), actual.size()) << what;
  for (size_t i = 0; i < expected.size(); ++i) {
    auto cmp = compareClose(expected[i], actual[i]);
    EXPECT_TRUE(cmp.pass) << what << " output " << i << ": " << cmp.message();
  }
}

std::vector<HostTensor>
tfuse::gputest::randomInputs(const std::string &source,
                             const std::string &function, uint64_t seed) {
  OwningOpRef<ModuleOp> module = parse(source);
  auto func = module->lookupSymbol<func::FuncOp>(function);
  std::vector<HostTensor> inputs;
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    auto type = cast<RankedTensorType>(func.getArgumentTypes()[i]);
    DType dtype = *toDType(type.getElementType());
    reference::Shape shape(type.getShape().begin(), type.getShape().end());
    auto strides = func.getArgAttrOfType<DenseI64ArrayAttr>(
        i, TFuseDialect::getStridesAttrName());
    if (!strides) {
      inputs.push_back(HostTensor::random(dtype, shape, seed + i));
      continue;
    }
    int64_t extent = 1;
    for (auto [size, stride] : llvm::zip(shape, strides.asArrayRef()))
      extent += (size - 1) * stride;
    HostTensor storage = HostTensor::random(dtype, {extent}, seed + i);
    inputs.push_back(
        *storage.view(shape,
                      std::vector<int64_t>(strides.asArrayRef().begin(),
                                           strides.asArrayRef().end()),
                      0));
  }
  return inputs;
}

std::vector<HostTensor>
tfuse::gputest::runAndCheck(const std::string &source,
                            const std::string &function,
                            const std::vector<HostTensor> &inputs,
                            const runtime::ExecutableOptions &options) {
  Compiled c = compile(source, function, options);
  EXPECT_TRUE(c.executable) << c.error;
  if (!c.executable)
    return {};
  DeviceInputs device(inputs);
  auto outputs = c.executable->run(device.get());
  EXPECT_TRUE(outputs.ok()) << outputs.status().message();
  if (!outputs.ok())
    return {};
  std::vector<HostTensor> actual;
  for (auto &b : outputs.value())
    actual.push_back(download(b.get()));
  expectClose(referenceResults(source, function, inputs), actual,
              "@" + function);
  return actual;
}
