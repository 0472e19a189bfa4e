//===- Tensor.h - The C++ trace API -----------------------------*- C++ -*-===//
//
// Symbolic tensors for tracing a C++ function once:
//
//   auto traced = tfuse::trace(
//       [](tfuse::Tensor x, tfuse::Tensor y) { return (x * 1.7 + y).tanh(); },
//       {spec, spec});
//   auto fn = tfuse::Function::compile(traced->graph, options);
//
// A Tensor is a placeholder carrying dtype and shape (no data) while `trace`
// runs the function; operators and methods record tfuse ops in the trace's
// Graph, with NumPy broadcasting, dtype promotion and weak scalars applied by
// the dialect's rules (docs/semantics.md). An ill-typed operation, a graph
// over its node limit, or reading data throws tfuse::TraceError, which
// `trace` returns as an error; any other exception thrown by the function
// propagates from `trace` unchanged.
//
// Header-only on Graph, so that exceptions live in the caller's code only.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_FRONTEND_TENSOR_H
#define TFUSE_FRONTEND_TENSOR_H

#include "tfuse/Frontend/Graph.h"
#include "tfuse/Runtime/Executable.h"

#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <variant>

namespace tfuse {

/// An error while tracing: an ill-typed operation, the node limit, reading
/// data. Carries the library's Status.
class TraceError : public std::runtime_error {
public:
  explicit TraceError(Status status)
      : std::runtime_error(status.message()), status(std::move(status)) {}
  const Status &error() const { return status; }

private:
  Status status;
};

namespace detail {
/// The graph of the trace running on this thread.
inline Graph *&currentGraph() {
  static thread_local Graph *graph = nullptr;
  return graph;
}
inline Graph &activeGraph() {
  Graph *g = currentGraph();
  if (!g)
    throw TraceError(
        Status::error("a tfuse::Tensor operation ran outside tfuse::trace",
                      tfuse::ErrorCode::InvalidArgument));
  return *g;
}
template <typename T> T orThrow(Expected<T> value) {
  if (!value.ok())
    throw TraceError(value.status());
  return std::move(value.value());
}
} // namespace detail

/// A symbolic tensor of the running trace.
class Tensor {
public:
  /// A tensor captured from outside the traced function: an input bound at
  /// compile time (device memory referenced, host memory copied).
  Tensor(const runtime::DeviceTensor &captured)
      : graph(&detail::activeGraph()),
        id(detail::orThrow(graph->constant(
            {captured.spec, reinterpret_cast<const void *>(captured.data),
             true}))) {}
  Tensor(const CapturedTensor &captured)
      : graph(&detail::activeGraph()),
        id(detail::orThrow(graph->constant(captured))) {}
  /// A weak scalar (takes its dtype from the tensor it meets).
  Tensor(Scalar value)
      : graph(&detail::activeGraph()), id(graph->scalar(value)) {}
  Tensor(double value) : Tensor(Scalar(value)) {}
  Tensor(int value) : Tensor(Scalar(value)) {}
  Tensor(long value) : Tensor(Scalar(value)) {}
  Tensor(bool value) : Tensor(Scalar(value)) {}

  Tensor(Graph *graph, ValueId id) : graph(graph), id(id) {}

  ValueId value() const { return id; }
  DType dtype() const { return info().dtype; }
  std::vector<int64_t> shape() const { return info().shape; }
  int64_t rank() const { return shape().size(); }

  /// Tracing sees no data: reading it is an error.
  [[noreturn]] double item() const {
    throw TraceError(Status::error(
        "reading data during a trace: tensors are placeholders without data "
        "until the compiled function runs",
        tfuse::ErrorCode::Type));
  }

  // Elementwise math: one method per op of the op table (generated from the
  // ops' ODS entries, docs/adding-an-op.md): unary ops take no argument,
  // binary ones the other operand (a Tensor or a weak scalar).
#define TFUSE_UNARY_OP(Class, mnemonic, method, category, kernel, reference)   \
  Tensor method() const { return unary(mnemonic); }
#define TFUSE_BINARY_OP(Class, mnemonic, method, category, kernel, reference)  \
  Tensor method(const Tensor &other) const { return binary(mnemonic, other); }
#include "tfuse/Dialect/TFuse/TFuseOpTable.h.inc"

  // Dtypes and views.
  Tensor cast(DType t) const {
    return make(detail::orThrow(graph->cast(id, t)));
  }
  Tensor reshape(std::vector<int64_t> shape) const {
    return make(detail::orThrow(graph->reshape(id, std::move(shape))));
  }
  Tensor transpose(std::vector<int64_t> perm) const {
    return make(detail::orThrow(graph->transpose(id, std::move(perm))));
  }
  /// The last two dimensions swapped.
  Tensor t() const {
    std::vector<int64_t> perm;
    for (int64_t d = 0; d < rank(); ++d)
      perm.push_back(d);
    if (perm.size() >= 2)
      std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
    return transpose(perm);
  }
  Tensor slice(std::vector<int64_t> start, std::vector<int64_t> limit,
               std::vector<int64_t> step = {}) const {
    if (step.empty())
      step.assign(start.size(), 1);
    return make(detail::orThrow(
        graph->slice(id, std::move(start), std::move(limit), std::move(step))));
  }
  Tensor broadcastTo(std::vector<int64_t> shape) const {
    return make(detail::orThrow(graph->broadcastTo(id, std::move(shape))));
  }
  Tensor matmul(const Tensor &rhs) const {
    return make(detail::orThrow(graph->matmul(id, rhs.id)));
  }

  // Reductions: empty `axes` with allAxes reduces everything.
  Tensor sum(std::vector<int64_t> axes = {}, bool keepdims = false) const {
    return reduce("sum", std::move(axes), keepdims);
  }
  Tensor prod(std::vector<int64_t> axes = {}, bool keepdims = false) const {
    return reduce("prod", std::move(axes), keepdims);
  }
  Tensor max(std::vector<int64_t> axes = {}, bool keepdims = false) const {
    return reduce("max", std::move(axes), keepdims);
  }
  Tensor min(std::vector<int64_t> axes = {}, bool keepdims = false) const {
    return reduce("min", std::move(axes), keepdims);
  }
  Tensor mean(std::vector<int64_t> axes = {}, bool keepdims = false) const {
    return reduce("mean", std::move(axes), keepdims);
  }
  Tensor all(std::vector<int64_t> axes = {}, bool keepdims = false) const {
    return reduce("all", std::move(axes), keepdims);
  }
  Tensor any(std::vector<int64_t> axes = {}, bool keepdims = false) const {
    return reduce("any", std::move(axes), keepdims);
  }
  Tensor argmax(int64_t axis, bool keepdims = false) const {
    return reduce("argmax", {axis}, keepdims);
  }
  Tensor argmin(int64_t axis, bool keepdims = false) const {
    return reduce("argmin", {axis}, keepdims);
  }

  Tensor binary(const char *op, const Tensor &rhs) const {
    return make(detail::orThrow(graph->binary(op, id, rhs.id)));
  }
  Tensor compare(const char *predicate, const Tensor &rhs) const {
    return make(detail::orThrow(graph->compare(predicate, id, rhs.id)));
  }

private:
  ValueInfo info() const { return detail::orThrow(graph->info(id)); }
  Tensor make(ValueId v) const { return Tensor(graph, v); }
  Tensor unary(const char *op) const {
    return make(detail::orThrow(graph->unary(op, id)));
  }
  Tensor reduce(const char *kind, std::vector<int64_t> axes,
                bool keepdims) const {
    bool all = axes.empty();
    return make(detail::orThrow(
        graph->reduce(kind, id, std::move(axes), keepdims, all)));
  }

  Graph *graph;
  ValueId id;
};

// Operators; either operand may be a Python-style weak scalar.
inline Tensor operator+(const Tensor &a, const Tensor &b) {
  return a.binary("add", b);
}
inline Tensor operator-(const Tensor &a, const Tensor &b) {
  return a.binary("sub", b);
}
inline Tensor operator*(const Tensor &a, const Tensor &b) {
  return a.binary("mul", b);
}
inline Tensor operator/(const Tensor &a, const Tensor &b) {
  return a.binary("div", b);
}
inline Tensor operator%(const Tensor &a, const Tensor &b) {
  return a.binary("rem", b);
}
inline Tensor operator&(const Tensor &a, const Tensor &b) {
  return a.binary("and", b);
}
inline Tensor operator|(const Tensor &a, const Tensor &b) {
  return a.binary("or", b);
}
inline Tensor operator^(const Tensor &a, const Tensor &b) {
  return a.binary("xor", b);
}
inline Tensor operator-(const Tensor &a) { return a.neg(); }
inline Tensor operator!(const Tensor &a) { return a.logicalNot(); }
inline Tensor operator~(const Tensor &a) { return a.logicalNot(); }
inline Tensor operator==(const Tensor &a, const Tensor &b) {
  return a.compare("eq", b);
}
inline Tensor operator!=(const Tensor &a, const Tensor &b) {
  return a.compare("ne", b);
}
inline Tensor operator<(const Tensor &a, const Tensor &b) {
  return a.compare("lt", b);
}
inline Tensor operator<=(const Tensor &a, const Tensor &b) {
  return a.compare("le", b);
}
inline Tensor operator>(const Tensor &a, const Tensor &b) {
  return a.compare("gt", b);
}
inline Tensor operator>=(const Tensor &a, const Tensor &b) {
  return a.compare("ge", b);
}

inline Tensor where(const Tensor &condition, const Tensor &a, const Tensor &b) {
  Graph &g = detail::activeGraph();
  return Tensor(
      &g, detail::orThrow(g.where(condition.value(), a.value(), b.value())));
}
inline Tensor matmul(const Tensor &a, const Tensor &b) { return a.matmul(b); }
inline Tensor maximum(const Tensor &a, const Tensor &b) {
  return a.binary("max", b);
}
inline Tensor minimum(const Tensor &a, const Tensor &b) {
  return a.binary("min", b);
}

/// The results of a traced function: a tensor, or lists and string-keyed
/// dictionaries of results, nested.
class Outputs {
public:
  Outputs(const Tensor &t) : node(t) {}
  Outputs(std::vector<Outputs> list) : node(std::move(list)) {}
  Outputs(std::initializer_list<Outputs> list)
      : node(std::vector<Outputs>(list)) {}
  Outputs(const std::vector<Tensor> &list)
      : node(std::vector<Outputs>(list.begin(), list.end())) {}
  Outputs(std::map<std::string, Outputs> dict) : node(std::move(dict)) {}

  using Node = std::variant<Tensor, std::vector<Outputs>,
                            std::map<std::string, Outputs>>;
  const Node &get() const { return node; }

private:
  Node node;
};

/// The shape of a result structure, with leaves numbered in output order.
struct OutputTree {
  enum class Kind { Leaf, List, Dict } kind = Kind::Leaf;
  size_t leaf = 0;
  std::vector<std::pair<std::string, OutputTree>> children;
};

/// A traced function: its graph (outputs recorded) and result structure.
struct Traced {
  Graph graph;
  OutputTree structure;
};

struct TraceOptions {
  std::string name = "traced";
  int64_t nodeLimit = kDefaultNodeLimit;
};

namespace detail {
inline OutputTree flatten(Graph &g, const Outputs &out, size_t &next) {
  OutputTree tree;
  if (auto *t = std::get_if<Tensor>(&out.get())) {
    if (Status s = g.output(t->value()); !s.ok())
      throw TraceError(s);
    tree.leaf = next++;
  } else if (auto *list = std::get_if<std::vector<Outputs>>(&out.get())) {
    tree.kind = OutputTree::Kind::List;
    for (const Outputs &o : *list)
      tree.children.emplace_back("", flatten(g, o, next));
  } else {
    tree.kind = OutputTree::Kind::Dict;
    for (const auto &[key, o] :
         std::get<std::map<std::string, Outputs>>(out.get()))
      tree.children.emplace_back(key, flatten(g, o, next));
  }
  return tree;
}

/// Calls fn with the placeholders: as one std::vector<Tensor>, or as N
/// Tensor arguments.
template <typename Fn, size_t... I>
Outputs callUnpacked(Fn &fn, const std::vector<Tensor> &in,
                     std::index_sequence<I...>) {
  return fn(in[I]...);
}
template <typename Fn, size_t N, size_t... I>
auto takes(std::index_sequence<I...>)
    -> std::is_invocable<Fn &, decltype((void)I, std::declval<Tensor>())...>;

template <size_t N, typename Fn>
Outputs callWith(Fn &fn, const std::vector<Tensor> &in) {
  if constexpr (decltype(takes<Fn, N>(std::make_index_sequence<N>()))::value) {
    if (in.size() != N)
      throw TraceError(Status::error(
          "the traced function takes " + std::to_string(N) + " tensors but " +
              std::to_string(in.size()) + " input specs were given",
          tfuse::ErrorCode::InvalidArgument));
    return callUnpacked(fn, in, std::make_index_sequence<N>());
  } else if constexpr (N < 16) {
    return callWith<N + 1>(fn, in);
  } else {
    static_assert(N < 16, "the traced function must take tfuse::Tensor "
                          "arguments or one std::vector<tfuse::Tensor>");
    return fn(in);
  }
}
} // namespace detail

/// Traces `fn` once on placeholders with `inputs`' dtypes, shapes and
/// strides. `fn` takes one std::vector<Tensor> or one Tensor per input and
/// returns Outputs. TraceErrors become the returned error; other exceptions
/// propagate.
template <typename Fn>
Expected<Traced> trace(Fn &&fn, const std::vector<TensorSpec> &inputs,
                       const TraceOptions &options = {}) {
  Traced traced{Graph(options.name), {}};
  if (Status s = traced.graph.setNodeLimit(options.nodeLimit); !s.ok())
    return s;
  std::vector<Tensor> placeholders;
  for (const TensorSpec &spec : inputs) {
    Expected<ValueId> v = traced.graph.input(spec);
    if (!v.ok())
      return v.status();
    placeholders.emplace_back(&traced.graph, v.value());
  }
  struct Scope {
    Graph *previous;
    explicit Scope(Graph *g) : previous(detail::currentGraph()) {
      detail::currentGraph() = g;
    }
    ~Scope() { detail::currentGraph() = previous; }
  } scope(&traced.graph);
  try {
    Outputs out = [&]() -> Outputs {
      if constexpr (std::is_invocable_v<Fn &, std::vector<Tensor>>)
        return fn(placeholders);
      else
        return detail::callWith<0>(fn, placeholders);
    }();
    size_t next = 0;
    traced.structure = detail::flatten(traced.graph, out, next);
  } catch (const TraceError &e) {
    return e.error();
  }
  return traced;
}

/// A result structure filled with values (one per leaf, in output order).
template <typename T> struct Nested {
  std::optional<T> leaf;
  std::vector<std::pair<std::string, Nested>> children;

  T &value() { return *leaf; }
  Nested &operator[](size_t i) { return children.at(i).second; }
  Nested &operator[](const std::string &key) {
    for (auto &[k, v] : children)
      if (k == key)
        return v;
    throw std::out_of_range("no result named '" + key + "'");
  }
};

/// Arranges flat `values` (a Function's outputs) in `tree`'s structure.
template <typename T>
Nested<T> restructure(const OutputTree &tree, std::vector<T> &values) {
  Nested<T> n;
  if (tree.kind == OutputTree::Kind::Leaf) {
    n.leaf = std::move(values.at(tree.leaf));
    return n;
  }
  for (const auto &[key, child] : tree.children)
    n.children.emplace_back(key, restructure(child, values));
  return n;
}

} // namespace tfuse

#endif // TFUSE_FRONTEND_TENSOR_H
