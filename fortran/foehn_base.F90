! foehn_base: the part of the Fortran interface that binds include/foehn/foehn.h (meshes,
! operators, assemblers, errors). Callers `use foehn` (foehn.F90, whose header says how handles,
! arrays and ierr work): it binds foehn_petsc.h on top of this module and re-exports its names.
! The helpers made public last (c_string ... c_mesh_sizes) are for foehn.F90 and are not
! re-exported.
module foehn_base
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none
  private

  integer, parameter, public :: FOEHN_SUCCESS = 0, FOEHN_ERROR_INVALID_INPUT = 1, &
                                FOEHN_ERROR_CUDA = 2, FOEHN_ERROR_PETSC = 3, FOEHN_ERROR_IO = 4, &
                                FOEHN_ERROR_OUT_OF_MEMORY = 5, FOEHN_ERROR_UNAVAILABLE = 6, &
                                FOEHN_ERROR_NUMERICAL = 7, FOEHN_ERROR_INTERNAL = 8
  integer, parameter, public :: FOEHN_MEMORY_HOST = 0, FOEHN_MEMORY_DEVICE = 1

  type, public :: foehn_mesh
    type(c_ptr) :: handle = c_null_ptr
  contains
    final :: finalize_mesh
  end type

  type, public :: foehn_operator
    type(c_ptr) :: handle = c_null_ptr
  contains
    final :: finalize_operator
  end type

  type, public :: foehn_assembler
    type(c_ptr) :: handle = c_null_ptr
  contains
    final :: finalize_assembler
  end type

  public :: foehn_error_message, foehn_has_cuda
  public :: foehn_mesh_create, foehn_mesh_sizes, foehn_mesh_destroy
  public :: foehn_operator_create, foehn_operator_set_parameter, foehn_operator_set_field, &
            foehn_operator_destroy
  public :: foehn_assembler_create, foehn_assembler_uses_gpu, foehn_assembler_pattern, &
            foehn_assemble, foehn_assemble_device, foehn_assembler_synchronize, &
            foehn_assembler_destroy
  public :: foehn_check
  ! For foehn.F90 only (not re-exported by the module foehn).
  public :: c_string, mesh_shape_problem, orientation_of, c_report_error, c_mesh_sizes

  interface foehn_mesh_create
    module procedure mesh_create_int32, mesh_create_int64
  end interface

  interface foehn_operator_set_field
    module procedure set_field_rank1, set_field_rank2
  end interface

  ! The C ABI.
  interface
    integer(c_size_t) function c_copy_last_error(buffer, size) bind(c, name="foehn_copy_last_error")
      import :: c_size_t, c_char
      character(kind=c_char), intent(out) :: buffer(*)
      integer(c_size_t), value :: size
    end function
    integer(c_int) function c_report_error(status, message) bind(c, name="foehn_report_error")
      import :: c_int, c_char
      integer(c_int), value :: status
      character(kind=c_char), intent(in) :: message(*)
    end function
    integer(c_int) function c_has_cuda() bind(c, name="foehn_has_cuda")
      import :: c_int
    end function
    integer(c_int) function c_mesh_create(node_count, coordinates, tet_count, connectivity, &
                                          index_bytes, index_base, orientation, mesh) &
        bind(c, name="foehn_mesh_create")
      import :: c_int, c_int64_t, c_ptr
      integer(c_int64_t), value :: node_count, tet_count
      type(c_ptr), value :: coordinates, connectivity
      integer(c_int), value :: index_bytes, index_base, orientation
      type(c_ptr), intent(out) :: mesh
    end function
    integer(c_int) function c_mesh_sizes(mesh, local_nodes, owned_nodes, local_tets) &
        bind(c, name="foehn_mesh_sizes")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: mesh
      integer(c_int64_t), intent(out) :: local_nodes, owned_nodes, local_tets
    end function
    integer(c_int) function c_mesh_destroy(mesh) bind(c, name="foehn_mesh_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: mesh
    end function
    integer(c_int) function c_operator_create(name, op) bind(c, name="foehn_operator_create")
      import :: c_int, c_char, c_ptr
      character(kind=c_char), intent(in) :: name(*)
      type(c_ptr), intent(out) :: op
    end function
    integer(c_int) function c_operator_set_parameter(op, name, value) &
        bind(c, name="foehn_operator_set_parameter")
      import :: c_int, c_char, c_ptr, c_double
      type(c_ptr), value :: op
      character(kind=c_char), intent(in) :: name(*)
      real(c_double), value :: value
    end function
    integer(c_int) function c_operator_set_field(op, name, values, count) &
        bind(c, name="foehn_operator_set_field")
      import :: c_int, c_char, c_ptr, c_int64_t
      type(c_ptr), value :: op, values
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int64_t), value :: count
    end function
    integer(c_int) function c_operator_destroy(op) bind(c, name="foehn_operator_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: op
    end function
    integer(c_int) function c_assembler_create(mesh, backend, strategy, assembler) &
        bind(c, name="foehn_assembler_create")
      import :: c_int, c_char, c_ptr
      type(c_ptr), value :: mesh
      character(kind=c_char), intent(in) :: backend(*), strategy(*)
      type(c_ptr), intent(out) :: assembler
    end function
    integer(c_int) function c_assembler_uses_gpu(assembler, uses_gpu) &
        bind(c, name="foehn_assembler_uses_gpu")
      import :: c_int, c_ptr
      type(c_ptr), value :: assembler
      integer(c_int), intent(out) :: uses_gpu
    end function
    integer(c_int) function c_assembler_pattern(assembler, rows, nonzeros, row_offsets, columns) &
        bind(c, name="foehn_assembler_pattern")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: assembler
      integer(c_int64_t), intent(out) :: rows, nonzeros
      type(c_ptr), intent(out) :: row_offsets, columns
    end function
    integer(c_int) function c_assemble_values(assembler, op, fields, results, values, &
                                              value_count, rhs, rhs_count) &
        bind(c, name="foehn_assemble_values")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: assembler, op, values, rhs
      integer(c_int), value :: fields, results
      integer(c_int64_t), value :: value_count, rhs_count
    end function
    integer(c_int) function c_assembler_synchronize(assembler) &
        bind(c, name="foehn_assembler_synchronize")
      import :: c_int, c_ptr
      type(c_ptr), value :: assembler
    end function
    integer(c_int) function c_assembler_destroy(assembler) bind(c, name="foehn_assembler_destroy")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: assembler
    end function
  end interface

contains

  ! The message of the last failed Foehn call on this thread.
  function foehn_error_message() result(message)
    character(len=:), allocatable :: message
    character(kind=c_char) :: buffer(1024)
    integer(c_size_t) :: length
    integer :: k
    length = c_copy_last_error(buffer, int(size(buffer), c_size_t))
    length = min(length, int(size(buffer) - 1, c_size_t))
    allocate (character(len=length) :: message)
    do k = 1, int(length)
      message(k:k) = buffer(k)
    end do
  end function

  logical function foehn_has_cuda()
    foehn_has_cuda = c_has_cuda() /= 0
  end function

  ! Hands a status to the caller (ierr present) or stops with Foehn's message.
  subroutine foehn_check(status, ierr)
    integer(c_int), intent(in) :: status
    integer, intent(out), optional :: ierr
    if (present(ierr)) then
      ierr = int(status)
    else if (status /= FOEHN_SUCCESS) then
      write (error_unit, '(a)') 'foehn: '//foehn_error_message()
      error stop 2
    end if
  end subroutine

  function c_string(text) result(converted)
    character(len=*), intent(in) :: text
    character(kind=c_char, len=len_trim(text) + 1) :: converted
    converted = trim(text)//c_null_char
  end function

  ! The wrapper's own check of the arrays' shapes (C sees only addresses and counts, so a
  ! transposed or short array would pass there): "" when they fit, else what is wrong.
  function mesh_shape_problem(coordinates, connectivity_rows, node_ids_size) result(problem)
    real(c_double), intent(in) :: coordinates(:, :)
    integer, intent(in) :: connectivity_rows, node_ids_size
    character(len=:), allocatable :: problem
    character(len=200) :: text
    text = ''
    if (size(coordinates, 1) /= 3) then
      write (text, '(a, i0, a, i0, a)') 'coordinates is (', size(coordinates, 1), ', ', &
        size(coordinates, 2), '): expected (3, nodes), x y z of a node in a column'
    else if (connectivity_rows /= 4) then
      write (text, '(a, i0, a)') 'connectivity has ', connectivity_rows, &
        ' rows: expected (4, tets), the 4 nodes of a tet in a column'
    else if (node_ids_size >= 0 .and. node_ids_size /= size(coordinates, 2)) then
      write (text, '(a, i0, a, i0, a)') 'node_ids has ', node_ids_size, ' entries for ', &
        size(coordinates, 2), ' nodes (columns of coordinates)'
    end if
    problem = trim(text)
  end function

  integer(c_int) function orientation_of(fix_orientation)
    logical, intent(in), optional :: fix_orientation
    orientation_of = 0
    if (present(fix_orientation)) then
      if (fix_orientation) orientation_of = 1
    end if
  end function

  subroutine mesh_create_int32(mesh, coordinates, connectivity, fix_orientation, ierr)
    type(foehn_mesh), intent(inout) :: mesh
    real(c_double), intent(in), target, contiguous :: coordinates(:, :)
    integer(c_int32_t), intent(in), target, contiguous :: connectivity(:, :)
    logical, intent(in), optional :: fix_orientation
    integer, intent(out), optional :: ierr
    if (shape_refused(mesh_shape_problem(coordinates, size(connectivity, 1), -1), ierr)) return
    call create_mesh(mesh, coordinates, size(connectivity, 2), c_loc(connectivity), 4_c_int, &
                     fix_orientation, ierr)
  end subroutine

  subroutine mesh_create_int64(mesh, coordinates, connectivity, fix_orientation, ierr)
    type(foehn_mesh), intent(inout) :: mesh
    real(c_double), intent(in), target, contiguous :: coordinates(:, :)
    integer(c_int64_t), intent(in), target, contiguous :: connectivity(:, :)
    logical, intent(in), optional :: fix_orientation
    integer, intent(out), optional :: ierr
    if (shape_refused(mesh_shape_problem(coordinates, size(connectivity, 1), -1), ierr)) return
    call create_mesh(mesh, coordinates, size(connectivity, 2), c_loc(connectivity), 8_c_int, &
                     fix_orientation, ierr)
  end subroutine

  ! What both integer kinds share: connectivity is the address of 4 x tet_count 1-based indices
  ! of index_bytes bytes each.
  ! A shape problem found by the wrapper (serial calls): reported as FOEHN_ERROR_INVALID_INPUT
  ! with its message, as a problem found in C would be. True when there was one.
  logical function shape_refused(problem, ierr)
    character(len=*), intent(in) :: problem
    integer, intent(out), optional :: ierr
    shape_refused = len(problem) > 0
    if (shape_refused) &
      call foehn_check(c_report_error(int(FOEHN_ERROR_INVALID_INPUT, c_int), c_string(problem)), &
                       ierr)
  end function

  subroutine create_mesh(mesh, coordinates, tet_count, connectivity, index_bytes, &
                         fix_orientation, ierr)
    type(foehn_mesh), intent(inout) :: mesh
    real(c_double), intent(in), target, contiguous :: coordinates(:, :)
    integer, intent(in) :: tet_count
    type(c_ptr), intent(in) :: connectivity
    integer(c_int), intent(in) :: index_bytes
    logical, intent(in), optional :: fix_orientation
    integer, intent(out), optional :: ierr
    call foehn_mesh_destroy(mesh)
    call foehn_check(c_mesh_create(int(size(coordinates, 2), c_int64_t), c_loc(coordinates), &
                                   int(tet_count, c_int64_t), connectivity, index_bytes, 1_c_int, &
                                   orientation_of(fix_orientation), mesh%handle), ierr)
  end subroutine

  subroutine foehn_mesh_sizes(mesh, local_nodes, owned_nodes, local_tets, ierr)
    type(foehn_mesh), intent(in) :: mesh
    integer(c_int64_t), intent(out) :: local_nodes, owned_nodes, local_tets
    integer, intent(out), optional :: ierr
    call foehn_check(c_mesh_sizes(mesh%handle, local_nodes, owned_nodes, local_tets), ierr)
  end subroutine

  subroutine foehn_mesh_destroy(mesh)
    type(foehn_mesh), intent(inout) :: mesh
    integer(c_int) :: status
    if (c_associated(mesh%handle)) status = c_mesh_destroy(mesh%handle)
    mesh%handle = c_null_ptr
  end subroutine

  subroutine finalize_mesh(mesh)
    type(foehn_mesh), intent(inout) :: mesh
    call foehn_mesh_destroy(mesh)
  end subroutine

  subroutine foehn_operator_create(op, name, ierr)
    type(foehn_operator), intent(inout) :: op
    character(len=*), intent(in) :: name
    integer, intent(out), optional :: ierr
    call foehn_operator_destroy(op)
    call foehn_check(c_operator_create(c_string(name), op%handle), ierr)
  end subroutine

  subroutine foehn_operator_set_parameter(op, name, value, ierr)
    type(foehn_operator), intent(in) :: op
    character(len=*), intent(in) :: name
    real(c_double), intent(in) :: value
    integer, intent(out), optional :: ierr
    call foehn_check(c_operator_set_parameter(op%handle, c_string(name), value), ierr)
  end subroutine

  ! The operator keeps the address of `values`: it must stay alive (and not move) until the
  ! last assembly with it.
  subroutine set_field_rank1(op, name, values, ierr)
    type(foehn_operator), intent(in) :: op
    character(len=*), intent(in) :: name
    real(c_double), intent(in), target, contiguous :: values(:)
    integer, intent(out), optional :: ierr
    call foehn_check(c_operator_set_field(op%handle, c_string(name), c_loc(values), &
                                          int(size(values), c_int64_t)), ierr)
  end subroutine

  ! values(components, nodes): 1, 3 (a vector) or 9 (a tensor) rows; a transposed array would
  ! have the right size and the wrong values, so it is refused here.
  subroutine set_field_rank2(op, name, values, ierr)
    type(foehn_operator), intent(in) :: op
    character(len=*), intent(in) :: name
    real(c_double), intent(in), target, contiguous :: values(:, :)
    integer, intent(out), optional :: ierr
    character(len=200) :: text
    if (all(size(values, 1) /= [1, 3, 9])) then
      write (text, '(a, a, a, i0, a, i0, a)') 'field ', trim(name), ' is (', size(values, 1), &
        ', ', size(values, 2), '): expected (components, nodes) with 1, 3 or 9 components'
      if (shape_refused(trim(text), ierr)) return
    end if
    call foehn_check(c_operator_set_field(op%handle, c_string(name), c_loc(values), &
                                          int(size(values), c_int64_t)), ierr)
  end subroutine

  subroutine foehn_operator_destroy(op)
    type(foehn_operator), intent(inout) :: op
    integer(c_int) :: status
    if (c_associated(op%handle)) status = c_operator_destroy(op%handle)
    op%handle = c_null_ptr
  end subroutine

  subroutine finalize_operator(op)
    type(foehn_operator), intent(inout) :: op
    call foehn_operator_destroy(op)
  end subroutine

  ! backend: 'cpu', 'cuda' or 'auto'; strategy: 'staged', 'fused_atomic', 'fused_map',
  ! 'deterministic', 'row_gather' or 'auto'. Left out: backend 'auto', strategy 'fused_map'.
  subroutine foehn_assembler_create(assembler, mesh, backend, strategy, ierr)
    type(foehn_assembler), intent(inout) :: assembler
    type(foehn_mesh), intent(in) :: mesh
    character(len=*), intent(in), optional :: backend, strategy
    integer, intent(out), optional :: ierr
    character(len=32) :: chosen_backend, chosen_strategy
    chosen_backend = 'auto'
    chosen_strategy = 'fused_map'
    if (present(backend)) chosen_backend = backend
    if (present(strategy)) chosen_strategy = strategy
    call foehn_assembler_destroy(assembler)
    call foehn_check(c_assembler_create(mesh%handle, c_string(chosen_backend), &
                                        c_string(chosen_strategy), assembler%handle), ierr)
  end subroutine

  logical function foehn_assembler_uses_gpu(assembler)
    type(foehn_assembler), intent(in) :: assembler
    integer(c_int) :: uses_gpu
    call foehn_check(c_assembler_uses_gpu(assembler%handle, uses_gpu))
    foehn_assembler_uses_gpu = uses_gpu /= 0
  end function

  ! The node pattern as 1-based CSR copies: row_offsets(local_nodes + 1), columns(nonzeros).
  subroutine foehn_assembler_pattern(assembler, row_offsets, columns, ierr)
    type(foehn_assembler), intent(in) :: assembler
    integer(c_int32_t), allocatable, intent(out) :: row_offsets(:), columns(:)
    integer, intent(out), optional :: ierr
    integer(c_int64_t) :: rows, nonzeros
    type(c_ptr) :: c_rows, c_columns
    integer(c_int32_t), pointer :: rows_view(:), columns_view(:)
    integer(c_int) :: status
    status = c_assembler_pattern(assembler%handle, rows, nonzeros, c_rows, c_columns)
    if (status == FOEHN_SUCCESS) then
      call c_f_pointer(c_rows, rows_view, [rows + 1])
      call c_f_pointer(c_columns, columns_view, [nonzeros])
      row_offsets = rows_view + 1
      columns = columns_view + 1
    end if
    call foehn_check(status, ierr)
  end subroutine

  ! Host fields and results: values(block nonzeros * R * C) and, optionally, rhs(local nodes * R).
  subroutine foehn_assemble(assembler, op, values, rhs, ierr)
    type(foehn_assembler), intent(in) :: assembler
    type(foehn_operator), intent(in) :: op
    real(c_double), intent(inout), target, contiguous :: values(:)
    real(c_double), intent(inout), target, contiguous, optional :: rhs(:)
    integer, intent(out), optional :: ierr
    type(c_ptr) :: rhs_address
    integer(c_int64_t) :: rhs_count
    rhs_address = c_null_ptr
    rhs_count = 0
    if (present(rhs)) then
      rhs_address = c_loc(rhs)
      rhs_count = size(rhs)
    end if
    call foehn_check(c_assemble_values(assembler%handle, op%handle, FOEHN_MEMORY_HOST, &
                                       FOEHN_MEMORY_HOST, c_loc(values), &
                                       int(size(values), c_int64_t), rhs_address, rhs_count), ierr)
  end subroutine

  ! Fields and results anywhere (e.g. device pointers from CUDA Fortran or OpenACC's
  ! acc_deviceptr): memories are FOEHN_MEMORY_HOST or FOEHN_MEMORY_DEVICE.
  subroutine foehn_assemble_device(assembler, op, fields, results, values, value_count, rhs, &
                                   rhs_count, ierr)
    type(foehn_assembler), intent(in) :: assembler
    type(foehn_operator), intent(in) :: op
    integer, intent(in) :: fields, results
    type(c_ptr), intent(in) :: values, rhs
    integer(c_int64_t), intent(in) :: value_count, rhs_count
    integer, intent(out), optional :: ierr
    call foehn_check(c_assemble_values(assembler%handle, op%handle, int(fields, c_int), &
                                       int(results, c_int), values, value_count, rhs, rhs_count), &
                     ierr)
  end subroutine

  subroutine foehn_assembler_synchronize(assembler, ierr)
    type(foehn_assembler), intent(in) :: assembler
    integer, intent(out), optional :: ierr
    call foehn_check(c_assembler_synchronize(assembler%handle), ierr)
  end subroutine

  subroutine foehn_assembler_destroy(assembler)
    type(foehn_assembler), intent(inout) :: assembler
    integer(c_int) :: status
    if (c_associated(assembler%handle)) status = c_assembler_destroy(assembler%handle)
    assembler%handle = c_null_ptr
  end subroutine

  subroutine finalize_assembler(assembler)
    type(foehn_assembler), intent(inout) :: assembler
    call foehn_assembler_destroy(assembler)
  end subroutine

end module foehn_base
