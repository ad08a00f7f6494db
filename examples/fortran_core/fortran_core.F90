! A Fortran "dynamical core" that uses Foehn the way Fluidity-, MPAS- or ICON-like codes would:
! it holds its own mesh arrays and its own partition (x-slabs of a unit-cube tet mesh, owned
! nodes first, then the halo, 1-based ids of its own), makes the PETSc Mat and Vec itself, lets
! Foehn assemble into them on the CPU or the GPU, and solves with PETSc's KSP.
!
! Two manufactured problems with u = sin(pi x) sin(pi y) sin(pi z) (zero on the boundary):
!   diffusion:  -lap u = f                            (scalar, Foehn's diffusion operator)
!   momentum:    a u - mu (lap u + grad div u) = f    (u = g (1, 1, 1), 3 x 3 blocks)
! on two meshes (n and 2n cells a side); prints the RMS nodal error of each and the observed
! order, and exits 1 unless the order is at least 1.8 for both (P1 converges at 2).
!
!   mpiexec -n 2 foehn-fortran-core [-foehn_backend cpu|cuda|auto] [-cells 12]
! (FOEHN_PETSC_KSP_HEADER is <petsc/finclude/petscksp.h>, given by CMake: named through a macro,
! the include is not followed by CMake's Makefile dependency scanner, which takes minutes on
! PETSc 3.26's Fortran headers.)
! Exit 77 (a skip for ctest) when -foehn_backend cuda finds no usable GPU.
module cube_problems
#include FOEHN_PETSC_KSP_HEADER
  use petscksp
  use foehn
  use, intrinsic :: iso_c_binding
  implicit none
  character(len=16) :: backend = 'auto'
  logical :: used_gpu = .false.  ! whether the last assembler ran on the GPU

contains


  real(8) function exact(x, y, z)
    real(8), intent(in) :: x, y, z
    real(8), parameter :: pi = acos(-1d0)
    exact = sin(pi*x)*sin(pi*y)*sin(pi*z)
  end function

  ! Right-hand side of component c (1 for the scalar problem) at (x, y, z).
  real(8) function source(problem, c, x, y, z)
    integer, intent(in) :: problem, c
    real(8), intent(in) :: x, y, z
    real(8), parameter :: pi = acos(-1d0), a = 1d0, mu = 1d0
    real(8) :: s(3), co(3)
    s = [sin(pi*x), sin(pi*y), sin(pi*z)]
    co = [cos(pi*x), cos(pi*y), cos(pi*z)]
    if (problem == 1) then
      source = 3*pi**2*exact(x, y, z)
    else
      ! a g - mu (lap g + d_c div u), div u = pi sum_d cos(pi x_d) prod_{e /= d} sin(pi x_e)
      source = (a + 4*mu*pi**2)*exact(x, y, z) - mu*pi**2*co(c)* &
               (co(mod(c, 3) + 1)*s(mod(c + 1, 3) + 1) + s(mod(c, 3) + 1)*co(mod(c + 1, 3) + 1))
    end if
  end function

  ! Builds this rank's slab of an n^3-cell cube (6 tets per cell), assembles with Foehn into a
  ! Mat and Vec of its own, solves, and returns the RMS nodal error over all ranks.
  real(8) function solve(problem, n, rank, ranks) result(rms)
    integer, intent(in) :: problem, n
    PetscMPIInt, intent(in) :: rank, ranks
    integer :: slab, first_cell, last_cell, i, j, k, t, c, local_count, owned_count, node, b
    integer :: corner(8), kuhn(4, 6)
    integer, allocatable :: local_of_global(:)
    integer(c_int64_t), allocatable :: ids(:), petsc_node(:)
    integer(c_int32_t), allocatable :: tets(:, :)
    real(c_double), allocatable :: xyz(:, :), f(:, :)
    type(foehn_mesh) :: mesh
    type(foehn_operator) :: op
    type(foehn_assembler) :: assembler
    type(foehn_matrix) :: matrix
    Mat :: A
    Vec :: x, rhs, zero
    KSP :: ksp
    PetscInt, allocatable :: rows(:)
    PetscScalar :: values(1)
    PetscInt :: row(1), row_count
    PetscErrorCode :: ierr
    real(8) :: sums(2), global_sums(2), point(3)
    integer :: blocks, step, status

    blocks = merge(1, 3, problem == 1)
    step = n + 1
    slab = n/ranks
    first_cell = rank*slab
    last_cell = first_cell + slab - 1
    ! Kuhn's six tets of a cube, on its corners numbered 1 + dx + 2 dy + 4 dz.
    kuhn = reshape([1, 2, 4, 8, 1, 2, 6, 8, 1, 3, 4, 8, 1, 3, 7, 8, 1, 5, 6, 8, 1, 5, 7, 8], [4, 6])

    ! Local nodes: owned ones first (i in this slab, the slab's upper plane belongs to the next
    ! rank except for the last rank), then the halo plane i = last_cell + 1.
    allocate (local_of_global(step**3))
    local_of_global = 0
    local_count = 0
    do i = first_cell, last_cell + 1
      if (i == last_cell + 1 .and. rank /= ranks - 1) cycle
      call number_plane(local_of_global, local_count, i, n)
    end do
    owned_count = local_count
    if (rank /= ranks - 1) call number_plane(local_of_global, local_count, last_cell + 1, n)

    allocate (ids(local_count), xyz(3, local_count))
    do k = 0, n
      do j = 0, n
        do i = first_cell, last_cell + 1
          node = local_of_global(global_id(i, j, k, step))
          if (node == 0) cycle
          ids(node) = global_id(i, j, k, step)
          xyz(:, node) = [dble(i), dble(j), dble(k)]/n
        end do
      end do
    end do
    allocate (tets(4, 6*slab*n*n))
    t = 0
    do k = 0, n - 1
      do j = 0, n - 1
        do i = first_cell, last_cell
          do c = 1, 8
            corner(c) = local_of_global(global_id(i + mod(c - 1, 2), j + mod((c - 1)/2, 2), &
                                                  k + (c - 1)/4, step))
          end do
          do b = 1, 6
            t = t + 1
            tets(:, t) = corner(kuhn(:, b))
          end do
        end do
      end do
    end do

    call foehn_mesh_create_partitioned(mesh, PETSC_COMM_WORLD, owned_count, xyz, ids, tets, &
                                       fix_orientation=.true.)
    call foehn_assembler_create(assembler, mesh, backend=backend, ierr=status)
    if (status == FOEHN_ERROR_UNAVAILABLE) then
      if (rank == 0) write (*, '(a)') 'fortran_core: skipped: '//foehn_error_message()
      call PetscFinalize(ierr)
      stop 77
    end if
    call foehn_check(int(status, c_int))
    used_gpu = foehn_assembler_uses_gpu(assembler)
    allocate (f(blocks, local_count))
    do node = 1, local_count
      do c = 1, blocks
        f(c, node) = source(problem, c, xyz(1, node), xyz(2, node), xyz(3, node))
      end do
    end do
    if (problem == 1) then
      call foehn_operator_create(op, 'diffusion')
      call foehn_operator_set_field(op, 'source', f)
    else
      call foehn_operator_create(op, 'momentum')
      call foehn_operator_set_parameter(op, 'density_over_dt', 1d0)
      call foehn_operator_set_parameter(op, 'viscosity', 1d0)
      call foehn_operator_set_field(op, 'body_force', f)
    end if

    ! The core's own PETSc objects; Foehn assembles into them.
    call MatCreate(PETSC_COMM_WORLD, A, ierr)
    call MatSetSizes(A, blocks*owned_count, blocks*owned_count, PETSC_DETERMINE, &
                     PETSC_DETERMINE, ierr)
    call MatSetFromOptions(A, ierr)
    call VecCreate(PETSC_COMM_WORLD, rhs, ierr)
    call VecSetSizes(rhs, blocks*owned_count, PETSC_DETERMINE, ierr)
    call VecSetFromOptions(rhs, ierr)
    call VecDuplicate(rhs, x, ierr)
    call VecDuplicate(rhs, zero, ierr)
    call VecSet(zero, 0d0, ierr)
    call foehn_matrix_create(matrix, mesh, assembler, op, A%v)
    call foehn_assemble_into(matrix, op, rhs%v)

    ! Dirichlet u = 0 on the cube's faces, for the rows this rank owns.
    allocate (petsc_node(local_count), rows(blocks*owned_count))
    call foehn_mesh_petsc_numbers(mesh, petsc_node)
    row_count = 0
    do node = 1, owned_count
      if (on_boundary(xyz(:, node))) then
        do c = 1, blocks
          row_count = row_count + 1
          rows(row_count) = petsc_node(node)*blocks + c - 1
        end do
      end if
    end do
    call MatZeroRowsColumns(A, row_count, rows, 1d0, zero, rhs, ierr)

    call KSPCreate(PETSC_COMM_WORLD, ksp, ierr)
    call KSPSetOperators(ksp, A, A, ierr)
    call KSPSetType(ksp, KSPCG, ierr)
    call KSPSetTolerances(ksp, 1d-12, 1d-50, PETSC_DEFAULT_REAL, 2000, ierr)
    call KSPSetFromOptions(ksp, ierr)
    call KSPSolve(ksp, rhs, x, ierr)

    sums = 0
    do node = 1, owned_count
      point = xyz(:, node)
      do c = 1, blocks
        row(1) = petsc_node(node)*blocks + c - 1
        call VecGetValues(x, 1, row, values, ierr)
        sums(1) = sums(1) + (values(1) - exact(point(1), point(2), point(3)))**2
        sums(2) = sums(2) + 1
      end do
    end do
    call MPI_Allreduce(sums, global_sums, 2, MPI_DOUBLE_PRECISION, MPI_SUM, PETSC_COMM_WORLD, ierr)
    rms = sqrt(global_sums(1)/global_sums(2))

    call KSPDestroy(ksp, ierr)
    call foehn_matrix_destroy(matrix)
    call MatDestroy(A, ierr)
    call VecDestroy(x, ierr)
    call VecDestroy(rhs, ierr)
    call VecDestroy(zero, ierr)
  end function

  integer function global_id(i, j, k, step)
    integer, intent(in) :: i, j, k, step
    global_id = 1 + i + step*(j + step*k)
  end function

  ! Appends the nodes of the plane x = i/n to the local numbering.
  subroutine number_plane(local_of_global, local_count, i, n)
    integer, intent(inout) :: local_of_global(:), local_count
    integer, intent(in) :: i, n
    integer :: j, k
    do k = 0, n
      do j = 0, n
        local_count = local_count + 1
        local_of_global(global_id(i, j, k, n + 1)) = local_count
      end do
    end do
  end subroutine

  logical function on_boundary(p)
    real(c_double), intent(in) :: p(3)
    on_boundary = any(p < 1d-12) .or. any(p > 1 - 1d-12)
  end function
end module cube_problems

program fortran_core
#include FOEHN_PETSC_KSP_HEADER
  use petscksp
  use cube_problems
  use, intrinsic :: iso_fortran_env, only: int64
  implicit none

  PetscErrorCode :: ierr
  PetscMPIInt :: rank, ranks
  PetscBool :: found
  PetscInt :: cells
  character(len=64) :: cells_text
  integer(int64) :: cells_wide
  integer :: read_status
  real(8) :: error_coarse(2), error_fine(2), order(2)
  logical :: passed
  integer :: problem
  character(len=12), parameter :: names(2) = [character(len=12) :: 'diffusion', 'momentum']

  call PetscInitialize(PETSC_NULL_CHARACTER, ierr)
  if (ierr /= 0) stop 1
  call MPI_Comm_rank(PETSC_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(PETSC_COMM_WORLD, ranks, ierr)
  backend = 'auto'
  call PetscOptionsGetString(PETSC_NULL_OPTIONS, PETSC_NULL_CHARACTER, '-foehn_backend', backend, found, &
                             ierr)
  ! -cells is read as text and parsed into a 64-bit integer here: PETSc's PetscOptionsGetInt
  ! with 32-bit indices wraps a large value modulo 2**32 (4294967308 would read as 12).
  cells_text = '12'
  call PetscOptionsGetString(PETSC_NULL_OPTIONS, PETSC_NULL_CHARACTER, '-cells', cells_text, found, &
                             ierr)
  read (cells_text, *, iostat=read_status) cells_wide
  if (ierr /= 0 .or. read_status /= 0 .or. verify(trim(adjustl(cells_text)), '0123456789') /= 0) then
    cells_wide = -1
  end if
  if (cells_wide < ranks .or. cells_wide > 64 .or. mod(cells_wide, int(ranks, int64)) /= 0) then
    if (rank == 0) write (*, '(a)') "fortran_core: -cells '"//trim(cells_text)// &
      "': expected a multiple of the rank count, at most 64"
    call PetscFinalize(ierr)
    stop 2
  end if
  cells = int(cells_wide)

  passed = .true.
  do problem = 1, 2
    error_coarse(problem) = solve(problem, int(cells), rank, ranks)
    error_fine(problem) = solve(problem, 2*int(cells), rank, ranks)
    order(problem) = log(error_coarse(problem)/error_fine(problem))/log(2d0)
    if (rank == 0) write (*, '(a, a10, a, es10.3, a, es10.3, a, f5.2)') 'fortran_core: ', &
      trim(names(problem)), ' RMS error ', error_coarse(problem), ' -> ', error_fine(problem), &
      ', order ', order(problem)
    passed = passed .and. order(problem) >= 1.8d0
  end do
  if (rank == 0) write (*, '(a, a, a, l1)') 'fortran_core: backend ', trim(backend), &
    ', assembled on the GPU: ', used_gpu
  if (rank == 0) write (*, '(a, l1)') 'fortran_core: second order in both problems: ', passed
  call PetscFinalize(ierr)
  if (.not. passed) stop 1

end program fortran_core
