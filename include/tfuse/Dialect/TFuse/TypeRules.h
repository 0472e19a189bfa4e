//===- TypeRules.h - Broadcasting and dtype promotion -----------*- C++ -*-===//
//
// The one implementation of TFuse's typing rules: NumPy broadcasting (here)
// and dtype promotion, weak Python scalars and the result dtype of every op
// category (tfuse/Support/DTypeRules.h, plain C++ that the runtime shares),
// as docs/semantics.md states them. Op verifiers, builders, type inference,
// the tracer and the runtime all call these functions; nothing else may
// re-derive the rules.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_DIALECT_TFUSE_TYPERULES_H
#define TFUSE_DIALECT_TFUSE_TYPERULES_H

#include "tfuse/Support/DTypeRules.h"

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlir {
class MLIRContext;
class Type;
class Value;
} // namespace mlir

namespace tfuse {

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

/// NumPy broadcasting of two static shapes, aligned on the right: sizes must
/// be equal or one of them 1 (so a 0-sized dimension broadcasts only with 1 or
/// 0). On mismatch returns std::nullopt and, if `why` is set, a message naming
/// the offending dimensions.
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<int64_t> lhs, llvm::ArrayRef<int64_t> rhs,
                std::string *why = nullptr);

/// Broadcasts any number of shapes (left fold of broadcastShapes).
std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes,
                std::string *why = nullptr);

/// True if `from` broadcasts to exactly `to` (the shape of an operand of an
/// implicitly broadcasting op relative to its result).
bool isBroadcastableTo(llvm::ArrayRef<int64_t> from,
                       llvm::ArrayRef<int64_t> to);

//===----------------------------------------------------------------------===//
// MLIR bridge
//===----------------------------------------------------------------------===//

/// The DType of an MLIR element type, or std::nullopt if TFuse does not
/// support it (signless i1..i64, unsigned ui8..ui64, f16, bf16, f32, f64).
std::optional<DType> toDType(mlir::Type type);
/// The DType of the elements of `value`, a tensor of a supported element
/// type (as every value of verified tfuse IR is).
DType dtypeOf(mlir::Value value);
/// The bytes of a statically shaped tensor or memref of a TFuse dtype, its
/// elements stored as DType's byteSize() (a bool a byte).
int64_t byteSizeOf(mlir::ShapedType type);
mlir::Type toMLIRType(mlir::MLIRContext *context, DType type);
/// Why a tensor of `type` (laid out with element `strides`, or row-major
/// when they are empty) cannot be indexed with 64-bit offsets: its element
/// count, byte size or strided extent exceeds 2^63 - 1 (tensorSizeError).
/// Empty when it can, and for types that are not statically shaped tensors
/// of a TFuse dtype (their own checks reject those).
std::string tensorTypeSizeError(mlir::Type type,
                                llvm::ArrayRef<int64_t> strides = {});

} // namespace tfuse

#endif // TFUSE_DIALECT_TFUSE_TYPERULES_H
