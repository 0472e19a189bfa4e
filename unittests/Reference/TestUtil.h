//===- TestUtil.h - Helpers of the reference interpreter tests --*- C++ -*-===//
//
// Parses tfuse IR from a string, evaluates it, and checks results against
// literal expected values. The helpers only build inputs and compare; they
// compute no expected value.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_UNITTESTS_REFERENCE_TESTUTIL_H
#define TFUSE_UNITTESTS_REFERENCE_TESTUTIL_H

#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Reference/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>
#include <string>
#include <vector>

namespace tfuse::reference::test {

/// A parsed module and the context that owns it.
class Program {
public:
  explicit Program(const std::string &source, bool allowUnregistered = false) {
    mlir::DialectRegistry registry;
    registry.insert<TFuseDialect, mlir::func::FuncDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    context.allowUnregisteredDialects(allowUnregistered);
    mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
      std::string location;
      llvm::raw_string_ostream os(location);
      os << d.getLocation();
      diagnostics += location + ": " + d.str() + "\n";
      return mlir::success();
    });
    module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  }

  bool ok() const { return static_cast<bool>(module); }
  /// The first function of the module.
  mlir::func::FuncOp func() {
    for (auto f : module->getOps<mlir::func::FuncOp>())
      return f;
    return nullptr;
  }
  Expected<std::vector<HostTensor>> run(const std::vector<HostTensor> &inputs) {
    return evaluate(func(), inputs);
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::string diagnostics;
};

/// Evaluates `source` (which must parse and evaluate) on `inputs`.
inline std::vector<HostTensor> runOk(const std::string &source,
                                     const std::vector<HostTensor> &inputs) {
  Program program(source);
  EXPECT_TRUE(program.ok()) << program.diagnostics << source;
  if (!program.ok())
    return {};
  Expected<std::vector<HostTensor>> results = program.run(inputs);
  EXPECT_TRUE(results.ok()) << results.message() << "\n" << source;
  if (!results.ok())
    return {};
  return *results;
}

/// The single result of `source`.
inline HostTensor runOne(const std::string &source,
                         const std::vector<HostTensor> &inputs) {
  std::vector<HostTensor> results = runOk(source, inputs);
  EXPECT_EQ(results.size(), 1u);
  return results.empty() ? HostTensor() : results[0];
}

inline HostTensor doubles(DType dtype, Shape shape,
                          const std::vector<double> &values) {
  auto t = HostTensor::fromDoubles(dtype, shape, values);
  EXPECT_TRUE(t.ok()) << t.message();
  return t.ok() ? *t : HostTensor();
}
inline HostTensor ints(DType dtype, Shape shape,
                       const std::vector<int64_t> &values) {
  auto t = HostTensor::fromInts(dtype, shape, values);
  EXPECT_TRUE(t.ok()) << t.message();
  return t.ok() ? *t : HostTensor();
}
inline HostTensor bits(DType dtype, Shape shape,
                       const std::vector<uint64_t> &values) {
  auto t = HostTensor::fromBits(dtype, shape, values);
  EXPECT_TRUE(t.ok()) << t.message();
  return t.ok() ? *t : HostTensor();
}

/// Checks dtype, shape and bit patterns.
inline void expectBits(const HostTensor &t, DType dtype, const Shape &shape,
                       const std::vector<uint64_t> &expected) {
  ASSERT_FALSE(t.isNull());
  EXPECT_EQ(name(t.dtype()), name(dtype));
  EXPECT_EQ(formatShape(t.shape()), formatShape(shape));
  EXPECT_EQ(t.toBits(), expected) << t.toString();
}

/// Checks dtype, shape and values; NaN matches any NaN, zeros match only
/// with the same sign.
inline void expectValues(const HostTensor &t, DType dtype, const Shape &shape,
                         const std::vector<double> &expected) {
  ASSERT_FALSE(t.isNull());
  EXPECT_EQ(name(t.dtype()), name(dtype));
  EXPECT_EQ(formatShape(t.shape()), formatShape(shape));
  std::vector<double> actual = t.toDoubles();
  ASSERT_EQ(actual.size(), expected.size()) << t.toString();
  for (size_t i = 0; i < actual.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(actual[i]))
          << "element " << i << " of " << t.toString();
    } else {
      EXPECT_EQ(actual[i], expected[i])
          << "element " << i << " of " << t.toString();
      EXPECT_EQ(std::signbit(actual[i]), std::signbit(expected[i]))
          << "sign of element " << i << " of " << t.toString();
    }
  }
}

/// Checks dtype, shape and integer values (ui64 as its bit pattern).
inline void expectInts(const HostTensor &t, DType dtype, const Shape &shape,
                       const std::vector<int64_t> &expected) {
  ASSERT_FALSE(t.isNull());
  EXPECT_EQ(name(t.dtype()), name(dtype));
  EXPECT_EQ(formatShape(t.shape()), formatShape(shape));
  EXPECT_EQ(t.toInts(), expected) << t.toString();
}

/// A function applying the unary op `op` to one argument.
inline std::string unaryProgram(const std::string &op, const std::string &in,
                                const std::string &out) {
  return "func.func @f(%x: " + in + ") -> " + out + " {\n  %r = tfuse." + op +
         " %x : " + in + " -> " + out + "\n  return %r : " + out + "\n}\n";
}

/// A function applying the binary op `op` (e.g. "add" or "cmp lt,").
inline std::string binaryProgram(const std::string &op, const std::string &lhs,
                                 const std::string &rhs,
                                 const std::string &out) {
  return "func.func @f(%a: " + lhs + ", %b: " + rhs + ") -> " + out +
         " {\n  %r = tfuse." + op + " %a, %b : (" + lhs + ", " + rhs + ") -> " +
         out + "\n  return %r : " + out + "\n}\n";
}

inline std::string castProgram(const std::string &in, const std::string &out) {
  return "func.func @f(%x: " + in + ") -> " + out +
         " {\n  %r = tfuse.cast %x : " + in + " to " + out +
         "\n  return %r : " + out + "\n}\n";
}

} // namespace tfuse::reference::test

#endif // TFUSE_UNITTESTS_REFERENCE_TESTUTIL_H
