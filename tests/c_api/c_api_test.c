/* Foehn's C ABI from C (compiled as C11, no C++ anywhere in this file): a unit cube of six
 * tets, 1-based int64 connectivity with two tets given inverted (fixed by the orientation
 * policy), assembled with the mass and diffusion operators; checked against properties that
 * hold independently of Foehn (the mass matrix sums to the volume, diffusion rows sum to zero,
 * the load vector of f = 1 sums to the volume), then every class of bad call returns its
 * status and a message naming the input, NULL handles are safe to destroy, and a destroyed
 * handle, a copy of one, or a handle of another kind is refused by name.
 * Exit 0 when every check passes; each failure is printed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foehn/foehn.h"

static int failures = 0;

#define CHECK(condition, ...)                       \
  do {                                              \
    if (!(condition)) {                             \
      ++failures;                                   \
      fprintf(stderr, "c_api_test:%d: ", __LINE__); \
      fprintf(stderr, __VA_ARGS__);                 \
      fprintf(stderr, "\n");                        \
    }                                               \
  } while (0)

#define CALL(expression)                                                                          \
  do {                                                                                            \
    foehn_status status_ = (expression);                                                          \
    if (status_ != FOEHN_SUCCESS) {                                                               \
      fprintf(stderr, "c_api_test:%d: %s failed (%d): %s\n", __LINE__, #expression, (int)status_, \
              foehn_last_error());                                                                \
      exit(1);                                                                                    \
    }                                                                                             \
  } while (0)

/* A failing call: its status and a message that contains `needle`. */
static void expect_error(foehn_status status, foehn_status expected, const char* needle, int line) {
  if (status != expected || strstr(foehn_last_error(), needle) == NULL) {
    ++failures;
    fprintf(stderr, "c_api_test:%d: expected status %d with '%s', got %d: '%s'\n", line,
            (int)expected, needle, (int)status, foehn_last_error());
  }
}
#define EXPECT_ERROR(call, expected, needle) expect_error((call), (expected), (needle), __LINE__)

int main(void) {
  /* The unit cube: corners 1..8 (1 + dx + 2 dy + 4 dz), Kuhn's six tets along 1 -> 8. */
  double xyz[8 * 3];
  for (int c = 0; c < 8; ++c) {
    xyz[3 * c + 0] = c & 1;
    xyz[3 * c + 1] = (c >> 1) & 1;
    xyz[3 * c + 2] = (c >> 2) & 1;
  }
  int64_t tets[6 * 4] = {1, 2, 4, 8, 1, 2, 6, 8, 1, 3, 4, 8, 1, 3, 7, 8, 1, 5, 6, 8, 1, 5, 7, 8};
  foehn_mesh mesh = NULL;
  EXPECT_ERROR(foehn_mesh_create(8, xyz, 6, tets, 8, 1, FOEHN_ORIENTATION_CHECK, &mesh),
               FOEHN_ERROR_INVALID_INPUT, "invert");
  CHECK(mesh == NULL, "a failed create leaves the handle NULL");
  CALL(foehn_mesh_create(8, xyz, 6, tets, 8, 1, FOEHN_ORIENTATION_FIX, &mesh));
  int64_t flipped = 0, nodes = 0, owned = 0, local_tets = 0;
  CALL(foehn_mesh_flipped_tets(mesh, &flipped));
  CHECK(flipped > 0 && flipped < 6, "some but not all of Kuhn's tets are inverted, got %lld",
        (long long)flipped);
  CALL(foehn_mesh_sizes(mesh, &nodes, &owned, &local_tets));
  CHECK(nodes == 8 && owned == 8 && local_tets == 6, "sizes %lld %lld %lld", (long long)nodes,
        (long long)owned, (long long)local_tets);

  foehn_assembler assembler = NULL;
  CALL(foehn_assembler_create(mesh, "cpu", "fused_map", &assembler));
  CALL(foehn_mesh_destroy(&mesh)); /* the assembler keeps what it needs */
  int64_t rows = 0, nonzeros = 0;
  const int32_t* offsets = NULL;
  const int32_t* columns = NULL;
  CALL(foehn_assembler_pattern(assembler, &rows, &nonzeros, &offsets, &columns));
  CHECK(rows == 8 && offsets[8] == nonzeros, "pattern of %lld rows, %lld nonzeros", (long long)rows,
        (long long)nonzeros);

  double* values = calloc((size_t)nonzeros, sizeof(double));
  double rhs[8];
  double source[8];
  for (int n = 0; n < 8; ++n) source[n] = 1.0;
  foehn_operator mass = NULL;
  CALL(foehn_operator_create("mass", &mass));
  CALL(foehn_operator_set_parameter(mass, "scale", 2.0));
  CALL(foehn_operator_set_field(mass, "source", source, 8));
  CALL(foehn_assemble_values(assembler, mass, FOEHN_MEMORY_HOST, FOEHN_MEMORY_HOST, values,
                             nonzeros, rhs, 8));
  double sum = 0.0, load = 0.0;
  for (int64_t k = 0; k < nonzeros; ++k) sum += values[k];
  for (int n = 0; n < 8; ++n) load += rhs[n];
  CHECK(fabs(sum - 2.0) < 1e-14, "2 x mass matrix sums to %.17g, expected 2 (volume 1)", sum);
  CHECK(fabs(load - 1.0) < 1e-14, "load vector of f = 1 sums to %.17g, expected 1", load);

  foehn_operator diffusion = NULL;
  CALL(foehn_operator_create("diffusion", &diffusion));
  CALL(foehn_assemble_values(assembler, diffusion, FOEHN_MEMORY_HOST, FOEHN_MEMORY_HOST, values,
                             nonzeros, NULL, 0));
  for (int64_t r = 0; r < rows; ++r) {
    double row_sum = 0.0;
    for (int32_t k = offsets[r]; k < offsets[r + 1]; ++k) row_sum += values[k];
    CHECK(fabs(row_sum) < 1e-14, "diffusion row %lld sums to %.3g", (long long)r, row_sum);
  }
  int block_rows = 0, block_cols = 0;
  foehn_operator momentum = NULL;
  CALL(foehn_operator_create("momentum", &momentum));
  CALL(foehn_operator_block_shape(momentum, &block_rows, &block_cols));
  CHECK(block_rows == 3 && block_cols == 3, "momentum blocks %d x %d", block_rows, block_cols);

  /* Bad calls: a status and a message naming what was wrong. */
  foehn_operator unknown = NULL;
  EXPECT_ERROR(foehn_operator_create("coriolis", &unknown), FOEHN_ERROR_INVALID_INPUT,
               "unknown operator 'coriolis'");
  EXPECT_ERROR(foehn_operator_set_parameter(mass, "viscosity", 1.0), FOEHN_ERROR_INVALID_INPUT,
               "no parameter 'viscosity' (scale)");
  EXPECT_ERROR(foehn_operator_set_parameter(mass, "scale", NAN), FOEHN_ERROR_INVALID_INPUT,
               "not finite");
  EXPECT_ERROR(foehn_operator_set_field(mass, "tensor", source, 8), FOEHN_ERROR_INVALID_INPUT,
               "no field 'tensor' (coefficient, source)");
  CALL(foehn_operator_set_field(mass, "source", source, 7));
  EXPECT_ERROR(foehn_assemble_values(assembler, mass, FOEHN_MEMORY_HOST, FOEHN_MEMORY_HOST, values,
                                     nonzeros, NULL, 0),
               FOEHN_ERROR_INVALID_INPUT, "field source has 7 values, expected 8");
  CALL(foehn_operator_set_field(mass, "source", NULL, 0));
  EXPECT_ERROR(foehn_assemble_values(assembler, mass, FOEHN_MEMORY_HOST, FOEHN_MEMORY_HOST, values,
                                     nonzeros - 1, NULL, 0),
               FOEHN_ERROR_INVALID_INPUT, "the matrix holds");
  EXPECT_ERROR(foehn_assemble_values(assembler, mass, (foehn_memory)7, FOEHN_MEMORY_HOST, values,
                                     nonzeros, NULL, 0),
               FOEHN_ERROR_INVALID_INPUT, "fields is 7");
  EXPECT_ERROR(foehn_assemble_values(NULL, mass, FOEHN_MEMORY_HOST, FOEHN_MEMORY_HOST, values,
                                     nonzeros, NULL, 0),
               FOEHN_ERROR_INVALID_INPUT, "assembler is NULL");
  foehn_assembler other = NULL;
  foehn_mesh broken = NULL;
  int32_t out_of_range[4] = {1, 2, 3, 9};
  EXPECT_ERROR(foehn_mesh_create(8, xyz, 1, out_of_range, 4, 1, FOEHN_ORIENTATION_FIX, &broken),
               FOEHN_ERROR_INVALID_INPUT, "corner 4 is 9, outside the nodes 1..8");
  EXPECT_ERROR(foehn_mesh_create(8, xyz, 6, tets, 2, 1, FOEHN_ORIENTATION_FIX, &broken),
               FOEHN_ERROR_INVALID_INPUT, "index_bytes is 2");
  EXPECT_ERROR(foehn_mesh_create(8, xyz, -1, tets, 8, 1, FOEHN_ORIENTATION_FIX, &broken),
               FOEHN_ERROR_INVALID_INPUT, "tet_count -1");
  xyz[4] = NAN;
  EXPECT_ERROR(foehn_mesh_create(8, xyz, 6, tets, 8, 1, FOEHN_ORIENTATION_FIX, &broken),
               FOEHN_ERROR_INVALID_INPUT, "coordinate");
  CHECK(broken == NULL, "failed creates leave the handle NULL");
  EXPECT_ERROR(foehn_assembler_create(NULL, "cpu", NULL, &other), FOEHN_ERROR_INVALID_INPUT,
               "mesh is NULL");
  CHECK(strlen(foehn_version()) > 0, "a version string");
  char truncated[8];
  const size_t length = foehn_copy_last_error(truncated, sizeof truncated);
  CHECK(length > 7 && strlen(truncated) == 7, "the message is truncated to the buffer");
  CALL(foehn_operator_destroy(&mass));
  CHECK(strcmp(foehn_last_error(), "") == 0, "a successful call clears the message");

  /* Handles are checked: one of another kind, one destroyed (through a copy: a double free
   * that once aborted in glibc), one used after its destroy (once a nonsense size). */
  foehn_operator copy = diffusion;
  CALL(foehn_operator_destroy(&diffusion));
  CHECK(diffusion == NULL, "destroy sets the handle to NULL");
  EXPECT_ERROR(foehn_operator_destroy(&copy), FOEHN_ERROR_INVALID_INPUT,
               "*op is not a live foehn_operator handle");
  EXPECT_ERROR(foehn_operator_set_parameter(copy, "scale", 1.0), FOEHN_ERROR_INVALID_INPUT,
               "op is not a live foehn_operator handle");
  EXPECT_ERROR(foehn_assembler_synchronize((foehn_assembler)momentum), FOEHN_ERROR_INVALID_INPUT,
               "assembler is a foehn_operator handle where a foehn_assembler is expected");
  EXPECT_ERROR(foehn_assemble_values((foehn_assembler)momentum, momentum, FOEHN_MEMORY_HOST,
                                     FOEHN_MEMORY_HOST, values, 1, NULL, 0),
               FOEHN_ERROR_INVALID_INPUT, "is a foehn_operator handle");
  int64_t sizes = 0;
  EXPECT_ERROR(foehn_mesh_sizes((foehn_mesh)assembler, &sizes, NULL, NULL),
               FOEHN_ERROR_INVALID_INPUT,
               "mesh is a foehn_assembler handle where a foehn_mesh is expected");

  /* Destroying NULL handles, or a handle twice through the same variable, is harmless. */
  CALL(foehn_operator_destroy(&mass));
  CALL(foehn_operator_destroy(&diffusion));
  CALL(foehn_operator_destroy(&momentum));
  CALL(foehn_operator_destroy(NULL));
  CALL(foehn_assembler_destroy(&assembler));
  CALL(foehn_assembler_destroy(&assembler));
  CALL(foehn_mesh_destroy(&mesh));
  free(values);
  if (failures)
    fprintf(stderr, "c_api_test: %d check(s) failed\n", failures);
  else
    printf("c_api_test: every check passed (Foehn %s, CUDA %d)\n", foehn_version(),
           foehn_has_cuda());
  return failures ? 1 : 0;
}
