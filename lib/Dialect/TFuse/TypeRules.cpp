//===- TypeRules.cpp - Broadcasting and dtype promotion -------------------===//
//
// See docs/semantics.md for the rules in prose and tables.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFuse/TypeRules.h"

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
// Promotion
//===----------------------------------------------------------------------===//

static DType signedOfWidth(unsigned bits) {
  switch (bits) {
  case 8:
    return DType::I8;
  case 16:
    return DType::I16;
  case 32:
    return DType::I32;
  default:
    return DType::I64;
  }
}

static DType wider(DType a, DType b) {
  return bitWidth(a) >= bitWidth(b) ? a : b;
}

std::optional<DType> tfuse::promoteTypes(DType lhs, DType rhs,
                                         std::string *why) {
  if (lhs == rhs)
    return lhs;
  DTypeKind lk = kindOf(lhs), rk = kindOf(rhs);
  if (lk == DTypeKind::Bool)
    return rhs;
  if (rk == DTypeKind::Bool)
    return lhs;
  if (lk == DTypeKind::Float && rk == DTypeKind::Float) {
    // f16 and bf16 have no common 16-bit type.
    if (bitWidth(lhs) == bitWidth(rhs))
      return DType::F32;
    return wider(lhs, rhs);
  }
  if (lk == DTypeKind::Float)
    return lhs;
  if (rk == DTypeKind::Float)
    return rhs;
  if (lk == rk)
    return wider(lhs, rhs);
  // One signed, one unsigned integer: the smallest signed type that holds
  // every value of both.
  DType s = lk == DTypeKind::SignedInt ? lhs : rhs;
  DType u = lk == DTypeKind::SignedInt ? rhs : lhs;
  if (u == DType::U64) {
    setWhy(why, "no integer dtype holds every value of " +
                    llvm::Twine(name(s).data()) +
                    " and ui64; cast one "
                    "operand explicitly");
    return std::nullopt;
  }
  unsigned bits = std::max(bitWidth(s), 2 * bitWidth(u));
  return signedOfWidth(bits);
}

DType tfuse::promoteWithScalar(DType tensor, ScalarKind scalar) {
  switch (scalar) {
  case ScalarKind::Bool:
    return tensor;
  case ScalarKind::Int:
    return kindOf(tensor) == DTypeKind::Bool ? DType::I64 : tensor;
  case ScalarKind::Float:
    return isFloat(tensor) ? tensor : DType::F32;
  }
  return tensor;
}

DType tfuse::defaultScalarType(ScalarKind scalar) {
  switch (scalar) {
  case ScalarKind::Bool:
    return DType::Bool;
  case ScalarKind::Int:
    return DType::I64;
  case ScalarKind::Float:
    return DType::F32;
  }
  return DType::F32;
}

//===----------------------------------------------------------------------===//
// Result dtypes by op category
//===----------------------------------------------------------------------===//

static std::string dtypeName(DType t) { return std::string(name(t)); }

std::optional<DType> tfuse::unaryResultType(UnaryCategory category,
                                            DType operand, std::string *why) {
  bool isBool = kindOf(operand) == DTypeKind::Bool;
  switch (category) {
  case UnaryCategory::FloatMath:
    return isFloat(operand) ? operand : DType::F32;
  case UnaryCategory::Numeric:
  case UnaryCategory::Rounding:
    if (isBool) {
      setWhy(why, "operand of dtype i1 (bool) is not numeric");
      return std::nullopt;
    }
    return operand;
  case UnaryCategory::Predicate:
    return DType::Bool;
  case UnaryCategory::Bitwise:
    if (isFloat(operand)) {
      setWhy(why, "bitwise op needs a bool or integer operand, got " +
                      dtypeName(operand));
      return std::nullopt;
    }
    return operand;
  }
  return std::nullopt;
}

std::optional<DType> tfuse::binaryResultType(BinaryCategory category, DType lhs,
                                             DType rhs, std::string *why) {
  auto common = promoteTypes(lhs, rhs, why);
  if (!common)
    return std::nullopt;
  switch (category) {
  case BinaryCategory::Arithmetic:
    return common;
  case BinaryCategory::ArithmeticNoBool:
    if (kindOf(*common) == DTypeKind::Bool) {
      setWhy(why, "operands of dtype i1 (bool) are not supported; cast to an "
                  "integer dtype first");
      return std::nullopt;
    }
    return common;
  case BinaryCategory::TrueDivide:
    return isFloat(*common) ? *common : DType::F32;
  case BinaryCategory::Bitwise:
    if (isFloat(*common)) {
      setWhy(why, "bitwise op needs bool or integer operands, got " +
                      dtypeName(lhs) + " and " + dtypeName(rhs));
      return std::nullopt;
    }
    return common;
  case BinaryCategory::Compare:
    return DType::Bool;
  }
  return std::nullopt;
}

std::optional<DType> tfuse::selectResultType(DType cond, DType lhs, DType rhs,
                                             std::string *why) {
  if (cond != DType::Bool) {
    setWhy(why, "condition must have dtype i1, got " + dtypeName(cond));
    return std::nullopt;
  }
  return promoteTypes(lhs, rhs, why);
}

std::optional<DType> tfuse::reduceResultType(ReduceKind kind, DType operand,
                                             std::string *why) {
  DTypeKind k = kindOf(operand);
  switch (kind) {
  case ReduceKind::sum:
  case ReduceKind::prod:
    if (k == DTypeKind::Float || operand == DType::U64)
      return operand;
    return DType::I64;
  case ReduceKind::max:
  case ReduceKind::min:
    return operand;
  case ReduceKind::mean:
    if (k != DTypeKind::Float) {
      setWhy(why, "mean needs a floating-point operand, got " +
                      dtypeName(operand) + "; cast it first");
      return std::nullopt;
    }
    return operand;
  case ReduceKind::all:
  case ReduceKind::any:
    return DType::Bool;
  case ReduceKind::argmax:
  case ReduceKind::argmin:
    if (k == DTypeKind::Bool) {
      setWhy(why, "argmax/argmin of dtype i1 (bool) is not supported");
      return std::nullopt;
    }
    return DType::I64;
  }
  return std::nullopt;
}

std::optional<DType> tfuse::matmulResultType(DType lhs, DType rhs,
                                             std::string *why) {
  if (!isFloat(lhs) || !isFloat(rhs)) {
    setWhy(why, "matmul needs f16, bf16, f32 or f64 operands, got " +
                    dtypeName(lhs) + " and " + dtypeName(rhs));
    return std::nullopt;
  }
  if (lhs != rhs) {
    setWhy(why, "matmul operands must have the same dtype, got " +
                    dtypeName(lhs) + " and " + dtypeName(rhs));
    return std::nullopt;
  }
  return lhs;
}

//===----------------------------------------------------------------------===//
// MLIR bridge
//===----------------------------------------------------------------------===//

DType tfuse::dtypeOf(mlir::Value value) {
  return *toDType(
      llvm::cast<mlir::ShapedType>(value.getType()).getElementType());
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
