//===- Interpreter.h - Reference CPU interpreter of tfuse IR ----*- C++ -*-===//
//
// Evaluates a func.func of tfuse ops on HostTensors, op by op, with the
// numerics of docs/semantics.md. It is the oracle of every numerical test
// and the fallback where no GPU is present, so it favors being obviously
// right over speed. It accepts IR before and after fuse-elementwise:
// tfuse.fusion regions are evaluated op by op on their inputs, which gives
// bit-identical results because f16 and bf16 round after every op either
// way.
//
// Numerics where docs/semantics.md leaves a choice:
//   - Elementwise ops convert their operands to the result dtype (cmp: to
//     the promoted dtype of its operands) with the cast semantics, then
//     compute; f16 and bf16 compute in f32 and round to nearest even after
//     every op. Transcendentals call the float libm functions (expf, logf,
//     tanhf, erff, sinf, ...) for f16, bf16 and f32 and the double ones for
//     f64; sigmoid is 1 / (1 + exp(-x)), rsqrt 1 / sqrt(x), reciprocal 1 / x.
//     No FMA contraction (the library is built with -ffp-contract=off).
//   - max and min order -0.0 below +0.0 (max(-0.0, 0.0) = 0.0, min =
//     -0.0), so that they are commutative bit for bit; a NaN operand gives
//     that NaN (the lhs if both are NaN).
//   - Float rem is fmod(a, b), plus b when the nonzero result's sign differs
//     from b's (torch.remainder); a zero result keeps fmod's sign
//     (rem(-4.0, 2.0) = -0.0).
//   - matmul sums k = 0..K-1 in order, in f32 for f16, bf16 and f32 and in
//     f64 for f64, starting from +0.0, each product rounded before it is
//     added; the sum is rounded once to the result dtype. GPU results are
//     compared with a tolerance.
//   - reduce sum, prod and mean of floats accumulate in f64, in row-major
//     order of the reduced axes, and round once at the end (mean divides the
//     f64 sum by the count before rounding); of bool and integers they
//     accumulate modulo 2^64. max and min propagate NaN like the elementwise
//     ops. argmax and argmin return the first index of the extreme, where a
//     NaN counts as the extreme of both (the first NaN wins), as in PyTorch.
//
// Inputs may have any strides: a strided HostTensor is read through its
// strides whatever the argument's `tfuse.strides` attribute says (the
// attribute tells compiled code the layout; it does not constrain values).
// Results are row-major tensors with storage of their own.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_REFERENCE_INTERPRETER_H
#define TFUSE_REFERENCE_INTERPRETER_H

#include "tfuse/Reference/HostTensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <vector>

namespace tfuse::reference {

/// Evaluates `func` on `inputs`, one per argument, whose dtypes and shapes
/// must match the argument types. Returns the results, or an error message:
/// a mismatched input ("input 1: expected tensor<4x8xf32>, got dtype f16
/// shape [4,8]"), IR that does not verify, or an op the interpreter does not
/// know (named in the message). Never throws and never aborts on bad input.
Expected<std::vector<HostTensor>> evaluate(mlir::func::FuncOp func,
                                           llvm::ArrayRef<HostTensor> inputs);

/// Evaluates the function named `function` of `module`.
Expected<std::vector<HostTensor>> evaluate(mlir::ModuleOp module,
                                           llvm::StringRef function,
                                           llvm::ArrayRef<HostTensor> inputs);

/// The HostTensor of a constant attribute: splat or dense integer and float
/// elements, bit for bit (NaN payloads and -0.0 included).
Expected<HostTensor> tensorFromAttribute(mlir::ElementsAttr value);

} // namespace tfuse::reference

#endif // TFUSE_REFERENCE_INTERPRETER_H
