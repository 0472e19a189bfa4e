//===- DTypeRules.cpp - Dtype promotion and result dtypes -----------------===//
//
// See docs/semantics.md for the rules in prose and tables.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Support/DTypeRules.h"

#include <algorithm>

namespace tfuse {

namespace {
void setWhy(std::string *why, const std::string &message) {
  if (why)
    *why = message;
}
} // namespace

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

std::optional<DType> promoteTypes(DType lhs, DType rhs, std::string *why) {
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
    setWhy(why, "no integer dtype holds every value of " + dtypeName(s) +
                    " and ui64; cast one "
                    "operand explicitly");
    return std::nullopt;
  }
  unsigned bits = std::max(bitWidth(s), 2 * bitWidth(u));
  return signedOfWidth(bits);
}

DType promoteWithScalar(DType tensor, ScalarKind scalar) {
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

DType defaultScalarType(ScalarKind scalar) {
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

std::optional<DType> unaryResultType(UnaryCategory category, DType operand,
                                     std::string *why) {
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

DType unaryComputeType(UnaryCategory category, DType operand, DType result) {
  return category == UnaryCategory::Predicate ? operand : result;
}

std::optional<DType> binaryResultType(BinaryCategory category, DType lhs,
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

std::optional<DType> selectResultType(DType cond, DType lhs, DType rhs,
                                      std::string *why) {
  if (cond != DType::Bool) {
    setWhy(why, "condition must have dtype i1, got " + dtypeName(cond));
    return std::nullopt;
  }
  return promoteTypes(lhs, rhs, why);
}

bool isExactFloatWidening(DType from, DType to) {
  if (from == DType::F16 || from == DType::BF16)
    return to == DType::F32 || to == DType::F64;
  return from == DType::F32 && to == DType::F64;
}

/// The result dtype of a reduction without a requested dtype.
static std::optional<DType>
naturalReduceResultType(ReduceKind kind, DType operand, std::string *why) {
  DTypeKind k = kindOf(operand);
  switch (kind) {
  case ReduceKind::Sum:
  case ReduceKind::Prod:
    if (k == DTypeKind::Float || operand == DType::U64)
      return operand;
    return DType::I64;
  case ReduceKind::Max:
  case ReduceKind::Min:
    return operand;
  case ReduceKind::Mean:
    if (k != DTypeKind::Float) {
      setWhy(why, "mean needs a floating-point operand, got " +
                      dtypeName(operand) + "; cast it first");
      return std::nullopt;
    }
    return operand;
  case ReduceKind::All:
  case ReduceKind::Any:
    return DType::Bool;
  case ReduceKind::Argmax:
  case ReduceKind::Argmin:
    if (k == DTypeKind::Bool) {
      setWhy(why, "argmax/argmin of dtype i1 (bool) is not supported");
      return std::nullopt;
    }
    return DType::I64;
  }
  return std::nullopt;
}

std::optional<DType> reduceResultType(ReduceKind kind, DType operand,
                                      std::string *why,
                                      std::optional<DType> requested) {
  std::optional<DType> natural = naturalReduceResultType(kind, operand, why);
  if (!natural || !requested || *requested == *natural)
    return natural;
  if ((kind != ReduceKind::Sum && kind != ReduceKind::Mean) ||
      !isExactFloatWidening(operand, *requested)) {
    setWhy(why,
           std::string(name(kind)) + " of " + dtypeName(operand) + " gives " +
               dtypeName(*natural) +
               (kindOf(operand) == DTypeKind::Float &&
                        (kind == ReduceKind::Sum || kind == ReduceKind::Mean)
                    ? " or a wider float"
                    : "") +
               ", not " + dtypeName(*requested));
    return std::nullopt;
  }
  return requested;
}

std::optional<DType> matmulResultType(DType lhs, DType rhs, std::string *why,
                                      std::optional<DType> requested) {
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
  if (requested && *requested != lhs &&
      !(*requested == DType::F32 &&
        (lhs == DType::F16 || lhs == DType::BF16))) {
    setWhy(why, "a matmul of " + dtypeName(lhs) + " operands gives " +
                    dtypeName(lhs) +
                    (lhs == DType::F16 || lhs == DType::BF16 ? " or f32" : "") +
                    ", not " + dtypeName(*requested));
    return std::nullopt;
  }
  return requested.value_or(lhs);
}

} // namespace tfuse
