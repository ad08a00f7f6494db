! The module foehn's own checks of array shapes (C sees only addresses and counts): a transposed
! coordinates array, a connectivity with 3 rows, node_ids of the wrong length, a transposed
! vector field and a short numbers array are refused with FOEHN_ERROR_INVALID_INPUT and a message
! saying what is wrong; on several ranks a shape problem of rank 1 is every rank's error (no rank
! waits in the collective call). Exit 0 when every check passes; each failure is printed.
program shape_checks
  use mpi
  use, intrinsic :: iso_c_binding, only: c_double, c_int64_t
  use foehn
  implicit none
  integer :: rank, ranks, ierr, status, failures
  real(c_double) :: xyz(3, 8), transposed(8, 3), u(3, 8), u_transposed(8, 3)
  integer(c_int64_t) :: tets(4, 6), three_rows(3, 6), ids(8), short_ids(7), numbers(4)
  type(foehn_mesh) :: mesh
  type(foehn_operator) :: op
  integer :: c

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierr)
  failures = 0
  ! The unit cube, Kuhn's six tets (1-based).
  do c = 0, 7
    xyz(:, c + 1) = [real(iand(c, 1), c_double), real(iand(ishft(c, -1), 1), c_double), &
                     real(iand(ishft(c, -2), 1), c_double)]
    ids(c + 1) = c + 1
  end do
  transposed = transpose(xyz)
  tets = reshape([1_8, 2_8, 4_8, 8_8, 1_8, 2_8, 6_8, 8_8, 1_8, 3_8, 4_8, 8_8, 1_8, 3_8, 7_8, 8_8, &
                  1_8, 5_8, 6_8, 8_8, 1_8, 5_8, 7_8, 8_8], [4, 6])
  three_rows = tets(1:3, :)
  short_ids = ids(1:7)
  u = 1d0
  u_transposed = 1d0

  call foehn_mesh_create(mesh, transposed, tets, ierr=status)
  call expect(status, 'expected (3, nodes)', 'transposed coordinates')
  call foehn_mesh_create(mesh, xyz, three_rows, ierr=status)
  call expect(status, 'connectivity has 3 rows', 'a connectivity of 3 rows')
  call foehn_mesh_create(mesh, xyz, tets, fix_orientation=.true., ierr=status)
  call expect(status, '', 'the right shapes')

  call foehn_operator_create(op, 'advection', ierr=status)
  call foehn_operator_set_field(op, 'velocity', u_transposed, ierr=status)
  call expect(status, 'expected (components, nodes)', 'a transposed vector field')
  call foehn_operator_set_field(op, 'velocity', u, ierr=status)
  call expect(status, '', 'a vector field of 3 rows')

  ! Collective: only rank 1 (or rank 0 alone) has the wrong shapes; every rank gets the error.
  if (ranks > 1 .and. rank == 1) then
    call foehn_mesh_create_partitioned(mesh, MPI_COMM_WORLD, 8, transposed, ids, tets, &
                                       fix_orientation=.true., ierr=status)
  else if (ranks == 1) then
    call foehn_mesh_create_partitioned(mesh, MPI_COMM_WORLD, 8, xyz, short_ids, tets, &
                                       fix_orientation=.true., ierr=status)
  else
    call foehn_mesh_create_partitioned(mesh, MPI_COMM_WORLD, 0, xyz(:, 1:0), ids(1:0), &
                                       tets(:, 1:0), fix_orientation=.true., ierr=status)
  end if
  if (ranks > 1) then
    call expect(status, 'rank 1 of', 'rank 1''s transposed coordinates, on every rank')
  else
    call expect(status, 'node_ids has 7 entries for 8 nodes', 'node_ids one short')
  end if

  ! A serial mesh's numbers: the array is too short; the message says so (it was empty).
  call foehn_mesh_create(mesh, xyz, tets, fix_orientation=.true., ierr=status)
  call foehn_mesh_petsc_numbers(mesh, numbers, ierr=status)
  call expect(status, 'numbers has 4 entries', 'a short numbers array')

  call foehn_operator_destroy(op)
  call foehn_mesh_destroy(mesh)
  if (failures == 0 .and. rank == 0) print '(a)', 'shape_checks: every check passed'
  call MPI_Finalize(ierr)
  if (failures /= 0) error stop 1

contains

  ! `needle` "": the call succeeded; else it failed with FOEHN_ERROR_INVALID_INPUT and a
  ! message containing needle.
  subroutine expect(got, needle, what)
    integer, intent(in) :: got
    character(len=*), intent(in) :: needle, what
    character(len=:), allocatable :: message
    message = foehn_error_message()
    if (len(needle) == 0) then
      if (got /= FOEHN_SUCCESS) then
        failures = failures + 1
        print '(a, i0, a, a, a, a)', 'rank ', rank, ': ', what, ' failed: ', message
      end if
    else if (got /= FOEHN_ERROR_INVALID_INPUT .or. index(message, needle) == 0) then
      failures = failures + 1
      print '(a, i0, a, a, a, i0, a, a)', 'rank ', rank, ': ', what, ': status ', got, &
        ', message: ', message
    end if
  end subroutine

end program
