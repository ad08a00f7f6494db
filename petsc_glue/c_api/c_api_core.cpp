// The C ABI (foehn.h): errors, serial meshes, operators by name, assemblers and raw values.
#include <cmath>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <utility>

#include "c_api_support.hpp"
#include "foehn/config.hpp"
#include "foehn/mesh/from_arrays.hpp"
#include "foehn/petsc/partitioned_mesh.hpp"
#include "foehn/runtime/error.hpp"

namespace foehn::c_api {

namespace {
thread_local std::string last_error;
}  // namespace

void set_last_error(std::string message) noexcept {
  try {
    last_error = std::move(message);
  } catch (...) {
    last_error.clear();  // no memory even for the message: an empty one is still safe
  }
}
void clear_last_error() noexcept {
  last_error.clear();
}

namespace {

// One row per category: the status the C ABI returns for it, and back.
constexpr std::pair<ErrorCategory, foehn_status> status_of_category[] = {
    {ErrorCategory::invalid_input, FOEHN_ERROR_INVALID_INPUT},
    {ErrorCategory::cuda, FOEHN_ERROR_CUDA},
    {ErrorCategory::petsc, FOEHN_ERROR_PETSC},
    {ErrorCategory::io, FOEHN_ERROR_IO},
    {ErrorCategory::out_of_memory, FOEHN_ERROR_OUT_OF_MEMORY},
    {ErrorCategory::unavailable, FOEHN_ERROR_UNAVAILABLE},
    {ErrorCategory::numerical, FOEHN_ERROR_NUMERICAL},
    {ErrorCategory::internal, FOEHN_ERROR_INTERNAL}};

}  // namespace

ErrorCategory category_of(foehn_status status) noexcept {
  for (const auto& [category, code] : status_of_category)
    if (code == status) return category;
  return ErrorCategory::internal;
}

foehn_status status_of(ErrorCategory category) noexcept {
  for (const auto& [known, code] : status_of_category)
    if (known == category) return code;
  return FOEHN_ERROR_INTERNAL;
}

void require(const void* pointer, const char* argument) {
  if (pointer == nullptr) fail(ErrorCategory::invalid_input, argument, " is NULL");
}

namespace {

const char* kind_name(HandleKind kind) {
  switch (kind) {
    case HandleKind::mesh:
      return "foehn_mesh";
    case HandleKind::op:
      return "foehn_operator";
    case HandleKind::assembler:
      return "foehn_assembler";
    case HandleKind::matrix:
      return "foehn_matrix";
  }
  return "handle";
}

struct HandleEntry {
  HandleKind kind;
  bool live = true;
  MPI_Comm comm = MPI_COMM_NULL;  // MPI_COMM_NULL: serial
};

struct Handles {
  std::mutex mutex;
  std::unordered_map<const void*, HandleEntry> entries;
  std::deque<void*> tombstones;  // oldest first
};

Handles& handles() {
  static Handles* all = new Handles;  // never destroyed: finalizers may run late
  return *all;
}

// Under the registry's lock: invalid_input unless `handle` is live and of `kind`.
void check_live_locked(const Handles& all, const void* handle, HandleKind kind,
                       const char* argument) {
  if (handle == nullptr) fail(ErrorCategory::invalid_input, argument, " is NULL");
  const auto found = all.entries.find(handle);
  if (found == all.entries.end())
    fail(ErrorCategory::invalid_input, argument, " is not a ", kind_name(kind),
         " handle: never made by Foehn (uninitialised, garbage, or destroyed long ago)");
  if (found->second.kind != kind)
    fail(ErrorCategory::invalid_input, argument, " is a ", kind_name(found->second.kind),
         found->second.live ? "" : " (destroyed)", " handle where a ", kind_name(kind),
         " is expected");
  if (!found->second.live)
    fail(ErrorCategory::invalid_input, argument, " is not a live ", kind_name(kind),
         " handle: destroyed already (or a copy of one that was)");
}

}  // namespace

void register_handle(const void* handle, HandleKind kind, MPI_Comm comm) {
  Handles& all = handles();
  const std::lock_guard lock(all.mutex);
  all.entries[handle] = HandleEntry{kind, true, comm};
}

void require_live(const void* handle, HandleKind kind, const char* argument) {
  Handles& all = handles();
  const std::lock_guard lock(all.mutex);
  check_live_locked(all, handle, kind, argument);
}

bool retire_handle(const void* handle, HandleKind kind, const char* argument) {
  if (handle == nullptr) return false;
  Handles& all = handles();
  const std::lock_guard lock(all.mutex);
  check_live_locked(all, handle, kind, argument);
  all.entries.at(handle).live = false;
  return true;
}

void keep_tombstone(void* storage) {
  Handles& all = handles();
  void* oldest = nullptr;
  {
    const std::lock_guard lock(all.mutex);
    all.tombstones.push_back(storage);
    if (all.tombstones.size() > tombstones_kept) {
      oldest = all.tombstones.front();
      all.tombstones.pop_front();
      all.entries.erase(oldest);
    }
  }
  ::operator delete(oldest);  // its contents were destroyed when it was retired
}

MPI_Comm comm_of_call(std::initializer_list<const void*> call_handles) {
  Handles& all = handles();
  const std::lock_guard lock(all.mutex);
  for (const void* handle : call_handles) {
    if (handle == nullptr) continue;
    const auto found = all.entries.find(handle);
    if (found != all.entries.end())
      return found->second.comm == MPI_COMM_NULL ? MPI_COMM_SELF : found->second.comm;
  }
  // Nothing names the communicator: the live partitioned meshes' one, if they agree on one.
  MPI_Comm sole = MPI_COMM_NULL;
  for (const auto& [handle, entry] : all.entries) {
    if (!entry.live || entry.kind != HandleKind::mesh || entry.comm == MPI_COMM_NULL) continue;
    if (sole != MPI_COMM_NULL && sole != entry.comm) return MPI_COMM_SELF;
    sole = entry.comm;
  }
  return sole == MPI_COMM_NULL ? MPI_COMM_SELF : sole;
}

void require_mpi() {
  int initialized = 0, finalized = 0;
  if (MPI_Initialized(&initialized) != MPI_SUCCESS || !initialized)
    fail(ErrorCategory::unavailable,
         "MPI is needed, but MPI_Init (or PetscInitialize) has not been called yet");
  if (MPI_Finalized(&finalized) != MPI_SUCCESS || finalized)
    fail(ErrorCategory::unavailable, "MPI is needed, but MPI_Finalize has been called");
}

IndexArray index_array(const void* data, std::int64_t count, int index_bytes, const char* name) {
  if (count < 0) fail(ErrorCategory::invalid_input, name, ": negative length ", count);
  if (index_bytes == 4)
    return std::span<const std::int32_t>(static_cast<const std::int32_t*>(data),
                                         static_cast<std::size_t>(count));
  if (index_bytes == 8)
    return std::span<const std::int64_t>(static_cast<const std::int64_t*>(data),
                                         static_cast<std::size_t>(count));
  fail(ErrorCategory::invalid_input, name, ": index_bytes is ", index_bytes,
       " (4 for int32 / Fortran integer, 8 for int64 / integer(8))");
}

fe::Memory memory_of(foehn_memory memory, const char* name) {
  if (memory == FOEHN_MEMORY_HOST) return fe::Memory::host;
  if (memory == FOEHN_MEMORY_DEVICE) return fe::Memory::device;
  fail(ErrorCategory::invalid_input, name, " is ", static_cast<int>(memory),
       " (FOEHN_MEMORY_HOST = 0 or FOEHN_MEMORY_DEVICE = 1)");
}

FieldOrder::FieldOrder(std::vector<std::int32_t> caller_local_of_local) {
  for (std::size_t l = 0; l < caller_local_of_local.size(); ++l)
    if (caller_local_of_local[l] != static_cast<std::int32_t>(l)) {
      caller_local_of_local_ = std::move(caller_local_of_local);
      return;
    }
}

AnyBuiltinOperator FieldOrder::to_local(const AnyBuiltinOperator& op, fe::Memory fields) {
  if (identity()) return op;
  const std::size_t nodes = caller_local_of_local_.size();
  std::size_t slot = 0;
  return std::visit(
      [&](const auto& o) -> AnyBuiltinOperator {
        return fe::with_fields_replaced(
            o, [&](const fe::FieldRef& field, int components, const char* name) {
              if (fields == fe::Memory::device)
                fail(ErrorCategory::invalid_input, o.name, " operator: field ", name,
                     " is in device memory, but this partitioned mesh orders its nodes differently "
                     "from the caller; pass host fields (Foehn permutes them)");
              if (field.size != static_cast<std::int64_t>(nodes) * components)
                fail(ErrorCategory::invalid_input, o.name, " operator: field ", name, " has ",
                     field.size, " values, expected ", nodes * components, " (", nodes,
                     " local nodes x ", components, ")");
              if (scratch_.size() <= slot) scratch_.resize(slot + 1);
              std::vector<double>& local = scratch_[slot++];
              local.resize(static_cast<std::size_t>(field.size));
              petsc::to_local_order(caller_local_of_local_,
                                    {field.data, static_cast<std::size_t>(field.size)}, local,
                                    components);
              return fe::field_ref(local);
            });
      },
      op);
}

void FieldOrder::to_caller(std::span<const double> local, std::span<double> caller,
                           int components) const {
  if (identity())
    std::copy(local.begin(), local.end(), caller.begin());
  else
    petsc::to_caller_order(caller_local_of_local_, local, caller, components);
}

}  // namespace foehn::c_api

using namespace foehn;
using c_api::guarded;
using c_api::require;

extern "C" {

const char* foehn_last_error(void) {
  return c_api::last_error.c_str();
}

size_t foehn_copy_last_error(char* buffer, size_t size) {
  const std::string& message = c_api::last_error;
  if (buffer != nullptr && size > 0) {
    const std::size_t n = std::min(size - 1, message.size());
    std::memcpy(buffer, message.data(), n);
    buffer[n] = '\0';
  }
  return message.size();
}

const char* foehn_version(void) {
  return FOEHN_VERSION_STRING;
}

int foehn_has_cuda(void) {
  return FOEHN_HAVE_CUDA;
}

foehn_status foehn_report_error(foehn_status status, const char* message) {
  if (status == FOEHN_SUCCESS) {
    c_api::clear_last_error();
  } else {
    c_api::set_last_error(message ? message : "");
  }
  return status;
}

foehn_status foehn_mesh_create(int64_t node_count, const double* coordinates, int64_t tet_count,
                               const void* connectivity, int index_bytes, int index_base,
                               foehn_orientation orientation, foehn_mesh* mesh) {
  return guarded("foehn_mesh_create", [&] {
    require(mesh, "mesh (the output handle)");
    *mesh = nullptr;
    if (tet_count < 0 || tet_count > INT64_MAX / 4)
      fail(ErrorCategory::invalid_input, "tet_count ", tet_count, " is out of range");
    if (orientation != FOEHN_ORIENTATION_CHECK && orientation != FOEHN_ORIENTATION_FIX)
      fail(ErrorCategory::invalid_input, "orientation is ", static_cast<int>(orientation),
           " (FOEHN_ORIENTATION_CHECK = 0 or FOEHN_ORIENTATION_FIX = 1)");
    MeshArrays arrays;
    arrays.coordinates = coordinates;
    arrays.node_count = node_count;
    arrays.tets = c_api::index_array(connectivity, tet_count * 4, index_bytes, "connectivity");
    arrays.index_base = index_base;
    arrays.orientation =
        orientation == FOEHN_ORIENTATION_FIX ? OrientationPolicy::fix : OrientationPolicy::check;
    arrays.allow_unused_nodes = true;  // caller meshes may carry nodes no tet uses
    auto created = std::make_unique<foehn_mesh_s>();
    MeshImportReport report;
    created->serial = mesh_from_arrays(arrays, &report);
    created->flipped_tets = report.flipped_tets;
    *mesh = c_api::hand_out(std::move(created), c_api::HandleKind::mesh);
  });
}

foehn_status foehn_mesh_sizes(foehn_mesh mesh, int64_t* local_nodes, int64_t* owned_nodes,
                              int64_t* local_tets) {
  return guarded("foehn_mesh_sizes", [&] {
    require(mesh, "mesh");
    const TetMesh& local = mesh->local();
    if (local_nodes) *local_nodes = static_cast<int64_t>(local.node_count());
    if (owned_nodes)
      *owned_nodes = mesh->distributed ? mesh->distributed->owned_nodes
                                       : static_cast<int64_t>(local.node_count());
    if (local_tets) *local_tets = static_cast<int64_t>(local.tet_count());
  });
}

foehn_status foehn_mesh_flipped_tets(foehn_mesh mesh, int64_t* flipped) {
  return guarded("foehn_mesh_flipped_tets", [&] {
    require(mesh, "mesh");
    require(flipped, "flipped");
    *flipped = static_cast<int64_t>(mesh->flipped_tets);
  });
}

foehn_status foehn_mesh_destroy(foehn_mesh* mesh) {
  return guarded("foehn_mesh_destroy", [&] {
    if (mesh == nullptr) return;
    c_api::destroy_handle(*mesh, c_api::HandleKind::mesh, "*mesh");
  });
}

foehn_status foehn_operator_create(const char* name, foehn_operator* op) {
  return guarded("foehn_operator_create", [&] {
    require(op, "op (the output handle)");
    *op = nullptr;
    require(name, "name");
    *op = c_api::hand_out(
        std::make_unique<foehn_operator_s>(foehn_operator_s{fe::make_builtin_operator(name)}),
        c_api::HandleKind::op);
  });
}

foehn_status foehn_operator_set_parameter(foehn_operator op, const char* name, double value) {
  return guarded("foehn_operator_set_parameter", [&] {
    require(op, "op");
    require(name, "name");
    std::visit([&](auto& o) { fe::set_parameter(o, name, value); }, op->op);
  });
}

foehn_status foehn_operator_set_field(foehn_operator op, const char* name, const double* values,
                                      int64_t count) {
  return guarded("foehn_operator_set_field", [&] {
    require(op, "op");
    require(name, "name");
    if (count < 0) fail(ErrorCategory::invalid_input, "field ", name, ": negative count ", count);
    const fe::FieldRef field = values ? fe::FieldRef{values, count} : fe::FieldRef{};
    std::visit([&](auto& o) { fe::set_field(o, name, field); }, op->op);
  });
}

foehn_status foehn_operator_block_shape(foehn_operator op, int* block_rows, int* block_cols) {
  return guarded("foehn_operator_block_shape", [&] {
    require(op, "op");
    std::visit(
        [&](const auto& o) {
          using Op = std::decay_t<decltype(o)>;
          if (block_rows) *block_rows = Op::block_rows;
          if (block_cols) *block_cols = Op::block_cols;
        },
        op->op);
  });
}

foehn_status foehn_operator_destroy(foehn_operator* op) {
  return guarded("foehn_operator_destroy", [&] {
    if (op == nullptr) return;
    c_api::destroy_handle(*op, c_api::HandleKind::op, "*op");
  });
}

}  // extern "C"
