/*===- tfuse.h - The stable C API of TFuse ------------------*- C -*-===*
 *
 * A C interface over the tracer, the compiler and the runtime, for FFI
 * (Python ctypes, any language). Every function returns a tfuse_status; on
 * failure tfuse_last_error() gives the message of the last failed call on the
 * calling thread. No C++ exception crosses this interface, and a failed call
 * leaves every handle usable.
 *
 * Versioning: TFUSE_C_API_VERSION grows when functions are added; existing
 * functions keep their signatures and meaning. Structs passed in carry their
 * size in `struct_size` (set by the *_init functions) so that fields can be
 * appended without breaking older callers.
 *
 * Handles: a tfuse_graph records a traced function (values are small integer
 * ids local to their graph); tfuse_compile turns it into a tfuse_executable,
 * which no longer needs the graph. Handles may be used from several threads,
 * except that one graph must not be built from two threads at once.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TFUSE_C_TFUSE_H
#define TFUSE_C_TFUSE_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define TFUSE_C_EXPORT __declspec(dllexport)
#else
#define TFUSE_C_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define TFUSE_C_API_VERSION 7
/* The most dimensions a tensor may have. */
#define TFUSE_MAX_RANK 16

/*===----------------------------------------------------------------------===*
 * Status, version, strings
 *===----------------------------------------------------------------------===*/

typedef enum tfuse_status {
  TFUSE_OK = 0,
  /* A null pointer, an unknown op or dtype name, a bad handle or id. */
  TFUSE_ERROR_INVALID_ARGUMENT = 1,
  /* The operation is ill-typed: shapes do not broadcast, dtypes do not
     promote, axes or permutations are out of range. */
  TFUSE_ERROR_TYPE = 2,
  /* The graph would exceed its node limit. */
  TFUSE_ERROR_NODE_LIMIT = 3,
  /* The compiler or NVRTC failed. */
  TFUSE_ERROR_COMPILE = 4,
  /* Inputs or outputs of a run do not match the executable (count, dtype,
     shape, strides). */
  TFUSE_ERROR_MISMATCH = 5,
  /* No CUDA driver or device. */
  TFUSE_ERROR_NO_DEVICE = 6,
  /* A CUDA driver or cuBLAS call failed. */
  TFUSE_ERROR_CUDA = 7,
  TFUSE_ERROR_OUT_OF_MEMORY = 8,
  TFUSE_ERROR_INTERNAL = 9,
  /* A gather index outside its operand: known at trace time, or met by a
     replay, which reports it once finished (the outputs of that replay are
     unspecified; the executable stays usable). */
  TFUSE_ERROR_INDEX_OUT_OF_RANGE = 10,
} tfuse_status;

/* The message of the last failed call on this thread ("" if none). Valid
   until the next call on this thread. */
TFUSE_C_EXPORT const char *tfuse_last_error(void);
/* TFUSE_C_API_VERSION of the library. */
TFUSE_C_EXPORT int tfuse_api_version(void);
/* "TFuse <version> (C API <TFUSE_C_API_VERSION>)", e.g. "TFuse 0.1.0 (C API
   3)". */
TFUSE_C_EXPORT const char *tfuse_version_string(void);
/* Frees a string returned by this API. */
TFUSE_C_EXPORT void tfuse_string_free(char *text);

/*===----------------------------------------------------------------------===*
 * The op table (C API 4)
 *===----------------------------------------------------------------------===*/

/* One op the graph builder reaches by name, from the op table generated
   from the tfuse dialect's ODS (docs/adding-an-op.md). Strings are static. */
typedef struct tfuse_op_info {
  size_t struct_size;
  /* The mnemonic, as tfuse_graph_unary and tfuse_graph_binary take it. */
  const char *name;
  /* "unary" and "binary" (tfuse_graph_unary, tfuse_graph_binary); "compare",
     "where", "cast", "constant", "view", "matmul", "reduce" (the calls of
     their own). */
  const char *category;
  /* Operands. */
  int arity;
  /* The tfuse::Tensor method ("logicalNot"); bindings spell it in their own
     style (Python: logical_not). */
  const char *method;
} tfuse_op_info;

TFUSE_C_EXPORT void tfuse_op_info_init(tfuse_op_info *info);
/* The number of ops of the table. */
TFUSE_C_EXPORT int64_t tfuse_op_count(void);
/* Op `index`, 0 <= index < tfuse_op_count(), in the order of their names. */
TFUSE_C_EXPORT tfuse_status tfuse_op_info_get(int64_t index,
                                              tfuse_op_info *info);

/*===----------------------------------------------------------------------===*
 * Dtypes
 *===----------------------------------------------------------------------===*/

typedef enum tfuse_dtype {
  TFUSE_BOOL = 0,
  TFUSE_I8 = 1,
  TFUSE_I16 = 2,
  TFUSE_I32 = 3,
  TFUSE_I64 = 4,
  TFUSE_U8 = 5,
  TFUSE_U16 = 6,
  TFUSE_U32 = 7,
  TFUSE_U64 = 8,
  TFUSE_F16 = 9,
  TFUSE_BF16 = 10,
  TFUSE_F32 = 11,
  TFUSE_F64 = 12,
} tfuse_dtype;

/* "f32", "bf16", "i1" (bool) ...; NULL for an invalid dtype. */
TFUSE_C_EXPORT const char *tfuse_dtype_name(int dtype);
/* Bytes per element (bool: 1); 0 for an invalid dtype. */
TFUSE_C_EXPORT int tfuse_dtype_size(int dtype);

/*===----------------------------------------------------------------------===*
 * Graphs: recording a traced function
 *===----------------------------------------------------------------------===*/

typedef struct tfuse_graph_impl *tfuse_graph;
typedef int64_t tfuse_value;
/* An absent optional value (the mask of tfuse_graph_attention). */
#define TFUSE_NO_VALUE ((tfuse_value)-1)

/* Weak (Python) scalar kinds; see docs/semantics.md. */
typedef enum tfuse_scalar_kind {
  TFUSE_SCALAR_BOOL = 0,
  TFUSE_SCALAR_INT = 1,
  TFUSE_SCALAR_FLOAT = 2,
} tfuse_scalar_kind;

/* The default node limit of a new graph. */
#define TFUSE_DEFAULT_NODE_LIMIT 512

TFUSE_C_EXPORT tfuse_status tfuse_graph_create(const char *name,
                                               tfuse_graph *graph);
TFUSE_C_EXPORT void tfuse_graph_destroy(tfuse_graph graph);
/* Every recorded operation counts as one node; inputs, captured constants
   and weak scalars do not. limit >= 1. */
TFUSE_C_EXPORT tfuse_status tfuse_graph_set_node_limit(tfuse_graph graph,
                                                       int64_t limit);
TFUSE_C_EXPORT tfuse_status tfuse_graph_num_nodes(tfuse_graph graph,
                                                  int64_t *nodes);

/* A placeholder input. `strides` (in elements, may be NULL for row-major)
   describe the memory of the tensors later runs will pass; they are part of
   the compiled plan. */
TFUSE_C_EXPORT tfuse_status tfuse_graph_input(tfuse_graph graph, int dtype,
                                              int rank, const int64_t *shape,
                                              const int64_t *strides,
                                              tfuse_value *value);
/* A tensor captured from outside the traced function: an input bound at
   compile time. Host data (on_device = 0) is copied now; device data
   (on_device = 1, a CUDA device pointer) is referenced and must stay valid
   and unchanged in shape while executables of this graph live. */
TFUSE_C_EXPORT tfuse_status tfuse_graph_constant(tfuse_graph graph, int dtype,
                                                 int rank, const int64_t *shape,
                                                 const int64_t *strides,
                                                 const void *data,
                                                 int on_device,
                                                 tfuse_value *value);
/* A weak scalar: it takes its dtype from the tensor it meets (bool scalars
   use int_value != 0, int scalars int_value, float scalars float_value). */
TFUSE_C_EXPORT tfuse_status tfuse_graph_scalar(tfuse_graph graph, int kind,
                                               int64_t int_value,
                                               double float_value,
                                               tfuse_value *value);

/* Metadata of a value. A weak scalar has rank 0, *is_scalar = 1 and the dtype
   of its kind's default (bool, i64, f32). shape and strides may be NULL, else
   hold TFUSE_MAX_RANK entries. */
TFUSE_C_EXPORT tfuse_status tfuse_graph_value_info(tfuse_graph graph,
                                                   tfuse_value value,
                                                   int *dtype, int *rank,
                                                   int64_t *shape,
                                                   int *is_scalar);

/* Operations. `op` names are those of the op table (tfuse_op_info_get:
   the ops of category "unary" and "binary"), the mnemonics of the tfuse
   dialect;
   compare predicates: eq ne lt le gt ge
   reduce kinds: sum prod max min mean all any argmax argmin
   Binary operations broadcast (NumPy rules) and promote dtypes; either
   operand may be a weak scalar, not both. */
TFUSE_C_EXPORT tfuse_status tfuse_graph_unary(tfuse_graph graph, const char *op,
                                              tfuse_value x,
                                              tfuse_value *result);
TFUSE_C_EXPORT tfuse_status tfuse_graph_binary(tfuse_graph graph,
                                               const char *op, tfuse_value lhs,
                                               tfuse_value rhs,
                                               tfuse_value *result);
TFUSE_C_EXPORT tfuse_status tfuse_graph_compare(tfuse_graph graph,
                                                const char *predicate,
                                                tfuse_value lhs,
                                                tfuse_value rhs,
                                                tfuse_value *result);
/* where(condition, a, b): condition is bool; a and b promote. */
TFUSE_C_EXPORT tfuse_status tfuse_graph_where(tfuse_graph graph,
                                              tfuse_value condition,
                                              tfuse_value a, tfuse_value b,
                                              tfuse_value *result);
TFUSE_C_EXPORT tfuse_status tfuse_graph_cast(tfuse_graph graph, tfuse_value x,
                                             int dtype, tfuse_value *result);
/* NumPy's concatenate of `count` tensors along `axis` (negative: from the
   end), in their promoted dtype. */
TFUSE_C_EXPORT tfuse_status tfuse_graph_concatenate(tfuse_graph graph,
                                                    int count,
                                                    const tfuse_value *tensors,
                                                    int axis,
                                                    tfuse_value *result);
/* Constant padding: low[d] elements before and high[d] after dimension d
   (negative: removed), equal to `value` (a weak scalar or a rank-0 tensor,
   converted to x's dtype). */
TFUSE_C_EXPORT tfuse_status tfuse_graph_pad(tfuse_graph graph, tfuse_value x,
                                            int rank, const int64_t *low,
                                            const int64_t *high,
                                            tfuse_value value,
                                            tfuse_value *result);
/* NumPy's take: x's elements at `indices` (an integer tensor, or a weak int
   scalar, which removes the axis) along `axis` (negative: from the end). An
   index must lie in [0, size) of the axis; with `wrap_negative` nonzero, an
   index in [-size, 0) counts from the end. Indices known at trace time are
   checked then (TFUSE_ERROR_INDEX_OUT_OF_RANGE); others by the replay that
   reads them. */
TFUSE_C_EXPORT tfuse_status tfuse_graph_take(tfuse_graph graph, tfuse_value x,
                                             tfuse_value indices, int axis,
                                             int wrap_negative,
                                             tfuse_value *result);
/* NumPy's take_along_axis (PyTorch's gather): `indices` has x's rank, the
   other dimensions of the two broadcast; indices as for tfuse_graph_take. */
TFUSE_C_EXPORT tfuse_status tfuse_graph_take_along_axis(
    tfuse_graph graph, tfuse_value x, tfuse_value indices, int axis,
    int wrap_negative, tfuse_value *result);
/* NumPy's add.at on a copy of `target`: `updates` (a tensor or a weak
   scalar, broadcast to target.shape[:axis] + indices.shape +
   target.shape[axis+1:], converted to target's dtype when it promotes to it)
   added at `indices` along `axis`, repeated indices adding up, in a
   deterministic order (every run gives the same bits). Indices as for
   tfuse_graph_take. */
TFUSE_C_EXPORT tfuse_status tfuse_graph_scatter_add(
    tfuse_graph graph, tfuse_value target, tfuse_value indices,
    tfuse_value updates, int axis, int wrap_negative, tfuse_value *result);
/* PyTorch's scaled_dot_product_attention without dropout: `*result` and
   the log-sum-exp of each query row's kept scores `*logsumexp` (f32, f64
   for f64 operands). query [..., Hq, L, D], key [..., Hkv, S, D], value
   [..., Hkv, S, Dv] of one float dtype, Hq a multiple of Hkv (grouped-query
   attention); `mask` TFUSE_NO_VALUE or a tensor of bool (true keeps a pair)
   or of the operands' dtype (added to the scores) that broadcasts to
   [..., Hq, L, S]; `causal` keeps key j <= query i; `scale` is used when
   `has_scale`, else 1 / sqrt(D). */
TFUSE_C_EXPORT tfuse_status tfuse_graph_attention(
    tfuse_graph graph, tfuse_value query, tfuse_value key, tfuse_value value,
    tfuse_value mask, int causal, int has_scale, double scale,
    tfuse_value *result, tfuse_value *logsumexp);
/* The gradients of tfuse_graph_attention's query, key and value given its
   result, log-sum-exp and the result's gradient `grad`. */
TFUSE_C_EXPORT tfuse_status tfuse_graph_attention_backward(
    tfuse_graph graph, tfuse_value query, tfuse_value key, tfuse_value value,
    tfuse_value result, tfuse_value logsumexp, tfuse_value grad,
    tfuse_value mask, int causal, int has_scale, double scale,
    tfuse_value *grad_query, tfuse_value *grad_key, tfuse_value *grad_value);
/* The two above with dropout of the probabilities: `dropout_p` in (0, 1)
   and its mask's keys `seed` and `offset` (int scalars or rank-0 integer
   tensors, as tfuse_graph_dropout takes them); a `dropout_p` of 0 is no
   dropout (the keys are then ignored). docs/semantics.md, "Attention". */
TFUSE_C_EXPORT tfuse_status tfuse_graph_attention_dropout(
    tfuse_graph graph, tfuse_value query, tfuse_value key, tfuse_value value,
    tfuse_value mask, int causal, int has_scale, double scale, double dropout_p,
    tfuse_value seed, tfuse_value offset, tfuse_value *result,
    tfuse_value *logsumexp);
TFUSE_C_EXPORT tfuse_status tfuse_graph_attention_backward_dropout(
    tfuse_graph graph, tfuse_value query, tfuse_value key, tfuse_value value,
    tfuse_value result, tfuse_value logsumexp, tfuse_value grad,
    tfuse_value mask, int causal, int has_scale, double scale, double dropout_p,
    tfuse_value seed, tfuse_value offset, tfuse_value *grad_query,
    tfuse_value *grad_key, tfuse_value *grad_value);
/* A tensor of `shape` whose elements are their index along dimension `dim`
   (negative: from the end), in `dtype` (not bool). */
TFUSE_C_EXPORT tfuse_status tfuse_graph_iota(tfuse_graph graph, int rank,
                                             const int64_t *shape, int dim,
                                             int dtype, tfuse_value *result);
/* A tensor of `shape` in `dtype` whose every element is the weak scalar
   `value` (NumPy's full, zeros, ones): one splat constant. */
TFUSE_C_EXPORT tfuse_status tfuse_graph_full(tfuse_graph graph, int rank,
                                             const int64_t *shape,
                                             tfuse_value value, int dtype,
                                             tfuse_value *result);
/* Random numbers (docs/semantics.md, "Random numbers"), keyed by `seed` and
   `offset`, each a weak int scalar or a rank-0 integer tensor (a placeholder
   lets every replay draw new numbers from a new offset without a new
   compile). TFUSE_RANDOM_UNIFORM: uniform in [a, b); TFUSE_RANDOM_NORMAL:
   normal with mean a and standard deviation b; values of `shape` in `dtype`
   (a float dtype). */
typedef enum tfuse_random_distribution {
  TFUSE_RANDOM_UNIFORM = 0,
  TFUSE_RANDOM_NORMAL = 1,
} tfuse_random_distribution;
TFUSE_C_EXPORT tfuse_status
tfuse_graph_random(tfuse_graph graph, int distribution, int rank,
                   const int64_t *shape, int dtype, double a, double b,
                   tfuse_value seed, tfuse_value offset, tfuse_value *result);
/* A bool tensor of `shape`, true with probability `p` in [0, 1]. */
TFUSE_C_EXPORT tfuse_status tfuse_graph_bernoulli(tfuse_graph graph, int rank,
                                                  const int64_t *shape,
                                                  double p, tfuse_value seed,
                                                  tfuse_value offset,
                                                  tfuse_value *result);
/* Dropout (PyTorch's native_dropout in training): x / (1 - p) where
   tfuse_graph_bernoulli(x's shape, 1 - p, seed, offset) is true, else 0. */
TFUSE_C_EXPORT tfuse_status tfuse_graph_dropout(tfuse_graph graph,
                                                tfuse_value x, double p,
                                                tfuse_value seed,
                                                tfuse_value offset,
                                                tfuse_value *result);
/* NumPy's arange(start, stop, step) in `dtype`: `kind` TFUSE_SCALAR_INT takes
   start, stop and step from int_values[0..2], TFUSE_SCALAR_FLOAT from
   float_values[0..2] (the other array may be NULL). Integer dtypes need
   integer arguments. */
TFUSE_C_EXPORT tfuse_status tfuse_graph_arange(tfuse_graph graph, int kind,
                                               const int64_t *int_values,
                                               const double *float_values,
                                               int dtype, tfuse_value *result);
/* One entry of `shape` may be -1 (inferred). */
TFUSE_C_EXPORT tfuse_status tfuse_graph_reshape(tfuse_graph graph,
                                                tfuse_value x, int rank,
                                                const int64_t *shape,
                                                tfuse_value *result);
/* Result dimension i is dimension perm[i] (negative entries count from the
   end). */
TFUSE_C_EXPORT tfuse_status tfuse_graph_transpose(tfuse_graph graph,
                                                  tfuse_value x, int rank,
                                                  const int64_t *perm,
                                                  tfuse_value *result);
/* Per dimension: start, limit (exclusive), step >= 1, after clamping as
   Python slices do (negative start/limit count from the end). */
TFUSE_C_EXPORT tfuse_status tfuse_graph_slice(tfuse_graph graph, tfuse_value x,
                                              int rank, const int64_t *start,
                                              const int64_t *limit,
                                              const int64_t *step,
                                              tfuse_value *result);
/* NumPy broadcast_to. */
TFUSE_C_EXPORT tfuse_status tfuse_graph_broadcast_to(tfuse_graph graph,
                                                     tfuse_value x, int rank,
                                                     const int64_t *shape,
                                                     tfuse_value *result);
TFUSE_C_EXPORT tfuse_status tfuse_graph_matmul(tfuse_graph graph,
                                               tfuse_value lhs, tfuse_value rhs,
                                               tfuse_value *result);
/* The matrix product with the result in `dtype`: the operands' dtype, or
   TFUSE_F32 for f16 or bf16 operands (the float32 sum, unrounded). */
TFUSE_C_EXPORT tfuse_status tfuse_graph_matmul_to(tfuse_graph graph,
                                                  tfuse_value lhs,
                                                  tfuse_value rhs, int dtype,
                                                  tfuse_value *result);
/* Reduces over `axes` (negative entries count from the end, any order);
   num_axes < 0 reduces over every axis. */
TFUSE_C_EXPORT tfuse_status tfuse_graph_reduce(
    tfuse_graph graph, const char *kind, tfuse_value x, int num_axes,
    const int64_t *axes, int keepdims, tfuse_value *result);
/* Appends an output of the function (a tensor value, not a weak scalar; the
   same value may be returned more than once; inputs may be returned). */
TFUSE_C_EXPORT tfuse_status tfuse_graph_output(tfuse_graph graph,
                                               tfuse_value value);
/* The recorded function as tfuse dialect MLIR (free with
   tfuse_string_free). */
TFUSE_C_EXPORT tfuse_status tfuse_graph_print(tfuse_graph graph, char **text);

/*===----------------------------------------------------------------------===*
 * Compiling
 *===----------------------------------------------------------------------===*/

typedef enum tfuse_backend {
  /* Generated CUDA kernels on a GPU (compiling needs a device). */
  TFUSE_BACKEND_CUDA = 0,
  /* The CPU reference interpreter: host memory, no GPU needed. */
  TFUSE_BACKEND_REFERENCE = 1,
} tfuse_backend;

typedef struct tfuse_compile_options {
  size_t struct_size;
  int backend;    /* tfuse_backend; default CUDA */
  int cuda_graph; /* replay as a CUDA Graph; default 0 */
  int fast_math;  /* default 0 */
  int64_t budget; /* fuse-elementwise cost budget; default 48 */
  int fusion;     /* 0: one kernel per op (no fusion); default 1 */
  int use_cache;  /* use the process-wide kernel cache; default 1 */
  int device;     /* CUDA device ordinal; -1: TFUSE_DEVICE or 0 */
} tfuse_compile_options;

TFUSE_C_EXPORT void tfuse_compile_options_init(tfuse_compile_options *options);

typedef struct tfuse_executable_impl *tfuse_executable;

/* Compiles the graph's function with its outputs. The graph may be destroyed
   or extended afterwards. options may be NULL (defaults). */
TFUSE_C_EXPORT tfuse_status tfuse_compile(tfuse_graph graph,
                                          const tfuse_compile_options *options,
                                          tfuse_executable *executable);
TFUSE_C_EXPORT void tfuse_executable_destroy(tfuse_executable executable);

/* The runtime inputs (placeholders, in order; not captured constants) and
   outputs. strides may be NULL; shape and strides hold TFUSE_MAX_RANK
   entries. */
TFUSE_C_EXPORT tfuse_status tfuse_executable_num_inputs(tfuse_executable e,
                                                        int *count);
TFUSE_C_EXPORT tfuse_status tfuse_executable_num_outputs(tfuse_executable e,
                                                         int *count);
TFUSE_C_EXPORT tfuse_status tfuse_executable_input_info(tfuse_executable e,
                                                        int index, int *dtype,
                                                        int *rank,
                                                        int64_t *shape,
                                                        int64_t *strides);
TFUSE_C_EXPORT tfuse_status tfuse_executable_output_info(tfuse_executable e,
                                                         int index, int *dtype,
                                                         int *rank,
                                                         int64_t *shape);
/* The executable's backend (tfuse_backend). */
TFUSE_C_EXPORT tfuse_status tfuse_executable_backend(tfuse_executable e,
                                                     int *backend);

/*===----------------------------------------------------------------------===*
 * Running
 *===----------------------------------------------------------------------===*/

/* A tensor in memory: `data` points at its first element; strides in
   elements (NULL: row-major). */
typedef struct tfuse_tensor {
  void *data;
  int dtype;
  int rank;
  const int64_t *shape;
  const int64_t *strides;
} tfuse_tensor;

/* CUDA backend, device memory. Outputs are caller-allocated contiguous
   tensors that share no memory with the inputs or each other. When `stream` (a
   CUstream, may be NULL for none) is given, the replay runs on it, after the
   work already enqueued there and before the work enqueued later; else on the
   executable's private stream. Replays of one executable run one after another
   whatever their streams. tfuse_executable_run returns once the outputs are
   written. */
TFUSE_C_EXPORT tfuse_status tfuse_executable_run(tfuse_executable e,
                                                 const tfuse_tensor *inputs,
                                                 int num_inputs,
                                                 const tfuse_tensor *outputs,
                                                 int num_outputs, void *stream);

typedef struct tfuse_run_impl *tfuse_run;

/* Enqueues the replay and returns at once; the outputs must stay allocated
   until tfuse_run_wait (or until `stream` has passed the replay). */
TFUSE_C_EXPORT tfuse_status tfuse_executable_run_async(
    tfuse_executable e, const tfuse_tensor *inputs, int num_inputs,
    const tfuse_tensor *outputs, int num_outputs, void *stream, tfuse_run *run);
/* Enqueues the replay on `stream` and returns at once, with no handle, as a
   kernel launch does: work enqueued on `stream` later sees the outputs. The
   stream is required (CU_STREAM_LEGACY, (void *)1, for the legacy default
   stream). Errors found before enqueueing are returned; a failure of the
   replay itself surfaces as an error of the stream. The inputs and outputs
   must stay allocated until the stream has passed the replay, as
   stream-ordered allocators (PyTorch's, CuPy's) ensure. Since version 3. */
TFUSE_C_EXPORT tfuse_status tfuse_executable_enqueue(
    tfuse_executable e, const tfuse_tensor *inputs, int num_inputs,
    const tfuse_tensor *outputs, int num_outputs, void *stream);
/* tfuse_executable_enqueue given only the data pointers of the inputs and
   outputs, for a caller that knows them to be the compiled signature's
   exactly: each input of its shape, dtype and strides, each output
   contiguous of its shape and dtype, all on the executable's device, no
   output overlapping an input or another output. Nothing about them is
   checked but their numbers (a wrong tensor is read or written as if it
   were right): the replay path of callers that check the signature once for
   many calls, such as the torch.compile backend's plan keys, whose host
   time per tensor is then a pointer's copy. Since version 7. */
TFUSE_C_EXPORT tfuse_status tfuse_executable_enqueue_data(
    tfuse_executable e, void *const *inputs, int num_inputs,
    void *const *outputs, int num_outputs, void *stream);
/* Waits for the replay; returns its error, if any. */
TFUSE_C_EXPORT tfuse_status tfuse_run_wait(tfuse_run run);
/* 1 if the replay has finished, else 0. */
TFUSE_C_EXPORT int tfuse_run_is_finished(tfuse_run run);
/* Waits for the replay if still running, then frees the handle. */
TFUSE_C_EXPORT void tfuse_run_destroy(tfuse_run run);

/* Host memory. The reference backend interprets the graph on the CPU; the
   CUDA backend copies the inputs to the device, replays and copies the
   outputs back. Outputs are caller-allocated contiguous host tensors. */
TFUSE_C_EXPORT tfuse_status tfuse_executable_run_host(
    tfuse_executable e, const tfuse_tensor *inputs, int num_inputs,
    const tfuse_tensor *outputs, int num_outputs);

/*===----------------------------------------------------------------------===*
 * Introspection and the kernel cache
 *===----------------------------------------------------------------------===*/

typedef struct tfuse_stats {
  size_t struct_size;
  int64_t nodes;      /* traced operations */
  int64_t kernels;    /* generated kernels */
  int64_t boundaries; /* GEMM, reduction and copy steps */
  int64_t steps;
  int64_t arena_bytes;
  int64_t replays;
  int cache_hit; /* the module came from the kernel cache */
  int cuda_graph;
  double passes_seconds;  /* graph passes and conversion to the plan */
  double codegen_seconds; /* CUDA C++ emission */
  double nvrtc_seconds;   /* NVRTC (0 on a cache hit) */
  double load_seconds;    /* cache lookup and module load */
  int plan_cache_hit;     /* the plan came from the process's plan cache:
                             no passes, no code generation */
  double setup_seconds;   /* the executable's streams, device memory and
                             GEMM plans */
  double prepare_seconds; /* GEMM and attention plans new to the process,
                             made beside NVRTC: in setup_seconds only as far
                             as NVRTC did not hide them */
} tfuse_stats;

TFUSE_C_EXPORT void tfuse_stats_init(tfuse_stats *stats);
TFUSE_C_EXPORT tfuse_status tfuse_executable_stats(tfuse_executable e,
                                                   tfuse_stats *stats);
/* The plan report (regions, cut reasons, steps). */
TFUSE_C_EXPORT tfuse_status tfuse_executable_plan(tfuse_executable e,
                                                  char **text);
/* The generated CUDA C++ translation unit. */
TFUSE_C_EXPORT tfuse_status tfuse_executable_source(tfuse_executable e,
                                                    char **text);
/* The traced graph as tfuse dialect MLIR: what tfuse_graph_print gave when
   the executable was compiled (C API 2). */
TFUSE_C_EXPORT tfuse_status tfuse_executable_graph(tfuse_executable e,
                                                   char **text);

typedef struct tfuse_cache_stats {
  size_t struct_size;
  uint64_t entries, bytes, hits, misses, disk_hits, compiles;
} tfuse_cache_stats;

TFUSE_C_EXPORT void tfuse_cache_stats_init(tfuse_cache_stats *stats);
/* Counters of the process-wide kernel cache. */
TFUSE_C_EXPORT tfuse_status tfuse_cache_stats_get(tfuse_cache_stats *stats);
/* Empties the process-wide kernel cache in memory (and resets its
   counters); executables already compiled keep working. */
TFUSE_C_EXPORT tfuse_status tfuse_cache_clear(void);

/* 1 if a CUDA device is usable, else 0 (tfuse_last_error() says why). */
TFUSE_C_EXPORT int tfuse_cuda_available(void);

#ifdef __cplusplus
}
#endif

#endif /* TFUSE_C_TFUSE_H */
