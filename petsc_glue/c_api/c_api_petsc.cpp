// The C ABI, PETSc part (foehn_petsc.h): partitioned meshes and the hand-off into a Mat and a
// Vec.
#include <petscvec.h>

#include <memory>
#include <optional>
#include <vector>

#include "c_api_petsc_objects.hpp"
#include "c_api_support.hpp"
#include "foehn/foehn_petsc.h"
#include "foehn/petsc/matrix_handoff.hpp"
#include "foehn/petsc/mpi_collective.hpp"
#include "foehn/petsc/node_numbering.hpp"
#include "foehn/petsc/partitioned_mesh.hpp"
#include "foehn/petsc/petsc_check.hpp"
#include "foehn/runtime/error.hpp"

using namespace foehn;
using c_api::guarded;
using c_api::require;

struct foehn_matrix_s {
  foehn_mesh mesh = nullptr;            // not owned
  foehn_assembler assembler = nullptr;  // not owned
  petsc::NodeNumbering numbering;
  int block_rows = 1, block_cols = 1;
  std::unique_ptr<petsc::PetscMatrix> matrix;
  std::vector<double> host_values, host_rhs;
  DeviceArray<double> device_values, device_rhs;
  std::vector<PetscInt> rhs_rows;  // PETSc row of every local right-hand-side entry
};

namespace {

petsc::NodeNumbering numbering_of(const foehn_mesh_s& mesh) {
  if (mesh.distributed) return petsc::distributed_numbering(*mesh.distributed);
  return petsc::serial_numbering(PETSC_COMM_SELF,
                                 static_cast<std::int32_t>(mesh.serial.node_count()));
}

// The communicator a matrix's collective calls run on.
MPI_Comm comm_of(const foehn_mesh_s& mesh) {
  return mesh.distributed ? mesh.distributed->comm : PETSC_COMM_SELF;
}

// The caller's Mat, checked locally before any collective step: a live PETSc Mat on the mesh's
// ranks with this rank's size (so that a wrong size names the rank that has it; the global size
// and the type are checked by PetscMatrix).
void check_caller_mat(Mat mat, const foehn_mesh_s& mesh, const petsc::NodeNumbering& numbering,
                      int block_rows, int block_cols) {
  FOEHN_PETSC_CHECK(MatInitializePackage());  // MAT_CLASSID is set by it
  c_api::require_petsc_object(mat, MAT_CLASSID, "Mat", "mat");
  c_api::require_same_ranks(reinterpret_cast<PetscObject>(mat), comm_of(mesh), "mat");
  PetscInt rows = 0, cols = 0;
  FOEHN_PETSC_CHECK(MatGetLocalSize(mat, &rows, &cols));
  const std::int64_t want_rows = std::int64_t{numbering.owned_nodes} * block_rows,
                     want_cols = std::int64_t{numbering.owned_nodes} * block_cols;
  // PETSC_DECIDE (-1) before the layout is set up: PetscMatrix checks the sizes PETSc decides.
  if ((rows >= 0 && rows != want_rows) || (cols >= 0 && cols != want_cols))
    fail(ErrorCategory::invalid_input, "the caller's Mat is ", rows, " x ", cols,
         " on this rank; the mesh's ", numbering.owned_nodes, " owned nodes and the operator's ",
         block_rows, " x ", block_cols, " blocks need ", want_rows, " x ", want_cols);
}

void check_rhs_size(Vec rhs, const foehn_matrix_s& m) {
  FOEHN_PETSC_CHECK(VecInitializePackage());  // VEC_CLASSID is set by it
  c_api::require_petsc_object(rhs, VEC_CLASSID, "Vec", "rhs");
  c_api::require_same_ranks(reinterpret_cast<PetscObject>(rhs), comm_of(*m.mesh), "rhs");
  PetscInt local_size = 0;
  FOEHN_PETSC_CHECK(VecGetLocalSize(rhs, &local_size));
  if (local_size != m.numbering.owned_nodes * m.block_rows)
    fail(ErrorCategory::invalid_input, "the rhs Vec has ", local_size,
         " entries on this rank; the mesh's owned nodes need ",
         m.numbering.owned_nodes * m.block_rows, " (owned nodes x block rows, no halo)");
}

// Local right-hand side (local nodes x components, Foehn order) summed into the global Vec.
// Collective; its size is checked (check_rhs_size) before.
void add_into_vec(Vec rhs, const foehn_matrix_s& m, std::span<const double> local) {
  FOEHN_PETSC_CHECK(VecZeroEntries(rhs));
  FOEHN_PETSC_CHECK(VecSetValues(rhs, static_cast<PetscInt>(m.rhs_rows.size()), m.rhs_rows.data(),
                                 local.data(), ADD_VALUES));
  FOEHN_PETSC_CHECK(VecAssemblyBegin(rhs));
  FOEHN_PETSC_CHECK(VecAssemblyEnd(rhs));
}

foehn_status create_partitioned(const char* call, MPI_Comm comm, int64_t local_node_count,
                                int64_t owned_node_count, const double* coordinates,
                                const int64_t* node_ids, int64_t tet_count,
                                const void* connectivity, int index_bytes, int index_base,
                                foehn_orientation orientation, foehn_mesh* mesh) {
  return guarded(call, [&] {
    if (mesh) *mesh = nullptr;
    c_api::require_mpi();
    petsc::PartitionedMeshArrays arrays;
    // Local checks, agreed before the collective construction (no rank waits for a failed one).
    petsc::detail::run_collectively(comm, [&] {
      require(mesh, "mesh (the output handle)");
      if (local_node_count < 0 || tet_count < 0 || tet_count > INT64_MAX / 4)
        fail(ErrorCategory::invalid_input, "local_node_count ", local_node_count, " or tet_count ",
             tet_count, " is out of range");
      if (node_ids == nullptr && local_node_count > 0)
        fail(ErrorCategory::invalid_input, "node_ids is NULL");
      arrays.local.tets =
          c_api::index_array(connectivity, tet_count * 4, index_bytes, "connectivity");
    });
    arrays.local.coordinates = coordinates;
    arrays.local.node_count = local_node_count;
    arrays.local.index_base = index_base;
    arrays.local.orientation =
        orientation == FOEHN_ORIENTATION_FIX ? OrientationPolicy::fix : OrientationPolicy::check;
    arrays.node_ids = {node_ids, static_cast<std::size_t>(local_node_count)};
    arrays.owned_node_count = owned_node_count;
    petsc::MeshFromPartition made = petsc::distributed_mesh_from_partition(comm, arrays);
    auto created = std::make_unique<foehn_mesh_s>();
    created->distributed = std::move(made.mesh);
    created->caller_local_of_local = std::move(made.caller_local_of_local);
    created->flipped_tets = static_cast<std::size_t>(made.flipped_tets);
    *mesh = c_api::hand_out(std::move(created), c_api::HandleKind::mesh, comm);
  });
}

// foehn_matrix_create(_f). mat_required: a Fortran caller's Mat, which may not be "none".
foehn_status matrix_create(const char* call, foehn_mesh mesh, foehn_assembler assembler,
                           foehn_operator op, Mat mat, bool mat_required, foehn_matrix* matrix) {
  return guarded(call, [&] {
    if (matrix) *matrix = nullptr;
    c_api::require_mpi();  // without MPI nobody can be told: the failure is this rank's
    // Every check is local, the construction collective: they are agreed first, on the
    // communicator the handles name (a destroyed or wrong-kind one too), so that no rank waits
    // for one that has already returned.
    const MPI_Comm comm = c_api::comm_of_call({mesh, assembler});
    auto made = std::make_unique<foehn_matrix_s>();
    petsc::detail::run_collectively(comm, [&] {
      c_api::require_petsc();
      require(matrix, "matrix (the output handle)");
      require(mesh, "mesh");
      require(assembler, "assembler");
      require(op, "op");
      made->mesh = mesh;
      made->assembler = assembler;
      made->numbering = numbering_of(*mesh);
      std::visit(
          [&](const auto& o) {
            using Op = std::decay_t<decltype(o)>;
            made->block_rows = Op::block_rows;
            made->block_cols = Op::block_cols;
          },
          op->op);
      if (assembler->assembler.node_count() != made->numbering.local_nodes)
        fail(ErrorCategory::invalid_input, "the assembler was made for ",
             assembler->assembler.node_count(), " nodes, the mesh has ",
             made->numbering.local_nodes, " on this rank");
      if (mat_required && c_api::is_fortran_null(mat))
        fail(ErrorCategory::invalid_input, "mat is not a PETSc Mat (its %v is ",
             reinterpret_cast<std::intptr_t>(mat),
             "): PETSC_NULL_MAT, or a Mat never created (MatCreate) or destroyed");
      if (mat) check_caller_mat(mat, *mesh, made->numbering, made->block_rows, made->block_cols);
    });
    const fe::Assembler& a = assembler->assembler;
    if (mat)
      made->matrix = std::make_unique<petsc::PetscMatrix>(mat, made->numbering, a.pattern(),
                                                          made->block_rows, made->block_cols);
    else
      made->matrix = std::make_unique<petsc::PetscMatrix>(made->numbering, a.pattern(),
                                                          made->block_rows, made->block_cols);
    const std::size_t rhs_count =
        static_cast<std::size_t>(made->numbering.local_nodes) * made->block_rows;
    made->rhs_rows.resize(rhs_count);
    for (std::int32_t l = 0; l < made->numbering.local_nodes; ++l)
      for (int r = 0; r < made->block_rows; ++r)
        made->rhs_rows[static_cast<std::size_t>(l) * made->block_rows + r] =
            static_cast<PetscInt>(made->numbering.global_of(l) * made->block_rows + r);
    const std::size_t value_count = made->matrix->value_count();
    if (a.native_memory() == fe::Memory::device) {
      made->device_values = DeviceArray<double>(value_count, *a.stream());
      made->device_rhs = DeviceArray<double>(rhs_count, *a.stream());
    } else {
      made->host_values.resize(value_count);
    }
    made->host_rhs.resize(rhs_count);
    *matrix = c_api::hand_out(std::move(made), c_api::HandleKind::matrix, mesh->comm());
  });
}

// foehn_assemble_into(_f). rhs_required: a Fortran caller's Vec, which may not be "none".
foehn_status assemble_into(const char* call, foehn_matrix matrix, foehn_operator op,
                           foehn_memory fields, Vec rhs, bool rhs_required) {
  return guarded(call, [&] {
    c_api::require_mpi();
    // Local phase: every argument check and this rank's elements. A defect on one rank (a
    // destroyed matrix, a field one value short, an rhs Vec with the halo) is then reported on
    // every rank, before the collective hand-off that the others would otherwise wait in forever.
    const MPI_Comm comm = c_api::comm_of_call({matrix});
    foehn_matrix_s* m = nullptr;
    fe::Assembler* a = nullptr;
    bool on_device = false;
    petsc::detail::run_collectively(comm, [&] {
      c_api::require_petsc();
      require(matrix, "matrix");
      m = matrix;
      // Documented to outlive the matrix; destroyed, they would be read after their free.
      require(m->mesh, "the matrix's mesh (destroyed before the matrix?)");
      require(m->assembler, "the matrix's assembler (destroyed before the matrix?)");
      a = &m->assembler->assembler;
      on_device = a->native_memory() == fe::Memory::device;
      require(op, "op");
      const fe::Memory field_memory = c_api::memory_of(fields, "fields");
      if (rhs_required && c_api::is_fortran_null(rhs))
        fail(ErrorCategory::invalid_input, "rhs is not a PETSc Vec (its %v is ",
             reinterpret_cast<std::intptr_t>(rhs),
             "): PETSC_NULL_VEC, or a Vec never created (VecCreate) or destroyed");
      if (rhs) check_rhs_size(rhs, *m);
      const c_api::AnyBuiltinOperator local_op = m->assembler->order.to_local(op->op, field_memory);
      std::visit(
          [&](const auto& o) {
            using Op = std::decay_t<decltype(o)>;
            if (Op::block_rows != m->block_rows || Op::block_cols != m->block_cols)
              fail(ErrorCategory::invalid_input, o.name, " operator has ", Op::block_rows, " x ",
                   Op::block_cols, " blocks; the matrix was made for ", m->block_rows, " x ",
                   m->block_cols);
            if (on_device) {
              a->assemble(o, field_memory,
                          {fe::Memory::device,
                           {m->device_values.data(), m->device_values.size()},
                           rhs ? std::span<double>(m->device_rhs.data(), m->device_rhs.size())
                               : std::span<double>{}});
              if (rhs) m->device_rhs.copy_to_host_async(m->host_rhs, *a->stream());
              a->stream()->synchronize();  // a kernel's error shows here, still in this phase
            } else {
              a->assemble(o, field_memory,
                          {fe::Memory::host, m->host_values,
                           rhs ? std::span<double>(m->host_rhs) : std::span<double>{}});
            }
          },
          local_op);
    });
    // Collective phase: every rank gets here.
    if (on_device)
      m->matrix->set_values(m->device_values, *a->stream());
    else
      m->matrix->set_values(m->host_values);
    if (rhs) add_into_vec(rhs, *m, m->host_rhs);
  });
}

}  // namespace

extern "C" {

foehn_status foehn_mesh_create_partitioned(MPI_Comm comm, int64_t local_node_count,
                                           int64_t owned_node_count, const double* coordinates,
                                           const int64_t* node_ids, int64_t tet_count,
                                           const void* connectivity, int index_bytes,
                                           int index_base, foehn_orientation orientation,
                                           foehn_mesh* mesh) {
  return create_partitioned("foehn_mesh_create_partitioned", comm, local_node_count,
                            owned_node_count, coordinates, node_ids, tet_count, connectivity,
                            index_bytes, index_base, orientation, mesh);
}

foehn_status foehn_mesh_create_partitioned_f(MPI_Fint comm, int64_t local_node_count,
                                             int64_t owned_node_count, const double* coordinates,
                                             const int64_t* node_ids, int64_t tet_count,
                                             const void* connectivity, int index_bytes,
                                             int index_base, foehn_orientation orientation,
                                             foehn_mesh* mesh) {
  // MPI_Comm_f2c aborts before MPI_Init (Open MPI): MPI is asked for first.
  const char* call = "foehn_mesh_create_partitioned_f";
  if (const foehn_status no_mpi = guarded(call, [&] { c_api::require_mpi(); })) {
    if (mesh) *mesh = nullptr;
    return no_mpi;
  }
  return create_partitioned(call, MPI_Comm_f2c(comm), local_node_count, owned_node_count,
                            coordinates, node_ids, tet_count, connectivity, index_bytes, index_base,
                            orientation, mesh);
}

foehn_status foehn_report_error_collective_f(MPI_Fint comm, foehn_status status,
                                             const char* message) {
  return guarded("foehn", [&] {
    c_api::require_mpi();
    std::optional<petsc::detail::Failure> failure;
    if (status != FOEHN_SUCCESS)
      failure = petsc::detail::Failure{c_api::category_of(status), message ? message : ""};
    petsc::detail::agree_on_failure(MPI_Comm_f2c(comm), failure);
  });
}

foehn_status foehn_mesh_petsc_numbers(foehn_mesh mesh, int64_t* petsc_node_of_caller_local) {
  return guarded("foehn_mesh_petsc_numbers", [&] {
    require(mesh, "mesh");
    require(petsc_node_of_caller_local, "petsc_node_of_caller_local");
    const std::size_t nodes = mesh->local().node_count();
    for (std::size_t l = 0; l < nodes; ++l) {
      const std::size_t caller = mesh->caller_local_of_local.empty()
                                     ? l
                                     : static_cast<std::size_t>(mesh->caller_local_of_local[l]);
      petsc_node_of_caller_local[caller] =
          mesh->distributed ? mesh->distributed->global_of_local[l] : static_cast<int64_t>(l);
    }
  });
}

foehn_status foehn_matrix_create(foehn_mesh mesh, foehn_assembler assembler, foehn_operator op,
                                 Mat mat, foehn_matrix* matrix) {
  return matrix_create("foehn_matrix_create", mesh, assembler, op, mat, false, matrix);
}

foehn_status foehn_matrix_create_f(foehn_mesh mesh, foehn_assembler assembler, foehn_operator op,
                                   const Mat* mat, foehn_matrix* matrix) {
  // A Fortran caller always passes a Mat: its %v 0 or -2 is a Mat never created, not a request.
  return matrix_create("foehn_matrix_create_f", mesh, assembler, op, mat ? *mat : nullptr,
                       mat != nullptr, matrix);
}

foehn_status foehn_matrix_get_mat(foehn_matrix matrix, Mat* mat) {
  return guarded("foehn_matrix_get_mat", [&] {
    require(matrix, "matrix");
    require(mat, "mat");
    *mat = matrix->matrix->mat();
  });
}

foehn_status foehn_assemble_into(foehn_matrix matrix, foehn_operator op, foehn_memory fields,
                                 Vec rhs) {
  return assemble_into("foehn_assemble_into", matrix, op, fields, rhs, false);
}

foehn_status foehn_assemble_into_f(foehn_matrix matrix, foehn_operator op, foehn_memory fields,
                                   const Vec* rhs) {
  return assemble_into("foehn_assemble_into_f", matrix, op, fields, rhs ? *rhs : nullptr,
                       rhs != nullptr);
}

foehn_status foehn_matrix_destroy(foehn_matrix* matrix) {
  return guarded("foehn_matrix_destroy", [&] {
    if (matrix == nullptr) return;
    if (*matrix != nullptr) c_api::require_live(*matrix, c_api::HandleKind::matrix, "*matrix");
    // After PetscFinalize the Mat cannot be destroyed any more: it is left (leaked), the rest
    // of the handle is released, and the caller hears of it.
    PetscBool finalized = PETSC_FALSE;
    const bool petsc_gone =
        *matrix != nullptr && PetscFinalized(&finalized) == 0 && finalized == PETSC_TRUE;
    if (petsc_gone) (void)(*matrix)->matrix.release();
    c_api::destroy_handle(*matrix, c_api::HandleKind::matrix, "*matrix");
    if (petsc_gone)
      fail(ErrorCategory::unavailable,
           "foehn_matrix_destroy after PetscFinalize: the handle is released but its PETSc Mat "
           "could not be destroyed (destroy Foehn matrices before PetscFinalize)");
  });
}

}  // extern "C"
