! A Fortran program built against an installed Foehn with nothing but
!   gfortran consumer.F90 $(pkg-config --cflags --libs foehn-fortran)
! (the installed module file foehn.mod and libfoehn_fortran). It assembles diffusion with a unit
! source on the unit tetrahedron (0,0,0), (1,0,0), (0,1,0), (0,0,1) on the CPU and compares
! with the closed form: the largest stiffness entry is K_11 = 3/6 (1-based), every row sums to
! zero (constants are in the kernel) and each node's load is the volume over 4, 1/24.
program consumer
  use, intrinsic :: iso_c_binding
  use foehn
  implicit none
  real(c_double), parameter :: tolerance = 1d-14
  real(c_double) :: coordinates(3, 4)
  integer(c_int32_t) :: connectivity(4, 1)
  type(foehn_mesh) :: mesh
  type(foehn_operator) :: op, unknown
  type(foehn_assembler) :: assembler
  integer(c_int32_t), allocatable :: row_offsets(:), columns(:)
  real(c_double), allocatable :: values(:)
  real(c_double) :: source(4), rhs(4)
  integer :: ierr, failures

  failures = 0
  coordinates = reshape([0d0, 0d0, 0d0, 1d0, 0d0, 0d0, 0d0, 1d0, 0d0, 0d0, 0d0, 1d0], [3, 4])
  connectivity(:, 1) = [1, 2, 3, 4]  ! 1-based, as a Fortran core holds it
  source = 1d0
  rhs = 0d0

  call foehn_mesh_create(mesh, coordinates, connectivity)
  call foehn_operator_create(op, 'diffusion')
  call foehn_operator_set_field(op, 'source', source)
  call foehn_assembler_create(assembler, mesh, backend='cpu')
  call foehn_assembler_pattern(assembler, row_offsets, columns)
  allocate (values(size(columns)))
  call foehn_assemble(assembler, op, values, rhs)

  call expect(size(row_offsets) == 5 .and. size(columns) == 16, 'pattern of 4 x 4 nodes')
  call expect(abs(maxval(values) - 0.5d0) <= tolerance, 'K_11 = 1/2')
  call expect(abs(sum(values)) <= tolerance, 'rows sum to zero')
  call expect(all(abs(rhs - 1d0/24d0) <= tolerance), 'load 1/24 at every node')
  ! Errors come back as a status with a message, not as a stop.
  call foehn_operator_create(unknown, 'no_such_operator', ierr)
  call expect(ierr == FOEHN_ERROR_INVALID_INPUT .and. len(foehn_error_message()) > 0, &
              'unknown operator rejected with a message')

  call foehn_assembler_destroy(assembler)
  call foehn_operator_destroy(op)
  call foehn_mesh_destroy(mesh)
  if (failures > 0) error stop 1
  print '(a, es24.17)', 'Fortran consumer: K_11 = ', maxval(values)

contains

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(2a)', 'FAILED: ', what
      failures = failures + 1
    end if
  end subroutine

end program consumer
