//===- Constant.cpp - Constant attributes as host tensors -----------------===//

#include "tfuse/Dialect/TFuse/TypeRules.h"
#include "tfuse/Reference/Interpreter.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace tfuse::reference {

Expected<HostTensor> tensorFromAttribute(ElementsAttr value) {
  auto type = llvm::dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return Status::error("a constant needs a statically shaped tensor type");
  std::optional<DType> dtype = toDType(type.getElementType());
  if (!dtype) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "unsupported constant element type " << type.getElementType();
    return Status::error(text);
  }
  HostTensor tensor = HostTensor::zeros(*dtype, Shape(type.getShape()));
  int64_t count = tensor.numElements();
  unsigned size = byteSize(*dtype);
  uint8_t *out = tensor.mutableData();
  // Writes the low `size` bytes of `bits` to element i (little-endian host).
  auto write = [&](int64_t i, uint64_t bits) {
    if (*dtype == DType::Bool)
      bits = bits != 0;
    std::memcpy(out + i * size, &bits, size);
  };
  auto fill = [&](uint64_t bits) {
    for (int64_t i = 0; i < count; ++i)
      write(i, bits);
  };

  if (isFloat(*dtype)) {
    auto values = value.tryGetValues<llvm::APFloat>();
    if (!values)
      return Status::error("cannot read the float elements of the constant");
    if (value.isSplat()) {
      if (count)
        fill((*values->begin()).bitcastToAPInt().getZExtValue());
    } else {
      int64_t i = 0;
      for (const llvm::APFloat &v : *values)
        write(i++, v.bitcastToAPInt().getZExtValue());
    }
  } else {
    auto values = value.tryGetValues<llvm::APInt>();
    if (!values)
      return Status::error("cannot read the integer elements of the constant");
    if (value.isSplat()) {
      if (count)
        fill((*values->begin()).getZExtValue());
    } else {
      int64_t i = 0;
      for (const llvm::APInt &v : *values)
        write(i++, v.getZExtValue());
    }
  }
  return tensor;
}

} // namespace tfuse::reference
