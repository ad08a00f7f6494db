! A Fortran program as a dynamical core is built: PETSc's Fortran headers and module beside
! Foehn's. It starts PETSc, assembles the P1 mass matrix of the unit tetrahedron with Foehn on the
! CPU and checks it against the closed form (entries V/20 (1 + delta_ij), V = 1/6, so the matrix
! sums to the volume), and hands the volume to PETSc's own reduction.
#include "petsc/finclude/petscsys.h"
program petsc_consumer
  use petscsys
  use, intrinsic :: iso_c_binding
  use foehn
  implicit none
  real(c_double), parameter :: volume = 1d0/6d0, tolerance = 1d-14
  real(c_double) :: coordinates(3, 4), rhs(4)
  integer(c_int32_t) :: connectivity(4, 1)
  integer(c_int32_t), allocatable :: row_offsets(:), columns(:)
  real(c_double), allocatable :: values(:)
  type(foehn_mesh) :: mesh
  type(foehn_operator) :: mass
  type(foehn_assembler) :: assembler
  PetscErrorCode :: ierr
  PetscReal :: local(1), total(1)

  call PetscInitialize(ierr)
  if (ierr /= 0) error stop 'PetscInitialize failed'
  coordinates = reshape([0d0, 0d0, 0d0, 1d0, 0d0, 0d0, 0d0, 1d0, 0d0, 0d0, 0d0, 1d0], [3, 4])
  connectivity(:, 1) = [1, 2, 3, 4]
  rhs = 0d0
  call foehn_mesh_create(mesh, coordinates, connectivity)
  call foehn_operator_create(mass, 'mass')
  call foehn_assembler_create(assembler, mesh, backend='cpu')
  call foehn_assembler_pattern(assembler, row_offsets, columns)
  allocate (values(size(columns)))
  call foehn_assemble(assembler, mass, values, rhs)
  local(1) = sum(values)
  call MPI_Allreduce(local, total, 1, MPIU_REAL, MPI_SUM, PETSC_COMM_WORLD, ierr)
  if (size(columns) /= 16 .or. abs(maxval(values) - volume/10d0) > tolerance .or. &
      abs(total(1) - volume) > tolerance) then
    print '(a, 2es24.16)', 'FAILED: mass matrix max and sum ', maxval(values), total(1)
    error stop 1
  end if
  call foehn_assembler_destroy(assembler)
  call foehn_operator_destroy(mass)
  call foehn_mesh_destroy(mesh)
  print '(a, es24.17)', 'Fortran PETSc consumer: sum of the mass matrix = ', total(1)
  call PetscFinalize(ierr)
end program petsc_consumer
