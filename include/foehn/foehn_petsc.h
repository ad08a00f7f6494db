/* Foehn's C ABI, PETSc part: meshes from the caller's own partition (no rank holds the whole
 * mesh) and assembled operators handed to a PETSc Mat and Vec the caller passes (or one Foehn
 * makes). The caller initialises MPI and PETSc; Foehn never calls PetscInitialize. Before
 * MPI_Init or PetscInitialize (or after MPI_Finalize or PetscFinalize) the calls that need them
 * return FOEHN_ERROR_UNAVAILABLE without calling MPI. From Fortran, pass a PETSc object's
 * address as its %v component (foehn.F90 does this). A Mat or Vec argument that is not a live
 * PETSc object of that class (a Vec as the Mat, a Fortran Mat never created) is
 * FOEHN_ERROR_INVALID_INPUT, as are NULL, destroyed and wrong-kind handles; in a collective
 * call on every rank (docs/c_fortran_reference.md, "Misuse", says what each misuse returns).
 * See docs/library_api.md. */
#ifndef FOEHN_FOEHN_PETSC_H
#define FOEHN_FOEHN_PETSC_H

#include <mpi.h>
#include <petscmat.h>

#include "foehn/foehn.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct foehn_matrix_s* foehn_matrix;

/* This rank's part of a partitioned mesh: local_node_count nodes (coordinates[3 * node + d]),
 * the first owned_node_count of them owned here (owned first, then halo), node_ids the caller's
 * global id of every local node (any values, each owned by exactly one rank), and this rank's
 * tets on local node numbers (4 per tet, index_bytes 4 or 8, from index_base 0 or 1). Collective:
 * a defect found on any rank is reported on every rank. Fields given to operators later are in
 * this caller's local node order. */
foehn_status foehn_mesh_create_partitioned(MPI_Comm comm, int64_t local_node_count,
                                           int64_t owned_node_count, const double* coordinates,
                                           const int64_t* node_ids, int64_t tet_count,
                                           const void* connectivity, int index_bytes,
                                           int index_base, foehn_orientation orientation,
                                           foehn_mesh* mesh);
/* The same with a Fortran communicator (MPI_Comm_c2f). */
foehn_status foehn_mesh_create_partitioned_f(MPI_Fint comm, int64_t local_node_count,
                                             int64_t owned_node_count, const double* coordinates,
                                             const int64_t* node_ids, int64_t tet_count,
                                             const void* connectivity, int index_bytes,
                                             int index_base, foehn_orientation orientation,
                                             foehn_mesh* mesh);
/* For language bindings, before a collective call: every rank of comm (a Fortran communicator)
 * passes its own verdict on its arguments (status FOEHN_SUCCESS, or an error and its message);
 * every rank gets the lowest failing rank's status, with "rank r of n: message" as its last
 * error, or FOEHN_SUCCESS everywhere. Collective. */
foehn_status foehn_report_error_collective_f(MPI_Fint comm, foehn_status status,
                                             const char* message);
/* The PETSc global node number (0-based; row = node * block_rows + component) of each of the
 * caller's local nodes, in the caller's local order (local_nodes values). */
foehn_status foehn_mesh_petsc_numbers(foehn_mesh mesh, int64_t* petsc_node_of_caller_local);

/* A matrix for `op` (its block shape) on the assembler's mesh, handed to `mat`: a Mat the
 * caller made (MatCreate, sizes: owned nodes * block rows locally, MatSetType or
 * MatSetFromOptions; AIJ, BAIJ or AIJCUSPARSE), which Foehn references and gives its pattern
 * (MatSetPreallocationCOO); or NULL, and Foehn makes one (foehn_matrix_get_mat). The mesh and
 * the assembler must outlive the matrix. Collective on the mesh's communicator: a defect found on
 * any rank (no assembler or op, an assembler of another mesh, a Mat of another size or type) is
 * reported on every rank. */
foehn_status foehn_matrix_create(foehn_mesh mesh, foehn_assembler assembler, foehn_operator op,
                                 Mat mat, foehn_matrix* matrix);
/* The same taking the Mat as the address of a Fortran object's %v (NULL: Foehn makes one); a %v
 * of 0, -1, -2 or -3 (PETSC_NULL_MAT, a Mat never created or destroyed) is refused. */
foehn_status foehn_matrix_create_f(foehn_mesh mesh, foehn_assembler assembler, foehn_operator op,
                                   const Mat* mat, foehn_matrix* matrix);
/* The Mat (borrowed: the caller may reference it to keep it beyond the matrix). */
foehn_status foehn_matrix_get_mat(foehn_matrix matrix, Mat* mat);
/* Assembles `op` (fields in the caller's local order, in `fields` memory) and hands the values to
 * the Mat (MatAssemblyEnd done) and, when rhs is not NULL, the right-hand side to the global Vec
 * rhs (owned nodes * block rows locally, overwritten; contributions of other ranks' elements
 * summed). Collective, errors too: an argument wrong on one rank (a short field, an rhs with the
 * halo, a destroyed matrix) is reported on every rank before any enters PETSc. The _f form takes
 * the address of a Fortran Vec's %v (NULL: no rhs; a %v of 0, -1, -2 or -3 is refused). */
foehn_status foehn_assemble_into(foehn_matrix matrix, foehn_operator op, foehn_memory fields,
                                 Vec rhs);
foehn_status foehn_assemble_into_f(foehn_matrix matrix, foehn_operator op, foehn_memory fields,
                                   const Vec* rhs);
foehn_status foehn_matrix_destroy(foehn_matrix* matrix);

#ifdef __cplusplus
}
#endif

#endif /* FOEHN_FOEHN_PETSC_H */
