! Misuse of the module foehn's PETSc hand-off from Fortran, each a status and a message instead of
! a crash (SIGSEGV before) or a hang:
!   - foehn_matrix_create before PetscInitialize (MPI not initialised): FOEHN_ERROR_UNAVAILABLE;
!   - a Mat never created (its %v is -2), a Vec passed as the Mat, a Mat destroyed (MatDestroy),
!     an rhs Vec never created: FOEHN_ERROR_INVALID_INPUT naming the argument;
!   - on several ranks, a never-created Mat on rank 1 only: every rank gets the error, which names
!     rank 1 (no rank waits in the collective call for one that has returned).
! Then the same handles assemble a mass matrix that sums to the cube's volume (an independent
! property). Exit 0 when every check passes; each failure is printed.
program misuse_checks
#include FOEHN_PETSC_MAT_HEADER
  use petscmat
  use foehn
  use, intrinsic :: iso_c_binding, only: c_double, c_int64_t
  implicit none
  Mat :: never_created, serial_mat, destroyed, parallel_mat
  Vec :: vec, rhs_never_created
  PetscErrorCode :: ierr
  PetscMPIInt :: rank, ranks
  PetscScalar :: total
  integer :: status, failures, c
  real(c_double) :: xyz(3, 8)
  integer(c_int64_t) :: tets(4, 6), ids(8)
  type(foehn_mesh) :: serial, partitioned
  type(foehn_assembler) :: serial_assembler, parallel_assembler
  type(foehn_operator) :: op
  type(foehn_matrix) :: matrix

  failures = 0
  rank = 0
  ! The unit cube, Kuhn's six tets (1-based).
  do c = 0, 7
    xyz(:, c + 1) = [real(iand(c, 1), c_double), real(iand(ishft(c, -1), 1), c_double), &
                     real(iand(ishft(c, -2), 1), c_double)]
  end do
  tets = reshape([1_8, 2_8, 4_8, 8_8, 1_8, 2_8, 6_8, 8_8, 1_8, 3_8, 4_8, 8_8, 1_8, 3_8, 7_8, 8_8, &
                  1_8, 5_8, 6_8, 8_8, 1_8, 5_8, 7_8, 8_8], [4, 6])
  ! Serial handles need neither MPI nor PETSc.
  call foehn_mesh_create(serial, xyz, tets, fix_orientation=.true.)
  call foehn_assembler_create(serial_assembler, serial, 'cpu')
  call foehn_operator_create(op, 'mass')

  call foehn_matrix_create(matrix, serial, serial_assembler, op, never_created%v, ierr=status)
  call expect(status, FOEHN_ERROR_UNAVAILABLE, 'MPI_Init (or PetscInitialize) has not been called', &
              'foehn_matrix_create before PetscInitialize')

  call PetscInitialize(PETSC_NULL_CHARACTER, ierr)
  if (ierr /= 0) error stop 1
  call MPI_Comm_rank(PETSC_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(PETSC_COMM_WORLD, ranks, ierr)

  ! One rank's serial matrix: Mats that are not Mats.
  call foehn_matrix_create(matrix, serial, serial_assembler, op, never_created%v, ierr=status)
  call expect(status, FOEHN_ERROR_INVALID_INPUT, 'its %v is -2', 'a Mat never created')
  call VecCreateSeq(PETSC_COMM_SELF, 8, vec, ierr)
  call foehn_matrix_create(matrix, serial, serial_assembler, op, vec%v, ierr=status)
  call expect(status, FOEHN_ERROR_INVALID_INPUT, 'mat is a PETSc Vec where a Mat is expected', &
              'a Vec passed as the Mat')
  call MatCreate(PETSC_COMM_SELF, destroyed, ierr)
  call MatDestroy(destroyed, ierr)
  call foehn_matrix_create(matrix, serial, serial_assembler, op, destroyed%v, ierr=status)
  call expect(status, FOEHN_ERROR_INVALID_INPUT, 'destroyed', 'a destroyed Mat')

  ! The right Mat; then an rhs Vec never created; then the right Vec.
  call MatCreate(PETSC_COMM_SELF, serial_mat, ierr)
  call MatSetSizes(serial_mat, 8, 8, 8, 8, ierr)
  call MatSetType(serial_mat, MATAIJ, ierr)
  call foehn_matrix_create(matrix, serial, serial_assembler, op, serial_mat%v, ierr=status)
  call expect(status, FOEHN_SUCCESS, '', 'a serial Mat of the right size')
  call foehn_assemble_into(matrix, op, rhs_never_created%v, ierr=status)
  call expect(status, FOEHN_ERROR_INVALID_INPUT, 'rhs is not a PETSc Vec (its %v is -2)', &
              'an rhs Vec never created')
  call foehn_assemble_into(matrix, op, vec%v, ierr=status)
  call expect(status, FOEHN_SUCCESS, '', 'assembly into the Mat and the Vec')
  call matrix_total(serial_mat, total)
  if (abs(total - 1d0) > 1d-14) then
    failures = failures + 1
    print '(a, i0, a, es23.15, a)', 'rank ', rank, ': the mass matrix sums to ', total, &
      ', expected 1 (the cube''s volume)'
  end if
  call foehn_matrix_destroy(matrix)

  ! Collective: each rank its own cube, ids of its own; rank 1 alone passes a Mat never created.
  ids = [(int(8*rank + c, c_int64_t), c = 1, 8)]
  call foehn_mesh_create_partitioned(partitioned, PETSC_COMM_WORLD, 8, xyz, ids, tets, &
                                     fix_orientation=.true., ierr=status)
  call expect(status, FOEHN_SUCCESS, '', 'a partitioned mesh')
  call foehn_assembler_create(parallel_assembler, partitioned, 'cpu')
  call MatCreate(PETSC_COMM_WORLD, parallel_mat, ierr)
  call MatSetSizes(parallel_mat, 8, 8, PETSC_DETERMINE, PETSC_DETERMINE, ierr)
  call MatSetType(parallel_mat, MATAIJ, ierr)
  if (rank == 1 .or. ranks == 1) then
    call foehn_matrix_create(matrix, partitioned, parallel_assembler, op, never_created%v, &
                             ierr=status)
  else
    call foehn_matrix_create(matrix, partitioned, parallel_assembler, op, parallel_mat%v, &
                             ierr=status)
  end if
  if (ranks > 1) then
    call expect(status, FOEHN_ERROR_INVALID_INPUT, 'rank 1 of', &
                'rank 1''s Mat never created, on every rank')
  end if
  call expect(status, FOEHN_ERROR_INVALID_INPUT, 'its %v is -2', 'a Mat never created, collective')
  call foehn_matrix_create(matrix, partitioned, parallel_assembler, op, parallel_mat%v, ierr=status)
  call expect(status, FOEHN_SUCCESS, '', 'the partitioned mesh''s Mat')
  call foehn_assemble_into(matrix, op, ierr=status)
  call expect(status, FOEHN_SUCCESS, '', 'assembly into the partitioned Mat')
  call matrix_total(parallel_mat, total)
  if (abs(total - ranks) > 1d-13) then
    failures = failures + 1
    print '(a, i0, a, es23.15, a, i0)', 'rank ', rank, ': the mass matrix sums to ', total, &
      ', expected the ranks'' cubes'' volume ', ranks
  end if

  call foehn_matrix_destroy(matrix)
  call foehn_assembler_destroy(parallel_assembler)
  call foehn_mesh_destroy(partitioned)
  call foehn_assembler_destroy(serial_assembler)
  call foehn_operator_destroy(op)
  call foehn_mesh_destroy(serial)
  call MatDestroy(parallel_mat, ierr)
  call MatDestroy(serial_mat, ierr)
  call VecDestroy(vec, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, failures, 1, MPI_INTEGER, MPI_SUM, PETSC_COMM_WORLD, ierr)
  if (failures == 0 .and. rank == 0) print '(a)', 'misuse_checks: every check passed'
  call PetscFinalize(ierr)
  if (failures /= 0) error stop 1

contains

  ! The call returned `expected`, and (unless needle is "") a message containing needle.
  subroutine expect(got, expected, needle, what)
    integer, intent(in) :: got, expected
    character(len=*), intent(in) :: needle, what
    character(len=:), allocatable :: message
    message = foehn_error_message()
    if (got /= expected .or. (len(needle) > 0 .and. index(message, needle) == 0)) then
      failures = failures + 1
      print '(a, i0, a, a, a, i0, a, i0, a, a)', 'rank ', rank, ': ', what, ': status ', got, &
        ' (expected ', expected, '), message: ', message
    end if
  end subroutine

  ! The sum of all entries of mat: the sum of mat times a vector of ones.
  subroutine matrix_total(mat, sum)
    Mat, intent(in) :: mat
    PetscScalar, intent(out) :: sum
    Vec :: ones, row_sums
    PetscErrorCode :: code
    call MatCreateVecs(mat, ones, row_sums, code)
    call VecSet(ones, 1d0, code)
    call MatMult(mat, ones, row_sums, code)
    call VecSum(row_sums, sum, code)
    call VecDestroy(ones, code)
    call VecDestroy(row_sums, code)
  end subroutine

end program
