/* Foehn's C ABI: FE assembly on the CPU or the GPU for programs in C, Fortran (foehn_base.F90 binds
 * this header) or any language with a C FFI. Opaque handles for meshes, operators, assemblers
 * and matrices; every call returns a foehn_status and never lets an exception or a signal out;
 * after a failure foehn_last_error() says what went wrong (which input, which size), on the
 * calling thread. PETSc hand-off and distributed meshes are in foehn_petsc.h.
 *
 *   foehn_mesh mesh;  foehn_operator op;  foehn_assembler assembler;
 *   foehn_mesh_create(nodes, xyz, tets, connectivity, 4, 1, FOEHN_ORIENTATION_FIX, &mesh);
 *   foehn_assembler_create(mesh, "auto", "fused_map", &assembler);
 *   foehn_operator_create("diffusion", &op);
 *   foehn_operator_set_field(op, "tensor", kappa, 9 * nodes);
 *   foehn_assemble_values(assembler, op, FOEHN_MEMORY_HOST, FOEHN_MEMORY_HOST, values, n, rhs, m);
 *
 * See docs/library_api.md. */
#ifndef FOEHN_FOEHN_H
#define FOEHN_FOEHN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a call returned: success, or the class of the failure (foehn::ErrorCategory). */
typedef enum foehn_status {
  FOEHN_SUCCESS = 0,
  FOEHN_ERROR_INVALID_INPUT = 1, /* bad argument, size, index, NaN, unknown name */
  FOEHN_ERROR_CUDA = 2,
  FOEHN_ERROR_PETSC = 3,
  FOEHN_ERROR_IO = 4,
  FOEHN_ERROR_OUT_OF_MEMORY = 5,
  FOEHN_ERROR_UNAVAILABLE = 6, /* e.g. the GPU backend in a build or on a machine without one */
  FOEHN_ERROR_NUMERICAL = 7,
  FOEHN_ERROR_INTERNAL = 8
} foehn_status;

typedef enum foehn_memory { FOEHN_MEMORY_HOST = 0, FOEHN_MEMORY_DEVICE = 1 } foehn_memory;

typedef enum foehn_orientation {
  FOEHN_ORIENTATION_CHECK = 0, /* an inverted tet is an error naming it */
  FOEHN_ORIENTATION_FIX = 1    /* inverted tets are flipped (two nodes swapped) */
} foehn_orientation;

typedef struct foehn_mesh_s* foehn_mesh;
typedef struct foehn_operator_s* foehn_operator;
typedef struct foehn_assembler_s* foehn_assembler;

/* The message of the last failed call on this thread ("" if none); valid until the next call. */
const char* foehn_last_error(void);
/* The same copied into buffer (NUL-terminated, truncated to size - 1 characters); returns the
 * full length. For languages that cannot hold a C pointer. */
size_t foehn_copy_last_error(char* buffer, size_t size);
/* For language bindings that check arguments themselves (the Fortran module's array shapes):
 * makes `message` the last error of this thread and returns `status`. */
foehn_status foehn_report_error(foehn_status status, const char* message);
/* Foehn's version ("0.1.0") and whether this build has the CUDA backend. */
const char* foehn_version(void);
int foehn_has_cuda(void);

/* A serial mesh from the caller's arrays: coordinates[3 * node + d]; connectivity[4 * tet + k]
 * as 4- or 8-byte integers (index_bytes), numbered from index_base (0 or 1). */
foehn_status foehn_mesh_create(int64_t node_count, const double* coordinates, int64_t tet_count,
                               const void* connectivity, int index_bytes, int index_base,
                               foehn_orientation orientation, foehn_mesh* mesh);
/* Nodes of this rank (owned first, then ghosts), owned nodes, and tets of this rank. */
foehn_status foehn_mesh_sizes(foehn_mesh mesh, int64_t* local_nodes, int64_t* owned_nodes,
                              int64_t* local_tets);
/* How many tets the orientation check flipped (FOEHN_ORIENTATION_FIX). */
foehn_status foehn_mesh_flipped_tets(foehn_mesh mesh, int64_t* flipped);
foehn_status foehn_mesh_destroy(foehn_mesh* mesh); /* sets *mesh to NULL; NULL is fine */

/* A built-in operator by name: mass, advection, diffusion, advection_diffusion, stabilisation,
 * divergence, momentum. Parameters and fields are set by the names the operator declares
 * (docs/fe_assembly.md); fields are P1 nodal arrays (scalar: 1, vector: 3, tensor: 9 values per
 * node, interleaved) in host or device memory, as told to foehn_assemble_*; the caller keeps
 * them alive until the assembly returns. A NULL pointer removes a field. */
foehn_status foehn_operator_create(const char* name, foehn_operator* op);
foehn_status foehn_operator_set_parameter(foehn_operator op, const char* name, double value);
foehn_status foehn_operator_set_field(foehn_operator op, const char* name, const double* values,
                                      int64_t count);
/* Block shape of the operator's matrix (1 x 1, 1 x 3 or 3 x 3). */
foehn_status foehn_operator_block_shape(foehn_operator op, int* block_rows, int* block_cols);
foehn_status foehn_operator_destroy(foehn_operator* op);

/* An assembler for the rank's part of `mesh` (which may be destroyed afterwards): backend "cpu",
 * "cuda" or "auto" (NULL: "auto"); strategy "staged", "fused_atomic", "fused_map",
 * "deterministic", "row_gather" or "auto" (NULL: "auto", which is "deterministic": the CPU's
 * sums, bitwise). */
foehn_status foehn_assembler_create(foehn_mesh mesh, const char* backend, const char* strategy,
                                    foehn_assembler* assembler);
/* The same with the CUDA work on a stream the caller created and owns (a cudaStream_t). */
foehn_status foehn_assembler_create_on_stream(foehn_mesh mesh, const char* backend,
                                              const char* strategy, void* cuda_stream,
                                              foehn_assembler* assembler);
/* 1 when the assembler runs on the GPU, 0 on the CPU. */
foehn_status foehn_assembler_uses_gpu(foehn_assembler assembler, int* uses_gpu);
/* The node pattern of the rank's elements: rows (local nodes), block nonzeros, and (host arrays
 * owned by the assembler, valid while it lives) CSR row offsets (rows + 1) and column indices,
 * 0-based local node numbers. Any output may be NULL. */
foehn_status foehn_assembler_pattern(foehn_assembler assembler, int64_t* rows,
                                     int64_t* block_nonzeros, const int32_t** row_offsets,
                                     const int32_t** column_indices);
/* Assembles `op` into values (block_nonzeros * R * C in block-CSR order: row-major R x C blocks)
 * and, when rhs is not NULL, rhs (local_nodes * R). fields / results: where the operator's fields
 * and the outputs are. Host results are complete on return; device results are queued on the
 * assembler's stream. */
foehn_status foehn_assemble_values(foehn_assembler assembler, foehn_operator op,
                                   foehn_memory fields, foehn_memory results, double* values,
                                   int64_t value_count, double* rhs, int64_t rhs_count);
/* Waits for the assembler's queued GPU work (no-op on the CPU). */
foehn_status foehn_assembler_synchronize(foehn_assembler assembler);
foehn_status foehn_assembler_destroy(foehn_assembler* assembler);

#ifdef __cplusplus
}
#endif

#endif /* FOEHN_FOEHN_H */
