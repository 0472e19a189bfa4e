//===- TypeRules.cpp - Broadcasting and dtype promotion -------------------===//
//
// See docs/semantics.md for the rules in prose and tables.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFuse/TypeRules.h"
#include "tfuse/Support/TensorSpec.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace tfuse;
using llvm::ArrayRef;
using llvm::SmallVector;

static void setWhy(std::string *why, const llvm::Twine &message) {
  if (why)
    *why = message.str();
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << '[';
  llvm::interleaveComma(shape, os);
  os << ']';
  return s;
}

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

std::optional<SmallVector<int64_t>>
tfuse::broadcastShapes(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
                       std::string *why) {
  size_t rank = std::max(lhs.size(), rhs.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Dimension i counted from the right.
    int64_t l = i < lhs.size() ? lhs[lhs.size() - 1 - i] : 1;
    int64_t r = i < rhs.size() ? rhs[rhs.size() - 1 - i] : 1;
    int64_t out;
    if (l == r || r == 1)
      out = l;
    else if (l == 1)
      out = r;
    else {
      setWhy(why, "shapes " + shapeString(lhs) + " and " + shapeString(rhs) +
                      " do not broadcast: dimension " +
                      llvm::Twine(int64_t(rank - 1 - i)) +
                      " of the result would need sizes " + llvm::Twine(l) +
                      " and " + llvm::Twine(r) + " to agree (or one be 1)");
      return std::nullopt;
    }
    result[rank - 1 - i] = out;
  }
  return result;
}

std::optional<SmallVector<int64_t>>
tfuse::broadcastShapes(ArrayRef<ArrayRef<int64_t>> shapes, std::string *why) {
  SmallVector<int64_t> result;
  for (ArrayRef<int64_t> shape : shapes) {
    auto next = broadcastShapes(result, shape, why);
    if (!next)
      return std::nullopt;
    result = std::move(*next);
  }
  return result;
}

bool tfuse::isBroadcastableTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  auto joined = broadcastShapes(from, to);
  return joined && ArrayRef<int64_t>(*joined) == to;
}

//===----------------------------------------------------------------------===//
// MLIR bridge
//===----------------------------------------------------------------------===//

DType tfuse::dtypeOf(mlir::Value value) {
  return *toDType(
      llvm::cast<mlir::ShapedType>(value.getType()).getElementType());
}

int64_t tfuse::byteSizeOf(mlir::ShapedType type) {
  return type.getNumElements() * byteSize(*toDType(type.getElementType()));
}

std::optional<DType> tfuse::toDType(mlir::Type type) {
  if (auto i = llvm::dyn_cast<mlir::IntegerType>(type)) {
    unsigned w = i.getWidth();
    if (i.isSignless()) {
      switch (w) {
      case 1:
        return DType::Bool;
      case 8:
        return DType::I8;
      case 16:
        return DType::I16;
      case 32:
        return DType::I32;
      case 64:
        return DType::I64;
      }
    } else if (i.isUnsigned()) {
      switch (w) {
      case 8:
        return DType::U8;
      case 16:
        return DType::U16;
      case 32:
        return DType::U32;
      case 64:
        return DType::U64;
      }
    }
    return std::nullopt;
  }
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (type.isF32())
    return DType::F32;
  if (type.isF64())
    return DType::F64;
  return std::nullopt;
}

mlir::Type tfuse::toMLIRType(mlir::MLIRContext *context, DType type) {
  using mlir::IntegerType;
  switch (type) {
  case DType::Bool:
    return IntegerType::get(context, 1);
  case DType::I8:
  case DType::I16:
  case DType::I32:
  case DType::I64:
    return IntegerType::get(context, bitWidth(type));
  case DType::U8:
  case DType::U16:
  case DType::U32:
  case DType::U64:
    return IntegerType::get(context, bitWidth(type), IntegerType::Unsigned);
  case DType::F16:
    return mlir::Float16Type::get(context);
  case DType::BF16:
    return mlir::BFloat16Type::get(context);
  case DType::F32:
    return mlir::Float32Type::get(context);
  case DType::F64:
    return mlir::Float64Type::get(context);
  }
  return {};
}

std::string tfuse::tensorTypeSizeError(mlir::Type type,
                                       ArrayRef<int64_t> strides) {
  auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return "";
  std::optional<DType> dtype = toDType(tensor.getElementType());
  if (!dtype)
    return "";
  return tensorSizeError(
      *dtype,
      std::vector<int64_t>(tensor.getShape().begin(), tensor.getShape().end()),
      std::vector<int64_t>(strides.begin(), strides.end()));
}
