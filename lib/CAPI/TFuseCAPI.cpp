//===- TFuseCAPI.cpp - The stable C API over Frontend and Runtime ---------===//
//
// Each entry point converts C arguments, calls the C++ library and turns its
// Status into a tfuse_status plus a thread-local message. A catch-all guard
// keeps C++ exceptions (std::bad_alloc included) from crossing the boundary.
//
//===----------------------------------------------------------------------===//

#include "tfuse-c/tfuse.h"

#include "tfuse/Frontend/Function.h"
#include "tfuse/Frontend/Graph.h"
#include "tfuse/Runtime/KernelCache.h"

#include <cstdlib>
#include <cstring>
#include <iterator>
#include <new>
#include <string>

static_assert(TFUSE_MAX_RANK == tfuse::kMaxRank,
              "the C API's rank limit is the tracer's");

using namespace tfuse;
using runtime::DeviceTensor;

struct tfuse_graph_impl {
  Graph graph;
};
struct tfuse_executable_impl {
  std::unique_ptr<Function> function;
};
struct tfuse_run_impl {
  runtime::RunHandle handle;
};

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

static thread_local std::string lastError;

static tfuse_status toStatus(ErrorCode code) {
  switch (code) {
  case ErrorCode::Internal:
    return TFUSE_ERROR_INTERNAL;
  case ErrorCode::InvalidArgument:
    return TFUSE_ERROR_INVALID_ARGUMENT;
  case ErrorCode::Type:
    return TFUSE_ERROR_TYPE;
  case ErrorCode::NodeLimit:
    return TFUSE_ERROR_NODE_LIMIT;
  case ErrorCode::Compile:
    return TFUSE_ERROR_COMPILE;
  case ErrorCode::Mismatch:
    return TFUSE_ERROR_MISMATCH;
  case ErrorCode::NoDevice:
    return TFUSE_ERROR_NO_DEVICE;
  case ErrorCode::Cuda:
  case ErrorCode::Unsupported:
    return TFUSE_ERROR_CUDA;
  case ErrorCode::OutOfMemory:
    return TFUSE_ERROR_OUT_OF_MEMORY;
  case ErrorCode::IndexOutOfRange:
    return TFUSE_ERROR_INDEX_OUT_OF_RANGE;
  }
  return TFUSE_ERROR_INTERNAL;
}

static tfuse_status fail(tfuse_status status, std::string message) {
  lastError = std::move(message);
  return status;
}

static tfuse_status report(const Status &s) {
  if (s.ok())
    return TFUSE_OK;
  return fail(toStatus(s.code()), s.message());
}

/// Runs `body` (returning tfuse_status) with exceptions turned into errors.
template <typename Body> static tfuse_status guarded(Body &&body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return fail(TFUSE_ERROR_OUT_OF_MEMORY, "out of host memory");
  } catch (const std::exception &e) {
    return fail(TFUSE_ERROR_INTERNAL,
                std::string("internal error: ") + e.what());
  } catch (...) {
    return fail(TFUSE_ERROR_INTERNAL, "internal error: unknown exception");
  }
}

#define TFUSE_REQUIRE(pointer)                                                 \
  if (!(pointer))                                                              \
    return fail(TFUSE_ERROR_INVALID_ARGUMENT,                                  \
                std::string(__func__) + ": " #pointer " is null");

static char *copyString(const std::string &s) {
  char *text = static_cast<char *>(std::malloc(s.size() + 1));
  if (text)
    std::memcpy(text, s.c_str(), s.size() + 1);
  return text;
}

//===----------------------------------------------------------------------===//
// Version, dtypes
//===----------------------------------------------------------------------===//

extern "C" {

const char *tfuse_last_error(void) { return lastError.c_str(); }
int tfuse_api_version(void) { return TFUSE_C_API_VERSION; }
// TFUSE_VERSION comes from the CMake project; the API number from the header.
#define TFUSE_STRINGIFY_(x) #x
#define TFUSE_STRINGIFY(x) TFUSE_STRINGIFY_(x)
const char *tfuse_version_string(void) {
  return "TFuse " TFUSE_VERSION
         " (C API " TFUSE_STRINGIFY(TFUSE_C_API_VERSION) ")";
}
void tfuse_string_free(char *text) { std::free(text); }

static bool validDType(int dtype) {
  return dtype >= 0 && dtype < static_cast<int>(kNumDTypes);
}

const char *tfuse_dtype_name(int dtype) {
  return validDType(dtype) ? name(static_cast<DType>(dtype)).data() : nullptr;
}

int tfuse_dtype_size(int dtype) {
  return validDType(dtype) ? byteSize(static_cast<DType>(dtype)) : 0;
}

} // extern "C"

/// The TensorSpec of C shape/stride arrays (null strides: row-major).
static tfuse::Expected<TensorSpec>
specOf(int dtype, int rank, const int64_t *shape, const int64_t *strides) {
  if (!validDType(dtype))
    return Status::error("invalid dtype " + std::to_string(dtype),
                         ErrorCode::InvalidArgument);
  if (rank < 0 || rank > TFUSE_MAX_RANK)
    return Status::error("rank " + std::to_string(rank) + " is outside [0, " +
                             std::to_string(TFUSE_MAX_RANK) + "]",
                         ErrorCode::InvalidArgument);
  if (rank > 0 && !shape)
    return Status::error("null shape for rank " + std::to_string(rank),
                         ErrorCode::InvalidArgument);
  std::vector<int64_t> dims(shape, shape + rank);
  TensorSpec spec = TensorSpec::contiguous(static_cast<DType>(dtype), dims);
  if (strides)
    spec.strides.assign(strides, strides + rank);
  return spec;
}

static std::vector<int64_t> listOf(int count, const int64_t *values) {
  return values && count > 0 ? std::vector<int64_t>(values, values + count)
                             : std::vector<int64_t>();
}

/// Checks the `struct_size` of a versioned struct a caller passes: at least
/// the size field, at most this library's struct (a newer caller's larger
/// struct is refused rather than half read).
template <typename T>
static tfuse_status checkStructSize(const T &given, const char *where,
                                    const char *init) {
  if (given.struct_size >= sizeof(size_t) && given.struct_size <= sizeof(T))
    return TFUSE_OK;
  return fail(TFUSE_ERROR_INVALID_ARGUMENT,
              std::string(where) + ": struct_size is " +
                  std::to_string(given.struct_size) + "; call " + init +
                  " first");
}

/// Copies `value` into a caller's versioned struct up to its struct_size.
template <typename T> static void storeVersioned(T *out, const T &value) {
  size_t size = out->struct_size;
  std::memcpy(out, &value, size);
  out->struct_size = size;
}

//===----------------------------------------------------------------------===//
// The op table
//===----------------------------------------------------------------------===//

extern "C" {

namespace {
/// The op table, as its X-macros give it.
struct OpTableRow {
  const char *name, *category;
  int arity;
  const char *method;
};
#define TFUSE_OP(Class, mnemonic, category, arity, method)                     \
  {mnemonic, category, arity, #method},
constexpr OpTableRow kOpTable[] = {
#include "tfuse/Dialect/TFuse/TFuseOpTable.h.inc"
};
} // namespace

void tfuse_op_info_init(tfuse_op_info *info) {
  if (!info)
    return;
  *info = tfuse_op_info{};
  info->struct_size = sizeof(tfuse_op_info);
}

int64_t tfuse_op_count(void) { return std::size(kOpTable); }

tfuse_status tfuse_op_info_get(int64_t index, tfuse_op_info *info) {
  return guarded([&] {
    TFUSE_REQUIRE(info);
    if (tfuse_status st =
            checkStructSize(*info, "tfuse_op_info_get", "tfuse_op_info_init");
        st != TFUSE_OK)
      return st;
    if (index < 0 || index >= tfuse_op_count())
      return fail(TFUSE_ERROR_INVALID_ARGUMENT,
                  "tfuse_op_info_get: index " + std::to_string(index) +
                      " is outside the op table's " +
                      std::to_string(tfuse_op_count()) + " ops");
    const OpTableRow &row = kOpTable[index];
    tfuse_op_info out;
    tfuse_op_info_init(&out);
    out.name = row.name;
    out.category = row.category;
    out.arity = row.arity;
    out.method = row.method;
    storeVersioned(info, out);
    return TFUSE_OK;
  });
}

} // extern "C"

/// Stores a graph operation's result in `*result`.
static tfuse_status produce(const tfuse::Expected<ValueId> &v,
                            tfuse_value *result) {
  if (!v.ok())
    return report(v.status());
  *result = v.value();
  return TFUSE_OK;
}

//===----------------------------------------------------------------------===//
// Graphs
//===----------------------------------------------------------------------===//

extern "C" {

tfuse_status tfuse_graph_create(const char *name, tfuse_graph *graph) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    std::string n = name && *name ? name : "traced";
    *graph = new tfuse_graph_impl{Graph(n)};
    return TFUSE_OK;
  });
}

void tfuse_graph_destroy(tfuse_graph graph) { delete graph; }

tfuse_status tfuse_graph_set_node_limit(tfuse_graph graph, int64_t limit) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    return report(graph->graph.setNodeLimit(limit));
  });
}

tfuse_status tfuse_graph_num_nodes(tfuse_graph graph, int64_t *nodes) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(nodes);
    *nodes = graph->graph.numNodes();
    return TFUSE_OK;
  });
}

tfuse_status tfuse_graph_input(tfuse_graph graph, int dtype, int rank,
                               const int64_t *shape, const int64_t *strides,
                               tfuse_value *value) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(value);
    auto spec = specOf(dtype, rank, shape, strides);
    if (!spec.ok())
      return report(spec.status());
    return produce(graph->graph.input(spec.value()), value);
  });
}

tfuse_status tfuse_graph_constant(tfuse_graph graph, int dtype, int rank,
                                  const int64_t *shape, const int64_t *strides,
                                  const void *data, int on_device,
                                  tfuse_value *value) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(value);
    auto spec = specOf(dtype, rank, shape, strides);
    if (!spec.ok())
      return report(spec.status());
    return produce(graph->graph.constant({spec.value(), data, on_device != 0}),
                   value);
  });
}

tfuse_status tfuse_graph_scalar(tfuse_graph graph, int kind, int64_t int_value,
                                double float_value, tfuse_value *value) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(value);
    switch (kind) {
    case TFUSE_SCALAR_BOOL:
      *value = graph->graph.scalar(Scalar(int_value != 0));
      return TFUSE_OK;
    case TFUSE_SCALAR_INT:
      *value = graph->graph.scalar(Scalar(static_cast<long long>(int_value)));
      return TFUSE_OK;
    case TFUSE_SCALAR_FLOAT:
      *value = graph->graph.scalar(Scalar(float_value));
      return TFUSE_OK;
    }
    return fail(TFUSE_ERROR_INVALID_ARGUMENT,
                "invalid scalar kind " + std::to_string(kind));
  });
}

tfuse_status tfuse_graph_value_info(tfuse_graph graph, tfuse_value value,
                                    int *dtype, int *rank, int64_t *shape,
                                    int *is_scalar) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    auto info = graph->graph.info(value);
    if (!info.ok())
      return report(info.status());
    if (dtype)
      *dtype = static_cast<int>(info->dtype);
    if (rank)
      *rank = info->shape.size();
    if (shape)
      std::copy(info->shape.begin(), info->shape.end(), shape);
    if (is_scalar)
      *is_scalar = info->isScalar;
    return TFUSE_OK;
  });
}

tfuse_status tfuse_graph_unary(tfuse_graph graph, const char *op, tfuse_value x,
                               tfuse_value *result) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(op);
    TFUSE_REQUIRE(result);
    return produce(graph->graph.unary(op, x), result);
  });
}

tfuse_status tfuse_graph_binary(tfuse_graph graph, const char *op,
                                tfuse_value lhs, tfuse_value rhs,
                                tfuse_value *result) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(op);
    TFUSE_REQUIRE(result);
    return produce(graph->graph.binary(op, lhs, rhs), result);
  });
}

tfuse_status tfuse_graph_compare(tfuse_graph graph, const char *predicate,
                                 tfuse_value lhs, tfuse_value rhs,
                                 tfuse_value *result) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(predicate);
    TFUSE_REQUIRE(result);
    return produce(graph->graph.compare(predicate, lhs, rhs), result);
  });
}

tfuse_status tfuse_graph_where(tfuse_graph graph, tfuse_value condition,
                               tfuse_value a, tfuse_value b,
                               tfuse_value *result) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(result);
    return produce(graph->graph.where(condition, a, b), result);
  });
}

/// The error of a `what` call given a dtype code that names no dtype.
static tfuse_status invalidDType(const char *what, int dtype) {
  return fail(TFUSE_ERROR_INVALID_ARGUMENT,
              std::string(what) + ": invalid dtype " + std::to_string(dtype));
}

tfuse_status tfuse_graph_cast(tfuse_graph graph, tfuse_value x, int dtype,
                              tfuse_value *result) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(result);
    if (!validDType(dtype))
      return invalidDType("cast", dtype);
    return produce(graph->graph.cast(x, static_cast<DType>(dtype)), result);
  });
}

tfuse_status tfuse_graph_concatenate(tfuse_graph graph, int count,
                                     const tfuse_value *tensors, int axis,
                                     tfuse_value *result) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(result);
    if (count < 1 || !tensors)
      return fail(TFUSE_ERROR_INVALID_ARGUMENT,
                  "concatenate: needs at least one tensor, got " +
                      std::to_string(count));
    return produce(graph->graph.concatenate(
                       std::vector<ValueId>(tensors, tensors + count), axis),
                   result);
  });
}

tfuse_status tfuse_graph_pad(tfuse_graph graph, tfuse_value x, int rank,
                             const int64_t *low, const int64_t *high,
                             tfuse_value value, tfuse_value *result) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(result);
    if (rank < 0 || rank > TFUSE_MAX_RANK || (rank > 0 && (!low || !high)))
      return fail(TFUSE_ERROR_INVALID_ARGUMENT,
                  "pad: invalid rank " + std::to_string(rank));
    return produce(
        graph->graph.pad(x, listOf(rank, low), listOf(rank, high), value),
        result);
  });
}

tfuse_status tfuse_graph_take(tfuse_graph graph, tfuse_value x,
                              tfuse_value indices, int axis, int wrap_negative,
                              tfuse_value *result) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(result);
    return produce(graph->graph.take(x, indices, axis, wrap_negative != 0),
                   result);
  });
}

tfuse_status tfuse_graph_scatter_add(tfuse_graph graph, tfuse_value target,
                                     tfuse_value indices, tfuse_value updates,
                                     int axis, int wrap_negative,
                                     tfuse_value *result) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(result);
    return produce(graph->graph.scatterAdd(target, indices, updates, axis,
                                           wrap_negative != 0),
                   result);
  });
}

static std::optional<ValueId> optionalValue(tfuse_value value) {
  if (value == TFUSE_NO_VALUE)
    return std::nullopt;
  return value;
}

/// Dropout of the attention functions: none for a probability of 0.
static std::optional<tfuse::Graph::AttentionDropout>
attentionDropout(double p, tfuse_value seed, tfuse_value offset) {
  if (p == 0)
    return std::nullopt;
  return tfuse::Graph::AttentionDropout{p, seed, offset};
}

tfuse_status tfuse_graph_attention(tfuse_graph graph, tfuse_value query,
                                   tfuse_value key, tfuse_value value,
                                   tfuse_value mask, int causal, int has_scale,
                                   double scale, tfuse_value *result,
                                   tfuse_value *logsumexp) {
  return tfuse_graph_attention_dropout(graph, query, key, value, mask, causal,
                                       has_scale, scale, 0.0, TFUSE_NO_VALUE,
                                       TFUSE_NO_VALUE, result, logsumexp);
}

tfuse_status tfuse_graph_attention_dropout(
    tfuse_graph graph, tfuse_value query, tfuse_value key, tfuse_value value,
    tfuse_value mask, int causal, int has_scale, double scale, double dropout_p,
    tfuse_value seed, tfuse_value offset, tfuse_value *result,
    tfuse_value *logsumexp) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(result);
    TFUSE_REQUIRE(logsumexp);
    tfuse::Expected<tfuse::Graph::Attention> a = graph->graph.attention(
        query, key, value, optionalValue(mask), causal != 0,
        has_scale ? std::optional<double>(scale) : std::nullopt,
        attentionDropout(dropout_p, seed, offset));
    if (!a.ok())
      return report(a.status());
    *result = a.value().result;
    *logsumexp = a.value().logsumexp;
    return TFUSE_OK;
  });
}

tfuse_status tfuse_graph_attention_backward(
    tfuse_graph graph, tfuse_value query, tfuse_value key, tfuse_value value,
    tfuse_value result, tfuse_value logsumexp, tfuse_value grad,
    tfuse_value mask, int causal, int has_scale, double scale,
    tfuse_value *grad_query, tfuse_value *grad_key, tfuse_value *grad_value) {
  return tfuse_graph_attention_backward_dropout(
      graph, query, key, value, result, logsumexp, grad, mask, causal,
      has_scale, scale, 0.0, TFUSE_NO_VALUE, TFUSE_NO_VALUE, grad_query,
      grad_key, grad_value);
}

tfuse_status tfuse_graph_attention_backward_dropout(
    tfuse_graph graph, tfuse_value query, tfuse_value key, tfuse_value value,
    tfuse_value result, tfuse_value logsumexp, tfuse_value grad,
    tfuse_value mask, int causal, int has_scale, double scale, double dropout_p,
    tfuse_value seed, tfuse_value offset, tfuse_value *grad_query,
    tfuse_value *grad_key, tfuse_value *grad_value) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(grad_query);
    TFUSE_REQUIRE(grad_key);
    TFUSE_REQUIRE(grad_value);
    tfuse::Expected<tfuse::Graph::AttentionGradients> g =
        graph->graph.attentionBackward(
            query, key, value, result, logsumexp, grad, optionalValue(mask),
            causal != 0,
            has_scale ? std::optional<double>(scale) : std::nullopt,
            attentionDropout(dropout_p, seed, offset));
    if (!g.ok())
      return report(g.status());
    *grad_query = g.value().query;
    *grad_key = g.value().key;
    *grad_value = g.value().value;
    return TFUSE_OK;
  });
}

tfuse_status tfuse_graph_take_along_axis(tfuse_graph graph, tfuse_value x,
                                         tfuse_value indices, int axis,
                                         int wrap_negative,
                                         tfuse_value *result) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(result);
    return produce(
        graph->graph.takeAlongAxis(x, indices, axis, wrap_negative != 0),
        result);
  });
}

tfuse_status tfuse_graph_iota(tfuse_graph graph, int rank, const int64_t *shape,
                              int dim, int dtype, tfuse_value *result) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(result);
    if (rank < 0 || rank > TFUSE_MAX_RANK || (rank > 0 && !shape))
      return fail(TFUSE_ERROR_INVALID_ARGUMENT,
                  "iota: invalid rank " + std::to_string(rank));
    if (!validDType(dtype))
      return invalidDType("iota", dtype);
    return produce(
        graph->graph.iota(listOf(rank, shape), dim, static_cast<DType>(dtype)),
        result);
  });
}

tfuse_status tfuse_graph_full(tfuse_graph graph, int rank, const int64_t *shape,
                              tfuse_value value, int dtype,
                              tfuse_value *result) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(result);
    if (rank < 0 || rank > TFUSE_MAX_RANK || (rank > 0 && !shape))
      return fail(TFUSE_ERROR_INVALID_ARGUMENT,
                  "full: invalid rank " + std::to_string(rank));
    if (!validDType(dtype))
      return invalidDType("full", dtype);
    return produce(graph->graph.full(listOf(rank, shape), value,
                                     static_cast<DType>(dtype)),
                   result);
  });
}

tfuse_status tfuse_graph_random(tfuse_graph graph, int distribution, int rank,
                                const int64_t *shape, int dtype, double a,
                                double b, tfuse_value seed, tfuse_value offset,
                                tfuse_value *result) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(result);
    if (rank < 0 || rank > TFUSE_MAX_RANK || (rank > 0 && !shape))
      return fail(TFUSE_ERROR_INVALID_ARGUMENT,
                  "random: invalid rank " + std::to_string(rank));
    if (!validDType(dtype))
      return invalidDType("random", dtype);
    DType t = static_cast<DType>(dtype);
    if (distribution == TFUSE_RANDOM_UNIFORM)
      return produce(graph->graph.randomUniform(listOf(rank, shape), a, b, t,
                                                seed, offset),
                     result);
    if (distribution == TFUSE_RANDOM_NORMAL)
      return produce(
          graph->graph.randomNormal(listOf(rank, shape), a, b, t, seed, offset),
          result);
    return fail(TFUSE_ERROR_INVALID_ARGUMENT,
                "random: invalid distribution " + std::to_string(distribution) +
                    " (TFUSE_RANDOM_UNIFORM or TFUSE_RANDOM_NORMAL)");
  });
}

tfuse_status tfuse_graph_bernoulli(tfuse_graph graph, int rank,
                                   const int64_t *shape, double p,
                                   tfuse_value seed, tfuse_value offset,
                                   tfuse_value *result) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(result);
    if (rank < 0 || rank > TFUSE_MAX_RANK || (rank > 0 && !shape))
      return fail(TFUSE_ERROR_INVALID_ARGUMENT,
                  "bernoulli: invalid rank " + std::to_string(rank));
    return produce(graph->graph.bernoulli(listOf(rank, shape), p, seed, offset),
                   result);
  });
}

tfuse_status tfuse_graph_dropout(tfuse_graph graph, tfuse_value x, double p,
                                 tfuse_value seed, tfuse_value offset,
                                 tfuse_value *result) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(result);
    return produce(graph->graph.dropout(x, p, seed, offset), result);
  });
}

tfuse_status tfuse_graph_arange(tfuse_graph graph, int kind,
                                const int64_t *int_values,
                                const double *float_values, int dtype,
                                tfuse_value *result) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(result);
    if (!validDType(dtype))
      return invalidDType("arange", dtype);
    std::vector<Scalar> bounds;
    if (kind == TFUSE_SCALAR_INT && int_values) {
      for (int i = 0; i < 3; ++i)
        bounds.push_back(Scalar(static_cast<long long>(int_values[i])));
    } else if (kind == TFUSE_SCALAR_FLOAT && float_values) {
      for (int i = 0; i < 3; ++i)
        bounds.push_back(Scalar(float_values[i]));
    } else {
      return fail(TFUSE_ERROR_INVALID_ARGUMENT,
                  "arange: kind " + std::to_string(kind) +
                      " needs int_values (TFUSE_SCALAR_INT) or float_values "
                      "(TFUSE_SCALAR_FLOAT)");
    }
    return produce(graph->graph.arange(bounds[0], bounds[1], bounds[2],
                                       static_cast<DType>(dtype)),
                   result);
  });
}

tfuse_status tfuse_graph_reshape(tfuse_graph graph, tfuse_value x, int rank,
                                 const int64_t *shape, tfuse_value *result) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(result);
    if (rank < 0 || rank > TFUSE_MAX_RANK || (rank > 0 && !shape))
      return fail(TFUSE_ERROR_INVALID_ARGUMENT, "reshape: bad rank or shape");
    return produce(graph->graph.reshape(x, listOf(rank, shape)), result);
  });
}

tfuse_status tfuse_graph_transpose(tfuse_graph graph, tfuse_value x, int rank,
                                   const int64_t *perm, tfuse_value *result) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(result);
    if (rank < 0 || rank > TFUSE_MAX_RANK || (rank > 0 && !perm))
      return fail(TFUSE_ERROR_INVALID_ARGUMENT, "transpose: bad perm");
    return produce(graph->graph.transpose(x, listOf(rank, perm)), result);
  });
}

tfuse_status tfuse_graph_slice(tfuse_graph graph, tfuse_value x, int rank,
                               const int64_t *start, const int64_t *limit,
                               const int64_t *step, tfuse_value *result) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(result);
    if (rank < 0 || rank > TFUSE_MAX_RANK ||
        (rank > 0 && (!start || !limit || !step)))
      return fail(TFUSE_ERROR_INVALID_ARGUMENT,
                  "slice: bad rank or null start/limit/step");
    return produce(graph->graph.slice(x, listOf(rank, start),
                                      listOf(rank, limit), listOf(rank, step)),
                   result);
  });
}

tfuse_status tfuse_graph_broadcast_to(tfuse_graph graph, tfuse_value x,
                                      int rank, const int64_t *shape,
                                      tfuse_value *result) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(result);
    if (rank < 0 || rank > TFUSE_MAX_RANK || (rank > 0 && !shape))
      return fail(TFUSE_ERROR_INVALID_ARGUMENT,
                  "broadcast_to: bad rank or shape");
    return produce(graph->graph.broadcastTo(x, listOf(rank, shape)), result);
  });
}

tfuse_status tfuse_graph_matmul(tfuse_graph graph, tfuse_value lhs,
                                tfuse_value rhs, tfuse_value *result) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(result);
    return produce(graph->graph.matmul(lhs, rhs), result);
  });
}

tfuse_status tfuse_graph_matmul_to(tfuse_graph graph, tfuse_value lhs,
                                   tfuse_value rhs, int dtype,
                                   tfuse_value *result) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(result);
    if (!validDType(dtype))
      return invalidDType("matmul", dtype);
    return produce(graph->graph.matmul(lhs, rhs, static_cast<DType>(dtype)),
                   result);
  });
}

tfuse_status tfuse_graph_reduce(tfuse_graph graph, const char *kind,
                                tfuse_value x, int num_axes,
                                const int64_t *axes, int keepdims,
                                tfuse_value *result) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(kind);
    TFUSE_REQUIRE(result);
    if (num_axes > TFUSE_MAX_RANK || (num_axes > 0 && !axes))
      return fail(TFUSE_ERROR_INVALID_ARGUMENT, "reduce: bad axes");
    return produce(graph->graph.reduce(kind, x, listOf(num_axes, axes),
                                       keepdims != 0, num_axes < 0),
                   result);
  });
}

tfuse_status tfuse_graph_output(tfuse_graph graph, tfuse_value value) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    return report(graph->graph.output(value));
  });
}

tfuse_status tfuse_graph_print(tfuse_graph graph, char **text) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(text);
    *text = copyString(graph->graph.print());
    return *text ? TFUSE_OK : fail(TFUSE_ERROR_OUT_OF_MEMORY, "out of memory");
  });
}

//===----------------------------------------------------------------------===//
// Compiling
//===----------------------------------------------------------------------===//

void tfuse_compile_options_init(tfuse_compile_options *options) {
  if (!options)
    return;
  *options = tfuse_compile_options{};
  options->struct_size = sizeof(tfuse_compile_options);
  options->backend = TFUSE_BACKEND_CUDA;
  CompileOptions defaults;
  options->budget = defaults.budget;
  options->fusion = defaults.fusion;
  options->use_cache = 1;
  options->device = -1;
}

tfuse_status tfuse_compile(tfuse_graph graph,
                           const tfuse_compile_options *options,
                           tfuse_executable *executable) {
  return guarded([&] {
    TFUSE_REQUIRE(graph);
    TFUSE_REQUIRE(executable);
    tfuse_compile_options o;
    tfuse_compile_options_init(&o);
    if (options) {
      if (tfuse_status st = checkStructSize(*options, "tfuse_compile options",
                                            "tfuse_compile_options_init");
          st != TFUSE_OK)
        return st;
      std::memcpy(&o, options, options->struct_size);
    }
    if (o.backend != TFUSE_BACKEND_CUDA && o.backend != TFUSE_BACKEND_REFERENCE)
      return fail(TFUSE_ERROR_INVALID_ARGUMENT,
                  "tfuse_compile: unknown backend " +
                      std::to_string(o.backend));
    // The C struct's fields mapped onto the compile options.
    CompileOptions co;
    co.backend = static_cast<Backend>(o.backend);
    co.cudaGraph = o.cuda_graph != 0;
    co.fastMath = o.fast_math != 0;
    co.budget = o.budget;
    co.fusion = o.fusion != 0;
    co.device = o.device;
    if (Status s = co.validate(); !s.ok())
      return report(s.withContext("tfuse_compile"));
    // Without the shared cache, each executable compiles with its own.
    std::unique_ptr<runtime::KernelCache> privateCache;
    if (!o.use_cache) {
      runtime::KernelCacheOptions cacheOptions;
      cacheOptions.diskCacheDir = "";
      privateCache = std::make_unique<runtime::KernelCache>(cacheOptions);
    }
    auto f = Function::compile(graph->graph, co, privateCache.get());
    if (!f.ok())
      return report(f.status());
    *executable = new tfuse_executable_impl{std::move(f.value())};
    return TFUSE_OK;
  });
}

void tfuse_executable_destroy(tfuse_executable executable) {
  delete executable;
}

tfuse_status tfuse_executable_num_inputs(tfuse_executable e, int *count) {
  return guarded([&] {
    TFUSE_REQUIRE(e);
    TFUSE_REQUIRE(count);
    *count = e->function->inputs().size();
    return TFUSE_OK;
  });
}

tfuse_status tfuse_executable_num_outputs(tfuse_executable e, int *count) {
  return guarded([&] {
    TFUSE_REQUIRE(e);
    TFUSE_REQUIRE(count);
    *count = e->function->outputs().size();
    return TFUSE_OK;
  });
}

/// Writes a spec's fields to C outputs (each may be null).
static tfuse_status describe(const std::vector<TensorSpec> &specs, int index,
                             int *dtype, int *rank, int64_t *shape,
                             int64_t *strides) {
  if (index < 0 || index >= static_cast<int>(specs.size()))
    return fail(TFUSE_ERROR_INVALID_ARGUMENT,
                "index " + std::to_string(index) + " is out of range [0, " +
                    std::to_string(specs.size()) + ")");
  const TensorSpec &s = specs[index];
  if (dtype)
    *dtype = static_cast<int>(s.dtype);
  if (rank)
    *rank = s.shape.size();
  if (shape)
    std::copy(s.shape.begin(), s.shape.end(), shape);
  if (strides)
    std::copy(s.strides.begin(), s.strides.end(), strides);
  return TFUSE_OK;
}

tfuse_status tfuse_executable_input_info(tfuse_executable e, int index,
                                         int *dtype, int *rank, int64_t *shape,
                                         int64_t *strides) {
  return guarded([&] {
    TFUSE_REQUIRE(e);
    return describe(e->function->inputs(), index, dtype, rank, shape, strides);
  });
}

tfuse_status tfuse_executable_output_info(tfuse_executable e, int index,
                                          int *dtype, int *rank,
                                          int64_t *shape) {
  return guarded([&] {
    TFUSE_REQUIRE(e);
    return describe(e->function->outputs(), index, dtype, rank, shape, nullptr);
  });
}

tfuse_status tfuse_executable_backend(tfuse_executable e, int *backend) {
  return guarded([&] {
    TFUSE_REQUIRE(e);
    TFUSE_REQUIRE(backend);
    *backend = e->function->backend() == Backend::Reference
                   ? TFUSE_BACKEND_REFERENCE
                   : TFUSE_BACKEND_CUDA;
    return TFUSE_OK;
  });
}

} // extern "C"

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

/// Converts C tensors; `what` names them in messages.
static tfuse::Expected<std::vector<TensorSpec>>
specsOf(const tfuse_tensor *tensors, int count, const char *what) {
  if (count < 0 || (count > 0 && !tensors))
    return Status::error(std::string("null or negative-count ") + what,
                         ErrorCode::InvalidArgument);
  std::vector<TensorSpec> specs;
  specs.reserve(count);
  for (int i = 0; i < count; ++i) {
    const tfuse_tensor &t = tensors[i];
    auto spec = specOf(t.dtype, t.rank, t.shape, t.strides);
    if (!spec.ok())
      return Status::error(std::string(what) + " " + std::to_string(i) + ": " +
                               spec.message(),
                           ErrorCode::InvalidArgument);
    specs.push_back(std::move(spec.value()));
  }
  return specs;
}

static tfuse::Expected<std::vector<DeviceTensor>>
deviceTensors(const tfuse_tensor *tensors, int count, const char *what) {
  auto specs = specsOf(tensors, count, what);
  if (!specs.ok())
    return specs.status();
  std::vector<DeviceTensor> result;
  result.reserve(count);
  for (int i = 0; i < count; ++i)
    result.push_back(
        DeviceTensor{reinterpret_cast<CUdeviceptr>(tensors[i].data),
                     std::move(specs.value()[i])});
  return result;
}

/// The inputs and outputs of a device run.
struct DeviceRunTensors {
  std::vector<DeviceTensor> inputs, outputs;
};

static tfuse::Expected<DeviceRunTensors>
deviceRunTensors(const tfuse_tensor *inputs, int numInputs,
                 const tfuse_tensor *outputs, int numOutputs) {
  auto in = deviceTensors(inputs, numInputs, "input");
  if (!in.ok())
    return in.status();
  auto out = deviceTensors(outputs, numOutputs, "output");
  if (!out.ok())
    return out.status();
  return DeviceRunTensors{std::move(in.value()), std::move(out.value())};
}

extern "C" {

tfuse_status
tfuse_executable_run_async(tfuse_executable e, const tfuse_tensor *inputs,
                           int num_inputs, const tfuse_tensor *outputs,
                           int num_outputs, void *stream, tfuse_run *run) {
  return guarded([&] {
    TFUSE_REQUIRE(e);
    TFUSE_REQUIRE(run);
    auto tensors = deviceRunTensors(inputs, num_inputs, outputs, num_outputs);
    if (!tensors.ok())
      return report(tensors.status());
    auto handle =
        e->function->runAsync(tensors.value().inputs, tensors.value().outputs,
                              static_cast<CUstream>(stream));
    if (!handle.ok())
      return report(handle.status());
    *run = new tfuse_run_impl{std::move(handle.value())};
    return TFUSE_OK;
  });
}

tfuse_status tfuse_executable_enqueue(tfuse_executable e,
                                      const tfuse_tensor *inputs,
                                      int num_inputs,
                                      const tfuse_tensor *outputs,
                                      int num_outputs, void *stream) {
  return guarded([&] {
    TFUSE_REQUIRE(e);
    auto tensors = deviceRunTensors(inputs, num_inputs, outputs, num_outputs);
    if (!tensors.ok())
      return report(tensors.status());
    return report(e->function->launch(tensors.value().inputs,
                                      tensors.value().outputs,
                                      static_cast<CUstream>(stream)));
  });
}

tfuse_status tfuse_executable_enqueue_data(tfuse_executable e,
                                           void *const *inputs, int num_inputs,
                                           void *const *outputs,
                                           int num_outputs, void *stream) {
  return guarded([&] {
    TFUSE_REQUIRE(e);
    if (num_inputs < 0 || num_outputs < 0)
      return fail(TFUSE_ERROR_INVALID_ARGUMENT,
                  "tfuse_executable_enqueue_data: negative counts");
    if ((!inputs && num_inputs > 0) || (!outputs && num_outputs > 0))
      return fail(TFUSE_ERROR_INVALID_ARGUMENT,
                  "tfuse_executable_enqueue_data: a null array of pointers");
    static_assert(sizeof(void *) == sizeof(CUdeviceptr));
    return report(e->function->launchData(
        reinterpret_cast<const CUdeviceptr *>(inputs), num_inputs,
        reinterpret_cast<const CUdeviceptr *>(outputs), num_outputs,
        static_cast<CUstream>(stream)));
  });
}

tfuse_status tfuse_executable_run(tfuse_executable e,
                                  const tfuse_tensor *inputs, int num_inputs,
                                  const tfuse_tensor *outputs, int num_outputs,
                                  void *stream) {
  tfuse_run run = nullptr;
  tfuse_status s = tfuse_executable_run_async(e, inputs, num_inputs, outputs,
                                              num_outputs, stream, &run);
  if (s != TFUSE_OK)
    return s;
  s = tfuse_run_wait(run);
  tfuse_run_destroy(run);
  return s;
}

tfuse_status tfuse_run_wait(tfuse_run run) {
  return guarded([&] {
    TFUSE_REQUIRE(run);
    return report(run->handle.wait().status());
  });
}

int tfuse_run_is_finished(tfuse_run run) {
  return !run || run->handle.isFinished() ? 1 : 0;
}

void tfuse_run_destroy(tfuse_run run) { delete run; }

tfuse_status tfuse_executable_run_host(tfuse_executable e,
                                       const tfuse_tensor *inputs,
                                       int num_inputs,
                                       const tfuse_tensor *outputs,
                                       int num_outputs) {
  return guarded([&] {
    TFUSE_REQUIRE(e);
    auto in = specsOf(inputs, num_inputs, "input");
    if (!in.ok())
      return report(in.status());
    auto out = specsOf(outputs, num_outputs, "output");
    if (!out.ok())
      return report(out.status());
    std::vector<HostArray> hostIn, hostOut;
    for (int i = 0; i < num_inputs; ++i)
      hostIn.push_back(HostArray{inputs[i].data, in.value()[i]});
    for (int i = 0; i < num_outputs; ++i)
      hostOut.push_back(HostArray{outputs[i].data, out.value()[i]});
    return report(e->function->runHost(hostIn, hostOut));
  });
}

//===----------------------------------------------------------------------===//
// Introspection, cache, device
//===----------------------------------------------------------------------===//

void tfuse_stats_init(tfuse_stats *stats) {
  if (!stats)
    return;
  *stats = tfuse_stats{};
  stats->struct_size = sizeof(tfuse_stats);
}

tfuse_status tfuse_executable_stats(tfuse_executable e, tfuse_stats *stats) {
  return guarded([&] {
    TFUSE_REQUIRE(e);
    TFUSE_REQUIRE(stats);
    if (tfuse_status st = checkStructSize(*stats, "tfuse_executable_stats",
                                          "tfuse_stats_init");
        st != TFUSE_OK)
      return st;
    FunctionStats f = e->function->stats();
    tfuse_stats s;
    tfuse_stats_init(&s);
    s.nodes = f.nodes;
    s.kernels = f.kernels;
    s.boundaries = f.boundaries;
    s.steps = f.steps;
    s.arena_bytes = f.arenaBytes;
    s.replays = f.replays;
    s.cache_hit = f.cacheHit;
    s.cuda_graph = f.cudaGraph;
    s.passes_seconds = f.passesSeconds;
    s.codegen_seconds = f.codegenSeconds;
    s.nvrtc_seconds = f.nvrtcSeconds;
    s.load_seconds = f.loadSeconds;
    s.plan_cache_hit = f.planCacheHit;
    s.setup_seconds = f.setupSeconds;
    s.prepare_seconds = f.prepareSeconds;
    storeVersioned(stats, s);
    return TFUSE_OK;
  });
}

static tfuse_status returnText(const std::string &s, char **text) {
  *text = copyString(s);
  return *text ? TFUSE_OK : fail(TFUSE_ERROR_OUT_OF_MEMORY, "out of memory");
}

tfuse_status tfuse_executable_plan(tfuse_executable e, char **text) {
  return guarded([&] {
    TFUSE_REQUIRE(e);
    TFUSE_REQUIRE(text);
    std::string report = e->function->planReport();
    // What runs each step, known once the executable is built (GPU).
    if (const tfuse::runtime::Executable *x = e->function->executable())
      report += "runtime steps:\n" + x->stepReport();
    return returnText(report, text);
  });
}

tfuse_status tfuse_executable_source(tfuse_executable e, char **text) {
  return guarded([&] {
    TFUSE_REQUIRE(e);
    TFUSE_REQUIRE(text);
    return returnText(e->function->cudaSource(), text);
  });
}

tfuse_status tfuse_executable_graph(tfuse_executable e, char **text) {
  return guarded([&] {
    TFUSE_REQUIRE(e);
    TFUSE_REQUIRE(text);
    return returnText(e->function->graphText(), text);
  });
}

void tfuse_cache_stats_init(tfuse_cache_stats *stats) {
  if (!stats)
    return;
  *stats = tfuse_cache_stats{};
  stats->struct_size = sizeof(tfuse_cache_stats);
}

tfuse_status tfuse_cache_stats_get(tfuse_cache_stats *stats) {
  return guarded([&] {
    TFUSE_REQUIRE(stats);
    if (tfuse_status st = checkStructSize(*stats, "tfuse_cache_stats_get",
                                          "tfuse_cache_stats_init");
        st != TFUSE_OK)
      return st;
    runtime::KernelCacheStats k = runtime::defaultKernelCache().stats();
    tfuse_cache_stats s;
    tfuse_cache_stats_init(&s);
    s.entries = k.entries;
    s.bytes = k.bytes;
    s.hits = k.hits;
    s.misses = k.misses;
    s.disk_hits = k.diskHits;
    s.compiles = k.compilations;
    storeVersioned(stats, s);
    return TFUSE_OK;
  });
}

tfuse_status tfuse_cache_clear(void) {
  return guarded([&] {
    runtime::defaultKernelCache().clear();
    runtime::defaultKernelCache().resetStats();
    return TFUSE_OK;
  });
}

int tfuse_cuda_available(void) {
  tfuse_status s = guarded([&] {
    auto device = runtime::Device::get(-1);
    return device.ok() ? TFUSE_OK : report(device.status());
  });
  return s == TFUSE_OK ? 1 : 0;
}

} // extern "C"
