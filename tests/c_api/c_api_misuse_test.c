/* Misuse of the C ABI's PETSc part (foehn_petsc.h) from C, one rank: every class returns its
 * status and a message naming the argument, never an abort, a crash or a hang.
 *   - before MPI_Init, after MPI_Init but before PetscInitialize, after PetscFinalize and after
 *     MPI_Finalize: FOEHN_ERROR_UNAVAILABLE (Open MPI aborted the process before);
 *   - a NULL, destroyed (a copy of it), never-made (a stack address) or wrong-kind handle;
 *   - a Mat that is not one: a Vec, NULL-page and -2 addresses (a Fortran Mat before MatCreate),
 *     readable memory with no PETSc header, a Fortran %v of 0 or -2 through foehn_matrix_create_f;
 *     an rhs that is a Mat; a Mat of another size on this rank.
 * After the refusals the same handles still assemble (the mass matrix sums to the cube's volume,
 * an independent property). Exit 0 when every check passes; each failure is printed. */
#include <math.h>
#include <mpi.h>
#include <petscmat.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "foehn/foehn_petsc.h"

static int failures = 0;

#define CHECK(condition, ...)                              \
  do {                                                     \
    if (!(condition)) {                                    \
      ++failures;                                          \
      fprintf(stderr, "c_api_misuse_test:%d: ", __LINE__); \
      fprintf(stderr, __VA_ARGS__);                        \
      fprintf(stderr, "\n");                               \
    }                                                      \
  } while (0)

#define CALL(expression)                                                                   \
  do {                                                                                     \
    foehn_status status_ = (expression);                                                   \
    if (status_ != FOEHN_SUCCESS) {                                                        \
      fprintf(stderr, "c_api_misuse_test:%d: %s failed (%d): %s\n", __LINE__, #expression, \
              (int)status_, foehn_last_error());                                           \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)

static void expect_error(foehn_status status, foehn_status expected, const char* needle, int line) {
  if (status != expected || strstr(foehn_last_error(), needle) == NULL) {
    ++failures;
    fprintf(stderr, "c_api_misuse_test:%d: expected status %d with '%s', got %d: '%s'\n", line,
            (int)expected, needle, (int)status, foehn_last_error());
  }
}
#define EXPECT_ERROR(call, expected, needle) expect_error((call), (expected), (needle), __LINE__)

int main(int argc, char** argv) {
  /* The unit cube: corners 1 + dx + 2 dy + 4 dz, Kuhn's six tets (1-based, some inverted). */
  double xyz[8 * 3];
  for (int c = 0; c < 8; ++c) {
    xyz[3 * c + 0] = c & 1;
    xyz[3 * c + 1] = (c >> 1) & 1;
    xyz[3 * c + 2] = (c >> 2) & 1;
  }
  int64_t tets[6 * 4] = {1, 2, 4, 8, 1, 2, 6, 8, 1, 3, 4, 8, 1, 3, 7, 8, 1, 5, 6, 8, 1, 5, 7, 8};
  int64_t ids[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  foehn_mesh mesh = NULL, partitioned = NULL;
  foehn_assembler assembler = NULL;
  foehn_operator mass = NULL;
  foehn_matrix matrix = NULL;
  /* Serial handles need neither MPI nor PETSc. */
  CALL(foehn_mesh_create(8, xyz, 6, tets, 8, 1, FOEHN_ORIENTATION_FIX, &mesh));
  CALL(foehn_assembler_create(mesh, "cpu", NULL, &assembler));
  CALL(foehn_operator_create("mass", &mass));

  /* Before MPI_Init. */
  EXPECT_ERROR(foehn_matrix_create(mesh, assembler, mass, NULL, &matrix), FOEHN_ERROR_UNAVAILABLE,
               "MPI_Init (or PetscInitialize) has not been called");
  CHECK(matrix == NULL, "a refused create leaves the handle NULL");
  EXPECT_ERROR(foehn_assemble_into(NULL, mass, FOEHN_MEMORY_HOST, NULL), FOEHN_ERROR_UNAVAILABLE,
               "has not been called");
  EXPECT_ERROR(foehn_mesh_create_partitioned(MPI_COMM_WORLD, 8, 8, xyz, ids, 6, tets, 8, 1,
                                             FOEHN_ORIENTATION_FIX, &partitioned),
               FOEHN_ERROR_UNAVAILABLE, "MPI is needed");
  EXPECT_ERROR(foehn_mesh_create_partitioned_f(0, 8, 8, xyz, ids, 6, tets, 8, 1,
                                               FOEHN_ORIENTATION_FIX, &partitioned),
               FOEHN_ERROR_UNAVAILABLE, "MPI is needed");
  EXPECT_ERROR(foehn_report_error_collective_f(0, FOEHN_SUCCESS, ""), FOEHN_ERROR_UNAVAILABLE,
               "MPI is needed");

  /* MPI without PETSc. */
  MPI_Init(&argc, &argv);
  EXPECT_ERROR(foehn_matrix_create(mesh, assembler, mass, NULL, &matrix), FOEHN_ERROR_UNAVAILABLE,
               "has not called PetscInitialize");
  EXPECT_ERROR(foehn_assemble_into(NULL, mass, FOEHN_MEMORY_HOST, NULL), FOEHN_ERROR_UNAVAILABLE,
               "PetscInitialize");

  if (PetscInitialize(&argc, &argv, NULL, NULL) != 0) return 1;
  /* Handles: NULL, never made, destroyed (through a copy), of another kind. */
  int not_a_handle = 0;
  EXPECT_ERROR(foehn_matrix_create(NULL, assembler, mass, NULL, &matrix), FOEHN_ERROR_INVALID_INPUT,
               "mesh is NULL");
  EXPECT_ERROR(foehn_matrix_create(mesh, assembler, mass, NULL, NULL), FOEHN_ERROR_INVALID_INPUT,
               "matrix (the output handle) is NULL");
  EXPECT_ERROR(foehn_matrix_create((foehn_mesh)&not_a_handle, assembler, mass, NULL, &matrix),
               FOEHN_ERROR_INVALID_INPUT, "mesh is not a foehn_mesh handle: never made by Foehn");
  EXPECT_ERROR(foehn_matrix_create((foehn_mesh)assembler, assembler, mass, NULL, &matrix),
               FOEHN_ERROR_INVALID_INPUT,
               "mesh is a foehn_assembler handle where a foehn_mesh is expected");
  EXPECT_ERROR(foehn_matrix_create(mesh, (foehn_assembler)mass, mass, NULL, &matrix),
               FOEHN_ERROR_INVALID_INPUT, "assembler is a foehn_operator handle");
  foehn_operator gone = NULL, gone_copy = NULL;
  CALL(foehn_operator_create("diffusion", &gone));
  gone_copy = gone;
  CALL(foehn_operator_destroy(&gone));
  /* Its address is kept as a tombstone: a new handle does not take it. */
  foehn_operator fresh = NULL;
  CALL(foehn_operator_create("diffusion", &fresh));
  CHECK(fresh != gone_copy, "a destroyed handle's address is not handed out again");
  EXPECT_ERROR(foehn_matrix_create(mesh, assembler, gone_copy, NULL, &matrix),
               FOEHN_ERROR_INVALID_INPUT, "op is not a live foehn_operator handle: destroyed");
  EXPECT_ERROR(foehn_operator_destroy(&gone_copy), FOEHN_ERROR_INVALID_INPUT, "destroyed");
  CALL(foehn_operator_destroy(&fresh));
  CHECK(matrix == NULL, "refused creates leave the handle NULL");

  /* A Mat that is not one. */
  Vec vec = NULL;
  Mat mat = NULL, small = NULL;
  CHECK(VecCreateSeq(PETSC_COMM_SELF, 8, &vec) == 0, "VecCreateSeq");
  EXPECT_ERROR(foehn_matrix_create(mesh, assembler, mass, (Mat)vec, &matrix),
               FOEHN_ERROR_INVALID_INPUT, "mat is a PETSc Vec where a Mat is expected");
  EXPECT_ERROR(foehn_matrix_create(mesh, assembler, mass, (Mat)(intptr_t)-2, &matrix),
               FOEHN_ERROR_INVALID_INPUT, "mat is not a PETSc Mat (address -2)");
  EXPECT_ERROR(foehn_matrix_create(mesh, assembler, mass, (Mat)(intptr_t)16, &matrix),
               FOEHN_ERROR_INVALID_INPUT, "mat is not a PETSc Mat (address 16)");
  double readable[16] = {0};
  EXPECT_ERROR(foehn_matrix_create(mesh, assembler, mass, (Mat)readable, &matrix),
               FOEHN_ERROR_INVALID_INPUT, "no PETSc object header");
  /* An aligned address far outside the process's mappings. */
  EXPECT_ERROR(
      foehn_matrix_create(mesh, assembler, mass, (Mat)(intptr_t)0x7ff0000000000000LL, &matrix),
      FOEHN_ERROR_INVALID_INPUT, "its address cannot be read");
  Mat fortran_never_created = (Mat)(intptr_t)-2, fortran_null = NULL;
  EXPECT_ERROR(foehn_matrix_create_f(mesh, assembler, mass, &fortran_never_created, &matrix),
               FOEHN_ERROR_INVALID_INPUT, "its %v is -2");
  EXPECT_ERROR(foehn_matrix_create_f(mesh, assembler, mass, &fortran_null, &matrix),
               FOEHN_ERROR_INVALID_INPUT, "PETSC_NULL_MAT, or a Mat never created");
  CHECK(MatCreate(PETSC_COMM_SELF, &small) == 0 && MatSetSizes(small, 7, 7, 7, 7) == 0 &&
            MatSetType(small, MATAIJ) == 0,
        "a 7 x 7 Mat");
  EXPECT_ERROR(foehn_matrix_create(mesh, assembler, mass, small, &matrix),
               FOEHN_ERROR_INVALID_INPUT, "the caller's Mat is 7 x 7 on this rank");
  CHECK(matrix == NULL, "refused creates leave the handle NULL");

  /* The same handles, right: the mass matrix of the unit cube sums to its volume. */
  CHECK(MatCreate(PETSC_COMM_SELF, &mat) == 0 && MatSetSizes(mat, 8, 8, 8, 8) == 0 &&
            MatSetType(mat, MATAIJ) == 0,
        "an 8 x 8 Mat");
  CALL(foehn_matrix_create(mesh, assembler, mass, mat, &matrix));
  /* An rhs that is not a Vec, a matrix handle that is not one. */
  EXPECT_ERROR(foehn_assemble_into(matrix, mass, FOEHN_MEMORY_HOST, (Vec)mat),
               FOEHN_ERROR_INVALID_INPUT, "rhs is a PETSc Mat where a Vec is expected");
  Vec fortran_vec_never_created = (Vec)(intptr_t)-2;
  EXPECT_ERROR(foehn_assemble_into_f(matrix, mass, FOEHN_MEMORY_HOST, &fortran_vec_never_created),
               FOEHN_ERROR_INVALID_INPUT, "rhs is not a PETSc Vec (its %v is -2)");
  EXPECT_ERROR(foehn_assemble_into((foehn_matrix)assembler, mass, FOEHN_MEMORY_HOST, NULL),
               FOEHN_ERROR_INVALID_INPUT, "matrix is a foehn_assembler handle");
  CALL(foehn_assemble_into(matrix, mass, FOEHN_MEMORY_HOST, vec));
  PetscScalar total = 0;
  Vec ones = NULL, row_sums = NULL;
  CHECK(VecDuplicate(vec, &ones) == 0 && VecDuplicate(vec, &row_sums) == 0 &&
            VecSet(ones, 1.0) == 0 && MatMult(mat, ones, row_sums) == 0 &&
            VecSum(row_sums, &total) == 0,
        "the Mat's sum");
  CHECK(fabs(total - 1.0) < 1e-14, "the mass matrix sums to %.17g, expected 1 (the volume)",
        (double)total);
  foehn_matrix matrix_copy = matrix;
  CALL(foehn_matrix_destroy(&matrix));
  EXPECT_ERROR(foehn_assemble_into(matrix_copy, mass, FOEHN_MEMORY_HOST, NULL),
               FOEHN_ERROR_INVALID_INPUT, "matrix is not a live foehn_matrix handle: destroyed");
  EXPECT_ERROR(foehn_matrix_destroy(&matrix_copy), FOEHN_ERROR_INVALID_INPUT, "destroyed");

  /* A matrix whose mesh was destroyed first (documented to outlive it): refused, not read. */
  foehn_mesh short_lived = NULL;
  foehn_assembler its_assembler = NULL;
  CALL(foehn_mesh_create(8, xyz, 6, tets, 8, 1, FOEHN_ORIENTATION_FIX, &short_lived));
  CALL(foehn_assembler_create(short_lived, "cpu", NULL, &its_assembler));
  CALL(foehn_matrix_create(short_lived, its_assembler, mass, NULL, &matrix));
  CALL(foehn_mesh_destroy(&short_lived));
  EXPECT_ERROR(foehn_assemble_into(matrix, mass, FOEHN_MEMORY_HOST, NULL),
               FOEHN_ERROR_INVALID_INPUT,
               "the matrix's mesh (destroyed before the matrix?) is not a live foehn_mesh handle");
  CALL(foehn_matrix_destroy(&matrix));
  CALL(foehn_assembler_destroy(&its_assembler));

  /* A matrix outliving PETSc: its destroy says so instead of crashing in MatDestroy. */
  CALL(foehn_matrix_create(mesh, assembler, mass, NULL, &matrix));
  VecDestroy(&ones);
  VecDestroy(&row_sums);
  VecDestroy(&vec);
  MatDestroy(&mat);
  MatDestroy(&small);
  PetscFinalize();
  foehn_matrix late = NULL;
  EXPECT_ERROR(foehn_matrix_create(mesh, assembler, mass, NULL, &late), FOEHN_ERROR_UNAVAILABLE,
               "PetscFinalize has been called");
  EXPECT_ERROR(foehn_matrix_destroy(&matrix), FOEHN_ERROR_UNAVAILABLE, "after PetscFinalize");
  CHECK(matrix == NULL, "the destroyed handle is NULL");
  MPI_Finalize();
  EXPECT_ERROR(foehn_matrix_create(mesh, assembler, mass, NULL, &late), FOEHN_ERROR_UNAVAILABLE,
               "MPI_Finalize has been called");
  EXPECT_ERROR(foehn_report_error_collective_f(0, FOEHN_SUCCESS, ""), FOEHN_ERROR_UNAVAILABLE,
               "MPI_Finalize");

  CALL(foehn_operator_destroy(&mass));
  CALL(foehn_assembler_destroy(&assembler));
  CALL(foehn_mesh_destroy(&mesh));
  if (failures)
    fprintf(stderr, "c_api_misuse_test: %d check(s) failed\n", failures);
  else
    printf("c_api_misuse_test: every check passed\n");
  return failures ? 1 : 0;
}
