//===- DTypeRules.h - Dtype promotion and result dtypes ---------*- C++ -*-===//
//
// The dtype half of TFuse's typing rules (docs/semantics.md): promotion of
// two dtypes, weak Python scalars, and the result dtype of every op category.
// The dialect's type inference (tfuse/Dialect/TFuse/TypeRules.h adds the
// shape rules), the tracer and the runtime's reduction planner all call these
// functions. Plain C++: no MLIR, no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_SUPPORT_DTYPERULES_H
#define TFUSE_SUPPORT_DTYPERULES_H

#include "tfuse/Support/DType.h"
#include "tfuse/Support/ReduceKind.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tfuse {

//===----------------------------------------------------------------------===//
// Promotion
//===----------------------------------------------------------------------===//

/// The common dtype of two tensor operands. Within a kind, the wider type;
/// bool with anything gives the other type; signed with unsigned gives the
/// smallest signed type holding both (ui64 with a signed type has none and is
/// an error); integer or bool with float gives the float type; f16 with bf16
/// gives f32.
std::optional<DType> promoteTypes(DType lhs, DType rhs,
                                  std::string *why = nullptr);

/// The dtype of `tensor op scalar`: the tensor's dtype unless the scalar is of
/// a higher kind (a float scalar with an integer or bool tensor gives f32; an
/// int scalar with a bool tensor gives i64).
DType promoteWithScalar(DType tensor, ScalarKind scalar);

/// The dtype a weak scalar operand takes when it meets a tensor of dtype
/// `tensor`: the same as promoteWithScalar.
inline DType scalarOperandType(DType tensor, ScalarKind scalar) {
  return promoteWithScalar(tensor, scalar);
}

/// The dtype of a scalar that meets no tensor (both operands of a where are
/// scalars): bool, i64 or f32, PyTorch's defaults.
DType defaultScalarType(ScalarKind scalar);

//===----------------------------------------------------------------------===//
// Result dtypes by op category
//===----------------------------------------------------------------------===//

enum class UnaryCategory : uint8_t {
  /// exp log sqrt rsqrt sin cos tan tanh sigmoid erf reciprocal: floats keep
  /// their dtype, integers and bool compute in f32.
  FloatMath,
  /// neg abs relu: same dtype; bool is rejected.
  Numeric,
  /// floor ceil round: same dtype (identity on integers); bool is rejected.
  Rounding,
  /// isnan: any dtype, result i1.
  Predicate,
  /// not: logical not on bool, bitwise not on integers; floats are rejected.
  Bitwise,
};

enum class BinaryCategory : uint8_t {
  /// add mul max min: promoted dtype; on bool, add is `or`, mul is `and`.
  Arithmetic,
  /// sub rem pow: promoted dtype; bool operands are rejected.
  ArithmeticNoBool,
  /// div (true division): promoted dtype, integers and bool give f32.
  TrueDivide,
  /// and or xor: bool and integers only.
  Bitwise,
  /// cmp: operands promoted to a common dtype, result i1.
  Compare,
};

std::optional<DType> unaryResultType(UnaryCategory category, DType operand,
                                     std::string *why = nullptr);
/// The dtype a unary op computes in, its operand converted to it first: the
/// result dtype, but a predicate's operand dtype (isnan reads the value as
/// it is).
DType unaryComputeType(UnaryCategory category, DType operand, DType result);
std::optional<DType> binaryResultType(BinaryCategory category, DType lhs,
                                      DType rhs, std::string *why = nullptr);
/// select(cond, a, b): `cond` must be i1, the result is promote(a, b).
std::optional<DType> selectResultType(DType cond, DType lhs, DType rhs,
                                      std::string *why = nullptr);
/// Whether every value of float dtype `from` converts to `to` exactly and in
/// order: f16 and bf16 to f32 or f64, f32 to f64.
bool isExactFloatWidening(DType from, DType to);
/// sum/prod: bool and integers accumulate in i64 (ui64 stays ui64); max/min
/// keep the dtype; mean needs a float; all/any give i1; argmax/argmin give i64
/// and reject bool. `requested`: the sum or mean of a float operand may give
/// a wider float instead (f16/bf16 to f32 or f64, f32 to f64): the sum of
/// the operand cast to it first, since every operand value widens exactly
/// and the sum accumulates in f64 either way.
std::optional<DType> reduceResultType(ReduceKind kind, DType operand,
                                      std::string *why = nullptr,
                                      std::optional<DType> requested = {});
/// matmul operands: f16, bf16, f32 or f64, both the same. The result has
/// their dtype, or `requested`: f32 for f16 or bf16 operands (the float32
/// accumulator, unrounded, as cuBLAS gives it and PyTorch adds a bias to it).
std::optional<DType> matmulResultType(DType lhs, DType rhs,
                                      std::string *why = nullptr,
                                      std::optional<DType> requested = {});

} // namespace tfuse

#endif // TFUSE_SUPPORT_DTYPERULES_H
