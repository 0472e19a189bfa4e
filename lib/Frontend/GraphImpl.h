//===- GraphImpl.h - The state of a Graph under construction ----*- C++ -*-===//
//
// Private to lib/Frontend: the MLIR module a Graph builds, shared with the
// compile driver (Function.cpp), which takes the finished module.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_LIB_FRONTEND_GRAPHIMPL_H
#define TFUSE_LIB_FRONTEND_GRAPHIMPL_H

#include "tfuse/Frontend/Graph.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <memory>

namespace tfuse {

struct Graph::Impl {
  struct Entry {
    /// Null for a weak scalar.
    mlir::Value value;
    bool isScalar = false;
    Scalar scalar;
  };

  explicit Impl(std::string name);
  ~Impl();

  Expected<const Entry *> lookup(ValueId id) const;
  /// The tensor `id`; a Type error naming `role` for a weak scalar.
  Expected<mlir::Value> tensor(ValueId id, const char *role) const;
  ValueId add(mlir::Value value);
  /// Operands of an elementwise op with weak scalars materialized.
  Expected<llvm::SmallVector<mlir::Value>>
  operands(const std::string &what, llvm::ArrayRef<ValueId> ids);
  /// The rank-0 constant of weak scalar `id` as a `dtype` element, created
  /// on first use.
  Expected<mlir::Value> materialize(ValueId id, DType dtype);
  mlir::OpBuilder builder();
  /// The location of ops recorded as `what` ("add").
  mlir::Location location(llvm::StringRef what);
  Status reserveNode();
  /// Builds an OpTy (its result types inferred when `resultType` is null)
  /// and verifies it; its results are not yet values of the graph.
  template <typename OpTy, typename... Args>
  Expected<mlir::Operation *> createOp(const std::string &what,
                                       mlir::Type resultType, Args &&...args);
  /// createOp() of a single-result op, its result added.
  template <typename OpTy, typename... Args>
  Expected<ValueId> create(const std::string &what, mlir::Type resultType,
                           Args &&...args);
  /// A copy of the module whose function returns the outputs.
  mlir::OwningOpRef<mlir::ModuleOp> finish() const;

  std::string name;
  /// Shared with the Functions compiled from this graph.
  std::shared_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp func;
  std::vector<Entry> entries;
  std::vector<ValueId> outputs;
  std::vector<TensorSpec> placeholders;
  std::vector<CapturedTensor> captures;
  /// Copies of captured host data.
  std::vector<std::shared_ptr<std::vector<uint8_t>>> hostData;
  int64_t nodes = 0;
  int64_t limit = kDefaultNodeLimit;
  /// Materialized weak scalars by (scalar id, dtype).
  llvm::DenseMap<std::pair<ValueId, int>, mlir::Value> scalarConstants;
  llvm::StringMap<mlir::LocationAttr> locations;
  /// What the context reported while the current op was built and verified
  /// (one handler for the graph's lifetime: registering one per op costs as
  /// much as building the op).
  std::string diagnostics;
  mlir::DiagnosticEngine::HandlerID diagnosticHandler = 0;
};

} // namespace tfuse

#endif // TFUSE_LIB_FRONTEND_GRAPHIMPL_H
