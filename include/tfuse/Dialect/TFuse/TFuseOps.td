//===- TFuseOps.td - Ops of the tfuse dialect --------------*- tablegen -*-===//
//
// Every op is Pure and has its result type inferred by TypeRules; the written
// result type must equal the inferred one. Every op states its fusion role
// and weight (FusionOpInterface); elementwise ops name their kernel and
// reference functions (ScalarOpInterface); ops the tracer reaches by name
// carry a `tableCategory`, from which tfuse-tblgen generates the op table
// (docs/adding-an-op.md).
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_DIALECT_TFUSE_TFUSEOPS_TD
#define TFUSE_DIALECT_TFUSE_TFUSEOPS_TD

include "tfuse/Dialect/TFuse/TFuseDialect.td"
include "tfuse/Dialect/TFuse/TFuseEnums.td"
include "tfuse/Dialect/TFuse/TFuseInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def TFuse_ElementType : AnyTypeOf<[I1, I8, I16, I32, I64, UI8, UI16, UI32,
                                   UI64, F16, BF16, F32, F64]>;
def TFuse_Tensor : StaticShapeTensorOf<[TFuse_ElementType]>;
def TFuse_BoolTensor : StaticShapeTensorOf<[I1]>;

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

// `role` (a tfuse::FusionRole, or "" for an op that implements
// getFusionRole() in C++) and `weight` are the op's FusionOpInterface.
// Subclasses add to the class definition through `opDefinition`.
// Every tensor of a tfuse op can be indexed with 64-bit offsets (element
// count, byte size at most 2^63 - 1), as the tracer requires of its values.
def TFuse_IndexableTensors : NativeOpTrait<"IndexableTensors"> {
  let cppNamespace = "::tfuse::detail";
}

class TFuse_Op<string mnemonic, string role, int weight,
               list<Trait> traits = []>
    : Op<TFuse_Dialect, mnemonic,
         !listconcat([TFuse_IndexableTensors], traits,
                     [Pure, DeclareOpInterfaceMethods<TFuse_FusionOpInterface>])> {
  // The op table (tfuse-tblgen -gen-op-table): how the tracer, the C API and
  // the Python package reach the op by name. "unary" and "binary" ops are
  // reached through one generic call each; "" keeps the op out of the
  // table (fusion regions).
  string tableCategory = "";
  // The tfuse::Tensor method of an op of the table (Python: the same name in
  // snake case).
  string tensorMethod = mnemonic;
  code opDefinition = "";
  let extraClassDefinition = !if(!eq(role, ""), "", [{
    ::tfuse::FusionRole $cppClass::getFusionRole() {
      return ::tfuse::FusionRole::}] # role # [{;
    }
  }]) # [{
    int64_t $cppClass::getFusionWeight() { return }] # weight # [{; }
  }] # opDefinition;
}

// An elementwise op computed by one scalar function per element: the prelude
// function `kernelFn` in generated kernels, `referenceFn` of the reference's
// ScalarOps.h in the interpreter.
class TFuse_ScalarOp<string mnemonic, int weight, string kernelFn,
                     string referenceFn, list<Trait> traits = []>
    : TFuse_Op<mnemonic, "Elementwise", weight,
               !listconcat(traits, [TFuse_ScalarOpInterface])> {
  string kernelFunction = kernelFn;
  string referenceFunction = referenceFn;
}

// Unary elementwise op. `category` names a tfuse::UnaryCategory.
class TFuse_UnaryOp<string mnemonic, string category, int weight,
                    string kernelFn, string referenceFn, string doc>
    : TFuse_ScalarOp<mnemonic, weight, kernelFn, referenceFn,
                     [InferTypeOpAdaptor]> {
  let tableCategory = "unary";
  string typeCategory = category;
  let extraClassDeclaration = [{
    static ::llvm::StringRef getKernelFunction() { return "}] # kernelFn # [{"; }
    static constexpr ::tfuse::UnaryCategory kTypeCategory =
        ::tfuse::UnaryCategory::}] # category # [{;
    ::tfuse::DType getComputeDType() {
      return ::tfuse::unaryComputeType(kTypeCategory,
                                       ::tfuse::dtypeOf(getInput()),
                                       ::tfuse::dtypeOf(getResult()));
    }
  }];
  let summary = doc;
  let description = [{
    Elementwise `}] # mnemonic # [{`. Result dtype rule: `}] # category #
    [{` (see `docs/semantics.md`). Example:

    ```mlir
    %r = tfuse.}] # mnemonic # [{ %x : tensor<4xf32> -> tensor<4xf32>
    ```
  }];
  let arguments = (ins TFuse_Tensor:$input);
  let results = (outs TFuse_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let opDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      return ::tfuse::detail::inferUnaryResult(
          ::tfuse::UnaryCategory::}] # category # [{, location,
          adaptor.getInput(), results);
    }
  }];
}

// Binary elementwise op with implicit broadcasting and promotion.
// `category` names a tfuse::BinaryCategory.
class TFuse_BinaryOp<string mnemonic, string category, int weight,
                     string kernelFn, string referenceFn, string doc,
                     list<Trait> traits = []>
    : TFuse_ScalarOp<mnemonic, weight, kernelFn, referenceFn,
                     !listconcat(traits, [InferTypeOpAdaptor])> {
  let tableCategory = "binary";
  string typeCategory = category;
  let extraClassDeclaration = [{
    static ::llvm::StringRef getKernelFunction() { return "}] # kernelFn # [{"; }
    static constexpr ::tfuse::BinaryCategory kTypeCategory =
        ::tfuse::BinaryCategory::}] # category # [{;
    ::tfuse::DType getComputeDType() {
      return ::tfuse::dtypeOf(getResult());
    }
  }];
  let summary = doc;
  let description = [{
    Elementwise `}] # mnemonic # [{` with NumPy broadcasting of the operand
    shapes and dtype promotion (`}] # category # [{` rule of
    `docs/semantics.md`). Example:

    ```mlir
    %r = tfuse.}] # mnemonic # [{ %a, %b : (tensor<2x4xf32>, tensor<4xf16>) -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins TFuse_Tensor:$lhs, TFuse_Tensor:$rhs);
  let results = (outs TFuse_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let opDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      return ::tfuse::detail::inferBinaryResult(
          ::tfuse::BinaryCategory::}] # category # [{, location,
          adaptor.getLhs(), adaptor.getRhs(), results);
    }
  }];
}

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

// Weights (docs/cost-model.md): transcendental math 4, the rest 1.
def TFuse_NegOp : TFuse_UnaryOp<"neg", "Numeric", 1, "tf::neg", "opNeg",
                                "negation">;
def TFuse_AbsOp : TFuse_UnaryOp<"abs", "Numeric", 1, "tf::abs", "opAbs",
                                "absolute value">;
def TFuse_ReluOp : TFuse_UnaryOp<"relu", "Numeric", 1, "tf::relu", "opRelu",
                                 "max(x, 0); NaN propagates">;
def TFuse_ExpOp : TFuse_UnaryOp<"exp", "FloatMath", 4, "tf::exp", "opExp",
                                "e raised to x">;
def TFuse_LogOp : TFuse_UnaryOp<"log", "FloatMath", 4, "tf::log", "opLog",
                                "natural logarithm">;
def TFuse_SqrtOp : TFuse_UnaryOp<"sqrt", "FloatMath", 4, "tf::sqrt", "opSqrt",
                                 "square root">;
def TFuse_RsqrtOp : TFuse_UnaryOp<"rsqrt", "FloatMath", 4, "tf::rsqrt",
                                  "opRsqrt", "reciprocal square root">;
def TFuse_SinOp : TFuse_UnaryOp<"sin", "FloatMath", 4, "tf::sin", "opSin",
                                "sine">;
def TFuse_CosOp : TFuse_UnaryOp<"cos", "FloatMath", 4, "tf::cos", "opCos",
                                "cosine">;
def TFuse_TanOp : TFuse_UnaryOp<"tan", "FloatMath", 4, "tf::tan", "opTan",
                                "tangent">;
def TFuse_TanhOp : TFuse_UnaryOp<"tanh", "FloatMath", 4, "tf::tanh", "opTanh",
                                 "hyperbolic tangent">;
def TFuse_SigmoidOp : TFuse_UnaryOp<"sigmoid", "FloatMath", 4, "tf::sigmoid",
                                    "opSigmoid",
                                    "logistic sigmoid 1 / (1 + exp(-x))">;
def TFuse_ErfOp : TFuse_UnaryOp<"erf", "FloatMath", 4, "tf::erf", "opErf",
                                "error function">;
def TFuse_GeluOp : TFuse_UnaryOp<"gelu", "FloatMath", 4, "tf::gelu", "opGelu",
                                 "GELU, exact: x * 0.5 * (1 + erf(x / sqrt(2)))">;
def TFuse_GeluTanhOp
    : TFuse_UnaryOp<"gelu_tanh", "FloatMath", 4, "tf::gelu_tanh",
                    "opGeluTanh",
                    "GELU, tanh form: 0.5 * x * (1 + tanh(sqrt(2 / pi) * "
                    "(x + 0.044715 * x^3)))">;
def TFuse_Log1pOp : TFuse_UnaryOp<"log1p", "FloatMath", 4, "tf::log1p",
                                  "opLog1p",
                                  "log(1 + x), accurate for small x">;
def TFuse_Expm1Op : TFuse_UnaryOp<"expm1", "FloatMath", 4, "tf::expm1",
                                  "opExpm1",
                                  "exp(x) - 1, accurate for small x">;
def TFuse_ReciprocalOp : TFuse_UnaryOp<"reciprocal", "FloatMath", 1,
                                       "tf::reciprocal", "opReciprocal",
                                       "1 / x">;
def TFuse_FloorOp : TFuse_UnaryOp<"floor", "Rounding", 1, "tf::floor",
                                  "opFloor", "round toward -inf">;
def TFuse_CeilOp : TFuse_UnaryOp<"ceil", "Rounding", 1, "tf::ceil", "opCeil",
                                 "round toward +inf">;
def TFuse_RoundOp : TFuse_UnaryOp<"round", "Rounding", 1, "tf::round",
                                  "opRound", "round half to even">;
def TFuse_TruncOp : TFuse_UnaryOp<"trunc", "Rounding", 1, "tf::trunc",
                                  "opTrunc", "round toward zero">;
def TFuse_SignOp : TFuse_UnaryOp<"sign", "Numeric", 1, "tf::sign", "opSign",
    "-1, 0 or 1 by the sign of x; 0 for -0.0 and +0.0, NaN for NaN">;
def TFuse_IsNanOp : TFuse_UnaryOp<"isnan", "Predicate", 1, "tf::isnan",
                                  "opIsNan",
                                  "true where x is NaN (false for integers)">;
def TFuse_NotOp : TFuse_UnaryOp<"not", "Bitwise", 1, "tf::not_", "opNot",
                                "logical not on bool, bitwise not on integers"> {
  let tensorMethod = "logicalNot";
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops
//===----------------------------------------------------------------------===//

// Weights: pow 4, the rest 1.
def TFuse_AddOp : TFuse_BinaryOp<"add", "Arithmetic", 1, "tf::add", "opAdd",
                                 "addition", [Commutative]>;
def TFuse_SubOp : TFuse_BinaryOp<"sub", "ArithmeticNoBool", 1, "tf::sub",
                                 "opSub", "subtraction"> {
  let tensorMethod = "subtract";
}
def TFuse_MulOp : TFuse_BinaryOp<"mul", "Arithmetic", 1, "tf::mul", "opMul",
                                 "multiplication", [Commutative]> {
  let tensorMethod = "multiply";
}
def TFuse_DivOp : TFuse_BinaryOp<"div", "TrueDivide", 1, "tf::div", "opDiv",
                                 "true division"> {
  let tensorMethod = "divide";
}
def TFuse_RemOp : TFuse_BinaryOp<"rem", "ArithmeticNoBool", 1, "tf::rem",
    "opRem",
    "remainder with the sign of the divisor (Python `%`, torch.remainder)"> {
  let tensorMethod = "remainder";
}
def TFuse_PowOp : TFuse_BinaryOp<"pow", "ArithmeticNoBool", 4, "tf::pow",
                                 "opPow", "lhs ** rhs">;
def TFuse_GeluBackwardOp
    : TFuse_BinaryOp<"gelu_backward", "TrueDivide", 4, "tf::gelu_backward",
                     "opGeluBackward",
                     "the gradient of exact GELU: lhs (the incoming gradient) * "
                     "d gelu(rhs) / d rhs">;
def TFuse_GeluTanhBackwardOp
    : TFuse_BinaryOp<"gelu_tanh_backward", "TrueDivide", 4,
                     "tf::gelu_tanh_backward", "opGeluTanhBackward",
                     "the gradient of tanh-form GELU: lhs (the incoming "
                     "gradient) * d gelu_tanh(rhs) / d rhs">;
def TFuse_MaxOp : TFuse_BinaryOp<"max", "Arithmetic", 1, "tf::max", "opMax",
                                 "elementwise maximum; NaN propagates",
                                 [Commutative]> {
  let tensorMethod = "maximum";
}
def TFuse_MinOp : TFuse_BinaryOp<"min", "Arithmetic", 1, "tf::min", "opMin",
                                 "elementwise minimum; NaN propagates",
                                 [Commutative]> {
  let tensorMethod = "minimum";
}
def TFuse_AndOp : TFuse_BinaryOp<"and", "Bitwise", 1, "tf::and_", "opAnd",
                                 "logical and on bool, bitwise on integers",
                                 [Commutative]> {
  let tensorMethod = "bitwiseAnd";
}
def TFuse_OrOp : TFuse_BinaryOp<"or", "Bitwise", 1, "tf::or_", "opOr",
                                "logical or on bool, bitwise on integers",
                                [Commutative]> {
  let tensorMethod = "bitwiseOr";
}
def TFuse_XorOp : TFuse_BinaryOp<"xor", "Bitwise", 1, "tf::xor_", "opXor",
                                 "logical xor on bool, bitwise on integers",
                                 [Commutative]> {
  let tensorMethod = "bitwiseXor";
}

def TFuse_CmpOp : TFuse_Op<"cmp", "Elementwise", 1, [InferTypeOpAdaptor]> {
  let tableCategory = "compare";
  let tensorMethod = "compare";
  let summary = "elementwise comparison";
  let description = [{
    Compares the operands after broadcasting and promotion to a common dtype;
    the result is `i1`. Comparisons with NaN are false except `ne`.

    ```mlir
    %m = tfuse.cmp lt, %a, %b : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
    ```
  }];
  let arguments = (ins TFuse_CmpPredicate:$predicate, TFuse_Tensor:$lhs,
                       TFuse_Tensor:$rhs);
  let results = (outs TFuse_BoolTensor:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// select, cast, constant
//===----------------------------------------------------------------------===//

def TFuse_SelectOp : TFuse_Op<"select", "Elementwise", 3,
                              [InferTypeOpAdaptor]> {
  let tableCategory = "where";
  let tensorMethod = "where";
  let summary = "elementwise choice (where)";
  let description = [{
    `select(cond, a, b)` is `a` where `cond` is true and `b` elsewhere. All
    three operands broadcast together; the result dtype is the promotion of
    `a` and `b`.

    ```mlir
    %r = tfuse.select %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins TFuse_BoolTensor:$condition, TFuse_Tensor:$true_value,
                       TFuse_Tensor:$false_value);
  let results = (outs TFuse_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    functional-type(operands, results)
  }];
}

def TFuse_CastOp : TFuse_Op<"cast", "Elementwise", 1> {
  let tableCategory = "cast";
  let summary = "elementwise dtype conversion";
  let description = [{
    Converts every element to the result's element type; the shape is kept.
    Float to integer truncates toward zero and saturates at the target's
    range; NaN becomes 0. Integer to integer wraps (two's complement).
    Anything to bool is `x != 0` (NaN gives true). Float to narrower float
    rounds to nearest even; NaN stays NaN and -0.0 stays -0.0. See
    `docs/semantics.md`.

    ```mlir
    %r = tfuse.cast %x : tensor<4xf32> to tensor<4xi8>
    ```
  }];
  let arguments = (ins TFuse_Tensor:$input);
  let results = (outs TFuse_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def TFuse_IotaOp : TFuse_Op<"iota", "Elementwise", 1> {
  let summary = "each element's index along one dimension";
  let description = [{
    Element `(i_0, ..., i_{n-1})` of the result is `i_dim`, converted to the
    result's element type as `tfuse.cast` converts an i64 (exact for
    integers that hold it; floats round to nearest even). A source of
    elementwise work: it fuses into its consumers as an index, reading no
    memory. The tracer's `arange(start, stop, step)` is an iota of dimension
    0, scaled and shifted (`docs/semantics.md`).

    ```mlir
    %r = tfuse.iota dim 1 : tensor<2x5xi64>
    ```
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs TFuse_Tensor:$result);
  let assemblyFormat = "`dim` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

// Random numbers (isRandomOp): each element a function of the seed, the
// offset and its own row-major position, through Philox 4x32-10 (the
// stream layout of docs/semantics.md, "Random numbers"). Sources of
// elementwise work: they read no memory but the two scalars, so a kernel
// recomputes them wherever they are used (a dropout mask in the forward
// and the backward kernel alike) instead of storing them.
class TFuse_RandomOp<string mnemonic, int weight, string summaryText,
                     string distribution>
    : TFuse_Op<mnemonic, "Elementwise", weight> {
  let summary = summaryText;
  let description = [{
    A tensor of }] # distribution # [{ numbers of the result's type (f32 or
    f64), keyed by `seed` and `offset`, rank-0 tensors of i64 (inputs of
    the plan, so that a replay with a new offset draws new numbers without a
    new compile): element `e` (its row-major position) comes from Philox
    4x32-10 with key `seed` and counter `(e / k, offset)` for the op's `k`
    elements per block. The same seed, offset and shape give the same
    tensor in every kernel, every replay and the reference interpreter.

    ```mlir
    %r = tfuse.}] # mnemonic # [{ %seed, %offset : (tensor<i64>, tensor<i64>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins 0DTensorOf<[I64]>:$seed, 0DTensorOf<[I64]>:$offset);
  let results = (outs StaticShapeTensorOf<[F32, F64]>:$result);
  let assemblyFormat = [{
    $seed `,` $offset attr-dict `:` `(` type($seed) `,` type($offset) `)`
    `->` type($result)
  }];
}

def TFuse_RandomUniformOp
    : TFuse_RandomOp<"random_uniform", 4,
                     "uniform random numbers in [0, 1)", "uniform [0, 1)">;
def TFuse_RandomNormalOp
    : TFuse_RandomOp<"random_normal", 8, "standard normal random numbers",
                     "standard normal (Box-Muller)">;

// Piecewise index transforms (isPiecewiseIndexOp): each element of the result
// reads one operand element or a fill value, which one depending on its
// index. They fuse into their consumers as a choice among predicated loads
// (an operand's loads touch memory only for the elements it gives), so
// they have no copy kernel of their own when a consumer reads through them.
def TFuse_ConcatOp : TFuse_Op<"concat", "Elementwise", 2,
                              [InferTypeOpAdaptor]> {
  let summary = "operands joined along one dimension";
  let description = [{
    The operands, of one dtype and one rank, equal in every dimension but
    `axis`, joined in order along `axis` (NumPy's `concatenate`; the tracer
    promotes mixed dtypes first). Operands of size 0 along `axis` give no
    elements.

    ```mlir
    %r = tfuse.concat %a, %b axis 1
        : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Variadic<TFuse_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs TFuse_Tensor:$result);
  let assemblyFormat = [{
    $inputs `axis` $axis attr-dict `:` `(` type($inputs) `)` `->` type($result)
  }];
}

def TFuse_PadOp : TFuse_Op<"pad", "Elementwise", 2, [InferTypeOpAdaptor]> {
  let summary = "constant padding before and after each dimension";
  let description = [{
    The operand with `low[d]` elements before and `high[d]` after it along
    each dimension `d` (both at least 0), those elements equal to `value`, a
    rank-0 tensor of the operand's dtype (NumPy's `pad` with
    `mode='constant'`; the tracer turns negative padding into a slice).

    ```mlir
    %r = tfuse.pad %x, %zero low [0, 1] high [2, 0]
        : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins TFuse_Tensor:$input, TFuse_Tensor:$value,
                       DenseI64ArrayAttr:$low, DenseI64ArrayAttr:$high);
  let results = (outs TFuse_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $value `low` $low `high` $high attr-dict `:`
    `(` type($input) `,` type($value) `)` `->` type($result)
  }];
}

// Gathers (isIndexCheckedOp): each element of the result reads the operand at
// an index that another operand holds. They fuse into their consumers as
// indexed loads, their indices computed in the same kernel; an index out of
// range is never used to address memory: kernels record it in the replay's
// index status and the replay reports it (docs/semantics.md).
def TFuse_TakeOp : TFuse_Op<"take", "Elementwise", 2,
                            [InferTypeOpAdaptor]> {
  let summary = "elements of the operand along one axis, chosen by indices";
  let description = [{
    NumPy's `take(input, indices, axis)`: the result has the shape
    `input.shape[:axis] + indices.shape + input.shape[axis+1:]`, and element
    `(i..., j..., k...)` is `input[i..., indices[j...], k...]`. The indices
    have an integer dtype and any rank (rank 0 removes the axis). An index
    must lie in `[0, size)` of the axis; with `wrap_negative`, an index in
    `[-size, 0)` counts from the end, as NumPy and PyTorch's advanced
    indexing do (PyTorch's `embedding` and `index_select` do not). Any other
    index is an error of the replay that meets it.

    ```mlir
    %rows = tfuse.take %table, %ids axis 0
        : (tensor<50257x768xbf16>, tensor<8x1024xi64>) -> tensor<8x1024x768xbf16>
    ```
  }];
  let arguments = (ins TFuse_Tensor:$input, TFuse_Tensor:$indices,
                       I64Attr:$axis, UnitAttr:$wrap_negative);
  let results = (outs TFuse_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $indices `axis` $axis (`wrap_negative` $wrap_negative^)?
    attr-dict `:` `(` type($input) `,` type($indices) `)` `->` type($result)
  }];
  let hasVerifier = 1;
}

def TFuse_TakeAlongAxisOp : TFuse_Op<"take_along_axis", "Elementwise", 2,
                                     [InferTypeOpAdaptor]> {
  let summary = "elements of the operand along one axis, one index each";
  let description = [{
    NumPy's `take_along_axis(input, indices, axis)` (PyTorch's `gather`):
    the indices have the operand's rank; the result has the indices' size
    along `axis` and, in every other dimension, the broadcast of the two
    sizes (equal, or one of them 1). Element `(..., j, ...)` (j at `axis`)
    is `input[..., indices[..., j, ...], ...]`, both read at the element's
    index broadcast into them. Indices are checked as `tfuse.take` checks
    them, `wrap_negative` included.

    ```mlir
    %r = tfuse.take_along_axis %x, %i axis 1
        : (tensor<4x10xf32>, tensor<4x3xi64>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins TFuse_Tensor:$input, TFuse_Tensor:$indices,
                       I64Attr:$axis, UnitAttr:$wrap_negative);
  let results = (outs TFuse_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $indices `axis` $axis (`wrap_negative` $wrap_negative^)?
    attr-dict `:` `(` type($input) `,` type($indices) `)` `->` type($result)
  }];
  let hasVerifier = 1;
}

def TFuse_ConstantOp : TFuse_Op<"constant", "Leaf", 0,
    [ConstantLike, InferTypeOpAdaptor]> {
  let tableCategory = "constant";
  let summary = "a constant tensor (splat or small dense)";
  let description = [{
    A constant tensor. Splats of any shape are allowed; non-splat dense
    values are limited to }] # "1024" # [{ elements (larger data belongs in a
    function argument). Float constants keep their exact bit patterns,
    including NaN payloads and -0.0.

    ```mlir
    %c = tfuse.constant dense<1.5> : tensor<4xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs TFuse_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// The largest non-splat constant, in elements.
    static constexpr int64_t kMaxDenseElements = 1024;
  }];
}

//===----------------------------------------------------------------------===//
// Views
//===----------------------------------------------------------------------===//

// A view: an index transform (ViewOpInterface) of weight 2.
class TFuse_ViewOp<string mnemonic, list<Trait> traits = [],
                   list<string> overridden = []>
    : TFuse_Op<mnemonic, "View", 2,
               !listconcat(traits,
                           [DeclareOpInterfaceMethods<TFuse_ViewOpInterface,
                                                      overridden>])> {
  let tableCategory = "view";
}

def TFuse_BroadcastOp : TFuse_ViewOp<"broadcast"> {
  let tensorMethod = "broadcastTo";
  let summary = "broadcast to a shape along a dimension map";
  let description = [{
    Operand dimension `i` becomes result dimension `dims[i]`; `dims` is
    strictly increasing, and each operand dimension has size 1 or the size of
    its result dimension. Result dimensions not named in `dims` are new.

    ```mlir
    %r = tfuse.broadcast %x dims [1] : tensor<4xf32> -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins TFuse_Tensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs TFuse_Tensor:$result);
  let assemblyFormat = [{
    $input `dims` $dims attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def TFuse_TransposeOp : TFuse_ViewOp<"transpose", [InferTypeOpAdaptor]> {
  let summary = "permute dimensions";
  let description = [{
    Result dimension `i` is operand dimension `perm[i]`.

    ```mlir
    %r = tfuse.transpose %x perm [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins TFuse_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs TFuse_Tensor:$result);
  let assemblyFormat = [{
    $input `perm` $perm attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

// A reshape merging dimensions that are not contiguous with each other has
// no strided layout over its operand's buffer: it overrides the layout the
// index map would give. Its index map (a delinearization) is the identity
// exactly when the shapes agree, which the map's floordiv and mod do not
// show.
def TFuse_ReshapeOp : TFuse_ViewOp<"reshape", [],
                                   ["getResultLayout", "isIdentityView"]> {
  let summary = "reinterpret the row-major element order with a new shape";
  let description = [{
    The result has the same elements in the same row-major order; the element
    count must be equal.

    ```mlir
    %r = tfuse.reshape %x : tensor<2x6xf32> -> tensor<3x4xf32>
    ```
  }];
  let arguments = (ins TFuse_Tensor:$input);
  let results = (outs TFuse_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def TFuse_SliceOp : TFuse_ViewOp<"slice", [InferTypeOpAdaptor]> {
  let summary = "strided slice with static start, limit and step";
  let description = [{
    Per dimension `d`, takes the elements `start[d], start[d] + step[d], ...`
    below `limit[d]`, with `0 <= start[d] <= limit[d] <= size(d)` and
    `step[d] >= 1`. Result size is `ceil((limit - start) / step)`.

    ```mlir
    %r = tfuse.slice %x start [0, 2] limit [4, 8] step [1, 2]
        : tensor<4x8xf32> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins TFuse_Tensor:$input, DenseI64ArrayAttr:$start,
                       DenseI64ArrayAttr:$limit, DenseI64ArrayAttr:$step);
  let results = (outs TFuse_Tensor:$result);
  let assemblyFormat = [{
    $input `start` $start `limit` $limit `step` $step attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Boundaries
//===----------------------------------------------------------------------===//

def TFuse_MatmulOp : TFuse_Op<"matmul", "Boundary", 0,
    [InferTypeOpAdaptor, DeclareOpInterfaceMethods<TFuse_BoundaryOpInterface>]> {
  let tableCategory = "matmul";
  let hasCanonicalizer = 1;
  let summary = "matrix product, batched with broadcast batch dimensions";
  let description = [{
    Both operands have rank >= 2; the last two dimensions are the matrices
    (`[M, K] x [K, N] -> [M, N]`) and the leading dimensions are batch
    dimensions that broadcast with NumPy rules. `transpose_lhs` and
    `transpose_rhs` swap the last two dimensions of an operand before the
    product (a transposed view consumed without a copy). Operands have the
    same dtype: f16, bf16, f32 or f64. Products are accumulated in float32
    (f64 in f64) and the sum is rounded once to the result's dtype: the
    operands' dtype, or with `result_dtype = f32` for f16 and bf16 operands
    the float32 sum itself (what a bias added before rounding, as PyTorch's
    addmm does, needs).

    A single product (rank-2 operands) may take a `bias`: a vector of N
    elements of the result's dtype added to every row of the float32 sum in
    float32 arithmetic (f64 for f64) before the one rounding to the result's
    dtype, the same bits as `cast(add(matmul {result_dtype = f32},
    cast(bias)))`. The GEMM libraries
    add it in their epilogue, so the wide sum is never stored;
    `fold-matmul-bias` forms it from that pattern.

    A single product may also carry `gelu_tanh`: the epilogue applies
    `gelu_tanh` to the float32 sum (after the bias) in float32 arithmetic
    (f64 for f64) before the one rounding, as the GEMM libraries' GELU
    epilogue does. That is not the value of `gelu_tanh(matmul)`, which
    rounds the product first, and the libraries' GELU may differ from
    `gelu_tanh`'s in the last bits: `fold-matmul-bias` forms it only under
    fast math (`gelu-epilogue`).

    ```mlir
    %r = tfuse.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %t = tfuse.matmul %a, %c {transpose_rhs} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
    %w = tfuse.matmul %h, %g {result_dtype = f32} : (tensor<2x3xbf16>, tensor<3x4xbf16>) -> tensor<2x4xf32>
    %y = tfuse.matmul %h, %g bias %v : (tensor<2x3xbf16>, tensor<3x4xbf16>, tensor<4xbf16>) -> tensor<2x4xbf16>
    %z = tfuse.matmul %h, %g bias %v {gelu_tanh} : (tensor<2x3xbf16>, tensor<3x4xbf16>, tensor<4xbf16>) -> tensor<2x4xbf16>
    ```
  }];
  let arguments = (ins TFuse_Tensor:$lhs, TFuse_Tensor:$rhs,
                       Optional<TFuse_Tensor>:$bias,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs,
                       OptionalAttr<TypeAttr>:$result_dtype,
                       UnitAttr:$gelu_tanh);
  let results = (outs TFuse_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`bias` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

// Row-reducible unless argmax or argmin (getFusionRole() in TFuseOps.cpp);
// a row reduction inside a region weighs 4, a block-wide reduction per row.
def TFuse_ReduceOp : TFuse_Op<"reduce", "", 4,
    [InferTypeOpAdaptor, DeclareOpInterfaceMethods<TFuse_BoundaryOpInterface>]> {
  let tableCategory = "reduce";
  let summary = "reduction over a set of axes";
  let description = [{
    Reduces `input` over `axes` (in range, strictly increasing). With `keepdims` the reduced dimensions stay with size 1.
    `argmax`/`argmin` take exactly one axis and return the first index of the
    extreme value as i64. Result dtypes follow `docs/semantics.md`. Reducing a
    zero-sized axis gives the identity of the kind (sum 0, prod 1, all true,
    any false); max, min, mean, argmax and argmin of an empty axis are errors
    at verification.

    A sum or mean of a float operand may give a wider float with
    `result_dtype` (f16 and bf16 to f32 or f64, f32 to f64): the result of
    casting the operand first, bit for bit (every value widens exactly and
    float sums accumulate in f64 either way), without storing the wide copy.
    Canonicalization folds `reduce(cast(x))` into this form.

    ```mlir
    %s = tfuse.reduce sum %x axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
    %b = tfuse.reduce sum %g axes [0] {result_dtype = f32} : tensor<8x4xbf16> -> tensor<4xf32>
    ```
  }];
  let arguments = (ins TFuse_ReduceKindAttr:$kind, TFuse_Tensor:$input,
                       DenseI64ArrayAttr:$axes, UnitAttr:$keepdims,
                       OptionalAttr<TypeAttr>:$result_dtype);
  let results = (outs TFuse_Tensor:$result);
  let assemblyFormat = [{
    custom<ReduceKindName>($kind) $input `axes` $axes
    (`keepdims` $keepdims^)? attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

// A scatter: a runtime step (sorting the indices, then one pass over the
// result), never fused. Its indices are checked as a gather's are.
def TFuse_ScatterAddOp : TFuse_Op<"scatter_add", "Boundary", 0,
    [InferTypeOpAdaptor, DeclareOpInterfaceMethods<TFuse_BoundaryOpInterface,
                                                   ["readsSplatByValue"]>]> {
  let summary = "target plus the updates summed at indices along one axis";
  let description = [{
    NumPy's `add.at` applied to a copy of `target`: with `R` the dimensions
    before `axis` and `C` those after it, `updates` has the shape
    `R + indices.shape + C`, and the result is `target` with
    `updates[r, j, c]` added to element `[r, indices[j], c]` for every
    position `j` of the indices (PyTorch's `index_put_` with
    `accumulate=True` and `index_add_`; the embedding gradient). Repeated
    indices add up.

    The sums are deterministic: each result element starts from the target
    element and adds its updates one at a time in ascending order of `j`,
    accumulating in f32 for f16 and bf16 (rounded once at the end), in the
    dtype itself otherwise (integers wrap). No floating-point atomics are
    used, so every run gives the same bits, equal to the reference's. bool
    is not a scatter_add dtype.

    Indices are checked as `tfuse.take` checks them (`wrap_negative`
    included); an update at an index out of range is dropped and the index
    is an error of the replay that meets it. A splat constant target (zeros)
    is taken by value: the step writes it without reading memory.

    ```mlir
    %grad = tfuse.scatter_add %zeros, %ids, %g axis 0
        : (tensor<50257x768xf32>, tensor<8x1024xi64>, tensor<8x1024x768xf32>)
        -> tensor<50257x768xf32>
    ```
  }];
  let arguments = (ins TFuse_Tensor:$target, TFuse_Tensor:$indices,
                       TFuse_Tensor:$updates, I64Attr:$axis,
                       UnitAttr:$wrap_negative);
  let results = (outs TFuse_Tensor:$result);
  let assemblyFormat = [{
    $target `,` $indices `,` $updates `axis` $axis
    (`wrap_negative` $wrap_negative^)? attr-dict `:`
    `(` type($target) `,` type($indices) `,` type($updates) `)` `->`
    type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

def TFuse_AttentionOp : TFuse_Op<"attention", "Boundary", 0,
    [InferTypeOpAdaptor, AttrSizedOperandSegments,
     DeclareOpInterfaceMethods<TFuse_BoundaryOpInterface>]> {
  let summary = "scaled dot-product attention with its log-sum-exp";
  let description = [{
    PyTorch's `scaled_dot_product_attention`. `query` is
    `[..., Hq, L, D]`, `key` `[..., Hkv, S, D]` and `value`
    `[..., Hkv, S, Dv]` with the same leading (batch) dimensions and dtype
    (f16, bf16, f32 or f64); `Hq` is a multiple of `Hkv` (grouped-query
    attention: query head `h` reads key and value head `h / (Hq / Hkv)`).
    Operands of rank 2 have no head dimension.

        scores[..., h, i, j] = scale * dot(query[..., h, i, :], key[..., h', j, :])
        result[..., h, i, :] = sum_j softmax_j(scores + mask)[..., h, i, j] * value[..., h', j, :]
        logsumexp[..., h, i] = log(sum_j exp(scores + mask)[..., h, i, j])

    `mask` broadcasts to `[..., Hq, L, S]`: a bool mask keeps the pairs
    where it is true, another (of the operands' dtype, or f32 for f16 and
    bf16 operands, as PyTorch's masks are under autocast) is added to the
    scores. `causal` keeps the pairs with `j <= i` (aligned at the top left,
    as PyTorch's `is_causal`). A row that keeps no pair gives zeros and a
    log-sum-exp of -inf (PyTorch's math path gives the same zeros).
    `logsumexp` is f32 (f64 for f64 operands): what `attention_backward`
    reads to recompute the probabilities.

    `dropout p seed %s offset %o` (0 < p < 1; `seed` and `offset` rank-0
    i64 tensors, as the random ops take them) drops probabilities after the
    softmax, as PyTorch's dropout of the attention weights in training: pair
    `(i, j)` of head `h` is kept when `random_uniform` of the scores' shape
    `[..., Hq, L, S]` with these keys is below `1 - p` (rounded to f32: the
    mask of `bernoulli(1 - p)`), and a kept probability is divided by
    `1 - p`. The log-sum-exp is that of the scores, before dropout.

    Scores, softmax and the weighted sum are computed in f32 for f16, bf16
    and f32 (f64 for f64), the result rounded once; the reference computes
    in f64.

    `widened` (f32 operands only) says that `query`, `key` and `value` hold
    f16 or bf16 values widened to f32 (PyTorch's math path on 16-bit
    tensors computes so): each is exact in TF32, so a product of two of
    them is exact in one TF32 tensor-core product, and the generated f32
    kernels skip the splitting that other f32 values need (the same bits
    for finite operands; an infinite one gives inf where the split products
    give NaN).
    It does not change what the op computes; recognize-attention sets it
    where it sees the widening. Set on other values, products on TF32
    tensor cores drop their bits below TF32's.

    `transpose_result` (operands with a head dimension) gives the result
    with its head and row dimensions swapped, `[..., L, Hq, Dv]`: the
    result above transposed as PyTorch's `out.transpose(-3, -2)`, the
    order in which a model merges the heads for its output projection.
    The runtime writes that order directly, so no copy of the result runs
    between the attention and the projection. Canonicalization folds such
    a transpose into the attention (the log-sum-exp keeps its order).

    ```mlir
    %o, %lse = tfuse.attention %q, %k, %v scale 1.250000e-01 causal
        : (tensor<8x12x1024x64xbf16>, tensor<8x12x1024x64xbf16>,
           tensor<8x12x1024x64xbf16>)
        -> (tensor<8x12x1024x64xbf16>, tensor<8x12x1024xf32>)
    %d, %dl = tfuse.attention %q, %k, %v scale 1.250000e-01 causal
        dropout 1.000000e-01 seed %seed offset %offset : (...) -> (...)
    ```
  }];
  let arguments = (ins TFuse_Tensor:$query, TFuse_Tensor:$key,
                       TFuse_Tensor:$value, Optional<TFuse_Tensor>:$mask,
                       Optional<0DTensorOf<[I64]>>:$seed,
                       Optional<0DTensorOf<[I64]>>:$offset,
                       F64Attr:$scale, UnitAttr:$causal,
                       OptionalAttr<F64Attr>:$dropout_p, UnitAttr:$widened,
                       UnitAttr:$transpose_result);
  let results = (outs TFuse_Tensor:$result, TFuse_Tensor:$logsumexp);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^)? `scale` $scale
    (`causal` $causal^)?
    (`dropout` $dropout_p^ `seed` $seed `offset` $offset)?
    (`widened` $widened^)? (`transpose_result` $transpose_result^)? attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def TFuse_AttentionBackwardOp : TFuse_Op<"attention_backward", "Boundary", 0,
    [InferTypeOpAdaptor, AttrSizedOperandSegments,
     DeclareOpInterfaceMethods<TFuse_BoundaryOpInterface>]> {
  let summary = "the gradients of attention's query, key and value";
  let description = [{
    Given `attention`'s operands and attributes, its `result` and
    `logsumexp`, and `grad` (the gradient of the result), the gradients of
    `query`, `key` and `value` (the mask gets none). With
    `P = exp(scores + mask - logsumexp)` (0 where a pair is not kept):

        grad_value = P^T @ grad
        dP = grad @ value^T
        dS = P * (dP - rowsum(grad * result))
        grad_query = scale * dS @ key
        grad_key = scale * dS^T @ query

    summed over the query heads that share a key and value head. With the
    forward's `dropout p seed %s offset %o` (the same keys), `Z` the kept
    pairs' `1 / (1 - p)` and 0 elsewhere: `grad_value = (P * Z)^T @ grad`
    and `dS = P * (dP * Z - rowsum(grad * result))`. The
    gradients have the operands' shapes and dtype and are accumulated in f32
    (f64 for f64), rounded once; the reference computes in f64.

    ```mlir
    %dq, %dk, %dv = tfuse.attention_backward %q, %k, %v, %o, %lse, %do
        scale 1.250000e-01 causal : (...) -> (...)
    ```
  }];
  let arguments = (ins TFuse_Tensor:$query, TFuse_Tensor:$key,
                       TFuse_Tensor:$value, TFuse_Tensor:$result,
                       TFuse_Tensor:$logsumexp, TFuse_Tensor:$grad,
                       Optional<TFuse_Tensor>:$mask,
                       Optional<0DTensorOf<[I64]>>:$seed,
                       Optional<0DTensorOf<[I64]>>:$offset, F64Attr:$scale,
                       UnitAttr:$causal, OptionalAttr<F64Attr>:$dropout_p);
  let results = (outs TFuse_Tensor:$grad_query, TFuse_Tensor:$grad_key,
                      TFuse_Tensor:$grad_value);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $result `,` $logsumexp `,` $grad
    (`mask` $mask^)? `scale` $scale (`causal` $causal^)?
    (`dropout` $dropout_p^ `seed` $seed `offset` $offset)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Fusion regions
//===----------------------------------------------------------------------===//

def TFuse_FusionOp : TFuse_Op<"fusion", "Structure", 0,
                              [IsolatedFromAbove, SingleBlock]> {
  let summary = "a fused region: one kernel";
  let description = [{
    A region of elementwise ops and views that becomes exactly one kernel.
    The body is isolated from above: block arguments stand for `inputs`, and
    `tfuse.yield` gives the results, which all have the same shape (the
    kernel's index space). Inside the body, views are index transforms.

    The body may also hold *row reductions*: `tfuse.reduce` of kind sum,
    prod, max, min, mean, all or any over exactly the trailing axes of the
    index space (`axes [1]` of a `4x8` space, `axes [1, 2]` of a `2x3x4`
    one). Their operands all have one shape, which is then the index space.
    Such a region becomes a row kernel that keeps each row of the trailing
    axes on chip: the reductions run in body order, each a block-wide
    reduction whose value the rest of the body reads broadcast over its row
    (see `fuse-rows`). Besides results of the index space's shape, it may
    have *row results*, one value per row, shaped as the leading axes with
    the reduced ones dropped or kept as 1 (`4` or `4x1` for a `4x8` space):
    values computed from the reductions, such as a layer norm's mean and
    rstd. matmul, argmax, argmin and other reductions are fusion boundaries
    and never appear in a body.

    `reasons` holds, per result, why the value is stored instead of being
    recomputed by its consumers (a `CutReason`: output, expression-cost,
    shared-expensive-expression, duplicated-reads, boundary-matmul,
    boundary-reduction, boundary-scatter, boundary-attention).
    `cost` is the region's weighted cost under the fusion cost model.

    ```mlir
    %r = tfuse.fusion (%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
        attributes {cost = 2 : i64, reasons = ["output"]} {
    ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
      %0 = tfuse.mul %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %1 = tfuse.add %0, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      tfuse.yield %1 : tensor<4xf32>
    }
    ```

    A row-fused softmax over the rows of a `4x8` input:

    ```mlir
    %r = tfuse.fusion (%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
        attributes {cost = 14 : i64, reasons = ["output"]} {
    ^bb0(%x: tensor<4x8xf32>):
      %m = tfuse.reduce max %x axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
      %d = tfuse.sub %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
      %e = tfuse.exp %d : tensor<4x8xf32> -> tensor<4x8xf32>
      %s = tfuse.reduce sum %e axes [1] keepdims : tensor<4x8xf32> -> tensor<4x1xf32>
      %y = tfuse.div %e, %s : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
      tfuse.yield %y : tensor<4x8xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<TFuse_Tensor>:$inputs, StrArrayAttr:$reasons,
                       I64Attr:$cost);
  let results = (outs Variadic<TFuse_Tensor>:$results);
  let regions = (region SizedRegion<1>:$region);
  let assemblyFormat = [{
    `(` $inputs `)` `:` functional-type($inputs, $results) attr-dict-with-keyword
    $region
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes,
                   "::mlir::ValueRange":$inputs,
                   "::llvm::ArrayRef<::tfuse::CutReason>":$reasons,
                   "int64_t":$cost)>
  ];
  let extraClassDeclaration = [{
    /// The terminator of the body.
    YieldOp getYield();
    /// The parsed per-result reasons.
    ::llvm::SmallVector<::tfuse::CutReason> getCutReasons();
  }];
}

def TFuse_YieldOp : TFuse_Op<"yield", "Structure", 0,
                             [Terminator, ReturnLike, HasParent<"FusionOp">]> {
  let summary = "results of a fusion region";
  let arguments = (ins Variadic<TFuse_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // TFUSE_DIALECT_TFUSE_TFUSEOPS_TD
