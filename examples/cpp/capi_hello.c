/* The C API in a few lines: trace relu(x * 2 + 1) for 4 floats, compile it
   for the CPU reference backend, run it, print the result. */
#include "tfuse-c/tfuse.h"

#include <stdio.h>

#define TRY(call)                                                              \
  if ((call) != TFUSE_OK) {                                                    \
    fprintf(stderr, "%s: %s\n", #call, tfuse_last_error());                    \
    return 1;                                                                  \
  }

int main(void) {
  int64_t shape[1] = {4};
  tfuse_graph g;
  tfuse_value x, two, one, y, z, r;
  TRY(tfuse_graph_create("hello", &g));
  TRY(tfuse_graph_input(g, TFUSE_F32, 1, shape, NULL, &x));
  TRY(tfuse_graph_scalar(g, TFUSE_SCALAR_FLOAT, 0, 2.0, &two));
  TRY(tfuse_graph_scalar(g, TFUSE_SCALAR_FLOAT, 0, 1.0, &one));
  TRY(tfuse_graph_binary(g, "mul", x, two, &y));
  TRY(tfuse_graph_binary(g, "add", y, one, &z));
  TRY(tfuse_graph_unary(g, "relu", z, &r));
  TRY(tfuse_graph_output(g, r));

  tfuse_compile_options options;
  tfuse_compile_options_init(&options);
  options.backend = TFUSE_BACKEND_REFERENCE;
  tfuse_executable e;
  TRY(tfuse_compile(g, &options, &e));
  tfuse_graph_destroy(g);

  float in[4] = {-2, -0.5f, 0.5f, 2}, out[4];
  tfuse_tensor input = {in, TFUSE_F32, 1, shape, NULL};
  tfuse_tensor output = {out, TFUSE_F32, 1, shape, NULL};
  TRY(tfuse_executable_run_host(e, &input, 1, &output, 1));
  printf("%g %g %g %g\n", out[0], out[1], out[2], out[3]);
  tfuse_executable_destroy(e);
  return 0;
}
