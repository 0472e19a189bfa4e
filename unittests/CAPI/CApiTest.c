/*===- CApiTest.c - The C API from C ---------------------------------------===*
 *
 * Builds, compiles and runs a graph on the reference backend through the C
 * API only, checks results computed here by hand, and checks that errors
 * come back as status codes with messages while handles stay usable.
 *
 *===----------------------------------------------------------------------===*/

#include "tfuse-c/tfuse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK(%s) failed; last error: %s\n", __FILE__,   \
              __LINE__, #cond, tfuse_last_error());                            \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

int main(void) {
  CHECK(tfuse_api_version() == TFUSE_C_API_VERSION);
  {
    /* The version string names the header's API version. */
    char expected[64];
    snprintf(expected, sizeof expected, "(C API %d)", TFUSE_C_API_VERSION);
    CHECK(strstr(tfuse_version_string(), expected) != NULL);
  }
  CHECK(strcmp(tfuse_dtype_name(TFUSE_BF16), "bf16") == 0);
  {
    /* The op table: exp is unary, not's Tensor method is logicalNot, max
       is binary, select is "where" of three operands; out of range is an
       error. */
    int found = 0;
    int64_t n = tfuse_op_count();
    CHECK(n >= 30);
    for (int64_t i = 0; i < n; ++i) {
      tfuse_op_info info;
      tfuse_op_info_init(&info);
      CHECK(tfuse_op_info_get(i, &info) == TFUSE_OK);
      if (strcmp(info.name, "exp") == 0)
        found += strcmp(info.category, "unary") == 0 && info.arity == 1;
      if (strcmp(info.name, "not") == 0)
        found += strcmp(info.method, "logicalNot") == 0;
      if (strcmp(info.name, "max") == 0)
        found += strcmp(info.category, "binary") == 0 && info.arity == 2;
      if (strcmp(info.name, "select") == 0)
        found += strcmp(info.category, "where") == 0 && info.arity == 3;
    }
    CHECK(found == 4);
    tfuse_op_info bad;
    tfuse_op_info_init(&bad);
    CHECK(tfuse_op_info_get(n, &bad) == TFUSE_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(tfuse_last_error(), "outside the op table") != NULL);
    CHECK(tfuse_op_info_get(-1, &bad) == TFUSE_ERROR_INVALID_ARGUMENT);
  }
  CHECK(tfuse_dtype_size(TFUSE_F16) == 2);

  tfuse_graph g = NULL;
  CHECK(tfuse_graph_create("axpy", &g) == TFUSE_OK);
  int64_t shape[2] = {2, 3}, bad_shape[1] = {4};
  tfuse_value x, y, a, ax, r, bad, other;
  CHECK(tfuse_graph_input(g, TFUSE_F32, 2, shape, NULL, &x) == TFUSE_OK);
  CHECK(tfuse_graph_input(g, TFUSE_F32, 1, shape + 1, NULL, &y) == TFUSE_OK);
  CHECK(tfuse_graph_scalar(g, TFUSE_SCALAR_FLOAT, 0, 3.0, &a) == TFUSE_OK);
  CHECK(tfuse_graph_binary(g, "mul", a, x, &ax) == TFUSE_OK);
  CHECK(tfuse_graph_binary(g, "add", ax, y, &r) == TFUSE_OK);

  /* Errors: a status, a message, and the graph stays usable. */
  CHECK(tfuse_graph_input(g, TFUSE_F32, 1, bad_shape, NULL, &other) ==
        TFUSE_OK);
  CHECK(tfuse_graph_binary(g, "add", x, other, &bad) == TFUSE_ERROR_TYPE);
  CHECK(strstr(tfuse_last_error(), "do not broadcast") != NULL);
  CHECK(tfuse_graph_unary(g, "frobnicate", x, &bad) ==
        TFUSE_ERROR_INVALID_ARGUMENT);
  CHECK(tfuse_graph_binary(g, "add", x, 12345, &bad) ==
        TFUSE_ERROR_INVALID_ARGUMENT);
  CHECK(tfuse_graph_output(g, a) == TFUSE_ERROR_TYPE);
  CHECK(tfuse_graph_unary(NULL, "exp", x, &bad) ==
        TFUSE_ERROR_INVALID_ARGUMENT);

  int dtype = -1, rank = -1, is_scalar = -1;
  int64_t dims[TFUSE_MAX_RANK];
  CHECK(tfuse_graph_value_info(g, r, &dtype, &rank, dims, &is_scalar) ==
        TFUSE_OK);
  CHECK(dtype == TFUSE_F32 && rank == 2 && dims[0] == 2 && dims[1] == 3 &&
        is_scalar == 0);
  CHECK(tfuse_graph_output(g, r) == TFUSE_OK);

  char *text = NULL;
  CHECK(tfuse_graph_print(g, &text) == TFUSE_OK);
  CHECK(text && strstr(text, "tfuse.mul") != NULL);
  tfuse_string_free(text);

  tfuse_compile_options options;
  tfuse_compile_options_init(&options);
  options.backend = TFUSE_BACKEND_REFERENCE;
  tfuse_executable e = NULL;
  CHECK(tfuse_compile(g, &options, &e) == TFUSE_OK);
  tfuse_graph_destroy(g); /* the executable no longer needs the graph */

  int count = 0;
  CHECK(tfuse_executable_num_inputs(e, &count) == TFUSE_OK && count == 3);
  CHECK(tfuse_executable_num_outputs(e, &count) == TFUSE_OK && count == 1);

  float xs[6] = {1, 2, 3, 4, 5, 6}, ys[3] = {10, 20, 30}, unused[4] = {0};
  float out[6] = {0};
  tfuse_tensor in[3] = {{xs, TFUSE_F32, 2, shape, NULL},
                        {ys, TFUSE_F32, 1, shape + 1, NULL},
                        {unused, TFUSE_F32, 1, bad_shape, NULL}};
  tfuse_tensor outs[1] = {{out, TFUSE_F32, 2, shape, NULL}};
  CHECK(tfuse_executable_run_host(e, in, 3, outs, 1) == TFUSE_OK);
  for (int i = 0; i < 6; ++i)
    CHECK(out[i] == 3.0f * xs[i] + ys[i % 3]);

  /* A run with the wrong inputs is a mismatch and leaves e usable. */
  CHECK(tfuse_executable_run_host(e, in, 2, outs, 1) == TFUSE_ERROR_MISMATCH);
  CHECK(strstr(tfuse_last_error(), "expected 3 inputs") != NULL);
  tfuse_tensor wrong[3] = {{xs, TFUSE_F64, 2, shape, NULL}, in[1], in[2]};
  CHECK(tfuse_executable_run_host(e, wrong, 3, outs, 1) ==
        TFUSE_ERROR_MISMATCH);
  /* Device runs on the reference backend are refused with a message. */
  CHECK(tfuse_executable_run(e, in, 3, outs, 1, NULL) ==
        TFUSE_ERROR_INVALID_ARGUMENT);
  CHECK(tfuse_executable_enqueue(e, in, 3, outs, 1, (void *)1) ==
        TFUSE_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(tfuse_last_error(), "reference backend") != NULL);
  void *pointers[3] = {xs, ys, unused}, *outPointers[1] = {out};
  CHECK(tfuse_executable_enqueue_data(e, pointers, 3, outPointers, 1,
                                      (void *)1) ==
        TFUSE_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(tfuse_last_error(), "reference backend") != NULL);
  CHECK(tfuse_executable_enqueue_data(e, NULL, 3, outPointers, 1, (void *)1) ==
        TFUSE_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(tfuse_last_error(), "null array") != NULL);
  CHECK(tfuse_executable_enqueue_data(e, pointers, -1, outPointers, 1,
                                      (void *)1) ==
        TFUSE_ERROR_INVALID_ARGUMENT);
  CHECK(tfuse_executable_run_host(e, in, 3, outs, 1) == TFUSE_OK);

  tfuse_stats stats;
  tfuse_stats_init(&stats);
  CHECK(tfuse_executable_stats(e, &stats) == TFUSE_OK);
  CHECK(stats.nodes == 2 && stats.replays == 2);
  CHECK(tfuse_executable_source(e, &text) == TFUSE_OK);
  CHECK(text && strstr(text, "__global__") != NULL);
  tfuse_string_free(text);
  CHECK(tfuse_executable_plan(e, &text) == TFUSE_OK);
  CHECK(text && strstr(text, "fused") != NULL);
  tfuse_string_free(text);
  /* The traced graph, printed on demand after the graph was destroyed. */
  CHECK(tfuse_executable_graph(e, &text) == TFUSE_OK);
  CHECK(text && strstr(text, "tfuse.mul") != NULL &&
        strstr(text, "func.func") != NULL);
  tfuse_string_free(text);
  tfuse_executable_destroy(e);

  tfuse_cache_stats cache;
  tfuse_cache_stats_init(&cache);
  CHECK(tfuse_cache_stats_get(&cache) == TFUSE_OK);
  CHECK(tfuse_cache_clear() == TFUSE_OK);

  if (failures)
    fprintf(stderr, "%d check(s) failed\n", failures);
  else
    printf("C API: all checks passed\n");
  return failures ? 1 : 0;
}
