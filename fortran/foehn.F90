! foehn: the Fortran interface to Foehn (binds the C ABI of include/foehn/foehn.h and
! foehn_petsc.h with iso_c_binding). Handles are derived types with finalizers; arrays are the
! ones a Fortran dynamical core holds: coordinates(3, nodes), connectivity(4, tets) 1-based, in
! default or 8-byte integers. Every procedure takes an optional ierr: without it a failure
! prints Foehn's message and stops the program (error stop 2), with it the caller decides;
! foehn_error_message() returns the message of the last failure.
!
! Handles must not be copied by assignment (two copies would both release the object): pass
! them to procedures instead.
!
! Two files: foehn_base.F90 (module foehn_base) binds foehn.h, the meshes, operators, assemblers
! and errors; this one binds foehn_petsc.h, the PETSc hand-off (partitioned meshes, foehn_matrix,
! assembly into a Mat and a Vec), and re-exports foehn_base's names, so that `use foehn` gives
! them all.
module foehn
  use, intrinsic :: iso_c_binding
  use foehn_base
  implicit none
  private

  ! foehn_base's names, re-exported.
  public :: FOEHN_SUCCESS, FOEHN_ERROR_INVALID_INPUT, FOEHN_ERROR_CUDA, FOEHN_ERROR_PETSC, &
            FOEHN_ERROR_IO, FOEHN_ERROR_OUT_OF_MEMORY, FOEHN_ERROR_UNAVAILABLE, &
            FOEHN_ERROR_NUMERICAL, FOEHN_ERROR_INTERNAL
  public :: FOEHN_MEMORY_HOST, FOEHN_MEMORY_DEVICE
  public :: foehn_mesh, foehn_operator, foehn_assembler
  public :: foehn_error_message, foehn_has_cuda
  public :: foehn_mesh_create, foehn_mesh_sizes, foehn_mesh_destroy
  public :: foehn_operator_create, foehn_operator_set_parameter, foehn_operator_set_field, &
            foehn_operator_destroy
  public :: foehn_assembler_create, foehn_assembler_uses_gpu, foehn_assembler_pattern, &
            foehn_assemble, foehn_assemble_device, foehn_assembler_synchronize, &
            foehn_assembler_destroy
  public :: foehn_check

  ! The PETSc hand-off.
  public :: foehn_mesh_create_partitioned, foehn_mesh_petsc_numbers
  public :: foehn_matrix_create, foehn_assemble_into, foehn_matrix_destroy

  ! An operator's matrix handed to a PETSc Mat (and right-hand sides to a Vec).
  type, public :: foehn_matrix
    type(c_ptr) :: handle = c_null_ptr
  contains
    final :: finalize_matrix
  end type

  interface foehn_mesh_create_partitioned
    module procedure mesh_create_partitioned_int32, mesh_create_partitioned_int64
  end interface

  ! The C ABI (foehn_petsc.h).
  interface
    integer(c_int) function c_report_error_collective(comm, status, message) &
        bind(c, name="foehn_report_error_collective_f")
      import :: c_int, c_char
      integer(c_int), value :: comm, status
      character(kind=c_char), intent(in) :: message(*)
    end function
    integer(c_int) function c_mesh_create_partitioned(comm, local_node_count, owned_node_count, &
                                                      coordinates, node_ids, tet_count, &
                                                      connectivity, index_bytes, index_base, &
                                                      orientation, mesh) &
        bind(c, name="foehn_mesh_create_partitioned_f")
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: comm
      integer(c_int64_t), value :: local_node_count, owned_node_count, tet_count
      type(c_ptr), value :: coordinates, node_ids, connectivity
      integer(c_int), value :: index_bytes, index_base, orientation
      type(c_ptr), intent(out) :: mesh
    end function
    integer(c_int) function c_mesh_petsc_numbers(mesh, numbers) &
        bind(c, name="foehn_mesh_petsc_numbers")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: mesh
      integer(c_int64_t), intent(out) :: numbers(*)
    end function
    integer(c_int) function c_matrix_create(mesh, assembler, op, mat, matrix) &
        bind(c, name="foehn_matrix_create_f")
      import :: c_int, c_ptr
      type(c_ptr), value :: mesh, assembler, op, mat
      type(c_ptr), intent(out) :: matrix
    end function
    integer(c_int) function c_assemble_into(matrix, op, fields, rhs) &
        bind(c, name="foehn_assemble_into_f")
      import :: c_int, c_ptr
      type(c_ptr), value :: matrix, op, rhs
      integer(c_int), value :: fields
    end function
    integer(c_int) function c_matrix_destroy(matrix) bind(c, name="foehn_matrix_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: matrix
    end function
  end interface

contains

  ! This rank's part of a mesh the caller partitioned: coordinates(3, local nodes), the first
  ! owned_nodes of them owned here, node_ids(local nodes) the caller's global ids, connectivity(4,
  ! local tets) 1-based on local nodes. Collective on comm (a Fortran communicator, e.g.
  ! MPI_COMM_WORLD or PETSC_COMM_WORLD).
  subroutine mesh_create_partitioned_int32(mesh, comm, owned_nodes, coordinates, node_ids, &
                                           connectivity, fix_orientation, ierr)
    type(foehn_mesh), intent(inout) :: mesh
    integer, intent(in) :: comm, owned_nodes
    real(c_double), intent(in), target, contiguous :: coordinates(:, :)
    integer(c_int64_t), intent(in), target, contiguous :: node_ids(:)
    integer(c_int32_t), intent(in), target, contiguous :: connectivity(:, :)
    logical, intent(in), optional :: fix_orientation
    integer, intent(out), optional :: ierr
    call create_partitioned(mesh, comm, owned_nodes, coordinates, node_ids, &
                            size(connectivity, 2), c_loc(connectivity), 4_c_int, fix_orientation, &
                            ierr, mesh_shape_problem(coordinates, size(connectivity, 1), &
                                                     size(node_ids)))
  end subroutine

  subroutine mesh_create_partitioned_int64(mesh, comm, owned_nodes, coordinates, node_ids, &
                                           connectivity, fix_orientation, ierr)
    type(foehn_mesh), intent(inout) :: mesh
    integer, intent(in) :: comm, owned_nodes
    real(c_double), intent(in), target, contiguous :: coordinates(:, :)
    integer(c_int64_t), intent(in), target, contiguous :: node_ids(:)
    integer(c_int64_t), intent(in), target, contiguous :: connectivity(:, :)
    logical, intent(in), optional :: fix_orientation
    integer, intent(out), optional :: ierr
    call create_partitioned(mesh, comm, owned_nodes, coordinates, node_ids, &
                            size(connectivity, 2), c_loc(connectivity), 8_c_int, fix_orientation, &
                            ierr, mesh_shape_problem(coordinates, size(connectivity, 1), &
                                                     size(node_ids)))
  end subroutine

  subroutine create_partitioned(mesh, comm, owned_nodes, coordinates, node_ids, tet_count, &
                                connectivity, index_bytes, fix_orientation, ierr, shape_problem)
    type(foehn_mesh), intent(inout) :: mesh
    integer, intent(in) :: comm, owned_nodes, tet_count
    real(c_double), intent(in), target, contiguous :: coordinates(:, :)
    integer(c_int64_t), intent(in), target, contiguous :: node_ids(:)
    type(c_ptr), intent(in) :: connectivity
    integer(c_int), intent(in) :: index_bytes
    logical, intent(in), optional :: fix_orientation
    integer, intent(out), optional :: ierr
    character(len=*), intent(in) :: shape_problem
    integer(c_int) :: status
    call foehn_mesh_destroy(mesh)
    ! Collective: a shape problem on one rank is every rank's error (none waits for it).
    status = FOEHN_SUCCESS
    if (len(shape_problem) > 0) status = FOEHN_ERROR_INVALID_INPUT
    status = c_report_error_collective(int(comm, c_int), status, c_string(shape_problem))
    if (status /= FOEHN_SUCCESS) then
      call foehn_check(status, ierr)
      return
    end if
    call foehn_check(c_mesh_create_partitioned(int(comm, c_int), &
                                               int(size(coordinates, 2), c_int64_t), &
                                               int(owned_nodes, c_int64_t), c_loc(coordinates), &
                                               c_loc(node_ids), int(tet_count, c_int64_t), &
                                               connectivity, index_bytes, 1_c_int, &
                                               orientation_of(fix_orientation), mesh%handle), ierr)
  end subroutine

  ! PETSc's 0-based global node number of each of the caller's local nodes (in its order): the
  ! Mat row of (node, component) is numbers(node) * block_rows + component - 1.
  subroutine foehn_mesh_petsc_numbers(mesh, numbers, ierr)
    type(foehn_mesh), intent(in) :: mesh
    integer(c_int64_t), intent(out) :: numbers(:)
    integer, intent(out), optional :: ierr
    integer(c_int64_t) :: local_nodes, owned_nodes, local_tets
    integer(c_int) :: status
    status = c_mesh_sizes(mesh%handle, local_nodes, owned_nodes, local_tets)
    if (status == FOEHN_SUCCESS .and. size(numbers, kind=c_int64_t) < local_nodes) then
      block
        character(len=160) :: text
        write (text, '(a, i0, a, i0, a)') 'foehn_mesh_petsc_numbers: numbers has ', &
          size(numbers), ' entries for the mesh''s ', local_nodes, ' local nodes'
        status = c_report_error(int(FOEHN_ERROR_INVALID_INPUT, c_int), c_string(text))
      end block
    end if
    if (status == FOEHN_SUCCESS) status = c_mesh_petsc_numbers(mesh%handle, numbers)
    call foehn_check(status, ierr)
  end subroutine

  ! mat: the %v of a PETSc Mat the caller made (sizes set, MatSetFromOptions or MatSetType); it
  ! must stay alive as long as the matrix. The mesh and the assembler must outlive the matrix.
  ! Collective on the mesh's communicator, errors too. A Mat never created (%v = -2), destroyed,
  ! or of another class (a Vec's %v) is FOEHN_ERROR_INVALID_INPUT on every rank (checked in C,
  ! before PETSc sees it); before PetscInitialize, FOEHN_ERROR_UNAVAILABLE.
  subroutine foehn_matrix_create(matrix, mesh, assembler, op, mat, ierr)
    type(foehn_matrix), intent(inout) :: matrix
    type(foehn_mesh), intent(in) :: mesh
    type(foehn_assembler), intent(in) :: assembler
    type(foehn_operator), intent(in) :: op
    integer(c_intptr_t), intent(in), target :: mat
    integer, intent(out), optional :: ierr
    call foehn_matrix_destroy(matrix)
    call foehn_check(c_matrix_create(mesh%handle, assembler%handle, op%handle, c_loc(mat), &
                                     matrix%handle), ierr)
  end subroutine

  ! Assembles op (host fields in the caller's local order) into the matrix's Mat and, when rhs
  ! (a Vec's %v) is given, the right-hand side into that Vec (overwritten). Collective, errors
  ! too: an argument wrong on one rank gives every rank the same ierr.
  subroutine foehn_assemble_into(matrix, op, rhs, ierr)
    type(foehn_matrix), intent(in) :: matrix
    type(foehn_operator), intent(in) :: op
    integer(c_intptr_t), intent(in), target, optional :: rhs
    integer, intent(out), optional :: ierr
    type(c_ptr) :: rhs_address
    rhs_address = c_null_ptr
    if (present(rhs)) rhs_address = c_loc(rhs)
    call foehn_check(c_assemble_into(matrix%handle, op%handle, int(FOEHN_MEMORY_HOST, c_int), &
                                     rhs_address), ierr)
  end subroutine

  subroutine foehn_matrix_destroy(matrix)
    type(foehn_matrix), intent(inout) :: matrix
    integer(c_int) :: status
    if (c_associated(matrix%handle)) status = c_matrix_destroy(matrix%handle)
    matrix%handle = c_null_ptr
  end subroutine

  subroutine finalize_matrix(matrix)
    type(foehn_matrix), intent(inout) :: matrix
    call foehn_matrix_destroy(matrix)
  end subroutine

end module foehn
